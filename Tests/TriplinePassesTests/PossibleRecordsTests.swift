import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineGeography
import TriplineTestSupport

/// What cannot have happened is flagged, and what the rebuild writes can have happened (issue 28): fixes out of
/// reach of the device's main track, trips that hold their fixes, moving time within the trip, a maximum speed from
/// the fixes and never below the average.
@Suite struct PossibleRecordsTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let berlin = (lat: 52.5200, lon: 13.4050)

    /// A day in Berlin: home, a 3-km ride, work, and back.
    func berlinDay() -> TrackBuilder {
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon)
        b.still(3600, every: 60, drift: 10...30)
        b.move(3000, bearing: 80, speed: 5, every: 5)
        b.still(3600, every: 60, drift: 10...30)
        b.move(3000, bearing: 260, speed: 5, every: 5)
        b.still(3600, every: 60, drift: 10...30)
        return b
    }

    /// Trips of a store as "start end distance" lines, to compare two rebuilds.
    func trips(_ store: Store) throws -> [String] {
        let s = try store.db.prepare("SELECT start_ms, end_ms, round(distance_m) FROM trips ORDER BY start_ms")
        var out: [String] = []
        while try s.step() { out.append("\(s.int64(0)) \(s.int64(1)) \(s.double(2))") }
        return out
    }

    /// A second phone in New York writing into the same device every 3 minutes: its fixes are the smaller source and
    /// are flagged out of reach (8), none of the Berlin phone's is, and the trips are the Berlin phone's alone.
    @Test func interleavedPhoneOnAnotherContinentIsFlagged() throws {
        let day = berlinDay()
        var other: [Point] = []
        var t = t0 + 30_500
        while t < day.t {
            other.append(Point(deviceID: 0, timeMs: t, lat: 40.7128 + Double(other.count % 5) * 1e-4, lon: -74.0060, accuracyM: 20))
            t += 180_000
        }
        let alone = try storeWith([("phone", day.points)])
        try rebuild(alone)
        let both = try storeWith([("phone", (day.points + other).sorted { $0.timeMs < $1.timeMs })])
        try rebuild(both)
        #expect(try count(both, "SELECT count(*) FROM point_flags WHERE flags & 8 != 0") == other.count)
        #expect(try count(both, "SELECT count(*) FROM point_flags WHERE flags & 8 != 0 AND time_ms % 1000 = 0") == 0)
        let (inBoth, inAlone) = (try trips(both), try trips(alone))
        #expect(inBoth == inAlone, "\(inBoth) \(inAlone)")
        #expect(try count(both, "SELECT count(*) FROM trips") == 2)
        #expect(try count(both, "SELECT count(*) FROM places") == count(alone, "SELECT count(*) FROM places"))
    }

    /// One fix on another continent between two at home (a bad cell fix, 109 km/s away) is flagged; no trip goes there.
    @Test func loneFixOnAnotherContinentIsFlagged() throws {
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon)
        b.still(3600, every: 300)
        b.points.append(Point(deviceID: 0, timeMs: b.t + 60_000, lat: -33.87, lon: 151.21, accuracyM: 30))
        b.t += 120_000
        b.still(3600, every: 300)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags != 0") == 1)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags & 8 != 0") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    /// A flight at 250 m/s with a fix every 10 s, and a trip with the phone in airplane mode (2,300 km in 3 h with no
    /// fix between the drives to and from the airports), are within reach: nothing is flagged, and each trip's maximum speed is the flight's pace.
    @Test func flightsAreWithinReachAndHaveAMaximum() throws {
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon)
        b.still(3600, every: 120)
        b.move(600_000, bearing: 200, speed: 250, every: 10)
        b.still(3600, every: 120)
        b.move(3000, bearing: 250, speed: 12, every: 5)  // to the airport
        b.gap(3 * 3600, moving: 2_300_000, bearing: 250)
        b.move(3000, bearing: 250, speed: 12, every: 5)  // from the airport
        b.still(3600, every: 120)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags != 0") == 0)
        let s = try store.db.prepare("SELECT start_ms, end_ms, distance_m, mode, max_speed_mps, avg_speed_mps, points FROM trips")
        var rows: [String] = []
        while try s.step() { rows.append("\(s.int64(0)) \(s.int64(1)) \(s.double(2)) \(s.text(3) ?? "") \(s.double(4)) \(s.double(5)) \(s.int64(6))") }
        #expect(try count(store, "SELECT count(*) FROM trips") == 2, "\(rows)")
        #expect(try count(store, "SELECT count(*) FROM trips WHERE max_speed_mps >= 200 AND avg_speed_mps <= max_speed_mps") == 2)
    }

    /// A drive whose phone died for 40 minutes on the way: the crossed silence's straight line is in the distance and
    /// its time in the moving time, so the average is that of the drive (about 17 m/s), not 60 m/s above every speed
    /// the fixes show; the maximum is never below it.
    @Test func crossedSilenceCountsItsTimeAsMoving() throws {
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon)
        b.still(1800, every: 60)
        b.move(5000, bearing: 90, speed: 14)
        b.gap(2400, moving: 40_000, bearing: 90)
        b.move(5000, bearing: 90, speed: 14)
        b.still(1800, every: 60)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let moving = try double(store, "SELECT moving_s FROM trips"), duration = try double(store, "SELECT duration_s FROM trips")
        #expect(moving > 2400 + 600 && moving <= duration, "moving \(moving) of \(duration) s")
        let avg = try double(store, "SELECT avg_speed_mps FROM trips"), top = try double(store, "SELECT max_speed_mps FROM trips")
        #expect(avg > 12 && avg < 20 && avg <= top, "average \(avg), maximum \(top)")
    }

    /// A stay stretched past the trip's first fixes (as an app's visit record late by minutes does) no longer makes
    /// the trip end before it starts or move longer than it lasts: the trip holds its fixes.
    @Test func tripHoldsItsFixes() throws {
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon)
        b.still(1800, every: 60)
        b.move(400, bearing: 90, speed: 10)
        b.still(1800, every: 60)
        let w = try workOf(b.points)
        let before = w.time.firstIndex { $0 > t0 + 1_800_000 }!
        let stays = [
            StayRecord(first: 0, last: before - 1, startMs: t0, endMs: t0 + 1_800_000 + 300_000, lat: berlin.lat, lon: berlin.lon, radiusM: 10, points: before, gapS: 0),
            StayRecord(first: before + 40, last: w.count - 1, startMs: w.time[before + 40], endMs: w.time[w.count - 1], lat: w.lat[before + 40],
                       lon: w.lon[before + 40], radiusM: 10, points: w.count - before - 40, gapS: 0),
        ]
        let trips = TripsPass.detect(w, stays: stays, TripsPass.Parameters(), MetricsPass.Parameters())
        #expect(trips.count == 1)
        guard let trip = trips.first else { return }
        #expect(trip.startMs < w.time[trip.first] && trip.endMs > w.time[trip.last] && trip.endMs >= trip.startMs)
        #expect(trip.movingS <= Double(trip.endMs - trip.startMs) / 1000)
        #expect(trip.maxSpeed.map { $0 >= 9 } == true)
    }

    /// The kept points of one device as the passes see them.
    func workOf(_ points: [Point]) throws -> DeviceWork {
        let store = try storeWith([("phone", points)])
        let w = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
        try w.loadPoints(store: store)
        w.flags = CleanPass.flags(w, CleanPass.Parameters())
        w.flagsLoaded = true
        return w
    }
}
