import TriplineCore
import TriplinePasses
import TriplineStore

/// `tripline places`: lists places; `rename`, `merge` and `forget` keep the user's own words across rebuilds.
enum PlacesCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "places",
            abstract: "List places, or rename, merge or forget one (kept across rebuilds).",
            discussion: """
                Without an action, lists the places 'tripline rebuild' found: id, name, device, visits, time spent and \
                centre, most visited first. 'places rename ID NAME' names a place; 'places merge ID INTO_ID' folds a \
                place's visits into another place of the same device; 'places forget ID' removes a place and its \
                visits from the results (the points stay stored). Edits are kept in the table place_edits and \
                applied by every rebuild, which finds the place again by the centre it had when it was edited (the \
                nearest place within places.radius_m), so they survive rebuilds that renumber or move places a little. \
                An edit is applied at once (the places and daily totals of that device are recomputed). 'places \
                edits' lists the edits kept (EDIT id, device, action, centre); 'places undo EDIT' removes one and \
                recomputes that device's places again. A place the \
                user did not name takes the first of: the app's own name for it (Google's visits, OwnTracks \
                regions), Home or Work from when the time is spent there, the wifi network most seen there (its \
                SSID), 'near' its locality with distance and direction, else its coordinates.
                """,
            arguments: [
                ArgumentSpec("action", optional: true, help: "rename, merge, forget, edits or undo (none: list the places)."),
                ArgumentSpec("values", optional: true, variadic: true, help: "rename: ID NAME; merge: ID INTO_ID; forget: ID; undo: EDIT."),
            ],
            options: [CommonOptions.db, CommonOptions.device, CommonOptions.quiet, CommonOptions.json],
            run: run)
    }

    typealias Place = PlaceSummary

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let action = parsed.positionals.first
        let values = Array(parsed.positionals.dropFirst())
        if let action {
            switch action {
            case "rename": guard values.count >= 2 else { throw UsageError("'places rename' wants ID NAME", command: "places") }
            case "merge": guard values.count == 2 else { throw UsageError("'places merge' wants ID INTO_ID", command: "places") }
            case "forget": guard values.count == 1 else { throw UsageError("'places forget' wants ID", command: "places") }
            case "edits": guard values.isEmpty else { throw UsageError("Unexpected argument '\(values[0])'", command: "places") }
            case "undo": guard values.count == 1 else { throw UsageError("'places undo' wants EDIT (an id that 'places edits' lists)", command: "places") }
            default:
                throw UsageError("Unknown action '\(action)'; use rename, merge, forget, edits or undo (or none to list the places)", command: "places")
            }
        } else if !values.isEmpty {
            throw UsageError("Unexpected argument '\(values[0])'", command: "places")
        }
        let path = CommonOptions.databasePath(parsed, context)
        // Listing only reads: it works on a database this user may not write (read-only, as `info` does).
        guard let action else { return try list(Store.forReading(path: path), parsed, context) }
        if action == "edits" { return try edits(Store.forReading(path: path), parsed, context) }
        let store = try Store(path: path, create: false)
        if action == "undo" { return try undo(store, values[0], parsed, context) }

        func place(_ text: String) throws -> Place {
            guard let id = Int64(text) else { throw UsageError("'\(text)' is not a place id; 'tripline places' lists them", command: "places") }
            guard let p = try places(store, id: id).first else {
                throw CommandFailure("no place with id \(id); 'tripline places' lists them")
            }
            return p
        }
        let edited = try place(values[0])
        var row = PlaceEditRow(deviceID: edited.deviceID, action: .forget, lat: edited.lat, lon: edited.lon, createdMs: Clock.nowMs())
        var done: String
        switch action {
        case "rename":
            // A name is text to show: refused when only white space (shown blank) or with a control character (a NUL
            // cut it, a line end or ESC broke the tables); white space at its ends is dropped.
            let given = values.dropFirst().joined(separator: " ")
            let name = NameText.trimmed(given)
            if let problem = NameText.userNameProblem(name.isEmpty ? given : name) { throw UsageError(problem, command: "places") }
            row.action = .rename
            row.name = name
            done = "Renamed place \(edited.id) (\(Terminal.escaped(edited.name))) to \(Terminal.escaped(name))"
        case "merge":
            let into = try place(values[1])
            guard into.deviceID == edited.deviceID else {
                throw CommandFailure("place \(edited.id) belongs to \(edited.device) and place \(into.id) to \(into.device); only places of one device merge")
            }
            guard into.id != edited.id else { throw CommandFailure("a place cannot be merged into itself") }
            row.action = .merge
            row.intoLat = into.lat
            row.intoLon = into.lon
            done = "Merged place \(edited.id) (\(Terminal.escaped(edited.name)), \(edited.visits) visits) into \(into.id) (\(Terminal.escaped(into.name)))"
        default:
            done = "Forgot place \(edited.id) (\(Terminal.escaped(edited.name))) and its \(edited.visits) visits; its points stay stored"
        }
        // The device's other places' names before the edit: a rename can qualify one of them (`Cafe (2)`).
        let before = action == "rename" ? try places(store, device: edited.device).filter { $0.id != edited.id } : []
        // An edit is applied by recomputing the device's places and days, which a results-only study cannot (its local
        // days come from points it does not hold): refused before anything is recorded.
        if try store.holdsResultsOnly() { throw CommandFailure(RebuildError.resultsOnly(store.path).description) }
        try store.transaction { _ = try RebuildTables(store).insert(row) }
        do {
            try Rebuild.reapplyPlaceEdits(store: store, deviceID: edited.deviceID)
        } catch let error as RebuildError {
            throw CommandFailure(error.description)
        } catch let error as PassSettingsError {
            throw CommandFailure(error.description)
        }
        if action == "rename", let name = row.name, let now = try places(store, id: edited.id).first, now.name.hasPrefix(name + " (") {
            // Two places of one device never share a name: the other place keeps it, this one is qualified.
            done = "Renamed place \(edited.id) (\(Terminal.escaped(edited.name))) to \(Terminal.escaped(now.name)): another place of "
                + "\(Terminal.escaped(edited.device)) is named \(Terminal.escaped(name))"
        } else if action == "rename", let name = row.name {
            // Or the other way round: this place takes the name and another place that bore it is qualified.
            let after = Dictionary(try places(store, device: edited.device).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            for other in before where other.name != after[other.id] {
                guard let now = after[other.id], now.hasPrefix(name + " (") else { continue }
                done += "; place \(other.id), also named \(Terminal.escaped(other.name)), is now \(Terminal.escaped(now))"
            }
        }
        if parsed.flag("json") {
            context.stdout.write("{\"action\":\(JSONText.quotedForTerminal(action)),\"place\":\(edited.id),\"device\":\(JSONText.quotedForTerminal(edited.device))}\n")
        } else if !parsed.flag("quiet") {
            context.stdout.write(done + ".\n")
        }
        return TriplineCLI.Exit.success
    }

    static func places(_ store: Store, id: Int64? = nil, device: String? = nil) throws -> [Place] {
        try store.placeSummaries(id: id, device: device)
    }

    static func list(_ store: Store, _ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let device = parsed.value("device")
        if let device { _ = try store.deviceID(named: device) }
        let all = try places(store, device: device)
        if parsed.flag("json") {
            let items = all.map { p in
                "{\"id\":\(p.id),\"name\":\(JSONText.quotedForTerminal(p.name)),\"device\":\(JSONText.quotedForTerminal(p.device)),\"visits\":\(p.visits),"
                    + "\"dwell_s\":\(p.dwellS),\"lat\":\(NumberText.fixed(p.lat, decimals: 6)),\"lon\":\(NumberText.fixed(p.lon, decimals: 6))}"
            }
            context.stdout.write("{\"places\":[\(items.joined(separator: ","))]}\n")
            return TriplineCLI.Exit.success
        }
        if all.isEmpty {
            context.stdout.write("No places yet: run 'tripline rebuild' first.\n")
            return TriplineCLI.Exit.success
        }
        var rows = [["ID", "NAME", "DEVICE", "VISITS", "DWELL", "CENTRE"]]
        for p in all {
            rows.append([String(p.id), printable(p.name), printable(p.device), String(p.visits), NumberText.duration(Double(p.dwellS)),
                         NumberText.fixed(p.lat, decimals: 5) + ", " + NumberText.fixed(p.lon, decimals: 5)])
        }
        context.stdout.write(InfoCommand.table(rows, rightAligned: [0, 3, 4]))
        return TriplineCLI.Exit.success
    }

    /// `places edits`: the edits kept, oldest first (the twelfth hostile round: a `forget` or `merge` could be undone
    /// only in SQL, and it applied to any new place near the old centre).
    static func edits(_ store: Store, _ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let device = try parsed.value("device").map { try store.deviceID(named: $0) }
        var names: [Int64: String] = [:]
        func name(_ id: Int64) throws -> String {
            if let known = names[id] { return known }
            let n = try store.deviceName(id: id) ?? String(id)
            names[id] = n
            return n
        }
        let all = try store.allPlaceEdits(device: device)
        func what(_ e: PlaceEditRow) -> String {
            switch e.action {
            case .rename: return e.name ?? ""
            case .merge: return "into " + (e.intoLat.map { NumberText.fixed($0, decimals: 5) } ?? "?") + ", "
                + (e.intoLon.map { NumberText.fixed($0, decimals: 5) } ?? "?")
            case .forget: return ""
            }
        }
        if parsed.flag("json") {
            let items = try all.map { e in
                "{\"edit\":\(e.id ?? 0),\"device\":\(JSONText.quotedForTerminal(try name(e.deviceID))),\"action\":\"\(e.action.rawValue)\","
                    + "\"name\":\(e.name.map(JSONText.quotedForTerminal) ?? "null"),\"lat\":\(NumberText.fixed(e.lat, decimals: 6)),"
                    + "\"lon\":\(NumberText.fixed(e.lon, decimals: 6)),\"created\":\(JSONText.quotedForTerminal(CivilTime.iso8601(ms: e.createdMs)))}"
            }
            context.stdout.write("{\"edits\":[\(items.joined(separator: ","))]}\n")
            return TriplineCLI.Exit.success
        }
        if all.isEmpty {
            context.stdout.write("No place edits.\n")
            return TriplineCLI.Exit.success
        }
        var rows = [["EDIT", "DEVICE", "ACTION", "WHAT", "CENTRE", "CREATED"]]
        for e in all {
            let centre = NumberText.fixed(e.lat, decimals: 5) + ", " + NumberText.fixed(e.lon, decimals: 5)
            rows.append([String(e.id ?? 0), printable(try name(e.deviceID)), e.action.rawValue, printable(what(e)), centre,
                         CivilTime.iso8601(ms: e.createdMs)])
        }
        context.stdout.write(InfoCommand.table(rows, rightAligned: [0]))
        return TriplineCLI.Exit.success
    }

    /// `places undo EDIT`: removes an edit and recomputes its device's places and days, as the edit was applied.
    static func undo(_ store: Store, _ text: String, _ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let id = Int64(text) else { throw UsageError("'\(text)' is not an edit id; 'tripline places edits' lists them", command: "places") }
        guard let edit = try store.allPlaceEdits().first(where: { $0.id == id }) else {
            throw CommandFailure("no place edit with id \(id); 'tripline places edits' lists them")
        }
        if try store.holdsResultsOnly() { throw CommandFailure(RebuildError.resultsOnly(store.path).description) }
        try store.transaction { _ = try RebuildTables(store).deletePlaceEdit(id: id) }
        do {
            try Rebuild.reapplyPlaceEdits(store: store, deviceID: edit.deviceID)
        } catch let error as RebuildError {
            throw CommandFailure(error.description)
        } catch let error as PassSettingsError {
            throw CommandFailure(error.description)
        }
        if parsed.flag("json") {
            context.stdout.write("{\"action\":\"undo\",\"edit\":\(id)}\n")
        } else if !parsed.flag("quiet") {
            let device = Terminal.escaped(try store.deviceName(id: edit.deviceID) ?? "?")
            context.stdout.write("Removed edit \(id) (\(edit.action.rawValue)) of \(device); its places are recomputed.\n")
        }
        return TriplineCLI.Exit.success
    }

    /// A name for the terminal's table: a name is the user's or a wifi network's text (``Terminal/cell(_:)``).
    static func printable(_ text: String) -> String { Terminal.cell(text) }
}
