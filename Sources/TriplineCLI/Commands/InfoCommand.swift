import TriplineCore
import TriplinePasses
import TriplineStore

/// `tripline info`: what the database holds.
enum InfoCommand {
    static var spec: CommandSpec { CommandSpec(
        name: "info",
        abstract: "Show devices, point counts, time spans, rebuild state, imports and rejects.",
        options: [CommonOptions.db, CommonOptions.json],
        run: run)
    }

    /// What `info` shows, read from the database.
    struct Info {
        var path: String
        var devices: [DeviceSummary]
        /// The zone of points without their own offset, as the next rebuild resolves it, and where it comes from.
        var zone: String, zoneFrom: String
        /// Imports by status, rejects by reason and app events by kind, with their counts.
        var statuses: [(String, Int)], reasons: [(String, Int)], kinds: [(String, Int)]
        /// The latest imports (newest first) as table cells, and the latest failed ones' paths and messages.
        var recent: [[String]], failed: [(String, String)]

        var lastRebuild: Int64? { devices.compactMap(\.rebuiltMs).max() }
        var waiting: Int { devices.reduce(0) { $0 + $1.pointsWaiting } }
        var eventsWaiting: Int { devices.reduce(0) { $0 + $1.appEventsWaiting } }
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let store = try Store.forReading(path: CommonOptions.databasePath(parsed, context))
        let info = try read(store)
        context.stdout.write(parsed.flag("json") ? json(info) : text(info))
        return TriplineCLI.Exit.success
    }

    static func read(_ store: Store) throws -> Info {
        let devices = try store.deviceSummaries()
        // The zone of points without their own offset, as the next rebuild resolves it.
        var zone = "position", zoneFrom = "position"
        if let stored = try store.setting("timezone") {
            zone = stored
            zoneFrom = "stored"
        }
        let recent = try store.latestImports(limit: 10).map { i in
            [String(i.id), i.status, i.format ?? "-", String(i.pointsNew), String(i.pointsDuplicate), String(i.rejected), String(i.events), i.path]
        }
        let failed = try store.latestFailedImports(limit: 10).map { ($0.path, $0.message) }
        return Info(path: store.path, devices: devices, zone: zone, zoneFrom: zoneFrom, statuses: try store.importCountsByStatus(),
                    reasons: try store.rejectCountsByReason(), kinds: try store.appEventCountsByKind(), recent: recent, failed: failed)
    }

    /// `info --json`: one object.
    static func json(_ info: Info) -> String {
        let devs = info.devices.map { d in
            "{\"name\":\(JSONText.quotedForTerminal(d.name)),\"source\":\(JSONText.quotedForTerminal(d.source)),\"name_origin\":\(JSONText.quotedForTerminal(d.nameOrigin.rawValue)),\"points\":\(d.points),"
                + "\"first_ms\":\(d.firstMs.map { String($0) } ?? "null"),\"last_ms\":\(d.lastMs.map { String($0) } ?? "null"),\"app_events\":\(d.appEvents),"
                + "\"rebuilt_ms\":\(d.rebuiltMs.map { String($0) } ?? "null"),\"points_waiting\":\(d.pointsWaiting),\"app_events_waiting\":\(d.appEventsWaiting),"
                + "\"results_current\":\(d.algorithmVersion == Rebuild.algorithmVersion)}"
        }
        func object(_ pairs: [(String, Int)]) -> String {
            "{" + pairs.map { "\(JSONText.quotedForTerminal($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        }
        return "{\"database\":\(JSONText.quotedForTerminal(info.path)),\"timezone\":\(JSONText.quotedForTerminal(info.zone)),\"timezone_from\":\(JSONText.quotedForTerminal(info.zoneFrom)),"
            + "\"last_rebuild_ms\":\(info.lastRebuild.map { String($0) } ?? "null"),\"points_waiting\":\(info.waiting),\"app_events_waiting\":\(info.eventsWaiting),"
            + "\"devices\":[\(devs.joined(separator: ","))],\"imports\":\(object(info.statuses)),"
            + "\"rejects\":\(object(info.reasons)),\"app_events\":\(object(info.kinds))}\n"
    }

    /// `info` for people: aligned tables and lines.
    static func text(_ info: Info) -> String {
        let (devices, zone, zoneFrom, lastRebuild, waiting) = (info.devices, info.zone, info.zoneFrom, info.lastRebuild, info.waiting)
        let (statuses, reasons, kinds, recent, failed) = (info.statuses, info.reasons, info.kinds, info.recent, info.failed)
        var out = "Database: \(Terminal.escaped(info.path))\n\n"
        if devices.isEmpty {
            out += "No devices yet: run 'tripline import PATH'.\n"
        } else {
            var rows = [["DEVICE", "SOURCE", "NAMED FROM", "POINTS", "FIRST (UTC)", "LAST (UTC)", "EVENTS", "REBUILT (UTC)", "WAITING"]]
            for d in devices {
                var rebuilt = d.rebuiltMs.map { CivilTime.iso8601(ms: $0) } ?? "never"
                if d.algorithmVersion != nil && d.algorithmVersion != Rebuild.algorithmVersion { rebuilt += " (older code)" }
                rows.append([d.name, d.source, d.nameOrigin.rawValue, String(d.points), d.firstMs.map { CivilTime.iso8601(ms: $0) } ?? "-",
                             d.lastMs.map { CivilTime.iso8601(ms: $0) } ?? "-", String(d.appEvents), rebuilt, String(d.pointsWaiting)])
            }
            out += table(rows, rightAligned: [3, 6, 8])
        }
        out += "\nTime zone of points without their own offset: "
            + (zoneFrom == "stored" ? zone + " (chosen with 'rebuild --timezone')" : "the zone where each was taken") + "\n"
        out += "Last rebuild: " + (lastRebuild.map { CivilTime.iso8601(ms: $0) } ?? "never") + "; points waiting to be rebuilt: \(waiting)"
            + (info.eventsWaiting > 0 ? "; app events waiting: \(info.eventsWaiting)" : "") + "\n"
        out += "\nImports: " + (statuses.isEmpty ? "none" : statuses.map { "\($0.1) \($0.0)" }.joined(separator: ", ")) + "\n"
        for (path, message) in failed { out += "  failed: \(Terminal.escaped(path)): \(Terminal.escaped(message))\n" }
        if !recent.isEmpty {
            out += "\nLatest imports:\n"
            out += table([["ID", "STATUS", "FORMAT", "NEW", "DUPLICATE", "REJECTED", "EVENTS", "PATH"]] + recent.reversed(), rightAligned: [0, 3, 4, 5, 6])
            out += "\n"
        }
        out += "Rejects: " + (reasons.isEmpty ? "none" : reasons.map { "\($0.1) \($0.0)" }.joined(separator: ", ")) + "\n"
        out += "App events: " + (kinds.isEmpty ? "none" : kinds.map { "\($0.1) \(Terminal.escaped($0.0))" }.joined(separator: ", ")) + "\n"
        return out
    }

    /// Rows as aligned columns separated by two spaces; cells come from files (device names, paths), so their
    /// control characters are shown escaped, never sent to the terminal.
    static func table(_ rawRows: [[String]], rightAligned: Set<Int> = []) -> String {
        let rows = rawRows.map { $0.map(Terminal.escaped) }
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            var cells: [String] = []
            for (i, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - cell.count)
                cells.append(rightAligned.contains(i) ? padding + cell : (i == row.count - 1 ? cell : cell + padding))
            }
            out += cells.joined(separator: "  ") + "\n"
        }
        return out
    }
}
