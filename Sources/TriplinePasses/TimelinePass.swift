import TriplineCore
import TriplineGeography
import TriplineStore

/// Pass `timeline`: Google's own reading of the days (Semantic Location History's `placeVisit`/`activitySegment`,
/// Timeline.json's and the phone exports' `visit`/`activity` segments, stored by the import as app events `visit` and
/// `trip`) becomes visits, places, trips and legs where the fixes made nothing.
///
/// **Precedence.** What the fixes made wins: a moment is *covered* when it lies inside a visit or trip that the
/// passes before this one rebuilt from points (`source = 'points'`). Each Google segment is used for the longest part
/// of it that nothing claimed yet — neither the points' results nor Google's earlier segments (visits first, then
/// activities) — when that part is at least `min_free_ratio` of the segment, clipped to it; otherwise it stays
/// evidence only (the `apptrips` pass compares Google's trips with the rebuilt ones). A Google visit that overlaps a
/// visit made from points at the same place (within `join_m`) is that visit and is not used. Child visits
/// (`hierarchyLevel` > 0: a visit inside another one) are not visits of their own.
///
/// **Rows.** Visits, places, trips and legs made here say `source = 'app'`. A visit joins the place of its Google
/// place id (one place per place id per device), else a place made from points within max(`join_m`, its radius),
/// else founds a place that keeps the place id (`app_place_id`) and Google's name (else its address, else
/// Home/Work from its semantic type, else `near <locality>` as the places pass names places). A trip has one leg of
/// Google's activity (mode mapped onto Tripline's by the import; anything else `unknown`; `legs.app_activity` keeps
/// Google's word, `mode_source` `app`), leaves and reaches the visits that end and start within `link_s` of it, and
/// measures Google's `distance` (`distance_method` `app`), else the line through its path points (`app_path`), else
/// the straight line between its ends (`app_line`); a clipped trip keeps the share of it its kept time is. Local
/// offsets come from the zone at the row's position and instant (``LocalZones``), never from 0.
public struct TimelinePass: Pass {
    public static let name = "timeline"

    public struct Parameters: PassParameters {
        /// A Google segment is used when its longest part that nothing claimed is at least this share of it.
        public var minFreeRatio: Double = 0.5
        /// A Google visit joins a place made from points within max(this, the place's radius) (metres); as
        /// `places.radius_m`.
        public var joinM: Double = 75
        /// A trip leaves (reaches) the visit that ends (starts) within this many seconds of its start (end).
        public var linkS: Double = 900
        public init() {}
        public static var keys: Keys { ["min_free_ratio": \.minFreeRatio, "join_m": \.joinM, "link_s": \.linkS] }
        public static var ranges: Ranges { ["min_free_ratio": .share, "join_m": .distance, "link_s": .duration] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Tripline's modes (``LegMode``); any other word Google's activity type was mapped to by the import is `unknown`.
    static let modes: Set<String> = Set(LegMode.allCases.map(\.rawValue))

    /// One Google segment as the import stored it, with what this pass reads from its raw JSON.
    struct Segment {
        var startMs: Int64
        var endMs: Int64
        var lat: Double?
        var lon: Double?
        var distanceM: Double?
        var mode: String?
        var raw: String
    }

    /// Time intervals claimed so far, sorted by start and disjoint.
    struct Claims {
        var spans: [(Int64, Int64)] = []

        /// Adds `[s, e)` and keeps the list disjoint.
        /// - Complexity: O(log n) to find the place, plus the intervals joined and the shift of the array (none when
        ///   intervals come in time order, as they mostly do).
        mutating func add(_ s: Int64, _ e: Int64) {
            guard e > s else { return }
            var lo = s, hi = e
            // The first interval that ends at or after `s` (one that ends exactly there joins).
            var a = lowerIndex(s)
            if a > 0 && spans[a - 1].1 == s { a -= 1 }
            var b = a
            while b < spans.count && spans[b].0 <= hi {
                lo = min(lo, spans[b].0)
                hi = max(hi, spans[b].1)
                b += 1
            }
            spans.replaceSubrange(a..<b, with: [(lo, hi)])
        }

        /// The longest part of `[s, e)` that no claimed interval covers.
        func longestFree(_ s: Int64, _ e: Int64) -> (Int64, Int64) {
            var best = (s, s)
            var cursor = s
            var i = lowerIndex(s)
            while i < spans.count && spans[i].0 < e {
                let (a, b) = spans[i]
                if a > cursor, min(a, e) - cursor > best.1 - best.0 { best = (cursor, min(a, e)) }
                cursor = max(cursor, b)
                i += 1
            }
            if e > cursor, e - cursor > best.1 - best.0 { best = (cursor, e) }
            return best
        }

        /// The first interval that ends after `s`.
        func lowerIndex(_ s: Int64) -> Int {
            var lo = 0, hi = spans.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if spans[mid].1 <= s { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    /// A position string as Google writes it: `geo:48.1,11.5`, `48.1°, 11.5°` or `48.1,11.5`.
    static func position(_ text: String?) -> (Double, Double)? {
        guard var t = text else { return nil }
        if t.hasPrefix("geo:") { t = String(t.dropFirst(4)) }
        let parts = t.split(separator: ",")
        guard parts.count == 2 else { return nil }
        func number(_ s: Substring) -> Double? { Double(s.replacingOccurrences(of: "°", with: "").trimmingCharacters(in: " ")) }
        guard let lat = number(parts[0]), let lon = number(parts[1]), abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return (lat, lon)
    }

    /// The device's Google segments of one kind (`visit`, `trip`) starting in `fromMs ..< toMs`, in time order.
    static func segments(kind: String, device: Int64, fromMs: Int64, toMs: Int64, store: Store) throws -> [Segment] {
        let q = try store.db.prepare(
            """
            SELECT e.start_ms, e.end_ms, e.lat, e.lon, e.distance_m, e.mode, e.raw FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind = ? AND i.format LIKE '%google/%' AND e.start_ms >= ? AND e.start_ms < ? AND e.end_ms > e.start_ms
            ORDER BY e.start_ms, e.end_ms, e.raw
            """)
        try q.bind([.integer(device), .text(kind), .integer(fromMs), .integer(toMs)])
        var out: [Segment] = []
        while try q.step() {
            out.append(Segment(startMs: q.int64(0), endMs: q.int64(1), lat: q.optionalDouble(2), lon: q.optionalDouble(3),
                               distanceM: q.optionalDouble(4), mode: q.text(5), raw: q.text(6) ?? "{}"))
        }
        return out
    }

    /// Values read from a segment's raw JSON by `paths` (SQLite's JSON functions; NULL when the text is not JSON).
    static func read(_ raw: String, _ paths: [String], prepare: (String) throws -> Statement) throws -> [String?] {
        let select = paths.map { "CASE WHEN json_valid(?1) THEN CAST(json_extract(?1, '\($0)') AS TEXT) END" }.joined(separator: ", ")
        let q = try prepare("SELECT " + select)
        try q.bind([.text(raw)])
        guard try q.step() else { return paths.map { _ in nil } }
        return paths.indices.map { q.isNull(Int32($0)) ? nil : q.text(Int32($0)) }
    }

    /// The points of a Semantic Location History activity's `waypointPath` (road-snapped), else its
    /// `simplifiedRawPath`, in order.
    static func path(_ raw: String, prepare: (String) throws -> Statement) throws -> [(Double, Double)] {
        for root in ["$.activitySegment.waypointPath.waypoints", "$.activitySegment.simplifiedRawPath.points"] {
            let q = try prepare(
                """
                SELECT json_extract(value, '$.latE7'), json_extract(value, '$.lngE7') FROM json_each(CASE WHEN json_valid(?1) THEN ?1 ELSE '{}' END, '\(root)')
                ORDER BY CAST(key AS INTEGER)
                """)
            try q.bind([.text(raw)])
            var out: [(Double, Double)] = []
            while try q.step() {
                if q.isNull(0) || q.isNull(1) { continue }
                let lat = q.double(0) / 1e7, lon = q.double(1) / 1e7
                if abs(lat) <= 90 && abs(lon) <= 180 { out.append((lat, lon)) }
            }
            if !out.isEmpty { return out }
        }
        return []
    }

    struct PlaceEntry {
        var id: Int64
        var lat: Double
        var lon: Double
        var radiusM: Double
        var fromPoints: Bool
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        let device = work.deviceID
        let tables = RebuildTables(store)
        // The JSON reads, prepared once per run.
        var prepared: [String: Statement] = [:]
        func statement(_ sql: String) throws -> Statement {
            if let s = prepared[sql] { s.reset(); return s }
            let s = try store.db.prepare(sql)
            prepared[sql] = s
            return s
        }
        // Visits and places are device-wide (the places pass rewrites them all), so Google's visits are all placed again.
        try tables.deleteAppVisitsAndPlaces(device: device)
        // Google's trips of the span the trips pass recomputed.
        let tripsFrom = work.previousStay?.endMs ?? max(work.fromMs, work.processFromMs)
        let tripsTo = work.replaceToMs
        try tables.deleteAppTrips(device: device, startingFromMs: tripsFrom, toMs: tripsTo)

        // What the fixes made (and Google's trips kept from before the span) claims its time first.
        var claims = Claims()
        var pointVisits: [(id: Int64, start: Int64, end: Int64, lat: Double, lon: Double, place: Int64?)] = []
        let v = try store.db.prepare("SELECT id, start_ms, end_ms, lat, lon, place_id FROM visits WHERE device_id = ? ORDER BY start_ms, id")
        v.bindInt(device, at: 1)
        while try v.step() {
            pointVisits.append((v.int64(0), v.int64(1), v.int64(2), v.double(3), v.double(4), v.isNull(5) ? nil : v.int64(5)))
            claims.add(v.int64(1), v.int64(2))
        }
        let t = try store.db.prepare("SELECT start_ms, end_ms FROM trips WHERE device_id = ? ORDER BY start_ms")
        t.bindInt(device, at: 1)
        while try t.step() { claims.add(t.int64(0), t.int64(1)) }

        var places: [PlaceEntry] = []
        let p = try store.db.prepare("SELECT id, lat, lon, radius_m FROM places WHERE device_id = ? ORDER BY id")
        p.bindInt(device, at: 1)
        while try p.step() { places.append(PlaceEntry(id: p.int64(0), lat: p.double(1), lon: p.double(2), radiusM: p.double(3), fromPoints: true)) }

        // The visits of the fixes that overlap `[s, e)` start before `e` and no earlier than the longest one before `s`.
        let longestPointVisit = pointVisits.map { $0.end - $0.start }.max() ?? 0
        let pointStarts = pointVisits.map(\.start)
        func seenByPoints(_ s: Int64, _ e: Int64, _ lat: Double, _ lon: Double) -> Bool {
            var k = lowerBound(pointStarts, e) - 1
            while k >= 0 && pointVisits[k].start >= s - longestPointVisit {
                let v = pointVisits[k]
                if v.end > s && Geo.distance(v.lat, v.lon, lat, lon) <= parameters.joinM { return true }
                k -= 1
            }
            return false
        }

        // Visits.
        var placeOfAppID: [String: Int] = [:]
        var visits: [(id: Int64, start: Int64, end: Int64, lat: Double, lon: Double, place: Int64)] = []
        var visitCount = 0, placeCount = 0
        for s in try Self.segments(kind: "visit", device: device, fromMs: Int64.min, toMs: Int64.max, store: store) {
            guard let lat = s.lat, let lon = s.lon else { continue }
            let f = try Self.read(s.raw, [
                "$.placeVisit.location.placeId", "$.visit.topCandidate.placeId", "$.visit.topCandidate.placeID",
                "$.placeVisit.location.name", "$.placeVisit.location.address",
                "$.placeVisit.location.semanticType", "$.visit.topCandidate.semanticType", "$.visit.hierarchyLevel",
            ], prepare: statement)
            if let level = f[7].flatMap({ Double($0) }), level > 0 { continue }  // a visit inside another one
            // The fixes saw this visit: a visit made from points at the same place overlaps it.
            if seenByPoints(s.startMs, s.endMs, lat, lon) { continue }
            let (start, end) = claims.longestFree(s.startMs, s.endMs)
            guard end > start, Double(end - start) >= parameters.minFreeRatio * Double(s.endMs - s.startMs) else { continue }
            claims.add(start, end)
            let appID = (f[0] ?? f[1] ?? f[2]).flatMap { $0.isEmpty ? nil : $0 }
            var k: Int? = appID.flatMap { placeOfAppID[$0] }
            if k == nil {
                // The nearest place made from points that reaches the visit; without a Google place id, also the
                // nearest place Google's visits founded.
                var bestD = Double.infinity
                for (n, e) in places.enumerated() where e.fromPoints || appID == nil {
                    let d = Geo.distance(e.lat, e.lon, lat, lon)
                    if d <= max(parameters.joinM, e.radiusM) && d < bestD { bestD = d; k = n }
                }
            }
            if k == nil {
                let whereIs = PlacesPass.whereIs(lat, lon)
                let semantic = Self.semanticName(f[5] ?? f[6])
                let name = [f[3], f[4]].compactMap { $0?.trimmingCharacters(in: " \t\r\n") }.first { !$0.isEmpty } ?? semantic
                    ?? whereIs.locality.map { "near " + $0 + whereIs.offset } ?? PlacesPass.coordinateName(lat, lon)
                let id = try tables.insertAppPlace(
                    PlaceRow(id: StableID.make(.place, device: device, startMs: start), deviceID: device, name: name, ssid: nil, lat: lat,
                             lon: lon, radiusM: 0, visits: 0, totalDwellS: 0, firstVisitMs: nil, lastVisitMs: nil,
                             countryCode: whereIs.countryCode, country: whereIs.country, locality: whereIs.locality),
                    appPlaceID: appID)
                places.append(PlaceEntry(id: id, lat: lat, lon: lon, radiusM: 0, fromPoints: false))
                k = places.count - 1
                placeCount += 1
            }
            if let appID, placeOfAppID[appID] == nil { placeOfAppID[appID] = k! }
            let whereIs = PlacesPass.whereIs(lat, lon)
            let id = try tables.insertAppVisit(
                VisitRow(id: StableID.make(.appVisit, device: device, startMs: start), deviceID: device, placeID: places[k!].id,
                         startMs: start, endMs: end, startUTCOffsetS: Int(work.zones.offset(atMs: start, latitude: lat, longitude: lon)),
                         endUTCOffsetS: Int(work.zones.offset(atMs: end, latitude: lat, longitude: lon)), lat: lat, lon: lon, radiusM: 0,
                         points: 0, countryCode: whereIs.countryCode, country: whereIs.country, locality: whereIs.locality),
                appPlaceID: appID)
            visits.append((id, start, end, lat, lon, places[k!].id))
            visitCount += 1
        }
        // The user's edits of places Google's visits founded (`tripline places rename|merge|forget`), in the order
        // they were made: each finds its place again as the nearest place within `join_m` of the centre it had when
        // edited, as the places pass finds the places of the fixes (which it edits itself).
        var gone = Set<Int64>(), forgotten = Set<Int64>()
        var movedTo: [Int64: Int64] = [:]
        func nearestPlace(_ lat: Double, _ lon: Double) -> PlaceEntry? {
            var best: PlaceEntry? = nil
            var bestD = parameters.joinM
            for e in places where !gone.contains(e.id) {
                let d = Geo.distance(e.lat, e.lon, lat, lon)
                if d <= bestD { bestD = d; best = e }
            }
            return best
        }
        for edit in try PlacesPass.edits(device: device, store: store) {
            guard let place = nearestPlace(edit.lat, edit.lon), !place.fromPoints else { continue }
            switch edit.action {
            case .rename:
                if let name = edit.name { try tables.renamePlace(id: place.id, name: name) }
            case .merge:
                guard let lat = edit.intoLat, let lon = edit.intoLon, let into = nearestPlace(lat, lon), into.id != place.id else { continue }
                try tables.mergeAppPlace(place.id, into: into.id)
                gone.insert(place.id)
                movedTo[place.id] = into.id
            case .forget:
                try tables.forgetAppPlace(place.id)
                gone.insert(place.id)
                forgotten.insert(place.id)
            }
        }
        visits = visits.compactMap { v in
            guard !forgotten.contains(v.place) else { return nil }
            var v = v
            while let into = movedTo[v.place] { v.place = into }
            return v
        }
        visitCount = visits.count
        try tables.refreshAppPlaceTotals(device: device)
        // Every place of the device is written: name them all, in the documented order (``PlaceNames``).
        if !work.windowsFollow { try PlaceNames.assign(device: device, store: store, zones: work.zones, joinM: parameters.joinM) }

        // Every visit a trip may leave or reach, by end and by start.
        let all = visits.map { ($0.id, $0.start, $0.end, $0.lat, $0.lon, Optional($0.place)) }
            + pointVisits.map { ($0.id, $0.start, $0.end, $0.lat, $0.lon, $0.place) }
        let link = Int64(parameters.linkS * 1000)
        let byEnd = all.sorted { ($0.2, $0.0) < ($1.2, $1.0) }, byStart = all.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        let ends = byEnd.map(\.2), starts = byStart.map(\.1)
        /// The visit whose end (start) is nearest `ms`, within `link_s`; the lower id on a tie.
        func nearest(_ ms: Int64, byEnd end: Bool) -> (Int64, Int64, Double, Double, Int64?)? {
            let list = end ? byEnd : byStart, keys = end ? ends : starts
            var best: (Int64, Int64, Double, Double, Int64?)? = nil
            var bestD = Int64.max
            var k = lowerBound(keys, ms - link)
            while k < keys.count && keys[k] <= ms + link {
                let a = list[k]
                let d = abs(keys[k] - ms)
                if d < bestD || (d == bestD && a.0 < best!.0) { bestD = d; best = (a.0, d, a.3, a.4, a.5) }
                k += 1
            }
            return best
        }

        // Trips.
        var tripCount = 0
        var total = 0.0
        for s in try Self.segments(kind: "trip", device: device, fromMs: tripsFrom, toMs: tripsTo, store: store) {
            let (start, end) = claims.longestFree(s.startMs, s.endMs)
            guard end > start, Double(end - start) >= parameters.minFreeRatio * Double(s.endMs - s.startMs) else { continue }
            claims.add(start, end)
            let f = try Self.read(s.raw, [
                "$.activitySegment.startLocation.latitudeE7", "$.activitySegment.startLocation.longitudeE7",
                "$.activity.start.latLng", "$.activity.start", "$.activitySegment.activityType", "$.activity.topCandidate.type",
            ], prepare: statement)
            let from = nearest(start, byEnd: true), to = nearest(end, byEnd: false)
            var a: (Double, Double)? = nil
            if let la = f[0].flatMap({ Double($0) }), let lo = f[1].flatMap({ Double($0) }), abs(la) <= 9e8, abs(lo) <= 18e8 {
                a = (la / 1e7, lo / 1e7)
            }
            a = a ?? Self.position(f[2]) ?? Self.position(f[3]) ?? from.map { ($0.2, $0.3) }
            var b: (Double, Double)? = nil
            if let la = s.lat, let lo = s.lon { b = (la, lo) }
            b = b ?? to.map { ($0.2, $0.3) }
            let line = a.flatMap { a in b.map { Geo.distance(a.0, a.1, $0.0, $0.1) } } ?? 0
            var distance = line
            var method = "app_line"
            if let d = s.distanceM, d > 0 {
                distance = d
                method = "app"
            } else {
                let pts = try Self.path(s.raw, prepare: statement)
                if !pts.isEmpty {
                    var chain = pts
                    if let a { chain.insert(a, at: 0) }
                    if let b { chain.append(b) }
                    distance = zip(chain, chain.dropFirst()).reduce(0) { $0 + Geo.distance($1.0.0, $1.0.1, $1.1.0, $1.1.1) }
                    method = "app_path"
                }
            }
            let share = Double(end - start) / Double(s.endMs - s.startMs)
            distance *= share
            let mode = s.mode.map { Self.modes.contains($0) ? $0 : "unknown" } ?? "unknown"
            let duration = Double(end - start) / 1000
            // The offsets of where the trip was at its ends: the visit it left (reached) when it is linked to one, as a
            // trip rebuilt from points takes its stay's (Google's activity may start elsewhere than its visit ended:
            // a "walk" at the departure airport that starts as the visit at the arrival airport ends).
            let here = from.map { ($0.2, $0.3) } ?? a ?? b, there = to.map { ($0.2, $0.3) } ?? b ?? a
            let startOffset = work.zones.offset(atMs: start, latitude: here?.0 ?? .nan, longitude: here?.1 ?? .nan)
            let endOffset = work.zones.offset(atMs: end, latitude: there?.0 ?? .nan, longitude: there?.1 ?? .nan)
            try tables.insertAppTrip(
                TripRow(id: StableID.make(.trip, device: device, startMs: start), deviceID: device, startMs: start, endMs: end,
                        startUTCOffsetS: Int(startOffset), endUTCOffsetS: Int(endOffset), durationS: duration, movingS: duration,
                        distanceM: distance, avgSpeedMps: duration > 0 ? distance / duration : nil, maxSpeedMps: nil, mode: mode, legs: 1,
                        fromVisitID: from?.0, toVisitID: to?.0, fromPlaceID: from?.4, toPlaceID: to?.4, startLat: a?.0, startLon: a?.1,
                        endLat: b?.0, endLon: b?.1, points: 0, gaps: 0),
                leg: LegRow(tripID: 0, leg: 0, deviceID: device, mode: mode, modeSource: "app", startMs: start, endMs: end, distanceM: distance,
                            durationS: duration, points: 0),
                activity: f[4] ?? f[5], lineDistanceM: line * share, method: method)
            tripCount += 1
            total += distance
        }
        // Trips outside the span that lead to or from Google's visits point at their places again.
        try tables.refreshTripPlaces(device: device)
        return [("visits", String(visitCount)), ("places", String(placeCount)), ("trips", String(tripCount)),
                ("distance_km", formatParameter((total / 10).rounded() / 100))]
    }

    /// A place name from Google's semantic type: `Home`, `Work`; nil for the others (searched addresses, unknown).
    static func semanticName(_ type: String?) -> String? {
        switch type?.uppercased() {
        case "TYPE_HOME", "HOME", "INFERRED_HOME": return "Home"
        case "TYPE_WORK", "WORK", "INFERRED_WORK": return "Work"
        default: return nil
        }
    }
}

extension TimelinePass {
    /// Adds Google's trips and visits (`source = 'app'`) to the metrics pass's day sums: each trip's distance and time
    /// (all of it moving: Google's activity is travel) spread over the local days it spans in proportion to time, the
    /// trip counted on its start day; every local day a Google visit or trip touches gets a row (its offset that of
    /// the row's start), from `firstDate` on (the span recomputed) and through `work.lastDate`.
    static func addDays(
        _ work: DeviceWork, store: Store, firstDate: String, offsets: inout [Int: Int32], distance: inout [Int: Double], line: inout [Int: Double],
        moving: inout [Int: Double], trips: inout [Int: Int]
    ) throws {
        var first = firstDate
        func inSpan(_ day: Int) -> Bool {
            let date = MetricsPass.dateText(day)
            return (first.isEmpty || date >= first) && (work.lastDate.map { date <= $0 } ?? true)
        }
        func claim(_ day: Int, _ offset: Int32) { if offsets[day] == nil && inSpan(day) { offsets[day] = offset } }
        let q = try work.spanQuery(
            """
            SELECT start_ms, end_ms, coalesce(start_utc_offset_s, 0), distance_m, coalesce(line_distance_m, distance_m), 1 FROM trips
            WHERE device_id = ?1 AND start_ms >= ?2 AND start_ms < ?3 AND source = 'app'
            UNION ALL
            SELECT start_ms, end_ms, coalesce(start_utc_offset_s, 0), 0, 0, 0 FROM visits
            WHERE device_id = ?1 AND end_ms >= ?2 AND start_ms < ?3 AND source = 'app'
            ORDER BY 1
            """, store)
        var rows: [(Int64, Int64, Int32, Double, Double, Bool)] = []
        while try q.step() { rows.append((q.int64(0), q.int64(1), Int32(truncatingIfNeeded: q.int64(2)), q.double(3), q.double(4), q.int(5) == 1)) }
        if first.isEmpty, work.processFromMs > Int64.min, let r = rows.first {
            // No fix after the restart: the days from the restart's own day on are recomputed.
            first = MetricsPass.dateText(MetricsPass.localDay(work.processFromMs, r.2))
        }
        for (start, end, offset, dist, straight, isTrip) in rows {
            let firstDay = MetricsPass.localDay(start, offset), lastDay = MetricsPass.localDay(max(start, end - 1), offset)
            var day = firstDay
            while day <= lastDay && day - firstDay <= 366 {
                claim(day, offset)
                if isTrip {
                    let dayStart = Int64(day) * 86_400_000 - Int64(offset) * 1000
                    let piece = max(0, min(end, dayStart + 86_400_000) - max(start, dayStart))
                    let share = end > start ? Double(piece) / Double(end - start) : 1
                    if inSpan(day) {
                        distance[day, default: 0] += dist * share
                        line[day, default: 0] += straight * share
                        moving[day, default: 0] += Double(piece) / 1000
                    }
                }
                day += 1
            }
            if isTrip && inSpan(firstDay) { trips[firstDay, default: 0] += 1 }
        }
    }
}

extension TimelinePass {
    /// The clean flag of a `timelinePath` point inside one of Google's own segments (bit 16, `point_flags`).
    public static let pathFlag: UInt8 = 16

    /// Flags the points the phones' Timeline exports give as `timelinePath` (`trigger` = `timelinePath`, docs/IMPORT.md)
    /// that lie inside one of Google's own visits or activities of the device (from its start to its end, inclusive).
    /// Such points are Google's summary of a segment it also gives whole (a few positions per two-hour bin, like the
    /// `simplifiedRawPath` of Semantic Location History, which the import does not store as points), not fixes the
    /// phone recorded: they are not *points that cover* (docs/PASSES.md, `timeline`), so the segment itself is the
    /// result there. Path points outside every segment stay points, and so do fixes of any other trigger (`rawSignal`,
    /// `Records.json`). Returns how many were flagged.
    static func flagPathPoints(_ work: DeviceWork, store: Store, flags: inout [UInt8]) throws -> Int {
        guard work.count > 0 else { return 0 }
        var claims = Claims()
        let segments = try store.db.prepare(
            """
            SELECT e.start_ms, e.end_ms FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind IN ('visit', 'trip') AND i.format LIKE '%google/%' AND e.start_ms IS NOT NULL
              AND e.end_ms >= e.start_ms AND e.end_ms >= ? AND e.start_ms <= ?
            """)
        try segments.bind([.integer(work.deviceID), .integer(work.time[0]), .integer(work.time[work.count - 1])])
        while try segments.step() { claims.add(segments.int64(0), segments.int64(1) + 1) }
        guard !claims.spans.isEmpty else { return 0 }
        let keys = PointKey.range(device: work.deviceID, fromMs: work.time[0], throughMs: work.time[work.count - 1])
        let path = try store.db.prepare(
            "SELECT \(PointKey.timeSQL) FROM points_hot WHERE key BETWEEN ? AND ? AND cold IS NOT NULL AND json_extract(cold, '$.trigger') = 'timelinePath'")
        try path.bind([.integer(keys.lower), .integer(keys.upper)])
        var flagged = 0
        while try path.step() {
            let t = path.int64(0)
            let k = claims.lowerIndex(t)
            guard k < claims.spans.count, claims.spans[k].0 <= t else { continue }
            let i = lowerBound(work.time, t)
            if i < work.count && work.time[i] == t {
                flags[i] |= pathFlag
                flagged += 1
            }
        }
        return flagged
    }
}
