import TriplineCore
import TriplineSimulator

/// What no rebuild can see: the true trips and visits during which their device recorded nothing at all (no fix, no
/// app event: a dead phone, a killed app that iOS did not relaunch). A rebuild that got everything else exactly right
/// would still miss them, so their count gives the scores' ceiling (printed beside them, never used to change them).
/// A silence whose two ends lie at two different places (or mid-trip) implies one trip, so one of the trips inside it
/// counts as within reach; a visit is hidden only when a trip shares its silence; visits of under 5 min are not scored
/// and not counted.
///
/// Sharper, for trips (`beyond`): a rebuild can place the trip a silence implies only across the silence, and that
/// matches (temporal IoU ≥ 0.5) only when the trip lasts at least half the silence; a 10-min walk inside a 2-hour
/// silence is within reach only by luck. So the implied trip counts as within reach only when the longest unseen trip
/// of its silence lasts at least half of it.
public enum Observability {
    /// The unreachable true trips and visits of one device, given the times of everything it recorded (ascending).
    /// - Returns: the counts (`beyond`: the hidden trips and those no guess across their silence matches), and the
    ///   silences (from the last record before to the first after) that hide something.
    public static func hidden(trips: [TruthTrip], stays: [TruthStay], records: [Int64])
        -> (trips: Int, visits: Int, beyond: Int, silences: [(Int64, Int64)])
    {
        func recorded(_ a: Int64, _ b: Int64) -> Bool { lowerBound(records, b + 1) > lowerBound(records, a) }
        /// The silence around [a, b]: the last record before a and the first after b (nil at the archive's edges).
        func silence(_ a: Int64, _ b: Int64) -> (Int64?, Int64?) {
            let i = lowerBound(records, a), j = lowerBound(records, b + 1)
            return (i > 0 ? records[i - 1] : nil, j < records.count ? records[j] : nil)
        }
        func place(_ t: Int64?) -> Int? { t.flatMap { t in stays.first { $0.startMs <= t && $0.endMs >= t }?.placeID } }
        var unseenTrips: [Int64?: (end: Int64?, count: Int, longest: Int64)] = [:]
        var visits = 0
        var spans: [Int64?: Int64?] = [:]
        for trip in trips where !recorded(trip.startMs, trip.endMs) {
            let (before, after) = silence(trip.startMs, trip.endMs)
            var silenceTrips = unseenTrips[before, default: (after, 0, 0)]
            silenceTrips.count += 1
            silenceTrips.longest = max(silenceTrips.longest, trip.endMs - trip.startMs)
            unseenTrips[before] = silenceTrips
        }
        // A visit is hidden only when an unseen trip shares its silence: otherwise the records on both sides are at
        // the visit's place or on the trips to and from it, and a rebuild can infer the stop between them.
        for stay in stays where stay.durationS >= 300 && !recorded(stay.startMs, stay.endMs) {
            let (before, after) = silence(stay.startMs, stay.endMs)
            guard unseenTrips[before] != nil else { continue }
            visits += 1
            spans[before] = after
        }
        var hiddenTrips = 0, beyond = 0
        for (before, value) in unseenTrips {
            let a = place(before), b = place(value.end)
            let implied = before != nil && value.end != nil && (a == nil || b == nil || a != b) ? 1 : 0
            hiddenTrips += value.count - implied
            if value.count - implied > 0 { spans[before] = value.end }
            // The implied trip is matchable by a guess across the silence only when it lasts at least half of it.
            var matchable = 0
            if implied == 1, let start = before, let end = value.end, 2 * value.longest >= end - start { matchable = 1 }
            beyond += value.count - matchable
        }
        let silences = spans.map { ($0.key ?? Int64.min, $0.value ?? Int64.max) }.sorted { $0.0 < $1.0 }
        return (hiddenTrips, visits, beyond, silences)
    }

    /// F1 of a rebuild that finds every true item but `hidden` ones and nothing else.
    public static func ceiling(truth: Int, hidden: Int) -> Double {
        let found = truth - hidden
        return truth + found > 0 ? 2 * Double(found) / Double(truth + found) : 0
    }
}
