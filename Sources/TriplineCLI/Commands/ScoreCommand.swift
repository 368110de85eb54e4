import TriplineCore
import TriplineEvaluation
import TriplineSimulator
import TriplineStore

/// `tripline score --truth truth.json`: scores the database's rebuild against a simulation's truth.
enum ScoreCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "score",
            abstract: "Score the rebuilt trips, visits and days against a simulation's truth.json.",
            discussion: """
                Devices are matched by name (the simulator's device names, which the importer keeps). Prints trip and
                visit precision/recall/F1 (one-to-one matching by temporal IoU ≥ 0.5), median start/end errors, the
                distance from visit centres to the true places, distance errors per trip and per local day, and mode accuracy.
                """,
            options: [
                OptionSpec("truth", value: "FILE", help: "The truth.json written by 'tripline simulate'."),
                OptionSpec("details", help: "Also list unmatched trips and visits."),
                CommonOptions.db,
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let file = parsed.value("truth") else { throw UsageError("Missing '--truth <FILE>'") }
        let truth = try TruthFile.read(file)
        // Scoring only reads: a database this user may not write is opened read-only.
        let store = try Store.forReading(path: CommonOptions.databasePath(parsed, context))
        let scores = try SimulationEvaluation.score(truth, store: store)
        // The details name the database's devices and places (archive text): escaped for the terminal.
        context.stdout.write(Terminal.message(scores.report))
        if !scores.missingDevices.isEmpty {
            context.stderr.write(Terminal.message("Not scored: no device \(scores.missingDevices.joined(separator: ", ")) in the database.") + "\n")
        }
        if parsed.flag("details") { for line in scores.details { context.stdout.write(Terminal.message(line) + "\n") } }
        return TriplineCLI.Exit.success
    }
}
