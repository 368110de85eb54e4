// What the benchmarks measure besides wall-clock time (`Clock.monotonic()`, and the importer's `threadCPUSeconds()`
// for the calling thread), and the one way they print numbers.
import TriplineCore
import TriplineStore
import TriplineImport

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// CPU time (user + system) of this process so far: other processes on a shared machine disturb it far less than
/// wall-clock time.
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The process's peak resident set (`VmHWM` in /proc/self/status) in KiB; -1 when it cannot be read.
func peakRSSKiB() -> Int {
    guard let bytes = try? FileSystem.read("/proc/self/status") else { return -1 }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// `value` with exactly `decimals` digits after the point (``NumberText/fixed(_:decimals:)``).
func fixed(_ value: Double, _ decimals: Int) -> String {
    NumberText.fixed(value, decimals: decimals)
}

/// Imports `paths` into a new database at `db` through the real ``Importer`` and measures it: the summary, the wall
/// time of the import alone and the peak RSS after it (MB). Throws when the import did not store `expected` points
/// (or, with `noRejects`, rejected any record).
func timedImport(_ paths: [String], into db: String, expected: Int, noRejects: Bool = false) throws -> (summary: ImportSummary, seconds: Double, rssMB: Double) {
    let store = try Store(path: db)
    let importer = Importer(store: store)
    let start = Clock.monotonic()
    let summary = try importer.importPaths(paths)
    let seconds = Clock.monotonic() - start
    let rss = Double(peakRSSKiB()) / 1024
    guard summary.pointsNew == expected, !noRejects || summary.rejected == 0 else {
        throw BenchmarkFailure("import stored \(summary.pointsNew) points, expected \(expected) (rejected \(summary.rejected), \(summary.files.first?.message ?? ""))")
    }
    return (summary, seconds, rss)
}
