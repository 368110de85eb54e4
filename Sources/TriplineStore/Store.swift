import CSQLite

import TriplineCore


/// Errors that concern the database file as a whole.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    /// The file was written by a newer Tripline, whose schema this build does not know.
    case newerSchema(path: String, found: Int, known: Int)
    /// The file is not a Tripline database (or not a SQLite file at all).
    case notADatabase(path: String, reason: String)
    /// The database file does not exist and may not be created (read-only commands).
    case missing(path: String)
    /// A command that writes was given a database it may not write (file permissions, a read-only folder or mount).
    case readOnly(path: String, reason: String)

    public var description: String {
        switch self {
        case .newerSchema(let path, let found, let known):
            return "\(path) has schema version \(found), but this tripline knows versions up to \(known). "
                + "It was written by a newer Tripline; upgrade tripline to use it. The file was not changed."
        case .notADatabase(let path, let reason):
            return "\(path) is not a Tripline database: \(reason)"
        case .missing(let path):
            return "no database at \(path); run 'tripline import' first (or pass --db PATH)"
        case .readOnly(let path, let reason):
            return "cannot write to \(path): \(reason). Nothing was changed."
        }
    }
}

/// The Tripline database: one SQLite file in WAL mode whose schema is brought up to date on open.
public final class Store {
    public let db: Database
    public var path: String { db.path }

    /// Opens the database, creating it when `create` is true, and applies pending migrations.
    ///
    /// - Parameter requireWritable: fail at once with ``StoreError/readOnly(path:reason:)`` when the file cannot be
    ///   written (commands that write, such as `import`), instead of failing at the first write.
    /// - Throws: ``StoreError/newerSchema(path:found:known:)`` without touching the file when its schema is newer than
    ///   this build knows; ``DatabaseError`` when SQLite fails.
    public init(path: String, create: Bool = true, readOnly: Bool = false, requireWritable: Bool = false) throws {
        if !create || readOnly {
            if !FileSystem.exists(path) { throw StoreError.missing(path: path) }
        }
        db = try Database(path: path, readOnly: readOnly, create: create)
        // SQLite silently opens a file it may not write read-only; say so before anything is attempted.
        if requireWritable && !readOnly && sqlite3_db_readonly(db.handle, "main") == 1 {
            throw StoreError.readOnly(path: path, reason: "the file is not writable by this user (check its permissions, owner and mount)")
        }
        do {
            try open(readOnly: readOnly)
        } catch let error as DatabaseError where error.code == SQLITE_READONLY | (6 << 8)  /* SQLITE_READONLY_DIRECTORY */ {
            throw StoreError.readOnly(path: path, reason: "its folder is not writable, and SQLite must create \(path)-wal and \(path)-shm beside it")
        } catch let error as DatabaseError where error.primaryCode == SQLITE_READONLY {
            throw StoreError.readOnly(path: path, reason: error.message)
        }
    }

    private func open(readOnly: Bool) throws {
        let version: Int
        do {
            version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        } catch let error as DatabaseError where error.primaryCode == SQLITE_NOTADB {
            throw StoreError.notADatabase(path: path, reason: error.message)
        }
        if version > Schema.currentVersion {
            throw StoreError.newerSchema(path: path, found: version, known: Schema.currentVersion)
        }
        if !readOnly {
            if version == 0 {
                // A new file: larger pages than SQLite's default 4 KiB (only takes effect before the first table is
                // written). Measured on the import benchmark's rows: fewer b-tree pages to split, balance and write
                // per row (~3 % fewer instructions a row than 4 KiB, like 8 KiB), and fewer pages to fetch when the
                // rebuild and the exports scan `points`. See docs/PERFORMANCE.md.
                try db.execute("PRAGMA page_size=\(Store.pageSize)")
            }
            try db.execute("PRAGMA journal_mode=WAL")
            try db.execute("PRAGMA synchronous=NORMAL")
            try db.execute("PRAGMA foreign_keys=OFF")
            if version < Schema.currentVersion {
                try migrate(from: version)
            }
        } else if version < Schema.currentVersion {
            throw StoreError.notADatabase(
                path: path, reason: "schema version \(version) is older than \(Schema.currentVersion); open it once without read-only access to upgrade")
        }
        try db.execute("PRAGMA cache_size=-16384")  // 16 MiB page cache
        try db.execute("PRAGMA temp_store=MEMORY")
    }

    /// Applies migrations `from+1 … current`, each in its own transaction together with its `user_version`.
    private func migrate(from version: Int) throws {
        // A database that is not empty but has version 0 is somebody else's SQLite file.
        if version == 0, let tables = try db.scalarInt("SELECT count(*) FROM sqlite_master"), tables > 0 {
            throw StoreError.notADatabase(path: path, reason: "it holds tables but no Tripline schema version")
        }
        for index in version..<Schema.currentVersion {
            try db.transaction {
                // Re-read inside the write lock: a concurrent process may have migrated meanwhile.
                let now = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
                guard now == index else { return }
                try db.execute(Schema.migrations[index])
                try db.execute("PRAGMA user_version=\(index + 1)")
            }
        }
    }

    /// The page size of new database files, in bytes.
    public static let pageSize = 16384

    /// The schema version of the open file.
    public func schemaVersion() throws -> Int {
        Int(try db.scalarInt("PRAGMA user_version") ?? 0)
    }
}
