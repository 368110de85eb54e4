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

extension Store {
    /// Google's own visits of a device (`hierarchyLevel` 0, with a place id), as a `google/…` import stored them
    /// (app events `visit`): Google's place id and time span, in time order (the place scorer's reference).
    public func googlePlaceVisits(device: Int64) throws -> [(placeID: String, startMs: Int64, endMs: Int64)] {
        let q = try db.prepare(
            """
            SELECT coalesce(json_extract(e.raw, '$.placeVisit.location.placeId'), json_extract(e.raw, '$.visit.topCandidate.placeId'),
                            json_extract(e.raw, '$.visit.topCandidate.placeID')), e.start_ms, e.end_ms
            FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind = 'visit' AND i.format LIKE '%google/%' AND e.end_ms > e.start_ms
              AND coalesce(CAST(json_extract(e.raw, '$.visit.hierarchyLevel') AS INTEGER), 0) = 0
            ORDER BY e.start_ms, e.end_ms
            """)
        q.bindInt(device, at: 1)
        var out: [(placeID: String, startMs: Int64, endMs: Int64)] = []
        while try q.step() {
            guard let id = q.text(0), !id.isEmpty else { continue }
            out.append((id, q.int64(1), q.int64(2)))
        }
        return out
    }
}

// MARK: Read by the apptrips pass

/// An app's own record of a trip (an `app_events` row of kind `trip` with both times): the part the apptrips pass
/// compares with the rebuilt trips.
public struct AppTripEvent: Sendable, Equatable {
    /// The event's row id (`app_trip_matches.event_id`).
    public var id: Int64
    public var startMs: Int64
    public var endMs: Int64
    public var distanceM: Double?
    public var mode: String?

    public init(id: Int64, startMs: Int64, endMs: Int64, distanceM: Double?, mode: String?) {
        self.id = id
        self.startMs = startMs
        self.endMs = endMs
        self.distanceM = distanceM
        self.mode = mode
    }
}

extension RebuildTables {
    /// The device's app trip records (kind `trip`, both times known) that overlap `[fromMs, toMs)` (`end_ms >= fromMs`,
    /// `start_ms < toMs`), by start time.
    public func appTrips(device: Int64, overlappingFromMs fromMs: Int64, beforeMs toMs: Int64) throws -> [AppTripEvent] {
        let s = try statement(
            """
            SELECT id, start_ms, end_ms, distance_m, mode FROM app_events
            WHERE device_id = ? AND kind = 'trip' AND start_ms IS NOT NULL AND end_ms IS NOT NULL AND end_ms >= ? AND start_ms < ?
            ORDER BY start_ms
            """)
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(toMs, at: 3)
        var out: [AppTripEvent] = []
        while try s.step() {
            out.append(AppTripEvent(id: s.int64(0), startMs: s.int64(1), endMs: s.int64(2), distanceM: s.optionalDouble(3), mode: s.text(4)))
        }
        return out
    }
}
