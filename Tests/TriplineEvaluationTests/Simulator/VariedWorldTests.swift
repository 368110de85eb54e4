import Testing
@testable import TriplineCore
@testable import TriplineSimulator
import TriplineGeography
import TriplineTestSupport

/// The varied world (`--world varied`, docs/SIMULATOR.md "A varied world"): what it promises, and the standard world
/// left as it was.
@Suite struct VariedWorldTests {
    static func simulate(seed: UInt64, world: SimulatedWorldKind = .varied) -> SimulationResult {
        var config = SimulatorConfig(seed: seed, days: 4, people: 2)
        config.profile = .denseOverland
        config.useWorld(world)
        return Simulator(config: config).run()
    }

    static func km(_ p: TruthPlace, _ lat: Double, _ lon: Double) -> Double { Geo.distance(p.lat, p.lon, lat, lon) / 1000 }

    /// Every place of the varied world lies on land: Melbourne's bay is no suburb. (Until 2026-12-06 development seeds
    /// 4, 5 and 8 put a person's home in Port Phillip Bay, and every drive near it was rebuilt as a ferry.) The
    /// standard world (Berlin, no sea within its reach) is left as it was.
    @Test func placesLieOnLand() {
        var atSea: [String] = []
        for seed: UInt64 in 1...40 {
            var config = SimulatorConfig(seed: seed, days: 1, people: 2)
            config.useWorld(.varied)
            let sim = Simulator(config: config)
            for person in 0..<2 {
                for p in sim.makeVariedWorld(person: person).places where Geography.country(latitude: p.lat, longitude: p.lon) == nil {
                    atSea.append("seed \(seed) person \(person) \(p.kind) \(p.lat), \(p.lon)")
                }
            }
        }
        #expect(atSea.isEmpty, "\(atSea.count) places at sea: \(atSea.prefix(5))")
    }

    /// Short stops (stays of 5–10 min, and stops of 3–5 min inside one trip), trips of at most 5 min, 6 or more
    /// scattered places per person with some 80–300 m apart, suburban people driving 15 km or more, in Melbourne.
    @Test func variedWorldHasWhatItPromises() throws {
        var shortStays = 0, waitsAtPlaces = 0, shortTrips = 0, closePairs = 0, suburbanDrives = 0
        for seed: UInt64 in 1...5 {
            let r = Self.simulate(seed: seed)
            #expect(r.truth.timeZoneName == "Australia/Melbourne")
            #expect(r.truth.places.allSatisfy { $0.lat < -36 && $0.lat > -40 || $0.kind == "hotel" })
            // The truth rule: a stop under 5 min is inside a trip; every stay lasts 5 min or more.
            #expect(r.truth.stays.allSatisfy { $0.durationS >= Simulator.variedStayFloorS })
            shortStays += r.truth.stays.filter { $0.durationS < 600 }.count
            // A trip through a place it stopped at: consecutive legs of one errand mode, the later one waiting first.
            waitsAtPlaces += r.truth.trips.filter { t in
                let own = t.legs.filter { $0.habit == nil || $0.habit == "jam_start" }
                return own.count > 1 && own.allSatisfy { [.walk, .car, .cycle].contains($0.mode) }
            }.count
            shortTrips += r.truth.trips.filter { $0.endMs - $0.startMs <= 300_000 }.count
            let standardKinds: Set<String> = [
                "home", "work", "shop_a", "shop_b", "lunch", "park", "friend", "far", "stop_home", "stop_work", "station_home",
                "station_work", "airport", "hotel",
            ]
            for person in 0..<2 {
                let own = r.truth.places.filter { $0.person == person && !standardKinds.contains($0.kind) }
                #expect(own.count >= 6, "seed \(seed) person \(person): \(own.count) places of their own")
                for (i, a) in own.enumerated() {
                    for b in own[(i + 1)...] where (0.08...0.3).contains(Self.km(a, b.lat, b.lon)) { closePairs += 1 }
                }
            }
            let homes = Dictionary(uniqueKeysWithValues: r.truth.places.filter { $0.kind == "home" }.map { ($0.person, $0) })
            for d in r.devices {
                let home = try #require(homes[d.person])
                guard Self.km(home, r.config.originLat, r.config.originLon) >= 15 else { continue }
                suburbanDrives += r.truth.trips.filter { $0.device == d.name && $0.distanceM >= 15_000 && $0.legs.contains { $0.mode == .car }
                    && $0.legs.allSatisfy { $0.mode == .car || $0.habit == "parking" }
                }.count
            }
        }
        #expect(shortStays >= 20, "\(shortStays) stays of 5–10 min")
        #expect(waitsAtPlaces >= 5, "\(waitsAtPlaces) trips through a short stop")
        #expect(shortTrips >= 30, "\(shortTrips) trips of at most 5 min")
        #expect(closePairs >= 5, "\(closePairs) pairs of places 80–300 m apart")
        #expect(suburbanDrives >= 5, "\(suburbanDrives) suburban drives of 15 km or more")
    }

    /// Three habits of real people (docs/SIMULATOR.md "A varied world"), each in the truth and in the archive's fixes:
    /// every drive starts and ends with a walk of 20–90 s between the door and the car; half the drives of 8 km or
    /// more start with a stand and minutes of stop-and-go before a ring road at 17–30 m/s; bike-and-ride commuters
    /// cycle to the station and ride a train at 15–25 m/s.
    @Test func realPeoplesHabitsAreInTheTruthAndTheArchives() throws {
        var drives = 0, walksToTheCar = 0, walksSeen = 0, jams = 0, jamsSeen = 0, rides = 0, ridesSeen = 0
        for seed: UInt64 in 1...6 {
            let r = Self.simulate(seed: seed)
            for trip in r.truth.trips {
                let points = try #require(r.devices.first { $0.name == trip.device }).points
                func speeds(_ a: Int64, _ b: Int64) -> [Double] {
                    points.filter { $0.timeMs >= a && $0.timeMs <= b }.compactMap(\.speedMps).sorted()
                }
                for (i, leg) in trip.legs.enumerated() where leg.mode == .car {
                    drives += 1
                    let before = trip.legs[max(0, i - 1)], after = trip.legs[min(trip.legs.count - 1, i + 1)]
                    #expect(i > 0 && before.mode == .walk && before.habit == "parking" && after.mode == .walk && after.habit == "parking")
                    if (18_000...95_000).contains(before.endMs - before.startMs) { walksToTheCar += 1 }
                    // The walk from the car, at a walker's pace (1 Hz fixes while moving).
                    let walk = speeds(after.startMs + 5000, min(after.endMs, after.startMs + 20_000))
                    if walk.count >= 5, (0.5...2.0).contains(walk[walk.count / 2]) { walksSeen += 1 }
                    guard leg.habit == "jam_start" else { continue }
                    jams += 1
                    let crawl = speeds(leg.startMs, leg.startMs + 300_000)
                    let ring = speeds(leg.startMs + 780_000, leg.endMs)
                    if crawl.count >= 30, crawl.last! <= 7, ring.count >= 30, ring[ring.count * 9 / 10] >= 16 { jamsSeen += 1 }
                }
                guard let cycle = trip.legs.firstIndex(where: { $0.mode == .cycle && $0.habit == "bike_and_ride" }) else { continue }
                rides += 1
                let train = try #require(trip.legs.first { $0.mode == .train })
                #expect(train.habit == "bike_and_ride" && abs(cycle - (trip.legs.firstIndex { $0.mode == .train })!) == 1)
                let bike = trip.legs[cycle]
                #expect((4 * 60_000...17 * 60_000).contains(bike.endMs - bike.startMs), "cycle \(bike.endMs - bike.startMs) ms")
                #expect((10 * 60_000...36 * 60_000).contains(train.endMs - train.startMs), "train \(train.endMs - train.startMs) ms")
                let pedal = speeds(bike.startMs + 60_000, bike.endMs - 240_000), rail = speeds(train.startMs, train.endMs)
                if pedal.count >= 30, (3...7).contains(pedal[pedal.count / 2]), rail.count >= 30, rail[rail.count * 9 / 10] >= 15 {
                    ridesSeen += 1
                }
            }
        }
        #expect(drives >= 40 && walksToTheCar == drives, "\(walksToTheCar) of \(drives) walks to the car of 20–90 s")
        #expect(walksSeen * 2 >= drives, "\(walksSeen) of \(drives) walks from the car seen at walking pace")
        #expect(jams >= 4 && jamsSeen * 2 >= jams, "\(jamsSeen) of \(jams) drives starting in a jam seen crawling, then fast")
        #expect(rides >= 4 && ridesSeen * 2 >= rides, "\(ridesSeen) of \(rides) bike-and-ride commutes seen cycling, then by train")
    }

    /// The standard world is as it was (the same fixes as a configuration that never names a world), with no place of the
    /// varied kinds and Berlin's zone; and the
    /// varied world is deterministic.
    @Test func standardWorldUnchangedAndVariedDeterministic() {
        let standard = Self.simulate(seed: 2, world: .standard)
        var plain = SimulatorConfig(seed: 2, days: 4, people: 2)
        plain.profile = .denseOverland
        let reference = Simulator(config: plain).run()
        #expect(plain.world == .standard)
        #expect(standard.truth.timeZoneName == "Europe/Berlin")
        #expect(standard.devices.map(\.points) == reference.devices.map(\.points))
        #expect(standard.truth.places.count == 28 && !standard.truth.places.contains { $0.kind == "bakery" })
        let a = Self.simulate(seed: 4), b = Self.simulate(seed: 4)
        #expect(a.devices.map(\.points) == b.devices.map(\.points))
        #expect(a.truth.trips.map(\.startMs) == b.truth.trips.map(\.startMs))
    }
}
