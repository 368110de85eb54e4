#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineStore
import TriplineTestSupport

/// The learned drift-or-walk decision of the trips pass (``TripCutModel``, docs/PASSES.md "Learned: drift or walk").
@Suite struct TripCutTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    /// Home; a 10-min zigzag 280 m out and back (a phone carried round the block; less than the stays pass's
    /// `excursion_m`, 250 m, would stay inside the stay; slower, it would be a stay of its own); home; a walk round the park,
    /// 700 m out and back; home; a walk to a shop 900 m away, a 20-min visit, and back; home.
    func day() -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 60, drift: 5...15)
        for bearing in [80.0, 100, 90, 260, 280, 270] { b.move(95, bearing: bearing, speed: 1.0, every: 5) }
        b.still(3600, every: 60, drift: 5...15)
        b.move(700, bearing: 0, speed: 1.4, every: 5)
        b.move(700, bearing: 180, speed: 1.4, every: 5)
        b.still(3600, every: 60, drift: 5...15)
        b.move(900, bearing: 90, speed: 1.4, every: 5)
        b.still(1200, every: 60, drift: 5...15)
        b.move(900, bearing: 270, speed: 1.4, every: 5)
        b.still(3600, every: 60, drift: 5...15)
        // No reported speed or accuracy, as GeoLife's PLT files: the speeds come from displacement.
        return b.points.map { var p = $0; p.speedMps = nil; p.accuracyM = nil; return p }
    }

    func rebuilt(_ model: TripCutModel?, sets: [String]) throws -> Store {
        let store = try storeWith([("phone", day())])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        for s in sets { try options.settings.set(s, origin: "test") }
        options.settings.tripCutModel = model
        _ = try Rebuild(store: store, options: options).run()
        return store
    }

    /// A model that calls drift whatever never left 300 m of its first fix.
    let nearIsDrift = TripCutModel(base: 0, stumps: [.init(TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!, 5.707, 20, -20)], threshold: 0.5)

    @Test func theModelDropsTheCandidatesItCallsDrift() throws {
        // Off: the wander is a trip (560 m of path), as before the model.
        #expect(try count(try rebuilt(nearIsDrift, sets: ["trips.cut_model=0"]), "SELECT count(*) FROM trips") == 4)
        // On: the wander goes; the walk round the park and the walks to the shop and back stay.
        let store = try rebuilt(nearIsDrift, sets: [])
        #expect(try count(store, "SELECT count(*) FROM trips") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE distance_m > 700") == 3)
        // A model that calls nothing drift changes nothing.
        let never = TripCutModel(base: -20, stumps: [], threshold: 0.5)
        #expect(try count(try rebuilt(never, sets: []), "SELECT count(*) FROM trips") == 4)
    }

    /// The shipped coefficients (trained on GeoLife) call the wander drift and keep the walks.
    @Test func theShippedModelDropsTheWander() throws {
        let store = try rebuilt(nil, sets: [])
        #expect(try count(store, "SELECT count(*) FROM trips") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE distance_m > 700") == 3)
    }

    /// The features the pass logs: only candidates, trips back to the place they left (the walks to the shop and back
    /// go from one place to another); the wander's farthest fix is about 280 m from its first, the park walk's 650–700 m.
    @Test func featuresOfTheCandidates() throws {
        let log = TripCutLog()
        let store = try storeWith([("phone", day())])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        try options.settings.set("trips.cut_model=0", origin: "test")
        options.settings.tripCutLog = log
        _ = try Rebuild(store: store, options: options).run()
        let entries = log.take()
        #expect(entries.count == 2)
        let far = TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!
        let metres = entries.map { exp($0.features[far]) - 1 }
        #expect(metres.count == 2 && metres[0] > 230 && metres[0] < 300 && metres[1] > 600 && metres[1] < 800, "\(metres)")
        #expect(entries.allSatisfy { $0.features.count == TripCutFeatures.names.count && !$0.dropped })
    }

    /// The text form `evaluate --trip-cut-model` reads: errors name the file and line.
    @Test func modelText() throws {
        let m = try TripCutModel(text: "# a comment\nbase -1.5\nthreshold 0.6\nstump log_fixes 2.5 0.25 -0.5\nend 3\n", origin: "m.txt")
        #expect(m == TripCutModel(base: -1.5, stumps: [.init(1, 2.5, 0.25, -0.5)], threshold: 0.6))
        #expect(throws: ModelFileError.self) { try TripCutModel(text: "base 1\nthreshold x\nend 2\n", origin: "m.txt") }
        do {
            _ = try TripCutModel(text: "base 0\nthreshold 0.5\nstump no_such 1 2 3\nend 3\n", origin: "m.txt")
            Issue.record("an unknown feature was accepted")
        } catch let e as ModelFileError {
            #expect(e.path == "m.txt" && e.line == 3, "\(e)")
            #expect(e.description.hasPrefix("m.txt:3: "), "\(e)")
        }
        #expect(throws: ModelFileError.self) { try TripCutModel(text: "stump log_fixes 1 2 3\nend 1\n", origin: "m.txt") }
    }
}
