import Testing
@testable import TriplineEvaluation

/// The labelled-time rule of `evaluate --geolife` (``LabelledTimeScores``), case by case on hand-built tracks.
@Suite struct LabelledTimeScoringTests {
    let minute: Int64 = 60_000

    /// A track: fixes every `step` seconds over `[a, b]` minutes, moving east at `mps` (0: standing still), from `lon0`.
    struct Track {
        var times: [Int64] = []
        var positions: [(lat: Double, lon: Double)] = []
        mutating func add(_ a: Int64, _ b: Int64, every step: Int64 = 30, mps: Double, from lon0: Double? = nil) {
            let minute: Int64 = 60_000
            var lon = lon0 ?? positions.last?.lon ?? 116.3
            var t = a * minute
            var first = true  // the first fix of a stretch stands where the last one ended (a silence moves nothing)
            while t <= b * minute {
                if let last = times.last, t <= last { t += step * 1000; continue }
                if let last = times.last, !first { lon += mps * Double(t - last) / 1000 / 85_000 }  // ~85 km a degree at 40° N
                first = false
                times.append(t)
                positions.append((40.0, lon))
                t += step * 1000
            }
        }
    }

    func label(_ a: Int64, _ b: Int64, _ mode: String) -> CorpusReaders.Label {
        CorpusReaders.Label(startMs: a * minute, endMs: b * minute, mode: mode)
    }

    func trip(_ a: Int64, _ b: Int64) -> Scoring.Interval { Scoring.Interval(startMs: a * minute, endMs: b * minute) }

    /// Walk 10 min, bus 30 min, walk 10 min, labelled "bus" only (walk rows deleted upstream): the rebuilt trip with its
    /// walks is clipped to the label and matches; its walks cost nothing, and its bus leg is right on observed time.
    @Test func unlabelledWalksAtTheEndsCostNothing() {
        var track = Track()
        track.add(0, 10, mps: 1.4)
        track.add(10, 40, mps: 8)
        track.add(40, 50, mps: 1.4)
        let legs: [(Int64, Int64, String)] = [(0, 10 * minute, "walk"), (10 * minute, 40 * minute, "bus"), (40 * minute, 50 * minute, "walk")]
        let s = LabelledTimeScores.score(
            labels: [label(10, 40, "bus")], fixTimes: track.times, fixPositions: track.positions, trips: [trip(0, 50)], legs: legs)
        #expect(s.truthTrips == 1 && s.found == 1 && s.matched == 1)
        #expect(s.f1 == 1)
        #expect(s.modeAccuracy == 1)
        #expect(s.observedS == 30 * 60)
        // Strictly, the same trip against the label alone would have IoU 30/50 and still match; with 30 min of walks
        // around it, it would not: clipping is what makes it right.
        var long = Track()
        long.add(0, 30, mps: 1.4)
        long.add(30, 50, mps: 8)
        long.add(50, 80, mps: 1.4)
        let clipped = LabelledTimeScores.score(
            labels: [label(30, 50, "bus")], fixTimes: long.times, fixPositions: long.positions, trips: [trip(0, 80)], legs: [])
        #expect(clipped.matched == 1)
        #expect(Scoring.match(truth: [trip(30, 50)], found: [trip(0, 80)]).isEmpty)
    }

    /// Outside labelled time, a trip that moved is not scored (a real walk the labels lost); one that stayed within
    /// 300 m of its first fix is drift, a false positive.
    @Test func tripsOutsideLabelledTimeAreIgnoredUnlessTheyWentNowhere() {
        var track = Track()
        track.add(0, 20, mps: 8)  // the labelled trip
        track.add(100, 130, mps: 1.5)  // a 2.7-km walk, unlabelled
        track.add(200, 210, mps: 0.3)  // 180 m of drift at a stay
        let s = LabelledTimeScores.score(
            labels: [label(0, 20, "car")], fixTimes: track.times, fixPositions: track.positions,
            trips: [trip(0, 20), trip(100, 130), trip(200, 210)], legs: [])
        #expect(s.labelledFound == 1 && s.ignored == 1 && s.driftFound == 1)
        #expect(s.matched == 1)
        #expect(s.precision == 0.5 && s.recall == 1)
    }

    /// Each rebuilt trip's outcome, the training label of the drift-or-walk model: matched, unmatched in labelled time,
    /// drift outside it, or ignored (moved, unlabelled); a second trip clipped to the same truth trip is unmatched.
    @Test func outcomesJudgeEachTrip() {
        var track = Track()
        track.add(0, 20, mps: 8)
        track.add(100, 130, mps: 1.5)
        track.add(200, 210, mps: 0.3)
        let outcomes = LabelledTimeScores.outcomes(
            labels: [label(0, 20, "car")], fixTimes: track.times, fixPositions: track.positions,
            trips: [trip(0, 18), trip(18, 20), trip(100, 130), trip(200, 210)])
        #expect(outcomes == [.matched, .unmatched, .ignored, .drift])
    }

    /// A rebuilt trip spanning two labelled trips (40 min apart) matches at most one of them: merges stay penalised.
    @Test func aMergeMatchesOneTruthTrip() {
        var track = Track()
        track.add(0, 30, mps: 8)
        track.add(30, 70, mps: 0)
        track.add(70, 100, mps: 8)
        let s = LabelledTimeScores.score(
            labels: [label(0, 30, "bus"), label(70, 100, "bus")], fixTimes: track.times, fixPositions: track.positions,
            trips: [trip(0, 100)], legs: [])
        #expect(s.truthTrips == 2 && s.found == 1 && s.matched <= 1)
        #expect(s.recall <= 0.5)
    }

    /// Labels less than 30 min apart are one truth trip, clipped to the fixes inside it; a label with no fix is left out.
    @Test func truthIsJoinedLabelsClippedToTheirFixes() {
        var track = Track()
        track.add(5, 25, mps: 8)
        track.add(40, 55, mps: 8)
        let s = LabelledTimeScores.score(
            labels: [label(0, 25, "bus"), label(40, 60, "subway"), label(500, 520, "car")], fixTimes: track.times,
            fixPositions: track.positions, trips: [trip(5, 55)], legs: [])
        #expect(s.truthTrips == 1)
        #expect(s.matched == 1, "the truth is 5–55 min, the fixes' span, not the labels' 0–60")
    }

    /// Modes: only spans between fixes at most 5 min apart count; an `unknown` leg or no leg is wrong.
    @Test func modesOnObservedTimeOnly() {
        var track = Track()
        track.add(0, 20, every: 60, mps: 5)
        track.add(40, 60, every: 60, mps: 5)  // a 20-min silence in the label: not observed
        let legs: [(Int64, Int64, String)] = [(0, 20 * minute, "cycle"), (40 * minute, 50 * minute, "unknown")]
        let s = LabelledTimeScores.score(
            labels: [label(0, 60, "bike")], fixTimes: track.times, fixPositions: track.positions, trips: [trip(0, 60)], legs: legs)
        #expect(s.observedS == 40 * 60)
        #expect(s.rightS == 20 * 60, "the cycle leg is right; the unknown leg and the span with no leg are not")
        #expect(LabelledTimeScores.coarse("unknown") == nil && LabelledTimeScores.coarse("bus") == "motorized")
    }

    /// The oracle cuts a truth trip at a silence of 30 min or more unless the pace across it is at least 5 m/s.
    @Test func theOracleCutsAtSilencesItCannotSeeThrough() {
        var slow = Track()
        slow.add(0, 10, mps: 8)
        slow.add(50, 60, mps: 8)  // 40 min of silence, moving little: two pieces, each under half the trip
        let cut = LabelledTimeScores.score(
            labels: [label(0, 60, "car")], fixTimes: slow.times, fixPositions: slow.positions, trips: [], legs: [])
        #expect(cut.oracleFound == 2 && cut.oracleMatched == 0)
        var fast = Track()
        fast.add(0, 10, mps: 8)
        fast.add(50, 60, mps: 8, from: 116.3 + 40 * 60 * 8.0 / 85_000 + 0.06)  // the silence crossed at > 5 m/s
        let through = LabelledTimeScores.score(
            labels: [label(0, 60, "train")], fixTimes: fast.times, fixPositions: fast.positions, trips: [], legs: [])
        #expect(through.oracleFound == 1 && through.oracleMatched == 1)
        #expect(through.oracleF1 == 1)
    }

    /// The stop oracles cut a truth trip where it stood within 200 m for at least their stop length (30 min, then 10
    /// min): a 20-min stop with fixes all through cuts only the 10-min oracle's trip; a 40-min stop cuts both; a crawl
    /// (1 m/s for 20 min: 1.2 km) cuts neither. The oracle itself cuts none of them (no silence).
    @Test func theStopOraclesCutAtStops() {
        func scored(stopMinutes: Int64, mps: Double) -> LabelledTimeScores {
            var track = Track()
            track.add(0, 20, mps: 8)
            track.add(20, 20 + stopMinutes, mps: mps)
            track.add(20 + stopMinutes, 40 + stopMinutes, mps: 8)
            return LabelledTimeScores.score(
                labels: [label(0, 40 + stopMinutes, "bus")], fixTimes: track.times, fixPositions: track.positions, trips: [], legs: [])
        }
        let short = scored(stopMinutes: 20, mps: 0)
        #expect(short.stopOracleMinS == [1800, 600])
        #expect(short.oracleFound == 1 && short.oracleMatched == 1)
        #expect(short.stopOracleFound == [1, 2] && short.stopOracleMatched == [1, 0], "two 20-min pieces of a 60-min trip: neither reaches IoU 0.5")
        let long = scored(stopMinutes: 40, mps: 0)
        #expect(long.oracleFound == 1 && long.stopOracleFound == [2, 2] && long.stopOracleMatched == [0, 0])
        let crawl = scored(stopMinutes: 20, mps: 1)
        #expect(crawl.stopOracleFound == [1, 1] && crawl.stopOracleMatched == [1, 1])
        #expect(crawl.stopOracleF1 == [1, 1])
        let pooled = LabelledTimeScores.pooled([short, long, crawl])
        #expect(pooled.stopOracleFound == [4, 5] && pooled.stopOracleMatched == [2, 1] && pooled.stopOracleMinS == [1800, 600])
    }

    /// Pooling sums counts and seconds before the ratios.
    @Test func poolingSumsCounts() {
        var a = LabelledTimeScores(), b = LabelledTimeScores()
        a.truthTrips = 2; a.labelledFound = 2; a.matched = 2; a.observedS = 100; a.rightS = 100
        b.truthTrips = 2; b.labelledFound = 1; b.driftFound = 1; b.matched = 0; b.observedS = 300; b.rightS = 0
        let p = LabelledTimeScores.pooled([a, b])
        #expect(p.truthTrips == 4 && p.found == 4 && p.matched == 2)
        #expect(p.f1 == 0.5 && p.modeAccuracy == 0.25)
    }

    /// Where observed labelled minutes go (``LabelledTimeScores/modeLosses``): right; wrong in a leg of one labelled
    /// class; wrong in a leg that also holds another labelled class (a mode change inside the leg); no leg; `unknown`.
    @Test func lostMinutesAreSortedByWhatLostThem() {
        var track = Track()
        track.add(0, 70, mps: 8)
        let legs: [(Int64, Int64, String)] = [
            (0, 30 * minute, "cycle"),  // the ride, and 10 min of the bus after it: not cut where the bus begins
            (30 * minute, 40 * minute, "car"),
            (50 * minute, 60 * minute, "unknown"),
            (60 * minute, 70 * minute, "car"),  // a walk called a car: the leg holds foot time only
        ]
        let labels = [label(0, 20, "bike"), label(20, 40, "bus"), label(45, 60, "bus"), label(60, 70, "walk")]
        let s = LabelledTimeScores.score(labels: labels, fixTimes: track.times, fixPositions: track.positions, trips: [trip(0, 70)], legs: legs)
        #expect(s.modeLosses == [
            "bicycle/right": 1200, "motorized/mixed": 600, "motorized/right": 600, "motorized/none": 300,
            "motorized/unknown": 600, "foot/wrong": 600,
        ])
        #expect(s.modeLosses.values.reduce(0, +) == s.observedS)
        #expect(s.modeLosses.filter { $0.key.hasSuffix("/right") }.values.reduce(0, +) == s.rightS)
        let pooled = LabelledTimeScores.pooled([s, s])
        #expect(pooled.modeLosses["motorized/mixed"] == 1200)
        #expect(s.lossLine.hasPrefix("bicycle/right 20; foot/wrong 10; motorized/mixed 10;"))
    }
}
