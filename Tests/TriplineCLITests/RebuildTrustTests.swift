import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineSimulator
@testable import TriplineEvaluation
import TriplineTestSupport

/// A simulated database (an Overland device with its own offsets, an OwnTracks one without) for the trust tests.
func trustDatabase(seed: UInt64 = 31, days: Int = 2, filter: ((Point) -> Bool)? = nil) throws -> (path: String, result: SimulationResult) {
    let dir = try temporaryDirectory()
    let result = Simulator(config: SimulatorConfig(seed: seed, days: days, people: 2)).run()
    let store = try Store(path: dir + "/t.sqlite")
    try SimulationEvaluation.load(result, into: store, filter: filter)
    return (dir + "/t.sqlite", result)
}

func strings(_ path: String, _ sql: String) throws -> [String] {
    let store = try Store(path: path, create: false)
    let st = try store.db.prepare(sql)
    var out: [String] = []
    while try st.step() { out.append((0..<st.columnCount).map { st.text(Int32($0)) ?? "∅" }.joined(separator: "|")) }
    return out
}

func count(_ path: String, _ sql: String) throws -> Int64 {
    try Store(path: path, create: false).db.scalarInt(sql) ?? -1
}

/// Staleness is detected, never silent: a changed zone, parameter or code version is applied by a plain rebuild.
@Suite struct RebuildStalenessTests {
    static let ownTracksOffsets =
        "SELECT DISTINCT v.start_utc_offset_s FROM visits v JOIN devices d ON d.id = v.device_id WHERE d.name = 'owntracks-2' ORDER BY 1"

    @Test func zoneGivenAfterAFirstRebuildIsApplied() throws {
        let (db, _) = try trustDatabase()
        let first = runCLI(["rebuild", "--db", db])
        #expect(first.status == 0, "\(first.stderr)")
        // OwnTracks points carry no offset: they take the zone where they were (Berlin, CET before the DST change).
        #expect(try strings(db, Self.ownTracksOffsets) == ["3600"])
        let second = runCLI(["rebuild", "--db", db, "--timezone", "America/New_York"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("owntracks-2: time zone changed (position → America/New_York): rebuilding all"), "\(second.stdout)")
        // Overland points carry their own offsets: the zone changes nothing there, and nothing is recomputed.
        #expect(second.stdout.contains("overland-1 (up to date)"), "\(second.stdout)")
        #expect(try strings(db, Self.ownTracksOffsets) == ["-14400"], "EDT, as the chosen zone says")
        #expect(try strings(db, "SELECT DISTINCT timezone FROM rebuild_state") == ["America/New_York"])
        // The same zone again (stored): nothing to do.
        #expect(runCLI(["rebuild", "--db", db]).stdout.contains("owntracks-2 (up to date)"))
    }

    /// The position decides, not the machine's zone: `TZ` would put a trip to New York on Berlin's days.
    @Test func tzEnvironmentDoesNotOverrideThePosition() throws {
        let (db, _) = try trustDatabase()
        let r = runCLI(["rebuild", "--db", db], environment: ["TZ": "America/New_York"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try strings(db, Self.ownTracksOffsets) == ["3600"])
        #expect(try strings(db, "SELECT value FROM settings WHERE key = 'timezone'") == [])
        #expect(try strings(db, "SELECT DISTINCT timezone FROM rebuild_state") == ["position"])
        let info = runCLI(["info", "--db", db, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(object["timezone"] as? String == "position")
        #expect(object["points_waiting"] as? Int == 0)
        #expect(object["last_rebuild_ms"] is Int)
    }

    @Test func changedParameterIsAppliedAndSaid() throws {
        let (db, _) = try trustDatabase()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        let before = try RebuildKillTests.picture(db)
        let changed = runCLI(["rebuild", "--db", db, "--set", "stays.radius_m=80"])
        #expect(changed.stdout.contains("overland-1: parameters changed (stays.radius_m 120 → 80): rebuilding all"), "\(changed.stdout)")
        #expect(changed.stdout.contains("owntracks-2: parameters changed (stays.radius_m 120 → 80): rebuilding all"))
        #expect(try strings(db, "SELECT json_extract(parameters, '$.\"stays.radius_m\"') FROM rebuild_state") == ["80", "80"])
        // Back to the defaults: said again, and the result is the first one exactly.
        let back = runCLI(["rebuild", "--db", db])
        #expect(back.stdout.contains("parameters changed (stays.radius_m 80 → 120)"), "\(back.stdout)")
        #expect(try RebuildKillTests.picture(db) == before)
        // One pass rerun with its own parameter is recorded, so the next plain rebuild sees the difference.
        #expect(runCLI(["rebuild", "--db", db, "--pass", "trips", "--set", "trips.min_leg_s=60"]).status == 0)
        let after = runCLI(["rebuild", "--db", db])
        #expect(after.stdout.contains("parameters changed (trips.min_leg_s 60 → 120)"), "\(after.stdout)")
    }

    @Test func olderCodeVersionIsRebuilt() throws {
        let (db, _) = try trustDatabase()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        try Store(path: db).db.run("UPDATE rebuild_state SET algorithm_version = 1")
        let r = runCLI(["rebuild", "--db", db])
        #expect(r.stdout.contains("code version changed (1 → \(Rebuild.algorithmVersion)): rebuilding all"), "\(r.stdout)")
        #expect(try strings(db, "SELECT DISTINCT algorithm_version FROM rebuild_state") == [String(Rebuild.algorithmVersion)])
    }

    /// A database of schema 1, rebuilt by an older Tripline (its marker in `settings`), migrates, and its next
    /// rebuild recomputes everything, saying why.
    @Test func resultsOfAnOlderTriplineAreRebuilt() throws {
        // A file as an older Tripline left it: schema 1 (the 21-column `points` table), with its incremental
        // markers in `settings`.
        let dir = try temporaryDirectory()
        let db = dir + "/old.sqlite"
        let result = Simulator(config: SimulatorConfig(seed: 31, days: 2, people: 2)).run()
        do {
            let raw = try Database(path: db)
            try raw.execute("PRAGMA journal_mode=WAL")
            try raw.execute(Schema.migrations[0])
            try raw.execute("PRAGMA user_version=1")
            let insert = try raw.prepare(
                "INSERT INTO points(device_id, time_ms, utc_offset_s, lat, lon, accuracy_m, speed_mps, motion, import_id) VALUES (?,?,?,?,?,?,?,?,1)")
            for (k, device) in result.devices.enumerated() {
                let id = Int64(k + 1)
                try raw.run("INSERT INTO devices(id, name, source, name_origin, created_ms) VALUES (?, ?, ?, 'simulator', 0)",
                            [.integer(id), .text(device.name), .text(device.app.rawValue)])
                for p in device.points {
                    try insert.bind([.integer(id), .integer(p.timeMs), .optional(p.utcOffsetS.map(Int64.init)), .real(p.lat), .real(p.lon),
                                     .optional(p.accuracyM), .optional(p.speedMps), .optional(p.motion)])
                    _ = try insert.step()
                }
                try raw.run("INSERT INTO settings(key, value) VALUES (?, '1')", [.text("rebuild.last_import.\(id)")])
            }
        }
        let r = runCLI(["rebuild", "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("overland-1: the stored results have no record of the parameters, time zone and code version"), "\(r.stdout)")
        #expect(try count(db, "SELECT count(*) FROM settings WHERE key LIKE 'rebuild.last_import.%'") == 0)
        #expect(runCLI(["rebuild", "--db", db]).stdout.contains("owntracks-2 (up to date)"))
    }

    @Test func infoCountsPointsWaiting() throws {
        let result = Simulator(config: SimulatorConfig(seed: 31, days: 2, people: 2)).run()
        let cut = result.devices[0].points[result.devices[0].points.count / 2].timeMs
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        try SimulationEvaluation.load(result, into: store, importID: 1) { $0.timeMs < cut }
        let db = dir + "/t.sqlite"
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        try SimulationEvaluation.load(result, into: store, importID: 2) { $0.timeMs >= cut }
        let waiting = try count(db, "SELECT count(*) FROM points WHERE import_id = 2")
        let info = runCLI(["info", "--db", db])
        #expect(info.stdout.contains("points waiting to be rebuilt: \(waiting)"), "\(info.stdout)")
        #expect(info.stdout.contains("Time zone of points without their own offset: Europe/Berlin"))
        #expect(runCLI(["rebuild", "--db", db]).status == 0)
        #expect(runCLI(["info", "--db", db]).stdout.contains("points waiting to be rebuilt: 0"))
        #expect(!runCLI(["info", "--db", db]).stdout.contains("app events waiting"))
        // An app's record imported on its own (no point with it) waits too, and the next rebuild takes it.
        try store.db.execute("""
            INSERT INTO app_events(device_id, import_id, kind, time_ms, raw)
            SELECT device_id, 3, 'visit', time_ms, '{"late":1}' FROM points WHERE import_id = 2 LIMIT 1
            """)
        // (A record with no time is read by no rebuild's span, so it does not wait.)
        try store.db.execute("INSERT INTO app_events(device_id, import_id, kind, raw) SELECT device_id, 3, 'transition', '{}' FROM points LIMIT 1")
        let late = runCLI(["info", "--db", db, "--json"]).stdout
        #expect(late.contains("\"app_events_waiting\":1"), "\(late)")
        #expect(runCLI(["info", "--db", db]).stdout.contains("points waiting to be rebuilt: 0; app events waiting: 1"))
        let again = runCLI(["rebuild", "--db", db]).stdout
        #expect(again.components(separatedBy: "(up to date)").count == 2, "one device rebuilt, the other up to date: \(again)")
        #expect(runCLI(["info", "--db", db, "--json"]).stdout.contains("\"app_events_waiting\":0"))
    }
}

/// The printed counts are the stored rows.
@Suite struct RebuildCountTests {
    static let tables: [(pass: String, stat: String, sql: String)] = [
        ("stays", "stays", "SELECT count(*) FROM stays WHERE device_id = ?"),
        ("places", "places", "SELECT count(*) FROM places WHERE device_id = ?"),
        ("places", "visits", "SELECT count(*) FROM visits WHERE device_id = ?"),
        ("trips", "trips", "SELECT count(*) FROM trips WHERE device_id = ?"),
        ("trips", "legs", "SELECT count(*) FROM legs WHERE device_id = ?"),
        ("metrics", "days", "SELECT count(*) FROM days WHERE device_id = ?"),
        ("apptrips", "app_trips", "SELECT count(*) FROM app_trip_matches WHERE device_id = ?"),
    ]

    /// Rebuilt in many small windows (where the passes' own counts overlap), the reports still give the stored rows.
    @Test func windowedReportsEqualStoredCounts() throws {
        let (db, _) = try trustDatabase(seed: 5150, days: 3)
        let store = try Store(path: db)
        var options = Rebuild.Options()
        options.timeZoneName = "Europe/Berlin"
        options.windowPoints = 8_000
        let reports = try Rebuild(store: store, options: options).run()
        #expect(reports.contains { $0.pass == "load" && $0.stats.contains { $0.0 == "windows" } }, "several windows")
        for device in ["overland-1", "owntracks-2"] {
            let id = try #require(try store.db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(device)]))
            for (pass, stat, sql) in Self.tables {
                let report = try #require(reports.first { $0.device == device && $0.pass == pass })
                let printed = report.stats.first { $0.0 == stat }?.1
                #expect(printed == String(try store.db.scalarInt(sql, [.integer(id)]) ?? -1), "\(device) \(pass) \(stat)")
            }
        }
    }

    @Test func printedCountsEqualSelectCount() throws {
        let (db, _) = try trustDatabase()
        let r = runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"])
        let store = try Store(path: db)
        var device = ""
        var checked = 0
        for line in r.stdout.split(separator: "\n").map(String.init) {
            if !line.hasPrefix("  ") { device = String(line.prefix { $0 != " " }); continue }
            let words = line.split(separator: " ").map(String.init)
            for (pass, stat, sql) in Self.tables where words.first == pass {
                let i = try #require(words.dropFirst().firstIndex(of: stat))
                let id = try #require(try store.db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(device)]))
                #expect(words[i + 1].trimmingCharacters(in: [","]) == String(try store.db.scalarInt(sql, [.integer(id)]) ?? -1), "\(line)")
                checked += 1
            }
        }
        #expect(checked == 2 * Self.tables.count, "\(r.stdout)")
    }

    @Test func rebuildJSONEscapesTheDeviceName() throws {
        let (db, _) = try trustDatabase()
        let hostile = "evil\"},{\"device\":\"x\\\n\u{1}\u{2028}"
        try Store(path: db).db.run("UPDATE devices SET name = ? WHERE name = 'overland-1'", [.text(hostile)])
        let r = runCLI(["rebuild", "--db", db, "--json", "--timezone", "Europe/Berlin"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs.contains { $0["device"] as? String == hostile })
        #expect(Set(runs.compactMap { $0["device"] as? String }) == [hostile, "owntracks-2"])
        #expect(Rebuild.json([("a\"b", "nan"), ("n", "-1.5e3"), ("s", "01")]) == "{\"a\\\"b\":\"nan\",\"n\":-1.5e3,\"s\":\"01\"}")
    }
}

/// Stable identities: ids survive rebuilds of unchanged data, and new points leave unaffected trips their ids.
@Suite struct RebuildIdentityTests {
    static let ids = [
        "SELECT id, device_id, start_ms FROM trips ORDER BY id", "SELECT id, device_id, start_ms FROM visits ORDER BY id",
        "SELECT id, device_id, first_visit_ms FROM places ORDER BY id",
    ]

    @Test func idsSurviveAFullRebuild() throws {
        let (db, _) = try trustDatabase()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        let before = try Self.ids.map { try strings(db, $0) }
        #expect(before.allSatisfy { !$0.isEmpty })
        #expect(runCLI(["rebuild", "--db", db, "--full"]).status == 0)
        #expect(try Self.ids.map { try strings(db, $0) } == before)
        // Another database with the same points gives the same ids (derived, not numbered by history).
        let (other, _) = try trustDatabase()
        #expect(runCLI(["rebuild", "--db", other, "--timezone", "Europe/Berlin"]).status == 0)
        #expect(try Self.ids.map { try strings(other, $0) } == before)
        // Exports and reports carry them.
        let csv = runCLI(["export", "--db", db, "--what", "trips", "--format", "csv"])
        let exported = csv.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { String($0.prefix { $0 != "," }) }
        let stored: [String] = try strings(db, "SELECT id FROM trips")
        #expect(exported.sorted() == stored.sorted(), "\(csv.stdout.prefix(300)) \(csv.stderr)")
        let report = runCLI(["report", "trips", "--db", db, "--format", "csv"])
        #expect(report.status == 0, "\(report.stderr)")
        let firstTrip = try #require(try strings(db, "SELECT id FROM trips ORDER BY start_ms LIMIT 1").first)
        #expect(report.stdout.contains(firstTrip), "\(report.stdout.prefix(300))")
    }

    @Test func newPointsKeepTheIdsOfUnaffectedTrips() throws {
        let result = Simulator(config: SimulatorConfig(seed: 99, days: 4, people: 2)).run()
        let all = result.devices.flatMap(\.points).map(\.timeMs).sorted()
        let cut = all[all.count / 2]
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let db = dir + "/t.sqlite"
        try SimulationEvaluation.load(result, into: store, importID: 1) { $0.timeMs < cut }
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        // Trips ending a day before the new points are outside what they touch.
        let early = "SELECT id, start_ms, end_ms FROM trips WHERE end_ms < \(cut - 86_400_000) ORDER BY id"
        let before = try strings(db, early)
        let places = try strings(db, "SELECT id FROM places WHERE first_visit_ms < \(cut - 86_400_000) ORDER BY id")
        #expect(!before.isEmpty && !places.isEmpty)
        try SimulationEvaluation.load(result, into: store, importID: 2) { $0.timeMs >= cut }
        let r = runCLI(["rebuild", "--db", db])
        #expect(r.stdout.contains("(from "), "incremental: \(r.stdout)")
        #expect(try strings(db, early) == before)
        let after = Set(try strings(db, "SELECT id FROM places"))
        #expect(places.allSatisfy { after.contains($0) }, "places founded before the new points keep their ids")
        // The trips' place references follow the places.
        #expect(try count(db, "SELECT count(*) FROM trips WHERE from_place_id IS NOT NULL AND from_place_id NOT IN (SELECT id FROM places)") == 0)
    }

    @Test func stableIDsAreDeterministicAndSafeInJSON() {
        let one = StableID.deviceKey(name: "overland-1"), two = StableID.deviceKey(name: "overland-2")
        #expect(one == StableID.deviceKey(name: "overland-1") && one != two)
        // Names by their bytes: two spellings of "é" (Swift's `==` calls them equal) are two devices.
        #expect(StableID.deviceKey(name: "caf\u{E9}") != StableID.deviceKey(name: "cafe\u{301}"))
        let a = StableID.make(.trip, deviceKey: one, startMs: 1_711_700_000_000)
        #expect(a == StableID.make(.trip, deviceKey: one, startMs: 1_711_700_000_000))
        #expect(a != StableID.make(.stay, deviceKey: one, startMs: 1_711_700_000_000))
        #expect(a != StableID.make(.trip, deviceKey: two, startMs: 1_711_700_000_000))
        for ms in stride(from: Int64(0), to: 1_000_000, by: 997) {
            let id = StableID.make(.place, deviceKey: StableID.deviceKey(name: "rec"), startMs: ms)
            #expect(id > 0 && id < (1 << 53))
        }
    }
}

/// The user's own words survive: rename, merge and forget are kept in `place_edits` and applied by every rebuild.
@Suite struct RebuildPlaceEditTests {
    func rebuilt() throws -> String {
        let (db, _) = try trustDatabase(seed: 9, days: 3)
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        return db
    }

    func places(_ db: String, _ device: String = "overland-1") throws -> [[String: Any]] {
        let r = runCLI(["places", "--db", db, "--device", device, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(object["places"] as? [[String: Any]])
    }

    /// Home/Work, else the wifi name, else `near <locality>` (the offline geography), else the coordinates.
    @Test func defaultNamesAreTheWifiNameElseTheLocalityElseCoordinates() throws {
        let db = try rebuilt()
        let names = try strings(db, "SELECT name, coalesce(ssid, ''), coalesce(locality, '') FROM places")
        #expect(!names.isEmpty)
        for row in names {
            let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            if parts[1].isEmpty {
                // `near <locality>`, with ` (N km DIR)` when the place is 1.5 km or more from the locality's point.
                let near = "near " + parts[2]
                let offset = parts[0].dropFirst(near.count)
                #expect(parts[2].isEmpty ? parts[0].contains(", ")
                        : parts[0].hasPrefix(near) && (offset.isEmpty || (offset.hasPrefix(" (") && offset.hasSuffix(")") && offset.contains(" km "))), "\(row)")
            } else {
                // The wifi's name, unless the place is Home or Work (which come first, docs/PASSES.md "Place names").
                #expect(parts[0] == parts[1] || parts[0] == "Home" || parts[0] == "Work", "\(row)")
            }
        }
        #expect(names.contains { !$0.split(separator: "|", omittingEmptySubsequences: false)[1].isEmpty }, "some place is named by its wifi")
        let table = runCLI(["places", "--db", db])
        #expect(table.stdout.hasPrefix("ID") || table.stdout.contains("NAME"), "\(table.stdout)")
    }

    @Test func renameSurvivesFullRebuilds() throws {
        let db = try rebuilt()
        let home = try #require(try places(db).first)
        let id = try #require(home["id"] as? Int)
        let r = runCLI(["places", "--db", db, "rename", String(id), "Home", "sweet", "home"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try strings(db, "SELECT name FROM places WHERE id = \(id)") == ["Home sweet home"])
        #expect(runCLI(["rebuild", "--db", db, "--full"]).status == 0)
        #expect(try strings(db, "SELECT name FROM places WHERE id = \(id)") == ["Home sweet home"])
        // Also when the clustering renumbers places: the edit finds the place by its centre.
        #expect(runCLI(["rebuild", "--db", db, "--set", "stays.min_duration_s=900"]).status == 0)
        #expect(try count(db, "SELECT count(*) FROM places WHERE name = 'Home sweet home'") == 1)
        #expect(try count(db, "SELECT count(*) FROM place_edits") == 1)
    }

    @Test func mergeFoldsVisitsAndForgetRemovesThem() throws {
        let db = try rebuilt()
        let list = try places(db)
        #expect(list.count >= 3)
        let a = list[1]["id"] as! Int, b = list[0]["id"] as! Int, c = list[2]["id"] as! Int
        let visitsA = list[1]["visits"] as! Int, visitsB = list[0]["visits"] as! Int, visitsC = list[2]["visits"] as! Int
        let totalVisits = try count(db, "SELECT count(*) FROM visits")
        let points = try count(db, "SELECT count(*) FROM points")
        #expect(runCLI(["places", "--db", db, "merge", String(a), String(b)]).status == 0)
        #expect(runCLI(["places", "--db", db, "forget", String(c)]).status == 0)
        for run in 0..<2 {
            #expect(try count(db, "SELECT count(*) FROM places WHERE id = \(a) OR id = \(c)") == 0, "run \(run)")
            #expect(try count(db, "SELECT visits FROM places WHERE id = \(b)") == Int64(visitsA + visitsB))
            #expect(try count(db, "SELECT count(*) FROM visits WHERE place_id = \(b)") == Int64(visitsA + visitsB))
            #expect(try count(db, "SELECT count(*) FROM visits") == totalVisits - Int64(visitsC))
            #expect(try count(db, "SELECT total(visits) FROM days") == totalVisits - Int64(visitsC), "daily totals follow")
            #expect(try count(db, "SELECT count(*) FROM points") == points, "never a point")
            #expect(try count(db, "SELECT count(*) FROM trips WHERE from_place_id IN (\(a), \(c)) OR to_place_id IN (\(a), \(c))") == 0)
            #expect(runCLI(["rebuild", "--db", db, "--full"]).status == 0)
        }
    }

    @Test func badEditsAreClearErrors() throws {
        let db = try rebuilt()
        #expect(runCLI(["places", "--db", db, "rename", "42"]).status == 64)
        #expect(runCLI(["places", "--db", db, "paint", "42"]).status == 64)
        let missing = runCLI(["places", "--db", db, "forget", "42"])
        #expect(missing.status == 1 && missing.stderr.contains("no place with id 42"), "\(missing.stderr)")
        let a = try #require(try places(db, "overland-1").first?["id"] as? Int)
        let b = try #require(try places(db, "owntracks-2").first?["id"] as? Int)
        let across = runCLI(["places", "--db", db, "merge", String(a), String(b)])
        #expect(across.status == 1 && across.stderr.contains("only places of one device merge"), "\(across.stderr)")
        #expect(try count(db, "SELECT count(*) FROM place_edits") == 0)
    }
}
