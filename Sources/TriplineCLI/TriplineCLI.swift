import TriplineCore
import TriplineStore

/// The `tripline` command line: a table of subcommands, help in swift-argument-parser's layout,
/// `Error:` lines with a usage hint, exit status 64 for bad arguments and 1 for failures.
public enum TriplineCLI {
    public static let version = "0.1.0"

    /// Exit statuses.
    public enum Exit {
        public static let success: Int32 = 0
        public static let failure: Int32 = 1
        public static let usage: Int32 = 64
        /// Stopped by Ctrl-C (128 + SIGINT, as a shell reports a process that SIGINT ended): `query` and `report`.
        public static let interrupted: Int32 = 130
    }

    /// Every subcommand, in the order `--help` lists them. Each lives in its own file under `CLI/`.
    public static var commands: [CommandSpec] {
        [
            PlanCommand.spec,
            ImportCommand.spec,
            InfoCommand.spec,
            RebuildCommand.spec,
            MergeCommand.spec,
            PlacesCommand.spec,
            PrivacyCommand.spec,
            ExportCommand.spec,
            ReportCommand.spec,
            ReportCommand.querySpec,
            MapCommand.spec,
            DemoCommand.spec,
            SimulateCommand.spec,
            ScoreCommand.spec,
            EvaluateCommand.spec,
        ]
    }

    static let overview = """
        OVERVIEW: Tripline turns archived Overland, OwnTracks, Google location history, GeoLife and GPX location logs
        into trips, visits and places.

        Import archives into one SQLite file, rebuild stays, visits, trips and daily totals from the raw points,
        then export GeoJSON, GPX and CSV, run SQL reports and draw an offline map.
        """

    /// The top-level help text.
    public static var help: String {
        var text = overview + "\n\nUSAGE: tripline <subcommand> [<options>]\n\nOPTIONS:\n"
        text += HelpFormatter.row("--version", "Show the version.")
        text += HelpFormatter.row("-h, --help", "Show help information.")
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += HelpFormatter.row(command.name, command.abstract) }
        text += HelpFormatter.row("help", "Show subcommand help information.")
        text += "\n  See 'tripline help <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    /// ``main(_:context:)`` on the arguments as the bytes the process was given. An argument that is not UTF-8 (a
    /// file name in Latin-1, `caf\xE9.json`) is refused, exit 64: Swift reads arguments as UTF-8 and puts U+FFFD in
    /// place of such bytes, so `import` said "no such file" of a file that is there, and `--db` and `-o` wrote another
    /// file than the one named. (Names inside a folder given are read by their bytes.) So is a `TRIPLINE_*` variable
    /// that is not UTF-8 (``CommandContext/environmentNotUTF8``: `TRIPLINE_DB`).
    public static func main(rawArguments: [[UInt8]], context: CommandContext) -> Int32 {
        var arguments: [String] = []
        for raw in rawArguments {
            guard let text = String(validating: raw, as: UTF8.self) else {
                let shown = Terminal.escapedPathBytes(raw)
                let why = "(it would open or write a file of another name); rename the file, or give the folder holding it "
                    + "(names inside a folder are read by their bytes)"
                context.stderr.write("Error: the argument '\(shown)' is not UTF-8 text, which Tripline needs in its arguments \(why)\n")
                return Exit.usage
            }
            arguments.append(text)
        }
        if let variable = context.environmentNotUTF8.first {
            context.stderr.write("Error: the environment variable \(variable) is not UTF-8 text, which Tripline needs (a path in it "
                                 + "would name another file); set it to a UTF-8 name\n")
            return Exit.usage
        }
        return main(arguments, context: context)
    }

    public static func main(_ arguments: [String], context: CommandContext) -> Int32 {
        guard let first = arguments.first else {
            context.stdout.write(help)
            return Exit.success
        }
        switch first {
        case "-h", "--help":
            context.stdout.write(help)
            return Exit.success
        case "--version":
            context.stdout.write("\(version)\n")
            return Exit.success
        case "help":
            guard arguments.count > 1 else {
                context.stdout.write(help)
                return Exit.success
            }
            guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                return reportUsage(unknownCommand(arguments[1]), context: context)
            }
            context.stdout.write(command.help)
            return Exit.success
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            return reportUsage(unknownCommand(first), context: context)
        }
        do {
            let parsed = try command.parse(Array(arguments.dropFirst()))
            if parsed.flag("help") {
                context.stdout.write(command.help)
                return Exit.success
            }
            return try command.run(parsed, context)
        } catch let error as UsageError {
            var error = error
            if error.command == nil { error.command = command.name }
            return reportUsage(error, context: context)
        } catch {
            // The one place failures are printed: their messages carry device and place names, file names and
            // SQLite's words about a user's query, so they reach the terminal escaped (Terminal.message).
            context.stderr.write("Error: \(Terminal.message("\(error)"))\n")
            return Exit.failure
        }
    }

    static func unknownCommand(_ name: String) -> UsageError {
        var message = "Unknown subcommand '\(name)'"
        if let suggestion = HelpFormatter.closest(name, in: commands.map(\.name) + ["help"]) {
            message += ". Did you mean '\(suggestion)'?"
        }
        return UsageError(message)
    }

    static func reportUsage(_ error: UsageError, context: CommandContext) -> Int32 {
        context.stderr.write("Error: \(Terminal.message(error.message))\n")
        if let name = error.command, let command = commands.first(where: { $0.name == name }) {
            context.stderr.write("Usage: \(command.usageLine)\n")
            context.stderr.write("  See 'tripline \(name) --help' for more information.\n")
        } else {
            context.stderr.write("Usage: tripline <subcommand> [<options>]\n")
            context.stderr.write("  See 'tripline --help' for more information.\n")
        }
        return Exit.usage
    }
}

/// Options shared by several commands, and how they resolve.
public enum CommonOptions {
    public static let db = OptionSpec(
        "db", value: "PATH", help: "The database file (default: $TRIPLINE_DB, else ./tripline.sqlite).")
    public static let device = OptionSpec("device", value: "NAME", help: "Only this device (its name as 'tripline info' shows it).")
    public static let from = OptionSpec("from", value: "DATE", help: "First local day to include (YYYY-MM-DD), inclusive.")
    public static let to = OptionSpec("to", value: "DATE", help: "Last local day to include (YYYY-MM-DD), inclusive.")
    public static let quiet = OptionSpec("quiet", short: "q", help: "Print nothing but errors.")
    public static let json = OptionSpec("json", help: "Print the summary as one JSON object.")

    /// `--device`, `--from` and `--to` as the one ``RecordFilter`` every command takes; a bad date is a usage error.
    public static func filter(_ parsed: ParsedArguments, command: String) throws -> RecordFilter {
        do {
            return try RecordFilter.parse(device: parsed.value("device"), from: parsed.value("from"), to: parsed.value("to"))
        } catch let error as RecordFilterError {
            throw UsageError(error.message, command: command)
        }
    }

    /// A line saying that the results asked for are empty because some devices were never rebuilt, or nil when every
    /// device with data has been: a report or export of trips, visits, places or days then says why it is empty.
    public static func notRebuiltNote(_ store: Store, device: String?) throws -> String? {
        var names = try RebuildTables(store).devicesNeverRebuilt()
        if let device { names = names.filter { $0 == device } }
        guard !names.isEmpty else { return nil }
        let shown = names.prefix(3).map { "'" + Terminal.escaped($0) + "'" }.joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
        return "Note: \(shown) \(names.count == 1 ? "was" : "were") imported but never rebuilt, so \(names.count == 1 ? "its" : "their") trips, "
            + "visits, places and days are empty: run 'tripline rebuild' first.\n"
    }

    /// Refuses a file the user named for a command to write (`export -o`, `map -o`, the database `demo --out`
    /// makes) when it is the database `database` or its `-wal`, `-shm` or `-journal` file, however it is spelled
    /// (``OutputFiles/checkNotDatabase(_:database:)``). Called before the database is opened; `-` (standard output)
    /// is never a file.
    /// - Throws: ``UsageError`` (exit 64): the two options name one file.
    public static func checkOutput(_ output: String?, database: String, command: String) throws {
        guard let output, output != "-", !output.isEmpty else { return }
        do {
            try OutputFiles.checkNotDatabase(output, database: database)
        } catch let error as FileError {
            throw UsageError(Terminal.escaped(error.description), command: command)
        }
    }

    /// The database path: `--db`, else `$TRIPLINE_DB`, else `./tripline.sqlite`. Always a file name (see
    /// ``Database/fileURI(_:)``): `:memory:` is the file of that name in the current folder, spelled `./:memory:` so
    /// that SQLite does not read it as its in-memory database.
    public static func databasePath(_ parsed: ParsedArguments, _ context: CommandContext) -> String {
        let path: String
        if let given = parsed.value("db"), !given.isEmpty {
            path = given
        } else if let given = context.environment["TRIPLINE_DB"], !given.isEmpty {
            path = given
        } else {
            path = "tripline.sqlite"
        }
        return path == ":memory:" ? "./:memory:" : path
    }
}
