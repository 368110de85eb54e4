#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CSQLite
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
    ///
    /// Ctrl-C (SIGINT) stops it cleanly: the user's SQL may run for ever (`WITH RECURSIVE` without an end), so while
    /// `body` runs, SIGINT only sets a flag that a progress handler (every 10,000 SQLite instructions) turns into
    /// SQLite's own interrupt; the statement ends with `SQLITE_INTERRUPT`, the read transaction is rolled back and
    /// ``QueryInterrupted`` is thrown (the connection only reads, so nothing can be damaged). A second Ctrl-C acts as
    /// before (the previous handler is put back by the first). No time limit: a long query is the user's to stop.
    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        QueryInterrupt.flag = 0
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            QueryInterrupt.flag = 1
            _ = sigaction(SIGINT, &QueryInterrupt.previous, nil)  // async-signal-safe; a second Ctrl-C acts as before
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        // A SIGINT the parent set to be ignored (nohup, a background job) stays ignored.
        var current = sigaction()
        sigaction(SIGINT, nil, &current)
        let ignored = current.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) == 1 } ?? false  // SIG_IGN
        if !ignored { sigaction(SIGINT, &action, &QueryInterrupt.previous) }
        sqlite3_progress_handler(db.handle, 10_000, { _ in
            if QueryInterrupt.flag != 0 { return 1 }
            PausePoint.reach("query.running")  // a statement is running inside SQLite (tests send Ctrl-C here)
            return QueryInterrupt.flag != 0 ? 1 : 0
        }, nil)
        defer {
            sqlite3_progress_handler(db.handle, 0, nil, nil)
            if !ignored { sigaction(SIGINT, &QueryInterrupt.previous, nil) }
        }
        do {
            let result = try db.readTransaction(body)
            if QueryInterrupt.flag != 0 { throw QueryInterrupted() }
            return result
        } catch {
            if QueryInterrupt.flag != 0 { throw QueryInterrupted() }
            throw error
        }
    }

    /// Prepares and hands over each statement of `script` in turn (see ``Database/forEachStatement(in:_:)``); a
    /// statement that would write anything but the query's own `TEMP` tables is refused before it runs.
    /// After Ctrl-C no further statement starts (a short one would finish before the progress handler is called).
    public func forEachStatement(in script: String, _ body: (Statement, Int) throws -> Void) throws {
        try db.forEachStatement(in: script) { statement, line in
            if QueryInterrupt.flag != 0 { throw QueryInterrupted() }
            try body(statement, line)
        }
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

/// The query was stopped by Ctrl-C (SIGINT) while it ran (``QueryConnection/readTransaction(_:)``).
public struct QueryInterrupted: Error, CustomStringConvertible, Sendable {
    public var description: String { "interrupted (Ctrl-C): the query was stopped; the database was only read, nothing was changed" }
}

/// What the SIGINT handler and the progress handler share while a query runs.
enum QueryInterrupt {
    /// Set by the SIGINT handler; read by the progress handler.
    nonisolated(unsafe) static var flag: sig_atomic_t = 0
    /// The SIGINT action before the query's, put back by the first Ctrl-C and when the query ends.
    nonisolated(unsafe) static var previous = sigaction()
}
