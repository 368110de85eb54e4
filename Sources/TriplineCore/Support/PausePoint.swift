#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A test hook for process tests of concurrent commands (docs/ARCHITECTURE.md, "Pause points").
///
/// When the environment variable `TRIPLINE_PAUSE_AT` names a pause point that the running command reaches, the
/// command writes the marker line `tripline: paused at <name>` to standard error and waits until a line (or end of
/// file) arrives on standard input, then goes on. A test reads the marker, starts the other process, and releases
/// the paused one by writing a newline, so a race is replayed in a chosen order without any timing. Each point
/// pauses once per process. Without the variable (always, outside tests) a pause point costs one `getenv`.
///
/// Points: `rebuild.before-lock` (a device's rebuild is about to take its write lock; it has decided nothing yet),
/// `rebuild.locked` (it holds the lock, before it decides what to recompute) and `map.read` (the map has read the
/// trips of its selection, before the visits and places).
public enum PausePoint {
    nonisolated(unsafe) private static var passed: Set<String> = []

    public static func reach(_ name: String) {
        guard let value = getenv("TRIPLINE_PAUSE_AT"), String(cString: value) == name, !passed.contains(name) else { return }
        passed.insert(name)
        let marker = Array("tripline: paused at \(name)\n".utf8)
        _ = marker.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        var byte: UInt8 = 0
        while read(0, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {}
    }
}
