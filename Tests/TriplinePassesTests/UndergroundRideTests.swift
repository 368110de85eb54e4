import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// A metro ride under the ground: a walk to the station with a fix every 2 s, no fix while the train runs, a walk out
/// (the twelfth hostile round). The trip's distance is never below the straight lines it crossed, and the ride is no
/// walk, however long the silence (algorithm version 90).
@Suite struct UndergroundRideTests {
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 3)) * 86_400_000 + 5 * 3_600_000

    /// Home an hour, 400 m on foot, `minutes` of silence covering `km`, 300 m on foot, the office four hours.
    static func commute(minutes: Int, km: Double) throws -> Store {
        var b = TrackBuilder(startMs: t0, lat: 48.8566, lon: 2.3522)
        b.still(3600, every: 30)
        b.move(400, bearing: 90, speed: 1.4, every: 2)
        b.gap(minutes * 60, moving: km * 1000, bearing: 20)
        b.move(300, bearing: 0, speed: 1.4, every: 2)
        b.still(4 * 3600, every: 60)
        let store = try storeWith([("metro", b.points)])
        try rebuild(store, timezone: "Europe/Paris")
        return store
    }

    /// 9 min and 4.3 km (bridged, inside one walk run: `trips.leg_gap_s` is 10 min; the thirteenth hostile round found
    /// the walk after it counting the silence's 4.3 km again), 10 min and 5 km (bridged: `metrics.bridge_max_s` is
    /// 15 min), 20 min and 12 km (before: neither bridged nor a leg of its own, so 0 m), 40 min and 14 km (a crossed
    /// silence, as before).
    @Test(arguments: [(9, 4.3), (10, 5.0), (20, 12.0), (40, 14.0)])
    func theRideIsALegOfItsOwnAndCounts(silenceMin: Int, km: Double) throws {
        let store = try Self.commute(minutes: silenceMin, km: km)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let trip = try #require(try real(store, "SELECT distance_m FROM trips"))
        #expect(trip >= km * 1000 + 600 && trip <= km * 1000 + 800, "trip \(trip) m")
        let modes = try store.db.scalarText("SELECT group_concat(mode || ' ' || round(distance_m), ', ') FROM (SELECT * FROM legs ORDER BY leg)")
        let walks = try real(store, "SELECT max(distance_m) FROM legs WHERE mode = 'walk'") ?? 0
        #expect(walks < 500, "\(modes ?? "")")
        #expect(try count(store, "SELECT count(*) FROM legs WHERE mode = 'unknown' AND distance_m >= \(km * 1000 - 50)") == 1, "\(modes ?? "")")
        let legs = try real(store, "SELECT sum(distance_m) FROM legs") ?? 0
        #expect(abs(legs - trip) < 1, "legs \(legs) m, trip \(trip) m")
        let days = try real(store, "SELECT sum(distance_m) FROM days") ?? 0
        #expect(abs(days - trip) < 1, "days \(days) m, trip \(trip) m")
        // The ride was under way: the trip's moving time holds it, and so do its days'.
        let moving = try real(store, "SELECT moving_s FROM trips") ?? 0
        #expect(moving >= Double(silenceMin * 60), "moving \(moving) s")
        #expect(abs((try real(store, "SELECT sum(moving_s) FROM days") ?? 0) - moving) < 1)
        // The straight lines too: the day's are the trip's (the thirteenth hostile round: 649 m of 12,638 m).
        let line = try real(store, "SELECT line_distance_m FROM trips") ?? 0
        let dayLine = try real(store, "SELECT sum(line_distance_m) FROM days") ?? 0
        #expect(line >= km * 1000 && abs(dayLine - line) < 1, "days' straight lines \(dayLine) m, the trip's \(line) m")
    }

    func real(_ store: Store, _ sql: String) throws -> Double? { try store.db.scalarText(sql).flatMap(Double.init) }

    /// A drive that loses its fixes for 20 min at 20 m/s (an intercity train, a tunnel under a city): the vehicle
    /// carried on, so the silence is the car leg's own, its 24 km counted, no `unknown` leg.
    @Test func aVehicleThatCarriedOnKeepsTheSilence() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 48.8566, lon: 2.3522)
        b.still(3600, every: 30)
        b.move(9000, bearing: 90, speed: 15, every: 2)
        b.gap(20 * 60, moving: 24_000, bearing: 90)
        b.move(9000, bearing: 90, speed: 15, every: 2)
        b.still(2 * 3600, every: 60)
        let store = try storeWith([("car", b.points)])
        try rebuild(store, timezone: "Europe/Paris")
        #expect(try count(store, "SELECT count(*) FROM legs WHERE mode != 'car'") == 0)
        let trip = try real(store, "SELECT distance_m FROM trips") ?? 0
        #expect(trip >= 41_500 && trip <= 42_500, "trip \(trip) m")
        let legs = try real(store, "SELECT sum(distance_m) FROM legs") ?? 0, days = try real(store, "SELECT sum(distance_m) FROM days") ?? 0
        #expect(abs(legs - trip) < 1 && abs(days - trip) < 1, "legs \(legs), days \(days), trip \(trip) m")
    }

    /// A drive through a 20-min tunnel over midnight (23:55–00:15, 14 m/s) splits its way and its moving time over the
    /// two days by time, as the same drive seen all along does (the thirteenth hostile round: 19.3 km and 590 s on the
    /// first day, where the drive seen all along has 6.8 km; the car leg's silence went to the day it began).
    @Test func aTunnelOverMidnightIsSplitByTime() throws {
        func days(silence: Bool) throws -> [Double] {
            let midnight = Self.t0 - 5 * 3_600_000 + 86_400_000
            var b = TrackBuilder(startMs: midnight - 70 * 60_000, lat: 48.8566, lon: 2.3522)
            b.still(3600, every: 30)
            b.move(4200, bearing: 90, speed: 14, every: 2)
            if silence { b.gap(20 * 60, moving: 16_800, bearing: 90) } else { b.move(16_800, bearing: 90, speed: 14, every: 2) }
            b.move(4200, bearing: 90, speed: 14, every: 2)
            b.still(2 * 3600, every: 60)
            let store = try storeWith([("car", b.points)])
            try rebuild(store, timezone: "UTC")
            #expect(try count(store, "SELECT count(*) FROM trips") == 1)
            let rows = try store.db.scalarText(
                "SELECT group_concat(distance_m || ' ' || line_distance_m || ' ' || moving_s, ' ') FROM (SELECT * FROM days ORDER BY date)") ?? ""
            return rows.split(separator: " ").compactMap { Double($0) }
        }
        let seen = try days(silence: false), unseen = try days(silence: true)
        try #require(seen.count == 6 && unseen.count == 6, "\(seen) \(unseen)")
        // 10 of 30 min on the first day: 8.4 km.
        #expect(abs(unseen[0] - 8400) < 300 && abs(seen[0] - 8400) < 300, "first day \(unseen[0]) m (seen all along \(seen[0]) m)")
        #expect(abs(unseen[1] - 8400) < 300, "first day's straight lines \(unseen[1]) m")
        #expect(abs(unseen[2] - 600) < 30, "first day moving \(unseen[2]) s")
        #expect(abs(unseen[3] - 16_800) < 400 && abs(unseen[4] - 16_800) < 400, "second day \(unseen[3]) m, straight lines \(unseen[4]) m")
    }

    /// A ride with 20 min unseen at a cyclist's pace (4.5 km at 3.75 m/s) between two cycling legs is a `cycle` trip,
    /// though its longest leg is the silence (the fourteenth hostile round: `unknown`); the metro ride, 12 km in 20 min
    /// under the ground between two walks, stays an `unknown` trip.
    @Test func aRideThroughASilenceIsACycleTrip() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 48.8566, lon: 2.3522)
        b.still(3600, every: 30)
        b.move(3000, bearing: 90, speed: 5, every: 2, motion: "cycling")
        b.gap(20 * 60, moving: 4500, bearing: 90)
        b.move(3000, bearing: 90, speed: 5, every: 2, motion: "cycling")
        b.still(3600, every: 60)
        let store = try storeWith([("bike", b.points)])
        try rebuild(store, timezone: "Europe/Paris")
        #expect(try store.db.scalarText("SELECT group_concat(mode) FROM trips") == "cycle")
        let metro = try Self.commute(minutes: 20, km: 12)
        #expect(try metro.db.scalarText("SELECT group_concat(mode) FROM trips") == "unknown")
    }

    /// A silence of 20 min on foot (1.5 km, 1.25 m/s; the phone off in a pocket) is crossed under way too: the pace of
    /// any two fixes that counts as moving (`metrics.moving_mps`), not a vehicle's (the thirteenth hostile round: a
    /// silence of 15–30 min slower than walking counted nothing, its straight line and its time lost to the trip).
    @Test func aWalkWithThePhoneOffCounts() throws {
        let store = try Self.commute(minutes: 20, km: 1.5)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let trip = try real(store, "SELECT distance_m FROM trips") ?? 0
        #expect(trip >= 2150 && trip <= 2300, "trip \(trip) m")
        #expect(try count(store, "SELECT count(*) FROM legs WHERE mode = 'unknown' AND distance_m >= 1450") == 1)
        #expect((try real(store, "SELECT moving_s FROM trips") ?? 0) >= 1200)
        let days = try real(store, "SELECT sum(distance_m) FROM days") ?? 0, line = try real(store, "SELECT sum(line_distance_m) FROM days") ?? 0
        #expect(abs(days - trip) < 1 && line >= 2100, "days \(days) m, straight lines \(line) m")
    }

    /// A silence of 20 min that the traveller did not ride through (150 m: a wait in a shop with no fix) is no leg and
    /// counts nothing, as before.
    @Test func aSlowSilenceIsNoRide() throws {
        let store = try Self.commute(minutes: 20, km: 0.15)
        #expect(try count(store, "SELECT count(*) FROM legs WHERE mode = 'unknown'") == 0)
    }
}
