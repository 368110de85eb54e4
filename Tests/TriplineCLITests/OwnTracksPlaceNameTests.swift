import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// OwnTracks' own names for places: a region entered (`transition` with `desc`) and a region the user defined
/// (`waypoint` with `desc` and `rad`) name the places where the fixes stayed (docs/PASSES.md, "Place names").
@Suite struct OwnTracksPlaceNameTests {
    @Test func regionNamesNameThePlaces() throws {
        let gym = (lat: 48.1400, lon: 11.5600), library = (lat: 48.1400, lon: 11.5800)
        var lines: [String] = []
        var t: Int64 = 1_714_557_600  // 2024-05-01T10:00:00Z
        func fix(_ lat: Double, _ lon: Double) {
            lines.append("{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":\(t),\"lat\":\(lat),\"lon\":\(lon),\"acc\":10,\"vel\":0}")
        }
        // The user's regions, defined once.
        lines.append("{\"_type\":\"waypoint\",\"tid\":\"ot\",\"tst\":\(t - 86_400),\"lat\":\(library.lat),\"lon\":\(library.lon),\"rad\":80,\"desc\":\"Library\"}")
        lines.append("{\"_type\":\"transition\",\"tid\":\"ot\",\"tst\":\(t),\"lat\":\(gym.lat),\"lon\":\(gym.lon),\"acc\":10,\"event\":\"enter\",\"desc\":\"Gym\",\"t\":\"c\"}")
        for _ in 0..<60 { fix(gym.lat, gym.lon); t += 60 }
        for k in 1...30 { fix(gym.lat, gym.lon + (library.lon - gym.lon) * Double(k) / 30); t += 10 }
        for _ in 0..<80 { fix(library.lat, library.lon); t += 60 }
        let dir = try temporaryDirectory()
        try FileSystem.write(lines.joined(separator: "\n") + "\n", to: dir + "/ot.json")
        #expect(runCLI(["import", "--db", dir + "/t.sqlite", dir + "/ot.json"]).status == 0)
        let r = runCLI(["rebuild", "--db", dir + "/t.sqlite", "--timezone", "UTC"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try Store(path: dir + "/t.sqlite")
        let q = try store.db.prepare("SELECT name FROM places ORDER BY first_visit_ms")
        var names: [String] = []
        while try q.step() { names.append(q.text(0) ?? "") }
        #expect(names == ["Gym", "Library"])
    }
}
