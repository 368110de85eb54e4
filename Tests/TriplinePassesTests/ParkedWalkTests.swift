import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// The walks to and from a parked car (`trips.end_walk_s`, algorithm version 63; docs/PASSES.md "A walk to the car"):
/// shorter than `min_leg_s`, they were part of the car leg.
@Suite struct ParkedWalkTests {
    let t0: Int64 = 1_717_200_000_000

    /// Home, a walk of `walkOut` metres to the car, a 6-km drive, a crawl of 20 m into a parking space, a walk of
    /// `walkIn` metres to the door, then still. `states`: the app's motion states (nil: a track without them).
    func drive(walkOut: Double = 40, walkIn: Double = 50, walkInSpeed: Double = 1.3, walkInState: String? = "walking", states: Bool = true) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        func m(_ s: String) -> String? { states ? s : nil }
        b.still(1800, every: 10, drift: 2...5, motion: m("stationary"))
        b.move(walkOut, bearing: 90, speed: 1.3, every: 1, motion: m("walking"))
        b.move(6000, bearing: 0, speed: 12, every: 1, motion: m("driving"))
        // iOS names the change late: the last metres in the car and the first steps still say driving.
        b.move(20, bearing: 0, speed: 2, every: 1, motion: m("driving"))
        b.move(walkIn, bearing: 270, speed: walkInSpeed, every: 1, motion: walkInState.flatMap(m))
        b.still(1800, every: 10, drift: 2...5, motion: m("stationary"))
        return b.points
    }

    /// The legs (mode, seconds) of the one trip a full rebuild of `points` makes with `sets`.
    func legs(_ points: [Point], _ sets: [String] = []) throws -> [(String, Int64)] {
        let store = try storeWith([("phone", points)])
        try rebuild(store, sets: sets)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let q = try store.db.prepare("SELECT mode, end_ms - start_ms FROM legs ORDER BY start_ms")
        var rows: [(String, Int64)] = []
        while try q.step() { rows.append((q.text(0) ?? "", q.int64(1) / 1000)) }
        return rows
    }

    @Test func theWalksToAndFromTheCarAreLegs() throws {
        let found = try legs(drive())
        #expect(found.map(\.0) == ["walk", "car", "walk"], "\(found)")
        // The walk to the door (38 s) starts when the driving state ends: the 20-m crawl (10 s) stays the car's.
        if found.count == 3 {
            #expect((20...40).contains(found[0].1) && (30...40).contains(found[2].1), "\(found)")
        }
        // Off: one car leg, as before.
        #expect(try legs(drive(), ["trips.end_walk_s=0"]).map(\.0) == ["car"])
    }

    @Test func aCrawlThatSaysDrivingIsTheCar() throws {
        // The last 50 m at walking pace, but the phone says driving all along: a car into a multi-storey car park.
        let found = try legs(drive(walkOut: 10, walkInState: "driving"))
        #expect(found.map(\.0) == ["car"], "\(found)")
    }

    @Test func walksOfAFewStepsOrWithoutStatesStayInTheLeg() throws {
        // 25 m to the door, 19 s: under `end_walk_s`; with 10 s it is a walk.
        #expect(try legs(drive(walkOut: 10, walkIn: 25)).map(\.0) == ["car"])
        #expect(try legs(drive(walkOut: 10, walkIn: 25), ["trips.end_walk_s=10"]).map(\.0) == ["car", "walk"])
        // A track without motion states: speeds alone cannot tell the walk from a car creeping into its space.
        #expect(try legs(drive(states: false)).map(\.0) == ["car"])
    }
}

/// Walks that iOS names late (`trips.end_walk_lag_s`, algorithm version 67; docs/PASSES.md "A walk to the car"): out of
/// the car, the first seconds of the walk still say driving; to the car, they still say stationary.
@Suite struct LateNamedWalkTests {
    let t0: Int64 = 1_717_200_000_000

    /// A drive that stops, then a walk of 25 s still saying driving and 17 s saying walking; with `crawl`, the car
    /// creeps on at 2 m/s instead of stopping.
    func outOfTheCar(crawl: Bool = false) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(50, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.move(6000, bearing: 0, speed: 12, every: 1, motion: "driving")
        if crawl { b.move(40, bearing: 0, speed: 2, every: 1, motion: "driving") } else {
            b.move(1, bearing: 0, speed: 1, every: 1, motion: "driving")
            b.still(3, every: 1, motion: "driving")
        }
        b.move(30, bearing: 270, speed: 1.2, every: 1, motion: "driving")
        b.move(20, bearing: 270, speed: 1.2, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        return b.points
    }

    @Test func theWalkFromTheCarStartsWhereTheCarStopped() throws {
        let found = try ParkedWalkTests().legs(outOfTheCar())
        #expect(found.map(\.0) == ["walk", "car", "walk"], "\(found)")
        // From the stop: 3 s standing, 25 s still saying driving, 17 s walking (the last few seconds of which the
        // stay at the door takes), not from the end of the driving state.
        #expect(found.last.map { (35...46).contains($0.1) } == true, "\(found)")
        // Off: what says walking (17 s) is under `end_walk_s`, and the car keeps the walk.
        #expect(try ParkedWalkTests().legs(outOfTheCar(), ["trips.end_walk_lag_s=0"]).map(\.0) == ["walk", "car"])
    }

    @Test func aCrawlWithoutAStopIsNoWalk() throws {
        // The car creeps into its space and nothing stops before the steps: the walk starts where driving ends (17 s,
        // under `end_walk_s`), as before.
        #expect(try ParkedWalkTests().legs(outOfTheCar(crawl: true)).map(\.0) == ["walk", "car"])
    }

    @Test func theWalkToTheCarCountsItsStepsFromTheFirstNamed() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(36, bearing: 90, speed: 1.3, every: 1, motion: "stationary")  // 28 s: not named yet
        b.move(20, bearing: 90, speed: 1.3, every: 1, motion: "walking")  // 16 s
        b.move(600, bearing: 0, speed: 12, every: 1, motion: "walking")  // the car's first minute: still "walking"
        b.move(6000, bearing: 0, speed: 12, every: 1, motion: "driving")
        b.move(50, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        let found = try ParkedWalkTests().legs(b.points)
        #expect(found.first?.0 == "walk" && found.count == 3, "\(found)")
        // Off: 16 of its 44 fixes say walking, and the car keeps the walk.
        #expect(try ParkedWalkTests().legs(b.points, ["trips.end_walk_lag_s=0"]).first?.0 == "car")
    }
}

/// A vehicle in a jam beside a vehicle leg (`trips.jam_driven`, algorithm version 64; docs/PASSES.md "A walk to the
/// car"): walking pace, but the phone says driving, so no walk to or from public transport.
@Suite struct JamDrivenTests {
    @Test func aJamTheStatesCallDrivingMakesNoTrain() throws {
        var b = TrackBuilder(startMs: 1_717_200_000_000, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(450, bearing: 0, speed: 1.5, every: 1, motion: "driving")  // five minutes out of town in a jam
        b.move(12000, bearing: 0, speed: 20, every: 1, motion: "driving")
        b.move(50, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        func modes(_ sets: [String]) throws -> [String] { try ParkedWalkTests().legs(b.points, sets).map(\.0) }
        #expect(try modes([]) == ["car", "walk"])
        // Off, with a walk at either end enough for public transport (`transit_feet` 1, as before version 99): the jam
        // is a walk to the station by its pace, and the drive after it a train.
        #expect(try modes(["trips.jam_driven=0", "trips.transit_feet=1"]) == ["car", "train", "walk"])
    }
}

/// One mode, one leg (`trips.join_same_mode`, algorithm version 66): runs of two speed classes whose modes come out
/// the same are one leg, unless a silence of `trips.leg_gap_s` parts them.
@Suite struct SameModeLegTests {
    /// Still, a drive that crawls `crawl` metres at walking pace saying driving, then 8 km at speed, after a silence of
    /// `silence` seconds (0: none), a walk of 60 m, still.
    func legs(silence: Double = 0, _ sets: [String] = []) throws -> [(String, Int64)] {
        var b = TrackBuilder(startMs: 1_717_200_000_000, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(450, bearing: 0, speed: 1.5, every: 1, motion: "driving")
        if silence > 0 { b.move(silence * 15, bearing: 0, speed: 15, every: Int(silence), motion: "driving") }
        b.move(8000, bearing: 0, speed: 20, every: 1, motion: "driving")
        b.move(60, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        return try ParkedWalkTests().legs(b.points, sets)
    }

    @Test func runsOfOneModeAreOneLeg() throws {
        let found = try legs()
        #expect(found.map(\.0) == ["car", "walk"], "\(found)")
        // The one car leg spans both runs: the 5-min crawl and the 400-s drive.
        #expect(found.first.map { (690...720).contains($0.1) } == true, "\(found)")
        // Off: the crawl and the drive are two car legs, as before.
        #expect(try legs(["trips.join_same_mode=0"]).map(\.0) == ["car", "car", "walk"])
    }

    @Test func aSilenceKeepsTwoLegs() throws {
        // Eleven minutes without a fix between the crawl and the drive: each side is a leg of its own.
        #expect(try legs(silence: 660).map(\.0) == ["car", "car", "walk"])
    }
}

/// Bike and ride (`trips.profile_states`, algorithm version 65; docs/PASSES.md "A walk to the car"): a bicycle ridden to
/// the station and the train after it are two legs when the motion states say cycling, then driving, though the
/// whole-profile rule joins runs of a bicycle's pace and faster into one vehicle.
@Suite struct BikeAndRideTests {
    @Test func theBicycleToTheStationIsALegOfItsOwn() throws {
        var b = TrackBuilder(startMs: 1_717_200_000_000, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(1800, bearing: 0, speed: 5, every: 1, motion: "cycling")
        b.move(60, bearing: 90, speed: 1.0, every: 1, motion: "walking")  // lock the bicycle, up to the platform
        b.still(60, every: 1, drift: 1...3, motion: "stationary")
        for _ in 0..<6 {  // a suburban train: 2 km between stations, 40 s at each
            b.move(2000, bearing: 0, speed: 16, every: 1, motion: "driving")
            b.still(40, every: 1, drift: 1...3, motion: "driving")
        }
        b.move(60, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        func modes(_ sets: [String]) throws -> [String] { try ParkedWalkTests().legs(b.points, sets).map(\.0) }
        let found = try modes([])
        #expect(found.first == "cycle" && found.count >= 2 && !found.dropFirst().contains("cycle"), "\(found)")
        let joined = try modes(["trips.profile_states=0"])
        #expect(!joined.contains("cycle"), "\(joined)")
    }
}

/// Motion states that name the last activity (algorithm version 68; docs/PASSES.md "A walk to the car"): a car's first
/// minute still says walking (`trips.motion_walk_max_mps`), and out of the car for a few minutes the phone feels the
/// steps however long the person stands (`trips.stop_on_foot`).
@Suite struct MotionOnFootTests {
    let t0: Int64 = 1_717_200_000_000

    /// The legs (mode, start s after `t0`, seconds) of the one trip of `points`.
    func legs(_ points: [Point], _ sets: [String] = []) throws -> [(String, Int64, Int64)] {
        let store = try storeWith([("phone", points)])
        try rebuild(store, sets: sets)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let q = try store.db.prepare("SELECT mode, start_ms, end_ms FROM legs ORDER BY start_ms")
        var rows: [(String, Int64, Int64)] = []
        while try q.step() { rows.append((q.text(0) ?? "", (q.int64(1) - t0) / 1000, (q.int64(2) - q.int64(1)) / 1000)) }
        return rows
    }

    @Test func aShortDriveStillSayingWalkingIsACar() throws {
        // A kilometre moving the car, too short for iOS to name it: every fix of it still says walking.
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(50, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.move(1300, bearing: 0, speed: 11, every: 1, motion: "walking")
        b.move(60, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        let found = try legs(b.points)
        #expect(found.map(\.0) == ["walk", "car", "walk"], "\(found)")
        // Off: a kilometre in two minutes is one walk by its states.
        #expect(try legs(b.points, ["trips.motion_walk_max_mps=0"]).map(\.0) == ["walk"])
    }

    /// A drive, out of the car to a cash machine (60 m, 4 min standing, 60 m back) and on.
    func errand() -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(6000, bearing: 0, speed: 12, every: 1, motion: "driving")
        b.still(5, every: 1, motion: "driving")
        b.move(60, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(240, every: 1, drift: 0...1, motion: "walking,stationary")
        b.move(60, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.move(6000, bearing: 0, speed: 12, every: 1, motion: "driving")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        return b.points
    }

    @Test func outOfTheCarAndBackIsAWalk() throws {
        let found = try legs(errand()).map(\.0)
        // A walk between two car legs, and the walk that returns to the car makes no bus of them.
        #expect(found == ["car", "walk", "car"], "\(found)")
        // Off: standing four minutes is no pedestrian's walk, and the car keeps it.
        #expect(try legs(errand(), ["trips.stop_on_foot=0"]).map(\.0) == ["car"])
    }
}

/// A car park far from the door, and a shop a few hundred metres from where the car stood (`trips.transit_feet`,
/// `trips.stop_on_foot`, algorithm version 99; the sixteenth hostile round): a drive with a walk of two minutes or
/// more at one end was a bus ("walks beside a vehicle mean public transport"), and one with an out-and-back walk of
/// 2 × 250 m in the middle was bus → walk → bus.
@Suite struct FarCarParkTests {
    let t0: Int64 = 1_717_200_000_000

    /// The modes of the legs of the one trip a full rebuild of `points` makes with `sets`.
    func modes(_ points: [Point], _ sets: [String] = []) throws -> [String] {
        let store = try storeWith([("phone", points)])
        try rebuild(store, sets: sets)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let q = try store.db.prepare("SELECT mode FROM legs ORDER BY start_ms")
        var rows: [String] = []
        while try q.step() { rows.append(q.text(0) ?? "") }
        return rows
    }

    /// Home, a 6-km drive at 11 m/s, into a space, a walk of `walk` metres to the shop; `states`: the app's motion states.
    func driveToAFarDoor(walk: Double, states: Bool = true) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        func m(_ s: String) -> String? { states ? s : nil }
        b.still(1800, every: 10, drift: 2...5, motion: m("stationary"))
        b.move(10, bearing: 90, speed: 1.3, every: 1, motion: m("walking"))
        b.move(6000, bearing: 0, speed: 11, every: 1, motion: m("driving"))
        b.move(40, bearing: 0, speed: 2, every: 1, motion: m("driving"))
        b.still(30, every: 1, motion: m("stationary"))
        b.move(walk, bearing: 270, speed: 1.3, every: 1, motion: m("walking"))
        b.still(1800, every: 10, drift: 2...5, motion: m("stationary"))
        return b.points
    }

    @Test func aWalkFromAFarCarParkLeavesTheDriveACar() throws {
        for walk in [300.0, 500] {
            #expect(try modes(driveToAFarDoor(walk: walk)) == ["car", "walk"], "\(walk) m")
            // As before: a walk at either end made public transport.
            #expect(try modes(driveToAFarDoor(walk: walk), ["trips.transit_feet=1"]) == ["bus", "walk"], "\(walk) m")
        }
        // Speeds alone: the same.
        #expect(try modes(driveToAFarDoor(walk: 300, states: false)) == ["car", "walk"])
    }

    @Test func aBusWalkedToAndFromIsABus() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(350, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(180, every: 1, motion: "stationary")  // at the stop
        for _ in 0..<8 {  // 8 stops, 600 m apart
            b.move(600, bearing: 0, speed: 9, every: 1, motion: "driving")
            b.still(25, every: 1, motion: "driving")
        }
        b.move(350, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        #expect(try modes(b.points) == ["walk", "bus", "walk"])
    }

    /// The seventeenth hostile round, on the first form of the rule: a bus walked to for 3 min and from for 1 min was a
    /// car (the short walk, a walk to a parked car by its length, closed that end); an iPhone lying still at home with
    /// a fix every 15 min, then a drive and a 4-min walk, was a bus (the silence read as a logger switched on).
    @Test func aShortWalkFromTheStopStillMakesABus() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(234, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(180, every: 1, motion: "stationary")  // at the stop
        for _ in 0..<8 {
            b.move(750, bearing: 0, speed: 9, every: 1, motion: "driving")
            b.still(20, every: 1, motion: "driving")
        }
        b.move(78, bearing: 270, speed: 1.3, every: 1, motion: "walking")  // a minute to the office
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        let found = try modes(b.points)
        #expect(found.contains("bus") && !found.contains("car"), "\(found)")
    }

    @Test func aPhoneAtRestBeforeADriveIsNoLoggerSwitchedOn() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3 * 3600, every: 900, drift: 2...5, motion: "stationary")  // iOS at rest: a fix every 15 min
        b.move(9000, bearing: 0, speed: 11, every: 1, motion: "driving")
        b.move(40, bearing: 0, speed: 2, every: 1, motion: "driving")
        b.still(30, every: 1, motion: "stationary")
        b.move(312, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        #expect(try modes(b.points) == ["car", "walk"])
    }

    /// Park and ride (the seventeenth hostile round): a walk of 260 m to the platform and a 4-min wait there, the phone
    /// saying walking then stationary. Most of that run stood still, so it was no walk by the phone's word, and having
    /// moved less than `transfer_min_m` it joined the drive and the train into one leg.
    @Test func aWaitOnThePlatformKeepsTheWalkBetweenCarAndTrain() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(8000, bearing: 0, speed: 11, every: 1, motion: "driving")
        b.move(30, bearing: 0, speed: 2, every: 1, motion: "driving")
        b.still(20, every: 1, motion: "stationary")
        b.move(260, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(240, every: 1, motion: "stationary")  // on the platform
        b.move(20_000, bearing: 0, speed: 25, every: 1, motion: "driving")
        b.still(20, every: 1, motion: "driving")
        b.move(300, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        #expect(try modes(b.points) == ["car", "walk", "train", "walk"])
    }

    @Test func aShopAFewHundredMetresFromTheCarIsAnErrandOnFoot() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        b.move(300, bearing: 90, speed: 1.3, every: 1, motion: "walking")  // to where the car stands
        b.move(5000, bearing: 0, speed: 11, every: 1, motion: "driving")
        b.still(20, every: 1, motion: "stationary")
        b.move(250, bearing: 90, speed: 1.3, every: 1, motion: "walking")
        b.still(120, every: 5, drift: 2...5, motion: "stationary")  // in the shop
        b.move(250, bearing: 270, speed: 1.3, every: 1, motion: "walking")
        b.still(20, every: 1, motion: "stationary")
        b.move(5000, bearing: 0, speed: 11, every: 1, motion: "driving")
        b.still(20, every: 1, motion: "stationary")
        b.move(300, bearing: 270, speed: 1.3, every: 1, motion: "walking")  // from the car park
        b.still(1800, every: 10, drift: 2...5, motion: "stationary")
        // Walked to and from at both ends, but the walk in the middle ends where it began: out of the car and back.
        #expect(try modes(b.points) == ["walk", "car", "walk", "car", "walk"])
    }
}
