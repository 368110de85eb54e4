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
/// **Seeds.** The evidence and paths passes and their defaults were developed on seeds 1–5 (7 days, 2 people) and
/// 1–20 (4 days) of each profile. The seeds scored here, 101–110, were never used for that: they were run with the
/// defaults already fixed (once per round), and the thresholds below were set then. Targets of issue 10 are asserted where they were met on
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
        print("\(profile.rawValue) " + pooled.hiddenLine + "; " + pooled.modeLine)
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
            // Targets: trip and visit F1 ≥ 0.98 — NOT met: measured 2026-12-01 (second round: vehicle-pace silences
            // no longer split trips, resumes without a pause, arrivals a dead phone hid, still-fix wifi jumps flagged,
            // errands within an hour, travel at least at walking pace; docs/PASSES.md) 0.979 (297 of 307, 300 rebuilt)
            // and 0.978 (317 of 327, 321); first round 0.969 / 0.975.
            // Nothing at all was recorded during 1 of the true trips and 7 of the true visits (`hidden`: a dead phone,
            // an app killed and not relaunched), which caps F1 at 0.998 / 0.989 (`Observability`); the other misses
            // on the development seeds are trips whose phone died on the way and trips no fix saw whose time the
            // device's pace misjudges (held-out misses were not inspected, so as not to tune on them).
            // Thresholds: the measured figures less about 0.015. Trip distance error median ≤ 1.5 %: met (0.76 %).
            #expect(p.tripF1 >= 0.96)
            #expect(p.visitF1 >= 0.965)
            #expect(p.medianTripDistanceError <= 0.015)
        default:
            // Mixed (no target of its own): measured 2026-12-01 trip F1 0.956 (291 of 307, 302), visit F1 0.953
            // (312 of 327, 328), daily distance median 1.21 % (before the first round 0.95 / 0.94 / 2.22 %).
            // Thresholds: the measured figures less a margin.
            #expect(p.tripF1 >= 0.93)
            #expect(p.visitF1 >= 0.93)
            #expect(p.medianDailyDistanceError <= 0.05)
        }
    }
}
