#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// The per-leg features the learned mode model reads (issue 23, item 3): what a leg's fixes say about how the traveller
/// moved, computed once from a run of a trip's kept points (indices `a...b` into the trip's `pts`), with the speeds and
/// distance increments the trips pass already has. `scripts/train-modes.py` learns from the same numbers, dumped by
/// `tripline evaluate --geolife DIR --dump-leg-features FILE`; the names below are the columns of that file and the
/// order of the model's coefficients.
public enum ModeFeatures {
    /// The model's inputs, in order.
    public static let names = [
        "log_duration_s", "log_distance_m", "mean_mps", "p50_mps", "p85_mps", "p95_mps", "max_mps",
        "accel_p50_mps2", "accel_p90_mps2", "stops_per_km", "stops_per_hour", "log_mean_stop_s", "still_share",
        "turn_deg_per_100m", "straightness", "log_fix_interval_s", "rule_foot", "rule_bicycle",
    ]
    /// The position of `log_fix_interval_s` in ``names``.
    private static let fixIntervalIndex = names.firstIndex(of: "log_fix_interval_s")!
    /// The model decides only legs whose median fix interval is at most this (seconds): 1,386 of the 1,433 legs it
    /// learned from (all but 184 of 22,828 observed labelled minutes); sparser fixes are outside what it saw.
    public static let learnedMaxFixIntervalS = 60.0
    /// Whether `features` (``names``) have a median fix interval of at most `seconds`.
    static func sampledWithin(_ features: [Double], seconds: Double) -> Bool { features[fixIntervalIndex] <= log(1 + seconds) }
    /// Whether `features` (``names``) are a pedestrian's: the 95th-percentile moving speed below `walkMaxMps` (the
    /// speeds never leave walking pace but for GPS scatter), at most a fifth of the time still, and stops of at most
    /// a minute on average (crossings, not traffic lights and jams). Physics, not learnt: the GeoLife labels hold 203
    /// foot minutes of 22,828 (docs/PASSES.md, "Walks the labels cannot teach").
    static func pedestrian(_ features: [Double], walkMaxMps: Double) -> Bool {
        features[p95Index] < walkMaxMps && features[stillShareIndex] <= 0.2 && features[meanStopIndex] <= log(1 + 60)
    }
    private static let p95Index = names.firstIndex(of: "p95_mps")!
    private static let stillShareIndex = names.firstIndex(of: "still_share")!
    private static let meanStopIndex = names.firstIndex(of: "log_mean_stop_s")!
    /// Shares of the leg's fixes that carry each motion state (Overland): dumped beside the features, not used by the
    /// model (the GeoLife users it learns from record none; where a leg has them, the rules' motion override decides).
    public static let motionNames = ["motion_walking", "motion_running", "motion_cycling", "motion_driving"]

    /// The features of run `a...b` of a trip's points `pts`, whose speeds are `v` and distance increments `inc`
    /// (``TripsPass/speeds(_:_:)``, ``MetricsPass/increments(_:_:_:)``), and which the rules classed `ruleClass`
    /// (1 walk, 2 run, 3 cycle, 4 motorised). Stops and moving speeds as ``TripsPass/profileRuns`` counts them: a
    /// fix below `stillMps` did not move, a stop is at least 10 s of such fixes, each moving fix weighs the time to
    /// the next (1 s to 1 min).
    static func compute(_ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double], _ a: Int, _ b: Int, ruleClass: UInt8, stillMps: Double) -> [Double] {
        let t0 = w.time[pts[a]], t1 = w.time[pts[b]]
        let duration = Double(t1 - t0) / 1000
        var path = 0.0
        for q in a...b where q > a { path += inc[q] }
        // Moving speeds (time-weighted), stops, still time.
        var weighted: [(Double, Double)] = []
        var total = 0.0, stillS = 0.0, stopS = 0.0, maxSpeed = 0.0
        var stops = 0
        var stillSince: Int64? = nil
        for q in a...b {
            let next = q < b ? w.time[pts[q + 1]] : w.time[pts[q]] + 1000
            let wt = Double(min(max(next - w.time[pts[q]], 1000), 60_000)) / 1000
            if v[q] < stillMps {
                if stillSince == nil { stillSince = w.time[pts[q]] }
                stillS += wt
                continue
            }
            if let since = stillSince, w.time[pts[q]] - since >= 10_000 {
                stops += 1
                stopS += Double(w.time[pts[q]] - since) / 1000
            }
            stillSince = nil
            weighted.append((v[q], wt))
            total += wt
            maxSpeed = max(maxSpeed, v[q])
        }
        weighted.sort { $0.0 < $1.0 }
        func percentile(_ f: Double) -> Double {
            guard total > 0 else { return 0 }
            var acc = 0.0
            for (speed, wt) in weighted {
                acc += wt
                if acc >= f * total { return speed }
            }
            return weighted.last!.0
        }
        // Accelerations between consecutive fixes at most a minute apart.
        var accel: [Double] = []
        if b > a {
            for q in (a + 1)...b {
                let dt = Double(w.time[pts[q]] - w.time[pts[q - 1]]) / 1000
                if dt > 0 && dt <= 60 { accel.append(abs(v[q] - v[q - 1]) / dt) }
            }
        }
        accel.sort()
        func rank(_ xs: [Double], _ f: Double) -> Double { xs.isEmpty ? 0 : xs[min(xs.count - 1, Int(Double(xs.count) * f))] }
        // Heading change: turns between successive chords of at least 20 m (GPS scatter at a standstill turns too).
        var turns = 0.0
        var anchor = pts[a]
        var lastBearing: Double? = nil
        for q in a...b {
            let i = pts[q]
            guard Geo.distance(w.lat[anchor], w.lon[anchor], w.lat[i], w.lon[i]) >= 20 else { continue }
            let bearing = Geo.bearing(w.lat[anchor], w.lon[anchor], w.lat[i], w.lon[i])
            if let last = lastBearing {
                var d = abs(bearing - last).truncatingRemainder(dividingBy: 360)
                if d > 180 { d = 360 - d }
                turns += d
            }
            lastBearing = bearing
            anchor = i
        }
        var intervals: [Double] = []
        if b > a { for q in (a + 1)...b { intervals.append(Double(w.time[pts[q]] - w.time[pts[q - 1]]) / 1000) } }
        intervals.sort()
        let km = max(path, 100) / 1000
        let line = Geo.distance(w.lat[pts[a]], w.lon[pts[a]], w.lat[pts[b]], w.lon[pts[b]])
        return [
            log(1 + duration), log(1 + path), duration > 0 ? path / duration : 0, percentile(0.5), percentile(0.85), percentile(0.95), maxSpeed,
            rank(accel, 0.5), rank(accel, 0.9), Double(stops) / km, duration > 0 ? Double(stops) / (max(duration, 60) / 3600) : 0,
            log(1 + (stops > 0 ? stopS / Double(stops) : 0)), total + stillS > 0 ? stillS / (total + stillS) : 0,
            min(turns / km / 10, 360), path > 0 ? min(1, line / path) : 1, log(1 + rank(intervals, 0.5)),
            ruleClass <= 2 ? 1 : 0, ruleClass == 3 ? 1 : 0,
        ]
    }

    /// Shares of fixes `a...b` of `pts` with each motion state (``motionNames``).
    static func motionShares(_ w: DeviceWork, _ pts: [Int], _ a: Int, _ b: Int) -> [Double] {
        var counts = [0.0, 0.0, 0.0, 0.0]
        for q in a...b {
            let bits = w.motion[pts[q]]
            if bits & MotionBits.walking != 0 { counts[0] += 1 }
            if bits & MotionBits.running != 0 { counts[1] += 1 }
            if bits & MotionBits.cycling != 0 { counts[2] += 1 }
            if bits & MotionBits.driving != 0 { counts[3] += 1 }
        }
        return counts.map { $0 / Double(b - a + 1) }
    }
}

/// The features of the legs a rebuild made, collected for `--dump-leg-features` (development only; a rebuild without
/// a log computes no features it does not use). A later window's leg replaces an earlier one of the same device with
/// the same start. A rebuild runs its passes on one thread, so the log needs no lock; give each rebuild its own.
public final class LegFeatureLog {
    /// One leg as the speed rules made it: its device, span, the rules' class, its features (``ModeFeatures/names``)
    /// and motion shares.
    public struct Entry: Sendable {
        public var deviceID: Int64
        public var startMs: Int64
        public var endMs: Int64
        public var ruleClass: String
        public var features: [Double]
        public var motion: [Double]
    }

    /// Keyed by device and start (a simulation logs several devices in one rebuild).
    private var byStart: [Key: Entry] = [:]
    struct Key: Hashable { var deviceID: Int64, startMs: Int64 }

    public init() {}

    func add(_ e: Entry) { byStart[Key(deviceID: e.deviceID, startMs: e.startMs)] = e }

    /// The legs, by start (then device).
    public var entries: [Entry] {
        byStart.values.sorted { ($0.startMs, $0.deviceID) < ($1.startMs, $1.deviceID) }
    }
}
