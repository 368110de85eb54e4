import TriplineCore

// A table `tripline import` writes (docs/SCHEMA.md has every column): its one insert, and its reads.

/// One row of `app_events`: a non-location record.
public struct AppEventRow: Sendable, Equatable {
    /// nil for an event no point's device claims (docs/IMPORT.md, "Device rows").
    public var deviceID: Int64?
    public var importID: Int64
    public var kind: AppEventKind
    public var timeMs: Int64?
    public var utcOffsetS: Int32?
    public var lat: Double?
    public var lon: Double?
    public var startMs: Int64?
    public var endMs: Int64?
    public var distanceM: Double?
    public var mode: String?
    public var raw: String

    public init(deviceID: Int64?, importID: Int64, kind: AppEventKind, timeMs: Int64? = nil, utcOffsetS: Int32? = nil, lat: Double? = nil,
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

    /// The app events table of `store`'s connection.
    public convenience init(_ store: Store) throws { try self.init(store.db) }

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
        try st.bind([int(e.deviceID), .integer(e.importID), .text(e.kind.rawValue), int(e.timeMs), int(e.utcOffsetS.map(Int64.init)),
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

// MARK: Read by the rebuild runner

extension Store {
    /// The earliest time (an event's time or start, whichever is earlier) of `device`'s app events imported after
    /// import `importID`, waypoints aside (no pass reads them by time); nil when there is none.
    public func firstAppEventMs(device: Int64, importedAfter importID: Int64) throws -> Int64? {
        try db.scalarInt(
            "SELECT min(min(coalesce(time_ms, start_ms), coalesce(start_ms, time_ms))) FROM app_events WHERE device_id = ? AND import_id > ? AND kind != 'waypoint'",
            [.integer(device), .integer(importID)])
    }

    /// The earliest start of an app record still open before `beforeMs`, as the evidence pass reads them: a region
    /// whose last `transition` before then is an `enter` (a presence no `leave` has closed yet), and an Overland
    /// `paused_location_updates` with no resume (`resumed_location_updates`, `exited_pause_region`) or other pause
    /// after it before then. A record that later data close (or replace: a second `enter`) changes what the evidence
    /// pass makes of the stays since it began. Nil when none is open.
    public func openAppRecordMs(device: Int64, beforeMs: Int64) throws -> Int64? {
        let enter = try openEnters(device: device, beforeMs: beforeMs).map(\.timeMs).min()
        return [enter, try openPauseMs(device: device, beforeMs: beforeMs)].compactMap { $0 }.min()
    }

    /// The regions whose last `transition` before `beforeMs` is an `enter`, with that `enter`'s time and position, by
    /// region name.
    public func openEnters(device: Int64, beforeMs: Int64) throws -> [(region: String, timeMs: Int64, lat: Double?, lon: Double?)] {
        let q = try db.prepare(
            """
            SELECT region, t, lat, lon FROM (
              SELECT CASE WHEN json_valid(json) THEN json_extract(json, '$.desc') END AS region,
                CASE WHEN json_valid(json) THEN json_extract(json, '$.event') END AS event, max(time_ms) AS t, lat, lon
              FROM (SELECT time_ms, lat, lon, substr(raw, instr(raw, '{')) AS json FROM app_events
                    WHERE device_id = ? AND kind = 'transition' AND time_ms < ?)
              GROUP BY region)
            WHERE region IS NOT NULL AND event = 'enter'
            ORDER BY region
            """)
        try q.bind([.integer(device), .integer(beforeMs)])
        var out: [(region: String, timeMs: Int64, lat: Double?, lon: Double?)] = []
        while try q.step() {
            if let region = q.text(0) { out.append((region, q.int64(1), q.isNull(2) ? nil : q.double(2), q.isNull(3) ? nil : q.double(3))) }
        }
        return out
    }

    /// The start of an Overland `paused_location_updates` with no resume (`resumed_location_updates`,
    /// `exited_pause_region`) or other pause after it before `beforeMs`; nil when there is none.
    public func openPauseMs(device: Int64, beforeMs: Int64) throws -> Int64? {
        let paused = try db.scalarInt(
            "SELECT max(time_ms) FROM app_events WHERE device_id = ? AND kind = 'paused_location_updates' AND time_ms < ?",
            [.integer(device), .integer(beforeMs)])
        guard let paused else { return nil }
        let resumed = try db.scalarInt(
            "SELECT max(time_ms) FROM app_events WHERE device_id = ? AND kind IN ('resumed_location_updates', 'exited_pause_region') AND time_ms >= ? AND time_ms < ?",
            [.integer(device), .integer(paused), .integer(beforeMs)])
        return resumed == nil ? paused : nil
    }

    /// The highest import that brought `device` an app event; nil when it has none.
    public func lastAppEventImport(device: Int64) throws -> Int64? {
        try db.scalarInt("SELECT max(import_id) FROM app_events WHERE device_id = ?", [.integer(device)])
    }
}

// MARK: Read by the timeline pass

/// One of Google's visits (`placeVisit`, Timeline's `visit`) as a `google/…` import stored it (app event `visit`),
/// with what the timeline pass reads from its raw JSON (nil where the JSON has nothing, or is not JSON).
public struct GoogleVisitSegment: Sendable, Equatable {
    public var startMs: Int64
    public var endMs: Int64
    public var lat: Double?
    public var lon: Double?
    /// Google's place id: `placeVisit.location.placeId`, else `visit.topCandidate.placeId` (or `placeID`); nil when
    /// the first of them given is empty.
    public var placeID: String?
    /// `placeVisit.location.name` and `.address`.
    public var name: String?
    public var address: String?
    /// `placeVisit.location.semanticType`, else `visit.topCandidate.semanticType`.
    public var semanticType: String?
    /// `visit.hierarchyLevel` (above 0: a visit inside another one).
    public var hierarchyLevel: Double?
    /// `placeVisit.centerLatE7` and `.centerLngE7`: where Google put the visit itself, as opposed to where its place
    /// is (`lat`, `lon`, from `placeVisit.location`); nil where the export gives none or gives it out of range.
    public var centreLat: Double?
    public var centreLon: Double?
    /// The positions of `placeVisit.simplifiedRawPath.points`, in order: the phone's own fixes during the visit.
    public var fixes: [(lat: Double, lon: Double)]

    public init(startMs: Int64, endMs: Int64, lat: Double?, lon: Double?, placeID: String? = nil, name: String? = nil, address: String? = nil,
                semanticType: String? = nil, hierarchyLevel: Double? = nil, centreLat: Double? = nil, centreLon: Double? = nil,
                fixes: [(lat: Double, lon: Double)] = []) {
        self.startMs = startMs
        self.endMs = endMs
        self.lat = lat
        self.lon = lon
        self.placeID = placeID
        self.name = name
        self.address = address
        self.semanticType = semanticType
        self.hierarchyLevel = hierarchyLevel
        self.centreLat = centreLat
        self.centreLon = centreLon
        self.fixes = fixes
    }

    public static func == (a: GoogleVisitSegment, b: GoogleVisitSegment) -> Bool {
        (a.startMs, a.endMs, a.placeID, a.name, a.address, a.semanticType) == (b.startMs, b.endMs, b.placeID, b.name, b.address, b.semanticType)
            && a.lat == b.lat && a.lon == b.lon && a.hierarchyLevel == b.hierarchyLevel && a.centreLat == b.centreLat && a.centreLon == b.centreLon
            && a.fixes.elementsEqual(b.fixes) { $0.lat == $1.lat && $0.lon == $1.lon }
    }
}

/// One of Google's activities (`activitySegment`, Timeline's `activity`) as a `google/…` import stored it (app event
/// `trip`: its end position, distance and mode as the import mapped it), with what the timeline pass reads from its
/// raw JSON.
public struct GoogleActivitySegment: Sendable {
    public var startMs: Int64
    public var endMs: Int64
    /// Where it ends.
    public var lat: Double?
    public var lon: Double?
    public var distanceM: Double?
    public var mode: String?
    /// `activitySegment.startLocation.latitudeE7` and `.longitudeE7`.
    public var startLatE7: Double?
    public var startLonE7: Double?
    /// Timeline's `activity.start.latLng`, else `activity.start` (position text such as `geo:48.1,11.5`).
    public var startLatLng: String?
    public var start: String?
    /// Google's own activity type: `activitySegment.activityType`, else `activity.topCandidate.type`.
    public var activity: String?
    /// The points of its `waypointPath` (road-snapped), else of its `simplifiedRawPath`, in order (empty when it has
    /// neither: Timeline.json's activities): the leg's distance when Google gives none, and its line in every export.
    public var path: [(lat: Double, lon: Double)]

    public init(startMs: Int64, endMs: Int64, lat: Double?, lon: Double?, distanceM: Double?, mode: String?, startLatE7: Double? = nil,
                startLonE7: Double? = nil, startLatLng: String? = nil, start: String? = nil, activity: String? = nil,
                path: [(lat: Double, lon: Double)] = []) {
        self.startMs = startMs
        self.endMs = endMs
        self.lat = lat
        self.lon = lon
        self.distanceM = distanceM
        self.mode = mode
        self.startLatE7 = startLatE7
        self.startLonE7 = startLonE7
        self.startLatLng = startLatLng
        self.start = start
        self.activity = activity
        self.path = path
    }
}

extension Store {
    /// A JSON value of each row's `raw` as text (NULL when `raw` is not JSON or has nothing there).
    private static func rawText(_ path: String) -> String {
        "CASE WHEN json_valid(e.raw) THEN CAST(json_extract(e.raw, '\(path)') AS TEXT) END"
    }

    /// A JSON value of each row's `raw` as JSON text (``NameText/jsonString(_:)`` reads a string of it whole, where
    /// `json_extract` cuts it at an escaped NUL).
    private static func rawJSON(_ path: String) -> String {
        "CASE WHEN json_valid(e.raw) THEN e.raw -> '\(path)' END"
    }

    /// A device's Google visits that start in `fromMs ..< toMs` and last, in time order.
    public func googleVisitSegments(device: Int64, fromMs: Int64, toMs: Int64) throws -> [GoogleVisitSegment] {
        let fields = (["$.placeVisit.location.placeId", "$.visit.topCandidate.placeId", "$.visit.topCandidate.placeID"].map(Self.rawText)
            + ["$.placeVisit.location.name", "$.placeVisit.location.address"].map(Self.rawJSON)
            + ["$.placeVisit.location.semanticType", "$.visit.topCandidate.semanticType", "$.visit.hierarchyLevel",
               "$.placeVisit.centerLatE7", "$.placeVisit.centerLngE7"].map(Self.rawText))
            .joined(separator: ", ")
        let q = try db.prepare(
            """
            SELECT e.start_ms, e.end_ms, e.lat, e.lon, \(fields), e.raw FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind = 'visit' AND i.format LIKE '%google/%' AND e.start_ms >= ? AND e.start_ms < ? AND e.end_ms > e.start_ms
            ORDER BY e.start_ms, e.end_ms, e.raw
            """)
        try q.bind([.integer(device), .integer(fromMs), .integer(toMs)])
        var fixQuery: Statement? = nil
        var out: [GoogleVisitSegment] = []
        while try q.step() {
            let placeID = (q.text(4) ?? q.text(5) ?? q.text(6)).flatMap { $0.isEmpty ? nil : $0 }
            // The centre where it is a position (E7 degrees in range); the visit's own fixes only beside one.
            var centre: (lat: Double, lon: Double)? = nil
            if let la = q.text(12).flatMap({ Double($0) }), let lo = q.text(13).flatMap({ Double($0) }), abs(la) <= 9e8, abs(lo) <= 18e8 {
                centre = (la / 1e7, lo / 1e7)
            }
            var fixes: [(lat: Double, lon: Double)] = []
            if centre != nil, let raw = q.text(14) {
                if fixQuery == nil { fixQuery = try db.prepare(Self.pathPoints("$.placeVisit.simplifiedRawPath.points")) }
                fixes = try Self.points(fixQuery!, raw)
            }
            out.append(
                GoogleVisitSegment(startMs: q.int64(0), endMs: q.int64(1), lat: q.optionalDouble(2), lon: q.optionalDouble(3), placeID: placeID,
                                   name: NameText.jsonString(q.text(7)), address: NameText.jsonString(q.text(8)),
                                   semanticType: q.text(9) ?? q.text(10),
                                   hierarchyLevel: q.text(11).flatMap { Double($0) },
                                   centreLat: centre?.lat, centreLon: centre?.lon, fixes: fixes))
        }
        return out
    }

    /// A query of the positions (`latE7`, `lngE7`) of the array at `root` of a raw record (bound as `?1`), in order.
    private static func pathPoints(_ root: String) -> String {
        """
        SELECT json_extract(value, '$.latE7'), json_extract(value, '$.lngE7') FROM json_each(CASE WHEN json_valid(?1) THEN ?1 ELSE '{}' END, '\(root)')
        ORDER BY CAST(key AS INTEGER)
        """
    }

    /// The positions `query` (``pathPoints(_:)``) finds in `raw`: those with both numbers in range.
    private static func points(_ query: Statement, _ raw: String) throws -> [(lat: Double, lon: Double)] {
        query.reset()
        try query.bind([.text(raw)])
        var out: [(lat: Double, lon: Double)] = []
        while try query.step() {
            if query.isNull(0) || query.isNull(1) { continue }
            let lat = query.double(0) / 1e7, lon = query.double(1) / 1e7
            if abs(lat) <= 90 && abs(lon) <= 180 { out.append((lat, lon)) }
        }
        return out
    }

    /// A device's Google activities that start in `fromMs ..< toMs` and last, in time order.
    public func googleActivitySegments(device: Int64, fromMs: Int64, toMs: Int64) throws -> [GoogleActivitySegment] {
        let fields = [
            "$.activitySegment.startLocation.latitudeE7", "$.activitySegment.startLocation.longitudeE7", "$.activity.start.latLng", "$.activity.start",
            "$.activitySegment.activityType", "$.activity.topCandidate.type",
        ].map(Self.rawText).joined(separator: ", ")
        let q = try db.prepare(
            """
            SELECT e.start_ms, e.end_ms, e.lat, e.lon, e.distance_m, e.mode, e.raw, \(fields) FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind = 'trip' AND i.format LIKE '%google/%' AND e.start_ms >= ? AND e.start_ms < ? AND e.end_ms > e.start_ms
            ORDER BY e.start_ms, e.end_ms, e.raw
            """)
        try q.bind([.integer(device), .integer(fromMs), .integer(toMs)])
        let paths = ["$.activitySegment.waypointPath.waypoints", "$.activitySegment.simplifiedRawPath.points"].map(Self.pathPoints)
        var pathQueries: [Statement] = []
        /// The points of the first of `paths` that has any.
        func path(_ raw: String) throws -> [(lat: Double, lon: Double)] {
            if pathQueries.isEmpty { pathQueries = try paths.map { try db.prepare($0) } }
            for p in pathQueries {
                let out = try Self.points(p, raw)
                if !out.isEmpty { return out }
            }
            return []
        }
        var out: [GoogleActivitySegment] = []
        while try q.step() {
            let distance = q.optionalDouble(4)
            let raw = q.text(6) ?? "{}"
            out.append(
                GoogleActivitySegment(startMs: q.int64(0), endMs: q.int64(1), lat: q.optionalDouble(2), lon: q.optionalDouble(3), distanceM: distance,
                                      mode: q.text(5), startLatE7: q.text(7).flatMap { Double($0) }, startLonE7: q.text(8).flatMap { Double($0) },
                                      startLatLng: q.text(9), start: q.text(10), activity: q.text(11) ?? q.text(12),
                                      path: try path(raw)))
        }
        return out
    }

    /// An OwnTracks region's radius (`rad`, metres, a number or a numeric string as read): itself when above 0 and at
    /// most 100 km, else nil (the readers then take their default). A region is a place, not a country: a `rad` of
    /// 1e308 (set in the app, or a damaged record) held every place on Earth and named them all after itself.
    static func regionRadius(_ metres: Double?) -> Double? {
        guard let metres, metres > 0, metres <= 100_000 else { return nil }
        return metres
    }

    /// OwnTracks' regions of a device, in time order: each `transition` (its time, position, `desc` and `event`:
    /// `enter`, `leave`) and `waypoint` (a region the user defined: its centre, `desc` and `rad`), of a raw record
    /// that is JSON.
    public func ownTracksRegionEvents(device: Int64) throws
        -> [(kind: String?, timeMs: Int64?, lat: Double?, lon: Double?, desc: String?, event: String?, radiusM: Double?)]
    {
        let o = try db.prepare(
            """
            SELECT kind, time_ms, lat, lon, json -> '$.desc', json_extract(json, '$.event'), json_extract(json, '$.rad')
            FROM (SELECT kind, time_ms, lat, lon, raw, substr(raw, instr(raw, '{')) AS json FROM app_events
                  WHERE device_id = ? AND kind IN ('transition', 'waypoint'))
            WHERE json_valid(json)
            ORDER BY time_ms, raw
            """)
        o.bindInt(device, at: 1)
        var out: [(kind: String?, timeMs: Int64?, lat: Double?, lon: Double?, desc: String?, event: String?, radiusM: Double?)] = []
        while try o.step() {
            out.append((o.text(0), o.optionalInt64(1), o.optionalDouble(2), o.optionalDouble(3), NameText.jsonString(o.text(4)), o.text(5),
                        Store.regionRadius(o.isNull(6) ? nil : o.double(6))))
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
/// of its `raw` JSON the pass uses. A read of `app_events`, as ``GoogleVisitSegment`` and ``AppTripEvent`` are, not a
/// second row type of the table (that is ``AppEventRow``).
public struct EvidenceEvent: Sendable, Equatable {
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
    public func evidenceEvents(device: Int64, fromMs: Int64, toMs: Int64) throws -> [EvidenceEvent] {
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
        var out: [EvidenceEvent] = []
        func real(_ k: Int32) -> Double? { q.isNull(k) ? nil : q.double(k) }
        func int(_ k: Int32) -> Int64? { q.isNull(k) ? nil : q.int64(k) }
        while try q.step() {
            out.append(EvidenceEvent(
                kind: q.text(0) ?? "", timeMs: q.int64(1), lat: real(2), lon: real(3), startMs: int(4), endMs: int(5),
                desc: q.text(6), event: q.text(7), radiusM: Store.regionRadius(q.text(8).flatMap { Double($0) })))
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
