#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// The learned decision of the stays pass: is this short stay a stop (a visit: the trips on both sides end and start
/// there), or a pause on the way (waiting for a bus, a transfer, a traffic jam, a long red light) inside one trip?
/// (docs/PASSES.md, "Learned: stop or traffic").
///
/// A **candidate** (``PauseFeatures/compute(_:_:_:)``) is a stay of at most ``candidateMaxS`` with a stay before and
/// after it, fixes on both sides, those fixes at most ``candidateMaxIntervalS`` apart (median; the density the
/// model learned from), and that does not lie away from a place the traveller leaves and comes back to (the stays
/// before and after it further apart than ``candidateMinApartM``: an out-and-back stop is a visit). Its features go
/// through a gradient-boosted ensemble of stumps trained by `scripts/train-pause-cuts.py` on the development GeoLife
/// users (never the lockbox); a candidate whose probability of traffic is above its ``StumpEnsemble/threshold`` is no stay, so the trips
/// on both sides are one (`stays.pause_model` = 1). The shipped ensemble is generated source
/// (`Generated/PauseCutCoefficients.swift`); `evaluate --pause-model` loads others for held-out scoring.
public struct PauseModel: Sendable, Equatable {
    public typealias Stump = StumpEnsemble.Stump

    /// The ensemble (base log-odds, stumps, and the threshold above which the decision is yes).
    public var ensemble: StumpEnsemble

    /// Candidates last at most this (seconds): GeoLife's labels join legs less than 30 min apart, and a longer stop
    /// with the traveller still is a visit wherever it lies.
    public static let candidateMaxS = 1800.0
    /// … and do not lie on an out-and-back: the stays before and after it further apart than this (metres; the stays
    /// pass's `merge_m`). A 6-minute stop at a shop between two walks from and to the same place is a visit.
    public static let candidateMinApartM = 100.0
    /// … and are seen by fixes this dense on both sides (median interval, seconds): GeoLife logs every 1–5 s; a sparse
    /// phone's stop seen by three fixes minutes apart is no case the model learned.
    public static let candidateMaxIntervalS = 30.0

    public init(base: Double, stumps: [Stump], threshold: Double) {
        ensemble = StumpEnsemble(base: base, stumps: stumps, threshold: threshold)
    }

    /// The probability that a candidate with `features` (``PauseFeatures/names`` order) is a pause inside a trip.
    public func trafficProbability(_ features: [Double]) -> Double { ensemble.probability(features) }

    /// Whether the candidate joins the trips on both sides: its probability is above the ensemble's threshold.
    public func isTraffic(_ features: [Double]) -> Bool { ensemble.decides(features) }

    // MARK: Text form (for `evaluate --pause-model` and the training script)

    /// Reads the text the training script writes (``StumpEnsemble/init(text:origin:featureNames:)``, FEATURE a name of
    /// ``PauseFeatures/names``). Errors name `origin` and the line.
    public init(text: String, origin: String) throws {
        ensemble = try StumpEnsemble(text: text, origin: origin, featureNames: PauseFeatures.names)
    }
}

/// Stop or traffic, in one place: which of the stays found are pauses on the way (``PauseModel``, and the
/// traveller still aboard: ``PauseFeatures/aboard(_:_:_:minMps:)``), and the stays left.
public enum PauseDecision {
    /// `stays` (time order, as the stays pass found them) without the candidates `model` calls traffic (when `apply`)
    /// and those the traveller never left a vehicle at (when `aboardMps` > 0: `stays.aboard_mps`); `before` is the stay
    /// kept before the span (``DeviceWork/previousStay``), a neighbour of the first. With both off every stay is kept
    /// (`log` still receives every candidate: the training export). A stay `gotOut` holds for is kept whatever the
    /// model says: the app's motion states saw the person leave the vehicle, which the model (trained on tracks
    /// without them) cannot weigh.
    public static func joinTraffic(
        _ w: DeviceWork, _ stays: [StayRecord], before: StayRecord?, model: PauseModel, apply: Bool, aboardMps: Double = 0,
        gotOut: (StayRecord) -> Bool = { _ in false }, log: PauseLog? = nil
    ) -> [StayRecord] {
        guard apply || aboardMps > 0 || log != nil, !stays.isEmpty else { return stays }
        let all = (before.map { [$0] } ?? []) + stays
        let offset = all.count - stays.count
        var out: [StayRecord] = []
        out.reserveCapacity(stays.count)
        for (k, stay) in stays.enumerated() {
            guard let features = PauseFeatures.compute(w, all, k + offset) else {
                out.append(stay)
                continue
            }
            let traffic = ((apply && model.isTraffic(features)) || (aboardMps > 0 && PauseFeatures.aboard(w, all, k + offset, minMps: aboardMps)))
                && !gotOut(stay)
            log?.add(PauseCandidate(startMs: stay.startMs, endMs: stay.endMs, features: features, joined: traffic))
            if !traffic { out.append(stay) }
        }
        return out
    }
}

/// The features of a candidate pause for ``PauseModel``: what tells a wait for the bus from a stop at a shop.
public enum PauseFeatures {
    /// Feature names, in order (the training export's columns).
    public static let names = [
        "log_duration_s", "log_fixes", "fixes_per_min", "log_radius_m", "log_longest_silence_s", "moving_share_inside",
        "speed_p90_inside_mps", "speed_p50_before_mps", "speed_p90_before_mps", "speed_p50_after_mps", "speed_p90_after_mps",
        "log_trip_before_s", "log_trip_after_s", "log_from_previous_m", "log_to_next_m", "log_detour", "turn_deg",
        "hour_sin", "hour_cos", "log_median_accuracy_m", "accuracy_known",
    ]

    /// How far before and after the stay the speeds are read (milliseconds).
    static let sideMs: Int64 = 300_000
    /// How far before and after the stay ``aboard(_:_:_:minMps:)`` reads the speeds (milliseconds): the arrival and
    /// the departure themselves.
    static let aboardMs: Int64 = 60_000

    /// Whether the traveller stayed aboard a vehicle through the candidate `stays[k]` (a neighbour on both sides; see
    /// ``compute(_:_:_:)``): the median speed of the kept fixes in the minute before it and in the minute after it
    /// are both above `minMps` (at least two fixes each side). Whoever stops somewhere gets off and goes to the door:
    /// the minute before a stop ends at walking pace or standing (the stays pass gives the arrival's moving fixes to
    /// the trip), and so does the minute after it. A vehicle that stops and goes on at its own speed — a jam, a long
    /// light, a bus standing at a stop — carried the traveller through.
    static func aboard(_ w: DeviceWork, _ stays: [StayRecord], _ k: Int, minMps: Double) -> Bool {
        guard k > 0, k + 1 < stays.count else { return false }
        let s = stays[k], prev = stays[k - 1], next = stays[k + 1]
        var before: [Int] = [], after: [Int] = []
        var i = s.first - 1
        while i > prev.last, i >= 0, w.time[i] >= s.startMs - aboardMs {
            if w.flags[i] == 0 { before.append(i) }
            i -= 1
        }
        before.reverse()
        i = s.last + 1
        while i < next.first, i < w.count, w.time[i] <= s.endMs + aboardMs {
            if w.flags[i] == 0 { after.append(i) }
            i += 1
        }
        guard before.count >= 2, after.count >= 2 else { return false }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        return median(TripsPass.speeds(w, before)) > minMps && median(TripsPass.speeds(w, after)) > minMps
    }

    /// The features of `stays[k]` (time order, indexed in `w`), or nil when it is no candidate (see ``PauseModel``).
    static func compute(_ w: DeviceWork, _ stays: [StayRecord], _ k: Int) -> [Double]? {
        guard k > 0, k + 1 < stays.count else { return nil }
        let s = stays[k], prev = stays[k - 1], next = stays[k + 1]
        let durationS = Double(s.endMs - s.startMs) / 1000
        guard durationS <= PauseModel.candidateMaxS, durationS >= 0 else { return nil }
        let apart = Geo.distance(prev.lat, prev.lon, next.lat, next.lon)
        guard apart > PauseModel.candidateMinApartM else { return nil }
        // The kept fixes of the trips on both sides (within `sideMs` of the stay) and inside the stay.
        func kept(_ a: Int, _ b: Int) -> [Int] {
            var out: [Int] = []
            var i = max(0, a)
            while i <= min(b, w.count - 1) {
                if w.flags[i] == 0 { out.append(i) }
                i += 1
            }
            return out
        }
        let beforeAll = kept(prev.last + 1, s.first - 1), afterAll = kept(s.last + 1, next.first - 1)
        let before = beforeAll.filter { w.time[$0] >= s.startMs - sideMs }
        let after = afterAll.filter { w.time[$0] <= s.endMs + sideMs }
        guard before.count >= 2, after.count >= 2 else { return nil }
        func medianInterval(_ pts: [Int]) -> Double {
            var v: [Double] = []
            for q in 1..<pts.count { v.append(Double(w.time[pts[q]] - w.time[pts[q - 1]]) / 1000) }
            v.sort()
            return v[v.count / 2]
        }
        guard medianInterval(before) <= PauseModel.candidateMaxIntervalS, medianInterval(after) <= PauseModel.candidateMaxIntervalS else { return nil }
        let inside = kept(s.first, s.last)
        func quantile(_ values: [Double], _ f: Double) -> Double {
            let v = values.sorted()
            return v.isEmpty ? 0 : v[min(v.count - 1, Int(Double(v.count) * f))]
        }
        let vBefore = TripsPass.speeds(w, before), vAfter = TripsPass.speeds(w, after)
        let vInside = inside.count >= 2 ? TripsPass.speeds(w, inside) : []
        let movingInside = vInside.isEmpty ? 0 : Double(vInside.filter { $0 >= 1 }.count) / Double(vInside.count)
        var silence: Int64 = 0
        for q in 1..<max(1, inside.count) { silence = max(silence, w.time[inside[q]] - w.time[inside[q - 1]]) }
        let fromPrevious = Geo.distance(prev.lat, prev.lon, s.lat, s.lon)
        let toNext = Geo.distance(s.lat, s.lon, next.lat, next.lon)
        // The turn across the stay: the heading from the first fix of the side window to the stay's centre against
        // the heading from the centre to the last fix of the other (0° straight on, 180° back the way it came).
        let a = before[0], b = after[after.count - 1]
        func bearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
            let y = (lon2 - lon1) * cos(lat1 * .pi / 180), x = lat2 - lat1
            return atan2(y, x) * 180 / .pi
        }
        var turn = 0.0
        if Geo.distance(w.lat[a], w.lon[a], s.lat, s.lon) > 20, Geo.distance(s.lat, s.lon, w.lat[b], w.lon[b]) > 20 {
            turn = abs(bearing(w.lat[a], w.lon[a], s.lat, s.lon) - bearing(s.lat, s.lon, w.lat[b], w.lon[b]))
            if turn > 180 { turn = 360 - turn }
        }
        let local = Double(s.startMs / 1000 + Int64(w.localOffset(atMs: s.startMs, latitude: s.lat, longitude: s.lon)))
        let hour = (local.truncatingRemainder(dividingBy: 86_400) + 86_400).truncatingRemainder(dividingBy: 86_400) / 3600
        var accuracies: [Double] = []
        for i in inside where !w.accuracy[i].isNaN && w.accuracy[i] >= 0 { accuracies.append(w.accuracy[i]) }
        func l(_ x: Double) -> Double { log(1 + max(0, x)) }
        return [
            l(durationS), l(Double(inside.count)), Double(inside.count) / max(durationS / 60, 1), l(s.radiusM), l(Double(silence) / 1000),
            movingInside, min(quantile(vInside, 0.9), 60), min(quantile(vBefore, 0.5), 60), min(quantile(vBefore, 0.9), 60),
            min(quantile(vAfter, 0.5), 60), min(quantile(vAfter, 0.9), 60),
            l(Double(s.startMs - prev.endMs) / 1000), l(Double(next.startMs - s.endMs) / 1000), l(fromPrevious), l(toNext),
            log((fromPrevious + toNext + 1) / (apart + 1)), turn, sin(hour * .pi / 12), cos(hour * .pi / 12),
            l(quantile(accuracies, 0.5)), accuracies.isEmpty ? 0 : 1,
        ]
    }
}

/// Collects every candidate pause's features during a rebuild (the training export, `evaluate --dump-pauses`): a
/// development aid, never set by `rebuild`.
public typealias PauseLog = CandidateLog<PauseCandidate>

/// One candidate: the stay's span, its features, and whether the model (when on) joined it into a trip.
public struct PauseCandidate: LoggedCandidate {
    public var startMs: Int64
    public var endMs: Int64
    public var features: [Double]
    public var joined: Bool
}
