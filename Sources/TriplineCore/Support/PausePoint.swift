#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Named moments where a process test can stop a running `tripline` deterministically, instead of guessing with
/// sleeps: kill it there (crash safety), or hold it there while another process runs (races).
///
/// When the environment variable `TRIPLINE_PAUSE_AT` names the moment a run reaches, the process writes
/// `paused at NAME` as one line on standard error and then waits for one line on standard input: the test reads the
/// marker, does what it wants (kills the process, starts another one), and writes a newline to let it go on. With
/// standard input closed or at its end the process goes on at once. Without the variable this costs one comparison.
///
/// The moments (docs/RELIABILITY.md keeps the list):
/// - `import.file.N.written`: the N-th file (from 1, in the order they are read) is written, its transaction open;
/// - `import.file.N.committed`: the N-th file is committed;
/// - `rebuild.DEVICE.PASS`: a pass has written its rows for a device, inside the rebuild's transaction.
/// - `merge.FILE.written`: `tripline merge` has written a shard's rows (FILE: the shard's file name), its transaction open.
/// - `import.pipe.opened`: the import has opened a named pipe (FIFO) it was given, before it reads (and waits for a
///   writer);
/// - `export.temporary.created`: an export (or a map) to a file has created its hidden temporary file beside the
///   target, before it writes anything.
/// - `query.running`: a statement of `query` or `report` is running inside SQLite (its progress handler was called),
///   with Ctrl-C set to stop it.
public enum PausePoint {
    /// The moment named by `TRIPLINE_PAUSE_AT`, read once.
    static let wanted: String? = getenv("TRIPLINE_PAUSE_AT").map { String(cString: $0) }

    /// Pauses when `name` is the wanted moment.
    @inline(__always)
    public static func reach(_ name: @autoclosure () -> String) {
        guard let wanted else { return }
        let here = name()
        guard here == wanted else { return }
        let line = "paused at \(here)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
        }
    }
}
