import Testing
import TriplineCore
@testable import TriplinePasses
@testable import TriplineStore
import TriplineGeography
import TriplineTestSupport

/// The honest motorised class (issue 22, item 6): where the fixes cannot tell a car from a bus or a train, the leg is
/// a `vehicle` (`trips.vehicle_max_interval_s`), not a guess.
@Suite struct VehicleModeTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    func modes(_ store: Store) throws -> [String] { try legModes(store) }

    /// A walk to the car, 40 km of highway at 100 km/h, a walk from it, with one fix every `every` seconds.
    func highwayDrive(every: Int) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        b.move(600, bearing: 0, speed: 1.4, every: every)
        b.move(40_000, bearing: 0, speed: 28, every: every)
        b.move(600, bearing: 90, speed: 1.4, every: every)
        b.still(1800, every: 60)
        return b.points
    }

    /// Sampled once a minute (a Google or OwnTracks history), the walks around the drive are seen but no stop can
    /// be: the drive is a `vehicle`. Before, walks around a 28-m/s leg made it a train (rural Canada's 1,605 km).
    @Test func aSparseHighwayDriveEnteredOnFootIsAVehicle() throws {
        let store = try storeWith([("phone", highwayDrive(every: 60))])
        try rebuild(store)
        #expect(try modes(store) == ["walk", "vehicle", "walk"])
        #expect(try count(store, "SELECT count(*) FROM trips WHERE mode = 'vehicle'") == 1)
        // With the rule off, the old guess.
        let off = try storeWith([("phone", highwayDrive(every: 60))])
        try rebuild(off, sets: ["trips.vehicle_max_interval_s=0"])
        #expect(try modes(off) == ["walk", "train", "walk"])
    }

    /// Sampled every second, the same journey keeps the dense rules: motorway speed entered on foot is a train.
    @Test func aDenseLegKeepsTheRules() throws {
        let store = try storeWith([("phone", highwayDrive(every: 1))])
        try rebuild(store)
        #expect(try modes(store) == ["walk", "train", "walk"])
    }

    /// The rule itself: a run is sparse when the median interval between its fixes exceeds the bound; a single fix
    /// shows nothing; 0 turns it off.
    @Test func sparseIsTheMedianInterval() throws {
        let work = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
        work.time = [0, 5000, 10000, 50000, 90000, 130000]  // intervals 5, 5, 40, 40, 40 s
        let pts = Array(0..<work.count)
        var p = TripsPass.Parameters()
        p.vehicleMaxIntervalS = 20
        #expect(TripsPass.sparse(TripsPass.Run(a: 0, b: 5, cls: 4), work, pts, p))  // median 40 s
        #expect(!TripsPass.sparse(TripsPass.Run(a: 0, b: 2, cls: 4), work, pts, p))  // 5, 5
        #expect(TripsPass.sparse(TripsPass.Run(a: 0, b: 4, cls: 4), work, pts, p))  // 5, 5, 40, 40: the upper middle, 40 s
        #expect(!TripsPass.sparse(TripsPass.Run(a: 0, b: 3, cls: 4), work, pts, p))  // 5, 5, 40
        #expect(TripsPass.sparse(TripsPass.Run(a: 3, b: 3, cls: 4), work, pts, p))
        p.vehicleMaxIntervalS = 0
        #expect(!TripsPass.sparse(TripsPass.Run(a: 0, b: 5, cls: 4), work, pts, p))
    }

    /// A high-speed train at 281 km/h (78 m/s), a fix a second, with a minute's stop at a station halfway (the tenth
    /// hostile round): a `plane` of 470 km at `plane_min_mps`' 70 m/s, a `train` below `flight_min_mps` (100 m/s, above
    /// every train in service). An airliner's 230 m/s stays a plane (``BoatModeTests/aFlightOverTheChannelStaysAPlane``).
    @Test func aHighSpeedTrainIsATrain() throws {
        var b = TrackBuilder(startMs: t0, lat: 35.6812, lon: 139.7671)  // Tokyo station, west towards Nagoya
        b.still(1800, every: 60)
        b.move(120_000, bearing: 250, speed: 78, every: 1)
        b.still(60, every: 1)
        b.move(120_000, bearing: 250, speed: 78, every: 1)
        b.still(1800, every: 60)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try modes(store) == ["train"])
        let before = try storeWith([("phone", b.points)])
        try rebuild(before, sets: ["trips.flight_min_mps=70"])
        #expect(try modes(before) == ["plane"])
    }
}
