import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineSimulator
@testable import TriplineEvaluation
import TriplineTestSupport

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

    static func pooled(_ profile: SimulationProfile) throws -> PooledScores {
        var pooled = PooledScores()
        for seed in heldOutSeeds {
            var config = SimulatorConfig(seed: seed, days: days, people: 2)
            config.profile = profile
            let path = try temporaryDirectory() + "/profile.sqlite"
            let s = try PooledScores.run(config, path: path)
            // Whatever the evidence did, the rebuild stays consistent: no stay or trip ends before it starts, and no two
            // stays of a device overlap.
            let store = try Store(path: path, create: false)
            #expect(try store.db.scalarInt("SELECT count(*) FROM trips WHERE end_ms < start_ms") == 0)
            #expect(try store.db.scalarInt("SELECT count(*) FROM stays WHERE end_ms < start_ms") == 0)
            #expect(try store.db.scalarInt(
                "SELECT count(*) FROM stays a JOIN stays b ON a.device_id = b.device_id AND a.id < b.id AND a.start_ms < b.end_ms AND b.start_ms < a.end_ms") == 0)
            print("\(profile.rawValue) seed \(seed): trip F1 \(NumberText.fixed(s.tripF1, decimals: 2)), visit F1 \(NumberText.fixed(s.visitF1, decimals: 2)), trip distance median \(NumberText.fixed(s.medianTripDistanceError * 100, decimals: 2)) %, daily median \(NumberText.fixed(s.medianDailyDistanceError * 100, decimals: 2)) %")
            pooled.add(s)
        }
        print("\(profile.rawValue) pooled over seeds 101–110 (\(days) days, 2 people each): " + pooled.line)
        return pooled
    }

    @Test(arguments: [SimulationProfile.sparseOwnTracks, .denseOverland, .mixed])
    func heldOutScores(profile: SimulationProfile) throws {
        let p = try Self.pooled(profile)
        switch profile {
        case .sparseOwnTracks:
            // Targets met on the held-out seeds (measured 2026-12-01: trip F1 0.93 (281 of 307, 295 rebuilt),
            // visit F1 0.94 (309 of 327, 329), daily distance median 3.04 %): asserted as the targets.
            #expect(p.tripF1 >= 0.90)
            #expect(p.visitF1 >= 0.90)
            #expect(p.medianDailyDistanceError <= 0.10)
        case .denseOverland:
            // Targets: trip and visit F1 ≥ 0.98 — NOT met: measured 0.96 (292 of 307, 301 rebuilt) and 0.97 (313 of
            // 327, 321). Of the 15 missed trips 4 and of the 14 missed visits 6 are within 30 min of a dead phone;
            // the others are short walks (280–700 m) that an iOS pause region (100–250 m) swallows, and car and
            // bicycle trips whose start after a pause is misjudged. Thresholds: the measured figures less 0.02.
            // Trip distance error median ≤ 1.5 %: met (measured 0.74 %).
            #expect(p.tripF1 >= 0.94)
            #expect(p.visitF1 >= 0.95)
            #expect(p.medianTripDistanceError <= 0.015)
        default:
            // Mixed (no target of its own): measured trip F1 0.95, visit F1 0.94, daily distance median 2.22 %.
            // Thresholds: the measured figures less a margin.
            #expect(p.tripF1 >= 0.92)
            #expect(p.visitF1 >= 0.91)
            #expect(p.medianDailyDistanceError <= 0.05)
        }
    }
}
