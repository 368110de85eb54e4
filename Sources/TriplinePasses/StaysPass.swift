import TriplineCore
import TriplineStore


/// Pass 2, `stays`: stationary periods, written to `stays` (one row per stay; the places pass turns each into a visit).
///
/// From an anchor point, a cluster grows while each next kept point lies within `radius_m` of the cluster's
/// time-weighted centre (a point weighs the time until the next point, capped at `weight_cap_s`: one fix an hour
/// while still outweighs a minute of passing-by fixes, and 20–80 m of drift stays inside). A silence of up to
/// `max_gap_s` with the same place on both sides stays inside the stay; a silence with movement across ends it.
/// Moving fixes at the edges (speed ≥ `moving_mps` and further than `trim_m` from the centre) are trimmed back
/// into the trips. What is left must last `min_duration_s`. Consecutive stays whose centres are within `merge_m`
/// and whose in-between points never went further than `excursion_m` are one stay (drift excursions, a short
/// loss of signal), unless the app's motion states say the person walked out and back (`walk_out_s`).
public struct StaysPass: Pass {
    public static let name = "stays"

    public struct Parameters: PassParameters {
        /// Cluster radius (metres) around the time-weighted centre. Covers 20–80 m of drift plus noise.
        public var radiusM: Double = 120
        /// Shortest stay (seconds). Traffic lights, bus stops, level crossings and waits for a bus or a train stay inside trips.
        public var minDurationS: Double = 600
        /// Shortest errand (seconds): a stay shorter than `min_duration_s` but at least this long is kept when the
        /// stays before and after it are at one place (within `merge_m`) and it lies away from that place — a quick
        /// visit out and back (reitti's 5–8 min stops), unlike a wait or a pause on the way somewhere.
        public var errandMinDurationS: Double = 240
        /// … and only when the stays before and after it end and begin within this long (seconds) of it (0 = no bound).
        public var errandReachS: Double = 3600
        /// Shortest stop out of a vehicle (seconds): a stay shorter than `min_duration_s` but at least this long is
        /// kept when the app's motion states show the person out of any vehicle — the last moving state within
        /// `got_out_reach_s` before it and the first after it say walking, running or cycling, and none of its own fixes
        /// says driving (a shop, the school gate, steps from a car parked down the street, a bicycle locked at the
        /// bakery). A wait aboard, a jam or a wait for the bus that the bus ends say `driving` on one side or inside.
        /// Only apps that record motion states (Overland, OwnTracks' `motionactivities`, Google's activity) have
        /// them: GPX and GeoLife tracks are never touched. 0 = off.
        public var gotOutMinDurationS: Double = 300
        /// … the moving states looked for within this long (seconds) before and after the stay.
        public var gotOutReachS: Double = 120
        /// … and one side with no moving state within `got_out_reach_s` (iOS names an activity late: a short walk or
        /// ride on to the next shop says `stationary` for its first minutes) is taken as no vehicle, when the other
        /// side is on foot or on a bicycle (1 = on, 0 = both sides must show one; algorithm version 73).
        public var gotOutLate: Double = 1
        /// A stay of `got_out_min_duration_s` is also out of any vehicle when the phone lost the sky there (1 = on,
        /// 0 = off; algorithm version 60): every kept fix inside it reports no speed (a wifi or cell fix: no Doppler),
        /// while the kept fixes just before and just after it report one (satellites, outdoors). A vehicle standing in a
        /// jam or at a light keeps its satellites and reports a speed of 0; a person goes indoors. Apps that report no
        /// speed at all (GPX, GeoLife) or none while moving (OwnTracks' significant-changes mode) are never touched.
        public var gotOutIndoors: Double = 1
        /// A walk (`steps_leave_s`) begins at the moving fixes just before its first stepping state, which iOS
        /// names late (1 = on, 0 = off; algorithm version 61).
        public var stepsLead: Double = 1
        /// Longest silence (seconds) inside a stay when the same place is on both sides.
        public var maxGapS: Double = 86_400
        /// Weight cap (seconds) of one point in the centre.
        public var weightCapS: Double = 600
        /// A point at or above this speed (m/s) counts as moving when trimming edges.
        public var movingMps: Double = 0.7
        /// Moving points within this distance (metres) of the centre are kept in the stay.
        public var trimM: Double = 5
        /// A silence between a stay's last fix and a moving fix longer than this (seconds) and at most `extend_max_s`
        /// is claimed by the stay up to the estimated departure (arrival likewise); 0 turns this off.
        public var extendMinS: Double = 120
        public var extendMaxS: Double = 4000
        /// Accuracy (metres) assumed for fixes that report none (GPX, GeoLife) when trimming.
        public var unknownAccuracyM: Double = 40
        /// Fixes without an accuracy may jitter this many times the cluster's median distance from its centre (0 = off).
        public var scatterFactor: Double = 2
        /// … in clusters whose median interval between fixes is at least this long (seconds).
        public var sparseIntervalS: Double = 10
        /// Fixes that report an accuracy and no speed may stray from the centre their accuracy × `scatter_factor` × the
        /// median ratio of distance to accuracy of the cluster's fixes that report one, when that is above 1 (1 = on,
        /// 0 = off; algorithm version 56).
        public var knownScatter: Double = 1
        /// How far (seconds) into a stay's start and end moving fixes are looked for when trimming.
        public var edgeS: Double = 240
        /// A candidate whose fixes keep moving across it is travel, not a stay (1 = on, 0 = off; algorithm version 98):
        /// they report speeds, and minute by minute their mean position moves 10 m or more at a reported 0.2 m/s or
        /// more in two minutes of three, and more than `radius_m` in all (``StaysPass/traverses(_:_:radiusM:)``). A
        /// walk at 0.45 m/s, a pram, a car creeping through a jam never leave a 120-m radius of their own moving
        /// centre for 9 min, and were chains of visits joined by 5-s "trips" at 40 m/s.
        public var traverse: Double = 1
        /// Stays closer than this (metres) …
        public var mergeM: Double = 100
        /// … with no in-between point further than this (metres) from the first one are merged.
        public var excursionM: Double = 250
        /// … unless the fixes between them carry the app's moving motion states (walking, running, cycling, driving)
        /// for at least this long (seconds) in all and draw a path of `walk_out_m`: a walk out and back (the postbox,
        /// the dog round the block) is a trip between two stays at home, not drift inside one (``walkedOut``;
        /// algorithm version 57; 0 = off). Only apps that record motion states: GPX and GeoLife are never touched.
        public var walkOutS: Double = 60
        /// … and cover at least this path (metres; `trips.steps_min_distance_m`: the trip between them must be one;
        /// 150 in version 57, `trips.min_distance_m`).
        public var walkOutM: Double = 50
        /// A run of fixes whose motion states say walking, running or cycling (not `stationary`) for at least this long
        /// (seconds) and that gets `steps_leave_m` from its first fix, inside a stay, cuts the stay in two when each part
        /// lasts the shortest stay any rule keeps: a walk to the kiosk 100 m from home, inside the stay's radius
        /// (``splitAtWalks``; algorithm version 58; 0 = off).
        public var stepsLeaveS: Double = 60
        /// … the distance (metres) such a run must reach from its first fix (pacing round a room does not).
        public var stepsLeaveM: Double = 50
        /// … and when only one part lasts that long, the other part and the walk are the trip's: the stay ends where the
        /// walk began (a walk to the bus stop next door and the wait there), or begins where it ended (the way back from
        /// a stop at the far end of a walk round the block) (algorithm version 59; 1 = on, 0 = off).
        public var stepsTrim: Double = 1
        /// A walk (`steps_leave_s`) goes on through fixes whose states say `stationary` together with walking, running
        /// or cycling, for less than the shortest stay any rule keeps: the walker waits at a crossing, and iOS keeps the
        /// foot state beside `stationary` (1 = on, 0 = off; algorithm version 73).
        public var stepsWait: Double = 1
        /// A short stay between two trips that the learned model calls a pause on the way (a wait for the bus, a
        /// transfer, a jam) is no stay: the trips on both sides are one (``PauseDecision``; 1 = on, 0 = off).
        public var pauseModel: Double = 1
        /// A short stay between two trips whose traveller moved faster than this (m/s) in the minute before and the
        /// minute after it never got off: traffic, no stay (``PauseDecision``; 0 = off). Faster than any bicycle
        /// (`trips.cycle_max_mps`): a cyclist rides up to the door. Off since algorithm version 96 (7.5 before): a
        /// candidate lasts at least `min_duration_s`, and a vehicle that stands that long stopped there, however fast it
        /// came and went (a van's four 15-min stops were one trip; the fourteenth hostile round).
        public var aboardMps: Double = 0
        /// Tracks logged by hand (a GPS logger or a GPX app started and stopped by hand; GeoLife): a silence of at
        /// least `silence_min_s` between a trip's track that arrived at a place and one that left no further from it
        /// than this (metres: a cold start's warm-up jump and the GPS error) plus `silence_late_s` at the next track's
        /// own pace is a stay at the place, until the next track's first fix less the travel to it at that pace — when
        /// that leaves at least `min_duration_s` (``silences(_:_:_:)``). Only between fixes that report no speed (those
        /// that do are ``extendIntoSilences(_:_:_:)``'s and the evidence pass's). 0 = off.
        public var silenceJumpM: Double = 300
        /// … the longest (seconds) the logger is started after leaving: the next track's first fix lies at most this
        /// long at its own pace from the place.
        public var silenceLateS: Double = 300
        /// … and only silences at least this long (seconds; never shorter than `min_duration_s`): a silence has no
        /// fix to tell a stop from a wait on the way (a station, a transfer), which the stop-or-traffic model decides
        /// for stays of up to 30 min that have fixes.
        public var silenceMinS: Double = 1800
        /// … or at least this long (seconds; never shorter than `min_duration_s`) when the next track's first fix lies
        /// within `silence_jump_m` of the place, with no late start allowed: a ride through a short silence (the
        /// subway, a signal lost under way) resumes far from where the track before ended, a stop of 10–30 min with the
        /// logger switched off resumes at the door (0 = off; algorithm version 78).
        public var silenceShortS: Double = 600
        /// … and only after a track that ends no faster than this (m/s; median step speed of its last two minutes):
        /// whoever stops somewhere walks to the door (`trips.walk_max_mps`); faster, the signal was lost under way —
        /// unless it stood still at the place for the two minutes before the silence (a run, a ride up to the door).
        public var silenceArriveMps: Double = 2.4
        /// … or whose last this many seconds (the median step speed over them, at least one step) were no faster:
        /// the walk from a parked car to the door (a driver who stops the logger on arriving logged the drive's last
        /// two minutes; a track lost under way is fast to its end). 0 = off (algorithm version 77).
        public var silenceArriveS: Double = 30
        /// … and when a stay begins at the fix after the silence (the logger woke where the person was) whose centre
        /// lies within this many metres of the place the track before ended, the silence is that stay, from the
        /// arrival (a person asleep at home between a day logged by hand and a day logged all day). 0 = off.
        public var silenceWakeM: Double = 120
        /// … and both tracks are trips: each reaches further than this (metres) from its end at the silence, beyond
        /// the place's own reach (`radius_m`, not tuned): a track that never leaves it is the logger waking at a place,
        /// not a departure. A short walk logged by hand (home from the school, 270 m; out and back at lunch, logged
        /// from two minutes on) is a trip all the same (algorithm version 76; before, `silence_jump_m`, 300 m).
        public var silenceLeaveM: Double = 120

        public init() {}

        /// The shortest stay any rule keeps: `detect` finds candidates from this long.
        var shortestCandidateS: Double {
            min(minDurationS, errandMinDurationS, gotOutMinDurationS > 0 ? gotOutMinDurationS : .infinity)
        }

        public static var keys: Keys { [
            "radius_m": \.radiusM, "min_duration_s": \.minDurationS, "errand_min_duration_s": \.errandMinDurationS,
            "errand_reach_s": \.errandReachS, "got_out_min_duration_s": \.gotOutMinDurationS, "got_out_reach_s": \.gotOutReachS,
            "got_out_indoors": \.gotOutIndoors, "got_out_late": \.gotOutLate, "steps_lead": \.stepsLead,
            "max_gap_s": \.maxGapS, "extend_min_s": \.extendMinS, "extend_max_s": \.extendMaxS, "weight_cap_s": \.weightCapS,
            "moving_mps": \.movingMps, "trim_m": \.trimM, "unknown_accuracy_m": \.unknownAccuracyM, "scatter_factor": \.scatterFactor,
            "sparse_interval_s": \.sparseIntervalS, "known_scatter": \.knownScatter, "edge_s": \.edgeS, "traverse": \.traverse, "merge_m": \.mergeM,
            "excursion_m": \.excursionM, "walk_out_s": \.walkOutS, "walk_out_m": \.walkOutM,
            "steps_leave_s": \.stepsLeaveS, "steps_leave_m": \.stepsLeaveM, "steps_trim": \.stepsTrim,
            "steps_wait": \.stepsWait,
            "pause_model": \.pauseModel, "aboard_mps": \.aboardMps, "silence_jump_m": \.silenceJumpM, "silence_late_s": \.silenceLateS,
            "silence_min_s": \.silenceMinS, "silence_short_s": \.silenceShortS, "silence_arrive_mps": \.silenceArriveMps,
            "silence_arrive_s": \.silenceArriveS,
            "silence_wake_m": \.silenceWakeM, "silence_leave_m": \.silenceLeaveM,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges"): radii and speeds the pass divides by are above 0; the
        /// windows it scans around each fix are at most an hour; other durations at most a year.
        public static var ranges: Ranges { [
            "radius_m": .distance, "min_duration_s": .duration, "errand_min_duration_s": .duration, "errand_reach_s": .duration,
            "got_out_min_duration_s": .duration, "got_out_reach_s": .window, "got_out_indoors": .flag, "got_out_late": .flag, "steps_lead": .flag,
            "max_gap_s": .duration, "extend_min_s": .duration, "extend_max_s": .duration, "weight_cap_s": .positiveDuration,
            "moving_mps": .speed, "trim_m": .distanceOrOff, "unknown_accuracy_m": .distanceOrOff,
            "scatter_factor": ParameterRange(0, 100),  // 0 = off; a multiple of the cluster's median distance
            "sparse_interval_s": .duration, "known_scatter": .flag, "edge_s": .window, "traverse": .flag, "merge_m": .distanceOrOff,
            "excursion_m": .distanceOrOff,
            "walk_out_s": .duration, "walk_out_m": .distanceOrOff, "steps_leave_s": .window, "steps_leave_m": .distanceOrOff,
            "steps_trim": .flag, "steps_wait": .flag,
            "pause_model": .flag, "aboard_mps": .speedOrOff, "silence_jump_m": .distanceOrOff, "silence_late_s": .duration, "silence_min_s": .duration,
            "silence_short_s": .duration,
            "silence_arrive_mps": .speed, "silence_arrive_s": .window, "silence_wake_m": .distanceOrOff, "silence_leave_m": .distance,
        ] }
    }

    public var parameters: Parameters

    /// Whether ``run(_:store:)`` writes the stays to the `stays` table. Off when the evidence pass runs after this one
    /// in the same rebuild (``Rebuild``): that pass writes the stays it amends, so the table is written once.
    public var writesStays = true

    /// The stop-or-traffic model (`pause_model`): the shipped coefficients unless an evaluation replaces them.
    public var pauseModel: PauseModel = .shipped
    /// Receives every candidate pause's features when set (the training export).
    public var pauseLog: PauseLog? = nil

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p)
        if let model = settings.pauseModel { pauseModel = model }
        pauseLog = settings.pauseLog
    }

    /// Speed at each kept point: the reported speed, else the displacement over a window of at least 10 s.
    static func speeds(_ w: DeviceWork, kept: [Int]) -> [Double] {
        var v = [Double](repeating: 0, count: kept.count)
        let m = kept.count
        for k in 0..<m {
            let i = kept[k]
            let s = w.speed[i]
            if !s.isNaN && s >= 0 { v[k] = s; continue }
            var a = k, b = k
            while (a > 0 || b < m - 1) && w.time[kept[b]] - w.time[kept[a]] < 10_000 {
                if a > 0 && (b == m - 1 || k - a <= b - k) { a -= 1 } else if b < m - 1 { b += 1 }
            }
            let dt = Double(w.time[kept[b]] - w.time[kept[a]]) / 1000
            v[k] = dt > 0 ? Geo.distance(w.lat[kept[a]], w.lon[kept[a]], w.lat[kept[b]], w.lon[kept[b]]) / dt : 0
            // A long silence around a point says nothing about movement.
            if dt > 300 { v[k] = 0 }
        }
        return v
    }

    /// Whether the fixes `pts` (time order) keep moving across the ground (`traverse`), by the speeds they report
    /// and their positions: at least four fixes of five report a speed; minute by minute (fixes in at least four
    /// minutes of five, at least five minutes), their mean position moves at least 10 m from one minute to the next
    /// while their mean reported speed is at least ``slowMps``, in two steps of three, and more than `radiusM` in all.
    /// A phone at rest reports 0 (its minute means a few metres apart, or a jump now and then); a walk at 0.45 m/s
    /// moves 27 m a minute, minute after minute, switchbacks or not. Positions alone do not tell: a GPS logger's fixes
    /// at rest wander as steadily (simulated loggers, development seeds 1–10: trip F1 0.92 → 0.83 on positions alone).
    static func traverses(_ w: DeviceWork, _ pts: ArraySlice<Int>, radiusM: Double) -> Bool {
        guard pts.count >= 8, let first = pts.first, let last = pts.last else { return false }
        let t0 = w.time[first], minutes = Int((w.time[last] - t0) / 60_000) + 1
        guard minutes >= 5 else { return false }
        let lat0 = w.lat[first], lon0 = w.lon[first]
        let ky = Geo.earthRadius * Double.pi / 180, kx = ky * Geo.cosLatitude(lat0)
        var sx = [Double](repeating: 0, count: minutes), sy = sx, n = sx, speed = sx, reported = 0
        for i in pts {
            let k = Int((w.time[i] - t0) / 60_000)
            sx[k] += (Geo.unwrappedLongitude(w.lon[i], near: lon0) - lon0) * kx
            sy[k] += (w.lat[i] - lat0) * ky
            n[k] += 1
            if !w.speed[i].isNaN && w.speed[i] >= 0 {
                speed[k] += w.speed[i]
                reported += 1
            }
        }
        guard reported * 5 >= pts.count * 4 else { return false }
        let filled = n.indices.filter { n[$0] > 0 }
        guard filled.count * 5 >= minutes * 4 else { return false }
        var steps = 0, moving = 0, path = 0.0
        for (a, b) in zip(filled, filled.dropFirst()) {
            let dx = sx[b] / n[b] - sx[a] / n[a], dy = sy[b] / n[b] - sy[a] / n[a]
            let d = (dx * dx + dy * dy).squareRoot()
            steps += 1
            path += d
            if d >= 10 * Double(b - a) && speed[b] >= slowMps * n[b] { moving += 1 }
        }
        return moving * 3 >= steps * 2 && path > radiusM
    }

    /// The least mean reported speed (m/s) of a minute of ``traverses(_:_:radiusM:)``: a slow walker's 0.3 m/s less
    /// the Doppler error (a phone at rest reports 0).
    static let slowMps = 0.2

    /// Finds the stays among the kept points.
    /// - Complexity: O(n) amortised: a failed anchor skips ahead by half the radius.
    // Long by design: the hot scan over the kept points; the anchor, running centre and trimming closures share one cluster's state (the trimmed stay and the errands are apart).
    public static func detect(_ w: DeviceWork, _ p: Parameters) -> [StayRecord] {
        var kept: [Int] = []
        kept.reserveCapacity(w.count)
        for i in 0..<w.count where w.flags[i] == 0 { kept.append(i) }
        let m = kept.count
        guard m > 0 else { return [] }
        let v = speeds(w, kept: kept)
        // Local copies (shared storage, no copy) read in the trimming's hot closure without a class property's
        // exclusivity check on every fix.
        let accuracy = w.accuracy, reportedSpeed = w.speed
        let ky = Geo.earthRadius * Double.pi / 180
        let gapMs = Int64(p.maxGapS * 1000)
        let capMs = Int64(p.weightCapS * 1000)
        let r2 = p.radiusM * p.radiusM
        var raw: [StayRecord] = []
        var a = 0
        while a < m && w.time[kept[a]] < w.processFromMs { a += 1 }
        while a < m {
            let i0 = kept[a]
            let lat0 = w.lat[i0], lon0 = w.lon[i0]
            let kx = ky * Geo.cosLatitude(lat0)
            @inline(__always) func xy(_ i: Int) -> (Double, Double) { ((Geo.unwrappedLongitude(w.lon[i], near: lon0) - lon0) * kx, (w.lat[i] - lat0) * ky) }
            func weight(_ k: Int) -> Double {
                let dt = k + 1 < m ? min(w.time[kept[k + 1]] - w.time[kept[k]], capMs) : 1000
                return Double(max(dt, 1000)) / 1000
            }
            var sw = weight(a), sx = 0.0, sy = 0.0
            var b = a
            while b + 1 < m {
                let j = kept[b + 1]
                if w.time[j] - w.time[kept[b]] > gapMs { break }
                let (x, y) = xy(j)
                let cx = sx / sw, cy = sy / sw
                let d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy)
                if d2 > r2 {
                    // A still fix may lie a little further when its own accuracy says it could be here: two indoor
                    // fixes an hour apart can drift 20–80 m in opposite directions.
                    // (Only fixes that report an accuracy.)
                    let acc = w.accuracy[j]
                    let reach = p.radiusM + 0.5 * min(acc.isNaN ? 0 : acc, p.radiusM)
                    if v[b + 1] >= p.movingMps || d2 > reach * reach { break }
                }
                let wt = weight(b + 1)
                sx += x * wt; sy += y * wt; sw += wt
                b += 1
            }
            let cx = sx / sw, cy = sy / sw
            // Trim moving edges.
            var s = a, e = b
            // Fixes without an accuracy: `unknown_accuracy_m`, or more when the cluster's own scatter says they jitter
            // more (`scatter_factor` × their median distance from the centre); fixes with one and no speed: that accuracy,
            // or more likewise (× the median ratio of distance to accuracy: a phone whose still fixes stray beyond what
            // each reports, algorithm version 56). Only in a cluster long enough to be a stay (checked once here: `far`
            // runs for every moving fix at the edges of every cluster tried, most of them seconds of a trip) and sampled
            // sparsely (every `sparse_interval_s` or less often), worked out when a fix first needs it.
            let scatterMatters = p.scatterFactor > 0 && b > a + 2
                && Double(w.time[kept[b]] - w.time[kept[a]]) >= p.shortestCandidateS * 1000
            var scatterCache: (unknown: Double, known: Double)? = nil
            func scatterLimits() -> (unknown: Double, known: Double) {
                if let cached = scatterCache { return cached }
                var limits = (unknown: p.unknownAccuracyM, known: 1.0)
                if scatterMatters {
                    // The median interval is at least `sparse_interval_s` when at most half the intervals are shorter
                    // (the sorted intervals' middle one, counted without sorting: a 1-Hz stay has thousands).
                    let sparseMs = Int64(p.sparseIntervalS * 1000)
                    var shorter = 0
                    for k in a..<b where w.time[kept[k + 1]] - w.time[kept[k]] < sparseMs { shorter += 1 }
                    if shorter <= (b - a) / 2 {
                        var unknown: [Double] = [], known: [Double] = []
                        for k in a...b {
                            let (x, y) = xy(kept[k])
                            let d = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
                            let acc = w.accuracy[kept[k]]
                            if acc.isNaN { unknown.append(d) } else if acc > 0 { known.append(d / acc) }
                        }
                        if unknown.count >= 3 {
                            unknown.sort()
                            limits.unknown = max(limits.unknown, p.scatterFactor * unknown[unknown.count / 2])
                        }
                        if known.count >= 3 && p.knownScatter > 0 {
                            known.sort()
                            limits.known = max(1, p.scatterFactor * known[known.count / 2])
                        }
                    }
                }
                scatterCache = limits
                return limits
            }
            // Further from the centre than `trim_m` and than the fix's own accuracy or the cluster's scatter (above; for a
            // fix that reports an accuracy, only when it reports no speed: its speed then comes from displacements, which
            // jitter alone makes look like walking, while a speed the phone measured says it moved).
            @inline(__always) func far(_ k: Int) -> Bool {
                let (x, y) = xy(kept[k])
                let d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy)
                let acc = accuracy[kept[k]]
                if acc.isNaN {
                    let limit = max(p.trimM, scatterMatters ? scatterLimits().unknown : p.unknownAccuracyM)
                    return d2 > limit * limit
                }
                // Within its accuracy it is not far, whatever the scatter (which is then not worked out).
                guard d2 > max(p.trimM, acc) * max(p.trimM, acc) else { return false }
                guard scatterMatters && p.knownScatter > 0 && reportedSpeed[kept[k]].isNaN else { return true }
                let limit = max(p.trimM, acc * scatterLimits().known)
                return d2 > limit * limit
            }
            // Within the first and last `edge_s`, everything up to the last moving fix away from the centre is
            // arrival or departure (crossing waits on the way included).
            let edgeMs = Int64(p.edgeS * 1000)
            var k = a
            while k <= b && w.time[kept[k]] <= w.time[kept[a]] + edgeMs {
                if v[k] >= p.movingMps && far(k) { s = k + 1 }
                k += 1
            }
            k = b
            while k >= s && w.time[kept[k]] >= w.time[kept[b]] - edgeMs {
                if v[k] >= p.movingMps && far(k) { e = k - 1 }
                k -= 1
            }
            // A minute or more of fixes at either end that report a walker's speed (``SpeedGuard/movingS(_:_:)``: their
            // positions moving too), each within a minute of the next, is travel, however near the centre: the last laps
            // of a running track before a rest there (algorithm version 94). The few steps of an arrival at the door stay
            // the stay's, as before.
            if s < e {
                var r = s
                while r < e && reportedSpeed[kept[r]] >= SpeedGuard.walkingMps && w.time[kept[r + 1]] - w.time[kept[r]] <= 60_000 { r += 1 }
                if SpeedGuard.movingS(w, kept[s...r]) >= 60 { s = r }
                r = e
                while r > s && reportedSpeed[kept[r]] >= SpeedGuard.walkingMps && w.time[kept[r]] - w.time[kept[r - 1]] <= 60_000 { r -= 1 }
                if SpeedGuard.movingS(w, kept[r...e]) >= 60 { e = r }
            }
            if e >= s && (Double(w.time[kept[e]] - w.time[kept[s]]) >= p.shortestCandidateS * 1000
                || (e > s && indoorsLong(kept[s], kept[e], w, p))) && !SpeedGuard.travelled(w, kept[s...e])
                && !(p.traverse > 0 && Self.traverses(w, kept[s...e], radiusM: p.radiusM)) {
                raw.append(trimmedStay(w, kept, s, e, lat0: lat0, lon0: lon0, kx: kx, ky: ky, capMs: capMs))
                a = e + 1
            } else {
                if e < s { e = b }
                // Skip ahead to the first point half a radius from the anchor (at least one point).
                var next = a + 1
                let half2 = r2 / 4
                while next < b {
                    let (x, y) = xy(kept[next])
                    if x * x + y * y > half2 { break }
                    next += 1
                }
                // Never skip past where the trimmed cluster began: a stay may start right there.
                if s > a { next = min(next, s) }
                a = max(next, a + 1)
            }
        }
        return silences(errands(merge(splitAtWalks(raw, w, kept, p), w, p), w, p), w, p)
    }

    /// Tracks logged by hand (a GPS logger or a GPX app started at each departure and stopped after each arrival;
    /// GeoLife's loggers): a stay is the silence between two tracks, and no fix lies inside it. A kept fix `i`, then
    /// nothing for at least `silence_short_s` (and `min_duration_s`; at most `max_gap_s`), then fix `j`, neither
    /// reporting a speed, the silence claimed by no stay and no stay beginning at `j`: the traveller was at `i`'s place
    /// and left it to reach `j` at the next track's own pace `v` (median step speed of its first two minutes). The
    /// silence is a stay there when
    /// - both tracks are trips: each runs on (fixes at most a minute apart) beyond `silence_leave_m` of its end at the
    ///   silence (a track that never leaves the place's reach is the logger waking at a place, not a departure), and
    ///   the track before it ends no faster than `silence_arrive_mps` (median step speed of its last two minutes, or
    ///   of its last `silence_arrive_s`: whoever stops somewhere walks to the door, if only from the car; faster, the
    ///   silence is a signal lost under way);
    /// - `j` lies within `silence_jump_m` + `v` × `silence_late_s` of the place (a cold start's warm-up jump, and a
    ///   logger started a few minutes after leaving); a silence shorter than `silence_min_s` but at least
    ///   `silence_short_s` only when `j` lies within `silence_jump_m` (version 78: a ride through a short silence, the
    ///   subway or a tunnel, resumes far off; a stop with the logger off resumes at the door);
    /// - the time that travel leaves, `j` less `distance / v`, is at least `min_duration_s`; otherwise the pace across
    ///   the silence says they were moving (an unseen trip), and it stays unclaimed.
    /// A stay that ends at `i` (within `edge_s`) is extended to the departure (the track conditions on its side are its
    /// own fixes); else a stay begins at the still fixes the track ended with (those within `unknown_accuracy_m` of `i`).
    /// Algorithm version 33: a silence that ends in a stay (one beginning within `edge_s` of `j`: the logger woke where
    /// the person was) is that stay from `i` when its centre lies within `silence_wake_m` of the place the track before
    /// ended; that track arrived also when it stood still there (those still fixes) for the two minutes before the
    /// silence, and a lone `i` more than a minute after the rest is judged with them. Since version 76 this is asked
    /// before whether the next track is a trip: a cold start's warm-up jump, run back to the place, reaches
    /// `silence_leave_m`.
    // Long by design: one scan over the silences, each checked against both tracks and the stays around it.
    static func silences(_ stays: [StayRecord], _ w: DeviceWork, _ p: Parameters) -> [StayRecord] {
        guard p.silenceJumpM > 0, w.count > 1 else { return stays }
        let minMs = Int64(p.minDurationS * 1000), maxMs = Int64(p.maxGapS * 1000), edgeMs = Int64(p.edgeS * 1000)
        let silenceMs = max(minMs, Int64(p.silenceMinS * 1000))
        // Silences from `shortMs` up to `silenceMs` are stays only where the next track begins at the place.
        let shortMs = p.silenceShortS > 0 ? min(silenceMs, max(minMs, Int64(p.silenceShortS * 1000))) : silenceMs
        let trackMs: Int64 = 60_000, paceMs: Int64 = 120_000
        /// The median step speed (m/s) of the track from `e` over `window` (forward: after it; else before it; at
        /// least its first step when that ends within `paceMs`), steps of at most `trackMs`; nil without a step.
        func pace(from e: Int, forward: Bool, window: Int64? = nil) -> Double? {
            let windowMs = window ?? paceMs
            var steps: [Double] = []
            var a = e
            while true {
                let b = forward ? w.firstKept(atOrAfter: a + 1) : w.lastKept(atOrBefore: a - 1)
                guard b >= 0, b < w.count else { break }
                let span = abs(w.time[b] - w.time[e])
                guard span <= windowMs || (steps.isEmpty && span <= paceMs) else { break }
                let dt = abs(w.time[b] - w.time[a])
                if dt > 0 && dt <= trackMs { steps.append(Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) * 1000 / Double(dt)) }
                a = b
            }
            guard !steps.isEmpty else { return nil }
            steps.sort()
            return steps[steps.count / 2]
        }
        /// Whether the track from `e` (fixes at most `trackMs` apart; forward: after it, else before it) reaches further
        /// than `silence_leave_m` from it.
        func leaves(from e: Int, forward: Bool) -> Bool {
            var q = e
            while true {
                let r = forward ? w.firstKept(atOrAfter: q + 1) : w.lastKept(atOrBefore: q - 1)
                guard r >= 0, r < w.count, abs(w.time[r] - w.time[q]) <= trackMs else { return false }
                if Geo.distance(w.lat[e], w.lon[e], w.lat[r], w.lon[r]) > p.silenceLeaveM { return true }
                q = r
            }
        }
        var out = stays
        var added: [StayRecord] = []
        var k = 0  // the first stay that ends after the current fix
        var i = w.firstKept(atOrAfter: lowerBound(w.time, w.processFromMs))
        while i < w.count {
            let j = w.firstKept(atOrAfter: i + 1)
            guard j < w.count else { break }
            defer { i = j }
            let ti = w.time[i], tj = w.time[j]
            guard tj - ti >= shortMs, tj - ti <= maxMs, w.speed[i].isNaN, w.speed[j].isNaN else { continue }
            let short = tj - ti < silenceMs
            while k < out.count && out[k].endMs <= ti { k += 1 }
            // Claimed by a stay already (a cluster across it, an extension): the silence is left to it.
            if k < out.count && out[k].startMs <= ti { continue }
            // The stay ending at `i` (trimmed of its last moving fixes), else the track before must be a trip that
            // arrived (below).
            let previous = k > 0 && ti - out[k - 1].endMs <= edgeMs ? k - 1 : nil
            // The place: the stay's, else the still fixes the track before ended with (within `unknown_accuracy_m` of `i`).
            var lat = w.lat[i], lon = w.lon[i], first = i, n = 1
            if let previous {
                lat = out[previous].lat; lon = out[previous].lon
            } else {
                var sLat = lat, sLon = lon
                var q = w.lastKept(atOrBefore: i - 1)
                while q >= 0 && ti - w.time[q] <= edgeMs && (k == 0 || w.time[q] > out[k - 1].endMs)
                    && Geo.distance(w.lat[i], w.lon[i], w.lat[q], w.lon[q]) <= p.unknownAccuracyM
                {
                    first = q; n += 1; sLat += w.lat[q]; sLon += Geo.unwrappedLongitude(w.lon[q], near: w.lon[i])
                    q = w.lastKept(atOrBefore: q - 1)
                }
                lat = sLat / Double(n); lon = Geo.normalizedLongitude(sLon / Double(n))
            }
            // A stay at the place begins at `j` (or within `edge_s` of it, its first fixes trimmed: a cold start's
            // warm-up jump): the logger woke where the person was (left on all day, started at home before the first
            // departure), and the silence is that stay if the track before arrived at its place (`waking`,
            // `silence_wake_m`). Else the next track must be a trip that left the place; else the stays pass saw a
            // place there and it is left to it.
            var v = 0.0
            var waking: Int? = nil
            if p.silenceWakeM > 0, previous == nil, k < out.count, out[k].startMs <= tj + edgeMs,
               Geo.distance(lat, lon, out[k].lat, out[k].lon) <= p.silenceWakeM
            {
                waking = k
            } else if !(k < out.count && out[k].startMs <= tj), let pj = pace(from: j, forward: true), leaves(from: j, forward: true) {
                v = pj
            } else {
                continue
            }
            if previous == nil {
                // The track before ends at `i`, or, when `i` is a lone fix more than a minute after the rest (a signal
                // lost indoors; a logger left on writes a still fix only once it drifted 10–25 m), at the still fixes
                // it ended with. It arrived: it ends no faster than walking, or it stood still at the place (those
                // fixes) for two minutes before the silence (version 33: a run, a ride right up to the door).
                let end = pace(from: i, forward: false) == nil ? first : i
                // It arrived on foot over its last two minutes, or over its last `silence_arrive_s` (from the car).
                let walkedIn = p.silenceArriveS > 0 ? pace(from: end, forward: false, window: Int64(p.silenceArriveS * 1000)) : nil
                guard let arrive = pace(from: end, forward: false).map({ min($0, walkedIn ?? $0) }),
                      arrive <= p.silenceArriveMps || ti - w.time[first] >= paceMs,
                      leaves(from: end, forward: false) else { continue }
            }
            if let waking {
                // The person arrived at the place the logger woke at and never moved: one stay from the arrival.
                out[waking].startMs = ti
                out[waking].first = i
                out[waking].points += 1
                out[waking].gapS = max(out[waking].gapS, (tj - ti) / 1000)
                continue
            }
            let d = Geo.distance(lat, lon, w.lat[j], w.lon[j])
            guard d <= p.silenceJumpM + (short ? 0 : v * p.silenceLateS) else { continue }
            let travel = v >= p.movingMps ? Int64(d / v * 1000) : 0
            let leave = tj - max(travel, 1000)
            if let previous {
                guard leave - ti >= minMs else { continue }
                out[previous].endMs = max(out[previous].endMs, leave)
                out[previous].gapS = max(out[previous].gapS, (tj - ti) / 1000)
            } else {
                let start = w.time[first]
                guard leave - start >= minMs else { continue }
                added.append(StayRecord(
                    first: first, last: i, startMs: start, endMs: leave, lat: lat, lon: lon, radiusM: 0, points: n,
                    gapS: (tj - ti) / 1000))
            }
        }
        guard !added.isEmpty else { return out }
        return (out + added).sorted { $0.startMs < $1.startMs }
    }

    /// The stay of kept points `s...e` (indices into `kept`), its centre and radius recomputed on them (weighted by
    /// time and accuracy), in the local plane of the anchor (`lat0`, `lon0`; metres per degree `kx`, `ky`).
    static func trimmedStay(_ w: DeviceWork, _ kept: [Int], _ s: Int, _ e: Int, lat0: Double, lon0: Double, kx: Double, ky: Double,
                            capMs: Int64) -> StayRecord {
        @inline(__always) func xy(_ i: Int) -> (Double, Double) { ((Geo.unwrappedLongitude(w.lon[i], near: lon0) - lon0) * kx, (w.lat[i] - lat0) * ky) }
        var sx = 0.0, sy = 0.0, sw = 0.0
        var maxGap: Int64 = 0
        for k in s...e {
            let (x, y) = xy(kept[k])
            let tw = k < e ? Double(max(min(w.time[kept[k + 1]] - w.time[kept[k]], capMs), 1000)) / 1000 : 1
            let acc = w.accuracy[kept[k]]
            let ae = acc.isNaN ? 30 : max(acc, 5)
            let wt = tw / (ae * ae)
            sx += x * wt; sy += y * wt; sw += wt
            if k < e { maxGap = max(maxGap, w.time[kept[k + 1]] - w.time[kept[k]]) }
        }
        let cx = sx / sw, cy = sy / sw
        var sr = 0.0
        for k in s...e {
            let (x, y) = xy(kept[k])
            sr += ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
        }
        return StayRecord(
            first: kept[s], last: kept[e], startMs: w.time[kept[s]], endMs: w.time[kept[e]],
            lat: lat0 + cy / ky, lon: Geo.normalizedLongitude(lon0 + cx / kx), radiusM: sr / Double(e - s + 1), points: e - s + 1,
            gapS: maxGap / 1000)
    }

    /// The merged stays, those shorter than `min_duration_s` kept only as errands (out from one place and back to
    /// it), extended into the silences around them.
    static func errands(_ merged: [StayRecord], _ w: DeviceWork, _ p: Parameters) -> [StayRecord] {
        // Stays shorter than `min_duration_s` are kept only as errands: out from one place and back to it.
        let minMs = Int64(p.minDurationS * 1000)
        func isShort(_ s: StayRecord) -> Bool { s.endMs - s.startMs < minMs }
        // Merged once more (a merge moves a centre, and a short stay left out joins its neighbours' fixes), whether or
        // not any stay was short: what joins must not depend on a short stay elsewhere in the span, which a rebuild
        // over everything has and an incremental rebuild's span may not (a stay 105 m from the next one's centre but
        // 33 m from the centre of that one merged with the one after it; algorithm version 71).
        if !merged.contains(where: isShort) { return extendIntoSilences(merge(merged, w, p), w, p) }
        var out: [StayRecord] = []
        for (k, stay) in merged.enumerated() {
            guard isShort(stay) else { out.append(stay); continue }
            if gotOut(stay, w, p) { out.append(stay); continue }
            guard stay.endMs - stay.startMs >= Int64(p.errandMinDurationS * 1000) else { continue }
            let before = merged[..<k].last(where: { !isShort($0) }) ?? w.previousStay
            guard let before, let after = merged[(k + 1)...].first(where: { !isShort($0) }) else { continue }
            // Out and back within `errand_reach_s`: with iOS pauses every stay is short until the evidence pass
            // stretches it, and "the stays before and after" could be a day apart (a 4-min wait at a bus stop became
            // an errand between yesterday's and tomorrow's home).
            let reach = Int64(p.errandReachS * 1000)
            // From `before`'s last fix: a raw stay ends there, and the visit an incremental rebuild kept (`previousStay`)
            // must count as the raw stay it was, not with the end the evidence pass and the silences gave it later
            // (an end stretched over a pause put a 9-min stop within reach of it, which the full rebuild drops).
            let beforeLastFix = before.last < w.count ? min(before.endMs, w.time[before.last]) : before.endMs
            guard p.errandReachS <= 0 || (stay.startMs - beforeLastFix <= reach && after.startMs - stay.endMs <= reach) else { continue }
            let home = Geo.distance(before.lat, before.lon, after.lat, after.lon)
            if home <= p.mergeM && Geo.distance(before.lat, before.lon, stay.lat, stay.lon) > p.mergeM
                && Geo.distance(after.lat, after.lon, stay.lat, stay.lon) > p.mergeM
            {
                out.append(stay)
            }
        }
        return extendIntoSilences(merge(out, w, p), w, p)
    }

    /// A short stay the phone places out of any vehicle (`got_out_min_duration_s`): indoors (``indoorsLong(_:_:_:_:)``,
    /// `got_out_indoors`), or by its motion states on foot or on a bicycle at both ends with no `driving` inside.
    static func gotOut(_ stay: StayRecord, _ w: DeviceWork, _ p: Parameters) -> Bool {
        guard p.gotOutMinDurationS > 0, stay.first <= stay.last, stay.last < w.count else { return false }
        if indoorsLong(stay.first, stay.last, w, p) { return true }
        guard stay.endMs - stay.startMs >= Int64(p.gotOutMinDurationS * 1000) else { return false }
        let vehicle = MotionBits.driving, outside = MotionBits.walking | MotionBits.running | MotionBits.cycling
        for i in stay.first...stay.last where w.flags[i] == 0 && w.motion[i] & vehicle != 0 { return false }
        let reach = Int64(p.gotOutReachS * 1000)
        /// The first moving state from `i` on in `step`'s direction, within `reach` of `from`.
        func firstMoving(from i: Int, step: Int, edge: Int64) -> UInt8? {
            var q = i
            while q >= 0 && q < w.count && abs(w.time[q] - edge) <= reach {
                let bits = w.motion[q] & (outside | vehicle)
                if w.flags[q] == 0 && bits != 0 { return bits }
                q += step
            }
            return nil
        }
        let before = firstMoving(from: stay.first - 1, step: -1, edge: w.time[stay.first])
        let after = firstMoving(from: stay.last + 1, step: 1, edge: w.time[stay.last])
        // iOS names an activity late: the first minutes of a short walk or ride away may still say `stationary`, so
        // one side with no moving state at all is no vehicle (`got_out_late`); a vehicle on either side still is.
        guard p.gotOutLate > 0 ? before != nil || after != nil : before != nil && after != nil else { return false }
        return (before ?? 0) & vehicle == 0 && (after ?? 0) & vehicle == 0
    }

    /// Whether the phone lost the sky from fix `first` to fix `last` (`got_out_indoors`) for at least
    /// `got_out_min_duration_s`: at least two kept fixes, none of them reporting a speed, and the kept fixes just before
    /// and just after them reporting one. The time counts from the arrival to the departure those fixes place, as
    /// ``extendIntoSilences(_:_:_:)`` does: a phone that reports a fix every 3 min indoors sees a 6-min stop with two.
    static func indoorsLong(_ first: Int, _ last: Int, _ w: DeviceWork, _ p: Parameters) -> Bool {
        guard p.gotOutIndoors > 0, p.gotOutMinDurationS > 0, first >= 0, first < last, last < w.count else { return false }
        // The neighbours first: the stays pass asks this of every cluster too short by its fixes' span, and in a
        // track without speeds (GPX, GeoLife) they answer at once.
        let before = w.lastKept(atOrBefore: first - 1), after = w.firstKept(atOrAfter: last + 1)
        guard before >= 0, after < w.count, !w.speed[before].isNaN, !w.speed[after].isNaN else { return false }
        var inside = 0
        for i in first...last where w.flags[i] == 0 {
            if !w.speed[i].isNaN { return false }
            inside += 1
        }
        guard inside >= 2 else { return false }
        let maxMs = Int64(p.extendMaxS * 1000)
        var arrive = w.time[first], leave = w.time[last]
        // The way from the fix before at its speed (a silence longer than `extend_max_s` is missing data).
        if w.speed[before] >= p.movingMps && arrive - w.time[before] <= maxMs {
            let d = Geo.distance(w.lat[before], w.lon[before], w.lat[first], w.lon[first])
            arrive = max(w.time[before], min(arrive, w.time[before] + Int64(d / w.speed[before] * 1000)))
        }
        if w.speed[after] >= p.movingMps && w.time[after] - leave <= maxMs {
            let d = Geo.distance(w.lat[last], w.lon[last], w.lat[after], w.lon[after])
            leave = min(w.time[after], max(leave, w.time[after] - Int64(d / w.speed[after] * 1000)))
        }
        return leave - arrive >= Int64(p.gotOutMinDurationS * 1000)
    }

    /// Sparse sampling while still (Overland keeps one fix an hour, OwnTracks reports every few minutes to hours)
    /// leaves a silence between a stay's last fix and the first moving fix of the trip after it. The person left
    /// shortly before that moving fix, not at the last still fix: when the silence lasts between `extend_min_s` and
    /// `extend_max_s`, the stay ends (and the trip starts) at the moving fix's time less the time to cover its distance
    /// from the stay's centre at its speed. Arrivals likewise. Longer silences are missing data and stay unclaimed.
    static func extendIntoSilences(_ stays: [StayRecord], _ w: DeviceWork, _ p: Parameters) -> [StayRecord] {
        guard p.extendMaxS > 0 else { return stays }
        let minMs = Int64(p.extendMinS * 1000), maxMs = Int64(p.extendMaxS * 1000)
        func speed(_ i: Int) -> Double? {
            let v = w.speed[i]
            return !v.isNaN && v >= p.movingMps ? v : nil
        }
        var out = stays
        for k in out.indices {
            var st = out[k]
            // Departure: the first kept point after the stay.
            let j = w.firstKept(atOrAfter: st.last + 1)
            if j < w.count, let v = speed(j) {
                let silence = w.time[j] - st.endMs
                if silence > minMs && silence <= maxMs {
                    let d = Geo.distance(st.lat, st.lon, w.lat[j], w.lon[j])
                    let leave = w.time[j] - Int64(d / v * 1000)
                    st.endMs = min(max(leave, st.endMs), w.time[j] - 1000)
                }
            }
            // Arrival: the last kept point before the stay.
            let i = w.lastKept(atOrBefore: st.first - 1)
            if i >= 0, let v = speed(i) {
                let silence = st.startMs - w.time[i]
                if silence > minMs && silence <= maxMs {
                    let d = Geo.distance(st.lat, st.lon, w.lat[i], w.lon[i])
                    let arrive = w.time[i] + Int64(d / v * 1000)
                    st.startMs = max(min(arrive, st.startMs), w.time[i] + 1000)
                }
            }
            // Never overlap the neighbours.
            if k > 0 { st.startMs = max(st.startMs, out[k - 1].endMs) }
            out[k] = st
        }
        return out
    }

    /// Merges consecutive stays at one spot with no real excursion between them.
    static func merge(_ raw: [StayRecord], _ w: DeviceWork, _ p: Parameters) -> [StayRecord] {
        var out: [StayRecord] = []
        for stay in raw {
            if let last = out.last,
                Geo.distance(last.lat, last.lon, stay.lat, stay.lon) <= p.mergeM,
                Double(stay.startMs - last.endMs) <= p.maxGapS * 1000
            {
                var excursion = 0.0
                var i = last.last + 1
                while i < stay.first {
                    if w.flags[i] == 0 { excursion = max(excursion, Geo.distance(last.lat, last.lon, w.lat[i], w.lon[i])) }
                    if excursion > p.excursionM { break }
                    i += 1
                }
                if excursion <= p.excursionM && !walkedOut(last, stay, w, p) {
                    let a = Double(last.endMs - last.startMs) + 1, b = Double(stay.endMs - stay.startMs) + 1
                    var merged = last
                    merged.last = stay.last
                    merged.endMs = stay.endMs
                    merged.lat = (last.lat * a + stay.lat * b) / (a + b)
                    merged.lon = Geo.meanLongitude(last.lon, a, stay.lon, b)
                    merged.radiusM = max(last.radiusM, stay.radiusM)
                    merged.points = last.points + stay.points
                    merged.gapS = max(last.gapS, stay.gapS, (stay.startMs - last.endMs) / 1000)
                    out[out.count - 1] = merged
                    continue
                }
            }
            out.append(stay)
        }
        return out
    }

    /// The walks among the kept fixes (`steps_leave_s`; ranges of indices into `kept`, from the first fix saying so to the
    /// last): runs whose motion states say walking, running or cycling without `stationary` (fixes with no state inside
    /// a run go on with it, and with `steps_wait` so do those that say `stationary` beside a foot state, a wait at a
    /// crossing, while it is shorter than the shortest stay any rule keeps; a silence over a minute ends it), from the
    /// moving fixes just before their first such state
    /// (`steps_lead`: iOS names a walk late), lasting `steps_leave_s` and reaching `steps_leave_m` from their first fix.
    /// Empty when the rule is off or the track has no motion states.
    static func walks(_ w: DeviceWork, _ kept: [Int], _ p: Parameters) -> [ClosedRange<Int>] {
        guard p.stepsLeaveS > 0, w.motion.count == w.count else { return [] }
        // Local copies (shared storage): the scan reads every kept fix's state, without a class property's
        // exclusivity check each time.
        let motion = w.motion, time = w.time, lat = w.lat, lon = w.lon, speed = w.speed
        let onFoot = MotionGuard.onFoot, still = MotionBits.stationary
        @inline(__always) func stepping(_ k: Int) -> Bool { let m = motion[kept[k]]; return m & onFoot != 0 && m & still == 0 }
        // A wait (`steps_wait`) goes on with the walk while it is shorter than the shortest stay any rule keeps.
        let wait = p.stepsWait > 0, waitMs = Int64(p.shortestCandidateS * 1000)
        @inline(__always) func waiting(_ k: Int, since e: Int) -> Bool {
            wait && motion[kept[k]] & onFoot != 0 && time[kept[k]] - time[kept[e]] < waitMs
        }
        var out: [ClosedRange<Int>] = []
        let minMs = Int64(p.stepsLeaveS * 1000)
        var k = 0, floor = 0
        while k < kept.count {
            guard stepping(k) else { k += 1; continue }
            var e = k, q = k, reach = 0.0
            // iOS names a walk late: the moving fixes just before its first stepping state (reported speed of at
            // least `moving_mps`, no vehicle state, at most a minute apart) are the walk's start.
            var b = k
            while p.stepsLead > 0 && b > floor, time[kept[b]] - time[kept[b - 1]] <= 60_000, motion[kept[b - 1]] & MotionBits.driving == 0,
                  !speed[kept[b - 1]].isNaN, speed[kept[b - 1]] >= p.movingMps { b -= 1 }
            let i0 = kept[b]
            while q + 1 < kept.count && (stepping(q + 1) || motion[kept[q + 1]] == 0 || waiting(q + 1, since: e)) && time[kept[q + 1]] - time[kept[q]] <= 60_000 {
                q += 1
                if stepping(q) { e = q }
                // Measured only until it suffices: most runs are the walks of trips, thousands of fixes long.
                if reach < p.stepsLeaveM { reach = max(reach, Geo.distance(lat[i0], lon[i0], lat[kept[q]], lon[kept[q]])) }
            }
            if time[kept[e]] - time[i0] >= minMs && reach >= p.stepsLeaveM { out.append(b...e) }
            k = q + 1
            floor = k
        }
        return out
    }

    /// A stay with a walk inside it (``walks(_:_:_:)``: a walk to the kiosk 100 m from home, inside the stay's radius,
    /// and the minutes there) is two stays, the walk between them, when the part before the walk and the part after it
    /// each last at least the shortest stay any rule keeps; ``merge(_:_:_:)`` then keeps them apart or joins them. When
    /// only one part lasts that long (`steps_trim`), the stay is that part: the walk and the short part are the trip's.
    static func splitAtWalks(_ raw: [StayRecord], _ w: DeviceWork, _ kept: [Int], _ p: Parameters) -> [StayRecord] {
        let runs = walks(w, kept, p)
        guard !runs.isEmpty else { return raw }
        let shortestMs = Int64(p.shortestCandidateS * 1000), capMs = Int64(p.weightCapS * 1000)
        let ky = Geo.earthRadius * Double.pi / 180
        func piece(_ s: Int, _ e: Int) -> StayRecord {
            let lat0 = w.lat[kept[s]], lon0 = w.lon[kept[s]]
            return trimmedStay(w, kept, s, e, lat0: lat0, lon0: lon0, kx: ky * Geo.cosLatitude(lat0), ky: ky, capMs: capMs)
        }
        var out: [StayRecord] = []
        var r = 0
        for stay in raw {
            var s = lowerBound(kept, stay.first)
            let e = lowerBound(kept, stay.last)
            var pieces: [StayRecord] = []
            while r < runs.count && runs[r].lowerBound <= s { r += 1 }
            var e2 = e, cut = false
            while r < runs.count && runs[r].upperBound < e2 {
                let run = runs[r]
                r += 1
                guard run.lowerBound > s else { continue }
                let before = w.time[kept[run.lowerBound - 1]] - w.time[kept[s]] >= shortestMs
                let after = w.time[kept[e2]] - w.time[kept[run.upperBound + 1]] >= shortestMs
                if before && after {
                    pieces.append(piece(s, run.lowerBound - 1))
                    s = run.upperBound + 1
                    cut = true
                } else if after && p.stepsTrim > 0 {
                    // Too short a stop before the walk to be a stay (a look at the view, a postbox): it is the trip's.
                    s = run.upperBound + 1
                    cut = true
                } else if before && p.stepsTrim > 0 {
                    // … or after it (a wait at the bus stop next door): the stay ends where the walk began.
                    e2 = run.lowerBound - 1
                    cut = true
                    break
                }
            }
            out.append(contentsOf: cut ? pieces + [piece(s, e2)] : [stay])
        }
        return out
    }

    /// Whether the kept fixes from stay `a`'s last to stay `b`'s first show a trip out and back (`walk_out_s`): moving
    /// motion states for `walk_out_s` in all (``MotionGuard``, driving included: a drive round the block) and a path
    /// of `walk_out_m`.
    static func walkedOut(_ a: StayRecord, _ b: StayRecord, _ w: DeviceWork, _ p: Parameters) -> Bool {
        walkedOut(a, b, w, seconds: p.walkOutS, metres: p.walkOutM)
    }

    /// ``walkedOut(_:_:_:_:)`` with `walk_out_s` and `walk_out_m` given (the evidence pass asks it too).
    static func walkedOut(_ a: StayRecord, _ b: StayRecord, _ w: DeviceWork, seconds: Double, metres: Double) -> Bool {
        guard seconds > 0, a.last >= 0, a.last <= b.first, b.first < w.count else { return false }
        let between = (a.last...b.first).filter { w.flags[$0] == 0 }
        let moving = MotionGuard.movingS(w, between, states: MotionGuard.onFoot | MotionBits.driving)
        guard moving >= seconds else { return false }
        var path = 0.0
        for (i, j) in zip(between, between.dropFirst()) { path += Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j]) }
        return path >= metres
    }

    /// The stays of the span: found among the kept points (``detect(_:_:)``), those that start at or after
    /// ``DeviceWork/keepFromMs`` left out, their point ranges from their times as a later pass or rebuild reads them
    /// back (``StayRecord/indexed(in:)``), and, with `pause_model` on, those the learned model calls a pause on the
    /// way left out (``PauseDecision``: stop or traffic).
    public static func stays(_ work: DeviceWork, _ p: Parameters, pauseModel: PauseModel = .shipped, pauseLog: PauseLog? = nil) -> [StayRecord] {
        let found = detect(work, p).map { $0.indexed(in: work.time) }
        let kept = PauseDecision.joinTraffic(
            work, found, before: work.previousStay, model: pauseModel, apply: p.pauseModel > 0, aboardMps: p.aboardMps,
            gotOut: { gotOut($0, work, p) }, log: pauseLog)
        return kept.filter { $0.startMs < work.keepFromMs }
    }

    /// Finds the span's stays (``stays(_:_:)``), writes them (unless ``writesStays`` is off) and leaves them in
    /// ``DeviceWork/stays`` for the passes after it.
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        try work.ensureFlags(store: store)
        var out = Self.stays(work, parameters, pauseModel: pauseModel, pauseLog: pauseLog)
        if writesStays {
            let tables = RebuildTables(store)
            try tables.deleteStays(device: work.deviceID, fromMs: max(work.fromMs, work.processFromMs), toMs: work.replaceToMs)
            for k in out.indices {
                out[k].id = try tables.insert(out[k].row(device: work.deviceID, key: work.deviceKey))
            }
        }
        work.stays = (work.previousStay.map { [$0] } ?? []) + out
        let dwell = out.reduce(0.0) { $0 + Double($1.endMs - $1.startMs) / 1000 }
        return ["stays": .count(out.count), "dwell_h": .measure((dwell / 36).rounded() / 100)]
    }

    /// Loads the span's stays from the table (when this pass did not run in this rebuild), matching them to points:
    /// the visit kept before the span first (``DeviceWork/previousStay``).
    static func load(_ work: DeviceWork, store: Store) throws -> [StayRecord] {
        let rows = try store.stays(device: work.deviceID, fromMs: max(work.fromMs, work.processFromMs), untilMs: work.toMs)
        return (work.previousStay.map { [$0] } ?? []) + rows.map { StayRecord($0).indexed(in: work.time) }
    }
}

extension StayRecord {
    /// A stored stay (its point range still to be found, ``indexed(in:)``).
    init(_ row: StayRow) {
        self.init(first: 0, last: 0, startMs: row.startMs, endMs: row.endMs, lat: row.lat, lon: row.lon, radiusM: row.radiusM,
                  points: row.points, gapS: row.gapS, id: row.id ?? 0)
    }
}
