import CSQLite
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// Errors that concern the database file as a whole.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    /// The file was written by a newer Tripline, whose schema this build does not know.
    case newerSchema(path: String, found: Int, known: Int)
    /// The file is not a Tripline database (or not a SQLite file at all).
    case notADatabase(path: String, reason: String)
    /// The database file does not exist and may not be created (read-only commands).
    case missing(path: String)
    /// The file is a SQLite database, but damaged (cut short, or overwritten in places).
    case damaged(path: String, reason: String)
    /// SQLite could not open the database (a reason of Tripline's words where SQLite's name no file).
    case cannotOpen(path: String, reason: String)
    /// A command that may not create the database was given an empty file (no Tripline database yet).
    case empty(path: String)
    /// A command that writes was given a database it may not write (file permissions, a read-only folder or mount).
    case readOnly(path: String, reason: String)
    /// A point whose device id or time does not fit `points_hot.key` (device ids up to 2^21 − 1, times
    /// 1970-01-01 … 2109-05-15).
    case pointOutOfRange(deviceID: Int64, timeMs: Int64)
    /// No device has the name a command selected (`--device`); `known` lists the devices there are, by name.
    case unknownDevice(name: String, known: [String])

    public var description: String {
        switch self {
        case .newerSchema(let path, let found, let known):
            return "\(path) has schema version \(found), but this tripline knows versions up to \(known). "
                + "It was written by a newer Tripline; upgrade tripline to use it. The file was not changed."
        case .notADatabase(let path, let reason):
            return "\(path) is not a Tripline database: \(reason)"
        case .damaged(let path, let reason):
            return "\(path) is damaged (SQLite: \(reason)): it was cut short or overwritten. Nothing was changed; "
                + "restore it from a backup, or import the archives into a new database"
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .empty(let path):
            return "\(path) is an empty file, not a Tripline database yet; run 'tripline import' into it first (nothing was written)"
        case .missing(let path):
            return "no database at \(path); run 'tripline import' first (or pass --db PATH)"
        case .readOnly(let path, let reason):
            return "cannot write to \(path): \(reason). Nothing was changed."
        case .pointOutOfRange(let deviceID, let timeMs):
            return "cannot store a point of device \(deviceID) at time_ms \(timeMs): the database holds device ids 0…\(PointKey.maxDeviceID) and times 0…\(PointKey.maxTimeMs) ms (1970 to 2109)"
        case .unknownDevice(let name, let known):
            let list = known.isEmpty ? "the database has no devices yet" : "known devices: " + known.joined(separator: ", ")
            return "no device named '\(name)' (\(list))"
        }
    }
}

/// The Tripline database: one SQLite file in WAL mode whose schema is brought up to date on open.
public final class Store {
    /// The connection. Internal: every stage reads and writes through the store's typed methods, reports and
    /// `tripline query` through a ``QueryConnection``.
    var db: Database
    public var path: String { db.path }
    /// Which writer wrote which table, once ``recordTableWrites()`` has started it (tests); the rebuild runner names
    /// the pass that runs (``TableWriteLog/writer``).
    package private(set) var tableWrites: TableWriteLog?

    /// Records, from now on, the table of every `INSERT`, `UPDATE` and `DELETE` this connection compiles, under the
    /// writer named in the log at that moment (tests: which pass writes which table). Each writer prepares its own
    /// statements (``RebuildTables`` is made per pass run), so a table is recorded under the pass that writes it.
    package func recordTableWrites() -> TableWriteLog {
        let log = TableWriteLog()
        tableWrites = log
        db.watchWrites(log)
        return log
    }

    /// Opens the database, creating it when `create` is true, and applies pending migrations.
    ///
    /// - Parameter requireWritable: fail at once with ``StoreError/readOnly(path:reason:)`` when the file cannot be
    ///   written (commands that write, such as `import`), instead of failing at the first write.
    /// - Throws: ``StoreError/newerSchema(path:found:known:)`` without touching the file when its schema is newer than
    ///   this build knows; ``DatabaseError`` when SQLite fails.
    public init(path: String, create: Bool = true, readOnly: Bool = false, requireWritable: Bool = false) throws {
        if !create || readOnly {
            if !FileSystem.exists(path) { throw StoreError.missing(path: path) }
            // An empty file is no database yet, as a missing one is: opening it would write a whole schema into it
            // (`info --db notes.txt` made an empty file 512 KiB). Unless a new database's first pages are still in
            // its `-wal` (another process is creating it).
            if path != ":memory:", FileSystem.kind(path) == .file, FileSystem.size(path) == 0, (FileSystem.size(path + "-wal") ?? 0) == 0 {
                throw StoreError.empty(path: path)
            }
        }
        if path != ":memory:", let what = Store.notAFile(path) {
            // SQLite opens a device as an empty database and creates `PATH-journal` beside it (`--db /dev/null`, as
            // root, made /dev/null-journal), then fails with "disk I/O error"; a FIFO fails the same way.
            throw StoreError.notADatabase(path: path, reason: "it is \(what), not a database file; nothing was written")
        }
        db = try Database(path: path, readOnly: readOnly, create: create)
        // SQLite silently opens a file it may not write read-only; say so before anything is attempted.
        if requireWritable && !readOnly && db.isReadOnly {
            throw StoreError.readOnly(path: path, reason: "the file is not writable by this user (check its permissions, owner and mount)")
        }
        do {
            do {
                try openWaiting(readOnly: readOnly)
            } catch let error as DatabaseError where readOnly && Store.mayNeedImmutable(error) {
                // A WAL database whose -shm cannot be created (a read-only file system, a folder this user may not
                // write): read it as an immutable file, without locks or -shm. See docs/SCHEMA.md.
                db = try Database(path: path, readOnly: true, create: false, immutable: true)
                try open(readOnly: true)
            }
        } catch let error as DatabaseError where error.code == SQLITE_READONLY | (6 << 8)  /* SQLITE_READONLY_DIRECTORY */ {
            throw StoreError.readOnly(path: path, reason: "its folder is not writable, and SQLite must create \(path)-wal and \(path)-shm beside it")
        } catch let error as DatabaseError where error.primaryCode == SQLITE_READONLY {
            throw StoreError.readOnly(path: path, reason: error.message)
        } catch let error as DatabaseError where error.primaryCode == SQLITE_CORRUPT {
            // A file cut short (a copy stopped mid-way) or overwritten in its middle: SQLite's message names no file.
            throw StoreError.damaged(path: path, reason: error.message)
        } catch let error as DatabaseError where error.primaryCode == SQLITE_CANTOPEN {
            throw StoreError.cannotOpen(path: path, reason: Store.linkedCompanion(path).map {
                "\($0) is a symbolic link, which SQLite refuses to follow (a file planted beside the database?); "
                    + "remove the link if nothing of yours is in it"
            } ?? error.message)
        }
    }

    /// The first of `PATH-wal`, `PATH-shm` and `PATH-journal` that is a symbolic link: SQLite will not open the
    /// database through one ("unable to open database file", naming no file).
    static func linkedCompanion(_ path: String) -> String? {
        for suffix in ["-wal", "-shm", "-journal"] {
            var st = stat()
            if lstat(path + suffix, &st) == 0, st.st_mode & S_IFMT == S_IFLNK { return path + suffix }
        }
        return nil
    }

    /// What is at `path` when it is neither a regular file nor a folder (SQLite names a folder itself): "a device",
    /// "a named pipe (FIFO)" or "a socket"; nil for a regular file, a folder or nothing.
    static func notAFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        default: return "a device"
        }
    }

    /// Whether a read-only open failed the way a WAL database fails when its `-shm` cannot be made or mapped.
    static func mayNeedImmutable(_ error: DatabaseError) -> Bool {
        [SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_IOERR, SQLITE_BUSY, SQLITE_PERM].contains(error.primaryCode)
    }

    /// Opens an existing database for a command that only reads (`info`, `export`, `map`): as usual (so an older
    /// schema is upgraded) when this user may write the file and its folder, else read-only — and, when even that
    /// cannot set up WAL's `-shm`, as an immutable file.
    public static func forReading(path: String) throws -> Store {
        let folder = FileSystem.directoryName(path)
        if access(path, W_OK) == 0 && access(folder, W_OK) == 0 { return try Store(path: path, create: false) }
        return try Store(path: path, readOnly: true)
    }

    /// How long opening waits for another process that is creating or migrating the same file (as long as a write
    /// waits for another writer: `Database`'s busy timeout).
    static let openWaitSeconds = 60.0

    /// ``open(readOnly:)``, begun again while another process holds the file in a way SQLite's busy handler does not
    /// wait for. Two processes creating one new file at once: switching it to WAL (`PRAGMA journal_mode=WAL`) needs an
    /// exclusive lock, and SQLite returns `SQLITE_BUSY` at once, without calling the busy handler, when the other
    /// connection holds a lock it would otherwise deadlock on (issue 28: one of two simultaneous first imports failed
    /// in 5 of 14 tries with "database is locked (while running: PRAGMA journal_mode=WAL)"). Every step of `open` is
    /// idempotent (the pragmas, and migrations that re-read `user_version` inside their write lock), so it simply
    /// starts over after a short wait, until `openWaitSeconds` have passed.
    private func openWaiting(readOnly: Bool) throws {
        let deadline = Clock.monotonic() + Self.openWaitSeconds
        var pauseUs: UInt32 = 1_000
        while true {
            do {
                return try open(readOnly: readOnly)
            } catch let error as DatabaseError where error.isBusy && !readOnly && Clock.monotonic() < deadline {
                usleep(pauseUs)  // another process is creating or converting the file: let it finish
                pauseUs = min(pauseUs * 2, 50_000)
            }
        }
    }

    private func open(readOnly: Bool) throws {
        let version: Int
        do {
            version = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        } catch let error as DatabaseError where error.primaryCode == SQLITE_NOTADB {
            throw StoreError.notADatabase(path: path, reason: error.message)
        }
        if version < 0 {
            // No Tripline writes a negative version; migrating "from" it would index before the first migration.
            throw StoreError.notADatabase(
                path: path, reason: "its schema version (PRAGMA user_version) is \(version), which no Tripline writes; the file was not changed")
        }
        // Another program's SQLite file (a browser's history, a phone backup's database): refused before anything is
        // written to it. Before, `import --db` into one switched it to WAL (its header changed) and only then refused
        // it, and one whose own `user_version` was 1 … current had Tripline's migrations run on it ("no such table").
        if let reason = try foreignDatabase(version: version) {
            throw StoreError.notADatabase(path: path, reason: reason)
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

    /// Why the open file is another program's SQLite database, or nil when it is Tripline's (or new). Read in one
    /// snapshot: a process creating the same new file commits its tables and its `user_version` together, so a
    /// version of 0 with tables is never a Tripline file half made. Every Tripline schema since the first holds
    /// `devices` and `imports`.
    private func foreignDatabase(version: Int) throws -> String? {
        try db.readTransaction {
            let tables = try db.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
            let now = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
            if now == 0 {
                return tables > 0 ? "it holds tables but no Tripline schema version (another program's database?); the file was not changed" : nil
            }
            let own = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('devices', 'imports')") ?? 0
            guard own < 2 else { return nil }
            return "its schema version (PRAGMA user_version) is \(now), but not Tripline's tables (another program's database?); "
                + "the file was not changed"
        }
    }

    /// Applies migrations `from+1 … current`, each in its own transaction together with its `user_version`.
    private func migrate(from version: Int) throws {
        if version == 0 {
            // A new file gets every migration in one transaction: one set of schema pages in the WAL instead of one
            // per migration (with 16 KiB pages the separate ones took ~560 KiB of WAL before the first point).
            // Everything is decided inside the write lock: a process creating the same new file at once may have
            // committed its schema since `version` was read (it then read "tables but no schema version" and refused
            // the file, issue 28).
            var madeByOther = false
            try db.transaction {
                guard try db.scalarInt("PRAGMA user_version") ?? 0 == 0 else {  // another process made it
                    madeByOther = true
                    return
                }
                // A database that is not empty but has version 0 is somebody else's SQLite file.
                if let tables = try db.scalarInt("SELECT count(*) FROM sqlite_master"), tables > 0 {
                    throw StoreError.notADatabase(path: path, reason: "it holds tables but no Tripline schema version")
                }
                for migration in Schema.migrations { try db.execute(migration) }
                try db.execute("PRAGMA user_version=\(Schema.currentVersion)")
            }
            if madeByOther {
                let now = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
                if now > Schema.currentVersion { throw StoreError.newerSchema(path: path, found: now, known: Schema.currentVersion) }
                if now < Schema.currentVersion { try migrate(from: now) }
                return
            }
        } else {
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
        // Give the WAL's schema pages back to the main file (best effort: another reader may hold it).
        _ = try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The page size of new database files, in bytes.
    public static let pageSize = 16384

    /// The schema version of the open file.
    public func schemaVersion() throws -> Int {
        Int(try db.scalarInt("PRAGMA user_version") ?? 0)
    }
}

// MARK: Transactions, for the stages

extension Store {
    /// Runs `body` inside one write transaction (`BEGIN IMMEDIATE … COMMIT`); rolls back and rethrows the first error.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try db.transaction(body)
    }

    /// Runs `body` inside one read snapshot: everything it reads is one state of the file, even while another
    /// process commits (an export, a map or a day report never mixes two rebuilds). Inside a transaction already,
    /// runs `body` in it.
    @discardableResult
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try db.readTransaction(body)
    }

    /// Begins a write transaction (`BEGIN IMMEDIATE`) that the caller ends with ``commit()`` or ``rollback()``
    /// (the importer's per-file transaction, which spans many calls). While another process writes, it waits, in
    /// steps of 250 ms so that `onFirstWait` is called (once) soon after the wait begins, for as long as a write
    /// waits (`Database`'s busy timeout).
    public func beginWrite(onFirstWait: () -> Void) throws {
        db.setBusyTimeout(ms: 250)
        defer { db.setBusyTimeout(ms: 60_000) }
        var waited = false
        while true {
            do {
                try db.execute("BEGIN IMMEDIATE")
                return
            } catch let error as DatabaseError where error.isBusy {
                if !waited {
                    waited = true
                    onFirstWait()
                }
                db.setBusyTimeout(ms: 60_000)
            }
        }
    }

    /// Commits the transaction ``beginWrite(onFirstWait:)`` began.
    public func commit() throws {
        try db.execute("COMMIT")
    }

    /// Rolls back the transaction ``beginWrite(onFirstWait:)`` began.
    public func rollback() throws {
        try db.execute("ROLLBACK")
    }

    /// Caps the size the write-ahead log is cut back to after a checkpoint (`PRAGMA journal_size_limit`), best
    /// effort: a store that cannot take it works as before.
    public func limitJournalSize(bytes: Int) {
        _ = try? db.execute("PRAGMA journal_size_limit=\(bytes)")
    }
}

