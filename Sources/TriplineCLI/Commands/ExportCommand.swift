import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline export`: trips, legs, visits, places, points or days as GeoJSON, GPX or CSV.
enum ExportCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "export",
            abstract: "Write trips, legs, visits, places, points or days as GeoJSON, GPX, CSV or a GeoPackage.",
            discussion: """
                Writes one kind of record (--what) in one format (--format) to --output, or to standard output when no \
                file (or '-') is given. A file is written atomically: a temporary file beside it is renamed into place \
                when complete. --from and --to are local days (YYYY-MM-DD), inclusive, as the user lived them. \
                An empty selection still writes a valid (empty) file, and says so on standard error. \
                --format gpkg writes one OGC GeoPackage with a layer per kind (--what all, the default, or one kind) \
                to the --output file. Formats and CSV columns are described in docs/EXPORTS.md.
                """,
            options: [
                OptionSpec("format", value: "FORMAT", help: "geojson, gpx, csv or gpkg."),
                OptionSpec("what", value: "KIND", help: "trips, legs, visits, places, points or days (gpkg: also all, the default)."),
                CommonOptions.device, CommonOptions.from, CommonOptions.to, PrivacyCommand.option,
                OptionSpec("output", short: "o", value: "FILE", help: "The file to write ('-' or none: standard output)."),
                CommonOptions.db, CommonOptions.quiet,
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let formatText = parsed.value("format") else {
            throw UsageError("Missing '--format <FORMAT>' (geojson, gpx, csv or gpkg)", command: "export")
        }
        if formatText.lowercased() == "gpkg" { return try ExportGeoPackage.run(parsed, context) }
        guard let format = ExportFormat(rawValue: formatText.lowercased()) else {
            throw UsageError("Unknown format '\(formatText)'; use geojson, gpx, csv or gpkg", command: "export")
        }
        guard let whatText = parsed.value("what") else {
            throw UsageError("Missing '--what <KIND>' (trips, legs, visits, places, points or days)", command: "export")
        }
        guard let kind = ExportKind(rawValue: whatText.lowercased()) else {
            throw UsageError("Unknown kind '\(whatText)'; use trips, legs, visits, places, points or days", command: "export")
        }
        let filter = try CommonOptions.filter(parsed, command: "export")
        if kind == .days && format == .gpx { throw UsageError(ExportError.noGeometry(kind: .days, format: .gpx).description, command: "export") }
        let database = CommonOptions.databasePath(parsed, context)
        let output = parsed.value("output")
        try CommonOptions.checkOutput(output, database: database, command: "export")
        let store = try Store.forReading(path: database)
        let result: ExportResult
        do {
            // One snapshot for every read: a rebuild committing meanwhile never mixes into the file.
            result = try store.readTransaction {
                try Exporter(store: store, privacyZones: PrivacyCommand.zones(parsed, store, command: "export")).export(kind, as: format, filter: filter, toFile: output, stdout: context.stdout)
            }
        } catch let error as ExportError {
            throw CommandFailure(error.description)
        }
        let destination = (output == nil || output == "-") ? "standard output" : Terminal.escaped(output!)
        if parsed.flag("quiet") {
            // Nothing but errors.
        } else if result.records == 0 {
            context.stderr.write("No \(kind.rawValue) match the selection; wrote an empty \(format.rawValue) file to \(destination).\n")
            if kind != .points, let note = try CommonOptions.notRebuiltNote(store, device: filter.device) { context.stderr.write(note) }
        } else {
            context.stderr.write("Exported \(result.records) \(kind.rawValue) as \(format.rawValue) to \(destination) (\(result.bytes) bytes).\n")
        }
        if (kind == .trips || kind == .legs) && format != .csv, try store.holdsResultsOnly() {
            context.stderr.write(
                "Note: \(Terminal.escaped(database)) was merged with --results-only: it holds no points, so its \(kind.rawValue) have "
                    + "no lines (GeoJSON geometry null, GPX without trkpt); export them from the shards for their lines.\n")
        }
        return TriplineCLI.Exit.success
    }

}
