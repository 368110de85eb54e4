// Benchmarks, run in release mode: `swift run -c release tripline-bench <name>`.
// Each benchmark lives in its own file and registers in `benchmarks` below; see docs/PERFORMANCE.md.
import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

let benchmarks: [(name: String, about: String, run: ([String]) throws -> Void)] = [
    ("import", "import a generated 1,000,000-point Overland archive vs a raw sqlite3 insert", ImportBenchmark.run),
    ("takeout", "import a generated Google Takeout Records.json (default 2 GB; pass GB): points/s and peak memory", TakeoutBenchmark.run),
    ("map", "synthetic year at 1 Hz -> map.html: size, render time, drawn counts (--days N --dir DIR)", MapBenchmark.run),
    ("export", "export a year of 1 Hz points and its trips as GeoJSON, GPX and CSV: MB/s and peak memory", ExportBenchmark.run),
    ("tune", "leave-one-user-out parameter choice on GeoLife users (--geolife DIR..., --grid FILE)", TuneBenchmark.run),
    ("geography", "ns per time-zone, country and nearest-place lookup on 1,000,000 points (--points N --check FILE)", GeographyBenchmark.run),
    ("places", "rebuilt places against Google's place ids and the simulator's truth places (--corpus PATH --seeds A-B --days N)", PlacesBenchmark.run),
    ("rebuild", "full rebuild of ~1,000,000 simulated points of one device, from the database and back", RebuildBenchmark.run),
]

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let benchmark = benchmarks.first(where: { $0.name == name }) else {
    print("usage: tripline-bench <benchmark> [options]\n\nbenchmarks:")
    for b in benchmarks { print("  \(b.name)  \(b.about)") }
    exit(args.isEmpty ? 0 : 64)
}
do {
    try benchmark.run(Array(args.dropFirst()))
} catch {
    print("Error: \(error)")
    exit(1)
}

/// A benchmark that could not run or produced a wrong result.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
