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
}
