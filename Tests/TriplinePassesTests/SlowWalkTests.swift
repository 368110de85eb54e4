import Testing
import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// Someone under way slower than `stays.moving_mps` and `metrics.moving_mps` (the fifteenth hostile round): a hike
/// uphill at 0.45 m/s whose phone reports its speed was 13 visits joined by 5-s "trips" at 35–43 m/s, a car creeping
/// through a jam a visit on the motorway; once one trip, the hike had 10 s of moving time in 99 min, an average speed
/// of 318 m/s (algorithm version 98).
@Suite struct SlowWalkTests {
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 7, day: 10)) * 86_400_000 + 6 * 3_600_000

    /// An hour at home, 3 km up a switchback path at `speed` (a fix every 5 s reporting it, `walking`), 20 min at the
    /// top, the same way down at 0.8 m/s, an hour at home.
    static func hike(speed: Double) throws -> Store {
        var b = TrackBuilder(startMs: t0, lat: 47.40, lon: 10.90)
        b.still(3600, every: 30)
        for k in 0..<20 { b.move(150, bearing: k % 2 == 0 ? 30 : 330, speed: speed, every: 5, motion: "walking") }
        b.still(1200, every: 30)
        for k in 0..<20 { b.move(150, bearing: k % 2 == 0 ? 150 : 210, speed: 0.8, every: 5, motion: "walking") }
        b.still(3600, every: 30)
        let store = try storeWith([("hiker", b.points)])
        try rebuild(store, timezone: "Europe/Vienna")
        return store
    }

    @Test(arguments: [0.45, 0.55])
    func aSlowHikeIsOneWalkEachWay(speed: Double) throws {
        let store = try Self.hike(speed: speed)
        #expect(try count(store, "SELECT count(*) FROM trips") == 2)
        #expect(try count(store, "SELECT count(*) FROM visits") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE mode != 'walk'") == 0)
        // Under way all the way up: moving time most of the climb, an average a walker's, never above the maximum.
        let up = try #require(try store.db.scalarText(
            "SELECT duration_s || ' ' || moving_s || ' ' || avg_speed_mps || ' ' || max_speed_mps FROM trips ORDER BY start_ms LIMIT 1"))
        let f = up.split(separator: " ").compactMap { Double($0) }
        try #require(f.count == 4, "\(up)")
        #expect(f[1] >= 0.8 * f[0] && f[2] < 1 && f[2] <= f[3], "duration, moving, avg, max: \(up)")
    }

    /// A car creeping 540 m through a jam at 0.3 m/s for 30 min, the phone saying `automotive` throughout: one drive.
    @Test func aJamCrawlIsPartOfTheDrive() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 48.10, lon: 11.50)
        b.still(3600, every: 30)
        b.move(10_000, bearing: 90, speed: 20, every: 2, motion: "automotive")
        b.move(540, bearing: 90, speed: 0.3, every: 5, motion: "automotive")
        b.move(10_000, bearing: 90, speed: 20, every: 2, motion: "automotive")
        b.still(3600, every: 30)
        let store = try storeWith([("car", b.points)])
        try rebuild(store, timezone: "Europe/Berlin")
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT count(*) FROM visits") == 2)
    }
}
