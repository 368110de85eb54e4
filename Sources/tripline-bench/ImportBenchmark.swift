// The import benchmark: a generated Overland archive through `Importer`, next to a raw sqlite3 insert of the same
// rows, measured in the same run. `swift run -c release tripline-bench import [points]`.
import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

enum ImportBenchmark {
    static let pointsPerBatch = 200
    static let batchesPerFile = 50

    /// One generated fix (the same values go into the archive and into the raw insert).
    struct Fix {
        var timeMs: Int64
        var lat: Double
        var lon: Double
        var altitude: Double
        var speed: Double
        var course: Double
        var accuracy: Double
        var battery: Double
    }

    /// A deterministic random walk: fix `i` of the archive.
    static func fix(_ i: Int) -> Fix {
        var x = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 31
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
        let r = Double(x % 10_000) / 10_000
        let t = Double(i)
        return Fix(timeMs: 1_600_000_000_000 + Int64(i) * 1000, lat: 37.33 + 0.01 * sin(t / 5000) + r * 1e-5,
                   lon: -122.03 + 0.01 * cos(t / 7000) - r * 1e-5, altitude: Double(20 + i % 30), speed: Double(i % 25) + r,
                   course: Double(i % 360), accuracy: Double(5 + i % 20), battery: Double(100 - (i / 10_000) % 100) / 100)
    }

    /// Writes the archive: JSON-lines files of Overland POST bodies (`batchesPerFile` bodies of `pointsPerBatch`).
    static func generate(points: Int, into dir: String) throws -> Int {
        var total = 0
        var i = 0
        var file = 0
        while i < points {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(pointsPerBatch * batchesPerFile * 560)
            for _ in 0..<batchesPerFile where i < points {
                bytes.append(contentsOf: "{\"locations\":[".utf8)
                for k in 0..<pointsPerBatch where i < points {
                    let f = fix(i)
                    if k > 0 { bytes.append(UInt8(ascii: ",")) }
                    var local = CivilTime.iso8601(ms: f.timeMs, offset: UTCOffset(seconds: -25200))
                    local.remove(at: local.index(local.endIndex, offsetBy: -3))  // -07:00 → -0700, as the app writes it
                    let feature = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(fixed(f.lon, 7)),\(fixed(f.lat, 7))]},"
                        + "\"properties\":{\"timestamp\":\"\(local)\",\"altitude\":\(Int(f.altitude)),\"speed\":\(fixed(f.speed, 2)),"
                        + "\"course\":\(Int(f.course)),\"horizontal_accuracy\":\(Int(f.accuracy)),\"vertical_accuracy\":-1,"
                        + "\"speed_accuracy\":1.5,\"course_accuracy\":-1,\"motion\":[\"driving\"],\"pauses\":false,"
                        + "\"activity\":\"other_navigation\",\"desired_accuracy\":100,\"deferred\":0,\"significant_change\":\"disabled\","
                        + "\"locations_in_payload\":200,\"battery_state\":\"unplugged\",\"battery_level\":\(fixed(f.battery, 2)),"
                        + "\"device_id\":\"bench-phone\",\"wifi\":\"\"}}"
                    bytes.append(contentsOf: feature.utf8)
                    i += 1
                }
                bytes.append(contentsOf: "]}\n".utf8)
            }
            try FileSystem.write(bytes, to: dir + "/batch-\(file).json")
            total += bytes.count
            file += 1
        }
        return total
    }

    /// Inserts the same rows as the import produces through the importer's own writer (``PointWriter``: same
    /// table, statement and binds; same schema, pragmas and page size — both open the database through `Store`; one
    /// transaction per file), with nothing parsed; only the insert loop is timed. The rows are built before the
    /// loop, their `cold` objects encoded too (by the same `ColdBuffer`), as the importer's parsing thread hands them
    /// to its writer.
    static func rawInsert(points: Int, dbPath: String) throws -> (rate: Double, cpuSeconds: Double) {
        let store = try Store(path: dbPath)
        let device = try store.deviceID(named: "bench-phone", source: "overland", origin: .deviceID)
        let writer = try PointWriter(store)
        var seconds = 0.0
        var cpu = 0.0
        var i = 0
        let perFile = pointsPerBatch * batchesPerFile
        var rows: [Point] = []
        rows.reserveCapacity(perFile)
        let encoder = ColdBuffer()
        var cold: [UInt8] = []
        var coldEnds: [Int] = []
        while i < points {
            rows.removeAll(keepingCapacity: true)
            cold.removeAll(keepingCapacity: true)
            coldEnds.removeAll(keepingCapacity: true)
            let n = min(perFile, points - i)
            for k in 0..<n {
                let f = fix(i + k)
                rows.append(Point(deviceID: 0, timeMs: f.timeMs, utcOffsetS: -25200, lat: f.lat, lon: f.lon, altitudeM: f.altitude,
                                  speedMps: f.speed, courseDeg: f.course, accuracyM: f.accuracy, vAccuracyM: nil, motion: "driving",
                                  batteryLevel: f.battery, batteryState: "unplugged", extra: "{\"speed_accuracy\":1.5}", importID: 1))
            }
            for p in rows {
                cold.append(contentsOf: UnsafeBufferPointer(start: encoder.bytes, count: encoder.encode(p)))
                coldEnds.append(cold.count)
            }
            i += n
            let start = Clock.monotonic()
            let cpuStart = threadCPUSeconds()
            try insertRows(rows, cold: cold, coldEnds: coldEnds, writer: writer, store: store, device: device)
            seconds += Clock.monotonic() - start
            cpu += threadCPUSeconds() - cpuStart
        }
        return (Double(points) / seconds, cpu)
    }

    /// The timed part of ``rawInsert(points:dbPath:)``: one transaction of prepared rows. Not inlined, so that
    /// callgrind shows its instructions on their own (`ImportBenchmark.insertRows`, inclusive).
    @inline(never)
    static func insertRows(_ rows: [Point], cold: [UInt8], coldEnds: [Int], writer: PointWriter, store: Store, device: Int64) throws {
        try cold.withUnsafeBytes { coldBytes in
            try store.transaction {
                var from = 0
                for (k, p) in rows.enumerated() {
                    let bytes = UnsafeRawBufferPointer(rebasing: coldBytes[from..<coldEnds[k]])
                    from = coldEnds[k]
                    guard try writer.insert(p, cold: bytes, deviceID: device, importID: 1) else { throw BenchmarkFailure("raw insert: duplicate row") }
                }
            }
        }
    }

    static func run(_ args: [String]) throws {
        let points = args.first.flatMap { Int($0) } ?? 1_000_000
        let dir = try FileSystem.temporaryDirectory(prefix: "tripline-bench-import")
        let archive = dir + "/archive"
        try FileSystem.createDirectory(archive)
        print("generating \(points) Overland points in \(archive) …")
        let bytes = try generate(points: points, into: archive)
        print("archive: \(bytes / 1_000_000) MB, \(bytes / max(points, 1)) bytes a point, batches of \(pointsPerBatch)")

        let rssAfterGenerating = Double(peakRSSKiB()) / 1024
        // Parsing alone, on one thread (no database).
        var parsed = 0
        let parseStart = Clock.monotonic()
        for f in 0..<((points + pointsPerBatch * batchesPerFile - 1) / (pointsPerBatch * batchesPerFile)) {
            let data = try FileSystem.read(archive + "/batch-\(f).json")
            let context = ReadContext(path: archive, fallbackDevice: ("bench", .deviceOption), nowMs: Clock.nowMs(), batchSize: 4096)
            let out = data.withUnsafeBytes { raw in
                FormatDetector.parse(raw, context: context) { out in
                    parsed += out.points.count
                    out.points.removeAll(keepingCapacity: true)
                    out.positions.removeAll(keepingCapacity: true)
                }
            }
            parsed += out.points.count
        }
        let parseRate = Double(parsed) / (Clock.monotonic() - parseStart)
        let rssAfterParsing = Double(peakRSSKiB()) / 1024

        let (summary, seconds, rss) = try timedImport([archive], into: dir + "/import.sqlite", expected: points)
        let importRate = Double(points) / seconds
        let (raw, rawCPU) = try rawInsert(points: points, dbPath: dir + "/raw.sqlite")
        print("import:     \(Int(importRate)) points/s end to end (\(fixed(seconds, 2)) s, dedup on, WAL, \(summary.files.count) files)")
        print("parse only: \(Int(parseRate)) points/s (one thread, no database)")
        print("raw insert: \(Int(raw)) rows/s (same rows, the importer's PointWriter, nothing parsed)")
        print("ratio:      \(fixed(importRate / raw, 2))")
        // CPU time per point, which load on a shared machine does not distort: with a free second core the
        // pipeline runs at the pace of its busier thread.
        let n = Double(points)
        let busier = max(summary.parseCPUSeconds, summary.writeCPUSeconds)
        print("CPU:        parse thread \(fixed(summary.parseCPUSeconds / n * 1e6, 2)) µs/point, insert thread \(fixed(summary.writeCPUSeconds / n * 1e6, 2)) µs/point; raw insert \(fixed(rawCPU / n * 1e6, 2)) µs/row")
        print("CPU-bound:  import \(Int(n / busier)) points/s with two free cores, raw insert \(Int(n / rawCPU)) rows/s, ratio \(fixed(rawCPU / busier, 2))")
        print("peak RSS:   \(fixed(rss, 1)) MB (VmHWM after the import; \(fixed(rssAfterGenerating, 1)) MB after generating, \(fixed(rssAfterParsing, 1)) MB after parse-only)")
        for name in ["import.sqlite", "import.sqlite-wal", "import.sqlite-shm", "raw.sqlite", "raw.sqlite-wal", "raw.sqlite-shm"] {
            FileSystem.remove(dir + "/" + name)
        }
        for i in 0..<(summary.files.count) { FileSystem.remove(archive + "/batch-\(i).json") }
        rmdir(archive)
        rmdir(dir)
    }
}
