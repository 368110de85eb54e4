import Testing
import TriplineCore
import TriplineStore
import TriplineTestSupport

/// One distance for one history (issue 22, item 3): a trip's legs add up to the trip, and the days add up to the trips,
/// also where a trip crosses a silence (its straight line counts) or midnight (split at midnight).
@Suite struct OneDistanceTests {
    /// An hour at home, 5 km of driving at 1 Hz, the phone dead for 50 minutes while the car covers 32 km, 5 km more,
    /// an hour at the destination; the drive starts at `departure` (UTC).
    static func driveAcrossASilence(departure: Int64) throws -> Store {
        var b = TrackBuilder(startMs: departure - 3_600_000, lat: 48.0, lon: 11.0)
        b.still(3600, every: 60, drift: 0...10)
        b.move(5000, bearing: 90, speed: 14)
        b.gap(3000, moving: 32_000, bearing: 90)
        b.move(5000, bearing: 90, speed: 14)
        b.still(3600, every: 60, drift: 0...10)
        return try storeWith([("phone", b.points)])
    }

    @Test func daysAddUpToTripsAcrossASilence() throws {
        let store = try Self.driveAcrossASilence(departure: 1_717_236_000_000)  // 2024-06-01T10:00Z
        try rebuild(store)
        try #require(try count(store, "SELECT count(*) FROM trips") == 1)
        let trip = try double(store, "SELECT distance_m FROM trips")
        #expect(trip > 41_000, "the crossed silence's 32 km count")
        #expect(abs(try double(store, "SELECT total(distance_m) FROM legs") - trip) < 1)
        // Before, the day counted only the 10 km the fixes saw.
        #expect(abs(try double(store, "SELECT total(distance_m) FROM days") - trip) < 1)
        #expect(try count(store, "SELECT count(*) FROM days") == 1)
    }

    @Test func aSilenceAcrossMidnightIsSplitByTime() throws {
        // Departure 23:30 UTC: the silence runs from about 23:36 to 00:26, so about 24 of its 50 minutes fall on the
        // first day.
        let store = try Self.driveAcrossASilence(departure: 1_717_284_600_000)  // 2024-06-01T23:30Z
        try rebuild(store)
        try #require(try count(store, "SELECT count(*) FROM trips") == 1)
        let trip = try double(store, "SELECT distance_m FROM trips")
        #expect(abs(try double(store, "SELECT total(distance_m) FROM days") - trip) < 1)
        let first = try double(store, "SELECT distance_m FROM days WHERE date = '2024-06-01'")
        let second = try double(store, "SELECT distance_m FROM days WHERE date = '2024-06-02'")
        #expect(first > 5000 + 32_000 * 0.4 && first < 5000 + 32_000 * 0.6, "\(first)")
        #expect(abs(first + second - trip) < 1)
    }

    /// Sparse fixes (one every 5 minutes, no speed): the paths pass's estimate is longer than the straight lines, and
    /// the legs take their share of it (before, they kept the straight lines: 22 of 22 trips on a sparse simulated day
    /// summed to less than their trip).
    @Test func legsAddUpToTheEstimatedPath() throws {
        var points: [Point] = []
        var t: Int64 = 1_717_236_000_000, lat = 48.0, lon = 11.0
        func fix() { points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, accuracyM: 10)) }
        for _ in 0..<7 { fix(); t += 600_000 }
        for k in 0..<8 {
            let p = Geo.destination(lat, lon, bearing: k % 2 == 0 ? 60 : 120, distance: 1200)
            (lat, lon) = (p.lat, p.lon)
            t += 300_000
            fix()
        }
        for _ in 0..<7 { t += 600_000; fix() }
        let store = try storeWith([("phone", points)])
        try rebuild(store)
        try #require(try count(store, "SELECT count(*) FROM trips WHERE distance_method = 'circuity'") >= 1)
        #expect(try count(store, "SELECT count(*) FROM trips t WHERE abs(t.distance_m - (SELECT total(distance_m) FROM legs WHERE trip_id = t.id)) > 1") == 0)
        #expect(abs(try double(store, "SELECT total(distance_m) FROM days") - (try double(store, "SELECT total(distance_m) FROM trips"))) < 1)
    }
}
