import TriplineCore

// A table `tripline import` writes (docs/SCHEMA.md has every column): its one insert, and its reads.

/// `imports`: one row per file read. A file's row is written `running` inside the file's transaction and turned
/// `done` by ``finish(_:)`` in the same transaction; a file that could not be read gets a `failed` row.
public final class ImportTable {
    let db: Database

    public init(_ db: Database) { self.db = db }

    /// The imports table of `store`'s connection.
    public convenience init(_ store: Store) { self.init(store.db) }

    /// Whether a file with this content fingerprint was imported completely.
    public func isDone(fingerprint: String) throws -> Bool {
        try db.scalarInt("SELECT id FROM imports WHERE fingerprint = ? AND status = 'done' LIMIT 1", [.text(fingerprint)]) != nil
    }

    /// Adds the `running` row of a file being imported; returns its id.
    public func begin(path: String, size: Int, fingerprint: String) throws -> Int64 {
        try db.run(
            "INSERT INTO imports(path, size, fingerprint, started_ms, status) VALUES (?, ?, ?, ?, 'running')",
            [.text(path), .integer(Int64(size)), .text(fingerprint), .integer(Clock.nowMs())])
        return db.lastInsertRowID
    }

    /// Adds the `failed` row of a file that could not be read; returns its id.
    public func insertFailure(path: String, size: Int, format: String?, message: String) throws -> Int64 {
        try db.run(
            "INSERT INTO imports(path, size, fingerprint, format, started_ms, finished_ms, status, message) VALUES (?, ?, '', ?, ?, ?, 'failed', ?)",
            [.text(path), .integer(Int64(size)), format.map { .text($0) } ?? .null, .integer(Clock.nowMs()), .integer(Clock.nowMs()), .text(message)])
        return db.lastInsertRowID
    }

    /// What a finished file's row says.
    public struct Finished: Sendable {
        public var id: Int64
        public var format: String?
        public var creator: String?
        /// The device when all of the file's records went to one device.
        public var deviceID: Int64?
        public var pointsNew: Int
        public var pointsDuplicate: Int
        public var rejected: Int
        public var events: Int
        public var message: String
        /// The earliest `time_ms` of the points it added (nil: none).
        public var firstMs: Int64?

        public init(id: Int64, format: String?, creator: String?, deviceID: Int64?, pointsNew: Int, pointsDuplicate: Int,
                    rejected: Int, events: Int, message: String, firstMs: Int64? = nil) {
            self.firstMs = firstMs
            self.id = id
            self.format = format
            self.creator = creator
            self.deviceID = deviceID
            self.pointsNew = pointsNew
            self.pointsDuplicate = pointsDuplicate
            self.rejected = rejected
            self.events = events
            self.message = message
        }
    }

    /// Turns a file's row `done` with its counts.
    public func finish(_ f: Finished) throws {
        try db.run(
            """
            UPDATE imports SET format = ?, creator = ?, device_id = ?, points_new = ?, points_duplicate = ?, rejected = ?,
              events = ?, finished_ms = ?, status = 'done', message = ?, first_ms = ? WHERE id = ?
            """,
            [f.format.map { .text($0) } ?? .null, f.creator.map { .text($0) } ?? .null, f.deviceID.map { .integer($0) } ?? .null,
             .integer(Int64(f.pointsNew)), .integer(Int64(f.pointsDuplicate)), .integer(Int64(f.rejected)), .integer(Int64(f.events)),
             .integer(Clock.nowMs()), .text(f.message), f.firstMs.map { .integer($0) } ?? .null, .integer(f.id)])
    }

    /// The earliest point time the imports after `importID` added, where every one of them that added points says
    /// (`first_ms`); nil when one does not (written before schema 7) or none added any: the caller must then look at
    /// the points themselves. A lower bound for every device's new points.
    public func firstNewPointMs(after importID: Int64) throws -> Int64? {
        try db.scalarInt(
            "SELECT CASE WHEN count(*) > 0 AND count(*) = count(first_ms) THEN min(first_ms) END FROM imports WHERE id > ? AND points_new > 0",
            [.integer(importID)])
    }
}

// MARK: Reading imports

/// One `imports` row as `tripline info` lists it.
public struct ImportRowSummary: Sendable, Equatable {
    public var id: Int64
    public var status: String
    /// nil when unknown (a file that failed before its format was known).
    public var format: String?
    public var pointsNew: Int
    public var pointsDuplicate: Int
    public var rejected: Int
    public var events: Int
    public var path: String
}

extension Store {
    /// How many imports have each status, by status.
    public func importCountsByStatus() throws -> [(String, Int)] {
        try counts("SELECT status, count(*) FROM imports GROUP BY status ORDER BY status")
    }

    /// The latest `limit` imports, newest first.
    public func latestImports(limit: Int) throws -> [ImportRowSummary] {
        let s = try db.prepare(
            "SELECT id, status, format, points_new, points_duplicate, rejected, events, path FROM imports ORDER BY id DESC LIMIT ?")
        s.bindInt(Int64(limit), at: 1)
        var out: [ImportRowSummary] = []
        while try s.step() {
            out.append(
                ImportRowSummary(
                    id: s.int64(0), status: s.text(1) ?? "", format: s.text(2), pointsNew: s.int(3), pointsDuplicate: s.int(4),
                    rejected: s.int(5), events: s.int(6), path: s.text(7) ?? ""))
        }
        return out
    }

    /// The latest `limit` failed imports' paths and messages, newest first.
    public func latestFailedImports(limit: Int) throws -> [(path: String, message: String)] {
        let s = try db.prepare("SELECT path, coalesce(message, '') FROM imports WHERE status = 'failed' ORDER BY id DESC LIMIT ?")
        s.bindInt(Int64(limit), at: 1)
        var out: [(path: String, message: String)] = []
        while try s.step() { out.append((s.text(0) ?? "", s.text(1) ?? "")) }
        return out
    }
}

/// A read-only look at `imports` on its own connection, for the importer's parsing thread: whether a file with this
/// fingerprint was imported completely, so it can be skipped without parsing. A shortcut only: the writer checks
/// again inside the file's transaction.
public final class ImportDoneProbe {
    let database: Database
    let statement: Statement

    /// Nil when the database cannot be opened for reading (a new file: nothing is done yet).
    public init?(path: String) {
        guard let database = try? Database(path: path, readOnly: true, create: false),
              let statement = try? database.prepare("SELECT 1 FROM imports WHERE fingerprint = ? AND status = 'done' LIMIT 1")
        else { return nil }
        self.database = database
        self.statement = statement
    }

    /// Whether a file with `fingerprint` is `done`; false when the read fails (the file is then parsed).
    public func isDone(fingerprint: String) -> Bool {
        statement.reset()
        defer { statement.reset() }
        statement.bindText(fingerprint, at: 1)
        return (try? statement.step()) == true
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// A lower bound for the time of every point added after import `importID` (``ImportTable/firstNewPointMs(after:)``).
    public func firstNewPointMs(after importID: Int64) throws -> Int64? {
        try ImportTable(db).firstNewPointMs(after: importID)
    }
}
