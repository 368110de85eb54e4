import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline privacy`: the privacy zones every export and map leaves out, remembered in the database.
enum PrivacyCommand {
    /// `--privacy-zone`, on `export` and `map`.
    static let option = OptionSpec(
        "privacy-zone", value: "PLACE[:RADIUS_M]", repeatable: true,
        help: "Leave out everything within RADIUS_M metres (default 200) of this place (its id or name); repeatable. Added to the zones 'tripline privacy add' remembered.")

    static var spec: CommandSpec {
        CommandSpec(
            name: "privacy",
            abstract: "List, add or remove the privacy zones every export and map leaves out.",
            discussion: """
                A privacy zone is a circle around a place (default radius 200 m): exports (every format) and the map \
                leave out every point, track vertex, visit and place inside it, and a trip that starts or ends inside \
                one starts or ends at its first or last fix outside, with no trace of where inside (see \
                docs/EXPORTS.md, "Privacy zones"). 'privacy add PLACE[:RADIUS_M]' remembers a zone (PLACE: a place \
                id or name, every place of that name; its centre is copied, so the zone survives rebuilds); \
                'privacy remove ID' forgets one; without an action, lists them. --privacy-zone on export and map \
                adds zones for one run.
                """,
            arguments: [
                ArgumentSpec("action", optional: true, help: "add or remove (none: list the zones)."),
                ArgumentSpec("values", optional: true, variadic: true, help: "add: PLACE[:RADIUS_M]; remove: ID."),
            ],
            options: [CommonOptions.db, CommonOptions.quiet],
            run: run)
    }

    /// The zones of a run: the remembered ones and those of `--privacy-zone`.
    static func zones(_ parsed: ParsedArguments, _ store: Store, command: String) throws -> PrivacyZones {
        do {
            return try PrivacyZones.remembered(adding: parsed.values("privacy-zone"), in: store)
        } catch let error as PrivacyZoneError {
            throw UsageError(error.description, command: command)
        }
    }

    /// A number with at most `decimals` decimals, trailing zeros dropped.
    static func short(_ value: Double, _ decimals: Int) -> String {
        var text = NumberText.fixed(value, decimals: decimals)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let action = parsed.positionals.first
        let values = Array(parsed.positionals.dropFirst())
        switch action {
        case nil: guard values.isEmpty else { throw UsageError("Unexpected argument '\(values[0])'", command: "privacy") }
        case "add": guard values.count == 1 else { throw UsageError("'privacy add' wants PLACE[:RADIUS_M]", command: "privacy") }
        case "remove": guard values.count == 1 else { throw UsageError("'privacy remove' wants ID", command: "privacy") }
        default: throw UsageError("Unknown action '\(action!)'; use add or remove (or none to list the zones)", command: "privacy")
        }
        let store = try Store(path: CommonOptions.databasePath(parsed, context), create: false)
        switch action {
        case "add":
            let zones: [PrivacyZone]
            do {
                zones = try PrivacyZones.resolve(values, in: store).zones
            } catch let error as PrivacyZoneError {
                throw UsageError(error.description, command: "privacy")
            }
            let ids = try store.insertPrivacyZones(
                zones.map { PrivacyZoneRow(label: $0.label, placeID: nil, lat: $0.lat, lon: $0.lon, radiusM: $0.radiusM) })
            if !parsed.flag("quiet") {
                for (id, zone) in zip(ids, zones) {
                    context.stdout.write("Added privacy zone \(id): \(short(zone.radiusM, 1)) m around \(Terminal.escaped(zone.label)).\n")
                }
            }
        case "remove":
            guard let id = Int64(values[0]) else { throw UsageError("'\(values[0])' is not a zone id; 'tripline privacy' lists them", command: "privacy") }
            guard try store.deletePrivacyZone(id: id) else {
                throw CommandFailure("no privacy zone with id \(id); 'tripline privacy' lists them")
            }
            if !parsed.flag("quiet") { context.stdout.write("Removed privacy zone \(id).\n") }
        default:
            let rows = try store.privacyZones()
            if rows.isEmpty {
                context.stdout.write("No privacy zones. Add one with 'tripline privacy add PLACE[:RADIUS_M]'.\n")
            }
            for row in rows {
                context.stdout.write(
                    "\(row.id)\t\(Terminal.escaped(row.label))\t\(short(row.radiusM, 1)) m\t\(short(row.lat, 5)), \(short(row.lon, 5))\n")
            }
        }
        return TriplineCLI.Exit.success
    }
}
