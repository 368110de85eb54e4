import TriplineCore
import TriplinePasses

/// The training examples of the drift-or-walk model (``TripCutModel``): each candidate the trips pass logged, with the
/// labelled-time rule's judgement of the trip it became (`evaluate --geolife --dump-trip-cuts FILE`, read by
/// `scripts/train-trip-cuts.py`).
///
/// Label (column `drift`): 1 when keeping the trip can only cost — it is a false positive under the rule (drift outside
/// labelled time, or clipped to labelled time and matched to nothing); 0 when it matched a labelled trip, or lies
/// outside labelled time and moved more than the rule's 300 m (a walk the labels lost, not scored: kept).
extension GeoLifeUser {
    /// The CSV header: user, span, outcome, label, then the features (``TripCutFeatures/names``).
    public static var tripCutHeader: String {
        (["user", "start_ms", "end_ms", "outcome", "drift"] + TripCutFeatures.names).joined(separator: ",")
    }

    /// One CSV row per logged candidate (`entries`, from a rebuild of this user with `trips.cut_model` off, so that every
    /// candidate is a trip in the database): the trip of the database it became, judged by the rule.
    public func tripCutRows(_ entries: [TripCutCandidate]) throws -> [String] {
        let found = try store.trips().map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }.sorted { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
        let outcomes = LabelledTimeScores.outcomes(labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: found)
        let starts = found.map(\.startMs)
        var rows: [String] = []
        for e in entries {
            // The database trip overlapping the candidate most (later passes may move a trip's edges a little).
            var best = -1
            var bestOverlap: Int64 = -1
            var k = max(0, lowerBound(starts, e.startMs) - 2)
            while k < found.count && found[k].startMs <= e.endMs + 1 {
                let overlap = min(found[k].endMs, e.endMs) - max(found[k].startMs, e.startMs)
                if overlap > bestOverlap { (best, bestOverlap) = (k, overlap) }
                k += 1
            }
            guard best >= 0, bestOverlap >= 0 else { continue }
            let outcome = outcomes[best]
            let drift = outcome == .drift || outcome == .unmatched ? 1 : 0
            let values = e.features.map { NumberText.fixed($0, decimals: 6) }
            rows.append(([name, String(e.startMs), String(e.endMs), outcome.rawValue, String(drift)] + values).joined(separator: ","))
        }
        return rows
    }
}
