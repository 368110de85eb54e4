import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline report` and `tripline query`: SQL reports from `Queries/`, or a user's own `.sql` file.
enum ReportCommand {
    static let formatOption = OptionSpec(
        "format", value: "FORMAT", help: "table, csv or json (default: table on a terminal, else csv).")

    static var spec: CommandSpec {
        CommandSpec(
            name: "report",
            abstract: "Run one of Tripline's SQL reports (daily and monthly summaries, top places, …).",
            discussion: """
                The reports are the files of Queries/, built into tripline. 'tripline report --list' lists them. \
                --from, --to and --device are bound to the query's :from, :to and :device parameters (never pasted \
                into the SQL); the database is opened read-only. 'tripline report day --date YYYY-MM-DD' prints that \
                day's visits and trips, one after another, with times, places, distances and modes.
                """,
            arguments: [ArgumentSpec("name", optional: true, help: "The report to run (see --list).")],
            options: [
                OptionSpec("list", help: "List the reports with a one-line description."),
                CommonOptions.from, CommonOptions.to, CommonOptions.device, formatOption, CommonOptions.db,
                DayReport.date, PrivacyCommand.option,
            ],
            run: runReport)
    }

    static var querySpec: CommandSpec {
        CommandSpec(
            name: "query",
            abstract: "Run your own SQL file against the database, with the report options.",
            discussion: """
                Runs every statement of FILE in turn and prints the rows of those that return any. The file may use \
                the parameters :from, :to, :device and :timezone, and the functions tripline_local_date(time_ms, \
                utc_offset_s) and tripline_local_time(time_ms, utc_offset_s). The database is opened read-only. \
                There is no time limit: Ctrl-C stops a query that runs too long (exit 130; nothing is changed).
                """,
            arguments: [ArgumentSpec("file", help: "The .sql file to run ('-' for standard input).")],
            options: [CommonOptions.from, CommonOptions.to, CommonOptions.device, formatOption, CommonOptions.db],
            run: runQuery)
    }

    static func runReport(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let catalog = try ReportCatalog.all(resourceRoot: context.resourceRoot)
        if parsed.flag("list") {
            switch parsed.value("format")?.lowercased() {
            case "json":
                // One array of {"name", "description"} objects, for scripts.
                let items = catalog.map { "{\"name\":\(JSONText.quotedForTerminal($0.name)),\"description\":\(JSONText.quotedForTerminal($0.description))}" }
                context.stdout.write("[" + items.joined(separator: ",\n") + "]\n")
            case "csv":
                let out = ByteWriter(stream: context.stdout)
                try out.append("name,description\r\n")
                for query in catalog {
                    try out.append(csv: query.name)
                    try out.append(UInt8(ascii: ","))
                    try out.append(csv: query.description)
                    try out.append("\r\n")
                }
                try out.flush()
            case nil, "table":
                let width = catalog.map(\.name.count).max() ?? 0
                for query in catalog {
                    context.stdout.write(query.name + String(repeating: " ", count: width - query.name.count + 2) + query.description + "\n")
                }
            case let other?:
                throw UsageError("Unknown format '\(other)'; use table, csv or json", command: "report")
            }
            return TriplineCLI.Exit.success
        }
        guard let name = parsed.positionals.first else {
            throw UsageError("Missing the report's name; 'tripline report --list' lists them", command: "report")
        }
        // An option the chosen report does not read is refused, not passed over: `report trips --date D` printed
        // every day's trips, and `report day --date D --from …` or `--format json` the text of the one day.
        if name == "day" {
            for option in ["from", "to", "format"] where parsed.value(option) != nil {
                throw UsageError("'report day' shows the one local day of --date, as text; --\(option) is for the SQL reports", command: "report")
            }
            return try DayReport.run(parsed, context)
        }
        if parsed.value("date") != nil {
            throw UsageError("--date is for 'report day'; the other reports take --from and --to (local days, inclusive)", command: "report")
        }
        // The SQL reports read the tables as they are: a zone given for one would leave nothing out (the eleventh hostile
        // round: `report visits --privacy-zone Home` listed Home's visits), so it is refused.
        if parsed.value("privacy-zone") != nil {
            throw UsageError("--privacy-zone is for 'report day', 'export' and 'map'; the SQL reports read the database's tables as they are "
                             + "and leave no place out", command: "report")
        }
        guard let query = catalog.first(where: { $0.name == name || $0.name + ".sql" == name }) else {
            var message = "No report named '\(name)'"
            if let suggestion = HelpFormatter.closest(name, in: catalog.map(\.name)) { message += ". Did you mean '\(suggestion)'?" }
            throw UsageError(message + " ('tripline report --list' lists them)", command: "report")
        }
        return try run(query, parsed, context, command: "report")
    }

    static func runQuery(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let path = parsed.positionals[0]
        let bytes: [UInt8]
        do {
            // Bounded: `query /dev/zero` or an endless pipe must not fill memory.
            bytes = path == "-" ? try FileSystem.readAll(fd: 0, path: "standard input", limit: 16 << 20) : try FileSystem.read(path, limit: 16 << 20)
        } catch let error as FileError {
            var message = "cannot read the query: \(error)"
            // `tripline query "SELECT …"`, as sqlite3 takes it: say how to give SQL text.
            if !FileSystem.exists(path), path.contains(where: { $0 == " " || $0 == "\n" }) {
                let plain = path.count <= 60 && path.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0 != "'" && $0.value != 0x7F }
                let shown = plain ? path : "<your SQL>"
                message += "\n'query' runs a .sql file; to run SQL text, give it on standard input: echo '\(shown)' | tripline query -"
            }
            throw CommandFailure(message)
        }
        let name = FileSystem.baseName(path)
        let query = ReportQuery(name: name, sql: String(decoding: bytes, as: UTF8.self), source: path == "-" ? "standard input" : path)
        return try run(query, parsed, context, command: "query")
    }

    static func run(_ query: ReportQuery, _ parsed: ParsedArguments, _ context: CommandContext, command: String) throws -> Int32 {
        let format: ReportFormat
        if let text = parsed.value("format") {
            guard let chosen = ReportFormat(rawValue: text.lowercased()) else {
                throw UsageError("Unknown format '\(text)'; use table, csv or json", command: command)
            }
            format = chosen
        } else {
            format = context.stdout.isTerminal ? .table : .csv
        }
        let filter = try CommonOptions.filter(parsed, command: command)  // checked before the database opens
        let store = try Store(path: CommonOptions.databasePath(parsed, context), readOnly: true)
        if command == "report", let note = try CommonOptions.notRebuiltNote(store, device: filter.device) { context.stderr.write(note) }
        // Remembered zones leave places out of every export, the map and `report day`, not out of the tables: say so.
        // (A read-only store is always of the current schema, `privacy_zones` included: an error here is a real one.)
        let zones = try store.privacyZones().count
        if zones > 0 {
            let (does, it) = zones == 1 ? ("zone does", "it") : ("zones do", "them")
            context.stderr.write("Note: the \(zones) remembered privacy \(does) not apply to SQL reports, which read the tables as they are; "
                                 + "exports, the map and 'report day' leave \(it) out.\n")
        }
        let out = ByteWriter(stream: context.stdout)
        do {
            // The SQL may come from anywhere (a downloaded .sql file): the runner runs it on the store's read-only,
            // restricted query connection, every statement in one snapshot.
            try ReportRunner(store: store).run(
                query, parameters: ReportParameters(filter: filter),
                to: makeReportSink(format, out: out))
        } catch let error as QueryInterrupted {
            // Ctrl-C while the SQL ran: the rows so far are shown, then why it stopped; 130 as a shell reports it.
            try? out.flush()
            context.stderr.write("Error: \(Terminal.message("\(query.source): \(error)"))\n")
            return TriplineCLI.Exit.interrupted
        } catch let error as ReportError {
            try? out.flush()  // show the rows written so far; the report's own error is the one to report
            throw CommandFailure(error.message)
        } catch {
            try? out.flush()  // as above
            throw error
        }
        if let code = context.stdout.writeError {
            throw FileError(path: "standard output", errno: code)
        }
        return TriplineCLI.Exit.success
    }
}
