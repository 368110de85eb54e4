import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// The connection the reports and `tripline query` run on (``QueryConnection``): a second connection, read-only,
/// restricted, that never hands out a connection that writes.
@Suite struct QueryConnectionTests {
    /// A store with one device and three points, and its query connection.
    func opened() throws -> (Store, QueryConnection) {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let device = try store.deviceID(named: "phone", source: "overland", origin: .deviceID)
        try store.transaction {
            try store.insertPoints((0..<3).map { Point(deviceID: device, timeMs: 1_700_000_000_000 + Int64($0) * 1000, lat: 50, lon: 8) })
        }
        return (store, try store.queryConnection())
    }

    /// Everything a statement of the connection returns, as text, row by row.
    func rows(_ connection: QueryConnection, _ sql: String) throws -> [[String]] {
        var out: [[String]] = []
        try connection.forEachStatement(in: sql) { statement, _ in
            while try statement.step() {
                out.append((0..<statement.columnCount).map { statement.text($0) ?? "NULL" })
            }
        }
        return out
    }

    @Test func itIsASecondConnectionOpenedReadOnly() throws {
        let (store, connection) = try opened()
        #expect(connection.db !== store.db)
        // SQLite itself refuses writes on it, whatever the authorizer allows.
        #expect(connection.db.isReadOnly)
        #expect(!store.db.isReadOnly)
        #expect(connection.db.untrusted)
    }

    @Test func itReadsAndKeepsTheQuerysOwnTemporaryTables() throws {
        let (_, connection) = try opened()
        #expect(try rows(connection, "SELECT count(*) FROM points") == [["3"]])
        #expect(try rows(connection, "CREATE TEMP TABLE t AS SELECT name FROM devices; SELECT name FROM t") == [["phone"]])
        try connection.define("CREATE TEMP VIEW v AS SELECT count(*) AS n FROM points")
        #expect(try rows(connection, "SELECT n FROM v") == [["3"]])
    }

    @Test func itRefusesEveryWriteToTheFile() throws {
        let (store, connection) = try opened()
        let writes = [
            "DELETE FROM points_hot", "UPDATE devices SET name = 'x'", "CREATE TABLE main.x(y)", "PRAGMA user_version = 99", "VACUUM",
            "ATTACH ':memory:' AS other",
        ]
        for sql in writes {
            #expect(throws: DatabaseError.self, "\(sql)") { _ = try rows(connection, sql) }
        }
        #expect(throws: DatabaseError.self) { try connection.define("DELETE FROM points_hot") }
        #expect(try store.pointCount() == 3)
        #expect(try store.schemaVersion() == Schema.currentVersion)
    }

    @Test func oneReadTransactionIsOneSnapshot() throws {
        let (store, connection) = try opened()
        let device = try store.deviceID(named: "phone", source: "overland", origin: .deviceID)
        try connection.readTransaction {
            #expect(try rows(connection, "SELECT count(*) FROM points") == [["3"]])
            try store.transaction { try store.insertPoints([Point(deviceID: device, timeMs: 1_800_000_000_000, lat: 50, lon: 8)]) }
            #expect(try rows(connection, "SELECT count(*) FROM points") == [["3"]])
        }
        #expect(try rows(connection, "SELECT count(*) FROM points") == [["4"]])
    }

    @Test func registeredFunctionsAreCalled() throws {
        let (_, connection) = try opened()
        try connection.createFunction("twice", argumentCount: 1) { values in
            if case .integer(let v) = values[0] { return .integer(2 * v) }
            return .null
        }
        #expect(try rows(connection, "SELECT twice(21)") == [["42"]])
    }
}
