#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// The learned decision of the trips pass: is this short candidate trip a walk (or any real trip), or drift at a stay
/// (GPS scatter, a phone carried round a building) that went nowhere? (docs/PASSES.md, "Learned: drift or walk").
///
/// A candidate is a trip the pass built from its own fixes (not one implied by two stays with nothing in between)
/// whose fixes all stay within ``candidateMaxM`` of its first fix and that returns to the place it left (its stays at
/// most ``candidateMaxApartM`` apart, or one of them missing: the edge of a recording), its fixes at most
/// ``candidateMaxIntervalS`` apart (median). Its ``TripCutFeatures`` go through a small
/// gradient-boosted ensemble of stumps (one feature compared with one threshold each) trained by
/// `scripts/train-trip-cuts.py` on the development GeoLife users (leave-one-user-out; never the lockbox); a candidate
/// whose probability of drift is above its ``StumpEnsemble/threshold`` is no trip (`trips.cut_model` = 1). The shipped ensemble is
/// generated source (`Generated/TripCutCoefficients.swift`); `evaluate --trip-cut-model` loads others for held-out
/// scoring.
public struct TripCutModel: Sendable, Equatable {
    public typealias Stump = StumpEnsemble.Stump

    /// The ensemble (base log-odds, stumps, and the threshold above which the decision is yes).
    public var ensemble: StumpEnsemble

    /// Candidates: trips whose fixes all stay within this many metres of their first fix (a trip that goes further
    /// is never drift; the labelled-time rule calls drift what never leaves 300 m).
    public static let candidateMaxM = 1000.0
    /// … and that do not go from one place to another: a trip between two stays further apart than this (metres; the
    /// stays pass's radius, 120 m, and some jitter) is never drift. GeoLife's labels lost their walks and cannot tell
    /// a 230-m walk to the next shop from drift; the simulator can: without this bound the model dropped such walks
    /// (dense development seeds 1–6: 340 → 313 matched trips, sparse 305 → 261).
    public static let candidateMaxApartM = 150.0
    /// … and whose fixes are dense enough to show the trip's shape: median interval at most this (seconds). GeoLife,
    /// the training data, logs every 1–5 s (95 % of its candidates at most 25 s apart); a sparse phone's walk seen by
    /// three fixes minutes apart is no case the model learned (sparse development seeds 1–6: two 600–750-m walks were
    /// dropped without this bound).
    public static let candidateMaxIntervalS = 30.0

    public init(base: Double, stumps: [Stump], threshold: Double) {
        ensemble = StumpEnsemble(base: base, stumps: stumps, threshold: threshold)
    }

    /// The probability that a candidate with `features` (``TripCutFeatures/names`` order) is drift.
    public func driftProbability(_ features: [Double]) -> Double { ensemble.probability(features) }

    /// Whether the candidate is drift: its probability is above the ensemble's threshold.
    public func isDrift(_ features: [Double]) -> Bool { ensemble.decides(features) }

    // MARK: Text form (for `evaluate --trip-cut-model` and the training script)

    /// Reads the text the training script writes (``StumpEnsemble/init(text:origin:featureNames:)``, FEATURE a name of
    /// ``TripCutFeatures/names``). Errors name `origin` and the line.
    public init(text: String, origin: String) throws {
        ensemble = try StumpEnsemble(text: text, origin: origin, featureNames: TripCutFeatures.names)
    }
}

/// The features of a candidate trip for ``TripCutModel``: what tells a walk round the block from drift at a desk.
public enum TripCutFeatures {
    /// Feature names, in order (the training export's columns).
    public static let names = [
        "log_duration_s", "log_fixes", "log_max_from_first_m", "log_net_m", "log_distance_m", "log_path_m",
        "log_path_over_max", "log_gyration_m", "speed_p50_mps", "speed_p90_mps", "moving_share", "return_ratio",
        "log_median_interval_s", "log_max_interval_s", "has_from", "has_to", "log_stays_apart_m", "log_max_from_stay_m",
        "log_from_stay_min", "log_to_stay_min", "log_median_accuracy_m", "accuracy_known",
    ]

    /// The features of the trip over the kept fixes `pts` (time order), from `startMs` to `endMs`, between the stays
    /// `from` and `to` (nil at the ends of the data), whose measured distance is `distanceM`; `speeds` are the fixes'
    /// speeds (``TripsPass/speeds(_:_:)``). Nil when the trip is no candidate (no fix, a fix further than
    /// ``TripCutModel/candidateMaxM`` from the first, stays further than ``TripCutModel/candidateMaxApartM`` apart, or a median interval above
    /// ``TripCutModel/candidateMaxIntervalS``).
    static func compute(
        _ w: DeviceWork, _ pts: [Int], startMs: Int64, endMs: Int64, from: StayRecord?, to: StayRecord?, distanceM: Double,
        speeds: @autoclosure () -> [Double]
    ) -> [Double]? {
        guard let a = pts.first, let b = pts.last else { return nil }
        if let from, let to, Geo.distance(from.lat, from.lon, to.lat, to.lon) > TripCutModel.candidateMaxApartM { return nil }
        let m = pts.count
        var maxFromFirst = 0.0, path = 0.0
        var sumLat = 0.0, sumLon = 0.0
        var intervals: [Double] = []
        intervals.reserveCapacity(m)
        for (k, i) in pts.enumerated() {
            maxFromFirst = max(maxFromFirst, Geo.distance(w.lat[a], w.lon[a], w.lat[i], w.lon[i]))
            // No candidate once a fix is too far: stop before measuring the rest of a long trip.
            if maxFromFirst > TripCutModel.candidateMaxM { return nil }
            if k > 0 {
                let h = pts[k - 1]
                path += Geo.distance(w.lat[h], w.lon[h], w.lat[i], w.lon[i])
                intervals.append(Double(w.time[i] - w.time[h]) / 1000)
            }
            sumLat += w.lat[i]
            sumLon += Geo.unwrappedLongitude(w.lon[i], near: w.lon[a])
        }
        if maxFromFirst > TripCutModel.candidateMaxM { return nil }
        let cLat = sumLat / Double(m), cLon = Geo.normalizedLongitude(sumLon / Double(m))
        var gyration = 0.0
        for i in pts {
            let d = Geo.distance(cLat, cLon, w.lat[i], w.lon[i])
            gyration += d * d
        }
        gyration = (gyration / Double(m)).squareRoot()
        let net = Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b])
        let speeds = speeds()
        let sortedSpeeds = speeds.sorted()
        func quantile(_ values: [Double], _ f: Double) -> Double {
            values.isEmpty ? 0 : values[min(values.count - 1, Int(Double(values.count) * f))]
        }
        let moving = Double(speeds.filter { $0 >= 1 }.count) / Double(max(1, speeds.count))
        intervals.sort()
        if quantile(intervals, 0.5) > TripCutModel.candidateMaxIntervalS { return nil }
        var accuracies: [Double] = []
        for i in pts where !w.accuracy[i].isNaN && w.accuracy[i] >= 0 { accuracies.append(w.accuracy[i]) }
        accuracies.sort()
        let anchor = from.map { ($0.lat, $0.lon) } ?? (w.lat[a], w.lon[a])
        var maxFromStay = 0.0
        for i in pts { maxFromStay = max(maxFromStay, Geo.distance(anchor.0, anchor.1, w.lat[i], w.lon[i])) }
        var staysApart = 0.0
        if let from, let to { staysApart = Geo.distance(from.lat, from.lon, to.lat, to.lon) }
        func minutes(_ s: StayRecord?) -> Double { s.map { Double(max(0, $0.endMs - $0.startMs)) / 60_000 } ?? 0 }
        func l(_ x: Double) -> Double { log(1 + max(0, x)) }
        return [
            l(Double(endMs - startMs) / 1000), l(Double(m)), l(maxFromFirst), l(net), l(distanceM), l(path),
            log(max(path, 1) / max(maxFromFirst, 10)), l(gyration), min(quantile(sortedSpeeds, 0.5), 60), min(quantile(sortedSpeeds, 0.9), 60),
            moving, net / max(maxFromFirst, 1), l(quantile(intervals, 0.5)), l(intervals.last ?? 0),
            from == nil ? 0 : 1, to == nil ? 0 : 1, l(staysApart), l(maxFromStay), l(minutes(from)), l(minutes(to)),
            l(quantile(accuracies, 0.5)), accuracies.isEmpty ? 0 : 1,
        ]
    }
}

/// Collects every candidate's features during a rebuild (the training export, `evaluate --dump-trip-cuts`): a
/// development aid, never set by `rebuild`.
public typealias TripCutLog = CandidateLog<TripCutCandidate>

/// One candidate: its span, its features, and whether the model (when on) dropped it.
public struct TripCutCandidate: LoggedCandidate {
    public var startMs: Int64
    public var endMs: Int64
    public var features: [Double]
    public var dropped: Bool
}

/// The physical guard in front of ``TripCutModel`` (`trips.ride_guard_s`): how long the candidate's fixes sustain a
/// vehicle's pace measured over a minute — the displacement from each fix to the first fix at least
/// ``windowS`` later, over that time. GPS drift at a stay can draw a long jittery path, but over a minute it comes
/// back where it was; a bicycle ride moves ~240 m a minute, minute after minute, even when it loops round the block.
public enum RideGuard {
    /// The window (seconds) over which the displacement is measured.
    public static let windowS = 60.0
    /// A window whose end fix is further than this (seconds) from its start crosses a silence: no measure.
    public static let windowMaxS = 120.0

    /// The longest stretch (seconds, from the first fast window's start to the last one's end) in which every window
    /// of the fixes `pts` (time order, at least ``windowS`` long and at most ``windowMaxS``) moves at `paceMps` or
    /// more; 0 when no window does.
    public static func sustainedS(_ w: DeviceWork, _ pts: [Int], paceMps: Double) -> Double {
        let windowMs = Int64(windowS * 1000), maxMs = Int64(windowMaxS * 1000)
        var best: Int64 = 0
        var runStart: Int64 = -1, runEnd: Int64 = -1
        var j = 0
        for k in 0..<pts.count {
            let i = pts[k]
            if j <= k { j = k + 1 }
            while j < pts.count && w.time[pts[j]] - w.time[i] < windowMs { j += 1 }
            var fast = false
            if j < pts.count {
                let dt = w.time[pts[j]] - w.time[i]
                if dt <= maxMs {
                    let d = Geo.distance(w.lat[i], w.lon[i], w.lat[pts[j]], w.lon[pts[j]])
                    fast = d >= paceMps * Double(dt) / 1000
                }
            }
            if fast {
                if runStart < 0 { runStart = w.time[i] }
                runEnd = w.time[pts[j]]
                best = max(best, runEnd - runStart)
            } else {
                runStart = -1
            }
            if j >= pts.count { break }
        }
        return Double(best) / 1000
    }
}

/// The phone's own measure of speed (the Doppler speed a GPS fix reports; about 0 at rest, whatever the position drifts):
/// how long the fixes report a walker's speed or more (algorithm version 94). A walk round the block with clean fixes
/// every 2 s, each reporting 1.3 m/s, was drift to the drift-or-walk model (which learned from GeoLife, without speeds),
/// and laps of a running track, or rounds of a park, never leave a stay's radius (the fourteenth hostile round).
public enum SpeedGuard {
    /// The least reported speed (m/s) of someone walking: slower than any walk (3.6 km/h), faster than a phone at
    /// rest reports (the simulator's still fixes: 0 ± 0.25 m/s).
    public static let walkingMps = 1.0

    /// Seconds over the fixes `pts` (time order; each fix to the next, at most a minute) whose reported speed is at
    /// least ``walkingMps``; fixes without one count nothing, and so do all when the positions did not move half the
    /// way those speeds claim (an app writing one speed on every fix: 3 m/s for two hours at one position).
    public static func movingS(_ w: DeviceWork, _ pts: ArraySlice<Int>) -> Double {
        var ms: Int64 = 0
        var claimed = 0.0, moved = 0.0
        var k = pts.startIndex
        while k + 1 < pts.endIndex {
            let (i, j) = (pts[k], pts[k + 1])
            let s = w.speed[i]
            if !s.isNaN && s >= walkingMps {
                let dt = min(w.time[j] - w.time[i], 60_000)
                ms += dt
                claimed += s * Double(dt) / 1000
                moved += Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j])
            }
            k += 1
        }
        return moved * 2 >= claimed ? Double(ms) / 1000 : 0
    }

    /// Whether the fixes `pts` report a speed (most of them: at least 80 %) and ``walkingMps`` or more for at least half
    /// their time: travel within a small area (laps, rounds of a park), not a stay.
    public static func travelled(_ w: DeviceWork, _ pts: ArraySlice<Int>) -> Bool {
        guard pts.count >= 3, let first = pts.first, let last = pts.last, w.time[last] > w.time[first] else { return false }
        var reported = 0
        for i in pts where !w.speed[i].isNaN && w.speed[i] >= 0 { reported += 1 }
        guard reported * 5 >= pts.count * 4 else { return false }
        return movingS(w, pts) * 2000 >= Double(w.time[last] - w.time[first])
    }
}

/// The app's own evidence of steps (`trips.walk_guard_s`, algorithm version 57): how long the fixes carry a motion
/// state of someone walking, running or cycling (Overland's `motion`, OwnTracks' `motionactivities`: the phone's
/// motion coprocessor, which counts steps; a phone lying on a desk says `stationary`, whatever its fixes drift). Each
/// such fix counts the time to the next fix, at most a minute. Archives without motion states (GPX, GeoLife) count 0.
public enum MotionGuard {
    /// The states of someone moving under their own power.
    public static let onFoot = MotionBits.walking | MotionBits.running | MotionBits.cycling

    /// Seconds of `states` over the fixes `pts` (time order; each fix to the next, at most a minute).
    public static func movingS(_ w: DeviceWork, _ pts: [Int], states: UInt8 = onFoot) -> Double {
        guard w.motion.count == w.count else { return 0 }
        var ms: Int64 = 0
        for k in 0..<max(pts.count - 1, 0) where w.motion[pts[k]] & states != 0 {
            ms += min(w.time[pts[k + 1]] - w.time[pts[k]], 60_000)
        }
        return Double(ms) / 1000
    }
}
