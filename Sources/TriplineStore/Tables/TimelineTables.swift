// The timeline pass's writes (docs/PASSES.md, "timeline"): visits, places, trips and legs taken from an app's own
// timeline (Google's visits and activities) where the fixes made nothing. The rows themselves go through the
// ordinary inserts of ``RebuildTables``; these mark them as the app's (`source = 'app'`, migration 9) and keep
// Google's place id and activity type, and replace the device's app rows before they are written again.

import TriplineCore

extension RebuildTables {
    /// Deletes a device's visits taken from an app's timeline, and the places only they made (`source = 'app'`; a
    /// place of the fixes that app visits joined keeps its id and is rewritten by the places pass).
    public func deleteAppVisitsAndPlaces(device: Int64) throws {
        try db.run("DELETE FROM visits WHERE device_id = ? AND source = 'app'", [.integer(device)])
        try db.run("DELETE FROM places WHERE device_id = ? AND source = 'app'", [.integer(device)])
    }

    /// Sets the visit totals of a device's places that app visits belong to from the visits table (as the places
    /// pass sums its stays: count, dwell in whole seconds, first start and last end).
    public func refreshAppPlaceTotals(device: Int64) throws {
        try db.run(
            """
            UPDATE places SET
              visits = (SELECT count(*) FROM visits v WHERE v.place_id = places.id),
              total_dwell_s = (SELECT CAST(round(total((v.end_ms - v.start_ms) / 1000.0)) AS INTEGER) FROM visits v WHERE v.place_id = places.id),
              first_visit_ms = (SELECT min(v.start_ms) FROM visits v WHERE v.place_id = places.id),
              last_visit_ms = (SELECT max(v.end_ms) FROM visits v WHERE v.place_id = places.id)
            WHERE device_id = ? AND id IN (SELECT place_id FROM visits WHERE device_id = ? AND source = 'app')
            """, [.integer(device), .integer(device)])
    }

    /// Deletes a device's trips taken from an app's timeline that start in `fromMs ..< toMs`, with their legs.
    public func deleteAppTrips(device: Int64, startingFromMs fromMs: Int64, toMs: Int64) throws {
        let span: [SQLValue] = [.integer(device), .integer(fromMs), .integer(toMs)]
        try db.run(
            "DELETE FROM legs WHERE trip_id IN (SELECT id FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ? AND source = 'app')", span)
        try db.run("DELETE FROM trips WHERE device_id = ? AND start_ms >= ? AND start_ms < ? AND source = 'app'", span)
    }

    /// Inserts a visit taken from an app's timeline (`source = 'app'`) with the app's place id, under `row.id` or, when
    /// that id is taken (a 53-bit collision), the next free one; returns the id stored.
    @discardableResult
    public func insertAppVisit(_ row: VisitRow, appPlaceID: String?) throws -> Int64 {
        var r = row
        if var id = r.id {
            while try db.scalarInt("SELECT 1 FROM visits WHERE id = ?", [.integer(id)]) != nil {
                id = id == (1 << 53) - 1 ? 1 : id + 1
            }
            r.id = id
        }
        let id = try insert(r)
        try db.run("UPDATE visits SET source = 'app', app_place_id = ? WHERE id = ?", [.optional(appPlaceID), .integer(id)])
        return id
    }

    /// Inserts a place founded by an app's visits (`source = 'app'`), with the app's place id; returns the id stored.
    @discardableResult
    public func insertAppPlace(_ row: PlaceRow, appPlaceID: String?) throws -> Int64 {
        let id = try insert(row)
        try db.run("UPDATE places SET source = 'app', app_place_id = ? WHERE id = ?", [.optional(appPlaceID), .integer(id)])
        return id
    }

    /// Inserts a trip taken from an app's timeline with its legs, one per activity of the app (`source = 'app'` on
    /// all; each leg keeps the app's activity type as written), its distance and how it was measured; returns the
    /// trip's id. Each leg's `line` (``AppLine``: Google's start, path points and end) is stored in `legs.app_line` (NULL when
    /// it has no position).
    @discardableResult
    public func insertAppTrip(_ trip: TripRow, legs: [(leg: LegRow, activity: String?, line: AppLine)], lineDistanceM: Double, method: String) throws
        -> Int64
    {
        var measured = trip
        measured.setDistance(trip.distanceM, lineDistanceM: lineDistanceM, method: method)
        let id = try insert(measured)
        try db.run("UPDATE trips SET source = 'app', avg_speed_mps = ? WHERE id = ?", [.optional(trip.avgSpeedMps), .integer(id)])
        for (leg, activity, line) in legs {
            var l = leg
            l.tripID = id
            try insert(l)
            try db.run("UPDATE legs SET source = 'app', app_activity = ?, app_line = ? WHERE trip_id = ? AND leg = ?",
                       [.optional(activity), line.isEmpty ? .null : .blob(line.bytes), .integer(id), .integer(Int64(l.leg))])
        }
        return id
    }
}

extension RebuildTables {
    /// Renames a place (the user's edit of a place Google's visits founded).
    public func renamePlace(id: Int64, name: String) throws {
        try db.run("UPDATE places SET name = ? WHERE id = ?", [.text(name), .integer(id)])
    }

    /// Moves the app visits of place `from` to place `into` and drops `from` (the user merged a place Google's visits
    /// founded into another).
    public func mergeAppPlace(_ from: Int64, into: Int64) throws {
        try db.run("UPDATE visits SET place_id = ? WHERE place_id = ? AND source = 'app'", [.integer(into), .integer(from)])
        try db.run("DELETE FROM places WHERE id = ? AND source = 'app'", [.integer(from)])
    }

    /// Drops a place Google's visits founded, with its visits (the user forgot it; the app events stay stored).
    public func forgetAppPlace(_ id: Int64) throws {
        try db.run("DELETE FROM visits WHERE place_id = ? AND source = 'app'", [.integer(id)])
        try db.run("DELETE FROM places WHERE id = ? AND source = 'app'", [.integer(id)])
    }
}

// MARK: Read by the timeline pass

extension Store {
    /// The legs of a device's trips taken from an app's timeline that start in `fromMs ..< toMs` and its app visits
    /// that overlap it (ending at or after `fromMs`), by start: start, end, the offset of the trip's start (0 when
    /// unknown), and for a leg its distance and its straight lines (its `line_distance_m`, the straight lines along
    /// its line, since algorithm version 52; for a leg stored before, its share of the trip's, in proportion to its
    /// distance, else its time), and whether it is its trip's first; the metrics pass's day sums.
    public func appDaySpans(device: Int64, fromMs: Int64, toMs: Int64) throws
        -> [(startMs: Int64, endMs: Int64, startUTCOffset: UTCOffset, distanceM: Double, lineDistanceM: Double, isLeg: Bool, isTrip: Bool,
             endUTCOffset: UTCOffset)]
    {
        // A leg's end offset: its trip's where it ends the trip (a flight's landing), else its trip's start offset.
        let q = try db.prepare(
            """
            SELECT l.start_ms, l.end_ms, coalesce(t.start_utc_offset_s, 0), l.distance_m,
                   coalesce(l.line_distance_m, coalesce(t.line_distance_m, t.distance_m) * CASE WHEN t.distance_m > 0 THEN l.distance_m / t.distance_m
                       WHEN t.end_ms > t.start_ms THEN (l.end_ms - l.start_ms) * 1.0 / (t.end_ms - t.start_ms) ELSE 1 END),
                   1, l.leg = 0,
                   CASE WHEN l.end_ms = t.end_ms THEN coalesce(t.end_utc_offset_s, t.start_utc_offset_s, 0) ELSE coalesce(t.start_utc_offset_s, 0) END
            FROM trips t JOIN legs l ON l.trip_id = t.id
            WHERE t.device_id = ?1 AND t.start_ms >= ?2 AND t.start_ms < ?3 AND t.source = 'app'
            UNION ALL
            SELECT start_ms, end_ms, coalesce(start_utc_offset_s, 0), 0, 0, 0, 0, coalesce(start_utc_offset_s, 0) FROM visits
            WHERE device_id = ?1 AND end_ms >= ?2 AND start_ms < ?3 AND source = 'app'
            ORDER BY 1
            """)
        q.bindInt(device, at: 1)
        q.bindInt(fromMs, at: 2)
        q.bindInt(toMs, at: 3)
        var rows: [(startMs: Int64, endMs: Int64, startUTCOffset: UTCOffset, distanceM: Double, lineDistanceM: Double, isLeg: Bool, isTrip: Bool,
                    endUTCOffset: UTCOffset)] = []
        while try q.step() {
            rows.append((q.int64(0), q.int64(1), UTCOffset(stored: q.int64(2)), q.double(3), q.double(4), q.int(5) == 1, q.int(6) == 1,
                         UTCOffset(stored: q.int64(7))))
        }
        return rows
    }
}
