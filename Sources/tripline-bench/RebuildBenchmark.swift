import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `rebuild`: simulates about 1,000,000 points of one device (streamed day by day into a fresh database), then times a
/// full `rebuild` from the database and back (every pass, one transaction per device) and reports points per second
/// and the peak resident memory (VmHWM).
///
/// Options: `--points N` (default 1000000), `--seed S` (default 1), `--db PATH` (default a temporary file),
/// `--runs N` (default 3; the best run is reported; 0 with `--reuse --daily`: no full rebuild, the stored results are
/// current), `--reuse` (keep the points already in `--db`), `--daily N` (after
/// the full runs, N more simulated days, each imported on its own and followed by an incremental rebuild, as a server
/// that receives Overland's batches is used; reports each rebuild's time and the points it loaded), `--open-enter D`
/// (with `--daily`: first store an OwnTracks region `enter` with no `leave`, D simulated days before the first daily
/// day, at the device's position then: a region whose last transition is an `enter` holds every incremental restart
/// at or before it, docs/PERFORMANCE.md).
enum RebuildBenchmark {
    static func run(_ args: [String]) throws {
        var target = 1_000_000, seed: UInt64 = 1, runs = 3
        var path: String? = nil
        var reuse = false
        var daily = 0
        var openEnter: Int? = nil
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--points": target = options.value(or: target)
            case "--seed": seed = options.value(or: seed)
            case "--runs": runs = options.value(or: runs)
            case "--db": path = options.value() ?? ""
            case "--reuse": reuse = true
            case "--daily": daily = options.value(or: daily)
            case "--open-enter": openEnter = options.value(or: 0)
            default: print("unknown option \(option)"); exit(64)
            }
        }
        // Without --db the database is scratch, removed at the end (146 MB a run were left in /tmp).
        let scratch = path == nil ? try FileSystem.temporaryDirectory(prefix: "tripline-bench") : nil
        defer { if let scratch { FileSystem.removeTree(scratch) } }
        let dbPath = path ?? scratch! + "/rebuild.sqlite"
        if !reuse { FileSystem.remove(dbPath) }
        let store = try Store(path: dbPath)
        if reuse, case let n = try store.pointCount(), n > 0 { target = n }
        var config = SimulatorConfig(seed: seed, days: 100_000, people: 1)
        config.planes = false
        let sim = Simulator(config: config)
        var total = 0
        var day = 0
        let t0 = Clock.monotonic()
        try store.transaction {
            let id = try store.deviceID(named: "bench", source: "overland", origin: .benchmark)
            let existing = reuse ? try store.pointCount() : 0
            guard existing == 0 else { return }
            // One `imports` row for the whole load, as the importer would write for one file.
            let imports = ImportTable(store)
            let importID = try imports.begin(path: "bench", size: 0, fingerprint: "bench-load")
            var firstMs: Int64? = nil
            while total < target {
                var points = sim.dayPoints(person: 0, day: day)
                if total + points.count > target { points.removeLast(total + points.count - target) }
                if firstMs == nil { firstMs = points.first?.timeMs }
                try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = importID; return p })
                total += points.count
                day += 1
            }
            try imports.finish(ImportTable.Finished(
                id: importID, format: "bench", creator: nil, deviceID: id, pointsNew: total, pointsDuplicate: 0, rejected: 0,
                events: 0, message: "", firstMs: firstMs))
        }
        if total == 0 {
            total = target
            // Reused points: `--daily` continues after the last stored day.
            if let last = try store.latestPointMs(), let first = sim.dayPoints(person: 0, day: 0).first?.timeMs {
                day = max(0, Int((last - first) / 86_400_000) - 1)
                while let t = sim.dayPoints(person: 0, day: day).last?.timeMs, t <= last { day += 1 }
            }
        }
        let generated = Clock.monotonic() - t0
        let afterLoad = peakRSSKiB()
        print("generated \(total) points (\(day) simulated days) in \(fixed(generated, 3)) s; VmHWM after loading \(afterLoad / 1024) MiB")
        var best = Double.infinity
        var bestCPU = Double.infinity
        // `--runs 0` with `--reuse --daily N`: straight to the daily rebuilds (the stored results are those of the points).
        let fullRuns = runs == 0 && reuse && daily > 0 ? 0 : max(1, runs)
        for run in stride(from: 1, through: fullRuns, by: 1) {
            var options = Rebuild.Options()
            options.full = true
            options.timeZoneName = "Europe/Berlin"
            let start = Clock.monotonic()
            let cpuStart = processCPUSeconds()
            let reports = try Rebuild(store: store, options: options).run()
            let elapsed = Clock.monotonic() - start
            let cpu = processCPUSeconds() - cpuStart
            bestCPU = min(bestCPU, cpu)
            best = min(best, elapsed)
            let summary = reports.map { "\($0.pass ?? "up to date"): " + $0.stats.map { "\($0.0) \($0.1)" }.joined(separator: ", ") }.joined(separator: "; ")
            print("run \(run): \(fixed(elapsed, 3)) s wall (\(Int(Double(total) / elapsed)) points/s), \(fixed(cpu, 3)) s CPU (\(Int(Double(total) / cpu)) points/s)  [\(summary)]")
        }
        if fullRuns > 0 {
            print("rebuild: \(total) points, best \(fixed(best, 3)) s wall = \(Int(Double(total) / best)) points/s, "
                + "best \(fixed(bestCPU, 3)) s CPU = \(Int(Double(total) / bestCPU)) points/s; peak RSS (VmHWM) \(peakRSSKiB() / 1024) MiB")
        }
        if daily > 0, let openEnter { try storeOpenEnter(store: store, sim: sim, day: max(0, day - openEnter)) }
        if daily > 0 { try dailyRebuilds(store: store, sim: sim, firstDay: day, days: daily) }
    }

    /// `--open-enter`: an OwnTracks `enter` of a region at the first fix of simulated day `day`, with no `leave`, in
    /// an import of its own (the first daily rebuild reads it as new).
    static func storeOpenEnter(store: Store, sim: Simulator, day: Int) throws {
        guard let fix = sim.dayPoints(person: 0, day: day).first else { return }
        let id = try store.deviceID(named: "bench", source: "overland", origin: .benchmark)
        let imports = ImportTable(store)
        try store.transaction {
            let importID = try imports.begin(path: "enter.json", size: 0, fingerprint: "bench-open-enter")
            let raw = "{\"_type\":\"transition\",\"tst\":\(fix.timeMs / 1000),\"lat\":\(fix.lat),\"lon\":\(fix.lon),"
                + "\"event\":\"enter\",\"desc\":\"bench\",\"t\":\"c\"}"
            try AppEventTable(store).insert(AppEventRow(deviceID: id, importID: importID, kind: .transition, timeMs: fix.timeMs, lat: fix.lat,
                                                        lon: fix.lon, raw: raw))
            try imports.finish(ImportTable.Finished(
                id: importID, format: "bench", creator: nil, deviceID: id, pointsNew: 0, pointsDuplicate: 0, rejected: 0, events: 1,
                message: "", firstMs: nil))
        }
        print("open enter: day \(day), \(CivilTime.iso8601(ms: fix.timeMs, offset: UTCOffset(seconds: 0)))")
    }

    /// `--daily`: one more simulated day at a time, each its own import, then an incremental rebuild.
    static func dailyRebuilds(store: Store, sim: Simulator, firstDay: Int, days: Int) throws {
        let id = try store.deviceID(named: "bench", source: "overland", origin: .benchmark)
        var seconds: [Double] = []
        var loaded: [Int] = []
        for k in 0..<days {
            let points = sim.dayPoints(person: 0, day: firstDay + k)
            // As the importer writes a file: its `imports` row, the points under its id, the row finished.
            let imports = ImportTable(store)
            try store.transaction {
                let importID = try imports.begin(path: "day-\(k + 1).json", size: 0, fingerprint: "bench-day-\(k + 1)")
                try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = importID; return p })
                try imports.finish(ImportTable.Finished(
                    id: importID, format: "bench", creator: nil, deviceID: id, pointsNew: points.count, pointsDuplicate: 0,
                    rejected: 0, events: 0, message: "", firstMs: points.map(\.timeMs).min()))
            }
            var options = Rebuild.Options()
            options.timeZoneName = "Europe/Berlin"
            let start = Clock.monotonic()
            let reports = try Rebuild(store: store, options: options).run()
            seconds.append(Clock.monotonic() - start)
            loaded.append(reports.first { $0.pass == "load" }.flatMap { $0.stats.first { $0.0 == "points" } }.flatMap { Int($0.1) } ?? 0)
            let passes = reports.compactMap { r in r.stats.first { $0.0 == "ms" }.map { (r.pass ?? "-") + " " + $0.1 } }.joined(separator: ", ")
            print("day \(k + 1): \(points.count) new points, rebuilt in \(fixed(seconds[k] * 1000, 1)) ms, \(loaded[k]) points loaded (ms: \(passes))")
        }
        let sorted = seconds.sorted()
        print("daily: \(days) days, median \(fixed(sorted[sorted.count / 2] * 1000, 1)) ms, max \(fixed(sorted.last! * 1000, 1)) ms per incremental rebuild; median \(loaded.sorted()[loaded.count / 2]) points loaded")
    }

}
