import Testing
import TriplineCore
@testable import TriplineStore
import TriplineSimulator
import TriplineEvaluation
import TriplineTestSupport

/// Place names on real and simulated histories (docs/PASSES.md, "Place names"): no two places of a device share a
/// name, and the simulated people's home and work are named `Home` and `Work`.
@Suite struct PlaceNameCorpusTests {
    /// Devices with a name more than one of their places bears.
    static func sharedNames(_ store: Store) throws -> [String] {
        let q = try store.db.prepare("SELECT device_id, name, count(*) FROM places GROUP BY device_id, name HAVING count(*) > 1 ORDER BY 1, 2")
        var out: [String] = []
        while try q.step() { out.append("\(q.int64(0)): \(q.text(1) ?? "") ×\(q.int64(2))") }
        return out
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent), arguments: [
        "google-real/iannellif-geoloc", "google-real/kavuru04-cs6501", "reitti", "dawarich", "owntracks-recorder",
        "owntracks-android", "trackintel", "geolife",
    ])
    func noTwoPlacesOfADeviceShareANameInTheCorpus(_ folder: String) throws {
        let db = try temporaryDirectory() + "/t.sqlite"
        let imported = runCLI(["import", "--db", db, corpusPath(folder)])
        #expect(imported.status == 0 || imported.status == 1, "\(imported.stderr)")
        let rebuilt = runCLI(["rebuild", "--db", db])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let store = try Store(path: db)
        #expect(try Self.sharedNames(store) == [], "\(folder)")
        let figures = try strings(db, """
            SELECT count(*), sum(name = 'Home'), sum(name = 'Work'), sum(name LIKE '% (_)' OR name LIKE '% (__)'), sum(name LIKE 'near %')
            FROM places
            """)
        print("place names \(folder): places|Home|Work|qualified|near: \(figures)")
    }

    @Test(arguments: [SimulationProfile.classic, .denseOverland, .sparseOwnTracks, .mixed])
    func simulatedPeopleHaveAHomeAndAWork(_ profile: SimulationProfile) throws {
        var config = SimulatorConfig(seed: 61, days: 14, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        _ = try SimulationEvaluation.load(result, into: store)
        let r = runCLI(["rebuild", "--db", dir + "/t.sqlite", "--timezone", result.truth.timeZoneName])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.sharedNames(store) == [], "\(profile)")
        for device in result.devices {
            guard let id = try store.db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(device.name)]) else { continue }
            for kind in ["home", "work"] {
                guard let truth = result.truth.places.first(where: { $0.person == device.person && $0.kind == kind }) else { continue }
                let q = try store.db.prepare("SELECT name, lat, lon FROM places WHERE device_id = ?")
                q.bindInt(id, at: 1)
                var nearest: (String, Double)? = nil
                while try q.step() {
                    let d = Geo.distance(q.double(1), q.double(2), truth.lat, truth.lon)
                    if nearest == nil || d < nearest!.1 { nearest = (q.text(0) ?? "", d) }
                }
                #expect(nearest?.0 == (kind == "home" ? "Home" : "Work"), "\(profile) \(device.name) \(kind): \(String(describing: nearest))")
            }
        }
    }
}
