import Testing
@testable import TriplineStore
import TriplineCore
import TriplineTestSupport

/// Modes from a leg's whole speed profile (trips.profile): hand-made rides shaped like the failures reported in issue 10.
@Suite struct ModeProfileTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    func legs(_ store: Store) throws -> [(mode: String, metres: Double)] {
        let s = try store.db.prepare("SELECT mode, distance_m FROM legs ORDER BY start_ms")
        var out: [(String, Double)] = []
        while try s.step() { out.append((s.text(0) ?? "", s.double(1))) }
        return out
    }

    /// A sporty bicycle ride like the reported Garmin one: 24 km in 58 min, mostly 6.5–8.5 m/s, a stop at a light in
    /// every block and a short 11.8 m/s (42.5 km/h) descent. A speed cap calls this a car; its profile is a bicycle's.
    @Test func sportyBicycleRideIsACycle() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        for k in 0..<8 {
            let bearing = Double(k * 40)
            b.move(600, bearing: bearing, speed: 6.5)
            b.move(800, bearing: bearing, speed: 7.5)
            b.move(400, bearing: bearing, speed: 8.5)
            b.still(20, every: 1)
            b.move(300, bearing: bearing, speed: 5.5)
            b.move(200, bearing: bearing, speed: 11.8)
            b.move(700, bearing: bearing, speed: 7)
        }
        b.still(1800, every: 60)
        let store = try storeWith([("garmin", b.points)])
        try rebuild(store)
        let l = try legs(store)
        let cycle = l.filter { $0.mode == "cycle" }.reduce(0) { $0 + $1.metres }
        let total = l.reduce(0) { $0 + $1.metres }
        #expect(total > 23_000)
        #expect(cycle >= 0.95 * total, "\(l)")
        #expect(try store.db.scalarText("SELECT mode FROM trips") == "cycle")
    }

    /// A slow climb (3.2 m/s for 4 min) inside a bicycle ride is not a run: one cycle leg.
    @Test func slowClimbDoesNotSplitABicycleRide() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        b.move(2000, bearing: 0, speed: 5.5)
        b.move(770, bearing: 0, speed: 3.2)
        b.move(2000, bearing: 0, speed: 6)
        b.still(1800, every: 60)
        let store = try storeWith([("bike", b.points)])
        try rebuild(store)
        let l = try legs(store)
        #expect(l.map(\.mode) == ["cycle"], "\(l)")
    }

    /// Stop-and-go city traffic (stops at lights, crawling at 2.5–4 m/s between 9–15 m/s stretches) is one car leg, not
    /// car, cycle and run legs flickering.
    @Test func stopAndGoCarIsOneLeg() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        for k in 0..<5 {
            let bearing = Double(k * 60)
            b.move(1000, bearing: bearing, speed: 13)
            b.still(40, every: 1)
            b.move(300, bearing: bearing, speed: 4)
            b.move(500, bearing: bearing, speed: 9)
            b.move(200, bearing: bearing, speed: 2.5)
            b.move(800, bearing: bearing, speed: 15)
        }
        b.still(1800, every: 60)
        let store = try storeWith([("car", b.points)])
        try rebuild(store)
        let l = try legs(store)
        #expect(l.map(\.mode) == ["car"], "\(l)")
    }

    /// A drive with a kilometre of stop-and-go jam at walking pace in the middle, the motion coprocessor saying
    /// `driving` throughout: one car leg. Taken for a walk, the jam made the drives around it public transport entered
    /// on foot (a bus, or a train at motorway speed).
    @Test func jamAtWalkingPaceThatTheMotionStatesCallDrivingIsPartOfTheCar() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        b.move(6000, bearing: 0, speed: 25, motion: "driving")
        for _ in 0..<10 {
            b.move(100, bearing: 0, speed: 1.2, motion: "driving")
            b.still(15, every: 1)
        }
        b.move(8000, bearing: 0, speed: 25, motion: "driving")
        b.still(1800, every: 60)
        let store = try storeWith([("car", b.points)])
        try rebuild(store)
        let l = try legs(store)
        #expect(l.map(\.mode) == ["car"], "\(l)")
    }

    /// A car in a Beijing-style jam (issue 23, `crawl_join`, algorithm version 34): between two drives, 9 minutes of
    /// stop-and-go at walking pace — 40-s stands, then 80 m at 1.5 m/s, over 600 m, more than `transfer_min_m` — with no
    /// reported speed (a GPS logger). The rules call the crawl a walk (so the drives around it became public transport
    /// entered on foot); a walker does not stand half the time in stops of 40 s, so it is the car: one car leg. A
    /// steady transfer walk of the same length between the same drives stays a walk.
    @Test func crawlBetweenTwoDrivesIsTheCarAWalkIsAWalk() throws {
        func trip(crawl: Bool) -> [Point] {
            var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
            b.still(1800, every: 60)
            b.move(5000, bearing: 0, speed: 12)
            if crawl {
                for _ in 0..<8 {
                    b.still(40, every: 1)
                    b.move(80, bearing: 0, speed: 1.5)
                }
            } else {
                b.move(640, bearing: 0, speed: 1.4)
            }
            b.move(5000, bearing: 0, speed: 12)
            b.still(1800, every: 60)
            // A logger: no reported speed.
            return b.points.map { var p = $0; p.speedMps = nil; return p }
        }
        for join in [1, 0] {
            let store = try storeWith([("jam", trip(crawl: true)), ("transfer", trip(crawl: false))])
            try rebuild(store, sets: ["trips.crawl_join=\(join)"])
            func modes(_ device: String) throws -> String? {
                try store.db.scalarText(
                    "SELECT group_concat(mode, ',') FROM (SELECT l.mode FROM legs l JOIN devices d ON d.id = l.device_id "
                        + "WHERE d.name = '\(device)' ORDER BY l.start_ms)")
            }
            if join == 1 {
                #expect(try modes("jam") == "car")
            } else {
                #expect(try modes("jam")?.contains("walk") == true, "without the rule the crawl is a walk")
            }
            #expect(try modes("transfer")?.split(separator: ",").contains("walk") == true, "a steady walk between drives stays a walk")
        }
    }

    /// An even 3.1 m/s ride from one place to another is a slow bicycle commute (GeoLife 020's 26 Sep ride was "run");
    /// the same pace round a loop back home is a run.
    @Test func evenPaceOneWayIsACycleALoopIsARun() throws {
        var a = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        a.still(1800, every: 60)
        a.move(3000, bearing: 30, speed: 3.1)
        a.still(1800, every: 60)
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 60)
        for bearing in [0.0, 90, 180, 270] { b.move(1200, bearing: bearing, speed: 3.1) }
        b.still(1800, every: 60)
        let store = try storeWith([("commuter", a.points), ("runner", b.points)])
        try rebuild(store)
        #expect(try store.db.scalarText("SELECT group_concat(l.mode) FROM legs l JOIN devices d ON d.id = l.device_id WHERE d.name = 'commuter'") == "cycle")
        #expect(try store.db.scalarText("SELECT group_concat(l.mode) FROM legs l JOIN devices d ON d.id = l.device_id WHERE d.name = 'runner'") == "run")
    }
}
