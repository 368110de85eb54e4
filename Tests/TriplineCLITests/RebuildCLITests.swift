import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineSimulator
@testable import TriplineEvaluation
import TriplineTestSupport

@Suite struct RebuildCLITests {
    func simulatedDatabase() throws -> (String, String) {
        let dir = try temporaryDirectory()
        let result = Simulator(config: SimulatorConfig(seed: 31, days: 2, people: 2)).run()
        let store = try Store(path: dir + "/t.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try FileSystem.write(SimulationWriter.truthJSON(result), to: dir + "/truth.json")
        return (dir + "/t.sqlite", dir + "/truth.json")
    }

    @Test func rebuildPrintsEachPassThenIsUpToDate() throws {
        let (db, _) = try simulatedDatabase()
        let first = runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"])
        #expect(first.status == 0, "\(first.stderr)")
        for pass in Rebuild.passOrder { #expect(first.stdout.contains("  \(pass) "), "\(pass) in \(first.stdout)") }
        #expect(first.stdout.contains("overland-1") && first.stdout.contains("owntracks-2"))
        let second = runCLI(["rebuild", "--db", db])
        #expect(second.status == 0)
        #expect(second.stdout.contains("up to date"))
        let json = runCLI(["rebuild", "--db", db, "--full", "--json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("{\"seconds\":"))
    }

    @Test func badParametersAreUsageErrors() throws {
        let (db, _) = try simulatedDatabase()
        let r = runCLI(["rebuild", "--db", db, "--set", "stays.radius=5"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown parameter 'stays.radius'"))
        #expect(runCLI(["rebuild", "--db", db, "--pass", "nope"]).status == 64)
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Mars/Olympus"]).status == 64)
    }

    @Test func singlePassRerunsAlone() throws {
        let (db, _) = try simulatedDatabase()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        let store = try Store(path: db)
        let before = try store.db.scalarInt("SELECT count(*) FROM trips")
        let r = runCLI(["rebuild", "--db", db, "--pass", "trips", "--set", "trips.min_leg_s=60"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try store.db.scalarInt("SELECT count(*) FROM trips") == before)
        #expect(try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'trips' ORDER BY id DESC LIMIT 1")?.contains("\"min_leg_s\":60") == true)
        #expect(runCLI(["rebuild", "--db", db, "--pass", "metrics"]).status == 0)
    }

    @Test func scorePrintsAgainstTruth() throws {
        let (db, truth) = try simulatedDatabase()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "Europe/Berlin"]).status == 0)
        let r = runCLI(["score", "--db", db, "--truth", truth])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("F1 1.00"), "\(r.stdout)")
        // A database that holds none of the truth's devices is an error, not a score of 0 (the twelfth hostile round:
        // "F1 0.00", exit 0).
        let other = FileSystem.directoryName(db) + "/other.sqlite"
        _ = try Store(path: other)
        let wrong = runCLI(["score", "--db", other, "--truth", truth])
        #expect(wrong.status == 1 && wrong.stderr.contains("holds none of the truth's devices"), "\(wrong.status) \(wrong.stdout) \(wrong.stderr)")
        #expect(!wrong.stdout.contains("F1"), "\(wrong.stdout)")
    }

    @Test func configFileSetsParameters() throws {
        let (db, _) = try simulatedDatabase()
        let config = FileSystem.directoryName(db) + "/passes.conf"
        try FileSystem.write("# tuning\nstays.radius_m = 90   # tighter\n\nmetrics.min_step_m=10\n", to: config)
        let r = runCLI(["rebuild", "--db", db, "--config", config, "--timezone", "Europe/Berlin"])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try Store(path: db)
        #expect(try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'stays' ORDER BY id DESC LIMIT 1")?.contains("\"radius_m\":90") == true)
        #expect(try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'metrics' ORDER BY id DESC LIMIT 1")?.contains("\"min_step_m\":10") == true)
        try FileSystem.write("stays.radius_m 90\n", to: config)
        let bad = runCLI(["rebuild", "--db", db, "--config", config])
        #expect(bad.status == 64 && bad.stderr.contains("passes.conf:1"), "\(bad.stderr)")
    }
}

/// Each pass declares its parameters once (`Parameters.keys`); the help, `pass_runs` and docs/PASSES.md follow.
@Suite struct PassParameterTableTests {
    @Test func helpListsEveryParameterWithItsDefault() {
        let help = runCLI(["rebuild", "--help"]).stdout
        for (key, value) in Rebuild.parameterDefaults {
            #expect(help.contains(key) && help.contains(value), "\(key) = \(value) missing from rebuild --help")
        }
        #expect(Rebuild.parameterDefaults.count == Set(Rebuild.parameterDefaults.map(\.0)).count)
    }

    @Test func docsDocumentEveryParameterWithItsDefault() throws {
        let root = packageRoot()
        let docs = String(decoding: try FileSystem.read(root + "/docs/PASSES.md"), as: UTF8.self)
        // Sections start with "## <pass> →"; a parameter is a table row "| `key` | default | reason |".
        var sections: [String: String] = [:]
        for chunk in docs.split(separator: "\n## ", omittingEmptySubsequences: false).dropFirst() {
            let name = String(chunk.prefix { $0 != " " && $0 != "\n" })
            sections[name] = String(chunk)
        }
        for (key, value) in Rebuild.parameterDefaults {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            let section = try #require(sections[parts[0]], "docs/PASSES.md has no section for pass \(parts[0])")
            #expect(section.contains("| `\(parts[1])` | \(value) |") || section.contains("| `\(parts[1])` | \(value) ("), "docs/PASSES.md: \(key) with default \(value) is not in the \(parts[0]) table")
        }
    }

    @Test func passRunsRecordEveryParameter() throws {
        for type in Rebuild.passes {
            let pass = try type.init(settings: PassSettings())
            let listed = Set(pass.parameterList.map(\.0))
            for (key, _) in type.defaults { #expect(listed.contains(String(key.dropFirst(type.name.count + 1)))) }
        }
    }
}
