import TriplineCore
import TriplinePasses

/// What separates a *piece* from its sibling (docs/PASSES.md, "Pieces: what cuts a labelled trip"): the development
/// measurement behind issue 23's precision gap, `evaluate --geolife … --dump-pieces FILE`.
extension LabelledTimeScores {
    /// A rebuilt visit as the piece measurement reads it: its span and centre.
    public struct VisitSpan: Sendable, Equatable {
        public var interval: Scoring.Interval
        public var lat: Double
        public var lon: Double
        public init(_ interval: Scoring.Interval, lat: Double, lon: Double) {
            self.interval = interval
            self.lat = lat
            self.lon = lon
        }
    }

    /// A rebuilt trip the rule calls a piece (unmatched, overlapping one truth trip that other rebuilt trips overlap
    /// too), and what lies between it and its nearest sibling (the closest in time of the other rebuilt trips on the
    /// same truth trip, a matched one first).
    public struct Piece: Sendable, Equatable {
        public var trip: Scoring.Interval
        /// Its fixes, and the farthest of them from the first (metres).
        public var fixes: Int
        public var extentM: Double
        /// The share of its time inside the truth trip, and the truth trip.
        public var inTruthShare: Double
        public var truth: Scoring.Interval
        /// Whether the sibling comes after it, and whether the sibling matched the truth trip.
        public var siblingAfter: Bool
        public var siblingMatched: Bool
        /// The time between the two (the earlier one's end to the later one's start) and the straight line between the
        /// earlier one's last fix and the later one's first (metres; -1 when one has no fix).
        public var gapS: Double
        public var gapM: Double
        /// The longest visit between them, nil when none (a silence).
        public var visit: VisitSpan?
        /// That visit's stop-or-traffic candidate: nil when it was none, else whether the decision joined it.
        public var candidateJoined: Bool?
        /// The distance between the visits before and after it (metres; -1 at the edge of the data).
        public var visitApartM: Double
        /// Whether a label covers the visit's middle (else it lies in a gap the 30-min join closed).
        public var visitInLabel: Bool
        /// The fewer fixes of the 5 min before and after the visit, and the larger median interval of the two sides
        /// (seconds; 9999 with fewer than two fixes): what the candidate rule reads.
        public var sideFixes: Int
        public var sideMedianS: Double
        /// The labelled modes at the earlier one's end and the later one's start.
        public var modeBefore: String
        public var modeAfter: String
    }

    /// The pieces of `trips` (sorted by start) under the rule, with what separates each from its sibling; `visits`
    /// sorted by start, `candidates` the stop-or-traffic decision's logged candidates (span, joined).
    public static func pieces(
        labels: [CorpusReaders.Label], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], trips: [Scoring.Interval],
        visits: [VisitSpan], candidates: [(interval: Scoring.Interval, joined: Bool)], rule: Rule = Rule()
    ) -> [Piece] {
        let sortedLabels = labels.sorted { $0.startMs < $1.startMs }
        let (truth, _) = truthTrips(sortedLabels, fixTimes: fixTimes, rule: rule)
        let outcome = outcomes(labels: labels, fixTimes: fixTimes, fixPositions: fixPositions, trips: trips, rule: rule)
        let (overlaps, overlapped) = overlapIndex(trips, truth)
        func fixRange(_ a: Int64, _ b: Int64) -> Range<Int> { lowerBound(fixTimes, a)..<lowerBound(fixTimes, b + 1) }
        func mode(at t: Int64, before: Bool) -> String {
            if let l = sortedLabels.first(where: { $0.startMs <= t && $0.endMs >= t }) { return l.mode }
            return (before ? sortedLabels.last(where: { $0.endMs <= t })?.mode : sortedLabels.first(where: { $0.startMs >= t })?.mode) ?? ""
        }
        func distance(_ i: Int, _ j: Int) -> Double {
            Geo.distance(fixPositions[i].lat, fixPositions[i].lon, fixPositions[j].lat, fixPositions[j].lon)
        }
        var out: [Piece] = []
        for (k, o) in outcome.enumerated() where o == .unmatched && overlaps[k].count == 1 {
            let j = overlaps[k][0]
            let siblings = overlapped[j].filter { $0 != k }
            guard !siblings.isEmpty else { continue }
            let piece = trips[k], t = truth[j]
            func apart(_ s: Int) -> Int64 { s < k ? piece.startMs - trips[s].endMs : trips[s].startMs - piece.endMs }
            let matched = siblings.filter { outcome[$0] == .matched }
            guard let s = (matched.isEmpty ? siblings : matched).min(by: { apart($0) < apart($1) }) else { continue }
            let a = s < k ? trips[s] : piece, b = s < k ? piece : trips[s]
            let own = fixRange(piece.startMs, piece.endMs)
            let extent = own.first.map { f in own.map { distance(f, $0) }.max() ?? 0 } ?? 0
            let ra = fixRange(a.startMs, a.endMs), rb = fixRange(b.startMs, b.endMs)
            var p = Piece(
                trip: piece, fixes: own.count, extentM: extent,
                inTruthShare: Double(max(0, min(piece.endMs, t.endMs) - max(piece.startMs, t.startMs))) / Double(max(1, piece.endMs - piece.startMs)),
                truth: t, siblingAfter: s > k, siblingMatched: outcome[s] == .matched, gapS: Double(b.startMs - a.endMs) / 1000,
                gapM: ra.last.flatMap { x in rb.first.map { distance(x, $0) } } ?? -1, visit: nil, candidateJoined: nil, visitApartM: -1,
                visitInLabel: false, sideFixes: -1, sideMedianS: -1, modeBefore: mode(at: a.endMs, before: true),
                modeAfter: mode(at: b.startMs, before: false))
            let between = visits.indices.filter { visits[$0].interval.endMs >= a.endMs && visits[$0].interval.startMs <= b.startMs }
            func length(_ v: Int) -> Int64 { visits[v].interval.endMs - visits[v].interval.startMs }
            if let v = between.max(by: { length($0) < length($1) }) {
                let span = visits[v].interval
                p.visit = visits[v]
                p.candidateJoined = candidates.first { min($0.interval.endMs, span.endMs) > max($0.interval.startMs, span.startMs) }?.joined
                if v > 0, v + 1 < visits.count {
                    p.visitApartM = Geo.distance(visits[v - 1].lat, visits[v - 1].lon, visits[v + 1].lat, visits[v + 1].lon)
                }
                let middle = (span.startMs + span.endMs) / 2
                p.visitInLabel = sortedLabels.contains { $0.startMs <= middle && $0.endMs >= middle }
                for (lo, hi) in [(span.startMs - 300_000, span.startMs - 1), (span.endMs + 1, span.endMs + 300_000)] {
                    let q = fixRange(lo, hi)
                    let gaps = q.dropFirst().map { Double(fixTimes[$0] - fixTimes[$0 - 1]) / 1000 }.sorted()
                    p.sideFixes = p.sideFixes < 0 ? q.count : min(p.sideFixes, q.count)
                    p.sideMedianS = max(p.sideMedianS, gaps.isEmpty ? 9999 : gaps[gaps.count / 2])
                }
            }
            out.append(p)
        }
        return out
    }
}

extension GeoLifeUser {
    /// The CSV header of ``pieceRows(candidates:rule:)``.
    public static let pieceHeader = [
        "user", "start_ms", "end_ms", "duration_s", "fixes", "extent_m", "in_truth_share", "truth_duration_s", "side", "sibling_matched",
        "gap_s", "gap_m", "separator", "visit_s", "visit_candidate", "visit_apart_m", "visit_in_label", "side_fixes", "side_median_s",
        "mode_before", "mode_after",
    ].joined(separator: ",")

    /// One CSV row per piece (``LabelledTimeScores/pieces(labels:fixTimes:fixPositions:trips:visits:candidates:rule:)``)
    /// of the rebuild the last ``score(settings:joinGapS:details:modeModel:featureLog:)`` left in the store: `side`
    /// `before` when the piece comes before its sibling, `separator` `visit` or `silence`, `visit_candidate` `no`,
    /// `kept` or `joined`.
    public func pieceRows(candidates: [PauseCandidate], rule: LabelledTimeScores.Rule = .init()) throws -> [String] {
        let trips = try store.trips().map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }.sorted { $0.startMs < $1.startMs }
        let visits = try store.visits().sorted { $0.startMs < $1.startMs }.map {
            LabelledTimeScores.VisitSpan(Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs), lat: $0.lat, lon: $0.lon)
        }
        let logged = candidates.map { (interval: Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs), joined: $0.joined) }
        let pieces = LabelledTimeScores.pieces(
            labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: trips, visits: visits, candidates: logged, rule: rule)
        return pieces.map { p in
            let visitS = p.visit.map { Double($0.interval.endMs - $0.interval.startMs) / 1000 } ?? 0
            return [
                name, String(p.trip.startMs), String(p.trip.endMs), String((p.trip.endMs - p.trip.startMs) / 1000), String(p.fixes),
                NumberText.fixed(p.extentM, decimals: 0), NumberText.fixed(p.inTruthShare, decimals: 3), String((p.truth.endMs - p.truth.startMs) / 1000),
                p.siblingAfter ? "before" : "after", p.siblingMatched ? "1" : "0", NumberText.fixed(p.gapS, decimals: 0),
                NumberText.fixed(p.gapM, decimals: 0), p.visit == nil ? "silence" : "visit", NumberText.fixed(visitS, decimals: 0),
                p.visit == nil ? "" : p.candidateJoined.map { $0 ? "joined" : "kept" } ?? "no", NumberText.fixed(p.visitApartM, decimals: 0),
                p.visit == nil ? "" : p.visitInLabel ? "1" : "0", String(p.sideFixes), NumberText.fixed(p.sideMedianS, decimals: 0),
                p.modeBefore, p.modeAfter,
            ].joined(separator: ",")
        }
    }
}
