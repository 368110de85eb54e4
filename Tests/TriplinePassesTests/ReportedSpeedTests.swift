import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Fixes whose reported speed (the phone's Doppler measure, about 0 at rest) says they moved, where their positions
/// alone look like a stay or like drift (the fourteenth hostile round; ``SpeedGuard``, algorithm version 94).
@Suite struct ReportedSpeedTests {
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 3)) * 86_400_000 + 16 * 3_600_000

    /// Home half an hour, a walk round a square block (`side` metres a side) at 1.3 m/s with a fix every 2 s each
    /// reporting its speed (no motion states: OwnTracks, GPX), home again.
    static func walkRoundTheBlock(side: Double) throws -> Store {
        var b = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.405)
        b.still(1800, every: 30, drift: 3...8)
        for bearing in [0.0, 90, 180, 270] { b.move(side, bearing: bearing, speed: 1.3, every: 2) }
        b.still(1800, every: 30, drift: 3...8)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        return store
    }

    /// 800 m round the block: a walk, not drift (before, two visits at home with a 10-min hole between them and no
    /// trip; the drift-or-walk model learned from GeoLife, which reports no speeds).
    @Test func aWalkRoundTheBlockIsAWalk() throws {
        let store = try Self.walkRoundTheBlock(side: 200)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let metres = try double(store, "SELECT coalesce(sum(distance_m), 0) FROM trips")
        #expect(metres > 700 && metres < 900, "\(metres) m")
    }

    /// Jog 2 km to a running track, 25 laps of a 400-m square lap at 3.5 m/s (all within a stay's radius of its
    /// centre), 10 min still there, jog home: the laps are travel, not a visit (before, a visit of 54 min at the track
    /// and the day 4.4 km of 14).
    @Test func lapsOfATrackAreNoVisit() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 52.52, lon: 13.405)
        b.still(1800, every: 30, drift: 3...8)
        b.move(2000, bearing: 90, speed: 3.0, every: 2)
        for _ in 0..<25 { for bearing in [0.0, 90, 180, 270] { b.move(100, bearing: bearing, speed: 3.5, every: 2) } }
        let lapsEnd = b.t
        b.still(600, every: 10, drift: 2...5)
        b.move(2000, bearing: 270, speed: 3.0, every: 2)
        b.still(1800, every: 30, drift: 3...8)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE start_ms < \(lapsEnd - 600_000) AND end_ms > \(Self.t0 + 1_800_000 + 700_000)") == 0)
        let day = try double(store, "SELECT coalesce(sum(distance_m), 0) FROM days")
        let span = "datetime(start_ms / 1000, 'unixepoch') || '-' || datetime(end_ms / 1000, 'unixepoch')"
        let rows = try store.db.scalarText("SELECT group_concat(\(span) || ' ' || round(distance_m), '; ') FROM trips") ?? ""
        let vs = try store.db.scalarText("SELECT group_concat(\(span), '; ') FROM visits") ?? ""
        #expect(day > 13_000 && day < 15_000, "the day \(day) m; trips \(rows); visits \(vs)")
    }

    /// A stay whose fixes report a speed of 0 (a phone on a desk; its positions drift) stays a stay.
    @Test func aStillPhoneStaysAStay() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 52.52, lon: 13.405)
        b.still(7200, every: 2, drift: 5...30)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM visits") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }
}
