import Testing
import TriplineCore
@testable import TriplinePasses
@testable import TriplineStore
import TriplineGeography
import TriplineTestSupport

/// A ferry is a boat, not a car (docs/RELIABILITY.md, "Fifth hostile round"; docs/PASSES.md, "Ferries"): a motorised
/// leg mostly at sea (`trips.boat_min_sea_share`) at a vessel's speed (`trips.boat_max_mps`) is `boat`.
@Suite struct BoatModeTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    /// Dover's Eastern Docks and the bearing and distance to Calais' ferry port.
    let dover = (lat: 51.1240, lon: 1.3350)
    let toCalais = (bearing: 114.0, metres: 41_000.0)

    func modes(_ store: Store) throws -> [String] { try legModes(store) }

    /// Half an hour at the docks, the crossing at 9 m/s (17.5 knots) with a fix every `every` seconds, half an hour
    /// at Calais; with `walks`, a foot passenger walks aboard and ashore.
    func crossing(every: Int, walks: Bool = false) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: dover.lat, lon: dover.lon)
        b.still(1800, every: 60)
        if walks { b.move(400, bearing: 90, speed: 1.4, every: every) }
        b.move(toCalais.metres, bearing: toCalais.bearing, speed: 9, every: every)
        if walks { b.move(400, bearing: 180, speed: 1.4, every: every) }
        b.still(1800, every: 60)
        return b.points
    }

    @Test func theCrossingIsMostlyAtSea() {
        var b = TrackBuilder(startMs: t0, lat: dover.lat, lon: dover.lon)
        #expect(Geography.country(latitude: b.lat, longitude: b.lon)?.code == "GB")
        b.move(toCalais.metres, bearing: toCalais.bearing, speed: 9, every: 60)
        #expect(Geography.country(latitude: b.lat, longitude: b.lon)?.code == "FR")
        let sea = b.points.filter { Geography.country(latitude: $0.lat, longitude: $0.lon) == nil }.count
        #expect(sea * 10 >= b.points.count * 8, "\(sea) of \(b.points.count) fixes at sea")
    }

    /// Dover → Calais at 9 m/s, a fix a second: before, a `car` (the fifth hostile round's ship).
    @Test func aDenseCrossingIsABoat() throws {
        let store = try storeWith([("phone", crossing(every: 1))])
        try rebuild(store)
        #expect(try modes(store) == ["boat"], "\((try? modes(store)) ?? [])")
        #expect(try count(store, "SELECT count(*) FROM trips WHERE mode = 'boat'") == 1)
        let off = try storeWith([("phone", crossing(every: 1))])
        try rebuild(off, sets: ["trips.boat_min_sea_share=0"])
        #expect(try modes(off) == ["car"])
    }

    /// The same crossing with a fix a minute (a Google or OwnTracks history).
    @Test func aSparseCrossingIsABoat() throws {
        let store = try storeWith([("phone", crossing(every: 60))])
        try rebuild(store)
        #expect(try modes(store) == ["boat"], "\((try? modes(store)) ?? [])")
        let off = try storeWith([("phone", crossing(every: 60))])
        try rebuild(off, sets: ["trips.boat_min_sea_share=0"])
        #expect(try modes(off) == ["car"])
    }

    /// The ferry's day shows the crossing as a boat: the trip in `report day` and the legs in the CSV export.
    @Test func theFerrysDayShowsABoat() throws {
        let store = try storeWith([("phone", crossing(every: 60))])
        try rebuild(store)
        let day = runCLI(["report", "day", "--date", "2024-06-01", "--db", store.path])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(day.stdout.contains("boat 4"), "\(day.stdout)")
        #expect(!day.stdout.contains("car"), "\(day.stdout)")
        let legs = runCLI(["export", "--db", store.path, "--format", "csv", "--what", "legs"])
        #expect(legs.status == 0, "\(legs.stderr)")
        #expect(legs.stdout.contains(",boat,") && !legs.stdout.contains(",car,"), "\(legs.stdout)")
    }

    /// A foot passenger walks aboard and ashore: the walks around the crossing made it public transport before.
    @Test func aFootPassengersCrossingIsABoat() throws {
        let store = try storeWith([("phone", crossing(every: 1, walks: true))])
        try rebuild(store)
        #expect(try modes(store) == ["walk", "boat", "walk"], "\((try? modes(store)) ?? [])")
        let off = try storeWith([("phone", crossing(every: 1, walks: true))])
        try rebuild(off, sets: ["trips.boat_min_sea_share=0"])
        #expect(try modes(off) == ["walk", "bus", "walk"])
    }

    /// Canterbury → Dover at 20 m/s, straight onto the ferry (no walk, no wait), across at 9 m/s, and on from Calais at
    /// 20 m/s: one motorised run, 42 % of its path at sea. The crossing is cut out as a leg of its own, `car`, `boat`,
    /// `car`, and the legs still tile the trip and sum to its distance.
    @Test func aCarDrivenOntoAFerryIsCarBoatCar() throws {
        func drive() -> [Point] {
            var b = TrackBuilder(startMs: t0, lat: 51.2800, lon: 1.0800)
            b.still(1800, every: 60)
            b.move(24_800, bearing: 134, speed: 20, every: 1)
            b.move(toCalais.metres, bearing: toCalais.bearing, speed: 9, every: 1)
            b.move(20_000, bearing: 150, speed: 20, every: 1)
            b.still(1800, every: 60)
            return b.points
        }
        let store = try storeWith([("phone", drive())])
        try rebuild(store)
        #expect(try modes(store) == ["car", "boat", "car"])
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT count(*) FROM legs l JOIN trips t ON t.id = l.trip_id "
            + "WHERE l.start_ms < t.start_ms OR l.end_ms > t.end_ms") == 0)
        #expect(try count(store, "SELECT count(*) FROM legs a JOIN legs b ON b.trip_id = a.trip_id "
            + "AND b.start_ms = a.end_ms") == 2)  // each leg ends where the next starts
        let legs = try double(store, "SELECT sum(distance_m) FROM legs"), trip = try double(store, "SELECT distance_m FROM trips")
        #expect(abs(legs - trip) < 1, "legs \(legs) m, trip \(trip) m")
        let boat = try double(store, "SELECT distance_m FROM legs WHERE mode = 'boat'")
        #expect(boat > 34_000 && boat < 42_000, "\(boat)")
        // Without the cut, the whole leg takes the majority's mode: the road.
        let uncut = try storeWith([("phone", drive())])
        try rebuild(uncut, sets: ["trips.boat_cut_min_m=0"])
        #expect(try modes(uncut) == ["car"])
    }

    /// A drive along the Belgian coast, Ostend → Blankenberge, about 700 m inland of the 1:10m coastline (within the
    /// 1.5 km the coast snap allows; the sea 4 km off) stays a car.
    @Test func aCoastalDriveStaysACar() throws {
        var b = TrackBuilder(startMs: t0, lat: 51.2450, lon: 2.9300)
        b.still(1800, every: 60)
        b.move(16_500, bearing: 57.4, speed: 15, every: 1)
        b.still(1800, every: 60)
        #expect(b.points.allSatisfy { Geography.country(latitude: $0.lat, longitude: $0.lon)?.code == "BE" })
        let middle = b.points[b.points.count / 2]
        let offshore = Geo.destination(middle.lat, middle.lon, bearing: 330, distance: 4000)
        #expect(Geography.country(latitude: offshore.lat, longitude: offshore.lon) == nil)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try modes(store) == ["car"])
    }

    /// London Heathrow → Paris Charles de Gaulle over the Channel at 220 m/s stays a plane.
    @Test func aFlightOverTheChannelStaysAPlane() throws {
        var b = TrackBuilder(startMs: t0, lat: 51.4700, lon: -0.4543)
        b.still(1800, every: 60)
        b.move(344_000, bearing: 139, speed: 220, every: 10)
        b.still(1800, every: 60)
        #expect(Geography.country(latitude: b.lat, longitude: b.lon)?.code == "FR")
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try modes(store) == ["plane"])
    }

    /// The sea share: each piece of at least `sampleM` metres of path is at sea when its last fix is.
    @Test func theSeaShareWeighsPathNotFixes() {
        var track = FixTrack()
        // 20 km east along 51.13° N, from inland of Dover out over its cliffs into the Strait, a fix every 100 m.
        for k in 0...200 { track.add(Int64(k) * 10_000, 51.13, 1.20 + Double(k) * 0.00143) }
        let w = track.work
        let pts = Array(0..<w.count)
        let (inc, _, _) = MetricsPass.increments(w, pts, MetricsPass.Parameters())
        let share = TripsPass.seaShare(TripsPass.Run(a: 0, b: 200, cls: 4), w, pts, inc, sampleM: 200)
        var sea = 0
        for k in 1...200 where Geography.country(latitude: w.lat[k], longitude: w.lon[k]) == nil { sea += 1 }
        #expect(abs(share - Double(sea) / 200) <= 0.02, "\(share) vs \(sea) of 200 hops at sea")
        #expect(share > 0.3 && share < 0.9, "\(share)")
        #expect(TripsPass.seaShare(TripsPass.Run(a: 5, b: 5, cls: 4), w, pts, inc, sampleM: 200) == 0)
    }
}
