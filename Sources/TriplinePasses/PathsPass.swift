import TriplineCore
import TriplineStore

/// Pass 6, `paths` (after `trips`, before `metrics`): the distance a trip really covered when its fixes are sparse.
///
/// Straight lines between fixes hundreds of metres apart cut every corner: OwnTracks in significant-changes mode
/// reports a moving phone every 400–1200 m, and a trip that starts after a silence (a pause, a still phone) has its
/// first fix far from the place it left. This pass keeps the straight-line figure in `trips.line_distance_m` and
/// writes its estimate of the path to `trips.distance_m`, saying how in `trips.distance_method`:
/// - `track`: no sparse stretch; the estimate is the straight-line figure (dense archives are unchanged).
/// - `history`: the median distance of the device's earlier `track` trips between the same two places (either
///   direction), when it is at least `history_min_ratio` × the straight-line figure (else the route was another).
/// - `circuity`: in a sparsely sampled trip (median interval ≥ `sparse_interval_s`), each straight segment of at
///   least `sparse_step_m` (and slower than `straight_mps`: planes and
///   high-speed rail fly straight) is multiplied by a circuity that grows linearly from 1 to `circuity` at
///   `circuity_span_m`; so are the stretches between the places and a first or last fix at least `connector_min_m`
///   from them; a trip without a single fix in between is `circuity` × the distance between the two places.
/// The metrics pass spreads each trip's estimate over its local days in proportion to its straight-line increments
/// (`days.distance_m`; the straight-line sum stays in `days.line_distance_m`).
public struct PathsPass: MeasuringPass {
    public static let name = "paths"

    public struct Parameters: PassParameters {
        /// Path length ÷ straight chords at sparse sampling (chords of 400–1200 m or 4–10 min). Measured on the
        /// 1 Hz trips of the simulator's dense-overland development seeds 1–3 (101 trips > 1.5 km: pooled 1.106,
        /// median 1.128) and on GeoLife's dense real tracks (users 010, 020, 075, 078, 080: pooled 1.05–1.35).
        public var circuity: Double = 1.12
        /// The chord length (metres) at which the full `circuity` applies; shorter chords lose less.
        public var circuitySpanM: Double = 800
        /// A straight segment this long (metres) is sparse sampling (1 Hz fixes are ≤ 30 m apart even in a train).
        public var sparseStepM: Double = 150
        /// … in a trip whose median interval between fixes is at least this long (seconds): a long straight
        /// segment in a densely sampled trip is a tunnel or a short loss, and tunnels run straight.
        public var sparseIntervalS: Double = 30
        /// Segments faster than this (m/s) are flights or high-speed rail: straight.
        public var straightMps: Double = 50
        /// A first (last) fix this far (metres) from the place the trip left (reached) adds that stretch.
        public var connectorMinM: Double = 100
        /// A history distance shorter than this share of the straight-line figure belongs to another route.
        public var historyMinRatio: Double = 0.95
        public init() {}

        public static var keys: Keys { [
            "circuity": \.circuity, "circuity_span_m": \.circuitySpanM, "sparse_step_m": \.sparseStepM, "sparse_interval_s": \.sparseIntervalS, "straight_mps": \.straightMps,
            "connector_min_m": \.connectorMinM, "history_min_ratio": \.historyMinRatio,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges").
        public static var ranges: Ranges { [
            "circuity": ParameterRange(1, 10),  // a path is never shorter than its chords
            "circuity_span_m": .distance, "sparse_step_m": .distanceOrOff, "sparse_interval_s": .duration,
            "straight_mps": .speed, "connector_min_m": .distanceOrOff, "history_min_ratio": .share,
        ] }
    }

    public var parameters: Parameters
    public var metrics: MetricsPass.Parameters

    public init(parameters: Parameters = Parameters(), metrics: MetricsPass.Parameters = .init()) {
        self.parameters = parameters
        self.metrics = metrics
    }

    /// The stretches (metres) between the stays and a trip's first and last fix, where at least `connector_min_m`
    /// (the default: the trips pass counts them towards `min_distance_m`).
    static func connectors(_ w: DeviceWork, _ pts: [Int], from: StayRecord?, to: StayRecord?, minM: Double = Parameters().connectorMinM) -> Double {
        guard let first = pts.first, let last = pts.last else { return 0 }
        var d = 0.0
        if let from {
            let c = Geo.distance(from.lat, from.lon, w.lat[first], w.lon[first])
            if c >= minM { d += c }
        }
        if let to {
            let c = Geo.distance(w.lat[last], w.lon[last], to.lat, to.lon)
            if c >= minM { d += c }
        }
        return d
    }

    /// The circuity applied to a straight stretch of `length` metres.
    @inline(__always)
    static func factor(_ length: Double, _ p: Parameters) -> Double {
        1 + (p.circuity - 1) * min(1, length / max(p.circuitySpanM, 1))
    }

    /// The circuity estimate of one trip: (estimate, whether any sparse stretch was found).
    static func estimate(
        _ w: DeviceWork, _ pts: [Int], line: Double, from: (Double, Double)?, to: (Double, Double)?, _ p: Parameters, _ mp: MetricsPass.Parameters
    ) -> (Double, Bool) {
        guard let first = pts.first, let last = pts.last else {
            guard let from, let to else { return (line, false) }
            let d = Geo.distance(from.0, from.1, to.0, to.1)
            return (max(line, d * factor(d, p)), true)
        }
        var extra = 0.0
        var sparse = false
        let bridgeMs = Int64(mp.bridgeMaxS * 1000)
        var intervals: [Int64] = []
        for k in 1..<max(1, pts.count) { intervals.append(w.time[pts[k]] - w.time[pts[k - 1]]) }
        intervals.sort()
        let sparselySampled = !intervals.isEmpty && intervals[intervals.count / 2] >= Int64(p.sparseIntervalS * 1000)
        for k in 1..<max(1, pts.count) where sparselySampled {
            let a = pts[k - 1], b = pts[k]
            let dt = w.time[b] - w.time[a]
            guard dt <= bridgeMs, dt > 0 else { continue }
            let d = Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b])
            if d >= p.sparseStepM && d / (Double(dt) / 1000) < p.straightMps {
                extra += d * (factor(d, p) - 1)
                sparse = true
            }
        }
        for (place, fix) in [(from, first), (to, last)] {
            guard let place else { continue }
            let d = Geo.distance(place.0, place.1, w.lat[fix], w.lon[fix])
            if d >= p.connectorMinM {
                extra += d * factor(d, p)
                sparse = true
            }
        }
        return (line + extra, sparse)
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        try work.ensureFlags(store: store)
        let from = work.previousStay?.endMs ?? max(work.fromMs, work.processFromMs)
        let q = try work.spanQuery(
            """
            SELECT t.id, t.start_ms, t.end_ms, coalesce(t.line_distance_m, t.distance_m), fs.lat, fs.lon, ts.lat, ts.lon,
              fv.place_id, tv.place_id, t.from_visit_id IS NOT NULL, t.to_visit_id IS NOT NULL
            FROM trips t LEFT JOIN stays fs ON fs.id = t.from_visit_id LEFT JOIN stays ts ON ts.id = t.to_visit_id
              LEFT JOIN visits fv ON fv.id = t.from_visit_id LEFT JOIN visits tv ON tv.id = t.to_visit_id
            WHERE t.device_id = ? AND t.start_ms >= ? AND t.start_ms < ? ORDER BY t.start_ms, t.id
            """, store, from: from, to: work.replaceToMs)
        struct Row { var id: Int64; var start: Int64; var end: Int64; var line: Double; var from: (Double, Double)?; var to: (Double, Double)?
            var fromPlace: Int64?; var toPlace: Int64?; var hasFrom: Bool; var hasTo: Bool }
        var rows: [Row] = []
        while try q.step() {
            rows.append(Row(
                id: q.int64(0), start: q.int64(1), end: q.int64(2), line: q.double(3),
                from: q.isNull(4) ? nil : (q.double(4), q.double(5)), to: q.isNull(6) ? nil : (q.double(6), q.double(7)),
                fromPlace: q.isNull(8) ? nil : q.int64(8), toPlace: q.isNull(9) ? nil : q.int64(9), hasFrom: q.int(10) != 0, hasTo: q.int(11) != 0))
        }
        let history = try store.db.prepare(
            """
            SELECT t.distance_m FROM trips t JOIN visits fv ON fv.id = t.from_visit_id JOIN visits tv ON tv.id = t.to_visit_id
            WHERE t.device_id = ? AND t.start_ms < ? AND t.distance_method = 'track'
              AND ((fv.place_id = ? AND tv.place_id = ?) OR (fv.place_id = ? AND tv.place_id = ?))
            ORDER BY t.start_ms DESC LIMIT 9
            """)
        let tables = RebuildTables(store)
        var counts: [String: Int] = [:]
        var total = 0.0
        for r in rows {
            // Interior points, as the trips pass took them.
            var first = lowerBound(work.time, r.start)
            if r.hasFrom && first < work.count && work.time[first] == r.start { first += 1 }
            let last = r.hasTo ? lowerBound(work.time, r.end) - 1 : lowerBound(work.time, r.end + 1) - 1
            var pts: [Int] = []
            if first <= last { for i in first...last where work.flags[i] == 0 { pts.append(i) } }
            var (distance, sparse) = Self.estimate(work, pts, line: r.line, from: r.from, to: r.to, parameters, metrics)
            var method = sparse ? "circuity" : "track"
            if sparse, let a = r.fromPlace, let b = r.toPlace, a != b {
                history.reset()
                history.bindInt(work.deviceID, at: 1)
                history.bindInt(r.start, at: 2)
                history.bindInt(a, at: 3)
                history.bindInt(b, at: 4)
                history.bindInt(b, at: 5)
                history.bindInt(a, at: 6)
                var known: [Double] = []
                while try history.step() { known.append(history.double(0)) }
                if !known.isEmpty {
                    known.sort()
                    let median = known[known.count / 2]
                    if median >= parameters.historyMinRatio * r.line {
                        distance = median
                        method = "history"
                    }
                }
            }
            try tables.setDistance(trip: r.id, distanceM: distance, lineDistanceM: r.line, method: method)
            // One distance: the legs add up to the trip's (each its share of the straight lines).
            try tables.scaleLegs(trip: r.id, toDistanceM: distance)
            counts[method, default: 0] += 1
            total += distance
        }
        return [("track", String(counts["track"] ?? 0)), ("circuity", String(counts["circuity"] ?? 0)),
                ("history", String(counts["history"] ?? 0)), ("distance_km", formatParameter((total / 10).rounded() / 100))]
    }
}
