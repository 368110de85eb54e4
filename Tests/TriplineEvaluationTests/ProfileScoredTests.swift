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
            // Measured 2026-12-01 on the profile as it was then: trip F1 0.93 (281 of 307, 295 rebuilt), visit F1
            // 0.94 (309 of 327, 329), daily distance median 3.04 %. The profile was made as hard as issue 23
            // describes (2026-12-03: no fix just after arriving, significant changes half the days): with the sparse
            // trip edges and absence stops, trip F1 0.89 (265 of 307, 291), visit F1 0.89 (293 of 327, 331), daily
            // distance median 3.38 %. Algorithm version 14 (a region `leave` gives the pace, proven stops): trip F1
            // 0.91 (272 of 307, 293), visit F1 0.90 (296 of 327, 334), daily 3.44 %. Thresholds are the measured
            // figures less a margin (kept: other rounds change these seeds too).
            #expect(p.tripF1 >= 0.87)
            #expect(p.visitF1 >= 0.87)
            #expect(p.medianDailyDistanceError <= 0.10)
        case .denseOverland:
            // Targets met on the held-out seeds (measured 2026-12-01, third round: pauses no resume ended, iOS
            // arrivals in a stay's silence, the device's pace learnt again from the amended stays; docs/PASSES.md):
            // trip F1 0.982 (298 of 307, 300 rebuilt), visit F1 0.981 (318 of 327, 321), trip distance error median
            // 0.76 %: asserted as the targets. Second round 0.979 / 0.978, first 0.969 / 0.975.
            // Nothing at all was recorded during 1 of the true trips and 7 of the true visits (`hidden`), which caps
            // F1 at 0.998 / 0.989 (`Observability`). The held-out misses were not inspected, so as not to tune on them.
            // 2026-12-05: the simulator's moving fixes got real phones' multipath, outliers and jitter (`PhoneNoise`,
            // docs/PASSES.md "Outliers of dense phones"): one trip fewer matched here, 297 of 307 (300 rebuilt): trip
            // F1 0.9786, with the rules of algorithm version 45 and of 46 alike (on development seeds 1–10 and 31–60 no
            // trip changed); visits unchanged (318 of 327, 321), trip distance median 1.27 %. So the trip threshold is
            // the measured figure less a margin, below issue 23's 0.98; the miss was not inspected.
            // 2026-12-06: a phone iOS paused records nothing until it leaves the pause region, also at a place reached
            // inside it (docs/SIMULATOR.md; before, such a stop was recorded all the same): trip F1 0.967 (295 of 307,
            // 303 rebuilt), visit F1 0.988 (323 of 327, 324), trip distance median 1.27 %, with the rules of algorithm
            // version 62 unchanged. The misses were not inspected; the trip threshold is the measured figure less a
            // margin (issue 23's dense bars are visits and distance).
            #expect(p.tripF1 >= 0.96)
            #expect(p.visitF1 >= 0.98)
            #expect(p.medianTripDistanceError <= 0.015)
        default:
            // Mixed (no target of its own; algorithm version 14, 2026-12-03, on the harder OwnTracks of docs/SIMULATOR.md:
            // trip F1 0.95 (288 of 307, 299), visit F1 0.94 (308 of 327, 331); version 13 0.94 (283, 296) / 0.93
            // (305, 328)): measured 2026-12-01 trip F1 0.960 (292 of 307, 302), visit F1 0.956
            // (313 of 327, 328), daily distance median 1.21 % (second round 0.956 / 0.953; before the first round
            // 0.95 / 0.94 / 2.22 %).
            // Thresholds: the measured figures less a margin.
            #expect(p.tripF1 >= 0.93)
            #expect(p.visitF1 >= 0.93)
            #expect(p.medianDailyDistanceError <= 0.05)
        }
    }
}
