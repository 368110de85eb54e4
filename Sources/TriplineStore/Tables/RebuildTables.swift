import TriplineCore

// The rows the rebuild writes (docs/SCHEMA.md has every column), each with its one insert in ``RebuildTables``.
// The passes, the synthetic map fixture and the benchmarks all write through these; no other code in Sources/
// inserts into these tables.

/// A row of `stays`: a stationary period found by the stays pass.
public struct StayRow: Sendable, Equatable {
    /// A stable id (``StableID``) to store the stay under; nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var startMs: Int64
    public var endMs: Int64
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var points: Int
    /// The longest silence inside the stay, in seconds.
    public var gapS: Int64

    public init(id: Int64? = nil, deviceID: Int64, startMs: Int64, endMs: Int64, lat: Double, lon: Double, radiusM: Double, points: Int, gapS: Int64) {
        self.id = id
        self.deviceID = deviceID
        self.startMs = startMs
        self.endMs = endMs
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.points = points
        self.gapS = gapS
    }
}

/// A row of `places`: where a device's visits cluster.
public struct PlaceRow: Sendable, Equatable {
    /// A stable id (``StableID``); nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var name: String
    public var ssid: String?
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var visits: Int
    public var totalDwellS: Int64
    public var firstVisitMs: Int64?
    public var lastVisitMs: Int64?
    /// Where the centre is (migration 3): ISO 3166-1 alpha-2, English country name, nearest populated place.
    public var countryCode: String?
    public var country: String?
    public var locality: String?

    public init(
        id: Int64? = nil, deviceID: Int64, name: String, ssid: String?, lat: Double, lon: Double, radiusM: Double, visits: Int, totalDwellS: Int64,
        firstVisitMs: Int64?, lastVisitMs: Int64?, countryCode: String? = nil, country: String? = nil, locality: String? = nil
    ) {
        self.id = id
        self.countryCode = countryCode
        self.country = country
        self.locality = locality
        self.deviceID = deviceID
        self.name = name
        self.ssid = ssid
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.visits = visits
        self.totalDwellS = totalDwellS
        self.firstVisitMs = firstVisitMs
        self.lastVisitMs = lastVisitMs
    }
}

/// A row of `visits`: a stay assigned to a place, with its local offsets.
public struct VisitRow: Sendable, Equatable {
    /// The stay's id when the visit is a stay (the places pass); nil for a new id.
    public var id: Int64?
    public var deviceID: Int64
    public var placeID: Int64?
    public var startMs: Int64
    public var endMs: Int64
    public var startUTCOffsetS: Int?
    public var endUTCOffsetS: Int?
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var points: Int
    /// Where the visit's centre is (migration 3), as for places.
    public var countryCode: String?
    public var country: String?
    public var locality: String?

    public init(
        id: Int64? = nil, deviceID: Int64, placeID: Int64?, startMs: Int64, endMs: Int64, startUTCOffsetS: Int?, endUTCOffsetS: Int?,
        lat: Double, lon: Double, radiusM: Double, points: Int, countryCode: String? = nil, country: String? = nil, locality: String? = nil
    ) {
        self.countryCode = countryCode
        self.country = country
        self.locality = locality
        self.id = id
        self.deviceID = deviceID
        self.placeID = placeID
        self.startMs = startMs
        self.endMs = endMs
        self.startUTCOffsetS = startUTCOffsetS
        self.endUTCOffsetS = endUTCOffsetS
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.points = points
    }
}

/// A row of `trips`.
public struct TripRow: Sendable, Equatable {
    /// A stable id (``StableID``); nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var startMs: Int64
    public var endMs: Int64
    public var startUTCOffsetS: Int?
    public var endUTCOffsetS: Int?
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

    public init(
        id: Int64? = nil, deviceID: Int64, startMs: Int64, endMs: Int64, startUTCOffsetS: Int?, endUTCOffsetS: Int?, durationS: Double, movingS: Double,
        distanceM: Double, avgSpeedMps: Double?, maxSpeedMps: Double?, mode: String, legs: Int, fromVisitID: Int64?, toVisitID: Int64?,
        fromPlaceID: Int64?, toPlaceID: Int64?, startLat: Double?, startLon: Double?, endLat: Double?, endLon: Double?, points: Int, gaps: Int
    ) {
        self.id = id
        self.deviceID = deviceID
        self.startMs = startMs
        self.endMs = endMs
        self.startUTCOffsetS = startUTCOffsetS
        self.endUTCOffsetS = endUTCOffsetS
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
}

/// A row of `legs`: one mode's part of a trip.
public struct LegRow: Sendable, Equatable {
    public var tripID: Int64
    /// 0, 1, … in time order within the trip.
    public var leg: Int
    public var deviceID: Int64
    public var mode: String
    /// What decided the mode: `speed`, `motion`, `app`, `synthetic`.
    public var modeSource: String
    public var startMs: Int64
    public var endMs: Int64
    public var distanceM: Double
    public var durationS: Double
    public var points: Int

    public init(
        tripID: Int64, leg: Int, deviceID: Int64, mode: String, modeSource: String, startMs: Int64, endMs: Int64, distanceM: Double,
        durationS: Double, points: Int
    ) {
        self.tripID = tripID
        self.leg = leg
        self.deviceID = deviceID
        self.mode = mode
        self.modeSource = modeSource
        self.startMs = startMs
        self.endMs = endMs
        self.distanceM = distanceM
        self.durationS = durationS
        self.points = points
    }
}

/// A row of `days`: one device's totals for one local day.
public struct DayRow: Sendable, Equatable {
    public var deviceID: Int64
    /// `YYYY-MM-DD`, local.
    public var date: String
    public var utcOffsetS: Int?
    public var distanceM: Double
    public var movingS: Double
    public var trips: Int
    public var visits: Int
    public var places: Int
    /// The straight lines between the day's kept fixes (``distanceM`` is the estimated path; docs/EXPORTS.md).
    public var lineDistanceM: Double?

    public init(
        deviceID: Int64, date: String, utcOffsetS: Int?, distanceM: Double, movingS: Double, trips: Int, visits: Int, places: Int,
        lineDistanceM: Double? = nil
    ) {
        self.lineDistanceM = lineDistanceM
        self.deviceID = deviceID
        self.date = date
        self.utcOffsetS = utcOffsetS
        self.distanceM = distanceM
        self.movingS = movingS
        self.trips = trips
        self.visits = visits
        self.places = places
    }
}

/// A row of `app_trip_matches`: an app's own trip record and the rebuilt trip it overlaps most.
public struct AppTripMatchRow: Sendable, Equatable {
    public var eventID: Int64
    public var deviceID: Int64?
    public var tripID: Int64?
    public var overlap: Double?
    public var startDiffS: Double?
    public var endDiffS: Double?
    public var distanceDiffM: Double?
    public var appMode: String?
    public var tripMode: String?

    public init(
        eventID: Int64, deviceID: Int64?, tripID: Int64?, overlap: Double?, startDiffS: Double?, endDiffS: Double?, distanceDiffM: Double?,
        appMode: String?, tripMode: String?
    ) {
        self.eventID = eventID
        self.deviceID = deviceID
        self.tripID = tripID
        self.overlap = overlap
        self.startDiffS = startDiffS
        self.endDiffS = endDiffS
        self.distanceDiffM = distanceDiffM
        self.appMode = appMode
        self.tripMode = tripMode
    }
}

/// A row of `pass_runs`: one pass over one device's span, with the parameters it ran with and what it produced.
public struct PassRunRow: Sendable, Equatable {
    public var pass: String
    public var deviceID: Int64?
    public var fromMs: Int64?
    public var toMs: Int64?
    /// A JSON object of `key: value`.
    public var parameters: String
    /// A JSON object of `key: value`.
    public var stats: String?
    public var startedMs: Int64
    public var finishedMs: Int64?

    public init(pass: String, deviceID: Int64?, fromMs: Int64?, toMs: Int64?, parameters: String, stats: String?, startedMs: Int64, finishedMs: Int64?) {
        self.pass = pass
        self.deviceID = deviceID
        self.fromMs = fromMs
        self.toMs = toMs
        self.parameters = parameters
        self.stats = stats
        self.startedMs = startedMs
        self.finishedMs = finishedMs
    }
}

/// A row of `rebuild_state`: what a device's stored results were built with (the rebuild compares it with its own
/// parameters, time zone and code version, and recomputes when they differ).
public struct RebuildStateRow: Sendable, Equatable {
    public var deviceID: Int64
    /// A JSON object of every pass parameter, `"pass.key": value`; `{}` when unknown (results of an older Tripline).
    public var parameters: String
    /// The IANA zone of points without their own offset; empty when unknown.
    public var timezone: String
    public var algorithmVersion: Int
    /// The highest `points.import_id` rebuilt (drives incremental rebuilds); nil when none.
    public var lastImportID: Int64?
    /// Wall-clock time of the rebuild (bookkeeping).
    public var rebuiltMs: Int64

    public init(deviceID: Int64, parameters: String, timezone: String, algorithmVersion: Int, lastImportID: Int64?, rebuiltMs: Int64) {
        self.deviceID = deviceID
        self.parameters = parameters
        self.timezone = timezone
        self.algorithmVersion = algorithmVersion
        self.lastImportID = lastImportID
        self.rebuiltMs = rebuiltMs
    }
}

/// A row of `place_edits`: the user's own rename, merge or forget of a place, found again in every rebuild by the
/// centre the place had when it was edited (the nearest place within `places.radius_m` of it).
public struct PlaceEditRow: Sendable, Equatable {
    public enum Action: String, Sendable { case rename, merge, forget }
    public var id: Int64?
    public var deviceID: Int64
    public var action: Action
    public var lat: Double
    public var lon: Double
    /// rename: the new name.
    public var name: String?
    /// merge: the centre of the place the visits join.
    public var intoLat: Double?
    public var intoLon: Double?
    public var createdMs: Int64

    public init(id: Int64? = nil, deviceID: Int64, action: Action, lat: Double, lon: Double, name: String? = nil, intoLat: Double? = nil,
                intoLon: Double? = nil, createdMs: Int64) {
        self.id = id
        self.deviceID = deviceID
        self.action = action
        self.lat = lat
        self.lon = lon
        self.name = name
        self.intoLat = intoLat
        self.intoLon = intoLon
        self.createdMs = createdMs
    }
}

/// The one writer of the rebuild's tables: each row type's insert, prepared once per writer and reused. Create one
/// per transaction (a pass run, a fixture) from the ``Store``.
public final class RebuildTables {
    let db: Database
    private var statements: [String: Statement] = [:]

    public init(_ store: Store) { db = store.db }

    private func statement(_ sql: String) throws -> Statement {
        if let s = statements[sql] { s.reset(); return s }
        let s = try db.prepare(sql)
        statements[sql] = s
        return s
    }

    // MARK: Reading the rebuild's state

    /// The names of the devices that hold points or app events but were never rebuilt (no `rebuild_state` row):
    /// their trips, visits, places and days are empty until `tripline rebuild` runs.
    public func devicesNeverRebuilt() throws -> [String] {
        let s = try statement(
            """
            SELECT name FROM devices d WHERE NOT EXISTS (SELECT 1 FROM rebuild_state r WHERE r.device_id = d.id)
            AND (EXISTS (SELECT 1 FROM points_hot WHERE key BETWEEN d.id << \(PointKey.timeBits) AND (d.id << \(PointKey.timeBits)) + \(PointKey.maxTimeMs))
                 OR EXISTS (SELECT 1 FROM app_events e WHERE e.device_id = d.id))
            ORDER BY name
            """)
        var names: [String] = []
        while try s.step() { names.append(s.text(0) ?? "") }
        return names
    }

    // MARK: Replacing a span: each pass deletes what it is about to write again.

    /// Deletes the flags of a device's points with `fromMs ≤ time_ms < toMs`.
    public func deleteFlags(device: Int64, fromMs: Int64, toMs: Int64) throws {
        try db.run("DELETE FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms < ?", [.integer(device), .integer(fromMs), .integer(toMs)])
    }

    /// Deletes a device's stays that start in `fromMs ..< toMs`.
    public func deleteStays(device: Int64, fromMs: Int64, toMs: Int64) throws {
        try db.run("DELETE FROM stays WHERE device_id = ? AND start_ms >= ? AND start_ms < ?", [.integer(device), .integer(fromMs), .integer(toMs)])
    }

    /// Deletes one stay (the evidence pass replaces the stays it amends).
    public func deleteStay(id: Int64) throws {
        try db.run("DELETE FROM stays WHERE id = ?", [.integer(id)])
    }

    /// Deletes all of a device's places and visits (places are device-wide, so the places pass rewrites them all).
    public func deletePlacesAndVisits(device: Int64) throws {
        try db.run("DELETE FROM visits WHERE device_id = ?", [.integer(device)])
        try db.run("DELETE FROM places WHERE device_id = ?", [.integer(device)])
    }

    /// The local offsets of a device's visits that start before `beforeMs`, by visit id, with the times they were
    /// worked out for.
    public func visitOffsets(device: Int64, beforeMs: Int64) throws -> [Int64: (startMs: Int64, endMs: Int64, start: Int?, end: Int?)] {
        let q = try db.prepare("SELECT id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s FROM visits WHERE device_id = ? AND start_ms < ?")
        q.reset()
        q.bindInt(device, at: 1)
        q.bindInt(beforeMs, at: 2)
        var out: [Int64: (startMs: Int64, endMs: Int64, start: Int?, end: Int?)] = [:]
        while try q.step() {
            out[q.int64(0)] = (q.int64(1), q.int64(2), q.isNull(3) ? nil : q.int(3), q.isNull(4) ? nil : q.int(4))
        }
        return out
    }

    /// Deletes a device's places, and those of its visits that start in `fromMs ..< toMs` or whose stay is gone;
    /// returns the ids of the visits left.
    public func deletePlacesAndVisits(device: Int64, startingFromMs fromMs: Int64, toMs: Int64) throws -> Set<Int64> {
        try db.run(
            "DELETE FROM visits WHERE device_id = ? AND ((start_ms >= ? AND start_ms < ?) OR id NOT IN (SELECT id FROM stays WHERE device_id = ?))",
            [.integer(device), .integer(fromMs), .integer(toMs), .integer(device)])
        try db.run("DELETE FROM places WHERE device_id = ?", [.integer(device)])
        let left = try db.prepare("SELECT id FROM visits WHERE device_id = ?")
        left.reset()
        left.bindInt(device, at: 1)
        var ids = Set<Int64>()
        while try left.step() { ids.insert(left.int64(0)) }
        return ids
    }

    /// Deletes a device's trips that start in `fromMs ..< toMs`, with their legs.
    public func deleteTrips(device: Int64, startingFromMs fromMs: Int64, toMs: Int64) throws {
        let span: [SQLValue] = [.integer(device), .integer(fromMs), .integer(toMs)]
        try db.run("DELETE FROM legs WHERE trip_id IN (SELECT id FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ?)", span)
        try db.run("DELETE FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ?", span)
    }

    /// Deletes a device's day totals from `fromDate` to `toDate` (`YYYY-MM-DD`, inclusive).
    public func deleteDays(device: Int64, fromDate: String, toDate: String) throws {
        try db.run("DELETE FROM days WHERE device_id = ? AND date >= ? AND date <= ?", [.integer(device), .text(fromDate), .text(toDate)])
    }

    // MARK: Rows

    /// Inserts a stay and returns its id.
    @discardableResult
    public func insert(_ r: StayRow) throws -> Int64 {
        let s = try statement("INSERT INTO stays(id, device_id, start_ms, end_ms, lat, lon, radius_m, points, gap_s) VALUES (?,?,?,?,?,?,?,?,?)")
        return try insert(s, id: r.id, "stays", [.integer(r.deviceID), .integer(r.startMs), .integer(r.endMs), .real(r.lat), .real(r.lon),
                                               .real(r.radiusM), .integer(Int64(r.points)), .integer(r.gapS)])
    }

    /// Inserts a place and returns its id.
    @discardableResult
    public func insert(_ r: PlaceRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO places(id, device_id, name, ssid, lat, lon, radius_m, visits, total_dwell_s, first_visit_ms, last_visit_ms,
              country_code, country, locality)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        return try insert(s, id: r.id, "places", [.integer(r.deviceID), .text(r.name), .optional(r.ssid), .real(r.lat), .real(r.lon), .real(r.radiusM),
                                                .integer(Int64(r.visits)), .integer(r.totalDwellS), .optional(r.firstVisitMs), .optional(r.lastVisitMs),
                                                .optional(r.countryCode), .optional(r.country), .optional(r.locality)])
    }

    /// Sets a place's visit totals (for writers that learn them after the place's visits).
    public func updateTotals(place id: Int64, visits: Int, totalDwellS: Int64, firstVisitMs: Int64?, lastVisitMs: Int64?) throws {
        let s = try statement("UPDATE places SET visits = ?, total_dwell_s = ?, first_visit_ms = ?, last_visit_ms = ? WHERE id = ?")
        try s.bind([.integer(Int64(visits)), .integer(totalDwellS), .optional(firstVisitMs), .optional(lastVisitMs), .integer(id)])
        _ = try s.step()
    }

    /// Inserts a visit and returns its id (the row's own id when given).
    @discardableResult
    public func insert(_ r: VisitRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO visits(id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points,
              country_code, country, locality)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        try s.bind([.optional(r.id), .integer(r.deviceID), .optional(r.placeID), .integer(r.startMs), .integer(r.endMs),
                    .optional(r.startUTCOffsetS.map(Int64.init)), .optional(r.endUTCOffsetS.map(Int64.init)), .real(r.lat), .real(r.lon),
                    .real(r.radiusM), .integer(Int64(r.points)), .optional(r.countryCode), .optional(r.country), .optional(r.locality)])
        _ = try s.step()
        return db.lastInsertRowID
    }

    /// Inserts a trip and returns its id.
    @discardableResult
    public func insert(_ r: TripRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO trips(id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
              avg_speed_mps, max_speed_mps, mode, legs, from_visit_id, to_visit_id, from_place_id, to_place_id,
              start_lat, start_lon, end_lat, end_lon, points, gaps)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        return try insert(s, id: r.id, "trips", [
            .integer(r.deviceID), .integer(r.startMs), .integer(r.endMs), .optional(r.startUTCOffsetS.map(Int64.init)),
            .optional(r.endUTCOffsetS.map(Int64.init)), .real(r.durationS), .real(r.movingS), .real(r.distanceM), .optional(r.avgSpeedMps),
            .optional(r.maxSpeedMps), .text(r.mode), .integer(Int64(r.legs)), .optional(r.fromVisitID), .optional(r.toVisitID),
            .optional(r.fromPlaceID), .optional(r.toPlaceID), .optional(r.startLat), .optional(r.startLon), .optional(r.endLat),
            .optional(r.endLon), .integer(Int64(r.points)), .integer(Int64(r.gaps)),
        ])
    }

    /// Runs an insert whose first parameter is the row id and returns the id stored. A given (stable) id that is
    /// already taken (a 53-bit collision, see ``StableID``) moves on to the next free one, so the insert never fails
    /// for it; nil lets SQLite choose.
    private func insert(_ s: Statement, id: Int64?, _ table: String, _ values: [SQLValue]) throws -> Int64 {
        guard var id else {
            try s.bind([.null] + values)
            _ = try s.step()
            return db.lastInsertRowID
        }
        let taken = try statement("SELECT 1 FROM \(table) WHERE id = ?")
        while true {
            taken.reset()
            taken.bindInt(id, at: 1)
            if try !taken.step() { break }
            id = id == (1 << 53) - 1 ? 1 : id + 1
        }
        s.reset()
        try s.bind([.integer(id)] + values)
        _ = try s.step()
        return id
    }

    /// Sets a trip's distance: the estimated path, the straight lines between its kept fixes and how the path was
    /// estimated (`track`, `history`, `circuity`: the paths pass); its average speed follows the path, and its maximum
    /// is raised to that average when the path makes it higher (the maximum over any part is at least the mean).
    public func setDistance(trip id: Int64, distanceM: Double, lineDistanceM: Double, method: String) throws {
        let s = try statement(
            "UPDATE trips SET distance_m = ?1, line_distance_m = ?2, distance_method = ?3, avg_speed_mps = CASE WHEN moving_s > 0 THEN ?1 / moving_s END, "
                + "max_speed_mps = CASE WHEN moving_s > 0 THEN max(coalesce(max_speed_mps, 0), ?1 / moving_s) ELSE max_speed_mps END WHERE id = ?4")
        try s.bind([.real(distanceM), .real(lineDistanceM), .text(method), .integer(id)])
        _ = try s.step()
    }

    /// Makes a trip's legs add up to its distance (`distanceM`, the paths pass's estimate): each leg keeps its share of
    /// the legs' straight-line sum; legs that cover no distance at all (a trip no fix saw) share it by duration, else
    /// the first leg takes it. Applied again it changes nothing.
    public func scaleLegs(trip id: Int64, toDistanceM distanceM: Double) throws {
        let sums = try statement("SELECT total(distance_m), total(duration_s), count(*) FROM legs WHERE trip_id = ?")
        try sums.bind([.integer(id)])
        guard try sums.step(), sums.int64(2) > 0 else { return }
        let metres = sums.double(0), seconds = sums.double(1)
        let s: Statement
        if metres > 0 {
            s = try statement("UPDATE legs SET distance_m = distance_m * ?1 WHERE trip_id = ?2")
            try s.bind([.real(distanceM / metres), .integer(id)])
        } else if seconds > 0 {
            s = try statement("UPDATE legs SET distance_m = duration_s * ?1 WHERE trip_id = ?2")
            try s.bind([.real(distanceM / seconds), .integer(id)])
        } else {
            s = try statement("UPDATE legs SET distance_m = CASE WHEN leg = 0 THEN ?1 ELSE 0 END WHERE trip_id = ?2")
            try s.bind([.real(distanceM), .integer(id)])
        }
        _ = try s.step()
    }

    /// Inserts a leg.
    public func insert(_ r: LegRow) throws {
        let s = try statement(
            "INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points) VALUES (?,?,?,?,?,?,?,?,?,?)")
        try s.bind([.integer(r.tripID), .integer(Int64(r.leg)), .integer(r.deviceID), .text(r.mode), .text(r.modeSource), .integer(r.startMs),
                    .integer(r.endMs), .real(r.distanceM), .real(r.durationS), .integer(Int64(r.points))])
        _ = try s.step()
    }

    /// Inserts (or replaces) a day's totals.
    public func insert(_ r: DayRow) throws {
        let s = try statement(
            "INSERT OR REPLACE INTO days(device_id, date, utc_offset_s, distance_m, moving_s, trips, visits, places, line_distance_m) VALUES (?,?,?,?,?,?,?,?,?)")
        try s.bind([.integer(r.deviceID), .text(r.date), .optional(r.utcOffsetS.map(Int64.init)), .real(r.distanceM), .real(r.movingS),
                    .integer(Int64(r.trips)), .integer(Int64(r.visits)), .integer(Int64(r.places)), .optional(r.lineDistanceM)])
        _ = try s.step()
    }

    /// Sets a point's cleaning flags (`point_flags`; 0 is never stored).
    public func setFlags(device: Int64, timeMs: Int64, flags: UInt8) throws {
        let s = try statement("INSERT OR REPLACE INTO point_flags(device_id, time_ms, flags) VALUES (?, ?, ?)")
        s.bindInt(device, at: 1)
        s.bindInt(timeMs, at: 2)
        s.bindInt(Int64(flags), at: 3)
        _ = try s.step()
    }

    /// Inserts (or replaces) an app trip's match.
    public func insert(_ r: AppTripMatchRow) throws {
        let s = try statement(
            """
            INSERT OR REPLACE INTO app_trip_matches(event_id, device_id, trip_id, overlap, start_diff_s, end_diff_s, distance_diff_m, app_mode, trip_mode)
            VALUES (?,?,?,?,?,?,?,?,?)
            """)
        try s.bind([.integer(r.eventID), .optional(r.deviceID), .optional(r.tripID), .optional(r.overlap), .optional(r.startDiffS),
                    .optional(r.endDiffS), .optional(r.distanceDiffM), .optional(r.appMode), .optional(r.tripMode)])
        _ = try s.step()
    }

    /// Records a pass run.
    public func insert(_ r: PassRunRow) throws {
        let s = try statement(
            "INSERT INTO pass_runs(pass, device_id, from_ms, to_ms, parameters, stats, started_ms, finished_ms) VALUES (?,?,?,?,?,?,?,?)")
        try s.bind([.text(r.pass), .optional(r.deviceID), .optional(r.fromMs), .optional(r.toMs), .text(r.parameters), .optional(r.stats),
                    .integer(r.startedMs), .optional(r.finishedMs)])
        _ = try s.step()
    }

    /// Records what a device's results were built with (replacing the previous record).
    public func insert(_ r: RebuildStateRow) throws {
        try db.run(
            "INSERT OR REPLACE INTO rebuild_state(device_id, parameters, timezone, algorithm_version, last_import_id, rebuilt_ms) VALUES (?,?,?,?,?,?)",
            [.integer(r.deviceID), .text(r.parameters), .text(r.timezone), .integer(Int64(r.algorithmVersion)), .optional(r.lastImportID),
             .integer(r.rebuiltMs)])
    }

    /// Records a user's edit of a place and returns its id (`tripline places rename|merge|forget`).
    @discardableResult
    public func insert(_ r: PlaceEditRow) throws -> Int64 {
        try db.run(
            "INSERT INTO place_edits(id, device_id, action, lat, lon, name, into_lat, into_lon, created_ms) VALUES (?,?,?,?,?,?,?,?,?)",
            [.optional(r.id), .integer(r.deviceID), .text(r.action.rawValue), .real(r.lat), .real(r.lon), .optional(r.name), .optional(r.intoLat),
             .optional(r.intoLon), .integer(r.createdMs)])
        return db.lastInsertRowID
    }

    /// Points the device's trips at the places their visits now belong to (the places pass rewrites every place; a
    /// trip outside the span it recomputes keeps its visits, whose place may have changed, merged or been forgotten).
    public func refreshTripPlaces(device: Int64) throws {
        try db.run(
            """
            UPDATE trips SET
              from_place_id = (SELECT place_id FROM visits v WHERE v.id = trips.from_visit_id),
              to_place_id = (SELECT place_id FROM visits v WHERE v.id = trips.to_visit_id)
            WHERE device_id = ?
            """, [.integer(device)])
    }
}

extension Store {
    /// The value of `settings.key`, or nil.
    public func setting(_ key: String) throws -> String? {
        try db.scalarText("SELECT value FROM settings WHERE key = ?", [.text(key)])
    }

    /// Sets `settings.key` (the one writer of `settings`).
    public func setSetting(_ key: String, _ value: String) throws {
        try db.run("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", [.text(key), .text(value)])
    }
}
