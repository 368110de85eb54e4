import Testing
@testable import Tripline

/// The rebuild scored against the truth of the simulator's hard sampling profiles (docs/SIMULATOR.md, "Sampling
/// profiles"): OwnTracks in significant-changes / move mode with region events, Overland with iOS pauses and visits,
/// phones that die, far-off cell and wifi fixes, long bus stops and slow traffic.
///
/// **Seeds.** The evidence and paths passes and their defaults were developed on seeds 1–5 (7 days, 2 people) of
/// each profile. The seeds scored here, 101–110, were never used for that: they were first run with the defaults
/// already fixed, and the thresholds below were set then. Targets of issue 10 are asserted where they were met on
/// these held-out seeds; where not, the threshold is the held-out figure less a margin, and the target is noted.
@Suite struct ProfileScoredTests {
    static let heldOutSeeds: [UInt64] = Array(101...110)
    static let days = 4

    struct Pooled {
        var truthTrips = 0, foundTrips = 0, matchedTrips = 0
        var truthVisits = 0, foundVisits = 0, matchedVisits = 0
        var tripErrors: [Double] = [], dayErrors: [Double] = []
        var tripF1: Double { Scoring.prf(matched: matchedTrips, truth: truthTrips, found: foundTrips).f1 }
        var visitF1: Double { Scoring.prf(matched: matchedVisits, truth: truthVisits, found: foundVisits).f1 }
        var medianTripError: Double { Scoring.quantile(tripErrors, 0.5) }
        var medianDayError: Double { Scoring.quantile(dayErrors, 0.5) }
    }

    static func score(_ profile: SimulationProfile, seed: UInt64) throws -> SimulationScores {
        var config = SimulatorConfig(seed: seed, days: days, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        let store = try Store(path: try temporaryDirectory() + "/profile.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try rebuild(store, timezone: "Europe/Berlin")
        return try SimulationEvaluation.score(result.truth, store: store)
    }

    static func pooled(_ profile: SimulationProfile) throws -> Pooled {
        var p = Pooled()
        for seed in heldOutSeeds {
            let s = try score(profile, seed: seed)
            print("\(profile.rawValue) seed \(seed): trip F1 \(format2(s.tripF1)), visit F1 \(format2(s.visitF1)), trip distance median \(format2(s.medianTripDistanceError * 100)) %, daily median \(format2(s.medianDailyDistanceError * 100)) %")
            p.truthTrips += s.truthTrips; p.foundTrips += s.foundTrips; p.matchedTrips += s.matchedTrips
            p.truthVisits += s.truthVisits; p.foundVisits += s.foundVisits; p.matchedVisits += s.matchedVisits
            p.tripErrors += s.tripDistanceErrors
            p.dayErrors += s.dailyDistanceErrors
        }
        print("\(profile.rawValue) pooled over seeds 101–110 (\(days) days, 2 people each): trip F1 \(format2(p.tripF1)) (\(p.matchedTrips)/\(p.truthTrips) true, \(p.foundTrips) rebuilt), visit F1 \(format2(p.visitF1)), trip distance median \(format2(p.medianTripError * 100)) %, daily median \(format2(p.medianDayError * 100)) %")
        return p
    }

    @Test(arguments: [SimulationProfile.sparseOwnTracks, .denseOverland, .mixed])
    func heldOutScores(profile: SimulationProfile) throws {
        let p = try Self.pooled(profile)
        switch profile {
        case .sparseOwnTracks:
            // Targets: trip F1 ≥ 0.90, visit F1 ≥ 0.90, daily distance error median ≤ 10 %.
            #expect(p.tripF1 >= 0.90)
            #expect(p.visitF1 >= 0.90)
            #expect(p.medianDayError <= 0.10)
        case .denseOverland:
            // Targets: trip and visit F1 ≥ 0.98, trip distance error median ≤ 1.5 %.
            #expect(p.tripF1 >= 0.98)
            #expect(p.visitF1 >= 0.98)
            #expect(p.medianTripError <= 0.015)
        default:
            #expect(p.tripF1 >= 0.90)
            #expect(p.visitF1 >= 0.90)
            #expect(p.medianDayError <= 0.10)
        }
    }
}
