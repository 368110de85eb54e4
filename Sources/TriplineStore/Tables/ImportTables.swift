import CSQLite

import TriplineCore


// The tables `tripline import` writes besides `points`: each has its one insert here (docs/SCHEMA.md).

/// `devices`: one row per device.
public final class DeviceTable {
    let db: Database
    let find: Statement
    let insertStatement: Statement
    /// The ids new devices take in a shard's import (`import --plan`); nil: the next free id.
    public var plan: DeviceIDPlan?

    public init(_ db: Database) throws {
        self.db = db
        find = try db.prepare("SELECT id FROM devices WHERE name = ?")
        insertStatement = try db.prepare("INSERT INTO devices(id, name, source, name_origin, tid, created_ms) VALUES (?, ?, ?, ?, ?, ?)")
    }

    /// The id of the device named `name`, or nil.
    public func id(named name: String) throws -> Int64? {
        find.reset()
        defer { find.reset() }
        find.bindText(name, at: 1)
        return try find.step() ? find.int64(0) : nil
    }

    /// The id of the device named `name`, creating it (with `source`, how the name was found and the OwnTracks
    /// tracker id) when new.
    public func id(named name: String, source: String, origin: String, tid: String? = nil) throws -> Int64 {
        if let id = try id(named: name) { return id }
        let chosen: SQLValue = try plan.map { plan in
            .integer(try plan.next { try db.scalarInt("SELECT 1 FROM devices WHERE id = ?", [.integer($0)]) != nil })
        } ?? .null
        let s = insertStatement
        s.reset()
        try s.bind([chosen, .text(name), .text(source), .text(origin), tid.map { .text($0) } ?? .null, .integer(Clock.nowMs())])
        _ = try s.step()
        s.reset()
        return db.lastInsertRowID
    }
}

/// `imports`: one row per file read. A file's row is written `running` inside the file's transaction and turned
/// `done` by ``finish(_:)`` in the same transaction; a file that could not be read gets a `failed` row.
public final class ImportTable {
    let db: Database

    public init(_ db: Database) { self.db = db }

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

/// `rejects`: one row per record that was not imported, or (`records` > 1) one row standing for the rejects of one
/// reason past the number a file keeps in full.
public final class RejectTable {
    let statement: Statement

    public init(_ db: Database) throws {
        statement = try db.prepare("INSERT INTO rejects(import_id, line, byte_offset, reason, detail, excerpt, records) VALUES (?,?,?,?,?,?,?)")
    }

    public func insert(importID: Int64, line: Int?, byteOffset: Int, reason: String, detail: String, excerpt: String?, records: Int = 1) throws {
        let st = statement
        st.reset()
        try st.bind([.integer(importID), line.map { .integer(Int64($0)) } ?? .null, .integer(Int64(byteOffset)), .text(reason),
                     .text(detail), excerpt.map { .text($0) } ?? .null, .integer(Int64(records))])
        _ = try st.step()
        st.reset()
    }
}

/// One row of `app_events`: a non-location record.
public struct AppEventRow: Sendable, Equatable {
    /// nil for an event no point's device claims (docs/IMPORT.md, "Device rows").
    public var deviceID: Int64?
    public var importID: Int64
    public var kind: String
    public var timeMs: Int64?
    public var utcOffsetS: Int32?
    public var lat: Double?
    public var lon: Double?
    public var startMs: Int64?
    public var endMs: Int64?
    public var distanceM: Double?
    public var mode: String?
    public var raw: String

    public init(deviceID: Int64?, importID: Int64, kind: String, timeMs: Int64? = nil, utcOffsetS: Int32? = nil, lat: Double? = nil,
                lon: Double? = nil, startMs: Int64? = nil, endMs: Int64? = nil, distanceM: Double? = nil, mode: String? = nil, raw: String) {
        self.deviceID = deviceID
        self.importID = importID
        self.kind = kind
        self.timeMs = timeMs
        self.utcOffsetS = utcOffsetS
        self.lat = lat
        self.lon = lon
        self.startMs = startMs
        self.endMs = endMs
        self.distanceM = distanceM
        self.mode = mode
        self.raw = raw
    }
}

/// `app_events`, unique on `(device_id, kind, time_ms, raw)`.
public final class AppEventTable {
    let db: Database
    let statement: Statement

    public init(_ db: Database) throws {
        self.db = db
        statement = try db.prepare(
            """
            INSERT OR IGNORE INTO app_events(device_id, import_id, kind, time_ms, utc_offset_s, lat, lon, start_ms, end_ms,
              distance_m, mode, raw)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
            """)
    }

    /// Inserts the event unless the same one is stored. Returns true when it was new. A non-finite position is
    /// stored as NULL.
    @discardableResult
    public func insert(_ e: AppEventRow) throws -> Bool {
        let st = statement
        st.reset()
        func real(_ v: Double?) -> SQLValue { v.flatMap { $0.isFinite ? SQLValue.real($0) : nil } ?? .null }
        func int(_ v: Int64?) -> SQLValue { v.map { .integer($0) } ?? .null }
        try st.bind([int(e.deviceID), .integer(e.importID), .text(e.kind), int(e.timeMs), int(e.utcOffsetS.map(Int64.init)),
                     real(e.lat), real(e.lon), int(e.startMs), int(e.endMs), e.distanceM.map { .real($0) } ?? .null, e.mode.map { .text($0) } ?? .null,
                     .text(e.raw)])
        _ = try st.step()
        st.reset()
        return db.changes == 1
    }
}
