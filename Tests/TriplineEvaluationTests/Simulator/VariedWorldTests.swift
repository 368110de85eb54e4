import Testing
@testable import TriplineCore
@testable import TriplineSimulator
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
                t.legs.count > 1 && t.legs.allSatisfy { [.walk, .car, .cycle].contains($0.mode) }
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
                suburbanDrives += r.truth.trips.filter { $0.device == d.name && $0.distanceM >= 15_000 && $0.legs.allSatisfy { $0.mode == .car } }.count
            }
        }
        #expect(shortStays >= 20, "\(shortStays) stays of 5–10 min")
        #expect(waitsAtPlaces >= 5, "\(waitsAtPlaces) trips through a short stop")
        #expect(shortTrips >= 30, "\(shortTrips) trips of at most 5 min")
        #expect(closePairs >= 5, "\(closePairs) pairs of places 80–300 m apart")
        #expect(suburbanDrives >= 5, "\(suburbanDrives) suburban drives of 15 km or more")
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
