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
/// `--runs N` (default 3; the best run is reported), `--reuse` (keep the points already in `--db`).
enum RebuildBenchmark {
    static func run(_ args: [String]) throws {
        var target = 1_000_000, seed: UInt64 = 1, runs = 3
        var path: String? = nil
        var reuse = false
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--points": target = options.value(or: target)
            case "--seed": seed = options.value(or: seed)
            case "--runs": runs = options.value(or: runs)
            case "--db": path = options.value() ?? ""
            case "--reuse": reuse = true
            default: print("unknown option \(option)"); exit(64)
            }
        }
        // Without --db the database is scratch, removed at the end (146 MB a run were left in /tmp).
        let scratch = path == nil ? try FileSystem.temporaryDirectory(prefix: "tripline-bench") : nil
        defer { if let scratch { FileSystem.removeTree(scratch) } }
        let dbPath = path ?? scratch! + "/rebuild.sqlite"
        if !reuse { FileSystem.remove(dbPath) }
        let store = try Store(path: dbPath)
        if reuse, let n = try store.db.scalarInt("SELECT count(*) FROM points"), n > 0 { target = Int(n) }
        var config = SimulatorConfig(seed: seed, days: 100_000, people: 1)
        config.planes = false
        let sim = Simulator(config: config)
        var total = 0
        var day = 0
        let t0 = Clock.monotonic()
        try store.db.transaction {
            let id = try store.deviceID(named: "bench", source: "overland", origin: "benchmark")
            let existing = reuse ? (try store.db.scalarInt("SELECT count(*) FROM points") ?? 0) : 0
            while total < target && existing == 0 {
                var points = sim.dayPoints(person: 0, day: day)
                if total + points.count > target { points.removeLast(total + points.count - target) }
                try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = 1; return p })
                total += points.count
                day += 1
            }
        }
        if total == 0 { total = target }
        let generated = Clock.monotonic() - t0
        let afterLoad = peakRSSKiB()
        print("generated \(total) points (\(day) simulated days) in \(fixed(generated, 3)) s; VmHWM after loading \(afterLoad / 1024) MiB")
        var best = Double.infinity
        var bestCPU = Double.infinity
        for run in 1...max(1, runs) {
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
            let summary = reports.map { "\($0.pass): " + $0.stats.map { "\($0.0) \($0.1)" }.joined(separator: ", ") }.joined(separator: "; ")
            print("run \(run): \(fixed(elapsed, 3)) s wall (\(Int(Double(total) / elapsed)) points/s), \(fixed(cpu, 3)) s CPU (\(Int(Double(total) / cpu)) points/s)  [\(summary)]")
        }
        print("rebuild: \(total) points, best \(fixed(best, 3)) s wall = \(Int(Double(total) / best)) points/s, best \(fixed(bestCPU, 3)) s CPU = \(Int(Double(total) / bestCPU)) points/s; peak RSS (VmHWM) \(peakRSSKiB() / 1024) MiB")
    }

}
