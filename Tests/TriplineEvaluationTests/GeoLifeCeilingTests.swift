import Testing
@testable import TriplineEvaluation

/// The GeoLife ceiling (`ceilF1`): an oracle that knows every label but cuts each true trip's fixes at silences of
/// 30 min or more (unless the traveller plainly moved through one), scored like a rebuild.
@Suite struct GeoLifeCeilingTests {
    let minute: Int64 = 60_000

    /// Fixes every `step` minutes from `a` to `b` (minutes).
    func fixes(_ a: Int64, _ b: Int64, every step: Int64 = 1) -> [Int64] {
        stride(from: a, through: b, by: Int(step)).map { $0 * minute }
    }

    /// A 12-h "car" label over a morning drive, eleven hours with the phone off and an evening drive: the oracle's two
    /// pieces each cover less than half of it, so even the oracle misses it (and counts two spurious trips). A label
    /// whose fixes cover it is matched.
    @Test func workdayLabelIsBeyondAnyRebuild() {
        let day = CorpusReaders.Label(startMs: 0, endMs: 720 * minute, mode: "car")
        let ride = CorpusReaders.Label(startMs: 1000 * minute, endMs: 1040 * minute, mode: "bus")
        let times = fixes(0, 60) + fixes(660, 720) + fixes(1000, 1040)
        let truth = [Scoring.Interval(startMs: day.startMs, endMs: day.endMs), Scoring.Interval(startMs: ride.startMs, endMs: ride.endMs)]
        let s = RealDataEvaluation.GeoLifeScores.score(
            truth: truth, found: [], labels: [day, ride], legs: [], fixTimes: times, details: false)
        #expect(s.ceilingFound == 3)
        #expect(s.ceilingMatched == 1)
        #expect(abs(s.ceilingTripF1 - 2.0 / 5.0) < 1e-9)  // 2·1 / (2 + 3)
    }

    /// A 40-min silence that the traveller plainly moved through (its ends 30 km apart: 12.5 m/s, above
    /// `trips.travel_min_mps`) does not cut the oracle's trip, as it does not cut the rebuild's; the same silence
    /// standing still does.
    @Test func silenceCrossedAtVehiclePaceStaysInside() {
        let label = CorpusReaders.Label(startMs: 0, endMs: 100 * minute, mode: "train")
        let times = fixes(0, 30) + fixes(70, 100)
        for (metres, pieces) in [(30_000.0, 1), (0.0, 2)] {
            let positions = times.map { t in (lat: 39.9 + (t >= 70 * minute ? metres / 111_195 : 0), lon: 116.4) }
            let s = RealDataEvaluation.GeoLifeScores.score(
                truth: [Scoring.Interval(startMs: 0, endMs: 100 * minute)], found: [], labels: [label], legs: [], fixTimes: times,
                fixPositions: positions, travelMinMps: 5, details: false)
            #expect(s.ceilingFound == pieces, "\(metres) m")
            #expect(s.ceilingMatched == 2 - pieces, "\(metres) m")
        }
    }

    /// A silence shorter than 30 min (a tunnel) does not cut the oracle's trip.
    @Test func shortSilenceStaysInside() {
        let label = CorpusReaders.Label(startMs: 0, endMs: 60 * minute, mode: "subway")
        let times = fixes(0, 20) + fixes(45, 60)
        let s = RealDataEvaluation.GeoLifeScores.score(
            truth: [Scoring.Interval(startMs: 0, endMs: 60 * minute)], found: [], labels: [label], legs: [], fixTimes: times, details: false)
        #expect(s.ceilingFound == 1)
        #expect(s.ceilingMatched == 1)
        #expect(s.ceilingTripF1 == 1)
    }
}
