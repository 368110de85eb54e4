import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplineSimulator
@testable import TriplineCLI
@testable import TriplinePasses
import TriplineTestSupport

/// `tripline plan`, `import --plan --shard` and `tripline merge` (docs/SCALING.md): a study split into shards,
/// imported and rebuilt shard by shard, and merged, equals one machine's import and rebuild of the same paths.
@Suite struct ShardMergeTests {
    /// Four people (Overland and OwnTracks Recorder devices), two days. Seed 2602 is used nowhere else.
    static let simulation = Simulator(config: SimulatorConfig(seed: 2602, days: 2, people: 4)).run()
    static var zone: String { simulation.truth.timeZoneName }

    func run(_ arguments: [String]) throws -> String {
        let r = runCLI(arguments)
        try #require(r.status == 0, "tripline \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        return r.stdout
    }

    /// The simulation's archives in a fresh folder; returns the paths to give (`overland/`, `rec/`).
    func writeStudy() throws -> (dir: String, paths: [String]) {
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/study")
        try SimulationWriter.write(Self.simulation, to: dir + "/study")
        return (dir, ["overland", "rec"].map { dir + "/study/" + $0 }.filter { FileSystem.kind($0) == .directory })
    }

    /// Plans `paths` into `shards`, imports and rebuilds each shard; returns the shard databases.
    func shards(_ dir: String, _ paths: [String], count: Int, by: String = "device") throws -> [String] {
        _ = try run(["plan", "--shards", String(count), "--by", by, "-o", dir + "/plan.json"] + paths)
        return try (0..<count).map { k in
            let db = dir + "/shard-\(k).sqlite"
            _ = try run(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", String(k), "--db", db])
            _ = try run(["rebuild", "--quiet", "--db", db, "--timezone", Self.zone])
            return db
        }
    }

    func single(_ dir: String, _ paths: [String]) throws -> String {
        let db = dir + "/single.sqlite"
        _ = try run(["import", "--quiet", "--db", db] + paths)
        _ = try run(["rebuild", "--quiet", "--db", db, "--timezone", Self.zone])
        return db
    }

    /// Every table's content, with what differs by design left out: wall-clock times, and the ids of imports,
    /// rejects, app events and pass runs (numbered on by the merge), which are compared through what they name.
    static let contentQueries = [
        "SELECT id, name, source, name_origin, tid FROM devices ORDER BY id",
        "SELECT path, size, fingerprint, format, creator, device_id, points_new, points_duplicate, rejected, events, status, message, first_ms FROM imports ORDER BY path",
        "SELECT i.path, r.line, r.byte_offset, r.reason, r.detail, r.excerpt FROM rejects r JOIN imports i ON i.id = r.import_id ORDER BY 1, 3, 4",
        "SELECT e.device_id, i.path, e.kind, e.time_ms, e.utc_offset_s, e.lat, e.lon, e.start_ms, e.end_ms, e.distance_m, e.mode, e.raw FROM app_events e JOIN imports i ON i.id = e.import_id ORDER BY 1, 3, 4, 12",
        "SELECT p.key, p.lat, p.lon, p.accuracy_m, p.speed_mps, p.utc_offset_s, p.motion, p.app_trip_mode, i.path, p.altitude_m, p.course_deg, p.ssid, p.cold FROM points_hot p JOIN imports i ON i.id = p.import_id ORDER BY p.key",
        "SELECT * FROM point_flags ORDER BY device_id, time_ms",
        "SELECT * FROM stays ORDER BY id", "SELECT * FROM places ORDER BY id", "SELECT * FROM visits ORDER BY id",
        "SELECT * FROM trips ORDER BY id", "SELECT * FROM legs ORDER BY trip_id, leg", "SELECT * FROM days ORDER BY device_id, date",
        "SELECT m.device_id, e.kind, e.time_ms, e.raw, m.trip_id, m.overlap, m.start_diff_s, m.end_diff_s, m.distance_diff_m, m.app_mode, m.trip_mode FROM app_trip_matches m JOIN app_events e ON e.id = m.event_id ORDER BY 1, 2, 3, 4",
        "SELECT r.device_id, r.parameters, r.timezone, r.algorithm_version, i.path FROM rebuild_state r LEFT JOIN imports i ON i.id = r.last_import_id ORDER BY r.device_id",
        "SELECT key, value FROM settings WHERE key NOT LIKE 'merge.%' ORDER BY key",
    ]

    static func rows(_ path: String, _ sql: String) throws -> [String] {
        let store = try Store(path: path, create: false)
        let q = try store.db.prepare(sql)
        var out: [String] = []
        while try q.step() { out.append((0..<q.columnCount).map { "\(q.value($0))" }.joined(separator: "|")) }
        return out
    }

    /// Every row of every table, ids and wall-clock times included (a re-merge must change nothing at all).
    static func everything(_ path: String) throws -> [String] {
        try ShardMerge.tables.flatMap { table in try rows(path, "SELECT '\(table)', * FROM \(table)").sorted() }
    }

    func exports(_ db: String, _ dir: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for what in ["points", "trips", "visits", "places", "days"] {
            for format in ["geojson", "csv"] {
                let out = "\(dir)/\(what).\(format)"
                _ = try run(["export", "--quiet", "--db", db, "--what", what, "--format", format, "-o", out])
                files["\(what).\(format)"] = try FileSystem.read(out)
            }
        }
        return files
    }

    @Test func mergedShardsEqualOneMachine() throws {
        let (dir, paths) = try writeStudy()
        let single = try single(dir, paths)
        let shards = try shards(dir, paths, count: 3)
        let study = dir + "/study.sqlite"
        _ = try run(["merge", "--db", study] + shards)
        for sql in Self.contentQueries {
            let (a, b) = (try Self.rows(single, sql), try Self.rows(study, sql))
            if ["FROM devices", "FROM points_hot", "FROM stays", "FROM trips", "FROM days"].contains(where: sql.contains) {
                #expect(!a.isEmpty, "the study has rows for \(sql)")
            }
            #expect(a == b, "\(sql): \(a.count) rows on one machine, \(b.count) merged; first difference \(zip(a, b).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "in length")")
        }
        try FileSystem.createDirectory(dir + "/one")
        try FileSystem.createDirectory(dir + "/merged")
        let (one, merged) = (try exports(single, dir + "/one"), try exports(study, dir + "/merged"))
        for (name, bytes) in one {
            #expect(bytes.count > 100, "\(name) holds rows")
            #expect(merged[name] == bytes, "\(name) byte-identical")
        }
        // The merged devices are up to date: a rebuild has nothing to do.
        let rebuilt = try run(["rebuild", "--db", study, "--timezone", Self.zone])
        #expect(rebuilt.components(separatedBy: "(up to date)").count - 1 == Self.simulation.devices.count, "\(rebuilt)")
    }

    @Test func eachShardImportsExactlyItsFilesAndNoDeviceIsSplit() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let plan = try ShardPlan.read(dir + "/plan.json")
        var seenPaths: [String] = []
        var seenDevices: [String] = []
        for (k, shard) in shards.enumerated() {
            let imported = try Self.texts(shard, "SELECT path FROM imports")
            // Re-sent batches (the same bytes twice) are skipped as on one machine: a device's files share a shard.
            #expect(!imported.isEmpty && Set(imported).isSubset(of: plan.files(ofShard: k)))
            seenPaths += imported
            seenDevices += try Self.texts(shard, "SELECT name FROM devices")
        }
        #expect(Set(seenPaths).count == seenPaths.count, "no file imported twice")
        #expect(Set(seenDevices).count == seenDevices.count, "no device in two shards")
        #expect(Set(seenDevices).count == Self.simulation.devices.count)
        let single = try single(dir, paths)
        #expect(try Self.texts(single, "SELECT path FROM imports").sorted() == seenPaths.sorted())
    }

    static func texts(_ path: String, _ sql: String) throws -> [String] {
        let q = try Store(path: path, create: false).db.prepare(sql)
        var out: [String] = []
        while try q.step() { out.append(q.text(0) ?? "") }
        return out
    }

    @Test func planIsDeterministicAndBalanced() throws {
        let (dir, paths) = try writeStudy()
        _ = try run(["plan", "--shards", "3", "-o", dir + "/a.json"] + paths)
        _ = try run(["plan", "--shards", "3", "-o", dir + "/b.json"] + paths)
        #expect(try FileSystem.read(dir + "/a.json") == FileSystem.read(dir + "/b.json"))
        let plan = try ShardPlan.read(dir + "/a.json")
        let unitBytes = plan.units.map(\.bytes)
        let loads = plan.shards.map(\.bytes)
        #expect(loads.reduce(0, +) == unitBytes.reduce(0, +))
        // Largest first to the lightest shard: no shard exceeds the mean by more than the largest unit.
        #expect(loads.max()! <= loads.reduce(0, +) / loads.count + unitBytes.max()!)
        #expect(plan.shards.allSatisfy { $0.units > 0 }, "four devices over three shards leave none empty")
        // Device ids: the walk's order, as one machine numbers them; overflow ranges disjoint and above them.
        #expect(plan.units.flatMap(\.deviceIDs).sorted() == Array(1...Int64(plan.units.count)))
        for (a, b) in zip(plan.shards, plan.shards.dropFirst()) { #expect(a.overflowEnd <= b.overflowFirst) }
        #expect(plan.shards[0].overflowFirst > Int64(plan.units.count))
        #expect(plan.shards.last!.overflowEnd <= 1 << 21)
        // A folder given twice is planned once (the twelfth hostile round: every file listed twice).
        _ = try run(["plan", "--shards", "3", "-o", dir + "/twice.json"] + paths + paths.map { $0 + "/." })
        let twice = try ShardPlan.read(dir + "/twice.json")
        #expect(twice.units.flatMap(\.files).count == plan.units.flatMap(\.files).count)
        #expect(Set(twice.units.flatMap(\.files)).count == twice.units.flatMap(\.files).count)
    }

    /// Two participants' folders each holding `phone/`: one device by import's rule, so one unit either way.
    @Test(arguments: ["device", "folder"])
    func planNeverSplitsADevice(by: String) throws {
        let dir = try temporaryDirectory()
        for (person, minute) in [("p1", 0), ("p2", 30), ("p3", 45)] {
            let folder = dir + "/study/\(person)/" + (person == "p3" ? "watch" : "phone")
            try FileSystem.createDirectory(folder)
            let gpx = """
                <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
                <trkpt lat="52.5" lon="13.4"><time>2024-03-01T10:\(minute + 10):00Z</time></trkpt></trkseg></trk></gpx>
                """
            try FileSystem.write(gpx, to: folder + "/a.gpx")
        }
        _ = try run(["plan", "--shards", "2", "--by", by, "-o", dir + "/plan.json", dir + "/study"])
        let plan = try ShardPlan.read(dir + "/plan.json")
        #expect(plan.units.count == 2, "phone (p1, p2) and watch (p3): \(plan.units.map(\.name))")
        #expect(plan.units[0].files.count == 2 && plan.units[0].deviceIDs == [1])
        #expect(plan.units[1].deviceIDs == [2])
    }

    @Test func mergingAShardAgainChangesNothing() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let study = dir + "/study.sqlite"
        _ = try run(["merge", "--db", study] + shards)
        let before = try Self.everything(study)
        let again = try run(["merge", "--db", study, shards[1], shards[0]])
        #expect(again.contains("merged before; nothing to do"), "\(again)")
        #expect(try Self.everything(study) == before)
    }

    @Test func aDeviceInTwoShardsIsRefused() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let single = try single(dir, paths)
        let study = dir + "/study.sqlite"
        _ = try run(["merge", "--db", study, shards[0]])
        let before = try Self.everything(study)
        let r = runCLI(["merge", "--db", study, single])
        #expect(r.status == 1)
        #expect(r.stderr.contains(single) && r.stderr.contains("is already in the study, merged from \(shards[0])"), "\(r.stderr)")
        #expect(try Self.everything(study) == before, "nothing of the refused shard written")
    }

    @Test func resultsOnlyLeavesPointsInTheShards() throws {
        let (dir, paths) = try writeStudy()
        let single = try single(dir, paths)
        let shards = try shards(dir, paths, count: 2)
        let study = dir + "/study.sqlite"
        let out = try run(["merge", "--results-only", "--db", study] + shards)
        #expect(out.contains("points left in the shard"), "\(out)")
        #expect(try Self.rows(study, "SELECT count(*) FROM points_hot") == ["integer(0)"])
        #expect(try Self.rows(study, "SELECT count(*) FROM point_flags") == ["integer(0)"])
        // The same content but the points, and the mark that the study holds none (`settings.results_only`).
        #expect(try Self.texts(study, "SELECT value FROM settings WHERE key = 'results_only'") == ["1"])
        for sql in Self.contentQueries where !sql.contains("points_hot") && !sql.contains("point_flags") {
            let content = sql.replacingOccurrences(of: "NOT LIKE 'merge.%'", with: "NOT LIKE 'merge.%' AND key != 'results_only'")
            #expect(try Self.rows(single, content) == Self.rows(study, content), "\(sql)")
        }
        // Nothing is recomputed in it (the twelfth hostile round: `rebuild --full`, or a `--set`, found no points and
        // deleted every trip, visit and place, and a place edit moved the days to UTC): refused, the study unchanged.
        let before = try Self.everything(study)
        for arguments in [["rebuild", "--full"], ["rebuild", "--set", "stays.radius_m=100"], ["rebuild"]] {
            let refused = runCLI(arguments + ["--db", study, "--timezone", Self.zone])
            #expect(refused.status == 1 && refused.stderr.contains("was merged with --results-only"), "\(arguments): \(refused.stderr)")
        }
        let place = try #require(try Self.texts(study, "SELECT id FROM places ORDER BY id LIMIT 1").first)
        let renamed = runCLI(["places", "rename", place, "Office", "--db", study])
        #expect(renamed.status == 1 && renamed.stderr.contains("was merged with --results-only"), "\(renamed.stderr)")
        // Nor is anything imported into it: its points could never be rebuilt (the thirteenth hostile round).
        let imported = runCLI(["import", "--db", study] + paths)
        #expect(imported.status == 1 && imported.stderr.contains("was merged with --results-only"), "\(imported.stderr)")
        #expect(try Self.everything(study) == before)
        // Its trips have no lines, and the export says so.
        let trips = runCLI(["export", "--db", study, "--what", "trips", "--format", "geojson", "-o", dir + "/trips.geojson"])
        #expect(trips.status == 0 && trips.stderr.contains("holds no points, so its trips have no lines"), "\(trips.stderr)")
        // Scored, its trips are the single database's, and what was recorded is not known there (the thirteenth
        // hostile round: every true trip "hidden", nothing recorded).
        let scored = try run(["score", "--db", study, "--truth", dir + "/study/truth.json"])
        let alone = try run(["score", "--db", single, "--truth", dir + "/study/truth.json"])
        #expect(scored.contains("hidden: not known") && !alone.contains("hidden: not known"), "\(scored)")
        let tripsLine = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix("trips:") }.map(String.init) }
        #expect(tripsLine(scored) != nil && tripsLine(scored) == tripsLine(alone), "\(scored)\n\(alone)")
    }

    @Test func aShardOfAnotherSchemaVersionIsRefused() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 1)
        try Store(path: shards[0], create: false).db.execute("PRAGMA user_version = \(Schema.currentVersion - 1)")
        let r = runCLI(["merge", "--db", dir + "/study.sqlite", shards[0]])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(shards[0]): schema version \(Schema.currentVersion - 1)"), "\(r.stderr)")
        let notADatabase = dir + "/plan.json"
        let bad = runCLI(["merge", "--db", dir + "/study.sqlite", notADatabase])
        #expect(bad.status == 1 && bad.stderr.contains(notADatabase), "\(bad.stderr)")
    }

    /// Two shards whose devices differ but whose stable ids collide (a copy of a shard with its devices renamed and
    /// renumbered): the second shard's rows take the next free ids and every reference follows them.
    @Test func collidingStableIDsMoveWithTheirReferences() throws {
        let (dir, paths) = try writeStudy()
        let shard = try shards(dir, paths, count: 1)[0]
        let copy = dir + "/copy.sqlite"
        try FileSystem.write(try FileSystem.read(shard), to: copy)
        let db = try Store(path: copy, create: false).db
        try db.execute("UPDATE devices SET id = id + 100, name = name || '-copy'")
        try db.execute("UPDATE points_hot SET key = key + (100 << 42)")
        for table in ["imports", "app_events", "point_flags", "stays", "places", "visits", "trips", "legs", "days", "app_trip_matches", "pass_runs", "rebuild_state"] {
            try db.execute("UPDATE \(table) SET device_id = device_id + 100")
        }
        let study = dir + "/study.sqlite"
        _ = try run(["merge", "--db", study, shard])
        let out = try run(["merge", "--db", study, copy])
        let trips = try Self.rows(shard, "SELECT count(*) FROM trips")
        #expect(out.contains("stable ids taken by other devices moved"), "\(out)")
        #expect(try Self.rows(study, "SELECT count(*) / 2 FROM trips") == trips)
        // Every reference resolves, and the copy's rows match the original's but for ids and devices.
        #expect(try Self.rows(study, """
            SELECT count(*) FROM trips t WHERE (t.from_visit_id IS NOT NULL AND t.from_visit_id NOT IN (SELECT id FROM stays))
              OR (t.to_place_id IS NOT NULL AND t.to_place_id NOT IN (SELECT id FROM places WHERE device_id = t.device_id))
            """) == ["integer(0)"])
        #expect(try Self.rows(study, "SELECT count(*) FROM legs l JOIN trips t ON t.id = l.trip_id WHERE t.device_id != l.device_id") == ["integer(0)"])
        #expect(try Self.rows(study, "SELECT count(*) FROM visits v JOIN places p ON p.id = v.place_id WHERE p.device_id != v.device_id") == ["integer(0)"])
        func shape(_ op: String) throws -> [String] {
            try Self.rows(study, "SELECT start_ms, end_ms, distance_m, mode, legs FROM trips WHERE device_id \(op) 100 ORDER BY device_id % 100, start_ms")
        }
        #expect(try shape("<") == shape(">"))
    }

    @Test func mergeCopiesEveryTableOfTheSchema() throws {
        let dir = try temporaryDirectory()
        let tables = try Self.rows(try Store(path: dir + "/t.sqlite").path,
                                   "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        #expect(tables.map { $0.replacingOccurrences(of: "text(\"", with: "").replacingOccurrences(of: "\")", with: "") }
            == ShardMerge.tables.sorted(), "a new table must be merged (ShardMerge.tables) and documented in docs/SCALING.md")
    }

    @Test func planAndImportRefuseBadArguments() throws {
        let dir = try temporaryDirectory()
        #expect(runCLI(["plan", "--shards", "0", dir]).status == 64)
        #expect(runCLI(["plan", dir]).status == 64)
        #expect(runCLI(["plan", "--shards", "2", "--by", "person", dir]).status == 64)
        #expect(runCLI(["import", "--db", dir + "/x.sqlite"]).status == 64)
        #expect(runCLI(["import", "--db", dir + "/x.sqlite", "--shard", "1", dir]).status == 64)
        try FileSystem.write("{\"tripline_plan\": 9}", to: dir + "/bad.json")
        let bad = runCLI(["import", "--db", dir + "/x.sqlite", "--plan", dir + "/bad.json", "--shard", "0"])
        #expect(bad.status == 1 && bad.stderr.contains(dir + "/bad.json: not a Tripline shard plan"), "\(bad.stderr)")
        _ = try run(["plan", "--shards", "2", "-o", dir + "/p.json", dir])
        let outOfRange = runCLI(["import", "--db", dir + "/x.sqlite", "--plan", dir + "/p.json", "--shard", "2"])
        #expect(outOfRange.status == 64 && outOfRange.stderr.contains("0 to 1"), "\(outOfRange.stderr)")
    }

    /// A shard whose import is killed with a file's transaction open and run again merges to the same study as one
    /// never interrupted (the built binary, held at a `PausePoint` and killed there).
    @Test func aShardKilledMidImportAndRunAgainMergesTheSame() throws {
        try #require(Binary.exists, "the built tripline binary")
        let (dir, paths) = try writeStudy()
        let clean = try shards(dir, paths, count: 2)
        let killed = dir + "/killed-0.sqlite"
        let paused = try Binary.startPaused(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "0", "--db", killed],
                                            at: "import.file.3.written")
        try #require(paused != nil, "shard 0 reaches its third file")
        paused?.kill()
        let partial = try Self.texts(killed, "SELECT count(*) FROM imports")
        #expect(partial == ["2"], "two files committed, the third rolled back: \(partial)")
        // Merged as it is (rebuilt, even), the half-imported shard is refused, naming it and the first file not read.
        _ = try run(["rebuild", "--quiet", "--db", killed, "--timezone", Self.zone])
        let planned = try ShardPlan.read(dir + "/plan.json").orderedFiles(ofShard: 0)
        let refused = runCLI(["merge", "--db", dir + "/refused.sqlite", killed])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("\(killed): its import of shard 0 of plan") && refused.stderr.contains("did not finish: "
            + "\(planned.count - 2) of its \(planned.count) planned files not read, the first '\(planned[2])'"), "\(refused.stderr)")
        #expect(!FileSystem.exists(dir + "/refused.sqlite"), "nothing written: the study not even created")
        _ = try run(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "0", "--db", killed])
        _ = try run(["rebuild", "--quiet", "--db", killed, "--timezone", Self.zone])
        _ = try run(["merge", "--quiet", "--db", dir + "/a.sqlite"] + clean)
        _ = try run(["merge", "--quiet", "--db", dir + "/b.sqlite", killed, clean[1]])
        for sql in Self.contentQueries {
            #expect(try Self.rows(dir + "/a.sqlite", sql) == Self.rows(dir + "/b.sqlite", sql), "\(sql)")
        }
    }

    /// A file naming two devices (Overland `device_id`s) in a folder planned as one device: the second device takes
    /// the first id of its shard's overflow range, and the merge keeps both apart from the other shard's.
    @Test func aSecondDeviceInAUnitTakesAnOverflowID() throws {
        let dir = try temporaryDirectory()
        func feature(_ device: String, _ minute: Int) -> String {
            """
            {"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},\
            "properties":{"timestamp":"2024-03-01T10:\(minute):00Z","device_id":"\(device)","horizontal_accuracy":10}}
            """
        }
        for (folder, devices) in [("p1", ["a", "b"]), ("p2", ["c"])] {
            try FileSystem.createDirectory(dir + "/study/" + folder)
            let body = "{\"locations\":[" + devices.enumerated().map { feature($1, 10 + $0) }.joined(separator: ",") + "]}"
            try FileSystem.write(body, to: dir + "/study/\(folder)/batch.json")
        }
        let shards = try shards(dir, [dir + "/study"], count: 2)
        let plan = try ShardPlan.read(dir + "/plan.json")
        let p1 = try #require(plan.units.first { $0.name == "p1" })
        #expect(p1.deviceIDs == [1])
        let shard = shards[p1.shard]
        #expect(try Self.texts(shard, "SELECT id || ' ' || name FROM devices ORDER BY name") == ["1 a", "\(plan.shards[p1.shard].overflowFirst) b"])
        // A file of two devices has no `imports.device_id`: whether its points wait for a rebuild is read from the points.
        #expect(try Self.texts(shard, "SELECT count(*) FROM imports WHERE device_id IS NULL AND points_new > 0") == ["1"])
        let stale = dir + "/stale.sqlite"
        try FileSystem.write(try FileSystem.read(shard), to: stale)
        try Store(path: stale, create: false).db.execute(
            "UPDATE rebuild_state SET last_import_id = NULL WHERE device_id = (SELECT id FROM devices WHERE name = 'b')")
        let refused = runCLI(["merge", "--db", dir + "/refused.sqlite", stale])
        #expect(refused.status == 1 && refused.stderr.contains("\(stale): device 'b' has points or app events imported since its last rebuild"),
                "\(refused.stderr)")
        _ = try run(["merge", "--quiet", "--db", dir + "/study.sqlite"] + shards)
        #expect(try Self.texts(dir + "/study.sqlite", "SELECT id || ' ' || name FROM devices ORDER BY id")
            == ["1 a", "2 c", "\(plan.shards[p1.shard].overflowFirst) b"])
    }

    /// A merge killed with a shard's transaction open leaves the study as it was before that shard; run again, it
    /// completes to the study an uninterrupted merge gives.
    @Test func aMergeKilledMidShardLeavesTheStudyAsBefore() throws {
        try #require(Binary.exists, "the built tripline binary")
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let study = dir + "/study.sqlite", clean = dir + "/clean.sqlite"
        _ = try run(["merge", "--quiet", "--db", clean] + shards)
        _ = try run(["merge", "--quiet", "--db", study, shards[0]])
        let before = try Self.everything(study)
        let paused = try Binary.startPaused(["merge", "--quiet", "--db", study, shards[1]], at: "merge.shard-1.sqlite.written")
        try #require(paused != nil, "the merge reaches the end of shard 1's rows")
        paused?.kill()
        #expect(try Self.everything(study) == before, "nothing of shard 1 visible after the kill")
        _ = try run(["merge", "--quiet", "--db", study] + shards)
        for sql in Self.contentQueries {
            #expect(try Self.rows(study, sql) == Self.rows(clean, sql), "\(sql)")
        }
    }

    /// `import --plan --shard K` records the plan's digest, K, N and the shard's files in the shard's `settings`,
    /// and that every planned file was read; another shard or plan imported into the same database is refused.
    @Test func aShardRecordsItsPlanAndShard() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let plan = try ShardPlan.read(dir + "/plan.json")
        #expect(plan.digest == ShardPlanRecord.digest(try FileSystem.read(dir + "/plan.json")) && plan.digest.count == 16)
        for (k, shard) in shards.enumerated() {
            let record = try #require(try ShardPlanRecord.read(try Store(path: shard, create: false).db))
            #expect(record == ShardPlanRecord(digest: plan.digest, shard: k, shards: 2, files: plan.orderedFiles(ofShard: k), complete: true))
            #expect(!record.files.isEmpty)
        }
        let other = runCLI(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "1", "--db", shards[0]])
        #expect(other.status == 1 && other.stderr.contains("\(shards[0]) holds shard 0 of plan \(plan.digest) (2 shards), not shard 1"),
                "\(other.stderr)")
        // The plan's own records stay in the shards: the study's settings equal one machine's (mergedShardsEqualOneMachine).
        _ = try run(["merge", "--quiet", "--db", dir + "/study.sqlite"] + shards)
        #expect(try Self.texts(dir + "/study.sqlite", "SELECT count(*) FROM settings WHERE key LIKE 'plan.%'") == ["0"])
    }

    /// A planned file gone before its shard was imported: the import fails and leaves the shard incomplete, which
    /// the merge refuses before writing anything, naming the shard and the file.
    @Test func aShardMissingAPlannedFileIsRefused() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        let plan = try ShardPlan.read(dir + "/plan.json")
        let files = plan.orderedFiles(ofShard: 1)
        try FileSystem.write(try FileSystem.read(files[1]), to: dir + "/kept")
        FileSystem.remove(files[1])
        let partial = dir + "/partial-1.sqlite"
        let imported = runCLI(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "1", "--db", partial])
        #expect(imported.status == 1, "a planned file gone is a failure")
        _ = try run(["rebuild", "--quiet", "--db", partial, "--timezone", Self.zone])
        let study = dir + "/study.sqlite"
        _ = try run(["merge", "--quiet", "--db", study, shards[0]])
        let before = try Self.everything(study)
        let r = runCLI(["merge", "--db", study, partial])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(partial): its import of shard 1 of plan \(plan.digest) (2 shards) did not finish"), "\(r.stderr)")
        #expect(try Self.everything(study) == before, "nothing of the refused shard written")
        // The file back and the import run again: the shard is complete and merges.
        try FileSystem.write(try FileSystem.read(dir + "/kept"), to: files[1])
        _ = try run(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "1", "--db", partial])
        _ = try run(["rebuild", "--quiet", "--db", partial, "--timezone", Self.zone])
        _ = try run(["merge", "--quiet", "--db", study, partial])
    }

    /// A shard with a device not rebuilt since its last import, or rebuilt by another algorithm version, is refused
    /// before anything is written, naming the shard and the device.
    @Test func aShardNotRebuiltIsRefused() throws {
        let (dir, paths) = try writeStudy()
        _ = try run(["plan", "--shards", "1", "-o", dir + "/plan.json"] + paths)
        let shard = dir + "/shard-0.sqlite", study = dir + "/study.sqlite"
        _ = try run(["import", "--quiet", "--plan", dir + "/plan.json", "--shard", "0", "--db", shard])
        let never = runCLI(["merge", "--db", study, shard])
        #expect(never.status == 1 && never.stderr.contains("\(shard): device '") && never.stderr.contains("' was never rebuilt (and "),
                "\(never.stderr)")
        #expect(!FileSystem.exists(study), "nothing written")
        _ = try run(["rebuild", "--quiet", "--db", shard, "--timezone", Self.zone])
        let db = try Store(path: shard, create: false).db
        let first = try #require(try Self.texts(shard, "SELECT name FROM devices ORDER BY name").first)
        // Points imported after the rebuild (its record one import behind), then results of another algorithm version.
        try db.execute("UPDATE rebuild_state SET last_import_id = last_import_id - 1 WHERE device_id = (SELECT min(id) FROM devices WHERE name = '\(first)')")
        let waiting = runCLI(["merge", "--db", study, shard])
        #expect(waiting.status == 1 && waiting.stderr.contains("\(shard): device '\(first)' has points or app events imported since its last rebuild"),
                "\(waiting.stderr)")
        _ = try run(["rebuild", "--quiet", "--db", shard, "--timezone", Self.zone])
        try db.execute("UPDATE rebuild_state SET algorithm_version = algorithm_version - 1")
        let old = runCLI(["merge", "--db", study, shard])
        #expect(old.status == 1 && old.stderr.contains("was rebuilt by algorithm version \(Rebuild.algorithmVersion - 1)"), "\(old.stderr)")
        #expect(!FileSystem.exists(study), "nothing written")
        _ = try run(["rebuild", "--quiet", "--db", shard, "--timezone", Self.zone])
        _ = try run(["merge", "--quiet", "--db", study, shard])
    }

    /// Shards of two plans are refused: given to one merge (before anything is written), or a shard of another plan
    /// than the study's merged shards; with `--plan`, a shard of another plan or of none.
    @Test func shardsOfTwoPlansAreRefused() throws {
        let (dir, paths) = try writeStudy()
        let a = try shards(dir, paths, count: 2)
        try FileSystem.createDirectory(dir + "/b")
        let b = try shards(dir + "/b", paths, count: 3)
        let planA = try ShardPlan.read(dir + "/plan.json"), planB = try ShardPlan.read(dir + "/b/plan.json")
        #expect(planA.digest != planB.digest)
        let study = dir + "/study.sqlite"
        let both = runCLI(["merge", "--db", study, a[0], b[1]])
        let named = "\(b[1]): it holds shard 1 of plan \(planB.digest) (3 shards), but \(a[0]) holds shard 0 of plan \(planA.digest)"
        #expect(both.status == 1 && both.stderr.contains(named), "\(both.stderr)")
        #expect(!FileSystem.exists(study), "nothing written")
        _ = try run(["merge", "--quiet", "--db", study, a[0]])
        let before = try Self.everything(study)
        let later = runCLI(["merge", "--db", study, b[1]])
        #expect(later.status == 1 && later.stderr.contains("the study holds shards of plan \(planA.digest)"), "\(later.stderr)")
        #expect(try Self.everything(study) == before)
        let given = runCLI(["merge", "--db", study, "--plan", dir + "/plan.json", b[0]])
        #expect(given.status == 1 && given.stderr.contains("\(b[0]): it holds shard 0 of plan \(planB.digest)"), "\(given.stderr)")
        let single = try single(dir, paths)
        let none = runCLI(["merge", "--db", study, "--plan", dir + "/plan.json", single])
        #expect(none.status == 1 && none.stderr.contains("\(single): it was not imported with `import --plan`"), "\(none.stderr)")
        #expect(try Self.everything(study) == before)
    }

    /// Shards rebuilt with different pass parameters are two rule sets, not one study (the twelfth hostile round: merged
    /// without a word): refused before anything is written, naming the keys.
    @Test func shardsRebuiltWithOtherParametersAreRefused() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 2)
        _ = try run(["rebuild", "--quiet", "--db", shards[0], "--timezone", Self.zone, "--set", "stays.radius_m=60"])
        let refused = runCLI(["merge", "--db", dir + "/study.sqlite"] + shards)
        #expect(refused.status == 1 && refused.stderr.contains("rebuilt with other pass parameters than") && refused.stderr.contains("stays.radius_m"),
                "\(refused.stderr)")
        let written = FileSystem.kind(dir + "/study.sqlite") == nil ? ["0"] : try Self.texts(dir + "/study.sqlite", "SELECT count(*) FROM devices")
        #expect(written == ["0"], "nothing merged")
        // Zones by position beside a chosen zone are two zone rules too (the thirteenth hostile round).
        _ = try run(["rebuild", "--quiet", "--db", shards[0], "--timezone", "position", "--set", "stays.radius_m=120"])
        let zoned = runCLI(["merge", "--db", dir + "/zoned.sqlite"] + shards)
        #expect(zoned.status == 1 && zoned.stderr.contains("setting 'timezone' is"), "\(zoned.stderr)")
        _ = try run(["rebuild", "--quiet", "--db", shards[0], "--timezone", Self.zone, "--set", "stays.radius_m=60"])
        // Merged one at a time, by two runs: the second is compared with the study's devices.
        _ = try run(["merge", "--quiet", "--db", dir + "/study.sqlite", shards[1]])
        let later = runCLI(["merge", "--db", dir + "/study.sqlite", shards[0]])
        #expect(later.status == 1 && later.stderr.contains("rebuilt with other pass parameters than the study's devices"), "\(later.stderr)")
    }

    /// A plan of more shards than devices (an array job sized above the number of participants) has shards that hold
    /// nothing; each is one of the plan's, not the one before merged again (the twelfth hostile round: the second
    /// empty shard was "merged before" and `merge --plan` failed on every run).
    @Test func emptyShardsOfAPlanAreEachMerged() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 6)
        let plan = try ShardPlan.read(dir + "/plan.json")
        #expect(try shards.filter { try Self.texts($0, "SELECT count(*) FROM devices") == ["0"] }.count == 2)
        let all = try run(["merge", "--db", dir + "/study.sqlite", "--plan", dir + "/plan.json"] + shards)
        #expect(all.contains("the study holds all 6 shards of plan \(plan.digest)"), "\(all)")
        #expect(!all.contains("merged before"), "\(all)")
        // Merged again, every shard (the empty ones too) is recognised.
        let again = try run(["merge", "--db", dir + "/study.sqlite", "--plan", dir + "/plan.json"] + shards)
        #expect(again.components(separatedBy: "merged before").count - 1 == 6, "\(again)")
    }

    /// `merge --plan`: shards left out are named and the merge exits 1, keeping what it merged; merging the missing
    /// ones completes the study to what one merge of every shard gives.
    @Test func mergeWithPlanNamesTheMissingShards() throws {
        let (dir, paths) = try writeStudy()
        let shards = try shards(dir, paths, count: 3)
        let plan = try ShardPlan.read(dir + "/plan.json")
        let study = dir + "/study.sqlite", clean = dir + "/clean.sqlite"
        let all = try run(["merge", "--db", clean, "--plan", dir + "/plan.json"] + shards)
        #expect(all.contains("the study holds all 3 shards of plan \(plan.digest)"), "\(all)")
        let partial = runCLI(["merge", "--db", study, "--plan", dir + "/plan.json", shards[2], shards[0]])
        #expect(partial.status == 1 && partial.stderr.contains("\(study) lacks 1 of the 3 shards of plan \(plan.digest): shard 1;"), "\(partial.stderr)")
        #expect(try Self.texts(study, "SELECT count(*) FROM devices") != ["0"], "the shards given stay merged")
        let none = runCLI(["merge", "--db", study, "--plan", dir + "/plan.json", shards[0]])
        #expect(none.status == 1 && none.stderr.contains("shard 1;"), "merged before, still lacking shard 1: \(none.stderr)")
        _ = try run(["merge", "--quiet", "--db", study, "--plan", dir + "/plan.json", shards[1]])
        for sql in Self.contentQueries {
            #expect(try Self.rows(study, sql) == Self.rows(clean, sql), "\(sql)")
        }
    }
}
