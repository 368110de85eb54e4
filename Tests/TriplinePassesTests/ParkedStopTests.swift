import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// A vehicle's stops as long as a stay (`stays.min_duration_s`) are stops, however fast it came and went
/// (`stays.aboard_mps` off since algorithm version 96, the fourteenth hostile round).
@Suite struct ParkedStopTests {
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 4)) * 86_400_000 + 6 * 3_600_000

    /// A van from the depot to four stops and back, 1.9 km at 12 m/s between them, braking and pulling away over about
    /// 20 s, parked `stopS` at each (speed 0, a fix every 5 s, no motion states).
    static func round(stopS: Int, sets: [String] = []) throws -> Store {
        var b = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.405)
        b.still(1800, every: 5)
        for leg in 0..<5 {
            b.move(60, bearing: Double(leg * 72), speed: 4, every: 5)
            b.move(1780, bearing: Double(leg * 72), speed: 12, every: 5)
            b.move(60, bearing: Double(leg * 72), speed: 4, every: 5)
            b.still(leg < 4 ? stopS : 1800, every: 5)
        }
        let store = try storeWith([("van", b.points)])
        try rebuild(store, sets: sets)
        return store
    }

    /// Four stops of 15 or 25 min: five trips and six visits (before, one trip of 10.7 km and the two at the depot).
    @Test(arguments: [900, 1500])
    func aVansStopsAreVisits(stopS: Int) throws {
        let store = try Self.round(stopS: stopS)
        #expect(try count(store, "SELECT count(*) FROM trips") == 5)
        #expect(try count(store, "SELECT count(*) FROM visits") == 6)
    }

    /// Stands of 5 min: with the aboard rule on (`stays.aboard_mps` 7.5, shipped before version 96) a pause on the
    /// way, one trip; off, what the other rules make of them.
    @Test func theAboardRuleStillJoinsWhenOn() throws {
        let on = try Self.round(stopS: 300, sets: ["stays.aboard_mps=7.5"])
        #expect(try count(on, "SELECT count(*) FROM trips") == 1)
        let off = try Self.round(stopS: 300)
        let summary = try off.db.scalarText("SELECT count(*) || ' trips, ' || (SELECT count(*) FROM visits) || ' visits' FROM trips") ?? ""
        #expect(summary == "5 trips, 6 visits", "\(summary)")
    }
}
