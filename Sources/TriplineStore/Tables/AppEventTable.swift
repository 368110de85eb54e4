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

// MARK: Read by the clean pass

extension Store {
    /// The spans (start, end; ms, inclusive) of a device's own Google visits and activities (app events `visit` and
    /// `trip` of a `google/…` import) that reach into `fromMs ... throughMs`, in no particular order.
    public func googleSegments(device: Int64, fromMs: Int64, throughMs: Int64) throws -> [(startMs: Int64, endMs: Int64)] {
        let q = try db.prepare(
            """
            SELECT e.start_ms, e.end_ms FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind IN ('visit', 'trip') AND i.format LIKE '%google/%' AND e.start_ms IS NOT NULL
              AND e.end_ms >= e.start_ms AND e.end_ms >= ? AND e.start_ms <= ?
            """)
        try q.bind([.integer(device), .integer(fromMs), .integer(throughMs)])
        var out: [(startMs: Int64, endMs: Int64)] = []
        while try q.step() { out.append((q.int64(0), q.int64(1))) }
        return out
    }
}

// MARK: Read by the evidence pass

/// An app's record the evidence pass reads (docs/PASSES.md, `evidence`): an OwnTracks `waypoint` or `transition`, an
/// Overland `visit`, `paused_location_updates`, `resumed_location_updates` or `exited_pause_region`, with the members
/// of its `raw` JSON the pass uses.
public struct EvidenceEventRow: Sendable, Equatable {
    public var kind: String
    /// `time_ms` (0 when the record has none: a waypoint may not).
    public var timeMs: Int64
    public var lat: Double?
    public var lon: Double?
    public var startMs: Int64?
    public var endMs: Int64?
    /// OwnTracks `desc`: the region's name (a waypoint's, a transition's).
    public var desc: String?
    /// OwnTracks `event`: `enter` or `leave` (a transition's).
    public var event: String?
    /// OwnTracks `rad`: the region's radius in metres (a waypoint's).
    public var radiusM: Double?

    public init(kind: String, timeMs: Int64, lat: Double? = nil, lon: Double? = nil, startMs: Int64? = nil, endMs: Int64? = nil,
                desc: String? = nil, event: String? = nil, radiusM: Double? = nil) {
        self.kind = kind
        self.timeMs = timeMs
        self.lat = lat
        self.lon = lon
        self.startMs = startMs
        self.endMs = endMs
        self.desc = desc
        self.event = event
        self.radiusM = radiusM
    }
}

extension Store {
    /// A device's app records the evidence pass reads, in time order (then as stored): every `waypoint` (a region's
    /// centre and radius, whenever it was published), and the region `transition`s, iOS `visit`s and Overland pause and
    /// resume actions with `fromMs <= time_ms < toMs`. Google's records are left out: they are Google's own reading of
    /// the days, which the timeline pass places where the fixes made nothing. `desc`, `event` and `rad` are read by
    /// SQLite's JSON functions from the record's JSON in `raw`: from its first `{` (a `.rec` line keeps its time and
    /// topic before it); NULL when that is not JSON, or lacks them.
    public func evidenceEvents(device: Int64, fromMs: Int64, toMs: Int64) throws -> [EvidenceEventRow] {
        let q = try db.prepare(
            """
            SELECT kind, time_ms, lat, lon, start_ms, end_ms,
              CASE WHEN json_valid(json) THEN json_extract(json, '$.desc') END,
              CASE WHEN json_valid(json) THEN json_extract(json, '$.event') END,
              CASE WHEN json_valid(json) THEN json_extract(json, '$.rad') END
            FROM (SELECT id, kind, time_ms, lat, lon, start_ms, end_ms, substr(raw, instr(raw, '{')) AS json FROM app_events
                  WHERE device_id = ? AND (kind = 'waypoint' OR (time_ms >= ? AND time_ms < ? AND kind IN
                    ('transition', 'visit', 'paused_location_updates', 'resumed_location_updates', 'exited_pause_region')))
                    AND import_id NOT IN (SELECT id FROM imports WHERE format LIKE '%google/%'))
            ORDER BY time_ms, id
            """)
        try q.bind([.integer(device), .integer(fromMs), .integer(toMs)])
        var out: [EvidenceEventRow] = []
        func real(_ k: Int32) -> Double? { q.isNull(k) ? nil : q.double(k) }
        func int(_ k: Int32) -> Int64? { q.isNull(k) ? nil : q.int64(k) }
        while try q.step() {
            out.append(EvidenceEventRow(
                kind: q.text(0) ?? "", timeMs: q.int64(1), lat: real(2), lon: real(3), startMs: int(4), endMs: int(5),
                desc: q.text(6), event: q.text(7), radiusM: q.text(8).flatMap { Double($0) }))
        }
        return out
    }
}
