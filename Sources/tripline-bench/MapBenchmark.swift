import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `tripline-bench map [--days N] [--dir DIR] [--seed S] [--plain]`: generates (once, cached in DIR) a synthetic
/// person's N days at 1 Hz straight into the rebuild's tables, renders the map and reports the file size,
/// render time and what was drawn. Render the page with `scripts/render-map.sh DIR/map.html` for the browser time.
enum MapBenchmark {
    static func run(_ args: [String]) throws {
        var days = 365
        var directory = "/tmp/tripline-map-bench"
        var seed: UInt64 = 7
        var hostile = true
        var parameters = MapParameters()
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--days": days = options.value(or: days)
            case "--dir": directory = options.value() ?? directory
            case "--seed": seed = options.value(or: seed)
            case "--plain": hostile = false
            case "--tolerance": parameters.tolerancePx = options.value(or: parameters.tolerancePx)
            case "--detail": parameters.detail = options.value(or: parameters.detail)
            default: throw BenchmarkFailure("unknown option \(option) (expected --days N, --dir DIR, --seed S, --plain, --tolerance PX, --detail N)")
            }
        }
        try FileSystem.createDirectory(directory)
        let database = directory + "/map-\(days)d-\(seed)\(hostile ? "" : "-plain").sqlite"
        if !FileSystem.exists(database) {
            let started = Clock.monotonic()
            let store = try Store(path: database)
            var travel = SyntheticTravel.Parameters()
            travel.days = days
            travel.seed = seed
            travel.hostileNames = hostile
            travel.firstDay = CivilTime.daysFromCivil(year: 2024, month: 1, day: 1)
            let summary = try SyntheticTravel.generate(into: store, travel)
            print("generated \(database): \(summary.points) points, \(summary.trips) trips, \(summary.legs) legs, "
                + "\(summary.visits) visits, \(summary.flaggedPoints) flagged, in \(fixed(Clock.monotonic() - started, 2)) s")
        }
        let store = try Store(path: database, create: false)
        let output = directory + "/map-\(days)d.html"
        let started = Clock.monotonic()
        let document = try MapRenderer(store: store, parameters: parameters).write(to: output)
        let seconds = Clock.monotonic() - started
        print("map: \(output)")
        print("  size       \(document.bytes.count) bytes (\(fixed(Double(document.bytes.count) / 1_048_576, 2)) MiB)")
        print("  render     \(fixed(seconds, 2)) s (database to file)")
        print("  drawn      \(document.tripsDrawn)/\(document.tripsSelected) trips, \(document.visitsDrawn)/\(document.visitsSelected) visits, \(document.labels) labels")
        print("  geometry   \(document.pointsRead) points read -> \(document.verticesWritten) vertices written")
        print("  peak RSS   \(peakRSSKiB() / 1024) MiB")
    }

}
