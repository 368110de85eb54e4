import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline map`: writes the offline HTML map of trips and visits.
enum MapCommand {
    static let output = OptionSpec("output", short: "o", value: "PATH", help: "Where to write the page (default: map.html).")
    static let tiles = OptionSpec(
        "tiles", value: "URL-TEMPLATE",
        help: "Street tiles from a server you choose, e.g. https://tile.example.org/{z}/{x}/{y}.png (off by default: the page then stays offline).")

    static var spec: CommandSpec {
        CommandSpec(
            name: "map",
            abstract: "Write an offline HTML map and summary of trips and visits.",
            discussion: """
                Writes one self-contained HTML file (inline SVG, style and script; no network) with an offline base
                layer (land, coastlines, borders, city labels), the selection's trips coloured by mode, visits sized
                by time spent, the most visited places labelled, pan and zoom, a day/month and device picker, the
                period's summary and a per-day distance chart. With --tiles the page also loads street tiles from
                that one server (its Content-Security-Policy allows images from that origin only).
                Reads the tables 'tripline rebuild' fills. The file is replaced atomically.
                """,
            options: [CommonOptions.db, CommonOptions.device, CommonOptions.from, CommonOptions.to, PrivacyCommand.option, output, tiles, CommonOptions.quiet, CommonOptions.json],
            run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let filter = try CommonOptions.filter(parsed, command: "map")
        let path = parsed.value("output") ?? "map.html"
        guard !path.isEmpty else { throw UsageError("'--output' must not be empty", command: "map") }
        var parameters = MapParameters()
        if let template = parsed.value("tiles") {
            do {
                parameters.tiles = try MapTiles(template: template)
            } catch let error as MapError {
                throw UsageError(error.message, command: "map")
            }
        }
        let database = CommonOptions.databasePath(parsed, context)
        try CommonOptions.checkOutput(path, database: database, command: "map")
        let store = try Store.forReading(path: database)
        parameters.privacyZones = try PrivacyCommand.zones(parsed, store, command: "map")
        let started = Clock.monotonic()
        let document: MapDocument
        let toStdout = path == "-"
        do {
            // One snapshot for every read: a rebuild committing meanwhile never mixes into the page.
            if toStdout {
                // `-o -`: the page goes to standard output, the summary to standard error.
                document = try store.readTransaction { try MapRenderer(store: store, parameters: parameters).render(filter: filter) }
                document.bytes.withUnsafeBytes { context.stdout.write(bytes: $0) }
                if let code = context.stdout.writeError { throw FileError(path: "standard output", errno: code) }
            } else {
                document = try store.readTransaction { try MapRenderer(store: store, parameters: parameters).write(filter: filter, to: path) }
            }
        } catch let error as MapError {
            throw CommandFailure(error.message)
        } catch let error as FileError {
            throw CommandFailure("cannot write the map: \(error)")
        }
        let seconds = Clock.monotonic() - started
        let report = toStdout ? context.stderr : context.stdout
        if !parsed.flag("quiet"), try store.holdsResultsOnly() {
            context.stderr.write(
                "Note: \(Terminal.escaped(database)) was merged with --results-only: it holds no points, so each trip is drawn "
                    + "as a straight line from its start to its end; draw the map of a shard for the trips' ways.\n")
        }
        if parsed.flag("json") {
            report.write(
                "{\"path\":\(JSONText.quotedForScript(path)),\"bytes\":\(document.bytes.count),\"trips\":\(document.tripsDrawn),"
                    + "\"trips_selected\":\(document.tripsSelected),\"visits\":\(document.visitsDrawn),"
                    + "\"visits_selected\":\(document.visitsSelected),\"labels\":\(document.labels),"
                    + "\"points_read\":\(document.pointsRead),\"vertices\":\(document.verticesWritten),\"skipped\":\(document.skipped),"
                    + "\"seconds\":\(NumberText.fixed(seconds, decimals: 3))}\n")
        } else if !parsed.flag("quiet") {
            let shown = toStdout ? "standard output" : Terminal.escaped(path)
            var line = "Wrote \(shown) (\(sizeText(document.bytes.count))): \(document.tripsDrawn) trips and \(document.visitsDrawn) visits drawn"
            if document.tripsDrawn < document.tripsSelected {
                line += " (\(document.tripsSelected - document.tripsDrawn) trips without any coordinates left out)"
            }
            line += ", \(document.labels) places labelled, \(document.verticesWritten) vertices from \(document.pointsRead) points"
            line += " in \(NumberText.fixed(seconds, decimals: 2)) s.\n"
            report.write(line)
            if document.skipped > 0 {
                report.write("Left out \(document.skipped) stored rows or points with impossible values (non-finite or out-of-range "
                    + "coordinates, times or distances: an edited database?).\n")
            }
            if document.tripsSelected == 0 && document.visitsSelected == 0 {
                report.write("Nothing to show in this selection: the page says so. Run 'tripline rebuild' first, or choose other dates.\n")
            }
        }
        return TriplineCLI.Exit.success
    }

    static func sizeText(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return NumberText.fixed(Double(bytes) / 1024, decimals: 1) + " KiB" }
        return NumberText.fixed(Double(bytes) / 1024 / 1024, decimals: 2) + " MiB"
    }
}
