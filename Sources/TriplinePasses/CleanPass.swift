import TriplineCore
import TriplineStore


/// Pass 1, `clean`: flags (never deletes) points that should not count, in `point_flags`.
///
/// A point is flagged when its accuracy is worse than `max_accuracy_m`; when it is an out-and-back jump (far from
/// both neighbours, which are close to each other, at an impossible speed: the wifi or cell fixes kilometres off, or a
/// run of fixes at exactly one position, a cached fix re-sent again and again (version 83); or,
/// without a speed of its own, between two fixes that report standing still: a wifi fix a few hundred metres off, or
/// a run of them, version 84; or a fix or run of fixes that no traveller accelerating at `jump_accel_mps2` could have
/// reached and left from the speeds around it, version 86);
/// or when it duplicates the previous point at (almost) the same instant; or when no vehicle could have reached it
/// (`max_mps`, an airliner's fastest ground speed) from the fixes around it: the smaller of two sources whose fixes
/// interleave far apart (two phones writing one file without a device tag, a bad cell fix on another continent), or a
/// side of one or two fixes; a side as large that follows the track without interleaving is kept (the jump is bad,
/// not either side).
public struct CleanPass: Pass {
    public static let name = "clean"

    /// The bits of `point_flags.flags`.
    public enum Flag {
        /// `accuracy_m` worse than `max_accuracy_m`.
        public static let lowAccuracy: UInt8 = 1
        /// An out-and-back jump: far from both neighbours at an impossible speed, while they are close together.
        public static let jump: UInt8 = 2
        /// Within `duplicate_ms` of the previous kept point.
        public static let duplicate: UInt8 = 4
        /// Out of reach: no vehicle could have gone between it and the device's main track (faster than `max_mps`):
        /// a fix of the smaller of two interleaved sources, or a lone fix (one or two) on another continent.
        public static let impossible: UInt8 = 8
        /// A Google `timelinePath` point inside one of Google's own segments (``TimelinePass/pathFlag``).
        public static let timelinePath: UInt8 = TimelinePass.pathFlag
    }

    public struct Parameters: PassParameters {
        /// Points with a reported accuracy worse than this (metres) are left out. 200 m keeps indoor drift
        /// (20–100 m) and drops wifi/cell fixes (1–3 km).
        public var maxAccuracyM: Double = 200
        /// An out-and-back jump must be this far (metres) from both neighbours: beyond indoor drift (20–80 m) and a
        /// receiver's multipath wander, so a still device's fix this far off and back faster than a car is a bad fix
        /// (150 m since algorithm version 37, 300 before: a GPS logger left on indoors writes each 80–400-m glitch and
        /// the fix back a second later; docs/PASSES.md, "Glitches of loggers left on indoors").
        public var jumpMinM: Double = 150
        /// … and reached at more than this speed (m/s) — faster than a car, slower than any real teleport.
        public var jumpSpeedMps: Double = 60
        /// … while the neighbours are within this share of the jump distance of each other.
        public var jumpReturnRatio: Double = 0.35
        /// A fix between two neighbours at most `line_jump_s` seconds away on either side is a jump when it lies at
        /// least `line_jump_min_m` off the position they give it (linear in time) and further than `jump_speed_mps`
        /// × the shorter interval: a phone's lone outlier 60–400 m off a dense track, which no vehicle drives out and
        /// back in two seconds, and which adds twice its offset to a trip (algorithm version 47; docs/PASSES.md,
        /// "Outliers of dense phones"). 0 = off.
        public var lineJumpS: Double = 10
        public var lineJumpMinM: Double = 50
        /// Points closer than this (ms) to the previous kept point are duplicates.
        public var duplicateMs: Double = 500
        /// A point without a reported speed between two that report standing still (below `still_mps`, or no speed and
        /// only the motion state `stationary`; at most `still_jump_s` apart: an iPhone at rest fixes every 1–15 min) is
        /// a jump when it lies this far (metres) from both (and they are close together, as above): a wifi or cell fix a
        /// few hundred metres off while the phone lay still. 0 = off.
        public var stillJumpMinM: Double = 150
        public var stillJumpS: Double = 900
        /// … but a run of several such fixes only when the still fixes around it are at most this far apart (seconds):
        /// a wifi fallback's few fixes at a time (algorithm version 84). Five `stationary` fixes over 4 min 5 km off
        /// between home fixes 15 min apart were a real errand by car (the thirteenth hostile round).
        public var stillRunS: Double = 300
        public var stillMps: Double = 0.5
        /// A fix, or a run of fixes within `still_jump_s`, at least `jump_min_m` from the fixes before and after it
        /// (which are close together, as above) is a jump when no traveller accelerating at most this much (m/s²)
        /// could have gone there and back in the time: a strong car's half a g (algorithm version 86, "Excursions no
        /// traveller made"). A phone that falls back to a wifi estimate 300 m off every few fixes, without any
        /// reported speed; a logger's glitch reached in 5 s at 54 m/s. 0 = off.
        public var jumpAccelMps2: Double = 5
        /// No fix can follow another faster than this (m/s) in a straight line, less their accuracies: an airliner
        /// cruises at 230–260 m/s airspeed and the strongest jet stream brings its ground speed to about 320 m/s;
        /// 340 m/s is the speed of sound, the bound the trips pass puts on a flight's pace. 0 = off.
        public var maxMps: Double = 340
        /// The accuracy (metres) assumed for a fix that reports none, in that rule: a wifi or cell fix may be this far off.
        public var unknownAccuracyM: Double = 100
        /// Google `timelinePath` points inside Google's own segments are flagged (1; the segments are the result
        /// there, docs/PASSES.md `timeline`), or kept as points (0, development: the phones' exports rebuilt from
        /// their path points, whose trips the `apptrips` pass then compares with Google's activity types;
        /// `scripts/app-mode-agreement.sh`).
        public var timelinePath: Double = 1

        public init() {}

        public static var keys: Keys { [
            "max_accuracy_m": \.maxAccuracyM, "jump_min_m": \.jumpMinM, "jump_speed_mps": \.jumpSpeedMps,
            "jump_return_ratio": \.jumpReturnRatio, "duplicate_ms": \.duplicateMs, "still_jump_min_m": \.stillJumpMinM,
            "still_jump_s": \.stillJumpS, "still_run_s": \.stillRunS, "still_mps": \.stillMps, "max_mps": \.maxMps,
            "unknown_accuracy_m": \.unknownAccuracyM,
            "timeline_path": \.timelinePath, "line_jump_s": \.lineJumpS, "line_jump_min_m": \.lineJumpMinM,
            "jump_accel_mps2": \.jumpAccelMps2,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges"); the bounds keep the arithmetic finite.
        public static var ranges: Ranges { [
            "max_accuracy_m": .distanceOrOff,  // 0 drops every fix that reports an accuracy; beyond 1000 km nothing is dropped
            "jump_min_m": .distance, "jump_speed_mps": .speed,
            "jump_return_ratio": .share,  // a share of the jump distance
            "duplicate_ms": ParameterRange(0, 3_600_000),  // 0 (only the same instant) to an hour
            "still_jump_min_m": .distanceOrOff,  // 0 = off
            "still_jump_s": .duration, "still_run_s": .duration, "still_mps": .speedOrOff,
            "max_mps": .speed,  // an airliner's fastest ground speed is 340 m/s; above 350 nothing is out of reach
            "unknown_accuracy_m": .distanceOrOff,  // the accuracy taken for a fix that reports none
            "timeline_path": .flag,
            "line_jump_s": .window,  // 0 = off; at most an hour
            "line_jump_min_m": .distance,
            "jump_accel_mps2": ParameterRange(0, 100),  // 0 = off; 100 m/s² (10 g) flags nothing a phone writes
        ] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Computes the flags of every point in `work`.
    /// - Complexity: O(n).
    public static func flags(_ work: DeviceWork, _ p: Parameters) -> [UInt8] { classify(work, p).flags }

    /// The flags, how many times the kept fixes went from the main track to another source and back (two
    /// interleaved sources alternate; a lone bad fix goes once), and the fixes of the largest other source flagged (a
    /// second phone's many; bad fixes are sources of one or two).
    static func classify(_ work: DeviceWork, _ p: Parameters) -> (flags: [UInt8], returns: Int, secondSource: Int) {
        var returns = 0, secondSource = 0
        let n = work.count
        var flags = [UInt8](repeating: 0, count: n)
        var lastKept = -1
        for i in 0..<n {
            let acc = work.accuracy[i]
            if !acc.isNaN && acc > p.maxAccuracyM { flags[i] |= Flag.lowAccuracy; continue }
            if lastKept >= 0 && Double(work.time[i] - work.time[lastKept]) < p.duplicateMs {
                flags[i] |= Flag.duplicate
                continue
            }
            lastKept = i
        }
        // Fixes out of the main track's reach (two interleaved sources), then out-and-back jumps among the rest.
        var kept: [Int] = []
        kept.reserveCapacity(n)
        for i in 0..<n where flags[i] == 0 { kept.append(i) }
        if p.maxMps > 0, kept.count >= 2 {
            let source = sources(work, kept, p)
            var count: [Int] = []
            for s in source {
                while count.count <= Int(s) { count.append(0) }
                count[Int(s)] += 1
            }
            // The main track: the source with the most fixes (the earlier on a tie).
            var main = 0
            for s in count.indices where count[s] > count[main] { main = s }
            if count.count > 1 {
                // A source is flagged where it interleaves with a larger one (a second phone, a bad fix inside the
                // track), or when its side is bad fixes (a side of fewer than `sideMinFixes`). A side that follows or
                // precedes the main track without interleaving, larger than that, is kept whole: the jump between
                // them is what no vehicle did, not either side (algorithm version 48).
                let track = Self.sideTracks(source, count: count.count)
                let flagged = count.indices.map { s in s != track[s] || (track[s] != main && count[track[s]] < Self.sideMinFixes) }
                // Where an interleaving source goes on before its track's first fix or after its last, those fixes
                // follow the track as a side of their own does, and are kept when as many (algorithm version 99): a
                // phone home for the evening beside a tablet left there all day, both writing one device, took the
                // tablet's source at home and its evening was flagged with it (the sixteenth hostile round).
                var first = [Int](repeating: Int.max, count: count.count), last = [Int](repeating: -1, count: count.count)
                for k in kept.indices {
                    let s = Int(source[k])
                    first[s] = min(first[s], k)
                    last[s] = k
                }
                var before = [Int](repeating: 0, count: count.count), after = [Int](repeating: 0, count: count.count)
                for k in kept.indices {
                    let s = Int(source[k]), t = track[s]
                    guard flagged[s], s != t else { continue }
                    if k < first[t] { before[s] += 1 } else if k > last[t] { after[s] += 1 }
                }
                /// Whether the `k`th kept fix, of source `s`, lies beyond its track's span on a side long enough.
                func beyondTrack(_ k: Int, _ s: Int) -> Bool {
                    let t = track[s]
                    guard s != t else { return false }
                    return (k < first[t] && before[s] >= Self.sideMinFixes) || (k > last[t] && after[s] >= Self.sideMinFixes)
                }
                var away = false
                var flaggedOf = [Int](repeating: 0, count: count.count)
                for (k, i) in kept.enumerated() {
                    if flagged[Int(source[k])] && !beyondTrack(k, Int(source[k])) {
                        flaggedOf[Int(source[k])] += 1
                        flags[i] |= Flag.impossible
                        away = true
                    } else if away {
                        returns += 1
                        away = false
                    }
                }
                secondSource = flaggedOf.max() ?? 0
                kept.removeAll { flags[$0] != 0 }
            }
        }
        if kept.count >= 3 {
            // The reference latitude is the point's own, rounded to 0.1°: the same for a point whatever span is loaded
            // (so incremental and windowed rebuilds flag exactly as a full one).
            var latRef = Double.nan
            var cosLat = 1.0
            // The line rule's fix before: the last one it did not flag (a flagged outlier draws no line).
            var lineBefore = kept[0]
            // The acceleration rule's fixes before: the last fix no rule flagged, and the one before it.
            var anchor = kept[0], beforeAnchor = -1
            // Read once: a class's array property checks exclusivity at run time on every read (see ``Fixes``).
            let fixLat = work.lat, fixLon = work.lon
            // A fix says the phone lay still when it reports a speed under `still_mps`, or none and the app's only motion
            // state for it is `stationary` (Overland's `motion`, OwnTracks' `m`): the phone's own sensors said so.
            let speed = work.speed, motion = work.motion.count == work.count ? work.motion : []
            func saysStill(_ i: Int) -> Bool {
                speed[i].isNaN ? !motion.isEmpty && motion[i] == MotionBits.stationary : speed[i] < p.stillMps
            }
            var k = 0
            while k + 2 < kept.count {
                k += 1
                let a = kept[k - 1], b = kept[k]
                // A run of fixes at exactly one position is one fix for the out-and-back rule below (algorithm version
                // 83): a cached fix re-sent at the current time, again and again (docs/PASSES.md, "clean").
                // The fixes inside such a run are passed over (each lies 0 m from the one before it, so no rule below
                // flags it): the run is read once, however long a phone stuck at one position writes it.
                if work.lat[a] == work.lat[b], work.lon[a] == work.lon[b], work.lat[kept[k + 1]] == work.lat[b], work.lon[kept[k + 1]] == work.lon[b] {
                    continue
                }
                var runEnd = k
                while runEnd + 2 < kept.count, work.lat[kept[runEnd + 1]] == work.lat[b], work.lon[kept[runEnd + 1]] == work.lon[b] { runEnd += 1 }
                let c = kept[runEnd + 1], last = kept[runEnd]
                if flags[a] & Flag.jump == 0 {
                    lineBefore = a
                    if a != anchor { (beforeAnchor, anchor) = (anchor, a) }
                }
                let rounded = (work.lat[a] * 10).rounded() / 10
                if rounded != latRef {
                    latRef = rounded
                    cosLat = Geo.cosLatitude(latRef)
                }
                if p.lineJumpS > 0 && runEnd == k {
                    // Off the line its neighbours draw, faster than a car: a dense track's outlier.
                    let a = lineBefore
                    let tin = Double(work.time[b] - work.time[a]) / 1000, tout = Double(work.time[c] - work.time[b]) / 1000
                    if tin > 0 && tout > 0 && max(tin, tout) <= p.lineJumpS {
                        let f = tin / (tin + tout)
                        // The line the shorter way round: over the 180th meridian `c` lies beyond ±180 (the
                        // distance below is periodic in longitude).
                        let lonC = Geo.unwrappedLongitude(work.lon[c], near: work.lon[a])
                        let qLat = work.lat[a] + (work.lat[c] - work.lat[a]) * f, qLon = work.lon[a] + (lonC - work.lon[a]) * f
                        let off = Geo.fastDistance(qLat, qLon, work.lat[b], work.lon[b], cosLat: cosLat)
                        if off >= p.lineJumpMinM && off / max(1, min(tin, tout)) > p.jumpSpeedMps {
                            flags[b] |= Flag.jump
                            continue
                        }
                    }
                }
                // Between two fixes that report standing still, fixes without a speed need not be fast to be jumps, and
                // several in a row are one excursion (algorithm version 84): a still phone whose fused position falls back
                // to a wifi or cell estimate hundreds of metres off for a few fixes at a time, back and forth for hours.
                if p.stillJumpMinM > 0, runEnd == k, work.speed[b].isNaN, saysStill(a) {
                    var e = k
                    let until = work.time[a] + Int64(min(p.stillRunS, p.stillJumpS) * 1000)
                    let minM = min(p.stillJumpMinM, p.jumpMinM)
                    // The run ends at the first fix back near the still one (algorithm version 89): a phone lying still
                    // whose fixes carry no speed but `stationary` is not scanned 15 minutes ahead from every fix.
                    while e + 2 < kept.count, work.speed[kept[e + 1]].isNaN, work.time[kept[e + 1]] <= until,
                        Geo.distance(work.lat[a], work.lon[a], work.lat[kept[e + 1]], work.lon[kept[e + 1]]) >= minM { e += 1 }
                    let c = kept[e + 1]
                    if e > k, saysStill(c), Double(work.time[c] - work.time[a]) <= min(p.stillRunS, p.stillJumpS) * 1000 {
                        var nearest = Double.infinity
                        for q in k...e {
                            let f = kept[q]
                            nearest = min(nearest, Geo.distance(work.lat[a], work.lon[a], work.lat[f], work.lon[f]),
                                          Geo.distance(work.lat[f], work.lon[f], work.lat[c], work.lon[c]))
                            if nearest < minM { break }
                        }
                        if nearest >= minM, Geo.distance(work.lat[a], work.lon[a], work.lat[c], work.lon[c]) <= p.jumpReturnRatio * nearest {
                            for q in k...e { flags[kept[q]] |= Flag.jump }
                            k = e
                            continue
                        }
                    }
                }
                let dab = Geo.fastDistance(fixLat[a], fixLon[a], fixLat[b], fixLon[b], cosLat: cosLat)
                // The cheap distance first (within a metre of the great circle at these ranges): most steps are short,
                // and the anchor is most often the fix before.
                if p.jumpAccelMps2 > 0, beforeAnchor >= 0,
                    (anchor == a ? dab : Geo.fastDistance(fixLat[anchor], fixLon[anchor], fixLat[b], fixLon[b], cosLat: cosLat)) >= p.jumpMinM * 0.99,
                    let e = excursionEnd(work, kept, from: k, anchor: anchor, before: beforeAnchor, p) {
                    for q in k...e { flags[kept[q]] |= Flag.jump }
                    k = e
                    continue
                }
                // Between two fixes that report standing still, a fix without a speed need not be fast to be a jump. A
                // run of fixes at one position (a phone standing somewhere minutes long) is several fixes: the run's
                // window, `still_run_s`; and so is a lone fix whose accuracy is within a third of `still_jump_min_m`
                // (50 m: a GPS fix, not wifi's 65 m or a cell's kilometres; algorithm version 95): one accurate fix
                // 2 or 8 km off between home fixes 14 min apart was a car errand (the fourteenth hostile round).
                let accurate = work.accuracy[b] <= p.stillJumpMinM / 3  // false when unknown (NaN)
                let window = runEnd == k && !accurate ? p.stillJumpS : min(p.stillRunS, p.stillJumpS)
                let still = p.stillJumpMinM > 0 && work.speed[b].isNaN && saysStill(a) && saysStill(c)
                    && Double(work.time[c] - work.time[a]) <= window * 1000
                let minM = still ? min(p.stillJumpMinM, p.jumpMinM) : p.jumpMinM
                if dab < minM { continue }
                let dbc = Geo.distance(work.lat[b], work.lon[b], work.lat[c], work.lon[c])
                if dbc < minM { continue }
                let dac = Geo.distance(work.lat[a], work.lon[a], work.lat[c], work.lon[c])
                if dac > p.jumpReturnRatio * min(dab, dbc) { continue }
                let tin = max(1, Double(work.time[b] - work.time[a]) / 1000)
                let tout = max(1, Double(work.time[c] - work.time[last]) / 1000)
                if still || dab / tin > p.jumpSpeedMps || dbc / tout > p.jumpSpeedMps {
                    for q in k...runEnd { flags[kept[q]] |= Flag.jump }
                    k = runEnd
                }
            }
        }
        return (flags, returns, secondSource)
    }

    /// The most fixes an excursion (``excursionEnd(_:_:from:anchor:before:_:)``) may hold: a wifi fallback of a
    /// few fixes, or a phone's minutes at a wrong position, not a track; it bounds the scan at any `still_jump_s`.
    static let excursionMaxFixes = 100

    /// The last of a run of kept fixes, from `kept[k]` on, that no traveller made (algorithm version 86), or nil: the run
    /// lies within `still_jump_s` of `anchor` (the last fix no rule flagged), its every fix at least `jump_min_m` from
    /// `anchor` and from the fix after it, and those two close together (`jump_return_ratio` × the nearest), and one of
    /// three legs is beyond what a traveller accelerating at `jump_accel_mps2` could cover: out, from the anchor to the
    /// run's first fix (v t + a t² / 2, v the anchor's speed: the step into it from `before`, or its reported speed if
    /// that is higher); back, from the run's last fix to the fix after it (v the speed out of that fix); or there and back,
    /// the run's furthest fix within the whole time T from the anchor to the fix after the run (v T + a T² / 16, at rest
    /// at both ends: a quarter of T to speed up, a quarter to stop, the same home; v the higher of the two). A fast
    /// traveller's fixes carry their speed, and a real walk to the corner takes minutes, not seconds.
    /// - Complexity: O(1) unless the step out of the anchor is impossible; then O(``excursionMaxFixes``). The caller
    /// looks only at a run whose first fix lies `jump_min_m` or more from the anchor.
    static func excursionEnd(_ work: DeviceWork, _ kept: [Int], from k: Int, anchor a: Int, before: Int, _ p: Parameters) -> Int? {
        let b = kept[k]
        let dab = Geo.distance(work.lat[a], work.lon[a], work.lat[b], work.lon[b])
        guard dab >= p.jumpMinM else { return nil }
        let until = work.time[a] + Int64(p.stillJumpS * 1000)
        guard work.time[b] <= until else { return nil }
        func seconds(_ x: Int, _ y: Int) -> Double { max(0.001, Double(work.time[y] - work.time[x]) / 1000) }
        /// The speed at fix `f`: its step from (to) `g`, or its reported speed if that is higher; unbounded when the
        /// step is longer than `still_jump_s` and the fix reports none (after a silence nothing says how fast it went).
        func speed(_ f: Int, _ g: Int) -> Double {
            let reported = work.speed[f]
            let t = seconds(min(f, g), max(f, g))
            if t > p.stillJumpS { return reported.isFinite ? reported : .infinity }
            let step = Geo.distance(work.lat[f], work.lon[f], work.lat[g], work.lon[g]) / t
            return reported.isFinite && reported > step ? reported : step
        }
        func reach(_ v: Double, _ t: Double) -> Double { v * t + p.jumpAccelMps2 * t * t / 2 }
        let vOut = speed(a, before)
        let outImpossible = dab > reach(vOut, seconds(a, b))
        // The fix after the run: the first back within `jump_min_m` of the anchor. Without an impossible step out, only
        // a run of one fix is looked at (the step back or the round trip may be impossible), so a track that moves on
        // costs one distance a fix.
        var q = k + 1
        while q < kept.count, work.time[kept[q]] <= until, q - k <= excursionMaxFixes {
            let f = kept[q]
            if Geo.distance(work.lat[a], work.lon[a], work.lat[f], work.lon[f]) < p.jumpMinM { break }
            if !outImpossible { return nil }
            q += 1
        }
        guard q < kept.count, work.time[kept[q]] <= until, q - k <= excursionMaxFixes else { return nil }
        let c = kept[q], e = q - 1
        var nearest = Double.infinity, furthest = 0.0
        for r in k...e {
            let f = kept[r]
            let near = min(Geo.distance(work.lat[a], work.lon[a], work.lat[f], work.lon[f]), Geo.distance(work.lat[f], work.lon[f], work.lat[c], work.lon[c]))
            nearest = min(nearest, near)
            furthest = max(furthest, near)
        }
        guard nearest >= p.jumpMinM, Geo.distance(work.lat[a], work.lon[a], work.lat[c], work.lon[c]) <= p.jumpReturnRatio * nearest else { return nil }
        if outImpossible { return e }
        let vBack = q + 1 < kept.count ? speed(c, kept[q + 1]) : Double.infinity
        let last = kept[e]
        let dBack = Geo.distance(work.lat[last], work.lon[last], work.lat[c], work.lon[c])
        if dBack > reach(vBack, seconds(last, c)) { return e }
        let t = seconds(a, c)
        if furthest > max(vOut, vBack) * t + p.jumpAccelMps2 * t * t / 16 { return e }
        return nil
    }

    /// The columns ``reachable(_:_:_:_:)`` reads, taken out of the work once: a read of a class's array property checks
    /// exclusivity at run time on every access (four `swift_beginAccess` calls a fix, a third of the pass's time).
    struct Fixes {
        let time: [Int64], lat: [Double], lon: [Double], accuracy: [Double]
        init(_ w: DeviceWork) { (time, lat, lon, accuracy) = (w.time, w.lat, w.lon, w.accuracy) }
    }

    /// Whether a vehicle could have gone from kept fix `a` to kept fix `b` (later): their straight line, less both
    /// accuracies (`unknown_accuracy_m` for a fix that reports none), at most `max_mps` × the time between them.
    @inline(__always)
    static func reachable(_ w: Fixes, _ a: Int, _ b: Int, _ p: Parameters) -> Bool {
        let seconds = max(0.001, Double(w.time[b] - w.time[a]) / 1000)
        let ra = w.accuracy[a].isNaN ? p.unknownAccuracyM : w.accuracy[a], rb = w.accuracy[b].isNaN ? p.unknownAccuracyM : w.accuracy[b]
        let reach = p.maxMps * seconds + ra + rb
        // Cheap bounds first, so one source's fixes cost no haversine: a degree of latitude is 111.2 km on the sphere
        // `Geo.distance` uses (never less apart than that), and the way along a's parallel then along b's meridian
        // is never shorter than the great circle.
        let dLat = abs(w.lat[b] - w.lat[a]) * 111_195
        if dLat > reach { return false }
        let dLon = abs(w.lon[b] - w.lon[a])
        if dLon < 180 {
            // The same bound with the cosine taken as 1 is never smaller (a product with a factor at most 1 rounds to
            // at most the other factor), so what it accepts the bound with the cosine accepts too: the next fix of
            // the track costs no cosine.
            let east = dLon * 111_195
            if (dLat + east) * 1.0001 <= reach { return true }
            if (dLat + east * Geo.cosLatitude(w.lat[a])) * 1.0001 <= reach { return true }
        }
        return Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) <= reach
    }

    /// The source of each of the `kept` fixes (0, 1, …): each fix joins, among the sources one of whose last
    /// `sourceMemory` fixes could have reached it (``reachable(_:_:_:_:)``), the one with such a fix nearest, else
    /// starts a source of its own. One device gives one source; two phones writing one file far apart give two that
    /// alternate, and a lone fix on another continent a source of one fix. A bad fix that the track could reach (a
    /// minute after the last good one) but not leave (5 s before the next) joins the track without taking it over:
    /// the next good fix is reached from the one before the bad fix, and the out-and-back rule flags the bad one.
    /// Only the `activeSources` most recently used sources are tried.
    /// - Complexity: O(n × activeSources × sourceMemory).
    static func sources(_ w: DeviceWork, _ kept: [Int], _ p: Parameters) -> [Int32] {
        let fixes = Fixes(w)
        let memory = sourceMemory
        var source = [Int32](repeating: 0, count: kept.count)
        // Per source `s`, its last fixes (at most `sourceMemory`, oldest first) in `recent[s * memory ..< s * memory +
        // recentCount[s]]`: one flat array, not an array per source (whose appends and removals cost more than the rule).
        var recent: [Int] = []
        var recentCount: [Int] = []
        var active: [Int] = []  // sources, most recently used last
        active.reserveCapacity(activeSources + 1)
        for (k, i) in kept.enumerated() {
            var best = -1, bestD = Double.infinity
            if active.count == 1 {
                // One source (the usual case): it takes the fix when any of its last fixes reaches it (newest first).
                let s = active[0], base = s * memory
                var q = recentCount[s] - 1
                while q >= 0 {
                    if reachable(fixes, recent[base + q], i, p) { best = s; break }
                    q -= 1
                }
            } else {
                for s in active.reversed() {
                    let base = s * memory
                    var q = recentCount[s] - 1
                    while q >= 0 {
                        let j = recent[base + q]
                        if reachable(fixes, j, i, p) {
                            let d = Geo.distance(fixes.lat[j], fixes.lon[j], fixes.lat[i], fixes.lon[i])
                            if d < bestD { (best, bestD) = (s, d) }
                        }
                        q -= 1
                    }
                }
            }
            if best < 0 {
                best = recentCount.count
                recent.append(i)
                for _ in 1..<max(1, memory) { recent.append(-1) }
                recentCount.append(1)
                active.append(best)
                if active.count > activeSources { active.removeFirst() }
            } else {
                let base = best * memory, n = recentCount[best]
                if n < memory {
                    recent[base + n] = i
                    recentCount[best] = n + 1
                } else {
                    // The oldest fix leaves.
                    for q in 0..<(memory - 1) { recent[base + q] = recent[base + q + 1] }
                    recent[base + memory - 1] = i
                }
                if active.last != best {
                    active.removeAll { $0 == best }
                    active.append(best)
                }
            }
            source[k] = Int32(best)
        }
        return source
    }

    /// How many of a source's last fixes a new fix may be reached from.
    static let sourceMemory = 3

    /// The fewest fixes of a side that follows or precedes the main track without interleaving with it for the side
    /// to be kept: bad fixes are sources of one or two.
    static let sideMinFixes = 3

    /// Each source's side track: the sources whose spans (first to last of their fixes, in `source`'s order) overlap
    /// form one side, and its track is its source with the most fixes (the earlier on a tie; sources are numbered in
    /// the order of their first fix). Sources that follow each other without interleaving are sides of their own.
    /// - Complexity: O(n + sources).
    static func sideTracks(_ source: [Int32], count: Int) -> [Int] {
        var first = [Int](repeating: Int.max, count: count), last = [Int](repeating: -1, count: count)
        var size = [Int](repeating: 0, count: count)
        for (k, s) in source.enumerated() {
            let s = Int(s)
            if first[s] == Int.max { first[s] = k }
            last[s] = k
            size[s] += 1
        }
        var track = Array(0..<count)
        // Sources are numbered by first fix, so in that order; a side runs while the next starts before its reach.
        var start = 0
        while start < count {
            var end = start + 1, reach = last[start], best = start
            while end < count && first[end] <= reach {
                reach = max(reach, last[end])
                if size[end] > size[best] { best = end }
                end += 1
            }
            for s in start..<end { track[s] = best }
            start = end
        }
        return track
    }

    /// How many sources ``sources(_:_:_:)`` keeps trying.
    static let activeSources = 4

    /// What the clean pass reads besides the points.
    public struct Input {
        /// The spans (start, end; ms, inclusive) of the device's own Google visits and activities around the points
        /// (``Store/googleSegments(device:fromMs:throughMs:)``).
        public var googleSegments: [(startMs: Int64, endMs: Int64)]
        /// The times of the points a phone's Timeline export gives as `timelinePath`
        /// (``Store/timelinePathTimes(device:fromMs:throughMs:)``); read only when there are segments.
        public var timelinePathTimes: [Int64]
        /// The stored flags of the points (``DeviceWork/loadFlags(store:)``), for those before
        /// ``DeviceWork/processFromMs``, which keep them; empty when no point lies before it.
        public var storedFlags: [UInt8]

        public init(googleSegments: [(startMs: Int64, endMs: Int64)] = [], timelinePathTimes: [Int64] = [], storedFlags: [UInt8] = []) {
            self.googleSegments = googleSegments
            self.timelinePathTimes = timelinePathTimes
            self.storedFlags = storedFlags
        }
    }

    /// What the clean pass found.
    public struct Output {
        /// The flags of every point of the work (``Flag``; 0 = the point counts), those before the recomputed span as
        /// stored.
        public var flags: [UInt8]
        /// The first point of the recomputed span: the flags from here on (before ``DeviceWork/keepFromMs``) are written.
        public var firstNew: Int
        /// The pass's statistics (`pass_runs.stats`).
        public var stats: PassStats
    }

    /// The flags of the points of `work` (see the type's documentation), with the `timelinePath` points inside Google's
    /// segments flagged (``timelinePathFlags(_:segments:pathTimes:flags:)``) and the points before the recomputed span
    /// keeping their stored flags.
    public static func clean(_ work: DeviceWork, _ input: Input, _ p: Parameters) -> Output {
        let classified = classify(work, p)
        var flags = classified.flags
        let pathPoints = p.timelinePath > 0
            ? timelinePathFlags(work, segments: input.googleSegments, pathTimes: input.timelinePathTimes, flags: &flags) : 0
        // Points before the recomputed span keep the flags stored for them.
        let firstNew = lowerBound(work.time, work.processFromMs)
        for i in 0..<min(firstNew, input.storedFlags.count) { flags[i] = input.storedFlags[i] }
        var counts = [0, 0, 0, 0]
        for i in firstNew..<flags.count where flags[i] != 0 && work.time[i] < work.keepFromMs {
            if flags[i] & Flag.lowAccuracy != 0 { counts[0] += 1 }
            if flags[i] & Flag.jump != 0 { counts[1] += 1 }
            if flags[i] & Flag.duplicate != 0 { counts[2] += 1 }
            if flags[i] & Flag.impossible != 0 { counts[3] += 1 }
        }
        let stats: PassStats = ["points": .count(flags.count - firstNew), "low_accuracy": .count(counts[0]), "jumps": .count(counts[1]),
                     "duplicates": .count(counts[2]), "impossible": .count(counts[3]), "returns": .count(classified.returns),
                     "second_source": .count(classified.secondSource), "timeline_path": .count(pathPoints)]
        return Output(flags: flags, firstNew: firstNew, stats: stats)
    }

    /// Flags the points the phones' Timeline exports give as `timelinePath` (`trigger` = `timelinePath`, docs/IMPORT.md)
    /// that lie inside one of Google's own visits or activities of the device (`segments`, from its start to its end,
    /// inclusive) with ``Flag/timelinePath``. Such points are Google's summary of a segment it also gives whole (a few
    /// positions per two-hour bin, like the `simplifiedRawPath` of Semantic Location History, which the import does not
    /// store as points), not fixes the phone recorded: they are not *points that cover* (docs/PASSES.md, `timeline`),
    /// so the segment itself is the result there. Path points outside every segment stay points, and so do fixes of any
    /// other trigger (`rawSignal`, `Records.json`). Returns how many were flagged.
    static func timelinePathFlags(_ work: DeviceWork, segments: [(startMs: Int64, endMs: Int64)], pathTimes: [Int64],
                                  flags: inout [UInt8]) -> Int {
        guard work.count > 0 else { return 0 }
        var claims = TimelinePass.Claims()
        for s in segments { claims.add(s.startMs, s.endMs + 1) }
        guard !claims.spans.isEmpty else { return 0 }
        var flagged = 0
        for t in pathTimes {
            let k = claims.lowerIndex(t)
            guard k < claims.spans.count, claims.spans[k].0 <= t else { continue }
            let i = lowerBound(work.time, t)
            if i < work.count && work.time[i] == t {
                flags[i] |= Flag.timelinePath
                flagged += 1
            }
        }
        return flagged
    }

    /// Reads Google's segments and the `timelinePath` points around the points (and the stored flags before the
    /// recomputed span), flags the points (``clean(_:_:_:)``) and writes the flags of the recomputed span.
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        var input = Input()
        if let first = work.time.first, let last = work.time.last {
            input.googleSegments = try store.googleSegments(device: work.deviceID, fromMs: first, throughMs: last)
            if !input.googleSegments.isEmpty {
                input.timelinePathTimes = try store.timelinePathTimes(device: work.deviceID, fromMs: first, throughMs: last)
            }
        }
        if lowerBound(work.time, work.processFromMs) > 0 {
            try work.loadFlags(store: store)
            input.storedFlags = work.flags
        }
        let output = Self.clean(work, input, parameters)
        work.flags = output.flags
        work.flagsLoaded = true
        let tables = RebuildTables(store)
        try tables.deleteFlags(device: work.deviceID, fromMs: max(work.fromMs, work.processFromMs), toMs: work.replaceToMs)
        for i in output.firstNew..<output.flags.count where output.flags[i] != 0 && work.time[i] < work.keepFromMs {
            try tables.setFlags(device: work.deviceID, timeMs: work.time[i], flags: output.flags[i])
        }
        return output.stats
    }
}
