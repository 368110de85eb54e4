import Testing
import TriplineStore
import TriplineSimulator
import TriplineEvaluation
import TriplineTestSupport

/// The app-trips pass on a simulated Overland user's recorded trips (loaded with their truth by the evaluation).
@Suite struct AppTripMatchTests {
    @Test func appTripsAreComparedWithRebuiltTrips() throws {
        let result = Simulator(config: SimulatorConfig(seed: 8, days: 4, people: 1)).run()
        let appTrips = result.devices[0].appTrips
        try #require(!appTrips.isEmpty, "the simulated Overland user recorded trips in the app")
        let store = try Store(path: try temporaryDirectory() + "/a.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try rebuild(store, timezone: "Europe/Berlin")
        #expect(try count(store, "SELECT count(*) FROM app_trip_matches") == appTrips.count)
        #expect(try count(store, "SELECT count(*) FROM app_trip_matches WHERE trip_id IS NOT NULL AND overlap >= 0.8") == appTrips.count)
        // The app's distances are within −3 %…+6 % of the truth; the rebuilt ones close to it.
        #expect(try double(store, "SELECT max(abs(distance_diff_m) / e.distance_m) FROM app_trip_matches m JOIN app_events e ON e.id = m.event_id") < 0.1)
    }
}
