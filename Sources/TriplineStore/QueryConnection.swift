import TriplineCore

/// The connection for SQL that is not Tripline's own: `tripline query FILE` and the `Queries/` reports.
///
/// It is a second connection to the store's file, opened read-only (`SQLITE_OPEN_READONLY`, or as an immutable file
/// when the store had to be) and restricted at once (``Database/restrictToReading()``: defensive settings, and an
/// authorizer that refuses `ATTACH`, pragmas that set, and every write outside the query's own `TEMP` tables). It
/// offers only what a report needs: walking a script statement by statement (each ``Statement`` to bind, step and
/// read columns), registering the SQL functions the reports call, and one read snapshot. It never hands out its
/// ``Database``, so nothing that runs a report can reach a connection that writes.
///
/// Not `PRAGMA query_only`: that refuses writes to the connection's `temp` schema too, which the reports' own
/// `visit_days` view and a user's scratch `CREATE TEMP TABLE` need (SQLite answers "attempt to write a readonly
/// database"); the read-only open already refuses every write to the file itself.
public final class QueryConnection {
    let db: Database

    /// The file it reads.
    public var path: String { db.path }

    /// Opens `path` read-only and restricts the connection. `immutable` opens it as an immutable file (no locks,
    /// no `-shm`), as ``Store`` does on a read-only file system.
    init(path: String, immutable: Bool) throws {
        db = try Database(path: path, readOnly: true, create: false, immutable: immutable)
        try db.execute("PRAGMA cache_size=-16384")  // as the store's own connection; before the authorizer refuses pragmas
        try db.restrictToReading()
    }

    /// Runs `body` inside one read snapshot: every statement of a report reads the same state of the file, even
    /// while a rebuild commits.
    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try db.readTransaction(body)
    }

    /// Prepares and hands over each statement of `script` in turn (see ``Database/forEachStatement(in:_:)``); a
    /// statement that would write anything but the query's own `TEMP` tables is refused before it runs.
    public func forEachStatement(in script: String, _ body: (Statement, Int) throws -> Void) throws {
        try db.forEachStatement(in: script, body)
    }

    /// Runs a statement of Tripline's own that returns no rows, through the same checks as a query's (so it may
    /// define a `TEMP` view or table, nothing else).
    public func define(_ sql: String) throws {
        try db.forEachStatement(in: sql) { statement, _ in
            while try statement.step() {}
        }
    }

    /// Registers a SQL function implemented in Swift (see ``Database/createFunction(_:argumentCount:deterministic:_:)``).
    public func createFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true, _ body: @escaping ([SQLValue]) -> SQLValue
    ) throws {
        try db.createFunction(name, argumentCount: argumentCount, deterministic: deterministic, body)
    }
}

extension Store {
    /// A new read-only, restricted connection to this store's file, for the user's own SQL and the reports
    /// (``QueryConnection``). The file must be a file: an in-memory store has nothing a second connection could open.
    public func queryConnection() throws -> QueryConnection {
        try QueryConnection(path: path, immutable: db.immutable)
    }
}
