import CSQLite

// MARK: Scripts and SQL functions (used by reports; additive)

/// The Swift closure behind a SQL function registered with ``Database/createFunction(_:argumentCount:deterministic:_:)``.
final class SQLFunctionBox {
    let body: ([SQLValue]) -> SQLValue
    init(_ body: @escaping ([SQLValue]) -> SQLValue) { self.body = body }
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

extension Database {
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
