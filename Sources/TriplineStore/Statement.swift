import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before `bind` returns.
let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Binds `count` UTF-8 bytes as text with their explicit length (an embedded NUL does not cut the string).
@inline(__always)
func bindTextBytes(_ statement: OpaquePointer, _ index: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int32 {
    guard let base, count > 0 else { return sqlite3_bind_text(statement, index, "", 0, SQLITE_TRANSIENT) }
    return sqlite3_bind_text(statement, index, base.assumingMemoryBound(to: CChar.self), Int32(count), SQLITE_TRANSIENT)
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

/// A prepared statement. Owns its `sqlite3_stmt` while it lives; on `deinit` it is reset and handed back to its
/// connection's ``StatementPool`` for the next ``Database/prepare(_:)`` of the same SQL, else finalized.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    public let sql: String
    /// Where the compiled statement goes when this one ends (nil: it is finalized).
    let pool: StatementPool?

    init(database: Database, sql: String, pool: StatementPool? = nil) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(rc, sql: sql)
        }
        self.database = database
        self.handle = stmt
        self.sql = sql
        self.pool = pool
    }

    /// A statement compiled earlier, taken out of its connection's pool (reset, no bindings).
    init(database: Database, pooled handle: OpaquePointer, sql: String, pool: StatementPool) {
        self.database = database
        self.handle = handle
        self.sql = sql
        self.pool = pool
    }

    /// Wraps a statement prepared elsewhere (for example by a multi-statement script walker).
    init(database: Database, handle: OpaquePointer, sql: String) {
        self.database = database
        self.handle = handle
        self.sql = sql
        self.pool = nil
    }

    /// How many times the compiled statement has run (`SQLITE_STMTSTATUS_RUN`): more than this ``Statement`` ran it
    /// when it came from the pool.
    var runs: Int32 { sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_RUN, 0) }

    deinit {
        if let pool, pool.keep(handle, sql: sql) { return }
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

/// The compiled statements of one connection that no ``Statement`` holds, one per SQL text: preparing a statement
/// costs more than running most of the rebuild's (measured: 58 % of the CPU time of rebuilding 1,000 devices of one
/// fix each was SQLite compiling the same few hundred statements again per device). A statement taken out is no
/// longer here, so two live ``Statement``s never share one; one handed back is reset with its bindings cleared, so it
/// holds no read snapshot or lock, exactly as a finalized one. At most ``limit`` are kept (SQL made up at run time,
/// such as a list of `?`s, does not grow it without bound); closing the connection finalizes them.
final class StatementPool {
    private var handles: [Key: OpaquePointer] = [:]
    private var closed = false
    static let limit = 512

    /// The compiled statement for `sql`, removed from the pool; nil when none is here.
    func take(_ sql: String) -> OpaquePointer? {
        closed ? nil : handles.removeValue(forKey: Key(sql))
    }

    /// Resets `handle` and keeps it for the next statement of `sql`; false (the caller finalizes it) when the
    /// connection is closed, one for `sql` is already kept, or the pool is full.
    func keep(_ handle: OpaquePointer, sql: String) -> Bool {
        let key = Key(sql)
        guard !closed, handles[key] == nil, handles.count < Self.limit else { return false }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        handles[key] = handle
        return true
    }

    /// A statement's SQL as the pool's key: equal when the texts are, hashed from the length and the last 16 bytes only
    /// (hashing all of a long statement's text cost as much as the pool saved on a short one).
    struct Key: Hashable {
        let sql: String
        init(_ sql: String) { self.sql = sql }
        static func == (a: Key, b: Key) -> Bool { a.sql == b.sql }
        func hash(into hasher: inout Hasher) {
            var tail: (UInt64, UInt64) = (0, 0)
            var count = 0
            for byte in sql.utf8.reversed() {
                if count < 8 { tail.0 = tail.0 << 8 | UInt64(byte) } else { tail.1 = tail.1 << 8 | UInt64(byte) }
                count += 1
                if count == 16 { break }
            }
            hasher.combine(sql.utf8.count)
            hasher.combine(tail.0)
            hasher.combine(tail.1)
        }
    }

    /// Finalizes every kept statement; none is kept afterwards (the connection is closing).
    func close() {
        closed = true
        for handle in handles.values { sqlite3_finalize(handle) }
        handles = [:]
    }
}
