import Testing
@testable import TriplineCore
@testable import TriplineCLI
import TriplineTestSupport

@Suite struct CLITests {
    @Test func versionAndHelp() {
        let version = runCLI(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == TriplineCLI.version + "\n")
        let help = runCLI(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: tripline <subcommand>"))
        #expect(help.stdout.contains("SUBCOMMANDS:"))
        // Every family of formats the importer reads is named where a new user looks first.
        for format in ["Overland", "OwnTracks", "Google", "GeoLife", "GPX"] {
            #expect(help.stdout.components(separatedBy: "SUBCOMMANDS:")[0].contains(format), "the overview omits \(format)")
            #expect(help.stdout.split(separator: "\n").first { $0.contains("  import ") }?.contains(format) == true, "import's line omits \(format)")
        }
    }

    @Test func unknownSubcommandIsUsageError() {
        let result = runCLI(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown subcommand 'frobnicate'"))
        #expect(result.stderr.contains("See 'tripline --help'"))
    }

    @Test func parsesOptionsInEveryForm() throws {
        let spec = CommandSpec(
            name: "x", abstract: "test",
            arguments: [ArgumentSpec("paths", optional: true, variadic: true, help: "p")],
            options: [CommonOptions.db, OptionSpec("output", short: "o", value: "FILE", help: "o"), OptionSpec("set", value: "K=V", repeatable: true, help: "s"), CommonOptions.quiet]
        ) { _, _ in 0 }
        let parsed = try spec.parse(["--db", "a.sqlite", "-o", "out.json", "--set=a=1", "--set", "b=2", "-q", "in1", "--", "--weird"])
        #expect(parsed.value("db") == "a.sqlite")
        #expect(parsed.value("output") == "out.json")
        #expect(parsed.values("set") == ["a=1", "b=2"])
        #expect(parsed.flag("quiet"))
        #expect(parsed.positionals == ["in1", "--weird"])
        #expect(throws: UsageError.self) { try spec.parse(["--dbb", "x"]) }
        #expect(throws: UsageError.self) { try spec.parse(["--db"]) }
        #expect(throws: UsageError.self) { try spec.parse(["--quiet=yes"]) }
        do {
            _ = try spec.parse(["--outptu", "x"])
            Issue.record("expected an error")
        } catch let error as UsageError {
            #expect(error.message.contains("Did you mean '--output'?"))
        }
    }

    @Test func databasePathResolution() throws {
        let spec = CommandSpec(name: "x", abstract: "t", options: [CommonOptions.db]) { _, _ in 0 }
        let ctx = CommandContext(stdout: .capturing(CaptureBuffer()), stderr: .capturing(CaptureBuffer()), environment: ["TRIPLINE_DB": "/env.sqlite"])
        #expect(CommonOptions.databasePath(try spec.parse(["--db", "/a.sqlite"]), ctx) == "/a.sqlite")
        #expect(CommonOptions.databasePath(try spec.parse([]), ctx) == "/env.sqlite")
        var noEnv = ctx
        noEnv.environment = [:]
        #expect(CommonOptions.databasePath(try spec.parse([]), noEnv) == "tripline.sqlite")
    }
}
