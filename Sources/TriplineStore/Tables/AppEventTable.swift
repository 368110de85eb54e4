import TriplineCore

// A table `tripline import` writes (docs/SCHEMA.md has every column): its one insert, and its reads.

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

// MARK: Reading app events

extension Store {
    /// How many app events there are of each kind, most first.
    public func appEventCountsByKind() throws -> [(String, Int)] {
        try counts("SELECT kind, count(*) FROM app_events GROUP BY kind ORDER BY count(*) DESC, kind")
    }
}
