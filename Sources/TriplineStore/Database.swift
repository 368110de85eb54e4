import CSQLite
import TriplineCore

/// One connection to a SQLite database file.
///
/// A thin, honest wrapper over the sqlite3 C API in the manner of SwiftPM's `Basics/SQLite.swift`:
/// statements are prepared once and reused; every failing call throws a ``DatabaseError``.
/// A connection is used by one thread at a time.
public final class Database {
    public let path: String
    let handle: OpaquePointer
    /// Opened as an immutable file (no locks, no `-shm`): a second connection to the file must be opened so too.
    let immutable: Bool
    /// Set by ``restrictToReading()``: ``forEachStatement(in:_:)`` refuses statements that would write.
    public internal(set) var untrusted = false
    /// What the authorizer saw while the last statement was prepared.
    let authorizerState = AuthorizerState()

    /// Opens (or creates) the database at `path`.
    /// - Parameters:
    ///   - readOnly: open with `SQLITE_OPEN_READONLY`; the file must exist.
    ///   - busyTimeoutMs: how long a write waits for another process's lock before failing with `SQLITE_BUSY`.
    ///   - immutable: open read-only as an immutable file (`file:…?immutable=1`): no locks, no `-shm`, for a database
    ///     on a read-only file system or in a folder this user may not write (nothing may write it meanwhile).
    public init(path: String, readOnly: Bool = false, create: Bool = true, busyTimeoutMs: Int32 = 60_000, immutable: Bool = false) throws {
        Self.configureOnce
        self.path = path
        self.immutable = immutable
        var db: OpaquePointer?
        var flags = readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if !readOnly && !immutable && create { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        // Always a URI of Tripline's own making, with the path escaped (``fileURI(_:)``): SQLite built with
        // SQLITE_USE_URI (Debian's is) would otherwise read `--db 'file:x?mode=memory'` as a URI (an in-memory
        // database, another VFS, no locking). The path is a file name, whatever characters it holds; only the
        // library's own `":memory:"` (tests) stays SQLite's in-memory database (the CLI's `--db :memory:` is a file).
        flags |= SQLITE_OPEN_URI
        var target = path == ":memory:" ? path : Database.fileURI(path)
        if immutable { target += "?mode=ro&immutable=1" }
        let rc = sqlite3_open_v2(target, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            // SQLite says only "unable to open database file" for a folder (`--db ~/Documents`): say what it is.
            if path != ":memory:", FileSystem.kind(path) == .directory {
                throw DatabaseError(code: rc, message: "cannot open \(path): it is a folder, not a database file", sql: nil)
            }
            // Nor does it say that the folder to create the file in does not exist (`--db ~/no/such/folder/t.sqlite`).
            let folder = FileSystem.directoryName(path)
            if path != ":memory:", create, !readOnly, !immutable, FileSystem.kind(folder) != .directory {
                throw DatabaseError(code: rc, message: "cannot create \(path): the folder \(folder) does not exist", sql: nil)
            }
            throw DatabaseError(code: rc, message: "cannot open \(path): \(message)", sql: nil)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
    }

    deinit {
        statementPool.close()
        sqlite3_close_v2(handle)
    }

    /// Compiled statements no ``Statement`` holds, for the next ``prepare(_:)`` of the same SQL.
    let statementPool = StatementPool()

    /// Process-wide SQLite settings, applied once before the first connection opens (SQLite refuses them later):
    /// memory statistics off, so that malloc and free inside SQLite take no global mutex (measured: ~8 % of the
    /// CPU time of an insert). Nothing in Tripline reads `sqlite3_memory_used`.
    private static let configureOnce: Void = {
        _ = tripline_sqlite3_disable_memstatus()
    }()

    func error(_ rc: Int32, sql: String? = nil) -> DatabaseError {
        DatabaseError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that take no parameters and return no rows of interest.
    public func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            throw DatabaseError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Prepares a statement for repeated use: one compiled before for the same SQL and no longer held is reused
    /// (``StatementPool``). Not on a connection restricted to reading, whose authorizer checks each statement as it is
    /// compiled.
    public func prepare(_ sql: String) throws -> Statement {
        if untrusted { return try Statement(database: self, sql: sql) }
        if let handle = statementPool.take(sql) { return Statement(database: self, pooled: handle, sql: sql, pool: statementPool) }
        return try Statement(database: self, sql: sql, pool: statementPool)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back and rethrows the first error.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        return try committing(body)
    }

    /// Runs `body` in the transaction just begun, then commits; rolls back and rethrows the first error.
    private func committing<T>(_ body: () throws -> T) throws -> T {
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")  // the original error is the one worth reporting
            throw error
        }
    }

    /// Runs `body` inside one read transaction (`BEGIN DEFERRED … COMMIT`): every statement in it reads the same
    /// snapshot of the file, even while another process commits (WAL mode), so a command's reads never mix two
    /// rebuilds. Inside a transaction already, runs `body` in it.
    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 { return try body() }
        try execute("BEGIN DEFERRED")
        // The snapshot starts at the first read; take it now, so it is the one of the transaction's start.
        _ = try scalarInt("SELECT count(*) FROM sqlite_master")
        return try committing(body)
    }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    public func setBusyTimeout(ms: Int32) {
        sqlite3_busy_timeout(handle, ms)
    }

    /// Whether SQLite opened the file read-only (asked for, or because the file may not be written).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// The rowid of the last successful `INSERT` on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs a query and returns the first column of the first row as an integer, or nil when there is no row or it is NULL.
    public func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// Runs a query and returns the first column of the first row as text.
    public func scalarText(_ sql: String, _ values: [SQLValue] = []) throws -> String? {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs one statement with the given values, ignoring any rows.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
    }
}
