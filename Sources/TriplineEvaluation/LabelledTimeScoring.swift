import TriplineCore

/// Trips and modes scored on the time the labels cover: the headline of `evaluate --geolife` (docs/PASSES.md,
/// "Scoring on labelled time").
///
/// Most GeoLife label files lost their `walk` rows upstream (`../shared/corpus/PROVENANCE.md`, section 4), so a
/// rebuilt "walk 6 min, bus 20 min, walk 8 min" is right where the label says only "bus", and a walk in unlabelled time
/// is no error. The rule, the same for Tripline, trackintel and the oracle:
///
/// 1. **Truth trips**: the labels as written (no clock shift), joined while less than `joinGapS` apart, each clipped
///    to the fixes inside it (first to last fix); a joined span with no fix inside is left out.
/// 2. **Rebuilt trips** are clipped to the truth trips' spans before matching: a trip overlapping truth trips becomes
///    the stretch from the first to the last instant it shares with them. A rebuilt trip with no part in labelled time
///    is ignored, unless all its fixes stay within `driftM` of its first fix: a trip that went nowhere is a false
///    positive wherever it lies.
/// 3. **Matching**: one to one by temporal intersection over union ≥ 0.5, so merges and fragments stay penalised (a
///    rebuilt trip spanning two truth trips can match at most one of them).
/// 4. **Modes**: observed labelled time only, the spans between consecutive fixes of a label at most `observedGapS`
///    apart, each weighed by its length and judged by the rebuilt leg at its first fix; three classes, foot / bicycle /
///    motorised. A span no leg covers, or whose leg's mode is `unknown`, is wrong.
/// 5. **Oracle ceiling**: a rebuild that knows the labels and outputs each truth trip's own fixes, cut only at silences
///    of `joinGapS` or more unless the straight-line pace across the silence is at least `oraclePaceMps`, scored by the
///    same rule.
public struct LabelledTimeScores: Sendable, Equatable {
    public var truthTrips = 0
    /// Rebuilt trips with a part in labelled time (clipped), and rebuilt trips outside it that went nowhere (drift).
    public var labelledFound = 0, driftFound = 0
    /// Rebuilt trips outside labelled time that moved: not scored.
    public var ignored = 0
    public var matched = 0
    /// Observed labelled seconds, and those whose rebuilt leg has the label's class.
    public var observedS = 0.0, rightS = 0.0
    /// The oracle's pieces and matches.
    public var oracleFound = 0, oracleMatched = 0
    /// The stop oracles', one per ``Rule/stopMinS``: the oracle's pieces cut again at every stop of at least that long
    /// a phone sees (``stopPieces``).
    public var stopOracleFound: [Int] = [], stopOracleMatched: [Int] = []
    /// Each stop oracle's shortest stop, in seconds (``Rule/stopMinS``).
    public var stopOracleMinS: [Double] = []
    /// Observed labelled seconds by the label's class and what became of them (issue 23, "where modes are lost"):
    /// `CLASS/right`; `CLASS/wrong` (the leg holds labelled time of this class only, yet says another class);
    /// `CLASS/mixed` (wrong, and the leg also holds at least a minute of another labelled class: a mode change inside
    /// one leg, cut at the wrong place or not at all); `CLASS/unknown` (the leg says `unknown`); `CLASS/none` (no leg).
    public var modeLosses: [String: Double] = [:]

    public init() {}

    public var found: Int { labelledFound + driftFound }
    public var precision: Double { Scoring.prf(matched: matched, truth: truthTrips, found: found).p }
    public var recall: Double { Scoring.prf(matched: matched, truth: truthTrips, found: found).r }
    public var f1: Double { Scoring.prf(matched: matched, truth: truthTrips, found: found).f1 }
    public var modeAccuracy: Double { observedS > 0 ? rightS / observedS : 0 }
    public var oracleF1: Double { Scoring.prf(matched: oracleMatched, truth: truthTrips, found: oracleFound).f1 }
    public var stopOracleF1: [Double] {
        zip(stopOracleMatched, stopOracleFound).map { Scoring.prf(matched: $0, truth: truthTrips, found: $1).f1 }
    }

    /// The rule's constants (see the type's comment).
    public struct Rule: Sendable {
        public var joinGapS: Double = 1800
        public var driftM: Double = 300
        public var observedGapS: Double = 300
        public var oraclePaceMps: Double = 5
        /// The stop oracles' stay points: within 200 m for at least 30 min (Li et al., 2008, GeoLife's own papers), and
        /// for at least 10 min (Tripline's visit minimum, `stays.min_duration_s`; reitti's and the simulator's too).
        public var stopRadiusM: Double = 200
        public var stopMinS: [Double] = [1800, 600]
        public init() {}
    }

    /// The GeoLife classes of a rebuilt mode: foot, bicycle, motorized, or nil (unknown: never right).
    static func coarse(_ mode: String) -> String? {
        guard let known = LegMode(rawValue: mode) else { return mode.isEmpty ? nil : LegMode.Coarse.motorized.rawValue }
        return known.coarse?.rawValue
    }

    /// Scores `trips` and `legs` (start, end, mode; sorted by start) against `labels` (any order) on the fixes.
    public static func score(
        labels: [CorpusReaders.Label], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], trips: [Scoring.Interval],
        legs: [(Int64, Int64, String)], rule: Rule = Rule()
    ) -> LabelledTimeScores {
        var s = LabelledTimeScores()
        let sortedLabels = labels.sorted { $0.startMs < $1.startMs }
        func firstFix(atOrAfter t: Int64) -> Int { lowerBound(fixTimes, t) }
        // 1. Truth trips: joined labels, clipped to their fixes.
        let (truth, truthFixes) = truthTrips(sortedLabels, fixTimes: fixTimes, rule: rule)
        s.truthTrips = truth.count
        // 2. Rebuilt trips clipped to labelled time, or kept as drift, or ignored.
        let clipped = clip(trips, to: truth, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule, scores: &s)
        // 3. Matching.
        s.matched = Scoring.match(truth: truth, found: clipped).count
        // 4. Modes on observed labelled time. Legs of one device do not overlap: the leg at `t` is the last one
        // starting at or before it, if it has not ended.
        let legStarts = legs.map(\.0)
        func legMode(at t: Int64) -> String? {
            let k = lowerBound(legStarts, t + 1) - 1
            guard k >= 0, legs[k].1 > t else { return nil }
            return legs[k].2
        }
        func legIndex(at t: Int64) -> Int? {
            let k = lowerBound(legStarts, t + 1) - 1
            return k >= 0 && legs[k].1 > t ? k : nil
        }
        // The observed spans: (label class, leg index or nil, seconds).
        var spans: [(String, Int?, Double)] = []
        var legClassS: [Int: [String: Double]] = [:]
        for label in sortedLabels {
            var i = firstFix(atOrAfter: label.startMs)
            while i + 1 < fixTimes.count && fixTimes[i + 1] <= label.endMs {
                let t = fixTimes[i], next = fixTimes[i + 1]
                i += 1
                let gap = Double(next - t) / 1000
                guard gap > 0, gap <= rule.observedGapS else { continue }
                s.observedS += gap
                if let mode = legMode(at: t), coarse(mode) == label.coarse { s.rightS += gap }
                let k = legIndex(at: t)
                if let k { legClassS[k, default: [:]][label.coarse, default: 0] += gap }
                spans.append((label.coarse, k, gap))
            }
        }
        for (cls, k, gap) in spans {
            let outcome: String
            if let k {
                let mode = coarse(legs[k].2)
                if mode == nil { outcome = "unknown" } else if mode == cls { outcome = "right" } else {
                    let other = (legClassS[k] ?? [:]).filter { $0.key != cls }.values.reduce(0, +)
                    outcome = other >= 60 ? "mixed" : "wrong"
                }
            } else {
                outcome = "none"
            }
            s.modeLosses[cls + "/" + outcome, default: 0] += gap
        }
        // 5. The oracle: each truth trip's fixes, cut at silences it cannot see through; and the stop oracle, which
        // also cuts them at the stops a phone sees (``stopPieces``).
        let silencePieces = truthFixes.flatMap { oraclePieces($0, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule) }
        func score(_ pieces: [Range<Int>]) -> (found: Int, matched: Int) {
            var oracle = LabelledTimeScores()
            let intervals = pieces.map { Scoring.Interval(startMs: fixTimes[$0.lowerBound], endMs: fixTimes[$0.upperBound - 1]) }
            let clipped = clip(intervals, to: truth, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule, scores: &oracle)
            return (oracle.found, Scoring.match(truth: truth, found: clipped).count)
        }
        (s.oracleFound, s.oracleMatched) = score(silencePieces)
        for minS in rule.stopMinS {
            let (found, matched) = score(silencePieces.flatMap { stopPieces($0, minS: minS, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule) })
            s.stopOracleFound.append(found)
            s.stopOracleMatched.append(matched)
            s.stopOracleMinS.append(minS)
        }
        return s
    }

    /// The oracle's pieces of one truth trip's fixes (`range`, at least one): cut at each silence of `joinGapS` or more
    /// whose straight-line pace is under `oraclePaceMps`; a piece of a single fix is dropped.
    static func oraclePieces(_ range: Range<Int>, fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], rule: Rule) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = range.lowerBound
        for i in range.dropFirst() {
            let gapS = Double(fixTimes[i] - fixTimes[i - 1]) / 1000
            guard gapS >= rule.joinGapS else { continue }
            let a = fixPositions[i - 1], b = fixPositions[i]
            if Geo.distance(a.lat, a.lon, b.lat, b.lon) >= rule.oraclePaceMps * gapS { continue }
            if i - 1 > start { pieces.append(start..<i) }
            start = i
        }
        if range.upperBound - 1 > start { pieces.append(start..<range.upperBound) }
        return pieces
    }

    /// One oracle piece (`range`) cut again at the stops inside it: the stay points of GeoLife's own papers (Li et al.,
    /// 2008: from a fix, the following fixes within `stopRadiusM` of it for at least `minS`). Each stop is left out
    /// from its first fix (the arrival) to its last (the departure); a piece of a single fix is dropped.
    static func stopPieces(_ range: Range<Int>, minS: Double, fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], rule: Rule) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = range.lowerBound, i = range.lowerBound
        while i < range.upperBound {
            var j = i + 1
            let a = fixPositions[i]
            while j < range.upperBound && Geo.distance(a.lat, a.lon, fixPositions[j].lat, fixPositions[j].lon) <= rule.stopRadiusM { j += 1 }
            if Double(fixTimes[j - 1] - fixTimes[i]) / 1000 >= minS {
                if i > start { pieces.append(start..<(i + 1)) }
                start = j - 1
                i = j
            } else {
                i += 1
            }
        }
        if range.upperBound - 1 > start { pieces.append(start..<range.upperBound) }
        return pieces
    }

    /// Truth trips (rule 1): `sortedLabels` joined while less than `joinGapS` apart, each clipped to its first and last
    /// fix, with the range of those fixes; a joined span with no fix is left out.
    static func truthTrips(_ sortedLabels: [CorpusReaders.Label], fixTimes: [Int64], rule: Rule) -> ([Scoring.Interval], [Range<Int>]) {
        var joined: [Scoring.Interval] = []
        for l in sortedLabels {
            if let last = joined.last, Double(l.startMs - last.endMs) < rule.joinGapS * 1000 {
                joined[joined.count - 1].endMs = max(last.endMs, l.endMs)
            } else {
                joined.append(Scoring.Interval(startMs: l.startMs, endMs: l.endMs))
            }
        }
        var truth: [Scoring.Interval] = []
        var truthFixes: [Range<Int>] = []
        for j in joined {
            let a = lowerBound(fixTimes, j.startMs), b = lowerBound(fixTimes, j.endMs + 1)
            guard a < b else { continue }
            truth.append(Scoring.Interval(startMs: fixTimes[a], endMs: fixTimes[b - 1]))
            truthFixes.append(a..<b)
        }
        return (truth, truthFixes)
    }

    /// How the rule judges each rebuilt trip (the training labels of ``TripCutModel``, `evaluate --dump-trip-cuts`).
    public enum Outcome: String, Sendable {
        /// Clipped to labelled time and matched one to one (IoU ≥ 0.5).
        case matched
        /// Clipped to labelled time but matched to nothing (a false positive).
        case unmatched
        /// Outside labelled time, all fixes within `driftM` of the first (a false positive).
        case drift
        /// Outside labelled time and moved: not scored (most are real walks the labels lost).
        case ignored
    }

    /// The outcome of each of `trips` (in their order) under the rule.
    public static func outcomes(
        labels: [CorpusReaders.Label], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], trips: [Scoring.Interval], rule: Rule = Rule()
    ) -> [Outcome] {
        let (truth, _) = truthTrips(labels.sorted { $0.startMs < $1.startMs }, fixTimes: fixTimes, rule: rule)
        var out: [Outcome] = []
        var kept: [Scoring.Interval] = []
        var keptIndex: [Int] = []
        for (k, trip) in trips.enumerated() {
            var s = LabelledTimeScores()
            let c = clip([trip], to: truth, fixTimes: fixTimes, fixPositions: fixPositions, rule: rule, scores: &s)
            out.append(s.driftFound > 0 ? .drift : s.ignored > 0 ? .ignored : .unmatched)
            if s.labelledFound > 0, let first = c.first {
                kept.append(first)
                keptIndex.append(k)
            }
        }
        for (_, f) in Scoring.match(truth: truth, found: kept) { out[keptIndex[f]] = .matched }
        return out
    }

    /// `trips` clipped to the `truth` spans they overlap; trips outside labelled time that went nowhere come back
    /// as they are (drift, false positives), the others are left out. Counts go to `scores`.
    static func clip(
        _ trips: [Scoring.Interval], to truth: [Scoring.Interval], fixTimes: [Int64], fixPositions: [(lat: Double, lon: Double)], rule: Rule,
        scores: inout LabelledTimeScores
    ) -> [Scoring.Interval] {
        var out: [Scoring.Interval] = []
        let starts = truth.map(\.startMs)
        for f in trips {
            var a = Int64.max, b = Int64.min
            // Truth trips are disjoint and sorted: those starting before f ends, back to the first that ends after f starts.
            var j = lowerBound(starts, f.endMs + 1) - 1
            while j >= 0 && truth[j].endMs >= f.startMs {
                let lo = max(f.startMs, truth[j].startMs), hi = min(f.endMs, truth[j].endMs)
                if lo < hi || (lo == hi && f.startMs == f.endMs) {
                    a = min(a, lo)
                    b = max(b, hi)
                }
                j -= 1
            }
            if a <= b {
                out.append(Scoring.Interval(startMs: a, endMs: b))
                scores.labelledFound += 1
                continue
            }
            // Outside labelled time: a false positive only when it went nowhere.
            let i0 = lowerBound(fixTimes, f.startMs), i1 = lowerBound(fixTimes, f.endMs + 1)
            var nowhere = i0 < i1
            if nowhere {
                let first = fixPositions[i0]
                for i in i0..<i1 where Geo.distance(first.lat, first.lon, fixPositions[i].lat, fixPositions[i].lon) > rule.driftM {
                    nowhere = false
                    break
                }
            }
            if nowhere {
                out.append(f)
                scores.driftFound += 1
            } else {
                scores.ignored += 1
            }
        }
        return out
    }

    /// Counts summed over users, then the ratios.
    public static func pooled(_ users: [LabelledTimeScores]) -> LabelledTimeScores {
        var s = LabelledTimeScores()
        for u in users {
            s.truthTrips += u.truthTrips
            s.labelledFound += u.labelledFound
            s.driftFound += u.driftFound
            s.ignored += u.ignored
            s.matched += u.matched
            s.observedS += u.observedS
            s.rightS += u.rightS
            s.oracleFound += u.oracleFound
            s.oracleMatched += u.oracleMatched
            for (k, found) in u.stopOracleFound.enumerated() {
                if s.stopOracleFound.count <= k {
                    s.stopOracleFound.append(0)
                    s.stopOracleMatched.append(0)
                    s.stopOracleMinS.append(u.stopOracleMinS[k])
                }
                s.stopOracleFound[k] += found
                s.stopOracleMatched[k] += u.stopOracleMatched[k]
            }
            for (k, v) in u.modeLosses { s.modeLosses[k, default: 0] += v }
        }
        return s
    }

    /// One line: trip P/R/F1 with the counts, the oracle, and the 3-class accuracy on observed time.
    public var line: String {
        func f(_ v: Double) -> String { NumberText.fixed(v, decimals: 3) }
        return "labelled-time trips: truth \(truthTrips), rebuilt \(found) (\(driftFound) drift), matched \(matched): "
            + "P \(f(precision)) R \(f(recall)) F1 \(f(f1)); oracle F1 \(f(oracleF1)) (\(f(oracleF1 > 0 ? f1 / oracleF1 : 0)) of it); "
            + stopOracleText
            + "3-class on observed time \(f(modeAccuracy)) (\(Int(observedS / 60)) min)"
    }

    /// The stop oracles' F1, each with the share of it reached: `stop oracle ≥ 30 min F1 0.891 (0.905 of it); …`.
    var stopOracleText: String {
        func f(_ v: Double) -> String { NumberText.fixed(v, decimals: 3) }
        return zip(stopOracleMinS, stopOracleF1).map { minS, oracle in
            "stop oracle ≥ \(Int(minS / 60)) min F1 \(f(oracle)) (\(f(oracle > 0 ? f1 / oracle : 0)) of it); "
        }.joined()
    }

    /// One line: ``modeLosses`` in minutes.
    public var lossLine: String {
        modeLosses.sorted { $0.key < $1.key }.map { "\($0.key) \(Int(($0.value / 60).rounded()))" }.joined(separator: "; ")
    }
}
