import Testing
import TriplineCore
import TriplineTestSupport

/// `tripline evaluate --archives`: the simulation written as the apps' archives and imported, as a user's data goes.
@Suite struct EvaluateArchivesCLITests {
    /// The archives keep what the rebuild needs of the simulated fixes: trips and visits score the same either way
    /// (the writer and the importer lose nothing that matters), and one seed leaves its archives beside --db.
    @Test func archivesScoreLikeTheSimulatedFixes() throws {
        let dir = try temporaryDirectory()
        func trips(_ extra: [String]) throws -> [Substring] {
            let r = runCLI(["evaluate", "--profile", "sparse-owntracks", "--seed", "13", "--days", "2", "--db", dir + "/\(extra.count).sqlite"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").filter { $0.contains("trips:") || $0.contains("visits:") || $0.contains("F1") }
        }
        let direct = try trips([]), archived = try trips(["--archives"])
        #expect(direct.count == 5)  // trips, their F1, visits, their F1, the hidden line
        #expect(direct == archived)
        #expect(FileSystem.kind(dir + "/1.sqlite.archives/rec") == .directory)
    }
}
