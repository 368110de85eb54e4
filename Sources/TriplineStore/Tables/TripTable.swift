import TriplineCore

// `trips`: the journeys between visits. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `trips`.
public struct TripRow: Sendable, Equatable {
    /// A stable id (``StableID``); nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var startMs: Int64
    public var endMs: Int64
    public var startUTCOffset: UTCOffset?
    public var endUTCOffset: UTCOffset?
    public var durationS: Double
    public var movingS: Double
    public var distanceM: Double
    public var avgSpeedMps: Double?
    public var maxSpeedMps: Double?
    /// The mode of the longest leg by distance.
    public var mode: String
    public var legs: Int
    public var fromVisitID: Int64?
    public var toVisitID: Int64?
    public var fromPlaceID: Int64?
    public var toPlaceID: Int64?
    public var startLat: Double?
    public var startLon: Double?
    public var endLat: Double?
    public var endLon: Double?
    public var points: Int
    public var gaps: Int
    /// The straight lines between the kept fixes, and how ``distanceM`` was estimated (`track`, `history`,
    /// `circuity`): set by the paths pass (``setDistance(_:lineDistanceM:method:)``), NULL before it ran.
    public var lineDistanceM: Double?
    public var distanceMethod: String?
    /// The maximum speed the trips pass gave (``maxSpeedMps`` before the paths pass raised it to the path's and the
    /// legs' averages): where a `--pass paths` run starts from, as a full rebuild does (migration 11). Nil for the app's
    /// own trips, and when the trips pass had none.
    public var lineMaxSpeedMps: Double?
    /// `points` (rebuilt from fixes) or `app` (an app's own timeline, migration 9; written by
    /// ``RebuildTables/insertAppTrip(_:legs:lineDistanceM:method:)``).
    public var source: String

    public init(
        id: Int64? = nil, deviceID: Int64, startMs: Int64, endMs: Int64, startUTCOffset: UTCOffset?, endUTCOffset: UTCOffset?,
        durationS: Double, movingS: Double, distanceM: Double, avgSpeedMps: Double?, maxSpeedMps: Double?, mode: String, legs: Int,
        fromVisitID: Int64?, toVisitID: Int64?,
        fromPlaceID: Int64?, toPlaceID: Int64?, startLat: Double?, startLon: Double?, endLat: Double?, endLon: Double?, points: Int, gaps: Int,
        lineDistanceM: Double? = nil, distanceMethod: String? = nil, source: String = "points", lineMaxSpeedMps: Double? = nil
    ) {
        self.lineMaxSpeedMps = lineMaxSpeedMps
        self.lineDistanceM = lineDistanceM
        self.distanceMethod = distanceMethod
        self.source = source
        self.id = id
        self.deviceID = deviceID
        self.startMs = startMs
        self.endMs = endMs
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset
        self.durationS = durationS
        self.movingS = movingS
        self.distanceM = distanceM
        self.avgSpeedMps = avgSpeedMps
        self.maxSpeedMps = maxSpeedMps
        self.mode = mode
        self.legs = legs
        self.fromVisitID = fromVisitID
        self.toVisitID = toVisitID
        self.fromPlaceID = fromPlaceID
        self.toPlaceID = toPlaceID
        self.startLat = startLat
        self.startLon = startLon
        self.endLat = endLat
        self.endLon = endLon
        self.points = points
        self.gaps = gaps
    }

    /// Sets the trip's distance: the estimated path, the straight lines between its kept fixes and how the path was
    /// estimated (`track`, `history`, `circuity`: the paths pass; `app`, `app_path`, `app_line`: the timeline pass);
    /// its average speed follows the path, and its maximum is raised to that average when the path makes it higher
    /// (the maximum over any part is at least the mean).
    public mutating func setDistance(_ distanceM: Double, lineDistanceM: Double, method: String) {
        self.distanceM = distanceM
        self.lineDistanceM = lineDistanceM
        distanceMethod = method
        if movingS > 0 {
            avgSpeedMps = distanceM / movingS
            maxSpeedMps = max(maxSpeedMps ?? 0, distanceM / movingS)
        } else {
            avgSpeedMps = nil
        }
    }
}

extension RebuildTables {
    /// Deletes a device's trips that start in `fromMs ..< toMs`, with their legs.
    public func deleteTrips(device: Int64, startingFromMs fromMs: Int64, toMs: Int64) throws {
        let span: [SQLValue] = [.integer(device), .integer(fromMs), .integer(toMs)]
        try db.run("DELETE FROM legs WHERE trip_id IN (SELECT id FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ?)", span)
        try db.run("DELETE FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ?", span)
    }

    /// Inserts a trip and returns its id.
    @discardableResult
    public func insert(_ r: TripRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO trips(id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
              avg_speed_mps, max_speed_mps, mode, legs, from_visit_id, to_visit_id, from_place_id, to_place_id,
              start_lat, start_lon, end_lat, end_lon, points, gaps, line_distance_m, distance_method, line_max_speed_mps)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        return try insert(s, id: r.id, "trips", [
            .integer(r.deviceID), .integer(r.startMs), .integer(r.endMs), .optional(r.startUTCOffset.map(\.seconds64)),
            .optional(r.endUTCOffset.map(\.seconds64)), .real(r.durationS), .real(r.movingS), .real(r.distanceM), .optional(r.avgSpeedMps),
            .optional(r.maxSpeedMps), .text(r.mode), .integer(Int64(r.legs)), .optional(r.fromVisitID), .optional(r.toVisitID),
            .optional(r.fromPlaceID), .optional(r.toPlaceID), .optional(r.startLat), .optional(r.startLon), .optional(r.endLat),
            .optional(r.endLon), .integer(Int64(r.points)), .integer(Int64(r.gaps)), .optional(r.lineDistanceM),
            r.distanceMethod.map { .text($0) } ?? .null, .optional(r.lineMaxSpeedMps),
        ])
    }

    /// Writes a stored trip's distance as ``TripRow/setDistance(_:lineDistanceM:method:)`` set it: the distance, the
    /// straight lines, the method and the speeds (the paths pass run alone, on the stored trips).
    public func setDistance(_ r: TripRow) throws {
        let s = try statement(
            "UPDATE trips SET distance_m = ?, line_distance_m = ?, distance_method = ?, avg_speed_mps = ?, max_speed_mps = ? WHERE id = ?")
        try s.bind([.real(r.distanceM), .optional(r.lineDistanceM), r.distanceMethod.map { .text($0) } ?? .null, .optional(r.avgSpeedMps),
                    .optional(r.maxSpeedMps), .integer(r.id ?? 0)])
        _ = try s.step()
    }

    /// Points the device's trips at the places their visits now belong to (the places pass rewrites every place; a
    /// trip outside the span it recomputes keeps its visits, whose place may have changed, merged or been forgotten).
    /// Only the trips whose place changes are written: the rest already point where they would be pointed (a rewrite
    /// of every trip cost a daily rebuild of six years 14 ms, and each window of a full one as much). Returns whether
    /// any trip was re-pointed: a trip measured earlier whose places moved may take another `history` distance now
    /// (`Rebuild.staleHistoryRestart`).
    @discardableResult
    public func refreshTripPlaces(device: Int64) throws -> Bool {
        try db.run(
            """
            UPDATE trips SET
              from_place_id = (SELECT place_id FROM visits v WHERE v.id = trips.from_visit_id),
              to_place_id = (SELECT place_id FROM visits v WHERE v.id = trips.to_visit_id)
            WHERE device_id = ?
              AND (from_place_id IS NOT (SELECT place_id FROM visits v WHERE v.id = trips.from_visit_id)
                   OR to_place_id IS NOT (SELECT place_id FROM visits v WHERE v.id = trips.to_visit_id))
            """, [.integer(device)])
        return db.changes > 0
    }
}

// MARK: Reading trips

/// A trip as the exports and the map read it: its row (``row``'s fields read through, `trip.startMs`) and the names
/// of the places it joins.
@dynamicMemberLookup
public struct TripListing: Sendable, Equatable {
    public var row: TripRow
    public var fromPlace: String?
    public var toPlace: String?

    /// The stored id (a row read back always has one).
    public var id: Int64 { row.id ?? 0 }

    public init(row: TripRow, fromPlace: String?, toPlace: String?) {
        self.row = row
        self.fromPlace = fromPlace
        self.toPlace = toPlace
    }

    public subscript<T>(dynamicMember key: WritableKeyPath<TripRow, T>) -> T {
        get { row[keyPath: key] }
        set { row[keyPath: key] = newValue }
    }
}

extension Store {
    /// The trips of `device` (every device when nil) that start in `[fromMs, throughMs]`, by start time then id, with
    /// the names of their places.
    public func forEachTrip(device: Int64?, startingFromMs fromMs: Int64, throughMs: Int64, _ body: (TripListing) throws -> Void) throws {
        let s = try db.prepare(
            """
            SELECT t.id, t.device_id, t.start_ms, t.end_ms, t.start_utc_offset_s, t.end_utc_offset_s, t.duration_s,
                   t.moving_s, t.distance_m, t.avg_speed_mps, t.max_speed_mps, t.mode, t.legs, t.from_place_id,
                   t.to_place_id, t.start_lat, t.start_lon, t.end_lat, t.end_lon, t.points, t.gaps, fp.name, tp.name,
                   t.line_distance_m, t.distance_method, t.source, t.from_visit_id, t.to_visit_id
            FROM trips t
            LEFT JOIN places fp ON fp.id = t.from_place_id
            LEFT JOIN places tp ON tp.id = t.to_place_id
            WHERE (?1 IS NULL OR t.device_id = ?1) AND t.start_ms BETWEEN ?2 AND ?3
            ORDER BY t.start_ms, t.id
            """)
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(throughMs, at: 3)
        while try s.step() {
            let row = TripRow(
                id: s.int64(0), deviceID: s.int64(1), startMs: s.int64(2), endMs: s.int64(3),
                startUTCOffset: s.optionalInt64(4).map(UTCOffset.init(stored:)), endUTCOffset: s.optionalInt64(5).map(UTCOffset.init(stored:)),
                durationS: s.double(6), movingS: s.double(7), distanceM: s.double(8),
                avgSpeedMps: s.optionalDouble(9), maxSpeedMps: s.optionalDouble(10), mode: s.text(11) ?? "", legs: s.int(12),
                fromVisitID: s.optionalInt64(26), toVisitID: s.optionalInt64(27), fromPlaceID: s.optionalInt64(13), toPlaceID: s.optionalInt64(14),
                startLat: s.optionalDouble(15), startLon: s.optionalDouble(16), endLat: s.optionalDouble(17), endLon: s.optionalDouble(18),
                points: s.int(19), gaps: s.int(20), lineDistanceM: s.optionalDouble(23), distanceMethod: s.text(24),
                source: s.text(25) ?? "points")
            try body(TripListing(row: row, fromPlace: s.text(21), toPlace: s.text(22)))
        }
    }
}

extension Store {
    /// The trips of `device` (every device when nil), by start time (the scorers' read).
    public func trips(device: Int64? = nil) throws -> [TripRow] {
        let s = try db.prepare(
            """
            SELECT id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
                   avg_speed_mps, max_speed_mps, mode, legs, from_visit_id, to_visit_id, from_place_id, to_place_id,
                   start_lat, start_lon, end_lat, end_lon, points, gaps, line_distance_m, distance_method, source, line_max_speed_mps
            FROM trips WHERE ?1 IS NULL OR device_id = ?1 ORDER BY start_ms
            """)
        s.bindInt(device, at: 1)
        var out: [TripRow] = []
        while try s.step() {
            out.append(
                TripRow(
                    id: s.int64(0), deviceID: s.int64(1), startMs: s.int64(2), endMs: s.int64(3),
                    startUTCOffset: s.optionalInt64(4).map(UTCOffset.init(stored:)), endUTCOffset: s.optionalInt64(5).map(UTCOffset.init(stored:)),
                    durationS: s.double(6), movingS: s.double(7), distanceM: s.double(8), avgSpeedMps: s.optionalDouble(9),
                    maxSpeedMps: s.optionalDouble(10), mode: s.text(11) ?? "", legs: s.int(12), fromVisitID: s.optionalInt64(13),
                    toVisitID: s.optionalInt64(14), fromPlaceID: s.optionalInt64(15), toPlaceID: s.optionalInt64(16),
                    startLat: s.optionalDouble(17), startLon: s.optionalDouble(18), endLat: s.optionalDouble(19), endLon: s.optionalDouble(20),
                    points: s.int(21), gaps: s.int(22), lineDistanceM: s.optionalDouble(23), distanceMethod: s.text(24),
                    source: s.text(25) ?? "points", lineMaxSpeedMps: s.optionalDouble(26)))
        }
        return out
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// The trips of `device` starting in `fromMs ..< untilMs` (only those from `source` when given): how many, their
    /// legs and their total distance in metres.
    public func tripTotals(device: Int64, startingFromMs fromMs: Int64, untilMs: Int64, source: String? = nil) throws
        -> (trips: Int, legs: Int, distanceM: Double)
    {
        let st = try db.prepare(
            """
            WITH t AS (SELECT id, distance_m FROM trips WHERE device_id = ?1 AND start_ms >= ?2 AND start_ms < ?3 AND (?4 IS NULL OR source = ?4))
            SELECT (SELECT count(*) FROM t), (SELECT total(distance_m) FROM t), (SELECT count(*) FROM legs WHERE trip_id IN (SELECT id FROM t))
            """)
        try st.bind([.integer(device), .integer(fromMs), .integer(untilMs), .optional(source)])
        _ = try st.step()
        return (st.int(0), st.int(2), st.double(1))
    }
}

// MARK: Read by the timeline pass

extension Store {
    /// The start and end of every trip of `device`, by start (what the fixes, and Google's trips kept, claim).
    public func tripSpans(device: Int64) throws -> [(startMs: Int64, endMs: Int64)] {
        let q = try db.prepare("SELECT start_ms, end_ms FROM trips WHERE device_id = ? ORDER BY start_ms")
        q.bindInt(device, at: 1)
        var out: [(startMs: Int64, endMs: Int64)] = []
        while try q.step() { out.append((q.int64(0), q.int64(1))) }
        return out
    }
}

// MARK: Read by the trips, paths, metrics and apptrips passes

/// The columns of a whole `trips` row, in the order ``tripRow(_:)`` reads them.
let tripColumns = """
    id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
    avg_speed_mps, max_speed_mps, mode, legs, from_visit_id, to_visit_id, from_place_id, to_place_id,
    start_lat, start_lon, end_lat, end_lon, points, gaps, line_distance_m, distance_method, source, line_max_speed_mps
    """

/// A row of `trips` read from the columns ``tripColumns`` names (the first at `at`).
func tripRow(_ s: Statement, at k: Int32 = 0) -> TripRow {
    TripRow(
        id: s.int64(k), deviceID: s.int64(k + 1), startMs: s.int64(k + 2), endMs: s.int64(k + 3),
        startUTCOffset: s.optionalInt64(k + 4).map(UTCOffset.init(stored:)), endUTCOffset: s.optionalInt64(k + 5).map(UTCOffset.init(stored:)),
        durationS: s.double(k + 6), movingS: s.double(k + 7), distanceM: s.double(k + 8), avgSpeedMps: s.optionalDouble(k + 9),
        maxSpeedMps: s.optionalDouble(k + 10), mode: s.text(k + 11) ?? "", legs: s.int(k + 12), fromVisitID: s.optionalInt64(k + 13),
        toVisitID: s.optionalInt64(k + 14), fromPlaceID: s.optionalInt64(k + 15), toPlaceID: s.optionalInt64(k + 16),
        startLat: s.optionalDouble(k + 17), startLon: s.optionalDouble(k + 18), endLat: s.optionalDouble(k + 19), endLon: s.optionalDouble(k + 20),
        points: s.int(k + 21), gaps: s.int(k + 22), lineDistanceM: s.optionalDouble(k + 23), distanceMethod: s.text(k + 24),
        source: s.text(k + 25) ?? "points", lineMaxSpeedMps: s.optionalDouble(k + 26))
}

/// A trip as the paths pass measures it: its time span, its straight-line distance, and where the stays and visits
/// at its ends are (`trips` joined to `stays` and `visits` by its visit ids).
public struct TripEnds: Sendable, Equatable {
    public var id: Int64
    public var startMs: Int64
    public var endMs: Int64
    /// The straight lines between its kept fixes: `line_distance_m`, or `distance_m` before the paths pass set it.
    public var lineDistanceM: Double
    /// The centre of the stay it left (reached); nil when it has no such visit, or the stay is not stored.
    public var fromLat: Double?
    public var fromLon: Double?
    public var toLat: Double?
    public var toLon: Double?
    /// The place of the visit it left (reached), nil when that visit has none (or is not stored).
    public var fromPlaceID: Int64?
    public var toPlaceID: Int64?
    /// Whether it left (reached) a visit (`from_visit_id`, `to_visit_id` not NULL): its first (last) fix is then
    /// the stay's, not its own.
    public var hasFromVisit: Bool
    public var hasToVisit: Bool
    /// The highest speed its fixes show, as the trips pass gave it (`line_max_speed_mps`); nil when it had none.
    public var maxSpeedMps: Double?

    public init(
        id: Int64, startMs: Int64, endMs: Int64, lineDistanceM: Double, fromLat: Double?, fromLon: Double?, toLat: Double?, toLon: Double?,
        fromPlaceID: Int64?, toPlaceID: Int64?, hasFromVisit: Bool, hasToVisit: Bool, maxSpeedMps: Double? = nil
    ) {
        self.maxSpeedMps = maxSpeedMps
        self.id = id
        self.startMs = startMs
        self.endMs = endMs
        self.lineDistanceM = lineDistanceM
        self.fromLat = fromLat
        self.fromLon = fromLon
        self.toLat = toLat
        self.toLon = toLon
        self.fromPlaceID = fromPlaceID
        self.toPlaceID = toPlaceID
        self.hasFromVisit = hasFromVisit
        self.hasToVisit = hasToVisit
    }
}

/// A stored trip as the paths pass's `history` weighs it (``RebuildTables/measuredTrips(device:)``).
public struct MeasuredTrip: Sendable, Equatable {
    public var startMs: Int64
    public var endMs: Int64
    /// The highest speed its fixes show, as the trips pass gave it (`line_max_speed_mps`).
    public var maxSpeedMps: Double?
    /// `distance_method`: `track`, `circuity` or `history` (nil before the paths pass measured it).
    public var method: String?
    public var distanceM: Double
    public var lineDistanceM: Double
    /// The places of the visits it left and reached, as they now stand.
    public var fromPlaceID: Int64?
    public var toPlaceID: Int64?

    public init(
        startMs: Int64, method: String?, distanceM: Double, lineDistanceM: Double, fromPlaceID: Int64?, toPlaceID: Int64?, endMs: Int64? = nil,
        maxSpeedMps: Double? = nil
    ) {
        self.startMs = startMs
        self.endMs = endMs ?? startMs
        self.maxSpeedMps = maxSpeedMps
        self.method = method
        self.distanceM = distanceM
        self.lineDistanceM = lineDistanceM
        self.fromPlaceID = fromPlaceID
        self.toPlaceID = toPlaceID
    }
}

extension RebuildTables {
    /// A device's trips rebuilt from fixes (`source` `points`) that start in `fromMs ..< toMs`, by start time (the
    /// metrics pass's read when the trips are not in memory).
    public func pointTrips(device: Int64, startingFromMs fromMs: Int64, beforeMs toMs: Int64) throws -> [TripRow] {
        let s = try statement(
            "SELECT \(tripColumns) FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ? AND source = 'points' ORDER BY start_ms")
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(toMs, at: 3)
        var out: [TripRow] = []
        while try s.step() { out.append(tripRow(s)) }
        return out
    }

    /// A device's trips rebuilt from its fixes (`source` = `points`; the app's own trips keep the distance the app gave,
    /// the timeline pass) that start in `fromMs ..< toMs`, with the stays and visits at their ends, by start time then id
    /// (the paths pass's read when it runs alone, `--pass paths`).
    public func tripEnds(device: Int64, startingFromMs fromMs: Int64, beforeMs toMs: Int64) throws -> [TripEnds] {
        let q = try statement(
            """
            SELECT t.id, t.start_ms, t.end_ms, coalesce(t.line_distance_m, t.distance_m), fs.lat, fs.lon, ts.lat, ts.lon,
              fv.place_id, tv.place_id, t.from_visit_id IS NOT NULL, t.to_visit_id IS NOT NULL, t.line_max_speed_mps
            FROM trips t LEFT JOIN stays fs ON fs.id = t.from_visit_id LEFT JOIN stays ts ON ts.id = t.to_visit_id
              LEFT JOIN visits fv ON fv.id = t.from_visit_id LEFT JOIN visits tv ON tv.id = t.to_visit_id
            WHERE t.device_id = ? AND t.start_ms >= ? AND t.start_ms < ? AND t.source = 'points' ORDER BY t.start_ms, t.id
            """)
        q.bindInt(device, at: 1)
        q.bindInt(fromMs, at: 2)
        q.bindInt(toMs, at: 3)
        var rows: [TripEnds] = []
        while try q.step() {
            let from = !q.isNull(4), to = !q.isNull(6)
            rows.append(TripEnds(
                id: q.int64(0), startMs: q.int64(1), endMs: q.int64(2), lineDistanceM: q.double(3),
                fromLat: from ? q.double(4) : nil, fromLon: from ? q.double(5) : nil, toLat: to ? q.double(6) : nil, toLon: to ? q.double(7) : nil,
                fromPlaceID: q.isNull(8) ? nil : q.int64(8), toPlaceID: q.isNull(9) ? nil : q.int64(9), hasFromVisit: q.int(10) != 0,
                hasToVisit: q.int(11) != 0, maxSpeedMps: q.optionalDouble(12)))
        }
        return rows
    }

    /// The distances of the device's latest (at most `limit`) trips measured along their track (`distance_method`
    /// `track`) that started before `beforeMs` between places `a` and `b` (in either direction, by their visits'
    /// places), latest first (the paths pass's `history`).
    public func trackDistances(device: Int64, beforeMs: Int64, between a: Int64, and b: Int64, limit: Int = 9) throws -> [Double] {
        let history = try statement(
            """
            SELECT t.distance_m FROM trips t JOIN visits fv ON fv.id = t.from_visit_id JOIN visits tv ON tv.id = t.to_visit_id
            WHERE t.device_id = ? AND t.start_ms < ? AND t.distance_method = 'track'
              AND ((fv.place_id = ? AND tv.place_id = ?) OR (fv.place_id = ? AND tv.place_id = ?))
            ORDER BY t.start_ms DESC LIMIT ?
            """)
        history.bindInt(device, at: 1)
        history.bindInt(beforeMs, at: 2)
        history.bindInt(a, at: 3)
        history.bindInt(b, at: 4)
        history.bindInt(b, at: 5)
        history.bindInt(a, at: 6)
        history.bindInt(Int64(limit), at: 7)
        var known: [Double] = []
        while try history.step() { known.append(history.double(0)) }
        return known
    }

    /// Whether the device has a trip rebuilt from fixes that the paths pass measured as sparse (`circuity` or
    /// `history`): without one, no stored measure can be stale (a dense phone's trips are all `track`).
    public func hasSparseTrips(device: Int64) throws -> Bool {
        let q = try statement(
            "SELECT 1 FROM trips WHERE device_id = ? AND source = 'points' AND distance_method IN ('circuity', 'history') LIMIT 1")
        q.bindInt(device, at: 1)
        return try q.step()
    }

    /// A device's trips rebuilt from fixes as the paths pass's `history` weighs them, by start time then id: start, how
    /// the distance was measured (`distance_method`), the distance and its straight lines, and the places of the visits
    /// at their ends (`from_place_id`, `to_place_id`: a rebuild's last window points every trip at its visits' places,
    /// ``refreshTripPlaces(device:)``; a join with `visits` cost three times as much on ten years of trips). The
    /// rebuild's check that no stored `history` is stale (`Rebuild.staleHistoryRestart`).
    public func measuredTrips(device: Int64) throws -> [MeasuredTrip] {
        let q = try statement(
            """
            SELECT t.start_ms, CASE t.distance_method WHEN 'track' THEN 1 WHEN 'circuity' THEN 2 WHEN 'history' THEN 3 ELSE 0 END,
              t.distance_m, coalesce(t.line_distance_m, t.distance_m), t.from_place_id, t.to_place_id, t.end_ms, t.line_max_speed_mps
            FROM trips t WHERE t.device_id = ? AND t.source = 'points' ORDER BY t.start_ms, t.id
            """)
        q.bindInt(device, at: 1)
        // The method as a code: the literals below need no string read per row (ten years hold about 9,000 trips).
        let methods: [String?] = [nil, "track", "circuity", "history"]
        var rows: [MeasuredTrip] = []
        while try q.step() {
            rows.append(MeasuredTrip(
                startMs: q.int64(0), method: methods[Int(q.int64(1))], distanceM: q.double(2), lineDistanceM: q.double(3),
                fromPlaceID: q.isNull(4) ? nil : q.int64(4), toPlaceID: q.isNull(5) ? nil : q.int64(5), endMs: q.int64(6),
                maxSpeedMps: q.optionalDouble(7)))
        }
        return rows
    }

    /// The longest duration (ms) of the device's trips rebuilt from fixes; 0 when it has none.
    public func longestPointTripMs(device: Int64) throws -> Int64 {
        let s = try statement("SELECT max(end_ms - start_ms) FROM trips WHERE device_id = ? AND source = 'points'")
        s.bindInt(device, at: 1)
        guard try s.step(), !s.isNull(0) else { return 0 }
        return s.int64(0)
    }

    /// The device's trips rebuilt from fixes that overlap `[fromMs, throughMs]` (`end_ms >= fromMs`, `start_ms <=
    /// throughMs`) and start at or after `startingFromMs` (a bound on the index: the earliest a trip that overlaps can
    /// start), in the index's order (the apptrips pass's read).
    public func pointTrips(device: Int64, overlappingFromMs fromMs: Int64, throughMs: Int64, startingFromMs: Int64) throws -> [TripRow] {
        let s = try statement(
            "SELECT \(tripColumns) FROM trips WHERE device_id = ? AND end_ms >= ? AND start_ms <= ? AND start_ms >= ? AND source = 'points'")
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(throughMs, at: 3)
        s.bindInt(startingFromMs, at: 4)
        var out: [TripRow] = []
        while try s.step() { out.append(tripRow(s)) }
        return out
    }
}

// MARK: Read by the paths pass

extension RebuildTables {
    /// A device's stored trips (of any source) that start in `fromMs ..< toMs`, by id (the paths pass run alone: it
    /// measures and writes the stored trips).
    public func trips(device: Int64, startingFromMs fromMs: Int64, beforeMs toMs: Int64) throws -> [Int64: TripRow] {
        let s = try statement("SELECT \(tripColumns) FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ?")
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(toMs, at: 3)
        var out: [Int64: TripRow] = [:]
        while try s.step() {
            let row = tripRow(s)
            out[row.id ?? 0] = row
        }
        return out
    }
}
