import TriplineCore
import TriplineStore

/// Every rebuilt trip the labelled-time rule counts as a false positive, with what it looked like (docs/PASSES.md,
/// "Where precision goes"): the development measurement behind issue 23's precision gap, `evaluate --geolife …
/// --dump-false-positives FILE`.
extension GeoLifeUser {
    /// The CSV header of ``falsePositiveRows()``.
    public static let falsePositiveHeader = [
        "user", "start_ms", "end_ms", "duration_s", "kind", "mode", "fixes", "extent_m", "net_m", "median_interval_s",
        "has_from", "has_to", "stays_apart_m", "same_place", "from_stay_s", "to_stay_s",
    ].joined(separator: ",")

    /// One CSV row per rebuilt trip of the rebuild the last score left in the store that is a false positive under the
    /// labelled-time rule: `kind` `drift` (outside labelled time, never left 300 m of its first fix), `piece`, `merge`
    /// or `iou` (clipped to labelled time and matched to nothing; ``LabelledTimeScores/breakdown``'s kinds).
    public func falsePositiveRows(rule: LabelledTimeScores.Rule = .init()) throws -> [String] {
        let rows = try store.trips().sorted { ($0.startMs, $0.endMs) < ($1.startMs, $1.endMs) }
        let trips = rows.map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }
        var visits: [Int64: VisitRow] = [:]
        for v in try store.visits() { if let id = v.id { visits[id] = v } }
        let kinds = LabelledTimeScores.falsePositives(labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: trips, rule: rule)
        func d(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double { Geo.distance(a.lat, a.lon, b.lat, b.lon) }
        var out: [String] = []
        for (k, kind) in kinds.enumerated() {
            guard let kind else { continue }
            let r = rows[k]
            let fixes = lowerBound(times, r.startMs)..<lowerBound(times, r.endMs + 1)
            var extent = 0.0, net = 0.0, median = 0.0
            if let first = fixes.first, let last = fixes.last {
                extent = fixes.map { d(positions[first], positions[$0]) }.max() ?? 0
                net = d(positions[first], positions[last])
                let gaps = fixes.dropFirst().map { Double(times[$0] - times[$0 - 1]) / 1000 }.sorted()
                median = gaps.isEmpty ? 0 : gaps[gaps.count / 2]
            }
            let from = r.fromVisitID.flatMap { visits[$0] }, to = r.toVisitID.flatMap { visits[$0] }
            let apart = from.flatMap { f in to.map { d((f.lat, f.lon), ($0.lat, $0.lon)) } } ?? -1
            let samePlace = from?.placeID != nil && from?.placeID == to?.placeID ? 1 : 0
            out.append([
                name, String(r.startMs), String(r.endMs), String((r.endMs - r.startMs) / 1000), kind.rawValue, r.mode, String(fixes.count),
                NumberText.fixed(extent, decimals: 0), NumberText.fixed(net, decimals: 0), NumberText.fixed(median, decimals: 1),
                from == nil ? "0" : "1", to == nil ? "0" : "1", NumberText.fixed(apart, decimals: 0), String(samePlace),
                String(from.map { ($0.endMs - $0.startMs) / 1000 } ?? -1), String(to.map { ($0.endMs - $0.startMs) / 1000 } ?? -1),
            ].joined(separator: ","))
        }
        return out
    }
}
