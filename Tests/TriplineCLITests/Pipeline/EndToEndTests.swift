import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineSimulator
@testable import TriplineEvaluation
@testable import TriplineCLI
import TriplineTestSupport

/// The whole pipeline as a user runs it: the simulator's archives written to files, read back by the real importer,
/// rebuilt with `tripline rebuild`, scored against the exact truth, exported. Seed 314159 is used nowhere else (the
/// passes were tuned on seeds 1–4; the scored in-database tests use other seeds).
@Suite struct EndToEndTests {
    static let seed: UInt64 = 314_159
    /// Two people (person 1 carries Overland, person 2 OwnTracks), three local days across the DST change, 1 Hz.
    static let simulation = Simulator(config: SimulatorConfig(seed: seed, days: 3, people: 2)).run()

    /// Writes the simulation's archives with the simulator's writers into a fresh folder; returns the folder.
    func writeArchives(_ result: SimulationResult = simulation, quirks: Bool = false) throws -> String {
        let dir = try temporaryDirectory() + "/archives"
        try FileSystem.createDirectory(dir)
        try SimulationWriter.write(result, to: dir, options: SimulationWriter.Options(quirks: quirks))
        return dir
    }

    /// `overland/` and `rec/` of an archive folder (not truth.json).
    func archiveRoots(_ dir: String) -> [String] {
        ["overland", "rec"].map { dir + "/" + $0 }.filter { FileSystem.kind($0) == .directory }
    }

    func run(_ arguments: [String]) throws -> String {
        let r = runCLI(arguments)
        try #require(r.status == 0, "tripline \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        return r.stdout
    }

    /// Imports everything at once and rebuilds in the simulator's zone; returns the database path.
    func importAndRebuild(_ archives: String, into dir: String) throws -> String {
        let db = dir + "/tripline.sqlite"
        _ = try run(["import", "--db", db, "--quiet"] + archiveRoots(archives))
        _ = try run(["rebuild", "--db", db, "--timezone", Self.simulation.truth.timeZoneName])
        return db
    }

    /// With `quirks`, the archives are damaged as SampleData's are (rejects, re-sends, `Z` and `"NaN"` fields).
    @Test(arguments: [false, true])
    func importedArchivesScoreAgainstTruth(quirks: Bool) throws {
        let archives = try writeArchives(quirks: quirks)
        let dir = try temporaryDirectory()
        let db = dir + "/tripline.sqlite"
        let imported = try run(["import", "--db", db, "--json"] + archiveRoots(archives))
        let simulated = Self.simulation.devices.reduce(0) { $0 + $1.points.count }
        #expect(imported.contains("\"points_new\":\(simulated),"), "every simulated point imported once: \(imported.suffix(200))")
        let store = try Store(path: db, create: false)
        let rejected = try store.db.scalarInt("SELECT count(*) FROM rejects") ?? -1
        if quirks {
            #expect(rejected > 0)
        } else {
            #expect(rejected == 0, "clean archives have no rejects")
            try expectFaithfulFixes(store)
        }
        _ = try run(["rebuild", "--db", db, "--timezone", Self.simulation.truth.timeZoneName])

        // The truth as the user has it: read back from truth.json.
        let truth = try TruthFile.read(archives + "/truth.json")
        #expect(truth.trips.count == Self.simulation.truth.trips.count && truth.stays.count == Self.simulation.truth.stays.count)
        let devices = Set(truth.trips.map(\.device))
        #expect(devices.count == 2)
        for name in devices { #expect(try SimulationEvaluation.resolveDevice(name, store: store) != nil, "\(name) found in the database") }
        let s = try SimulationEvaluation.score(truth, store: store)
        print("end to end through the importer, seed \(Self.seed), 3 days, 2 people (Overland + OwnTracks)\(quirks ? ", archives with quirks" : ""):\n" + s.report)
        #expect(s.truthTrips > 10 && s.truthVisits > 10)
        #expect(s.tripF1 >= 0.95)
        #expect(s.visitF1 >= 0.95)
        #expect(s.medianTripDistanceError <= 0.02)
        #expect(s.p90TripDistanceError <= 0.05)
        #expect(s.medianDailyDistanceError <= 0.02)
        #expect(s.totalDistanceError <= 0.02)
        // `tripline score` prints the same numbers.
        let printed = try run(["score", "--db", db, "--truth", archives + "/truth.json"])
        #expect(printed == s.report)
    }

    /// Each imported fix is the simulated one, in the database's units: time, position (7 decimals), the local
    /// offset where the app writes one (Overland) and none where it does not (OwnTracks), speed in m/s (OwnTracks
    /// writes whole km/h), accuracy in metres, SSID.
    func expectFaithfulFixes(_ store: Store) throws {
        for device in Self.simulation.devices {
            let name = device.app == .overland ? device.name : "person\(device.person + 1)/iphone"
            let id = try #require(try store.db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(name)]), "device \(name)")
            let q = try store.db.prepare("SELECT time_ms, utc_offset_s, lat, lon, speed_mps, accuracy_m, ssid FROM points WHERE device_id = ? ORDER BY time_ms")
            q.bindInt(id, at: 1)
            var k = 0
            var bad: [String] = []
            while try q.step() {
                guard k < device.points.count else { k += 1; continue }
                let p = device.points[k]
                k += 1
                let speedTolerance = device.app == .overland ? 0.006 : 0.5 / 3.6 + 1e-9
                let offset: Int32? = q.isNull(1) ? nil : Int32(q.int64(1))
                let speed: Double? = q.isNull(4) ? nil : q.double(4)
                let simulatedSpeed = device.app == .owntracks && (p.speedMps ?? 0) * 3.6 < 0.5 ? nil : p.speedMps
                let sameSpeed = speed == nil && simulatedSpeed == nil
                    || speed != nil && simulatedSpeed != nil && abs(speed! - simulatedSpeed!) <= speedTolerance
                let accuracy: Double? = q.isNull(5) ? nil : q.double(5)
                let sameAccuracy = device.app == .owntracks && (p.accuracyM ?? 0).rounded() == 0 ? accuracy == nil
                    : accuracy.map { abs($0 - (p.accuracyM ?? 65).rounded()) < 1e-9 } ?? false
                if q.int64(0) != p.timeMs / 1000 * 1000 && q.int64(0) != p.timeMs || abs(q.double(2) - p.lat) > 1e-7
                    || abs(q.double(3) - p.lon) > 1e-7 || offset != (device.app == .overland ? p.utcOffsetS : nil) || !sameSpeed
                    || !sameAccuracy || q.text(6) != p.ssid.flatMap({ $0.isEmpty ? nil : $0 }) {
                    if bad.count < 3 { bad.append("\(name) #\(k): imported \(q.int64(0)) \(offset.map(String.init) ?? "-") \(q.double(2)),\(q.double(3)) v=\(speed.map { "\($0)" } ?? "-") acc=\(accuracy.map { "\($0)" } ?? "-") \(q.text(6) ?? "-"); simulated \(p.timeMs) \(p.utcOffsetS.map { String($0) } ?? "-") \(p.lat),\(p.lon) v=\(p.speedMps.map { "\($0)" } ?? "-") acc=\(p.accuracyM.map { "\($0)" } ?? "-") \(p.ssid ?? "-")") }
                }
            }
            #expect(k == device.points.count, "\(name): \(k) fixes imported, \(device.points.count) simulated")
            #expect(bad.isEmpty, "\(bad.joined(separator: "\n"))")
        }
    }

    /// Split imports: the archive files arrive in three groups split in time (Overland batches in order; the
    /// OwnTracks month file as the recorder had written it by each cut, then grown), `rebuild` after each; the
    /// result equals a fresh database that imported everything at once. With `backfill`, the Overland groups arrive
    /// latest first (an old archive found later), the whole OwnTracks file with the first.
    @Test(arguments: [false, true])
    func incrementalOnSplitImportsEqualsFullRebuild(backfill: Bool) throws {
        let result = Self.simulation
        let archives = try writeArchives()
        let overland = try result.devices.filter { $0.app == .overland }.flatMap { device in
            let dir = archives + "/overland/" + device.name
            return try FileSystem.list(dir).filter { $0.hasSuffix(".json") }.sorted().map { dir + "/" + $0 }
        }
        try #require(overland.count >= 6)
        let times = result.devices.flatMap(\.points).map(\.timeMs).sorted()
        let cuts = [times[times.count / 3], times[times.count * 2 / 3]]
        // The .rec files as they stood at each cut: the simulation up to the cut, written by the same writer.
        var recAtCut: [String] = []
        for cut in cuts {
            var partial = result
            partial.devices = result.devices.filter { $0.app == .owntracks }.map { d in
                var d = d
                d.points = d.points.filter { $0.timeMs < cut }
                d.appTrips = d.appTrips.filter { $0.endMs < cut }
                return d
            }
            let dir = try writeArchives(partial)
            recAtCut.append(dir + "/rec")
        }
        let thirds = [
            Array(overland[..<(overland.count / 3)]), Array(overland[(overland.count / 3)..<(overland.count * 2 / 3)]),
            Array(overland[(overland.count * 2 / 3)...]),
        ]
        let groups: [[String]] = backfill
            ? [thirds[2] + [archives + "/rec"], thirds[1], thirds[0]]
            : [thirds[0] + [recAtCut[0]], thirds[1] + [recAtCut[1]], thirds[2] + [archives + "/rec"]]
        let incDir = try temporaryDirectory()
        let inc = incDir + "/inc.sqlite"
        var incremental = false
        for group in groups {
            _ = try run(["import", "--db", inc, "--quiet"] + group)
            _ = try run(["rebuild", "--db", inc, "--timezone", result.truth.timeZoneName])
        }
        let incStore = try Store(path: inc, create: false)
        incremental = try (incStore.db.scalarInt("SELECT count(*) FROM pass_runs WHERE pass = 'stays' AND from_ms IS NOT NULL") ?? 0) > 0
        // (A backfill before all of a device's points reruns that device from its start: nothing before it to keep.)
        if !backfill { #expect(incremental, "the later rebuilds were incremental") }
        // Each import says where the points it added start (the rebuild reads only from there).
        #expect(try incStore.db.scalarInt("SELECT count(*) FROM imports WHERE points_new > 0") ?? 0 >= 3)
        #expect(try incStore.db.scalarInt(
            "SELECT count(*) FROM imports i WHERE points_new > 0 AND first_ms IS NOT (SELECT min(time_ms) FROM points WHERE import_id = i.id)") == 0)

        let full = try Store(path: try importAndRebuild(archives, into: try temporaryDirectory()), create: false)
        #expect(try pointSet(incStore.db) == pointSet(full.db), "the same points")
        for (sql, what) in Self.comparisons {
            let a = try rows(incStore, sql), b = try rows(full, sql)
            #expect(!a.isEmpty, "\(what) empty")
            #expect(a.count == b.count, "\(what): \(a.count) incremental vs \(b.count) full")
            let differing = zip(a, b).filter { $0 != $1 }.prefix(3).map { "incremental \($0.0)\n       full \($0.1)" }
            #expect(a == b, "\(what) differ:\n\(differing.joined(separator: "\n"))")
        }
    }

    /// Every export of one database twice is byte-identical, and two whole pipeline runs from the same archives give
    /// byte-identical exports, reports and map.
    @Test func exportsAreDeterministic() throws {
        let archives = try writeArchives()
        let dbA = try importAndRebuild(archives, into: try temporaryDirectory())
        let dbB = try importAndRebuild(archives, into: try temporaryDirectory())
        let first = try exports(dbA)
        let again = try exports(dbA)
        let other = try exports(dbB)
        #expect(first.count >= 17)
        for (name, bytes) in first {
            #expect(bytes.count > 100, "\(name) is not empty")
            #expect(again[name] == bytes, "\(name): the same database exported twice differs")
            #expect(other[name] == bytes, "\(name): two pipeline runs from the same archives differ")
        }
    }

    /// The quirks real archives have (`SimulationWriter.Options.quirks`, used for SampleData) cost no real fix and
    /// add none: the damaged archives import to exactly the points of the clean ones, and every kind of damage
    /// shows up as a reject with its reason or as an app event.
    @Test func quirkyArchivesImportTheSameFixes() throws {
        let result = Simulator(config: SimulatorConfig(seed: Self.seed + 1, days: 2, people: 2, movingIntervalS: 5)).run()
        var stores: [Store] = []
        var outputs: [String] = []
        for quirks in [false, true] {
            let dir = try temporaryDirectory()
            try SimulationWriter.write(result, to: dir, options: SimulationWriter.Options(quirks: quirks))
            let db = dir + "/t.sqlite"
            let r = runCLI(["import", "--db", db] + archiveRoots(dir))
            #expect(r.status == 0, "a damaged file still imports its good records: \(r.stderr)")
            outputs.append(r.stdout)
            stores.append(try Store(path: db, create: false))
        }
        let (clean, quirky) = (stores[0], stores[1])
        let simulated = result.devices.reduce(0) { $0 + $1.points.count }
        #expect(try clean.db.scalarInt("SELECT count(*) FROM points") == Int64(simulated))
        #expect(try pointSet(quirky.db) == pointSet(clean.db), "the same fixes, none lost, none invented")
        #expect(try clean.db.scalarInt("SELECT count(*) FROM rejects") == 0)
        let reasons = Set(try texts(quirky, "SELECT DISTINCT reason FROM rejects"))
        #expect(reasons == ["lat_out_of_range", "null_island", "time_too_early", "truncated", "invalid_json"], "\(reasons)")
        let kinds = Set(try texts(quirky, "SELECT DISTINCT kind FROM app_events"))
        for kind in ["paused_location_updates", "resumed_location_updates", "visit", "lwt", "transition", "waypoint"] {
            #expect(kinds.contains(kind), "\(kind) kept as an app event")
        }
        #expect(try quirky.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'paused_location_updates' AND lat IS NULL") ?? 0 > 0)
        #expect(try quirky.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'visit' AND start_ms IS NOT NULL") ?? 0 > 0)
        // Re-sent batches and duplicate lines are duplicates; the UTC (`Z`) batch carries no offset.
        let dupes = try quirky.db.scalarInt("SELECT sum(points_duplicate) FROM imports") ?? 0
        #expect(dupes > (try clean.db.scalarInt("SELECT sum(points_duplicate) FROM imports") ?? 0))
        #expect(try quirky.db.scalarInt("SELECT count(*) FROM points p JOIN devices d ON d.id = p.device_id WHERE d.source = 'overland' AND p.utc_offset_s IS NULL") ?? 0 > 0)
        #expect(try quirky.db.scalarInt("SELECT count(*) FROM points WHERE speed_mps IS NULL") ?? 0 > 0)
        // The import lists each file's rejects with where and why.
        #expect(outputs[1].contains("rejected line") && outputs[1].contains("null_island: position is exactly (0, 0)"))
        #expect(outputs[1].contains("truncated: the file ends inside this record"))
    }

    /// SampleData (made with the quirks) imports with its rejects listed, and its rebuild meets the targets.
    @Test func sampleDataImportsWithRejectsAndScores() throws {
        let data = packageRoot() + "/SampleData"
        let db = try temporaryDirectory() + "/sample.sqlite"
        let imported = runCLI(["import", "--db", db] + archiveRoots(data))
        #expect(imported.status == 0, "rejected records do not fail the import: \(imported.stderr)")
        #expect(imported.stdout.contains("rejected line"))
        #expect(imported.stdout.contains(" 0 failed"))
        let info = try run(["info", "--db", db])
        #expect(info.contains("Rejects:") && info.contains("truncated"), "\(info)")
        _ = try run(["rebuild", "--db", db, "--timezone", DemoCommand.sampleTimeZone])
        let s = try SimulationEvaluation.score(try TruthFile.read(data + "/truth.json"), store: try Store(path: db, create: false))
        print("SampleData:\n" + s.report)
        #expect(s.tripF1 >= 0.95 && s.visitF1 >= 0.95)
        #expect(s.medianTripDistanceError <= 0.02 && s.p90TripDistanceError <= 0.05 && s.medianDailyDistanceError <= 0.02)
    }

    /// `tripline demo` runs every step on SampleData to the end, rejected records and all.
    @Test func demoSucceedsOnSampleData() throws {
        let out = try temporaryDirectory() + "/demo"
        let r = runCLI(["demo", "--data", packageRoot() + "/SampleData", "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("rejected line") && r.stdout.contains("Rejects:"), "the import lists rejects, info counts them")
        #expect(r.stdout.contains("== Outputs in"))
        for file in ["tripline.sqlite", "trips.geojson", "trips.gpx", "visits.gpx", "trips.csv", "days.csv", "map.html"] {
            #expect(FileSystem.size(out + "/" + file) ?? 0 > 0, "\(file) written")
        }
    }

    /// A copy of the built binary, run from an empty folder far from the checkout, writes the sample archives itself
    /// (they are SampleData/ byte for byte) and runs the demo to its end: nothing is found through the source path.
    @Test func demoRunsFromACopiedBinary() throws {
        try #require(Binary.exists, "the built tripline binary is missing: \(Binary.path)")
        let dir = try temporaryDirectory()
        let copy = dir + "/bin/tripline"
        try FileSystem.createDirectory(dir + "/bin")
        try FileSystem.write(try FileSystem.read(Binary.path), to: copy)
        chmod(copy, 0o755)
        try FileSystem.createDirectory(dir + "/elsewhere")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: copy)
        process.arguments = ["demo", "--out", "demo-output"]
        process.currentDirectoryURL = URL(fileURLWithPath: dir + "/elsewhere")
        let log = dir + "/demo.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = String(decoding: try FileSystem.read(log), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(output)")
        let out = dir + "/elsewhere/demo-output"
        for file in ["tripline.sqlite", "trips.geojson", "trips.gpx", "visits.gpx", "trips.csv", "days.csv", "map.html"] {
            #expect(FileSystem.size(out + "/" + file) ?? 0 > 0, "\(file) written")
        }
        #expect(output.contains("trips:  truth ") && output.contains("== Score the rebuild"), "the demo scores against the sample's truth: \(output)")
        // The sample the binary wrote is SampleData/, file for file and byte for byte.
        let sample = out + "/sample-data"
        let expected = try DemoEndToEnd.files(under: packageRoot() + "/SampleData").filter { $0 != "README.md" }
        #expect(try DemoEndToEnd.files(under: sample) == expected)
        for file in expected {
            #expect(try FileSystem.read(sample + "/" + file) == (try FileSystem.read(packageRoot() + "/SampleData/" + file)), "\(file) differs from SampleData")
        }
    }

    /// Every export kind × format, the reports and the map of a database, by name.
    func exports(_ db: String) throws -> [String: [UInt8]] {
        let out = try temporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for kind in ["trips", "legs", "visits", "places", "points", "days"] {
            for format in ["geojson", "gpx", "csv"] where !(kind == "days" && format == "gpx") {
                let path = out + "/\(kind).\(format)"
                _ = try run(["export", "--db", db, "--format", format, "--what", kind, "-o", path, "--quiet"])
                files["\(kind).\(format)"] = try FileSystem.read(path)
            }
        }
        for report in ["daily-summary", "monthly-summary", "top-places", "trips", "visits", "travel-by-mode"] {
            files["report " + report] = Array(try run(["report", report, "--db", db, "--format", "csv"]).utf8)
        }
        _ = try run(["map", "--db", db, "-o", out + "/map.html"])
        files["map.html"] = try FileSystem.read(out + "/map.html")
        return files
    }

    /// Content of the rebuilt tables, by device name and time (surrogate ids left out).
    static let comparisons: [(String, String)] = [
        ("SELECT d.name, time_ms, flags FROM point_flags JOIN devices d ON d.id = device_id ORDER BY 1, 2", "point flags"),
        ("SELECT d.name, start_ms, end_ms, round(lat, 7), round(lon, 7), points, gap_s FROM stays JOIN devices d ON d.id = device_id ORDER BY 1, 2", "stays"),
        ("SELECT d.name, v.start_ms, v.end_ms, round(v.lat, 7), round(v.lon, 7), v.start_utc_offset_s, p.name FROM visits v JOIN places p ON p.id = v.place_id JOIN devices d ON d.id = v.device_id ORDER BY 1, 2", "visits"),
        ("SELECT d.name, p.name, round(p.lat, 7), round(p.lon, 7), p.visits, p.total_dwell_s FROM places p JOIN devices d ON d.id = p.device_id ORDER BY 1, 3, 4", "places"),
        ("SELECT d.name, start_ms, end_ms, round(distance_m, 3), round(moving_s, 3), mode, legs, gaps, start_utc_offset_s FROM trips JOIN devices d ON d.id = device_id ORDER BY 1, 2", "trips"),
        ("SELECT d.name, l.start_ms, l.end_ms, l.mode, round(l.distance_m, 3) FROM legs l JOIN devices d ON d.id = l.device_id ORDER BY 1, 2", "legs"),
        ("SELECT d.name, date, round(distance_m, 3), round(moving_s, 3), trips, visits, places, utc_offset_s FROM days JOIN devices d ON d.id = device_id ORDER BY 1, 2", "days"),
        ("SELECT d.name, e.kind, e.time_ms FROM app_events e JOIN devices d ON d.id = e.device_id ORDER BY 1, 2, 3", "app events"),
        ("SELECT e.time_ms, round(m.overlap, 6), m.trip_mode FROM app_trip_matches m JOIN app_events e ON e.id = m.event_id ORDER BY 1", "app trip matches"),
    ]

    func rows(_ store: Store, _ sql: String) throws -> [String] {
        let s = try store.db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append((0..<s.columnCount).map { "\(s.value($0))" }.joined(separator: "|")) }
        return out
    }

    func texts(_ store: Store, _ sql: String) throws -> [String] {
        let s = try store.db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append(s.text(0) ?? "NULL") }
        return out
    }
}

/// Helpers of the demo's end-to-end test.
enum DemoEndToEnd {
    /// Every file below `root`, as paths relative to it, sorted.
    static func files(under root: String) throws -> [String] {
        var found: [String] = []
        func walk(_ relative: String) throws {
            let path = relative.isEmpty ? root : root + "/" + relative
            for name in try FileSystem.list(path) {
                let child = relative.isEmpty ? name : relative + "/" + name
                if FileSystem.kind(root + "/" + child) == .directory { try walk(child) } else { found.append(child) }
            }
        }
        try walk("")
        return found.sorted()
    }
}
