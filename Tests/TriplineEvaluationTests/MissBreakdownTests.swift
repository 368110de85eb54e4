import Testing
@testable import TriplineEvaluation

/// Where the labelled-time rule's misses come from (``LabelledTimeScores/breakdown(labels:fixTimes:fixPositions:trips:visits:rule:)``,
/// the line `misses by kind, pooled` of `evaluate --geolife`), on hand-built tracks.
@Suite struct MissBreakdownTests {
    let minute: Int64 = 60_000

    func trip(_ a: Int64, _ b: Int64) -> Scoring.Interval { Scoring.Interval(startMs: a * minute, endMs: b * minute) }
    func label(_ a: Int64, _ b: Int64, _ mode: String) -> CorpusReaders.Label {
        CorpusReaders.Label(startMs: a * minute, endMs: b * minute, mode: mode)
    }

    /// Fixes every 30 s over `[a, b]` minutes, moving east at `mps` from where the last ended.
    func fixes(_ spans: [(Int64, Int64, Double)]) -> ([Int64], [(lat: Double, lon: Double)]) {
        var times: [Int64] = [], positions: [(lat: Double, lon: Double)] = []
        var lon = 116.3
        for (a, b, mps) in spans {
            var t = a * minute
            while t <= b * minute {
                if let last = times.last, t <= last { t += 30_000; continue }
                if let last = times.last { lon += mps * Double(t - last) / 1000 / 85_000 }
                times.append(t)
                positions.append((40.0, lon))
                t += 30_000
            }
        }
        return (times, positions)
    }

    /// A bus ride 0–60 labelled as one trip, rebuilt as two trips cut by a 15-min stay (20–35): the truth trip is
    /// "cut at a stay", both rebuilt trips are pieces. A second labelled ride 100–130 (bus, then after a 10-min stay
    /// a subway) rebuilt in two around a visit is "cut at a stay at a mode change"; a third, 200–230, rebuilt in two
    /// with no visit between (a silence) is "cut at a silence"; a fourth, 300–330, rebuilt whole, matches.
    @Test func countsEachMissByKind() {
        let (times, positions) = fixes([(0, 20, 8), (20, 35, 0), (35, 60, 8), (100, 115, 8), (115, 125, 0), (125, 140, 8),
                                        (200, 212, 8), (220, 230, 8), (300, 330, 8)])
        let labels = [label(0, 60, "bus"), label(100, 115, "bus"), label(125, 140, "subway"), label(200, 230, "bus"), label(300, 330, "bus")]
        let trips = [trip(0, 20), trip(35, 60), trip(100, 115), trip(125, 140), trip(200, 212), trip(220, 230), trip(300, 330)]
        let visits = [trip(20, 35), trip(115, 125)]
        let b = LabelledTimeScores.breakdown(labels: labels, fixTimes: times, fixPositions: positions, trips: trips, visits: visits)
        #expect(b["truth: cut at a stay"] == 1)
        #expect(b["truth: cut at a stay at a mode change"] == 1)
        #expect(b["truth: cut at a silence"] == 1)
        #expect(b["rebuilt: piece"] == 6)
        #expect(b.values.reduce(0, +) == 9)  // the fourth ride matched: no miss
    }

    /// The same rides, piece by piece (``LabelledTimeScores/pieces(labels:fixTimes:fixPositions:trips:visits:candidates:rule:)``,
    /// `evaluate --dump-pieces`): what separates each piece from its sibling. The first ride's two pieces lie either
    /// side of a 15-min visit inside the bus label that the stop-or-traffic decision saw and kept; the second's of a
    /// 10-min visit in the gap between the bus and the subway labels, no candidate; the third's of an 8-min silence
    /// crossed at 8 m/s.
    @Test func saysWhatSeparatesEachPiece() {
        let (times, positions) = fixes([(0, 20, 8), (20, 35, 0), (35, 60, 8), (100, 115, 8), (115, 125, 0), (125, 140, 8),
                                        (200, 212, 8), (220, 230, 8), (300, 330, 8)])
        let labels = [label(0, 60, "bus"), label(100, 115, "bus"), label(125, 140, "subway"), label(200, 230, "bus"), label(300, 330, "bus")]
        let trips = [trip(0, 20), trip(35, 60), trip(100, 115), trip(125, 140), trip(200, 212), trip(220, 230), trip(300, 330)]
        let visits = [LabelledTimeScores.VisitSpan(trip(20, 35), lat: 40, lon: 116.31), LabelledTimeScores.VisitSpan(trip(115, 125), lat: 40, lon: 116.35)]
        let p = LabelledTimeScores.pieces(labels: labels, fixTimes: times, fixPositions: positions, trips: trips, visits: visits,
                                          candidates: [(interval: trip(20, 35), joined: false)])
        #expect(p.map(\.trip) == Array(trips.prefix(6)))
        guard p.count == 6 else { return }
        #expect(p[0].siblingAfter && !p[1].siblingAfter)
        #expect(p[0].visit == visits[0] && p[1].visit == visits[0])
        #expect(p[0].candidateJoined == false && p[0].visitInLabel && p[0].gapS == 900)
        #expect(p[0].modeBefore == "bus" && p[0].modeAfter == "bus")
        #expect(p[0].visitApartM == -1)  // the first visit: no visit before it
        #expect(p[2].visit == visits[1] && p[2].candidateJoined == nil && !p[2].visitInLabel)
        #expect(p[2].modeBefore == "bus" && p[2].modeAfter == "subway")
        #expect(p[4].visit == nil && p[4].gapS == 480)
        #expect(p[4].gapM > 3700 && p[4].gapM < 3950)  // 8 m/s for 8 min
        #expect(p[4].extentM > 5500 && p[4].extentM < 5900)  // 12 min at 8 m/s
        #expect(p[4].inTruthShare == 1 && p[4].truth == trip(200, 230))
    }
    /// Each false positive by kind (``LabelledTimeScores/falsePositives(labels:fixTimes:fixPositions:trips:rule:)``,
    /// `evaluate --dump-false-positives`): a ride 0–60 rebuilt in two (pieces); one rebuilt trip over two labelled rides
    /// 100–130 and 200–230 (a merge); a ride 300–330 rebuilt whole (matched); 10 min at 0.3 m/s outside labelled time
    /// (drift: never 300 m from its first fix); 20 min at 8 m/s outside labelled time (moved: not scored); a ride
    /// 600–660 rebuilt as its first 20 min only (IoU 1/3).
    @Test func namesEachFalsePositive() {
        let (times, positions) = fixes([(0, 20, 8), (35, 60, 8), (100, 130, 8), (200, 230, 8), (300, 330, 8), (400, 410, 0.3),
                                        (500, 520, 8), (600, 660, 8)])
        let labels = [label(0, 60, "bus"), label(100, 130, "bus"), label(200, 230, "bus"), label(300, 330, "bus"), label(600, 660, "car")]
        let trips = [trip(0, 20), trip(35, 60), trip(100, 230), trip(300, 330), trip(400, 410), trip(500, 520), trip(600, 620)]
        let kinds = LabelledTimeScores.falsePositives(labels: labels, fixTimes: times, fixPositions: positions, trips: trips)
        #expect(kinds == [.piece, .piece, .merge, nil, .drift, nil, .iou])
        let b = LabelledTimeScores.breakdown(labels: labels, fixTimes: times, fixPositions: positions, trips: trips, visits: [])
        #expect(b["rebuilt: piece"] == 2 && b["rebuilt: merge"] == 1 && b["rebuilt: drift"] == 1)
        #expect(b["rebuilt: one trip, IoU < 0.5"] == 1 && b["rebuilt: outside labelled time (not scored)"] == 1)
    }
}
