// Export benchmark: a year of 1 Hz points, exported as points and trips in each format; MB/s and peak memory.
import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `tripline-bench export [--hours-per-day H] [--days D] [--db PATH] [--keep] [--only points.csv]`
///
/// Fills a fresh database (or reuses `--db PATH` when it exists) with `D` days (default 365) of `H` hours (default 4)
/// a day of 1 Hz points — 5.26 million by default — in four one-hour trips a day (two legs each, a 10-minute
/// recording gap in each trip, every 1000th point flagged), inserted directly. Then exports points and trips in every
/// format to /dev/null (formatting and reading, no disk) and the points as CSV to a real file, printing the output
/// rate in MB/s (10^6 bytes) of wall-clock time and of CPU time, and the process's peak resident memory (VmHWM).
enum ExportBenchmark {
    /// The peak resident set, as the tables print it.
    static var peakRSS: String { fixed(Double(peakRSSKiB()) / 1024, 1) + " MB" }

    static func run(_ args: [String]) throws {
        var days = 365
        var hours = 4
        var path: String?
        var keep = false
        var only: String?
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--days": days = options.value(or: days)
            case "--hours-per-day": hours = options.value(or: hours)
            case "--db": path = options.value()
            case "--keep": keep = true
            case "--only": only = options.value()
            default: print("unknown option \(option)"); exit(64)
            }
        }
        let directory = try FileSystem.temporaryDirectory(prefix: "tripline-bench-export")
        let dbPath = path ?? directory + "/bench.sqlite"
        let reuse = FileSystem.exists(dbPath)
        let store = try Store(path: dbPath)
        if !reuse {
            let started = Clock.monotonic()
            let count = try fill(store, days: days, hoursPerDay: hours)
            let seconds = Clock.monotonic() - started
            print("filled \(count) points, \(days * 4) trips in \(fixed(seconds, 1)) s (\(fixed(Double(count) / seconds / 1e6, 2)) M points/s); peak RSS \(peakRSS)")
        } else {
            print("reusing \(dbPath)")
        }
        let points = try store.pointCount()
        let exporter = try Exporter(store: store)
        print("points: \(points)")
        print("kind    format    records       MB  wall s  MB/s wall   cpu s  MB/s cpu   peak RSS")
        let null = open("/dev/null", O_WRONLY)
        for kind in [ExportKind.points, .trips] {
            for format in ExportFormat.allCases {
                if let only, only != "\(kind.rawValue).\(format.rawValue)" { continue }
                let writer = ByteWriter(fd: null, path: "/dev/null")
                let started = Clock.monotonic()
                let cpu = processCPUSeconds()
                let result = try exporter.export(kind, as: format, to: writer)
                report(kind.rawValue, format.rawValue, result, Clock.monotonic() - started, processCPUSeconds() - cpu)
            }
        }
        close(null)
        if only == nil {
            let file = directory + "/points.csv"
            let started = Clock.monotonic()
            let cpu = processCPUSeconds()
            let result = try exporter.export(.points, as: .csv, toFile: file, stdout: OutputStream { _ in })
            report("points", "csv>file", result, Clock.monotonic() - started, processCPUSeconds() - cpu)
            FileSystem.remove(file)
        }
        if !keep && path == nil {
            for suffix in ["", "-wal", "-shm"] { FileSystem.remove(dbPath + suffix) }
        } else {
            print("database kept at \(dbPath)")
        }
        rmdir(directory)
    }

    static func report(_ kind: String, _ format: String, _ result: ExportResult, _ seconds: Double, _ cpu: Double) {
        let mb = Double(result.bytes) / 1e6
        func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return right ? fill + s : s + fill
        }
        print(
            pad(kind, 8) + pad(format, 9) + pad(String(result.records), 10, right: true) + pad(fixed(mb, 1), 9, right: true)
                + pad(fixed(seconds, 2), 8, right: true) + pad(fixed(mb / seconds, 1), 11, right: true)
                + pad(fixed(cpu, 2), 8, right: true) + pad(fixed(mb / cpu, 1), 10, right: true)
                + "   " + peakRSS)
    }

    /// Inserts the synthetic year. Returns the number of points.
    static func fill(_ store: Store, days: Int, hoursPerDay: Int) throws -> Int {
        let device = try store.deviceID(named: "bench-phone", source: "overland", origin: .benchmark)
        try store.setSetting("timezone", "Europe/Berlin")
        let start = Int64(CivilTime.daysFromCivil(year: 2023, month: 1, day: 1)) * 86_400_000
        let tables = RebuildTables(store)
        var points: [Point] = []
        var count = 0
        let tripsPerDay = 4
        let secondsPerTrip = hoursPerDay * 3600 / tripsPerDay
        try store.transaction {
            for day in 0..<days {
                for t in 0..<tripsPerDay {
                    let tripStart = start + Int64(day) * 86_400_000 + Int64(7 + t * 3) * 3_600_000
                    var lat = 52.5 + Double(t) * 0.01
                    var lon = 13.4
                    let startLat = lat
                    let startLon = lon
                    var written = 0
                    for second in 0..<secondsPerTrip {
                        // A recording gap of 10 minutes in the middle of every trip.
                        if second >= secondsPerTrip / 2 && second < secondsPerTrip / 2 + 600 { continue }
                        let time = tripStart + Int64(second) * 1000
                        lat += 0.00009 * sin(Double(second) / 300)
                        lon += 0.00012
                        points.append(
                            Point(deviceID: device, timeMs: time, utcOffsetS: 3600, lat: lat, lon: lon, altitudeM: 34 + Double(second % 50) * 0.1,
                                  speedMps: 12.5 + Double(second % 7), courseDeg: Double(second % 360), accuracyM: 4.5, motion: "automotive", importID: 1))
                        if count % 1000 == 999 { try tables.setFlags(device: device, timeMs: time, flags: 1) }
                        count += 1
                        written += 1
                    }
                    let end = tripStart + Int64(secondsPerTrip) * 1000
                    let distance = Double(secondsPerTrip) * 12
                    let tripID = try tables.insert(
                        TripRow(deviceID: device, startMs: tripStart, endMs: end, startUTCOffset: 3600, endUTCOffset: 3600,
                                durationS: Double(secondsPerTrip), movingS: Double(secondsPerTrip), distanceM: distance, avgSpeedMps: 12, maxSpeedMps: 12,
                                mode: "car", legs: 2, fromVisitID: nil, toVisitID: nil, fromPlaceID: nil, toPlaceID: nil, startLat: startLat,
                                startLon: startLon, endLat: lat, endLon: lon, points: written, gaps: 1))
                    let middle = tripStart + Int64(secondsPerTrip / 2) * 1000
                    for (number, mode, from, to) in [(1, "walk", tripStart, middle), (2, "car", middle, end)] {
                        try tables.insert(
                            LegRow(tripID: tripID, leg: number, deviceID: device, mode: mode, modeSource: "speed", startMs: from, endMs: to,
                                   distanceM: distance / 2, durationS: Double(to - from) / 1000, points: written / 2))
                    }
                    try store.insertPoints(points)
                    points.removeAll(keepingCapacity: true)
                }
            }
        }
        return count
    }

}
