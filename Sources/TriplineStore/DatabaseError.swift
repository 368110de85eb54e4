import CSQLite

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

    /// The database or its disk is full (`SQLITE_FULL`): for the tests that fill it and the GeoPackage export (which
    /// names its own file), neither of which may import SQLite's constants.
    public var isFull: Bool { primaryCode == SQLITE_FULL }
}
