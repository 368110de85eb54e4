/// Whether the time between two fixes is moving time: the metrics pass's rule (docs/PASSES.md "metrics"), which the
/// exports' privacy zones also measure the part of a trip they show by.
public enum TrackMotion {
    /// How far a fix may lie from where the device was: its accuracy, at least 5 m; 30 m when it reports none (NaN).
    @inlinable @inline(__always)
    public static func reach(_ accuracy: Double) -> Double { accuracy.isNaN ? 30 : max(accuracy, 5) }

    /// Whether `seconds` between two fixes `step` metres apart (read only when needed) were spent moving at `movingMps`
    /// or faster: by the later fix's reported speed (NaN when it reports none), unless the positions say moving — the
    /// step, less both fixes' ``reach(_:)``, still covers `movingMps` over that time (an app that writes a speed of 0 on
    /// every fix, or OwnTracks' whole km/h); without a reported speed, by the step's own speed.
    @inlinable @inline(__always)
    public static func isMoving(seconds: Double, reported: Double, accuracyBefore: Double, accuracy: Double, movingMps: Double,
                                step: () -> Double) -> Bool {
        guard !reported.isNaN && reported >= 0 else { return seconds > 0 && step() / seconds >= movingMps }
        if reported >= movingMps { return true }
        return seconds > 0 && step() - reach(accuracyBefore) - reach(accuracy) >= movingMps * seconds
    }

    /// The least reported speed (m/s) of someone slower than `metrics.moving_mps` still under way (a hike uphill at
    /// 0.45 m/s, a pram, a car creeping through a jam): a slow walker's 0.3 m/s less the Doppler error. A phone at
    /// rest reports 0.
    public static let slowMps = 0.2

    /// Whether a fix reporting `reported` m/s, slower than moving, was under way all the same (``slowMps`` or more):
    /// its positions a minute or more either side (`windowSeconds` between them, at most three minutes) are
    /// `windowMetres` apart, which less both fixes' ``reach(_:)`` still covers ``slowMps`` over that time. The metrics
    /// pass counts such time as moving (algorithm version 98): a hike at 0.45 m/s had 10 s of moving time in 99 min,
    /// an average speed of 318 m/s.
    @inlinable
    public static func isCreeping(reported: Double, windowSeconds: Double, windowMetres: Double, accuracyBefore: Double, accuracyAfter: Double)
        -> Bool
    {
        guard !reported.isNaN && reported >= slowMps, windowSeconds >= 120, windowSeconds <= 180 else { return false }
        return windowMetres - reach(accuracyBefore) - reach(accuracyAfter) >= slowMps * windowSeconds
    }

    /// The fixes a minute or more either side of a fix, the window ``isCreeping(reported:windowSeconds:windowMetres:accuracyBefore:accuracyAfter:)``
    /// measures: it only moves forward, for fixes asked about in time order (the metrics pass's devices, the fixes a
    /// privacy zone shows).
    public struct CreepWindow {
        @usableFromInline var before = 0
        @usableFromInline var after = 0

        public init() {}

        /// The last fix a minute or more before fix `k` and the first a minute or more after it, among `count` fixes
        /// whose times (ms, ascending) `time` gives; nil when the track does not reach a minute either side.
        @inlinable
        public mutating func around(_ k: Int, count: Int, time: (Int) -> Int64) -> (before: Int, after: Int)? {
            let t = time(k)
            while before + 1 < k && time(before + 1) <= t - 60_000 { before += 1 }
            after = max(after, k)
            while after + 1 < count && time(after) < t + 60_000 { after += 1 }
            guard time(before) <= t - 60_000 && time(after) >= t + 60_000 else { return nil }
            return (before, after)
        }
    }

    /// Whether a silence of `seconds` between two fixes `metres` apart (read only when needed) that no straight line
    /// bridges (longer than `metrics.bridge_max_s`) was crossed under way, so that a trip holding it counts its straight
    /// line and its time as moving: longer than `trips.split_gap_s` (a trip kept across it travelled), or crossed at
    /// `minPaceMps` (`metrics.moving_mps`, as between any two fixes) or faster in a straight line less both fixes'
    /// ``reach(_:)`` (a fix 140 m off is no way covered). One rule for the trips pass (`TripsPass.Silences` in
    /// TriplinePasses), the metrics pass's days and the day reports' shares of a trip.
    @inlinable
    public static func crossedSilence(seconds: Double, accuracyBefore: Double, accuracy: Double, bridgeMaxS: Double, splitGapS: Double,
                                      minPaceMps: Double, metres: () -> Double) -> Bool {
        if seconds > splitGapS { return true }
        guard seconds > bridgeMaxS else { return false }
        return silencePace(seconds: seconds, metres: metres(), accuracyBefore: accuracyBefore, accuracy: accuracy) >= minPaceMps
    }

    /// The least pace (m/s) over a silence of `seconds` between two fixes `metres` apart: the straight line less both
    /// fixes' ``reach(_:)``.
    @inlinable
    public static func silencePace(seconds: Double, metres: Double, accuracyBefore: Double, accuracy: Double) -> Double {
        max(0, metres - reach(accuracyBefore) - reach(accuracy)) / max(0.001, seconds)
    }
}
