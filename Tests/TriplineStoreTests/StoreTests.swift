import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

@Suite struct StoreTests {
    /// Migration 6: app events stored twice before (a NULL device or time made the unique index see two rows) are
    /// kept once; other events are untouched.
    @Test func migrationSixKeepsOneOfEachEvent() throws {
        let path = try database(atVersion: 5) { db in
            try db.run("INSERT INTO devices(id, name, source, name_origin, created_ms) VALUES (1, 'phone', 'owntracks', 'tid', 0)")
            try db.run("INSERT INTO imports(id, path, fingerprint, size, status, started_ms) VALUES (1, 'a', 'x', 1, 'done', 0), (2, 'b', 'y', 1, 'done', 0)")
            for (device, time, raw) in [("NULL", "5", "'t'"), ("NULL", "5", "'t'"), ("NULL", "NULL", "'u'"), ("NULL", "NULL", "'u'"), ("1", "5", "'t'"), ("NULL", "6", "'t'")] {
                try db.execute("INSERT INTO app_events(device_id, import_id, kind, time_ms, raw) VALUES (\(device), 1, 'transition', \(time), \(raw))")
            }
            #expect(try db.scalarInt("SELECT count(*) FROM app_events") == 6)
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Schema.currentVersion)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events") == 4)
        #expect(try store.db.scalarInt("SELECT min(id) FROM app_events WHERE raw = 'u'") == 3)
        // And now the index refuses a second copy.
        try store.db.execute("INSERT OR IGNORE INTO app_events(device_id, import_id, kind, time_ms, raw) VALUES (NULL, 2, 'transition', 5, 't')")
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events") == 4)
    }

    /// The app records an incremental restart must not cut (algorithm version 31): a region whose last transition
    /// before the new data is an `enter`, and an Overland pause with no resume after it; another device's, a region
    /// left again, or a pause resumed, are none.
    @Test func openAppRecordsAreEntersNotLeftAndPausesNotResumed() throws {
        let (store, _) = try freshStore()
        try store.db.run("INSERT INTO devices(id, name, source, name_origin, created_ms) VALUES (1, 'a', 'owntracks', 'tid', 0), (2, 'b', 'overland', 'tid', 0)")
        try store.db.run("INSERT INTO imports(id, path, fingerprint, size, status, started_ms) VALUES (1, 'a', 'x', 1, 'done', 0)")
        func transition(_ device: Int, _ time: Int, _ region: String, _ event: String) throws {
            try store.db.run("INSERT INTO app_events(device_id, import_id, kind, time_ms, raw) VALUES (\(device), 1, 'transition', \(time), '\(time) event {\"_type\":\"transition\",\"desc\":\"\(region)\",\"event\":\"\(event)\"}')")
        }
        func action(_ device: Int, _ time: Int, _ kind: String) throws {
            try store.db.run("INSERT INTO app_events(device_id, import_id, kind, time_ms, raw) VALUES (\(device), 1, '\(kind)', \(time), '{}')")
        }
        try transition(1, 100, "Home", "enter")
        try transition(1, 200, "Home", "leave")
        try transition(1, 300, "Work", "enter")
        try transition(2, 50, "Home", "enter")
        #expect(try store.openAppRecordMs(device: 1, beforeMs: 150) == 100, "Home entered, not yet left")
        #expect(try store.openAppRecordMs(device: 1, beforeMs: 250) == nil, "Home left again")
        #expect(try store.openAppRecordMs(device: 1, beforeMs: 1000) == 300, "Work entered")
        try transition(1, 400, "Work", "enter")
        #expect(try store.openAppRecordMs(device: 1, beforeMs: 1000) == 400, "the last enter")
        try action(2, 500, "paused_location_updates")
        try action(2, 600, "resumed_location_updates")
        try action(2, 700, "paused_location_updates")
        try action(2, 800, "exited_pause_region")
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 30) == nil)
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 550) == 50, "the region entered first")
        try transition(2, 60, "Home", "leave")
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 550) == 500, "paused, not resumed")
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 650) == nil, "resumed")
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 750) == 700)
        #expect(try store.openAppRecordMs(device: 2, beforeMs: 900) == nil, "ended by an exit of its region")
    }

    /// The places pass's read of each stay's wifi and mean accuracy span by span gives what the two reads over every
    /// span give: the right span's counts and mean, nil for a span with no accuracy, empty for one with no wifi.
    @Test func ssidCountsAndMeanAccuraciesReadSpanBySpan() throws {
        let (store, _) = try freshStore()
        let device = try store.deviceID(named: "phone", source: "overland", origin: .deviceID)
        let t0: Int64 = 1_700_000_000_000
        var points: [Point] = []
        for k in 0..<40 {
            let ssid: String? = k < 10 ? "Home" : k < 15 ? "" : k < 20 ? nil : k % 3 == 0 ? "Cafe" : "Shop"
            let accuracy: Double? = k >= 10 && k < 20 ? nil : Double(k % 7) * 4.5 + 0.1
            points.append(Point(deviceID: device, timeMs: t0 + Int64(k) * 1000, lat: 50, lon: 8, accuracyM: accuracy, ssid: ssid))
        }
        try store.transaction { _ = try store.insertPoints(points) }
        let spans: [(fromMs: Int64, throughMs: Int64)] = [
            (t0, t0 + 9_000), (t0 + 10_000, t0 + 19_000), (t0 + 20_000, t0 + 39_000), (t0 + 5_000, t0 + 24_000), (t0 + 50_000, t0 + 60_000),
        ]
        let both = try store.ssidCountsAndMeanAccuracies(device: device, spans: spans)
        #expect(both.ssids == (try store.ssidCounts(device: device, spans: spans)))
        #expect(both.accuracies == (try store.meanAccuracies(device: device, spans: spans)))
        #expect(both.ssids[0] == ["Home": 10])
        #expect(both.ssids[1].isEmpty && both.accuracies[1] == nil, "no wifi, no accuracy")
        #expect(both.ssids[2] == ["Cafe": 7, "Shop": 13])
        #expect(both.ssids[3] == ["Home": 5, "Cafe": 2, "Shop": 3])
        #expect(both.ssids[4].isEmpty && both.accuracies[4] == nil, "no points")
        #expect(both.accuracies[0] != both.accuracies[2])
    }

    /// Migration 7: imports made before it have no `first_ms`, so the bound on new points' times is unknown until
    /// every import after the last rebuilt one that added points has one; imports that added none do not count.
    @Test func migrationSevenBoundsNewPointsOnlyWhereEveryImportSays() throws {
        let path = try database(atVersion: 6) { db in
            try db.run("INSERT INTO imports(id, path, fingerprint, size, status, started_ms, points_new) VALUES (1, 'a', 'x', 1, 'done', 0, 10)")
        }
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Schema.currentVersion)
        let imports = ImportTable(store.db)
        #expect(try imports.firstNewPointMs(after: 0) == nil, "written before migration 7")
        #expect(try imports.firstNewPointMs(after: 1) == nil, "no import after the last one")
        for (id, added, first) in [(2, 5, "900"), (3, 0, "NULL"), (4, 7, "400")] {
            try store.db.run("INSERT INTO imports(id, path, fingerprint, size, status, started_ms, points_new, first_ms) VALUES (\(id), 'f', 'y\(id)', 1, 'done', 0, \(added), \(first))")
        }
        #expect(try imports.firstNewPointMs(after: 1) == 400)
        #expect(try imports.firstNewPointMs(after: 2) == 400)
        #expect(try imports.firstNewPointMs(after: 0) == nil)
    }

    /// A database file at schema `version` (its first migrations only), filled by `fill`; returns its path.
    func database(atVersion version: Int, _ fill: (Database) throws -> Void) throws -> String {
        let path = try temporaryDirectory() + "/v\(version).sqlite"
        let db = try Database(path: path)
        for m in Schema.migrations.prefix(version) { try db.execute(m) }
        try db.execute("PRAGMA user_version=\(version)")
        try fill(db)
        return path
    }

    @Test func createsSchemaInWALMode() throws {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        #expect(try store.schemaVersion() == Schema.currentVersion)
        #expect(try store.db.scalarText("PRAGMA journal_mode") == "wal")
        for table in ["devices", "imports", "points_hot", "rejects", "app_events", "stays", "visits", "places", "trips", "legs", "days"] {
            #expect(try store.db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", [.text(table)]) == 1, "table \(table)")
        }
        #expect(try store.db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type='view' AND name='points'") == 1)
    }

    /// `--db ~/Documents` (a folder): the error says it is a folder, not SQLite's bare "unable to open database file";
    /// for reading too, and nothing is written into the folder.
    @Test func aFolderAsTheDatabaseSaysItIsAFolder() throws {
        let dir = try temporaryDirectory()
        for open in [{ _ = try Store(path: dir) }, { _ = try Store(path: dir, readOnly: true) }] as [() throws -> Void] {
            do {
                try open()
                Issue.record("a folder opened as a database")
            } catch let error as DatabaseError {
                #expect(error.description.contains("\(dir): it is a folder, not a database file"), "\(error.description)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func reopeningKeepsDataAndVersion() throws {
        let dir = try temporaryDirectory()
        do {
            let store = try Store(path: dir + "/t.sqlite")
            try store.db.run("INSERT INTO devices(name, source, name_origin, created_ms) VALUES ('a', 'overland', 'data', 0)")
        }
        let again = try Store(path: dir + "/t.sqlite")
        #expect(try again.db.scalarInt("SELECT count(*) FROM devices") == 1)
    }

    @Test func refusesNewerSchemaWithoutTouchingIt() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/t.sqlite"
        do {
            let store = try Store(path: path)
            try store.db.execute("PRAGMA user_version=\(Schema.currentVersion + 5)")
        }
        let before = try FileSystem.read(path)
        #expect(throws: StoreError.self) { try Store(path: path) }
        let raw = try Database(path: path)
        #expect(try raw.scalarInt("PRAGMA user_version") == Int64(Schema.currentVersion + 5))
        #expect(try FileSystem.read(path) == before)
    }

    @Test func refusesForeignSQLiteFile() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/other.sqlite"
        do {
            let raw = try Database(path: path)
            try raw.execute("CREATE TABLE notes(x)")
        }
        #expect(throws: StoreError.self) { try Store(path: path) }
    }

    @Test func textWithEmbeddedNULRoundTrips() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(x TEXT)")
        try db.run("INSERT INTO t VALUES (?)", [.text("a\u{0}b&<\"'😀")])
        #expect(try db.scalarText("SELECT x FROM t") == "a\u{0}b&<\"'😀")
    }

    @Test func transactionRollsBackOnError() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    }
}

/// The connection's pool of compiled statements (``StatementPool``): a statement released is compiled once and
/// reused, but never while another holds it, never with the last one's bindings, and holding no read snapshot.
@Suite struct StatementPoolTests {
    @Test func aReleasedStatementIsReusedResetAndHoldsNoSnapshot() throws {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let db = store.db
        try db.execute("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT x FROM t ORDER BY x"
        var a: Statement? = try db.prepare(sql)
        #expect(try a!.step() && a!.int64(0) == 1)
        // Held by `a`: a second statement of the same SQL is another one, and runs on its own.
        let b = try db.prepare(sql)
        #expect(b.handle != a!.handle)
        var seen: [Int64] = []
        while try b.step() { seen.append(b.int64(0)) }
        #expect(seen == [1, 2, 3])
        // `a`, dropped after its first row, goes back to the pool reset: it reads no old snapshot, so another
        // connection's write can be checkpointed whole (a statement left mid-read would keep its reader open).
        let first = a!.handle
        a = nil
        let other = try Database(path: dir + "/t.sqlite", busyTimeoutMs: 0)
        try other.execute("INSERT INTO t VALUES (4)")
        #expect(try other.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)") == 0)
        let c = try db.prepare(sql)
        // The one `a` compiled and ran (a statement compiled afresh has run none; its address may be `a`'s again).
        #expect(c.handle == first && c.runs == 1)
        seen = []
        while try c.step() { seen.append(c.int64(0)) }
        #expect(seen == [1, 2, 3, 4])
        // The bindings of the last use are cleared.
        let bindSQL = "SELECT ?1 IS NULL"
        var bound: Statement? = try db.prepare(bindSQL)
        try bound!.bind([.integer(5)])
        #expect(try bound!.step() && bound!.int64(0) == 0)
        let boundHandle = bound!.handle
        bound = nil
        let again = try db.prepare(bindSQL)
        #expect(again.handle == boundHandle && again.runs == 1)
        #expect(try again.step() && again.int64(0) == 1)
    }
}
