import TriplineCore
import TriplineExport
import TriplineStore

/// `tripline report day --date YYYY-MM-DD`: the day's visits and trips as a timeline (``DayTimeline``).
enum DayReport {
    static let date = OptionSpec("date", value: "YYYY-MM-DD", help: "The local day of 'report day'.")

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let text = parsed.value("date") else { throw UsageError("'report day' wants '--date YYYY-MM-DD'", command: "report") }
        guard let day = CivilTime.parseDate(text) else { throw UsageError("'\(text)' is not a date (YYYY-MM-DD)", command: "report") }
        let store = try Store.forReading(path: CommonOptions.databasePath(parsed, context))
        let (output, empty): (String, Bool) = try store.readTransaction {
            let exporter = try Exporter(store: store, privacyZones: PrivacyCommand.zones(parsed, store, command: "report"))
            do {
                // Names from the data (often wifi SSIDs) reach the terminal escaped.
                let entries = try DayTimeline.entries(exporter: exporter, day: day, device: parsed.value("device")).map { entry in
                    var e = entry
                    e.title = Terminal.escaped(e.title)
                    e.device = Terminal.escaped(e.device)
                    return e
                }
                return (DayTimeline.text(date: text, entries), entries.isEmpty)
            } catch let error as ExportError {
                throw CommandFailure(error.description)
            }
        }
        context.stdout.write(output)
        // An empty day of a database never rebuilt says why, as `export` does (the twelfth hostile round).
        if empty, let note = try CommonOptions.notRebuiltNote(store, device: parsed.value("device")) { context.stderr.write(note) }
        return TriplineCLI.Exit.success
    }
}
