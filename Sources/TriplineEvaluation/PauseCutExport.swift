import TriplineCore
import TriplinePasses

/// The training examples of the stop-or-traffic model (``PauseModel``), and where the labelled-time rule's misses come
/// from (docs/PASSES.md, "Learned: stop or traffic").
extension GeoLifeUser {
    /// The CSV header of ``pauseRows(_:)``: user, span, where the stay lies, label, then the features
    /// (``PauseFeatures/names``).
    public static var pauseHeader: String {
        (["user", "start_ms", "end_ms", "where", "traffic"] + PauseFeatures.names).joined(separator: ",")
    }

    /// One CSV row per logged candidate pause (`entries`, from a rebuild with `stays.pause_model` off): `traffic` 1 when
    /// a truth trip of the labelled-time rule (labels as written, joined while less than 30 min apart, clipped to their
    /// fixes) holds the whole stay — the traveller was under way, so the stay cuts a labelled trip in two — else 0
    /// (`where`: `edge` when a truth trip starts or ends inside it, `outside` when it lies in unlabelled time).
    public func pauseRows(_ entries: [PauseCandidate], rule: LabelledTimeScores.Rule = .init()) -> [String] {
        let (truth, _) = LabelledTimeScores.truthTrips(writtenLabels.sorted { $0.startMs < $1.startMs }, fixTimes: times, rule: rule)
        let starts = truth.map(\.startMs)
        var rows: [String] = []
        for e in entries {
            var place = "outside"
            var j = lowerBound(starts, e.endMs + 1) - 1
            while j >= 0 && truth[j].endMs >= e.startMs {
                if truth[j].startMs < e.startMs && truth[j].endMs > e.endMs { place = "inside"; break }
                place = "edge"
                j -= 1
            }
            let values = e.features.map { NumberText.fixed($0, decimals: 6) }
            rows.append(([name, String(e.startMs), String(e.endMs), place, place == "inside" ? "1" : "0"] + values).joined(separator: ","))
        }
        return rows
    }
}

extension LabelledTimeScores {
    /// Where the rule's misses come from: each unmatched truth trip and each unmatched rebuilt trip, counted by kind
    /// (`evaluate --geolife` prints the pooled counts). `trips` and `visits` sorted by start.
    ///
    /// Truth trips: `truth: cut at a stay` (two or more rebuilt trips overlap it, and a visit lies between the first two
    /// of them; `… at a mode change` when the labels before and after that visit name different modes), `truth: cut at
    /// a silence` (no visit between them: a split at a silence), `truth: inside a longer trip` (the one rebuilt trip
    /// overlapping it overlaps another truth trip too), `truth: one trip, IoU < 0.5`, `truth: no rebuilt trip`.
    /// Rebuilt trips: `rebuilt: drift`, `rebuilt: piece` (of a truth trip other rebuilt trips overlap too), `rebuilt:
    /// merge` (overlaps two truth trips or more), `rebuilt: one trip, IoU < 0.5`, and `rebuilt: outside labelled time`
    /// (not scored).
    public static func breakdown(
        labels: [CorpusReaders.Label], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], trips: [Scoring.Interval],
        visits: [Scoring.Interval], rule: Rule = Rule()
    ) -> [String: Int] {
        let sortedLabels = labels.sorted { $0.startMs < $1.startMs }
        let (truth, _) = truthTrips(sortedLabels, fixTimes: fixTimes, rule: rule)
        let outcome = outcomes(labels: labels, fixTimes: fixTimes, fixPositions: fixPositions, trips: trips, rule: rule)
        let (overlaps, overlapped) = overlapIndex(trips, truth)
        var matchedTruth = Set<Int>()
        var kept: [Scoring.Interval] = []
        var keptIndex: [Int] = []
        for (k, f) in trips.enumerated() where outcome[k] == .matched || outcome[k] == .unmatched {
            var s = LabelledTimeScores()
            if let c = clip([f], to: truth, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule, scores: &s).first {
                kept.append(c)
                keptIndex.append(k)
            }
        }
        for (t, _) in Scoring.match(truth: truth, found: kept) { matchedTruth.insert(t) }
        func mode(at t: Int64, before: Bool) -> String? {
            if let l = sortedLabels.first(where: { $0.startMs <= t && $0.endMs >= t }) { return l.mode }
            return before ? sortedLabels.last(where: { $0.endMs <= t })?.mode : sortedLabels.first(where: { $0.startMs >= t })?.mode
        }
        var out: [String: Int] = [:]
        for j in truth.indices where !matchedTruth.contains(j) {
            let o = overlapped[j]
            if o.isEmpty {
                out["truth: no rebuilt trip", default: 0] += 1
            } else if o.count == 1 {
                out[overlaps[o[0]].count > 1 ? "truth: inside a longer trip" : "truth: one trip, IoU < 0.5", default: 0] += 1
            } else {
                let a = trips[o[0]], b = trips[o[1]]
                let stay = visits.contains { min($0.endMs, b.startMs) >= max($0.startMs, a.endMs) && $0.endMs > a.endMs - 1 && $0.startMs < b.startMs + 1 }
                if stay {
                    let change = mode(at: a.endMs, before: true) != mode(at: b.startMs, before: false)
                    out[change ? "truth: cut at a stay at a mode change" : "truth: cut at a stay", default: 0] += 1
                } else {
                    out["truth: cut at a silence", default: 0] += 1
                }
            }
        }
        for o in outcome where o == .ignored { out["rebuilt: outside labelled time (not scored)", default: 0] += 1 }
        for kind in falsePositiveKinds(outcome, overlaps: overlaps, overlapped: overlapped).compactMap({ $0 }) {
            out["rebuilt: " + kind.phrase, default: 0] += 1
        }
        return out
    }

    /// What kind of false positive a rebuilt trip is under the rule (``breakdown(labels:fixTimes:fixPositions:trips:visits:rule:)``,
    /// `evaluate --dump-false-positives`).
    public enum FalsePositive: String, Sendable {
        /// Outside labelled time, all its fixes within `driftM` of its first.
        case drift
        /// Clipped to labelled time, unmatched, on one truth trip that other rebuilt trips overlap too.
        case piece
        /// Clipped to labelled time, unmatched, overlapping two truth trips or more.
        case merge
        /// Clipped to labelled time, the only rebuilt trip on its truth trip, and IoU < 0.5.
        case iou

        /// The words of the `misses by kind` line.
        public var phrase: String {
            switch self {
            case .drift: "drift"
            case .piece: "piece"
            case .merge: "merge"
            case .iou: "one trip, IoU < 0.5"
            }
        }
    }

    /// The kind of false positive each of `trips` (sorted by start) is, nil for a matched trip and one outside labelled
    /// time that moved (not scored).
    public static func falsePositives(
        labels: [CorpusReaders.Label], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], trips: [Scoring.Interval], rule: Rule = Rule()
    ) -> [FalsePositive?] {
        let (truth, _) = truthTrips(labels.sorted { $0.startMs < $1.startMs }, fixTimes: fixTimes, rule: rule)
        let outcome = outcomes(labels: labels, fixTimes: fixTimes, fixPositions: fixPositions, trips: trips, rule: rule)
        let (overlaps, overlapped) = overlapIndex(trips, truth)
        return falsePositiveKinds(outcome, overlaps: overlaps, overlapped: overlapped)
    }

    static func falsePositiveKinds(_ outcome: [Outcome], overlaps: [[Int]], overlapped: [[Int]]) -> [FalsePositive?] {
        outcome.enumerated().map { k, o in
            switch o {
            case .matched, .ignored: nil
            case .drift: .drift
            case .unmatched:
                overlaps[k].count > 1 ? .merge : overlaps[k].count == 1 && overlapped[overlaps[k][0]].count > 1 ? .piece : .iou
            }
        }
    }
}

extension LabelledTimeScores {
    /// Which truth trips each rebuilt trip overlaps (`overlaps[k]`, indices into `truth`), and which rebuilt trips each
    /// truth trip is overlapped by (`overlapped[j]`, indices into `trips`); both in index order.
    static func overlapIndex(_ trips: [Scoring.Interval], _ truth: [Scoring.Interval]) -> (overlaps: [[Int]], overlapped: [[Int]]) {
        var overlaps: [[Int]] = Array(repeating: [], count: trips.count)
        var overlapped: [[Int]] = Array(repeating: [], count: truth.count)
        for (k, f) in trips.enumerated() {
            for (j, t) in truth.enumerated() where min(f.endMs, t.endMs) > max(f.startMs, t.startMs) {
                overlaps[k].append(j)
                overlapped[j].append(k)
            }
        }
        return (overlaps, overlapped)
    }
}
