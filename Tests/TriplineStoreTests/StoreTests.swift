import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

@Suite struct StoreTests {
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
