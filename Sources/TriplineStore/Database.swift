import CSQLite



/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before `bind` returns.
let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Binds `count` UTF-8 bytes as text with their explicit length (an embedded NUL does not cut the string).
@inline(__always)
func bindTextBytes(_ statement: OpaquePointer, _ index: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let base, count > 0 else { return sqlite3_bind_text(statement, index, "", 0, SQLITE_TRANSIENT) }
    return sqlite3_bind_text(statement, index, base.assumingMemoryBound(to: CChar.self), Int32(count), SQLITE_TRANSIENT)
}

/// An error reported by SQLite, with the extended result code, SQLite's message and the SQL that failed.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`sqlite3_extended_errcode`).
    public var code: Int32
    public var message: String
    public var sql: String?

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let hint { text += "; " + hint }
        if let sql { text += " (while running: \(sql.prefix(200)))" }
        return text
    }

    /// What the user can do about the common environmental failures (a full disk, a read-only file).
    public var hint: String? {
        switch primaryCode {
        case SQLITE_FULL: return "the disk holding the database is full: free some space and run the command again (the unfinished transaction was rolled back)"
        case SQLITE_READONLY: return "the database file or its folder is not writable by this user"
        case SQLITE_IOERR: return "the operating system reported an input/output error on the database file"
        default: return nil
        }
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …).
    public var primaryCode: Int32 { code & 0xFF }

    /// Another connection holds the lock (`SQLITE_BUSY`).
    public var isBusy: Bool { primaryCode == SQLITE_BUSY }

    /// The database or its disk is full (`SQLITE_FULL`): for the tests that fill it, which need no SQLite constant.
    var isFull: Bool { primaryCode == SQLITE_FULL }
}

/// A value that can be bound to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// An integer, or NULL.
    public static func optional(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    /// A real, or NULL (NaN is NULL too, as SQLite stores it).
    public static func optional(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
    /// A text, or NULL.
    public static func optional(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
}

/// The storage class of a column's value in the current row (SQLite's fundamental datatypes).
public enum ColumnType: Sendable, Equatable {
    case integer, real, text, blob, null

    /// The type of SQLite's `sqlite3_column_type` code.
    init(sqliteCode code: Int32) {
        switch code {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .real
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }
}

/// The tables written on a connection, by writer (``Store/recordTableWrites()``): tests check with it that each table
/// of the rebuild is written by the one pass that owns it.
package final class TableWriteLog {
    /// The writer between the passes: the rebuild runner (`pass_runs`, `rebuild_state`).
    package static let runner = "rebuild"
    /// Who writes now; the rebuild runner sets each pass's name while it runs.
    package var writer = TableWriteLog.runner
    /// Each table written (of the main database), with the writers that compiled an `INSERT`, `UPDATE` or `DELETE` of it.
    package private(set) var writers: [String: Set<String>] = [:]

    func note(_ table: String) { writers[table, default: []].insert(writer) }
}

/// What ``Database/restrictToReading()``'s authorizer saw while a statement was prepared.
final class AuthorizerState {
    /// The statement writes the query's own temporary tables (allowed: they live in memory).
    var tempWrite = false
    /// The statement is `BEGIN`, `COMMIT`/`END`, `ROLLBACK`, `SAVEPOINT` or `RELEASE`.
    var transaction = false
}

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
    public fileprivate(set) var untrusted = false
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
            throw DatabaseError(code: rc, message: "cannot open \(path): \(message)", sql: nil)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

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

    /// Prepares a statement for repeated use.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
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

/// A prepared statement. Owns its `sqlite3_stmt` and finalizes it on `deinit`.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(rc, sql: sql)
        }
        self.database = database
        self.handle = stmt
        self.sql = sql
    }

    /// Wraps a statement prepared elsewhere (for example by a multi-statement script walker).
    init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Steps once. Returns true when a row is available, false when the statement is done.
    @inline(__always)
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, sql: sql)
        }
    }

    /// Resets the statement and clears its bindings, ready to bind and run again.
    @inline(__always)
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds the values to parameters 1, 2, … after a reset.
    public func bind(_ values: [SQLValue]) throws {
        reset()
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    public func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(var s):
            rc = s.withUTF8 { bindTextBytes(handle, index, UnsafeRawPointer($0.baseAddress), $0.count) }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), SQLITE_TRANSIENT)
            }
        }
        if rc != SQLITE_OK { throw database.error(rc, sql: sql) }
    }

    /// The 1-based index of a named parameter such as `:from`, or 0 when the statement has none of that name.
    public func parameterIndex(_ name: String) -> Int32 {
        sqlite3_bind_parameter_index(handle, name)
    }

    /// The number of parameters the statement takes.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// The name of parameter `index` (1-based), such as `:from`, or nil for a positional `?`.
    public func parameterName(_ index: Int32) -> String? {
        sqlite3_bind_parameter_name(handle, index).map { String(cString: $0) }
    }

    // MARK: Fast typed binds for hot loops

    @inline(__always) public func bindInt(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inline(__always) public func bindDouble(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inline(__always) public func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    @inline(__always) public func bindDouble(_ value: Double?, at index: Int32) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    @inline(__always) public func bindInt(_ value: Int64?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    @inline(__always) public func bindText(_ value: String?, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        _ = value.withUTF8 { bindTextBytes(handle, index, UnsafeRawPointer($0.baseAddress), $0.count) }
    }

    /// Binds raw UTF-8 bytes as text, without building a `String`.
    @inline(__always) public func bindText(bytes: UnsafeRawBufferPointer, at index: Int32) {
        _ = bindTextBytes(handle, index, bytes.baseAddress, bytes.count)
    }

    // MARK: Reading columns

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func columnName(_ index: Int32) -> String {
        String(cString: sqlite3_column_name(handle, index))
    }

    /// The storage class of the column's value in the current row.
    @inline(__always) public func columnType(_ index: Int32) -> ColumnType {
        ColumnType(sqliteCode: sqlite3_column_type(handle, index))
    }

    /// SQLite's raw type code (`SQLITE_INTEGER` … `SQLITE_NULL`). Kept only for the passes' one caller until they
    /// read through the store's typed reads (issue 24, next round); compare with ``ColumnType`` instead.
    @available(*, deprecated, message: "use columnType(_:) -> ColumnType")
    @inline(__always) public func columnType(_ index: Int32) -> Int32 {
        sqlite3_column_type(handle, index)
    }

    @inline(__always) public func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    @inline(__always) public func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    @inline(__always) public func int(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    @inline(__always) public func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    @inline(__always) public func optionalDouble(_ index: Int32) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(handle, index)
    }

    @inline(__always) public func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : sqlite3_column_int64(handle, index)
    }

    /// The column as text, read with its byte count (never cut at an embedded NUL). Nil when NULL.
    public func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column as raw bytes, valid until the next step, reset or column call.
    public func withTextBytes<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let pointer = sqlite3_column_text(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }

    /// The column as a ``SQLValue``.
    public func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(text(index) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}

// MARK: Scripts and SQL functions (used by reports; additive)

/// The Swift closure behind a SQL function registered with ``Database/createFunction(_:argumentCount:deterministic:_:)``.
final class SQLFunctionBox {
    let body: ([SQLValue]) -> SQLValue
    init(_ body: @escaping ([SQLValue]) -> SQLValue) { self.body = body }
}

extension Database {
    /// Prepares and hands over each statement of a multi-statement script in turn, walking it with
    /// `sqlite3_prepare_v2`'s tail pointer (so each statement is prepared only after the previous one ran, and
    /// parameters are bound per statement, never interpolated). Empty statements and comments are skipped.
    /// - Parameter body: called with the statement and the 1-based line of the script it starts on.
    /// - Throws: ``DatabaseError`` whose message names the line of the statement that failed to prepare.
    public func forEachStatement(in script: String, _ body: (Statement, Int) throws -> Void) throws {
        let bytes = Array(script.utf8CString)
        try bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            var tail: UnsafePointer<CChar>? = base
            var line = 1
            var lineCountedTo = base
            while let current = tail, current.pointee != 0 {
                // The line the statement starts on: skip leading blanks, count newlines up to there.
                var start = current
                while start.pointee == 0x20 || start.pointee == 0x0A || start.pointee == 0x0D || start.pointee == 0x09 {
                    start += 1
                }
                while lineCountedTo < start {
                    if lineCountedTo.pointee == 0x0A { line += 1 }
                    lineCountedTo += 1
                }
                var statement: OpaquePointer?
                var next: UnsafePointer<CChar>?
                authorizerState.tempWrite = false
                authorizerState.transaction = false
                let rc = sqlite3_prepare_v2(handle, current, -1, &statement, &next)
                guard rc == SQLITE_OK else {
                    var failure = error(rc, sql: nil)
                    failure.message += " (in the statement starting on line \(line))"
                    throw failure
                }
                tail = next
                guard let statement else { continue }  // only blanks or comments
                let count = (next ?? current) - current
                let text = String(decoding: UnsafeRawBufferPointer(start: current, count: count), as: UTF8.self)
                // A statement that would write anything but the query's own temporary tables (VACUUM among them,
                // which asks the authorizer nothing) is refused before it runs.
                if untrusted && sqlite3_stmt_readonly(statement) == 0 && !authorizerState.tempWrite {
                    sqlite3_finalize(statement)
                    throw DatabaseError(code: SQLITE_AUTH, message: "not authorized: only statements that read are allowed (VACUUM, INSERT, UPDATE, DELETE, CREATE and the like are refused) (in the statement starting on line \(line))", sql: text)
                }
                // The query's own BEGIN … COMMIT: it already runs in one read snapshot (a nested BEGIN would fail),
                // so its transaction statements are passed over.
                if untrusted && authorizerState.transaction {
                    sqlite3_finalize(statement)
                    continue
                }
                try body(Statement(database: self, handle: statement, sql: text), line)
            }
        }
    }

    /// Makes this connection safe for SQL written by somebody else (`tripline query FILE`):
    /// - `SQLITE_DBCONFIG_DEFENSIVE` on (no `writable_schema`, no raw page writes, no shadow-table writes),
    ///   `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER` off (the two-argument `fts3_tokenizer`, which takes a pointer, is
    ///   refused), extension loading off. `TRUSTED_SCHEMA` stays on: the schema is Tripline's own (its `points` view
    ///   calls `json_extract`, which SQLite refuses in views of an untrusted schema), and the SQL that is not
    ///   trusted is the query file, which the authorizer below checks;
    /// - an authorizer that refuses `ATTACH`, `DETACH`, every write and schema change outside the query's own
    ///   `TEMP` tables, `PRAGMA`s other than a few that only read, and the functions `fts3_tokenizer`,
    ///   `load_extension`, `readfile` and `writefile`;
    /// - statements that would write anything else (`VACUUM INTO` among them) are refused before they run.
    /// Notes in `log` the table of every `INSERT`, `UPDATE` and `DELETE` compiled from now on (SQLite's authorizer, which
    /// sees each statement as it is prepared; it allows everything). Not for a connection ``restrictToReading()`` has
    /// restricted.
    func watchWrites(_ log: TableWriteLog) {
        sqlite3_set_authorizer(handle, { box, action, table, _, database, _ in
            guard action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE, let table,
                  database.map({ String(cString: $0) == "main" }) ?? false else { return SQLITE_OK }
            let name = String(cString: table)
            if !name.hasPrefix("sqlite_") { Unmanaged<TableWriteLog>.fromOpaque(box!).takeUnretainedValue().note(name) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(log).toOpaque())
    }

    public func restrictToReading() throws {
        for (op, on) in [(SQLITE_DBCONFIG_DEFENSIVE, 1), (SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0),
                         (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0)] {
            let rc = tripline_sqlite3_db_config_flag(handle, Int32(op), Int32(on))
            guard rc == SQLITE_OK else { throw error(rc, sql: "sqlite3_db_config") }
        }
        sqlite3_set_authorizer(handle, { box, action, arg1, arg2, database, _ in
            let seen = Unmanaged<AuthorizerState>.fromOpaque(box!).takeUnretainedValue()
            let inTemp = database.map { String(cString: $0) == "temp" } ?? false
            switch action {
            case SQLITE_FUNCTION:
                let name = arg2.map { String(cString: $0).lowercased() } ?? ""
                return ["fts3_tokenizer", "load_extension", "readfile", "writefile", "edit"].contains(name) ? SQLITE_DENY : SQLITE_OK
            case SQLITE_PRAGMA:
                // Pragmas that only describe: those about a table or index take its name, the others no value.
                let name = arg1.map { String(cString: $0).lowercased() } ?? ""
                let aboutObject: Set<String> = ["table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"]
                let values: Set<String> = ["user_version", "schema_version", "page_size", "page_count", "database_list", "compile_options", "table_list"]
                return aboutObject.contains(name) || (values.contains(name) && arg2 == nil) ? SQLITE_OK : SQLITE_DENY
            case SQLITE_ATTACH, SQLITE_DETACH, SQLITE_ALTER_TABLE, SQLITE_REINDEX, SQLITE_ANALYZE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE:
                return SQLITE_DENY
            case SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_VIEW, SQLITE_DROP_TEMP_TABLE,
                 SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_VIEW:
                seen.tempWrite = true  // scratch tables of the query itself, in memory
                return SQLITE_OK
            case SQLITE_CREATE_TEMP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER, SQLITE_CREATE_TABLE, SQLITE_CREATE_INDEX, SQLITE_CREATE_TRIGGER,
                 SQLITE_CREATE_VIEW, SQLITE_DROP_TABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW:
                return SQLITE_DENY
            case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
                let table = arg1.map { String(cString: $0) } ?? ""
                if inTemp || table == "sqlite_temp_master" {
                    seen.tempWrite = true
                    return SQLITE_OK
                }
                // SQLite itself asks this for sqlite_master while it reads the schema; any other write is refused.
                return action == SQLITE_UPDATE && table == "sqlite_master" ? SQLITE_OK : SQLITE_DENY
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
                seen.transaction = true
                return SQLITE_OK
            default: return SQLITE_OK  // SELECT, READ
            }
        }, Unmanaged.passUnretained(authorizerState).toOpaque())
        untrusted = true
    }

    /// Registers a SQL function implemented in Swift on this connection.
    /// - Parameters:
    ///   - argumentCount: the number of arguments (-1 for any).
    ///   - deterministic: the same arguments always give the same result (lets SQLite use it in indexes).
    public func createFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true, _ body: @escaping ([SQLValue]) -> SQLValue
    ) throws {
        let box = Unmanaged.passRetained(SQLFunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let rc = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, box,
            { context, argc, argv in
                let box = Unmanaged<SQLFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                var arguments: [SQLValue] = []
                arguments.reserveCapacity(Int(argc))
                for index in 0..<Int(argc) {
                    let value = argv![index]
                    switch sqlite3_value_type(value) {
                    case SQLITE_INTEGER: arguments.append(.integer(sqlite3_value_int64(value)))
                    case SQLITE_FLOAT: arguments.append(.real(sqlite3_value_double(value)))
                    case SQLITE_TEXT:
                        let count = Int(sqlite3_value_bytes(value))
                        let text = sqlite3_value_text(value).map {
                            String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self)
                        }
                        arguments.append(.text(text ?? ""))
                    case SQLITE_BLOB:
                        let count = Int(sqlite3_value_bytes(value))
                        let bytes = sqlite3_value_blob(value).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) }
                        arguments.append(.blob(bytes ?? []))
                    default: arguments.append(.null)
                    }
                }
                switch box.body(arguments) {
                case .null: sqlite3_result_null(context)
                case .integer(let v): sqlite3_result_int64(context, v)
                case .real(let v): sqlite3_result_double(context, v)
                case .text(var s):
                    s.withUTF8 {
                        sqlite3_result_text(
                            context, UnsafeRawPointer($0.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                            Int32($0.count), SQLITE_TRANSIENT)
                    }
                case .blob(let bytes):
                    bytes.withUnsafeBytes {
                        sqlite3_result_blob(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), SQLITE_TRANSIENT)
                    }
                }
            }, nil, nil,
            { pointer in
                if let pointer { Unmanaged<SQLFunctionBox>.fromOpaque(pointer).release() }
            })
        // On failure SQLite itself calls the destructor above, which releases the box.
        if rc != SQLITE_OK { throw error(rc, sql: nil) }
    }
}

/// Text bound for one step without SQLite copying it: each value is copied into this buffer and bound with
/// `SQLITE_STATIC`, which spares SQLite a malloc, a copy and a free per value (bulk inserts bind several short texts a
/// row). Call ``clear()`` before binding each row's texts; every text parameter bound through this buffer must then
/// be bound again for the row (or the statement reset with ``Statement/reset()``, which clears bindings) before the
/// next step, since the buffer is reused. A value that does not fit is bound with a copy (`SQLITE_TRANSIENT`).
/// Used by one thread at a time, like its statement.
public final class RowText {
    /// The buffer and, in its first word, how many bytes of it the current row uses (kept behind a pointer so the
    /// hot path pays no run-time exclusivity checks on class properties).
    private let storage: UnsafeMutableRawPointer
    private let capacity: Int

    public init(capacity: Int = 4096) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity + 8, alignment: 8)
        storage.storeBytes(of: 0, as: Int.self)
    }

    deinit { storage.deallocate() }

    /// Starts a new row: the previous row's texts may be overwritten from now on.
    @inline(__always) public func clear() { storage.storeBytes(of: 0, as: Int.self) }

    /// Binds `value` (NULL when nil) to parameter `index` of `statement` for the next step.
    @inline(__always) public func bind(_ value: String?, to statement: Statement, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(statement.handle, index)
            return
        }
        value.withUTF8 { bytes in bind(bytes: UnsafeRawBufferPointer(bytes), to: statement, at: index) }
    }

    /// Binds UTF-8 `bytes` as text to parameter `index` of `s` for the next step; returns SQLite's result code.
    @inline(__always) func bindChecked(bytes: UnsafeRawBufferPointer, to s: OpaquePointer, at index: Int32) -> Int32 {
        let used = storage.load(as: Int.self)
        let count = bytes.count
        guard count > 0, used + count <= capacity, let source = bytes.baseAddress else {
            return bindTextBytes(s, index, bytes.baseAddress, count)
        }
        let target = storage + 8 + used
        target.copyMemory(from: source, byteCount: count)
        storage.storeBytes(of: used + count, as: Int.self)
        return sqlite3_bind_text(s, index, target.assumingMemoryBound(to: CChar.self), Int32(count), nil)  // nil = SQLITE_STATIC
    }

    /// Binds UTF-8 `bytes` as text to parameter `index` of `statement` for the next step.
    @inline(__always) public func bind(bytes: UnsafeRawBufferPointer, to statement: Statement, at index: Int32) {
        let used = storage.load(as: Int.self)
        let count = bytes.count
        guard count > 0, used + count <= capacity, let source = bytes.baseAddress else {
            _ = bindTextBytes(statement.handle, index, bytes.baseAddress, count)
            return
        }
        let target = storage + 8 + used
        target.copyMemory(from: source, byteCount: count)
        storage.storeBytes(of: used + count, as: Int.self)
        sqlite3_bind_text(statement.handle, index, target.assumingMemoryBound(to: CChar.self), Int32(count), nil)  // nil destructor = SQLITE_STATIC
    }
}
