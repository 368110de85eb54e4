#if canImport(Glibc)
@preconcurrency import Glibc
#endif

// The libFuzzer entry point for every Tripline fuzz target. Built by scripts/fuzz.sh together with the library
// sources into ONE module (so `internal` API is reachable and no SwiftPM product is involved); never part of the
// SwiftPM build. The target is chosen by the environment variable TRIPLINE_FUZZ_TARGET, read once.

/// Every target: a name and a function that must neither crash, hang, leak nor break an invariant for any input.
let fuzzTargets: [String: (UnsafeRawBufferPointer) -> Void] = [
    "overland": FuzzTargets.overlandJSON,
    "owntracks": FuzzTargets.ownTracksJSON,
    "rec": FuzzTargets.recLines,
    "gpx": FuzzTargets.gpx,
    "timestamp": FuzzTargets.timestamp,
    "containers": FuzzTargets.containers,
    "parameters": FuzzTargets.parameters,
]

nonisolated(unsafe) var selectedTarget: ((UnsafeRawBufferPointer) -> Void)? = nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    if selectedTarget == nil {
        let name = getenv("TRIPLINE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = fuzzTargets[name] else {
            fputs("TRIPLINE_FUZZ_TARGET must be one of: \(fuzzTargets.keys.sorted().joined(separator: ", "))\n", stderr)
            exit(2)
        }
        selectedTarget = target
    }
    selectedTarget!(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}
