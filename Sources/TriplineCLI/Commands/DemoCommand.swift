#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplinePasses
import TriplineSimulator


/// `tripline demo`: runs the whole pipeline on the sample archives into a fresh output folder, showing each command as
/// a user would type it, then lists what it wrote.
///
/// The sample archives are made at run time by the simulator, exactly as `SampleData/` was made (`sample`; a test
/// keeps the two byte-identical), so the demo needs nothing but the binary: it works from a copied or installed
/// executable, away from the checkout.
enum DemoCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "demo",
            abstract: "Run the whole pipeline on simulated sample archives (SampleData/) and show the results.",
            discussion: """
                Writes the simulated Overland and OwnTracks archives of SampleData/ (three days of two people, with the
                damage real archives have) into OUT/sample-data/, imports them into a fresh database, rebuilds trips
                and visits, scores them against the simulator's truth, writes one export of each format, prints the
                daily and monthly reports and draws the offline map. Each step is printed as the command that does the
                same by hand. --data runs the same steps on another folder of archives (overland/ and rec/, and
                truth.json if it has one).
                """,
            options: [
                OptionSpec("data", value: "DIR", help: "Archives to use instead of the simulated sample (folders overland/ and rec/)."),
                OptionSpec("out", value: "DIR", help: "Where to write the sample, the database and the outputs (default: demo-output)."),
            ],
            run: run)
    }

    /// The zone the sample archives were simulated in (see SampleData/README.md).
    static let sampleTimeZone = "Europe/Berlin"

    /// The simulation `SampleData/` holds: `tripline simulate --days 3 --seed 7 --moving-interval 5 --quirks`.
    static var sample: (config: SimulatorConfig, options: SimulationWriter.Options) {
        var config = SimulatorConfig()
        config.seed = 7
        config.days = 3
        config.people = 2
        config.movingIntervalS = 5
        return (config, SimulationWriter.Options(quirks: true))
    }

    /// Writes the sample archives and their truth into `directory` (emptied of a previous sample first). With `root`
    /// (the user's `--out`), no existing folder below `root` on the way may be a symbolic link: `OUT/sample-data`
    /// linked elsewhere would have the previous sample's `overland/`, `rec/` and `truth.json` removed there, and the
    /// new one written there.
    static func writeSample(to directory: String, inside root: String? = nil) throws {
        try FileSystem.createDirectory(directory, inside: root)
        for name in ["overland", "rec", "truth.json"] where FileSystem.exists(directory + "/" + name) {
            FileSystem.removeTree(directory + "/" + name)
        }
        let sample = DemoCommand.sample
        _ = try SimulationWriter.write(Simulator(config: sample.config).run(), to: directory, options: sample.options)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let out = parsed.value("out") ?? "demo-output"
        guard out != "-" else { throw UsageError("'--out -': demo writes a folder (database, exports, map), which standard output cannot hold; name a folder", command: "demo") }
        try FileSystem.createDirectory(out)
        let data: String
        if let given = parsed.value("data") {
            data = given
            guard FileSystem.kind(data) == .directory else { throw CommandFailure("\(data) is not a directory") }
        } else {
            data = out + "/sample-data"
            context.stdout.write("== Write the sample archives (the simulator, as SampleData/ was made)\n")
            context.stdout.write("$ tripline simulate --out \(shellQuoted(data)) --days 3 --seed 7 --moving-interval 5 --quirks\n")
            try writeSample(to: data, inside: out)
        }
        let db = out + "/tripline.sqlite"

        let archives = ["overland", "rec"].map { data + "/" + $0 }.filter { FileSystem.kind($0) == .directory }
        guard !archives.isEmpty else { throw CommandFailure("\(data) holds no overland/ or rec/ folder of archives") }
        let truth = data + "/truth.json"

        var steps: [(title: String, arguments: [String])] = [
            ("Import the archives (format detected by content; bad records kept in `rejects`)",
             ["import", "--db", db] + archives),
            ("What the database holds", ["info", "--db", db]),
            ("Rebuild stays, visits, places, trips with legs and daily totals",
             ["rebuild", "--db", db, "--timezone", sampleTimeZone]),
            ("The rebuilt trips", ["report", "trips", "--db", db, "--format", "table"]),
            ("The rebuilt visits", ["report", "visits", "--db", db, "--format", "table"]),
        ]
        if FileSystem.kind(truth) == .file {
            steps.append(("Score the rebuild against the simulator's ground truth", ["score", "--db", db, "--truth", truth]))
        }
        steps += [
            ("Daily report", ["report", "daily-summary", "--db", db, "--format", "table"]),
            ("Monthly report", ["report", "monthly-summary", "--db", db, "--format", "table"]),
            ("Export trips as GeoJSON", ["export", "--db", db, "--format", "geojson", "--what", "trips", "-o", out + "/trips.geojson"]),
            ("Export trips as GPX", ["export", "--db", db, "--format", "gpx", "--what", "trips", "-o", out + "/trips.gpx"]),
            ("Export visits as GPX waypoints", ["export", "--db", db, "--format", "gpx", "--what", "visits", "-o", out + "/visits.gpx"]),
            ("Export trips, legs, visits, places and days as CSV",
             ["export", "--db", db, "--format", "csv", "--what", "trips", "-o", out + "/trips.csv"]),
            ("", ["export", "--db", db, "--format", "csv", "--what", "legs", "-o", out + "/legs.csv"]),
            ("", ["export", "--db", db, "--format", "csv", "--what", "visits", "-o", out + "/visits.csv"]),
            ("", ["export", "--db", db, "--format", "csv", "--what", "places", "-o", out + "/places.csv"]),
            ("", ["export", "--db", db, "--format", "csv", "--what", "days", "-o", out + "/days.csv"]),
            ("Draw the offline map", ["map", "--db", db, "-o", out + "/map.html"]),
        ]

        // The demo replaces its database and writes its files in --out: never the user's own database ($TRIPLINE_DB,
        // else ./tripline.sqlite), as `demo --out .` beside it would.
        let userDatabase = CommonOptions.databasePath(parsed, context)
        if FileSystem.exists(userDatabase) {
            let outputs = steps.compactMap { step in step.arguments.firstIndex(of: "-o").map { step.arguments[$0 + 1] } }
            for path in [db] + outputs { try CommonOptions.checkOutput(path, database: userDatabase, command: "demo") }
        }
        for suffix in ["", "-wal", "-shm"] { FileSystem.remove(db + suffix) }

        context.stdout.write("Tripline demo: \(data) → \(out)/\n")
        for step in steps {
            if !step.title.isEmpty { context.stdout.write("\n== \(step.title)\n") }
            context.stdout.write("$ tripline " + step.arguments.map(shellQuoted).joined(separator: " ") + "\n")
            let status = TriplineCLI.main(step.arguments, context: context)
            if status != TriplineCLI.Exit.success {
                context.stderr.write("Error: the demo stopped: 'tripline \(step.arguments[0])' exited with status \(status)\n")
                return TriplineCLI.Exit.failure
            }
        }

        context.stdout.write("\n== Outputs in \(out)/\n")
        for name in try FileSystem.list(out) where !name.hasPrefix("tripline.sqlite-") {
            let isFolder = FileSystem.kind(out + "/" + name) == .directory
            let size = isFolder ? "folder" : byteCount(FileSystem.size(out + "/" + name) ?? 0)
            let shown = isFolder ? name + "/" : name
            context.stdout.write("  " + shown + String(repeating: " ", count: max(1, 18 - shown.count)) + size + "\n")
        }
        context.stdout.write("""

            Open \(out)/map.html in a browser (it works offline), \(out)/*.gpx or *.geojson in QGIS or gpx.studio,
            and the CSV files in a spreadsheet. Query the database with your own SQL: sqlite3 \(db)

            """)
        return TriplineCLI.Exit.success
    }

    static func shellQuoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:".contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static func byteCount(_ size: Int) -> String {
        if size >= 1 << 20 { return String(size / (1 << 20)) + "." + String(size % (1 << 20) * 10 / (1 << 20)) + " MiB" }
        if size >= 1 << 10 { return String(size / (1 << 10)) + " KiB" }
        return String(size) + " B"
    }
}
