#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore


/// Writes a person's synthetic travel straight into the rebuild's tables (`points`, `point_flags`, `places`,
/// `visits`, `trips`, `legs`, `days`), as if imported and rebuilt: days of home, work, lunch, shopping and weekend
/// outings, trips of one to three legs (walk, cycle, car, bus, train) sampled at 1 Hz along curved routes with
/// GPS noise, sparse points while still.
///
/// Built for the map: its tests (small, exact expectations: every trip has points, hostile place names, one
/// far-off visit the view must not be fitted to, flagged spikes that must not be drawn) and its size and speed
/// benchmark (a year at 1 Hz: millions of points). Deterministic for a given seed. It is not the rebuild's
/// simulator: it has no ground truth to score against, only consistent tables.
public struct SyntheticTravel {
    /// What to generate.
    public struct Parameters: Sendable {
        /// Number of days, starting at `firstDay` (days since 1970-01-01, local).
        public var days = 7
        public var firstDay = CivilTime.daysFromCivil(year: 2024, month: 3, day: 4)
        public var seed: UInt64 = 1
        /// The person's UTC offset, written to every row.
        public var utcOffset: UTCOffset = 3600
        public var device = "sim-phone"
        /// The centre of the person's town (home is near it).
        public var centreLat = 48.137
        public var centreLon = 11.575
        /// Seconds between points while moving (1 = 1 Hz) and while still.
        public var movingIntervalS = 1
        public var stillIntervalS = 300
        /// Standard deviation of the GPS noise while moving, in metres.
        public var noiseM = 3.0
        /// Name some places with hostile text (`<script>alert(1)</script>` as a wifi name, quotes, `</script>`,
        /// U+2028, control characters).
        public var hostileNames = true
        /// Add one short visit ~800 km away on the second day (no trip leads there; the fit must ignore it).
        public var farVisit = true
        /// Add flagged far-off spikes inside some trips (`point_flags.flags = 1`; the map must not draw them).
        public var flaggedSpikes = true

        public init() {}
    }

    /// What was written.
    public struct Summary: Sendable, Equatable {
        public var trips = 0
        public var legs = 0
        public var visits = 0
        public var places = 0
        public var points = 0
        public var flaggedPoints = 0
        public var days = 0
        /// Total trip distance in metres.
        public var distanceM = 0.0
    }

    struct Place {
        var name: String
        var lat: Double
        var lon: Double
        var ssid: String?
        var id: Int64 = 0
        var visits = 0
        var dwellS: Int64 = 0
        var first: Int64 = 0
        var last: Int64 = 0
    }

    let store: Store
    let tables: RebuildTables
    let p: Parameters
    var rng: SplitMix64
    var places: [Place] = []
    var deviceID: Int64 = 0
    var summary = Summary()
    /// Where and since when the person is currently staying.
    var here = 0
    var since: Int64 = 0
    var lastVisitID: Int64 = 0
    var pendingPoints: [Point] = []
    var flags: [(Int64, Int64)] = []
    var dayTotals: [Int: (distance: Double, moving: Double, trips: Int, visits: Int, places: Set<Int>)] = [:]

    /// Generates the travel into `store` (in one transaction) and returns what was written.
    public static func generate(into store: Store, _ parameters: Parameters = Parameters()) throws -> Summary {
        var generator = SyntheticTravel(store: store, tables: RebuildTables(store), p: parameters, rng: SplitMix64(seed: parameters.seed))
        try store.transaction { try generator.run() }
        return generator.summary
    }

    mutating func run() throws {
        deviceID = try store.deviceID(named: p.device, source: "synthetic", origin: .synthetic)
        makePlaces()
        for i in places.indices {
            places[i].id = try tables.insert(
                PlaceRow(deviceID: deviceID, name: places[i].name, ssid: places[i].ssid, lat: places[i].lat, lon: places[i].lon, radiusM: 50,
                         visits: 0, totalDwellS: 0, firstVisitMs: nil, lastVisitMs: nil))
        }
        summary.places = places.count
        let offsetMs = p.utcOffset.seconds64 * 1000
        here = 0
        since = Int64(p.firstDay) * 86_400_000 - offsetMs  // local midnight of the first day
        for d in 0..<p.days {
            let day = p.firstDay + d
            let midnight = Int64(day) * 86_400_000 - offsetMs
            let weekday = ((day % 7) + 7 + 3) % 7  // 0 = Monday
            func at(_ hours: Double) -> Int64 { midnight + Int64((hours + rng.uniform(-0.25, 0.25)) * 3_600_000) }
            if weekday < 5 {
                try travel(to: 1, departing: at(7.6), plan: commutePlan())
                try travel(to: 3, departing: at(12.2), plan: [("walk", 1)])
                try travel(to: 1, departing: at(13.0), plan: [("walk", 1)])
                let evening = [2, 4, 0, 5][Int(rng.next() % 4)]
                try travel(to: evening, departing: at(17.5), plan: evening == 0 ? commutePlan() : [("cycle", 1)])
                if evening != 0 { try travel(to: 0, departing: at(19.6), plan: [("cycle", 1)]) }
            } else {
                try travel(to: 5, departing: at(10.5), plan: [("walk", 1)])
                try travel(to: 6, departing: at(13.0), plan: [("walk", 0.1), ("car", 0.8), ("walk", 0.1)])
                if p.hostileNames && d % 7 == 5 { try travel(to: 7, departing: at(17.0), plan: [("car", 1)]) }
                try travel(to: 0, departing: at(19.0), plan: [("car", 1)])
            }
            if p.farVisit && d == 1 {
                // A lone far-off visit in the night, such as a stay built from bad fixes.
                let far = places.count - 1
                let start = midnight + 3 * 3_600_000
                try closeVisit(until: start)
                let saved = here
                here = far
                since = start
                try closeVisit(until: start + 600_000)
                here = saved
                since = start + 600_000
            }
            try flushPoints()
        }
        try closeVisit(until: Int64(p.firstDay + p.days) * 86_400_000 - offsetMs)
        try flushPoints()
        for place in places where place.visits > 0 {
            try tables.updateTotals(place: place.id, visits: place.visits, totalDwellS: place.dwellS / 1000, firstVisitMs: place.first, lastVisitMs: place.last)
        }
        for day in dayTotals.keys.sorted() {
            let t = dayTotals[day]!
            try tables.insert(
                DayRow(deviceID: deviceID, date: CivilTime.date(day: day), utcOffset: p.utcOffset,
                       distanceM: t.distance, movingS: t.moving, trips: t.trips, visits: t.visits, places: t.places.count))
        }
        summary.days = dayTotals.count
    }

    mutating func makePlaces() {
        func near(_ north: Double, _ east: Double) -> (Double, Double) {
            let lat = p.centreLat + north / 111_195
            let lon = p.centreLon + east / (111_195 * cos(p.centreLat * .pi / 180))
            return (lat, lon)
        }
        let hostile = p.hostileNames
        let specs: [(String, Double, Double, String?)] = [
            (hostile ? "Home wifi \"<script>alert(1)</script>\"" : "Home", 0, 0, hostile ? "<script>alert(1)</script>" : "home"),
            ("Work", 2_600, 7_400, "corp-guest"),
            ("Gym", 1_100, 2_300, nil),
            (hostile ? "Café \"Zur Post\" & Bar's </title><!--" : "Café", 2_900, 7_000, nil),
            ("Supermarket", -700, 900, nil),
            (hostile ? "Park</script><script>alert(2)</script>\u{2028}" : "Park", -2_200, -1_800, nil),
            (hostile ? "Parents' house \u{1}\u{7F} — 両親の家" : "Parents", -9_500, 14_000, nil),
            (hostile ? "A very long place name that goes on and on past any label" : "Lake", 8_000, -6_000, nil),
        ]
        for spec in specs {
            let (lat, lon) = near(spec.1, spec.2)
            places.append(Place(name: spec.0, lat: lat, lon: lon, ssid: spec.3))
        }
        if p.farVisit {
            places.append(Place(name: "Far-off fix", lat: p.centreLat + 7.2, lon: p.centreLon - 1.5, ssid: nil))
        }
    }

    mutating func commutePlan() -> [(String, Double)] {
        switch rng.next() % 4 {
        case 0: return [("car", 1)]
        case 1: return [("cycle", 1)]
        case 2: return [("walk", 0.08), ("train", 0.84), ("walk", 0.08)]
        default: return [("walk", 0.1), ("bus", 0.8), ("walk", 0.1)]
        }
    }

    static func speed(_ mode: String) -> Double {
        switch mode {
        case "walk": return 1.4
        case "cycle": return 4.6
        case "car": return 11
        case "bus": return 7
        case "train": return 17
        default: return 5
        }
    }

    /// Ends the current stay at `end` as a visit (when it lasted at least five minutes), with sparse points.
    mutating func closeVisit(until end: Int64) throws {
        defer { since = end }
        guard end - since >= 300_000 else { return }
        let place = places[here]
        var t = since
        while t < end {
            let (dn, de) = (rng.normal() * 12, rng.normal() * 12)
            addPoint(t, place.lat + dn / 111_195, place.lon + de / (111_195 * cos(place.lat * .pi / 180)), accuracy: 20)
            t += Int64(p.stillIntervalS) * 1000
        }
        let offset = p.utcOffset
        lastVisitID = try tables.insert(
            VisitRow(deviceID: deviceID, placeID: place.id, startMs: since, endMs: end, startUTCOffset: offset, endUTCOffset: offset,
                     lat: place.lat, lon: place.lon, radiusM: 30, points: Int((end - since) / (Int64(p.stillIntervalS) * 1000) + 1)))
        places[here].visits += 1
        places[here].dwellS += end - since
        if places[here].first == 0 { places[here].first = since }
        places[here].last = since
        summary.visits += 1
        let day = localDay(since)
        dayTotals[day, default: (0, 0, 0, 0, [])].visits += 1
        dayTotals[day]!.places.insert(here)
    }

    /// Travels from the current place to `target` along a curved route, leaving at `departure`.
    // Long by design: one route sampled per second; position, random stream and the rows written are shared state.
    mutating func travel(to target: Int, departing departure: Int64, plan: [(String, Double)]) throws {
        guard target != here, departure > since else { return }
        try closeVisit(until: departure)
        let fromVisit = lastVisitID
        let a = places[here]
        let b = places[target]
        // A route: the straight line bent through three waypoints pushed sideways, then sampled per metre.
        let metresPerLat = 111_195.0
        let metresPerLon = 111_195.0 * cos(a.lat * .pi / 180)
        let dx = (b.lon - a.lon) * metresPerLon
        let dy = (b.lat - a.lat) * metresPerLat
        let length = (dx * dx + dy * dy).squareRoot()
        var waypoints: [(Double, Double)] = [(0, 0)]
        for k in 1...3 {
            let f = Double(k) / 4
            let side = rng.uniform(-0.12, 0.12) * length
            waypoints.append((dx * f - dy / length * side, dy * f + dx / length * side))
        }
        waypoints.append((dx, dy))
        var cumulative: [Double] = [0]
        for i in 1..<waypoints.count {
            let ex = waypoints[i].0 - waypoints[i - 1].0
            let ey = waypoints[i].1 - waypoints[i - 1].1
            cumulative.append(cumulative[i - 1] + (ex * ex + ey * ey).squareRoot())
        }
        let routeLength = cumulative.last!
        func position(_ s: Double) -> (Double, Double) {
            var i = 1
            while i < cumulative.count - 1 && cumulative[i] < s { i += 1 }
            let span = cumulative[i] - cumulative[i - 1]
            let f = span > 0 ? (s - cumulative[i - 1]) / span : 0
            let x = waypoints[i - 1].0 + (waypoints[i].0 - waypoints[i - 1].0) * f
            let y = waypoints[i - 1].1 + (waypoints[i].1 - waypoints[i - 1].1) * f
            // A gentle wiggle, like streets.
            let w = sin(s / 140) * 25
            return (x - dy / length * w, y + dx / length * w)
        }
        var t = departure
        var s = 0.0
        var legRows: [(String, Int64, Int64, Double)] = []
        let interval = Double(p.movingIntervalS)
        var points = 0
        var previous = position(0)
        var travelled = 0.0
        for (mode, share) in plan {
            let legStart = t
            let legEnd = s + share * routeLength
            let legStartDistance = travelled
            let v = Self.speed(mode)
            while s < legEnd - 1e-6 {
                s = min(legEnd, s + v * interval * rng.uniform(0.8, 1.2))
                t += Int64(interval * 1000)
                let (x, y) = position(s)
                travelled += ((x - previous.0) * (x - previous.0) + (y - previous.1) * (y - previous.1)).squareRoot()
                previous = (x, y)
                let nx = x + rng.normal() * p.noiseM
                let ny = y + rng.normal() * p.noiseM
                addPoint(t, a.lat + ny / metresPerLat, a.lon + nx / metresPerLon, accuracy: 5)
                points += 1
                if p.flaggedSpikes && points % 600 == 300 {
                    // A wild fix 30 km off, flagged by the cleaning pass.
                    addPoint(t + 500, a.lat + 0.3, a.lon - 0.4, accuracy: 2000)
                    flags.append((t + 500, 1))
                    summary.flaggedPoints += 1
                }
            }
            legRows.append((mode, legStart, t, travelled - legStartDistance))
        }
        let duration = Double(t - departure) / 1000
        let offset = p.utcOffset
        let main = legRows.max { $0.3 < $1.3 }!.0
        let tripID = try tables.insert(
            TripRow(deviceID: deviceID, startMs: departure, endMs: t, startUTCOffset: offset, endUTCOffset: offset, durationS: duration,
                    movingS: duration * 0.93, distanceM: travelled, avgSpeedMps: travelled / max(1, duration), maxSpeedMps: Self.speed(main) * 1.3,
                    mode: main, legs: legRows.count, fromVisitID: fromVisit, toVisitID: nil, fromPlaceID: a.id, toPlaceID: b.id, startLat: a.lat,
                    startLon: a.lon, endLat: b.lat, endLon: b.lon, points: points, gaps: 0))
        for (i, leg) in legRows.enumerated() {
            try tables.insert(
                LegRow(tripID: tripID, leg: i, deviceID: deviceID, mode: leg.0, modeSource: "synthetic", startMs: leg.1, endMs: leg.2, distanceM: leg.3,
                       durationS: Double(leg.2 - leg.1) / 1000, points: Int((leg.2 - leg.1) / 1000)))
        }
        summary.trips += 1
        summary.legs += legRows.count
        summary.distanceM += travelled
        let day = localDay(departure)
        dayTotals[day, default: (0, 0, 0, 0, [])].trips += 1
        dayTotals[day]!.distance += travelled
        dayTotals[day]!.moving += duration * 0.93
        here = target
        since = t
    }

    func localDay(_ ms: Int64) -> Int {
        p.utcOffset.localDay(ms: ms)
    }

    mutating func addPoint(_ time: Int64, _ lat: Double, _ lon: Double, accuracy: Double) {
        pendingPoints.append(
            Point(deviceID: deviceID, timeMs: time, utcOffsetS: p.utcOffset.seconds, lat: lat, lon: lon, accuracyM: accuracy, ssid: nil, importID: 0))
    }

    mutating func flushPoints() throws {
        summary.points += try store.insertPoints(pendingPoints)
        pendingPoints.removeAll(keepingCapacity: true)
        for (time, value) in flags { try tables.setFlags(device: deviceID, timeMs: time, flags: UInt8(value)) }
        flags.removeAll()
    }
}
