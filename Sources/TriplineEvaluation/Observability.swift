import TriplineSimulator

/// What no rebuild can see: the true trips and visits that lie wholly inside one `dead` (battery empty) or `killed`
/// (app killed) gap of their device, when nothing at all was recorded. A rebuild that got everything else exactly
/// right would still miss them, so their count gives the scores' ceiling (printed beside them, never used to change
/// them). A gap that ends at another place than it began implies one trip (the two stays at two places), so one of the
/// trips inside it counts as within reach; visits of under 5 min are not scored and not counted.
public enum Observability {
    /// The unreachable true trips and visits of one device.
    public static func hidden(trips: [TruthTrip], stays: [TruthStay], gaps: [TruthGap]) -> (trips: Int, visits: Int) {
        var hiddenTrips = 0, hiddenVisits = 0
        for g in gaps where g.kind == "dead" || g.kind == "killed" {
            let inside = trips.filter { $0.startMs >= g.startMs && $0.endMs <= g.endMs }.count
            hiddenVisits += stays.filter { $0.durationS >= 300 && $0.startMs >= g.startMs && $0.endMs <= g.endMs }.count
            let before = stays.first { $0.startMs <= g.startMs && $0.endMs >= g.startMs }?.placeID
            let after = stays.first { $0.startMs <= g.endMs && $0.endMs >= g.endMs }?.placeID
            let implied = inside > 0 && (before == nil || after == nil || before != after) ? 1 : 0
            hiddenTrips += inside - implied
        }
        return (hiddenTrips, hiddenVisits)
    }

    /// F1 of a rebuild that finds every true item but `hidden` ones and nothing else.
    public static func ceiling(truth: Int, hidden: Int) -> Double {
        let found = truth - hidden
        return truth + found > 0 ? 2 * Double(found) / Double(truth + found) : 0
    }
}
