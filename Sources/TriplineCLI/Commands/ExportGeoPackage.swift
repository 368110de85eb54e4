import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline export --format gpkg`: every kind (or one) as the layers of one OGC GeoPackage file.
enum ExportGeoPackage {
    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let whatText = (parsed.value("what") ?? "all").lowercased()
        let kinds: [ExportKind]
        if whatText == "all" {
            kinds = ExportKind.allCases
        } else if let kind = ExportKind(rawValue: whatText) {
            kinds = [kind]
        } else {
            throw UsageError("Unknown kind '\(whatText)'; use all, trips, legs, visits, places, points or days", command: "export")
        }
        guard let output = parsed.value("output"), output != "-", !output.isEmpty else {
            throw UsageError("A GeoPackage is a SQLite file, not a stream: give the file to write with '--output FILE.gpkg'", command: "export")
        }
        let filter = try CommonOptions.filter(parsed, command: "export")
        let database = CommonOptions.databasePath(parsed, context)
        try CommonOptions.checkOutput(output, database: database, command: "export")
        let store = try Store.forReading(path: database)
        let result: GeoPackageResult
        do {
            // One snapshot for every read: a rebuild committing meanwhile never mixes into the file.
            result = try store.readTransaction {
                try Exporter(store: store, privacyZones: PrivacyCommand.zones(parsed, store, command: "export")).exportGeoPackage(kinds, filter: filter, toFile: output)
            }
        } catch let error as ExportError {
            throw CommandFailure(error.description)
        }
        if !parsed.flag("quiet") {
            let layers = result.layers.map { "\($0.records) \($0.kind.rawValue)" }.joined(separator: ", ")
            context.stderr.write("Exported \(layers) as a GeoPackage to \(Terminal.escaped(output)) (\(result.bytes) bytes).\n")
            if result.layers.contains(where: { $0.kind != .points && $0.records == 0 }),
                let note = try CommonOptions.notRebuiltNote(store, device: filter.device)
            {
                context.stderr.write(note)
            }
        }
        return TriplineCLI.Exit.success
    }
}
