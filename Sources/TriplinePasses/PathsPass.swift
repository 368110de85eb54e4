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
        /// An earlier trip longer than this many times what the trip could cover at the highest speed its fixes show
        /// (that speed × its duration) took another route, and is no history of it; 0 = no bound.
        public var historyMaxPace: Double = 1.5
        public init() {}

        public static var keys: Keys { [
            "circuity": \.circuity, "circuity_span_m": \.circuitySpanM, "sparse_step_m": \.sparseStepM, "sparse_interval_s": \.sparseIntervalS, "straight_mps": \.straightMps,
            "connector_min_m": \.connectorMinM, "history_min_ratio": \.historyMinRatio,
            "history_max_pace": \.historyMaxPace,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges").
        public static var ranges: Ranges { [
            "circuity": ParameterRange(1, 10),  // a path is never shorter than its chords
            "circuity_span_m": .distance, "sparse_step_m": .distanceOrOff, "sparse_interval_s": .duration,
            "straight_mps": .speed, "connector_min_m": .distanceOrOff, "history_min_ratio": .share,
            "history_max_pace": ParameterRange(0, 1000),  // 0 = no bound
        ] }
    }

    public var parameters: Parameters
    public var metrics: MetricsPass.Parameters
    /// The trips pass's rule for silences ridden through (its `split_gap_s`, `metrics.moving_mps`).
    public var silences: TripsPass.Silences

    public init(parameters: Parameters = Parameters(), metrics: MetricsPass.Parameters = .init()) {
        self.parameters = parameters
        self.metrics = metrics
        silences = .init(TripsPass.Parameters(), metrics)
    }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p, metrics: try MetricsPass(settings: settings).parameters)
        var trips = TripsPass.Parameters()
        try settings.apply(TripsPass.name, to: &trips, keys: TripsPass.Parameters.keys)
        silences = .init(trips, metrics)
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

    /// Where a trip's way lies, piece by piece, for its legs (``apply(_:to:legs:)``): each at the time of the fix it
    /// leaves (a leg holds the hop out of each of its fixes, algorithm version 38); `Int64.min` is the stretch from the
    /// place left to the first fix (the first leg's), `Int64.max` the one from the last fix to the place reached (the
    /// last leg's).
    public struct Piece: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// A straight-line increment between fixes (as the metrics pass counts them), or a connector's straight line.
            case line
            /// The straight line over a silence longer than `metrics.bridge_max_s`: a leg's only when it is the
            /// silence's own leg (``TripsPass/crossedSilences``: `mode_source` `none`, or a flight by its pace).
            case silence
            /// The straight line over a silence up to `trips.split_gap_s` that the traveller rode through
            /// (``TripsPass/Silences/ridden(_:_:_:)``): the holding leg's, its own `unknown` leg or the vehicle that
            /// carried on.
            case ridden
            /// The circuity estimate's extra over a straight stretch.
            case extra
        }
        public var atMs: Int64
        public var metres: Double
        public var kind: Kind
        /// The time of the fix the hop reaches (`atMs` for a connector or a silence) and the hop's straight line: a
        /// hop across the change from a walk to a vehicle (``TripsPass/hopsSplit``) is shared between the two legs.
        public var toMs: Int64
        public var lineM: Double
        public init(atMs: Int64, metres: Double, kind: Kind, toMs: Int64? = nil, lineM: Double? = nil) {
            self.atMs = atMs
            self.metres = metres
            self.kind = kind
            self.toMs = toMs ?? atMs
            self.lineM = lineM ?? metres
        }
    }

    /// The circuity estimate of one trip: (estimate, whether any sparse stretch was found, where its extras lie).
    /// A trip of `seconds` with no fix between its places whose straight line is at least `straight_mps` fast flew:
    /// no circuity (algorithm version 82; before, a flight with the phone in airplane mode measured 1.12 × its great
    /// circle, BER to JFK 7,157 km for 6,390). So does a connector between a place and the trip's first or last fix
    /// crossed that fast over a silence longer than `metrics.bridge_max_s` (from the trip's start, `startMs`, to the fix;
    /// from the fix to its end, `endMs`; a stay's estimated end a second before a fix 100 m off is no flight): a flight with
    /// the phone off from the gate to the walk off the plane measured 1.12 × its great circle, BER to MAD 2,072 km for
    /// 1,850 (the fourteenth hostile round).
    static func estimate(
        _ w: DeviceWork, _ pts: [Int], line: Double, from: (Double, Double)?, to: (Double, Double)?, startMs: Int64, endMs: Int64,
        _ p: Parameters, _ mp: MetricsPass.Parameters
    ) -> (Double, Bool, [Piece]) {
        let seconds = Double(endMs - startMs) / 1000
        guard let first = pts.first, let last = pts.last else {
            guard let from, let to else { return (line, false, []) }
            let d = Geo.distance(from.0, from.1, to.0, to.1)
            if d / max(seconds, 1) >= p.straightMps { return (max(line, d), false, []) }
            return (max(line, d * factor(d, p)), true, [])
        }
        var extra = 0.0
        var sparse = false
        var extras: [Piece] = []
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
                extras.append(Piece(atMs: w.time[a], metres: d * (factor(d, p) - 1), kind: .extra, toMs: w.time[b], lineM: d))
                sparse = true
            }
        }
        for (place, fix, at) in [(from, first, Int64.min), (to, last, Int64.max)] {
            guard let place else { continue }
            let d = Geo.distance(place.0, place.1, w.lat[fix], w.lon[fix])
            let connectorS = Double(at == Int64.min ? w.time[fix] - startMs : endMs - w.time[fix]) / 1000
            if d >= p.connectorMinM && connectorS > mp.bridgeMaxS && d / connectorS >= p.straightMps {
                extra += d  // a silence flown: its straight line, no circuity
            } else if d >= p.connectorMinM {
                extra += d * factor(d, p)
                // The connector's straight line is among the trip's pieces of line (``pieces``); its circuity here.
                extras.append(Piece(atMs: at, metres: d * (factor(d, p) - 1), kind: .extra))
                sparse = true
            }
        }
        return (line + extra, sparse, extras)
    }

    /// The straight-line pieces of a trip's way (fixes `pts`): each increment between fixes as the metrics pass counts
    /// it (``MetricsPass/increments``, the trips pass's legs' figure) at the time of the fix it leaves, each silence
    /// longer than `metrics.bridge_max_s` (no increment) with its straight line, and the connectors of at least
    /// `connector_min_m` between the places and the first and last fix.
    static func pieces(
        _ w: DeviceWork, _ pts: [Int], from: (Double, Double)?, to: (Double, Double)?, _ p: Parameters, _ mp: MetricsPass.Parameters,
        _ silences: TripsPass.Silences
    ) -> [Piece] {
        guard let first = pts.first, let last = pts.last else { return [] }
        var out: [Piece] = []
        let inc = MetricsPass.increments(w, pts, mp).inc
        let bridgeMs = Int64(mp.bridgeMaxS * 1000)
        for k in 1..<max(1, pts.count) {
            let a = pts[k - 1], b = pts[k]
            if w.time[b] - w.time[a] > bridgeMs {
                let kind: Piece.Kind = silences.ridden(w, a, b) ? .ridden : .silence
                out.append(Piece(atMs: w.time[a], metres: Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]), kind: kind))
            } else if inc[k] > 0 {
                out.append(Piece(atMs: w.time[a], metres: inc[k], kind: .line, toMs: w.time[b]))
            }
        }
        for (place, fix, at) in [(from, first, Int64.min), (to, last, Int64.max)] {
            guard let place else { continue }
            let d = Geo.distance(place.0, place.1, w.lat[fix], w.lon[fix])
            if d >= p.connectorMinM { out.append(Piece(atMs: at, metres: d, kind: .line)) }
        }
        return out
    }

    /// What the paths pass found for one trip: the distance to store, the straight-line figure it started from, and
    /// how it was estimated (`track`, `circuity`, `history`).
    public struct Measured: Sendable, Equatable {
        public var id: Int64
        public var distanceM: Double
        public var lineDistanceM: Double
        public var method: String
        /// Where the way lies (``Piece``), for a `circuity` estimate only: its straight lines and the circuity's extras
        /// (a `track` trip's legs hold their own straight lines already; a `history` distance has no place: the legs
        /// share it by their straight lines).
        public var pieces: [Piece] = []
    }

    /// Measures `trips` (by start time, as ``RebuildTables/tripEnds(device:startingFromMs:beforeMs:)`` reads them)
    /// on the device's fixes. A sparse trip between two places takes the median of the latest (at most 9) `track`
    /// distances between them before it: those measured here, then `storedHistory(a, b)` (latest first: the stored
    /// `track` trips between places `a` and `b` that start before the first of `trips`, which this pass does not
    /// rewrite), read only when needed.
    static func measure(
        _ work: DeviceWork, _ trips: [TripEnds], storedHistory: (Int64, Int64) throws -> [Double], _ p: Parameters, _ mp: MetricsPass.Parameters,
        silences: TripsPass.Silences? = nil
    ) rethrows -> [Measured] {
        let silences = silences ?? .init(TripsPass.Parameters(), mp)
        var out: [Measured] = []
        out.reserveCapacity(trips.count)
        /// The `track` trips measured so far between two places (either direction): (start, distance), in order.
        var measured: [PlacePair: [(Int64, Double)]] = [:]
        var stored: [PlacePair: [Double]] = [:]
        for r in trips {
            // Interior points, as the trips pass took them.
            var first = lowerBound(work.time, r.startMs)
            if r.hasFromVisit && first < work.count && work.time[first] == r.startMs { first += 1 }
            let last = r.hasToVisit ? lowerBound(work.time, r.endMs) - 1 : lowerBound(work.time, r.endMs + 1) - 1
            var pts: [Int] = []
            if first <= last { for i in first...last where work.flags[i] == 0 { pts.append(i) } }
            let from = r.fromLat.flatMap { lat in r.fromLon.map { (lat, $0) } }, to = r.toLat.flatMap { lat in r.toLon.map { (lat, $0) } }
            var (distance, sparse, extras) = Self.estimate(work, pts, line: r.lineDistanceM, from: from, to: to, startMs: r.startMs, endMs: r.endMs, p, mp)
            var method = sparse ? "circuity" : "track"
            if sparse, let a = r.fromPlaceID, let b = r.toPlaceID, a != b {
                let pair = PlacePair(a, b)
                let cap = Self.historyCap(startMs: r.startMs, endMs: r.endMs, maxSpeedMps: r.maxSpeedMps, p)
                var known = (measured[pair] ?? []).filter { $0.0 < r.startMs && $0.1 <= cap }.reversed().prefix(9).map { $0.1 }
                if known.count < 9 {
                    if stored[pair] == nil { stored[pair] = try storedHistory(a, b) }
                    known += stored[pair]!.lazy.filter { $0 <= cap }.prefix(9 - known.count)
                }
                if !known.isEmpty {
                    known.sort()
                    let median = known[known.count / 2]
                    if median >= p.historyMinRatio * r.lineDistanceM {
                        distance = median
                        method = "history"
                        extras = []
                    }
                }
            }
            if method == "track", let a = r.fromPlaceID, let b = r.toPlaceID { measured[PlacePair(a, b), default: []].append((r.startMs, distance)) }
            // Only a `circuity` estimate has extras with a place; `track` legs already hold their own straight lines
            // (the trips pass's, the same increments) and a `history` distance is shared by them: no pieces needed.
            let pieces = method == "circuity" ? Self.pieces(work, pts, from: from, to: to, p, mp, silences) + extras : []
            out.append(Measured(id: r.id, distanceM: distance, lineDistanceM: r.lineDistanceM, method: method, pieces: pieces))
        }
        return out
    }

    /// The longest earlier `track` distance that may stand for a sparse trip from `startMs` to `endMs` whose fixes
    /// show at most `maxSpeedMps`: `history_max_pace` × what that speed covers in that time (no bound without a
    /// speed, or with 0). A 10-km drive seen every 500 m at 50 km/h took the 29.9 km of the scenic detour once driven
    /// between its places: 150 km/h on average, three times its fixes' speed.
    static func historyCap(startMs: Int64, endMs: Int64, maxSpeedMps: Double?, _ p: Parameters) -> Double {
        guard p.historyMaxPace > 0, let v = maxSpeedMps, v > 0, endMs > startMs else { return .infinity }
        return p.historyMaxPace * v * Double(endMs - startMs) / 1000
    }

    /// The start of the earliest of `trips` (a device's stored trips, by start time then id,
    /// ``RebuildTables/measuredTrips(device:)``) whose measure the places as they now stand make otherwise: a sparse trip
    /// (`circuity` or `history`) takes `history` exactly when the latest (at most 9) `track` trips before it between its
    /// two places, either way round, give a median of at least `history_min_ratio` × its straight lines, and then that
    /// median (``measure(_:_:storedHistory:_:_:)``). The places pass clusters over all of a device's history, so a new
    /// visit can move an earlier one to another place; the trips measured before then keep the measure of the run that
    /// made them, where a rebuild over everything measures them by the places as they end up (an evening's import
    /// moved a visit to the place of an earlier walk between the same two places: two walks measured by `circuity`,
    /// 302 and 359 m, which the full rebuild measured by that walk, 328 m). Nil when every stored measure stands.
    static func firstStale(_ trips: [MeasuredTrip], _ p: Parameters) -> Int64? {
        var tracks: [PlacePair: [(Int64, Double)]] = [:]
        for r in trips {
            if r.method == "track" {
                if let a = r.fromPlaceID, let b = r.toPlaceID { tracks[PlacePair(a, b), default: []].append((r.startMs, r.distanceM)) }
                continue
            }
            guard r.method == "circuity" || r.method == "history" else { continue }
            var history: Double? = nil
            if let a = r.fromPlaceID, let b = r.toPlaceID, a != b, let list = tracks[PlacePair(a, b)] {
                var known: [Double] = []
                let cap = Self.historyCap(startMs: r.startMs, endMs: r.endMs, maxSpeedMps: r.maxSpeedMps, p)
                var k = list.count - 1
                while k >= 0 && known.count < 9 {
                    if list[k].0 < r.startMs && list[k].1 <= cap { known.append(list[k].1) }
                    k -= 1
                }
                if !known.isEmpty {
                    known.sort()
                    if known[known.count / 2] >= p.historyMinRatio * r.lineDistanceM { history = known[known.count / 2] }
                }
            }
            if r.method == "history" ? history != r.distanceM : history != nil { return r.startMs }
        }
        return nil
    }

    /// The trips the trips pass left (``TripsPass/run``: `trips` with their stable ids, `stays` the stays it ran on)
    /// that start in `from ..< to`, as ``RebuildTables/tripEnds(device:startingFromMs:beforeMs:)`` would read them back
    /// once stored: by start time then id, the straight-line distance the trips pass measured, the stays' centres, and
    /// the places of their visits (`places`, by visit id); each with its index in `trips`.
    static func ends(_ trips: [TripRecord], stays: [StayRecord], places: [Int64: Int64], from: Int64, to: Int64) -> [(index: Int, ends: TripEnds)] {
        trips.indices.filter { trips[$0].startMs >= from && trips[$0].startMs < to }.map { k in
            let t = trips[k]
            let a = t.fromStay.map { stays[$0] }, b = t.toStay.map { stays[$0] }
            return (k, TripEnds(
                id: t.id, startMs: t.startMs, endMs: t.endMs, lineDistanceM: t.distanceM, fromLat: a?.lat, fromLon: a?.lon, toLat: b?.lat,
                toLon: b?.lon, fromPlaceID: a.flatMap { places[$0.id] }, toPlaceID: b.flatMap { places[$0.id] }, hasFromVisit: a != nil,
                hasToVisit: b != nil, maxSpeedMps: TripsPass.maximum(t)))
        }.sorted { ($0.ends.startMs, $0.ends.id) < ($1.ends.startMs, $1.ends.id) }
    }

    /// A trip's row and its legs' rows with the distance measured (`m`): the trip's distance, straight lines, method and
    /// speeds (``TripRow/setDistance(_:lineDistanceM:method:)``), and one distance for the legs. Each leg takes the
    /// pieces of the way in its span (``Piece``: a leg holds the hop out of each of its fixes, the first leg the
    /// stretch from the place left, the last the one to the place reached): its straight lines, and under `circuity`
    /// the extras found there; then all are scaled to add up to the trip's distance (a `history` distance, which has
    /// no place, is so shared by the straight lines). Without pieces (a `track` or `history` trip, whose legs' own
    /// straight lines are the shares; a trip no fix saw; rows measured before) each
    /// leg keeps its share of the legs' distances; legs that cover no distance at all share it by duration, else the
    /// first leg takes it. Then the trip's maximum is raised to any leg's average (the highest speed over any part is
    /// at least the mean over that part). Applied again it changes nothing.
    static func apply(_ m: Measured, to trip: inout TripRow, legs: inout [LegRow]) {
        trip.setDistance(m.distanceM, lineDistanceM: m.lineDistanceM, method: m.method)
        guard !legs.isEmpty else { return }
        var weights = [Double](repeating: 0, count: legs.count)
        /// The leg whose span holds `t`: the last starting at or before it (the first leg before them all).
        func holder(_ t: Int64) -> Int {
            if t == .min { return 0 }
            if t == .max { return legs.count - 1 }
            var lo = 0, hi = legs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if legs[mid].startMs <= t { lo = mid + 1 } else { hi = mid }
            }
            return max(0, lo - 1)
        }
        /// Adds a piece of line or extra to leg `k`, or shares it with the next leg when the hop crosses the change from a
        /// walk to a vehicle there (``TripsPass/hopsSplit``): the walk's part at a walker's pace.
        func add(_ piece: Piece, _ k: Int) {
            guard k + 1 < legs.count, legs[k].endMs > piece.atMs, legs[k].endMs < piece.toMs, piece.lineM > 0,
                let footFirst = TripsPass.walkMeetsVehicle(legs[k].mode, legs[k + 1].mode)
            else { weights[k] += piece.metres; return }
            let footS = Double(footFirst ? legs[k].endMs - piece.atMs : piece.toMs - legs[k].endMs) / 1000
            let foot = piece.metres * TripsPass.footMetres(piece.lineM, seconds: footS) / piece.lineM
            weights[k] += footFirst ? foot : piece.metres - foot
            weights[k + 1] += footFirst ? piece.metres - foot : foot
        }
        for piece in m.pieces {
            let k = holder(piece.atMs)
            switch piece.kind {
            case .line: add(piece, k)
            case .extra: if m.method == "circuity" { add(piece, k) }
            case .ridden: weights[k] += piece.metres
            case .silence:
                // The trips pass counts a silence's straight line only in the silence's own leg.
                if legs[k].modeSource == "none" || (legs[k].mode == "plane" && legs[k].modeSource == "pace") { weights[k] += piece.metres }
            }
        }
        var metres = 0.0, seconds = 0.0, weighed = 0.0
        for (k, leg) in legs.enumerated() {
            metres += leg.distanceM
            seconds += leg.durationS
            weighed += weights[k]
        }
        if weighed > 0 {
            let scale = m.distanceM / weighed
            var sum = 0.0, largest = 0
            for k in legs.indices {
                legs[k].distanceM = weights[k] * scale
                sum += legs[k].distanceM
                if weights[k] > weights[largest] { largest = k }
            }
            legs[largest].distanceM = max(0, legs[largest].distanceM + (m.distanceM - sum))  // the rounding, to the longest
        } else if metres > 0 {
            let scale = m.distanceM / metres
            for k in legs.indices { legs[k].distanceM *= scale }
        } else if seconds > 0 {
            let perSecond = m.distanceM / seconds
            for k in legs.indices { legs[k].distanceM = legs[k].durationS * perSecond }
        } else {
            for k in legs.indices { legs[k].distanceM = legs[k].leg == 0 ? m.distanceM : 0 }
        }
        for leg in legs where leg.durationS > 0 {
            trip.maxSpeedMps = max(trip.maxSpeedMps ?? 0, leg.distanceM / leg.durationS)
        }
    }

    /// A stored trip and its legs as the trips pass left them, before any run of this pass measured them: the
    /// maximum speed it gave (`line_max_speed_mps`, which ``apply(_:to:legs:)`` raises to the path's and the legs'
    /// averages) and the legs' straight lines (`legs.line_distance_m`, the shares of a `track` or `history` distance).
    /// A `--pass paths` run starts from these, as the full rebuild does: from the stored, already measured figures a
    /// setting that shortens the path kept the longer path's maximum (sparse seed 3: 1.519 m/s where the full rebuild
    /// gives 1.463), and a trip whose estimate became `track` or `history` shared it by its legs' earlier `circuity`
    /// shares (test `PathsRerunTests`). The distance, its straight lines, method and average are set anew by `apply`.
    static func unmeasured(_ trip: inout TripRow, legs: inout [LegRow]) {
        trip.maxSpeedMps = trip.lineMaxSpeedMps
        for k in legs.indices { if let line = legs[k].lineDistanceM { legs[k].distanceM = line } }
    }

    /// Two places, either way round.
    struct PlacePair: Hashable {
        var a: Int64, b: Int64
        init(_ x: Int64, _ y: Int64) { (a, b) = x < y ? (x, y) : (y, x) }
    }

    /// Measures the span's trips and writes them: those the trips pass left in memory (``DeviceWork/trips``) are stored
    /// here, once, with their legs (``TripsPass/store(_:_:store:)``); without them (`--pass paths`) the stored trips
    /// of the span are measured from what the trips pass stored (``unmeasured(_:legs:)``) and their distances written.
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        try work.ensureFlags(store: store)
        let from = work.previousStay?.endMs ?? max(work.fromMs, work.processFromMs)
        let tables = RebuildTables(store)
        let history = { (a: Int64, b: Int64) in try tables.trackDistances(device: work.deviceID, beforeMs: from, between: a, and: b) }
        var results: [Measured] = []
        if var recorded = work.trips, let stays = work.stays {
            // The trips pass ran on this span: its trips (the places of their visits from the table: a window before the
            // last keeps the visits of an earlier rebuild, ``PlacesPass``), measured, then stored.
            let visits = recorded.flatMap { t in [t.fromStay, t.toStay].compactMap { $0.map { stays[$0].id } } }
            let span = Self.ends(recorded, stays: stays, places: try tables.visitPlaces(ids: visits), from: from, to: work.replaceToMs)
            results = try Self.measure(work, span.map(\.ends), storedHistory: history, parameters, metrics, silences: silences)
            for (r, (k, _)) in zip(results, span) {
                var legs = recorded[k].legs.map(\.row)
                Self.apply(r, to: &recorded[k].row, legs: &legs)
                for n in legs.indices { recorded[k].legs[n].row = legs[n] }
            }
            try TripsPass.store(recorded, work, store: store)
            work.trips = nil
        } else {
            let span = try tables.tripEnds(device: work.deviceID, startingFromMs: from, beforeMs: work.replaceToMs)
            results = try Self.measure(work, span, storedHistory: history, parameters, metrics, silences: silences)
            let rows = try tables.trips(device: work.deviceID, startingFromMs: from, beforeMs: work.replaceToMs)
            for r in results {
                guard var row = rows[r.id] else { continue }
                var legs = try tables.legs(ofTrip: r.id)
                Self.unmeasured(&row, legs: &legs)
                Self.apply(r, to: &row, legs: &legs)
                try tables.setDistance(row)
                for leg in legs { try tables.setDistance(leg) }
            }
        }
        var counts: [String: Int] = [:]
        var total = 0.0
        for r in results {
            counts[r.method, default: 0] += 1
            total += r.distanceM
        }
        return ["track": .count(counts["track"] ?? 0), "circuity": .count(counts["circuity"] ?? 0),
                "history": .count(counts["history"] ?? 0), "distance_km": .measure((total / 10).rounded() / 100)]
    }
}
