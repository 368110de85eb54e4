import TriplineCore
import TriplineStore


/// Pass 5, `metrics`: distances, moving time and speeds, per trip (computed with the trips) and per local day.
///
/// Distance is measured on the cleaned points of trips only, so drift while still adds nothing. Along a trip a
/// new vertex is taken once the track has moved `min_step_m` from the last one: noise of a few metres is not summed
/// as distance, and corners are not cut (a 12 m step cuts at most ~3.5 m per right-angle corner). Across a silence
/// longer than `bridge_max_s` nothing is counted (missing data); shorter silences (tunnels) count their straight line.
/// Local days use each point's own UTC offset where the source gave one, else the time zone (`--timezone`).
public struct MetricsPass: Pass {
    public static let name = "metrics"

    public struct Parameters: PassParameters {
        /// Least movement (metres) before a new vertex counts.
        public var minStepM: Double = 12
        /// Longest silence (seconds) bridged by a straight line inside a trip.
        public var bridgeMaxS: Double = 900
        /// Speed (m/s) at or above which time counts as moving.
        public var movingMps: Double = 0.6
        public init() {}
        public static var keys: Keys { [
            "min_step_m": \.minStepM, "bridge_max_s": \.bridgeMaxS, "moving_mps": \.movingMps,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges").
        public static var ranges: Ranges { ["min_step_m": .distanceOrOff, "bridge_max_s": .duration, "moving_mps": .speed] }
    }

    public var parameters: Parameters
    /// The trips pass's `split_gap_s`: the silences a trip crosses count towards its days' moving time as they do
    /// towards the trip's (``TripsPass/movingStretches(startMs:endMs:_:_:_:unseen:ends:silences:)``).
    public var splitGapS: Double = TripsPass.Parameters().splitGapS

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p)
        var trips = TripsPass.Parameters()
        try settings.apply(TripsPass.name, to: &trips, keys: TripsPass.Parameters.keys)
        splitGapS = trips.splitGapS
    }

    /// Per-point distance increments along `pts` (indices of kept points in order), and the number of unbridged gaps.
    /// - Complexity: O(pts.count).
    static func increments(_ w: DeviceWork, _ pts: [Int], _ p: Parameters) -> (inc: [Double], moving: [Double], gaps: Int) {
        var inc = [Double](repeating: 0, count: pts.count)
        var moving = [Double](repeating: 0, count: pts.count)
        guard var anchor = pts.first else { return (inc, moving, 0) }
        var gaps = 0
        let bridgeMs = Int64(p.bridgeMaxS * 1000)
        let time = w.time, lat = w.lat, lon = w.lon, speed = w.speed
        var latRef = lat[anchor]
        var cosLat = Geo.cosLatitude(latRef)
        // The fixes a minute or more before and after fix `k` (``TrackMotion/isCreeping``), moved along with it.
        var window = TrackMotion.CreepWindow()
        for k in 1..<max(1, pts.count) {
            let i = pts[k], prev = pts[k - 1]
            let dtMs = time[i] - time[prev]
            if dtMs > bridgeMs {
                gaps += 1
                anchor = i
                continue
            }
            if abs(lat[i] - latRef) > 0.2 {  // keep the reference latitude near (cos changes ~0.5 % per 0.2° at 50°)
                latRef = lat[i]
                cosLat = Geo.cosLatitude(latRef)
            }
            let d = Geo.fastDistance(lat[anchor], lon[anchor], lat[i], lon[i], cosLat: cosLat)
            if d >= p.minStepM {
                inc[k] = d
                anchor = i
            }
            let dt = Double(dtMs) / 1000
            // A reported speed below moving between fixes further apart than standing still and both fixes' accuracy
            // allow is moving (an app writing a speed of 0 on every fix, or whole km/h): without it a 26-km drive of
            // such fixes had 30 s of moving time, an average of 888 m/s.
            let moved = TrackMotion.isMoving(seconds: dt, reported: speed[i], accuracyBefore: w.accuracy[prev], accuracy: w.accuracy[i],
                                             movingMps: p.movingMps) {
                Geo.fastDistance(lat[prev], lon[prev], lat[i], lon[i], cosLat: cosLat)
            }
            if moved {
                moving[k] = dt
            } else if !speed[i].isNaN && speed[i] >= TrackMotion.slowMps {
                // Slower than moving, but under way: the positions a minute either side say so too.
                if let (before, after) = window.around(k, count: pts.count, time: { time[pts[$0]] }) {
                    let (a, b) = (pts[before], pts[after])
                    let creeping = TrackMotion.isCreeping(
                        reported: speed[i], windowSeconds: Double(time[b] - time[a]) / 1000,
                        windowMetres: Geo.fastDistance(lat[a], lon[a], lat[b], lon[b], cosLat: cosLat), accuracyBefore: w.accuracy[a],
                        accuracyAfter: w.accuracy[b])
                    if creeping { moving[k] = dt }
                }
            }
        }
        return (inc, moving, gaps)
    }

    /// A trip as the metrics pass spreads it over local days: its span and point range (``TripsPass/interior``), its
    /// legs (which add up to its distance after the paths pass), and the centres of the stays it left and reached
    /// (whose connectors count towards its moving time when long enough).
    public struct Trip: Sendable, Equatable {
        public var trip: TripRecord
        public var legs: [LegRow]
        public var fromStay: Coordinate? = nil
        public var toStay: Coordinate? = nil
    }

    /// A stay's centre.
    public struct Coordinate: Sendable, Equatable {
        public var lat: Double, lon: Double
        public init(_ lat: Double, _ lon: Double) { (self.lat, self.lon) = (lat, lon) }
    }

    /// The span's day totals while counting, keyed by local day number (days since 1970-01-01), and the first local
    /// date rewritten (`""`: from the first day on).
    public struct Tally: Sendable, Equatable {
        public var firstDate: String
        public var offsets: [Int: Int32]
        public var distance: [Int: Double]
        public var line: [Int: Double]
        public var moving: [Int: Double]
        public var trips: [Int: Int]
    }

    /// The local date the span's rewritten days start on: that of the first fix at or after `processFromMs` when
    /// points before it are context, else `""` (every day of the span).
    static func firstDate(_ work: DeviceWork) -> String {
        work.processFromMs > work.fromMs && lowerBound(work.time, work.processFromMs) < work.count
            ? CivilTime.localDate(ms: work.processFromMs, offset: UTCOffset(seconds: work.localOffset(lowerBound(work.time, work.processFromMs))))
            : ""
    }

    /// Spreads the trips over local days: distance (the legs' estimate and the straight lines), moving time and
    /// trip counts per day, and the offset of each day (that of its first kept fix; a day without one that a leg
    /// crosses, at the leg's).
    // About 80 lines: the per-trip day sums share the day dictionaries (day offsets and visits per day are apart).
    static func tally(
        _ work: DeviceWork, _ trips: [Trip], _ parameters: Parameters, splitGapS: Double = TripsPass.Parameters().splitGapS
    ) -> Tally {
        let firstDate = Self.firstDate(work)
        // Day rows of the span, keyed by local day number (days since 1970-01-01) while counting.
        @inline(__always) func localDay(_ ms: Int64, _ offset: Int32) -> Int { Self.localDay(ms, offset) }
        func dateText(_ day: Int) -> String { Self.dateText(day) }
        // One distance: each trip's legs (which add up to the trip's estimate, ``PathsPass``) are spread over the
        // local days: a leg with fixes in proportion to its straight-line increments on each day, a leg no fix saw
        // (a crossed silence, a trip between two places) by its time on each day (local midnights at the offset of
        // where it began). So the days add up to the trips, and a trip across midnight is split at midnight.
        var lineByDay: [Int: Double] = [:]
        var distanceByDay: [Int: Double] = [:]
        var movingByDay: [Int: Double] = [:]
        var tripsByDay: [Int: Int] = [:]
        var offsetByDay = Self.dayOffsets(work, firstDate: firstDate)
        /// Days without a kept fix that a leg's time crosses get a row too, at the offset the leg gave them.
        var silentDayOffset: [Int: Int32] = [:]
        /// Spreads `amount` over `start ..< end` by time on each local day (a leg no fix saw, a stretch under way no fix
        /// saw), local midnights at the offset where it began; where it ends at another offset, on the local clock
        /// moving evenly from the one to the other. A flight from Auckland at 20:24 +13:00 landing in Honolulu at
        /// 06:04 −10:00 the same date went 3.6 h to that date and 6.1 h to the next at Auckland's clock, a day the
        /// traveller never had: it is all on its one date.
        func byTime(_ start: Int64, _ end: Int64, _ amount: Double, into sums: inout [Int: Double]) {
            let j = min(max(lowerBound(work.time, start), 0), work.count - 1)
            let offset = work.count > 0 ? work.localOffset(atMs: start, latitude: work.lat[j], longitude: work.lon[j]) : 0
            var endOffset = offset
            if work.count > 0, end > start {
                var k = lowerBound(work.time, end)
                if k >= work.count || work.time[k] != end { k -= 1 }
                k = min(max(k, 0), work.count - 1)
                endOffset = work.localOffset(atMs: end, latitude: work.lat[k], longitude: work.lon[k])
            }
            if endOffset != offset {
                for (day, share) in UTCOffset.dayShares(startMs: start, endMs: end, start: UTCOffset(seconds: offset), end: UTCOffset(seconds: endOffset)) {
                    sums[day, default: 0] += amount * share
                    if offsetByDay[day] == nil { silentDayOffset[day] = day == localDay(start, offset) ? offset : endOffset }
                }
                return
            }
            let first = localDay(start, offset), last = localDay(max(start, end - 1), offset)
            if first == last || end <= start {
                sums[first, default: 0] += amount
                if offsetByDay[first] == nil { silentDayOffset[first] = offset }
                return
            }
            var from = start
            for day in first...last {
                let midnight = day == last ? end : Int64(day + 1) * 86_400_000 - Int64(offset) * 1000
                let to = min(max(midnight, from), end)
                sums[day, default: 0] += amount * Double(to - from) / Double(end - start)
                if offsetByDay[day] == nil { silentDayOffset[day] = offset }
                from = to
            }
        }
        let silences = TripsPass.Silences(splitGapS: splitGapS, bridgeMaxS: parameters.bridgeMaxS, minPaceMps: parameters.movingMps)
        let bridgeMs = Int64(parameters.bridgeMaxS * 1000)
        for item in trips {
            let trip = item.trip
            var pts: [Int] = []
            pts.reserveCapacity(max(0, trip.last - trip.first + 1))
            for i in trip.first...max(trip.first, trip.last) where i < work.count && work.flags[i] == 0 { pts.append(i) }
            let (inc, mov, _) = Self.increments(work, pts, parameters)
            var legs = item.legs.map { (start: $0.startMs, end: $0.endMs, metres: $0.distanceM) }
            if legs.isEmpty { legs = [(trip.startMs, trip.endMs, trip.distanceM)] }
            // Straight-line increments per leg and day: a fix's increment (the way since the fix before) belongs to
            // the leg whose span (start, end] holds it, so a silence crossed after that fix gets none of it.
            var perLeg = [[Int: Double]](repeating: [:], count: legs.count)
            // The way between two fixes either side of a local midnight, and a silence the trip crossed (its straight
            // line, which the trip and the leg holding it count: ``TripsPass/Silences``), spread by time over the days
            // it spans, as its moving time (added to `perLeg` after the loop). Before, a 20-min tunnel from 23:57 gave
            // its 15 km to the day it began, its moving time to both.
            var spreadLeg: [Int: [Int: Double]] = [:]
            var leg = 0
            var cachedDay = Int.min
            var cachedMs = Int64.min
            var cachedDayStartMs = Int64.min
            // The sums of the open day (and leg) are kept in locals and stored when the day or the leg changes: the
            // same additions in the same order as adding to the dictionaries fix by fix (three hashed look-ups a fix),
            // and a key is stored only where that would have made it (`nil`: no increment yet).
            var openDay = Int.min, openLeg = 0
            var legSum: Double? = nil, movingSum: Double? = nil
            let time = work.time  // once: a class's array property checks exclusivity at run time on every read
            // Moving time between two fixes on either side of a local midnight, spread by time over the days it
            // spans (so no day moves longer than it lasts), added after the loop.
            var overMidnight: [Int: Double] = [:]
            for (k, i) in pts.enumerated() where inc[k] > 0 || mov[k] > 0 || (k > 0 && time[i] - time[pts[k - 1]] > bridgeMs) {
                let t = time[i]
                while leg + 1 < legs.count && t > legs[leg].end { leg += 1 }
                if inc[k] == 0 && mov[k] == 0 {
                    // A silence no increment bridges: its straight line when the trip crossed it under way.
                    let a = pts[k - 1]
                    if let line = silences.crossedLineM(work, a, i) { byTime(time[a], t, line, into: &spreadLeg[leg, default: [:]]) }
                    continue
                }
                if t != cachedMs {
                    let offset = work.localOffset(i)
                    cachedDay = localDay(t, offset)
                    cachedMs = t
                    // The day's first instant at this fix's offset (to the second, as `localDay` reads the time).
                    cachedDayStartMs = (Int64(cachedDay) * 86_400 - Int64(offset)) * 1000
                }
                var moving = mov[k], step = inc[k]
                if k > 0, time[pts[k - 1]] < cachedDayStartMs {
                    if moving > 0 { byTime(time[pts[k - 1]], t, moving, into: &overMidnight) }
                    if step > 0 { byTime(time[pts[k - 1]], t, step, into: &spreadLeg[leg, default: [:]]) }
                    (moving, step) = (0, 0)
                }
                if cachedDay != openDay || leg != openLeg {
                    if openDay != Int.min, let v = legSum { perLeg[openLeg][openDay] = v }
                    if cachedDay != openDay {
                        if openDay != Int.min, let v = movingSum { movingByDay[openDay] = v }
                        movingSum = movingByDay[cachedDay]
                    }
                    legSum = perLeg[leg][cachedDay]
                    (openDay, openLeg) = (cachedDay, leg)
                }
                if step > 0 { legSum = (legSum ?? 0) + step }
                movingSum = (movingSum ?? 0) + moving
            }
            if openDay != Int.min {
                if let v = legSum { perLeg[openLeg][openDay] = v }
                if let v = movingSum { movingByDay[openDay] = v }
            }
            for (day, v) in overMidnight.sorted(by: { $0.key < $1.key }) { movingByDay[day, default: 0] += v }
            for (n, spread) in spreadLeg.sorted(by: { $0.key < $1.key }) {
                for (day, v) in spread.sorted(by: { $0.key < $1.key }) { perLeg[n][day, default: 0] += v }
            }
            for (n, l) in legs.enumerated() where l.metres > 0 {
                let line = perLeg[n].values.reduce(0, +)
                if line > 0 {
                    for (day, d) in perLeg[n] { distanceByDay[day, default: 0] += l.metres * d / line }
                    continue
                }
                // No increment: by time (``byTime``: on the local clock from the leg's start to its end).
                byTime(l.start, l.end, l.metres, into: &distanceByDay)
            }
            // The trip's straight lines (`trips.line_distance_m`: its fixes' steps and the silences it crossed) in
            // proportion to them on each day, so that the days' add up to the trips' as their distances do.
            var lineShares: [Int: Double] = [:]
            for shares in perLeg { for (day, d) in shares { lineShares[day, default: 0] += d } }
            let lineTotal = lineShares.values.reduce(0, +), tripLine = trip.row.lineDistanceM ?? lineTotal
            if lineTotal > 0 {
                for (day, d) in lineShares { lineByDay[day, default: 0] += tripLine * d / lineTotal }
            } else if tripLine > 0 {
                byTime(trip.startMs, trip.endMs, tripLine, into: &lineByDay)
            }
            // Moving time as the trip counts it (one rule, ``TripsPass/movingStretches``): the time between fixes at
            // ≥ `moving_mps` went to the day of its fix above (split by time at a midnight between the two fixes); the
            // silences it crossed, the connectors that count and a trip no fix saw, by their time on each day. So the
            // days add up to the trips' moving time.
            let from = item.fromStay.map { ($0.lat, $0.lon) }, to = item.toStay.map { ($0.lat, $0.lon) }
            for s in TripsPass.movingStretches(startMs: trip.startMs, endMs: trip.endMs, work, pts, mov, unseen: Self.unseen(work, item),
                                               ends: (from, to), silences: silences) where s.fix == nil {
                byTime(s.from, s.to, Double(s.to - s.from) / 1000, into: &movingByDay)
            }
            // A trip counts on the local day it starts, at the offset where it starts (its row's): a flight with the
            // phone off has no fix before it lands, and at the arrival's offset Auckland's 20:24 was Honolulu's day
            // before, a day without a row, and the trip was counted nowhere.
            if let offset = trip.row.startUTCOffset?.seconds ?? (trip.first < work.count ? work.localOffset(trip.first) : nil) {
                tripsByDay[localDay(trip.startMs, offset), default: 0] += 1
            }
        }
        for (day, offset) in silentDayOffset where offsetByDay[day] == nil {
            let date = dateText(day)
            if (firstDate.isEmpty || date >= firstDate) && (work.lastDate.map { date <= $0 } ?? true) { offsetByDay[day] = offset }
        }
        return Tally(firstDate: firstDate, offsets: offsetByDay, distance: distanceByDay, line: lineByDay, moving: movingByDay, trips: tripsByDay)
    }

    /// Whether the trips pass saw no fix of `item` (``TripsPass/detect``: no kept fix between the stay it left and the
    /// one it reached, so that it runs from the one's end to the other's start): no kept fix strictly inside its span.
    static func unseen(_ work: DeviceWork, _ item: Trip) -> Bool {
        let t = item.trip
        guard t.row.fromVisitID != nil, t.row.toVisitID != nil else { return false }
        var i = lowerBound(work.time, t.startMs + 1)
        while i < work.count && work.time[i] < t.endMs {
            if work.flags[i] == 0 { return false }
            i += 1
        }
        return true
    }

    /// The day rows of a tally (with Google's own trips and visits added, ``TimelinePass``), with each day's visits
    /// (those starting in the span, by local start date) and distinct places (of the visits overlapping it) from
    /// `visits` (those overlapping the span).
    static func days(_ work: DeviceWork, _ tally: Tally, visits: [VisitRow]) -> [DayRow] {
        var distance: [String: Double] = [:]
        var moving: [String: Double] = [:]
        var tripCount: [String: Int] = [:]
        var dayOffset: [String: Int32] = [:]
        for (d, v) in tally.distance { distance[dateText(d)] = v }
        var line: [String: Double] = [:]
        for (d, v) in tally.line { line[dateText(d)] = v }
        for (d, v) in tally.moving { moving[dateText(d)] = v }
        for (d, v) in tally.trips { tripCount[dateText(d)] = v }
        for (d, v) in tally.offsets { dayOffset[dateText(d)] = v }
        let (visitCount, placeSets) = Self.visitsPerDay(work, visits, days: dayOffset)
        return dayOffset.keys.sorted().map { date in
            DayRow(deviceID: work.deviceID, date: date, utcOffset: UTCOffset(seconds: dayOffset[date]!), distanceM: distance[date] ?? 0,
                   movingS: moving[date] ?? 0,
                   trips: tripCount[date] ?? 0, visits: visitCount[date] ?? 0, places: placeSets[date]?.count ?? 0, lineDistanceM: line[date] ?? 0)
        }
    }

    /// The span's trips for the metrics pass, from the table: every trip rebuilt from fixes that starts in the span,
    /// those before the recomputed part too (they count towards their whole local days), with its legs.
    static func load(_ work: DeviceWork, _ tables: RebuildTables) throws -> [Trip] {
        var ends: [Int64: TripEnds] = [:]
        for e in try tables.tripEnds(device: work.deviceID, startingFromMs: work.fromMs, beforeMs: work.toMs) { ends[e.id] = e }
        return try tables.pointTrips(device: work.deviceID, startingFromMs: work.fromMs, beforeMs: work.toMs).map { row in
            let e = row.id.flatMap { ends[$0] }
            return Trip(trip: TripsPass.record(row, work), legs: try tables.legs(ofTrip: row.id ?? 0),
                        fromStay: e.flatMap { e in e.fromLat.flatMap { lat in e.fromLon.map { Coordinate(lat, $0) } } },
                        toStay: e.flatMap { e in e.toLat.flatMap { lat in e.toLon.map { Coordinate(lat, $0) } } })
        }
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        try work.ensureFlags(store: store)
        let tables = RebuildTables(store)
        // Always from the table: trips before the recomputed span count towards their whole local days too.
        var tally = Self.tally(work, try Self.load(work, tables), parameters, splitGapS: splitGapS)
        // Google's own trips and visits where the fixes made nothing (the timeline pass).
        try TimelinePass.addDays(work, store: store, firstDate: tally.firstDate, offsets: &tally.offsets, distance: &tally.distance, line: &tally.line,
                                 moving: &tally.moving, trips: &tally.trips)
        let rows = Self.days(work, tally, visits: try tables.visits(device: work.deviceID, overlappingFromMs: work.fromMs, beforeMs: work.toMs))
        if let (first, last) = Self.rewrittenDates(work, tally, rows) {
            try tables.deleteDays(device: work.deviceID, fromDate: first, toDate: last)
        }
        var total = 0.0
        for row in rows {
            try tables.insert(row)
            total += row.distanceM
        }
        // The places pass clusters the device's whole history, so a stay of this span can join two older places into
        // one: every day's count of places is taken again (the last window of a rebuild, once every visit is placed).
        if !work.windowsFollow {
            let stored = try tables.placeCounts(device: work.deviceID)
            if !stored.isEmpty {
                let visits = try tables.visits(device: work.deviceID, overlappingFromMs: Int64.min, beforeMs: Int64.max)
                for (date, count) in Self.changedPlaceCounts(work, stored: stored, visits: visits) {
                    try tables.setPlaces(device: work.deviceID, date: date, places: count)
                }
            }
        }
        return ["days": .count(rows.count), "distance_km": .measure((total / 10).rounded() / 100)]
    }

    /// The dates whose stored `days` rows the span replaces (inclusive), nil for none: from the span's first rewritten
    /// date (every date when the span starts at the device's beginning), through `work.lastDate` (`--to`), else through
    /// the end of time when no window follows (the span reaches the end of the data), else through its last row. A
    /// date that holds nothing any more loses its row: after `--timezone UTC` a drive at 00:28 in Adelaide moved to the
    /// UTC day before, and the old day kept the 20 km (the twelfth hostile round; before, only the rows' own range was
    /// deleted). A span whose first rewritten date is unknown (no point after the restart: an incremental run with
    /// nothing new) replaces from its first row only.
    static func rewrittenDates(_ work: DeviceWork, _ tally: Tally, _ rows: [DayRow]) -> (String, String)? {
        let first: String? = !tally.firstDate.isEmpty ? tally.firstDate : work.fromMs == Int64.min ? "" : rows.first?.date
        let last = work.lastDate ?? (work.windowsFollow ? rows.last?.date : "9999-12-31")
        guard let first, let last, first <= last else { return nil }
        return (first, last)
    }

    /// The days whose stored count of places (`stored`, by date) differs from the distinct places of the visits
    /// that overlap them (as ``visitsPerDay(_:_:days:)`` counts them), with the count they should have, by date.
    static func changedPlaceCounts(_ work: DeviceWork, stored: [String: Int], visits: [VisitRow]) -> [(String, Int)] {
        var offsets: [String: Int32] = [:]
        for date in stored.keys { offsets[date] = 0 }
        let (_, placeSets) = visitsPerDay(work, visits, days: offsets)
        var out: [(String, Int)] = []
        for (date, count) in stored.sorted(by: { $0.key < $1.key }) {
            let now = placeSets[date]?.count ?? 0
            if now != count { out.append((date, now)) }
        }
        return out
    }

    /// The local days the span's kept points fall on (from `firstDate`, through `work.lastDate`), each with the
    /// offset of its first point.
    static func dayOffsets(_ work: DeviceWork, firstDate: String) -> [Int: Int32] {
        var offsetByDay: [Int: Int32] = [:]
        var lastDay = Int.min
        for i in 0..<work.count where work.flags[i] == 0 {
            let off = work.localOffset(i)
            let day = localDay(work.time[i], off)
            if day != lastDay {
                lastDay = day
                if offsetByDay[day] == nil, firstDate.isEmpty || dateText(day) >= firstDate, work.lastDate.map({ dateText(day) <= $0 }) ?? true {
                    offsetByDay[day] = off
                }
            }
        }
        return offsetByDay
    }

    /// The local day number (days since 1970-01-01) of `ms` at `offset` seconds.
    @inline(__always)
    static func localDay(_ ms: Int64, _ offset: Int32) -> Int {
        Int(CivilTime.floorDiv(CivilTime.floorDiv(ms, 1000) + Int64(offset), 86_400))
    }

    /// `YYYY-MM-DD` of a local day number (days since 1970-01-01).
    static func dateText(_ day: Int) -> String {
        let (y, m, d) = CivilTime.civilFromDays(day)
        return CivilTime.pad(y, 4) + "-" + CivilTime.pad(m, 2) + "-" + CivilTime.pad(d, 2)
    }

    /// Visits (by local start date, those starting in the span) and distinct places (on each of `days` a visit
    /// overlaps) of `visits`.
    static func visitsPerDay(_ work: DeviceWork, _ visits: [VisitRow], days: [String: Int32]) -> (visits: [String: Int], places: [String: Set<Int64>]) {
        var visitCount: [String: Int] = [:]
        var placeSets: [String: Set<Int64>] = [:]
        for v in visits {
            let start = v.startMs, end = v.endMs
            let (lat, lon) = (v.lat, v.lon)
            let so = v.startUTCOffset ?? UTCOffset(seconds: work.zones.offset(atMs: start, latitude: lat, longitude: lon))
            let eo = v.endUTCOffset ?? UTCOffset(seconds: work.zones.offset(atMs: end, latitude: lat, longitude: lon))
            let first = so.localDate(ms: start)
            let last = eo.localDate(ms: end)
            if start >= work.fromMs { visitCount[first, default: 0] += 1 }
            var day = CivilTime.parseDate(first)!
            let lastDay = CivilTime.parseDate(last)!
            while day <= lastDay {
                let date = dateText(day)
                if days[date] != nil { placeSets[date, default: []].insert(v.placeID ?? 0) }
                day += 1
            }
        }
        return (visitCount, placeSets)
    }
}
