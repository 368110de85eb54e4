import TriplineCore

/// A re-implementation of trackintel's published pipeline (mie-lab/trackintel 1.x), to score its defaults on the same
/// points with the same scorer: `generate_staypoints(method="sliding")`, `create_activity_flag(time_threshold)`,
/// `generate_triplegs(method="between_staypoints")`, `generate_trips(gap_threshold)` and
/// `predict_transport_mode(method="simple-coarse")`. Checked against trackintel's own regression output
/// (`corpus/trackintel/geolife_long/trips.csv`, see the tests). Written from the algorithm's description; no code copied.
public enum TrackintelReference {
    public struct Parameters: Sendable {
        /// Staypoints: a fix this far (metres, haversine) from the anchor ends the candidate …
        public var distThresholdM = 100.0
        /// … which is a staypoint when it lasted this long (minutes).
        public var timeThresholdMin = 5.0
        /// A silence longer than this (minutes) restarts the candidate.
        public var gapThresholdMin = 15.0
        /// Staypoints lasting this long (minutes) are activities (trip ends).
        public var activityMin = 15.0
        /// Triplegs and trips split at silences longer than this (minutes).
        public var tripGapMin = 15.0
        public init() {}
    }

    public struct Output: Sendable {
        public var trips: [(Int64, Int64)] = []
        /// Triplegs with their simple-coarse mode mapped to Tripline's: slow_mobility (< 15 km/h) → walk,
        /// motorized_mobility (< 100 km/h) → car, fast_mobility → train.
        public var legs: [(Int64, Int64, String)] = []
    }

    /// Runs the pipeline on one user's fixes (sorted by time).
    public static func run(time: [Int64], lat: [Double], lon: [Double], _ p: Parameters = Parameters()) -> Output {
        let n = time.count
        guard n > 1 else { return Output() }
        // Staypoints: [first, end) fix ranges; started = time[first], finished = time[end].
        var stays: [(Int, Int)] = []
        var start = 0
        let gapMs = p.gapThresholdMin * 60_000, minMs = p.timeThresholdMin * 60_000
        for curr in 1..<n {
            if Double(time[curr] - time[curr - 1]) > gapMs {
                start = curr
                continue
            }
            if Geo.distance(lat[start], lon[start], lat[curr], lon[curr]) >= p.distThresholdM {
                if Double(time[curr] - time[start]) >= minMs { stays.append((start, curr)) }
                start = curr
            }
        }
        // Elements in time order: staypoints and triplegs (the fixes outside staypoints, split at long silences,
        // at least two fixes each).
        enum Element { case stay(Int64, Int64, activity: Bool), leg(Int, Int) }
        var elements: [Element] = []
        let tripGapMs = Int64(p.tripGapMin * 60_000)
        func addLegs(_ a: Int, _ b: Int) {  // fixes a..<b
            var s = a
            var k = a + 1
            while k <= b {
                if k == b || time[k] - time[k - 1] > tripGapMs {
                    if k - s >= 2 { elements.append(.leg(s, k - 1)) }
                    s = k
                }
                k += 1
            }
        }
        var next = 0
        for (a, e) in stays {
            addLegs(next, a)
            let started = time[a], finished = time[e]
            elements.append(.stay(started, finished, activity: Double(finished - started) >= p.activityMin * 60_000))
            next = e
        }
        addLegs(next, n)
        // Trips: runs of triplegs and non-activity staypoints, ended by activities and by silences over the gap.
        var out = Output()
        var tripStart: Int64? = nil, tripEnd: Int64 = 0, tripHasLeg = false
        func close() {
            if let s = tripStart, tripHasLeg { out.trips.append((s, tripEnd)) }
            tripStart = nil
            tripHasLeg = false
        }
        for el in elements {
            switch el {
            case .stay(let s, let f, let activity):
                if activity { close(); continue }
                if tripStart != nil && s - tripEnd > tripGapMs { close() }
                if tripStart == nil { tripStart = s }
                tripEnd = f
            case .leg(let a, let b):
                if tripStart != nil && time[a] - tripEnd > tripGapMs { close() }
                if tripStart == nil { tripStart = time[a] }
                tripEnd = time[b]
                tripHasLeg = true
                var length = 0.0
                for k in a..<b { length += Geo.distance(lat[k], lon[k], lat[k + 1], lon[k + 1]) }
                let seconds = Double(time[b] - time[a]) / 1000
                let speed = seconds > 0 ? length / seconds : 0
                out.legs.append((time[a], time[b], speed < 15 / 3.6 ? "walk" : speed < 100 / 3.6 ? "car" : "train"))
            }
        }
        close()
        return out
    }
}
