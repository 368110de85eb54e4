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

    struct DeviceRow {
        var name: String, source: String, origin: String, points: Int, first: Int64?, last: Int64?, events: Int
        /// When the device was last rebuilt, the code version of its results, and the points and app events imported
        /// since (a rebuild recomputes what either covers).
        var rebuiltMs: Int64?, version: Int?, waiting: Int, eventsWaiting: Int
    }

    /// What `info` shows, read from the database.
    struct Info {
        var path: String
        var devices: [DeviceRow]
        /// The zone of points without their own offset, as the next rebuild resolves it, and where it comes from.
        var zone: String, zoneFrom: String
        /// Imports by status, rejects by reason and app events by kind, with their counts.
        var statuses: [(String, Int)], reasons: [(String, Int)], kinds: [(String, Int)]
        /// The latest imports (newest first) as table cells, and the latest failed ones' paths and messages.
        var recent: [[String]], failed: [(String, String)]

        var lastRebuild: Int64? { devices.compactMap(\.rebuiltMs).max() }
        var waiting: Int { devices.reduce(0) { $0 + $1.waiting } }
        var eventsWaiting: Int { devices.reduce(0) { $0 + $1.eventsWaiting } }
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let store = try Store.forReading(path: CommonOptions.databasePath(parsed, context))
        let info = try read(store)
        context.stdout.write(parsed.flag("json") ? json(info) : text(info))
        return TriplineCLI.Exit.success
    }

    /// `(name, count)` pairs from a two-column query.
    static func counts(_ db: Database, _ sql: String) throws -> [(String, Int)] {
        var pairs: [(String, Int)] = []
        let statement = try db.prepare(sql)
        while try statement.step() { pairs.append((statement.text(0) ?? "", statement.int(1))) }
        return pairs
    }

    static func read(_ store: Store) throws -> Info {
        let db = store.db
        var devices: [DeviceRow] = []
        let st = try db.prepare(
            """
            SELECT d.name, d.source, d.name_origin,
              (SELECT count(*) FROM points_hot p WHERE p.key BETWEEN d.id << 42 AND (d.id << 42) | 4398046511103),
              (SELECT min(key) FROM points_hot p WHERE p.key BETWEEN d.id << 42 AND (d.id << 42) | 4398046511103) & 4398046511103,
              (SELECT max(key) FROM points_hot p WHERE p.key BETWEEN d.id << 42 AND (d.id << 42) | 4398046511103) & 4398046511103,
              (SELECT count(*) FROM app_events e WHERE e.device_id = d.id),
              r.rebuilt_ms, r.algorithm_version,
              (SELECT count(*) FROM points_hot p WHERE p.key BETWEEN d.id << 42 AND (d.id << 42) | 4398046511103
                 AND p.import_id > coalesce(r.last_import_id, -1)),
              (SELECT count(*) FROM app_events e WHERE e.device_id = d.id AND e.import_id > coalesce(r.last_import_id, -1)
                 AND e.kind != 'waypoint' AND coalesce(e.time_ms, e.start_ms) IS NOT NULL)
            FROM devices d LEFT JOIN rebuild_state r ON r.device_id = d.id ORDER BY d.name
            """)
        while try st.step() {
            devices.append(DeviceRow(name: st.text(0) ?? "", source: st.text(1) ?? "", origin: st.text(2) ?? "", points: st.int(3),
                                     first: st.optionalInt64(4), last: st.optionalInt64(5), events: st.int(6),
                                     rebuiltMs: st.optionalInt64(7).flatMap { $0 > 0 ? $0 : nil }, version: st.optionalInt64(8).map { Int($0) },
                                     waiting: st.int(9), eventsWaiting: st.int(10)))
        }
        // The zone of points without their own offset, as the next rebuild resolves it.
        var zone = "position", zoneFrom = "position"
        if let stored = try store.setting("timezone") {
            zone = stored
            zoneFrom = "stored"
        }
        let statuses = try counts(db, "SELECT status, count(*) FROM imports GROUP BY status ORDER BY status")
        // A row past the rejects a file keeps in full stands for `records` rejects (docs/SCHEMA.md).
        let reasons = try counts(db, "SELECT reason, sum(records) FROM rejects GROUP BY reason ORDER BY sum(records) DESC, reason")
        let kinds = try counts(db, "SELECT kind, count(*) FROM app_events GROUP BY kind ORDER BY count(*) DESC, kind")
        var recent: [[String]] = []
        let s6 = try db.prepare(
            "SELECT id, status, coalesce(format, '-'), points_new, points_duplicate, rejected, events, path FROM imports ORDER BY id DESC LIMIT 10")
        while try s6.step() {
            recent.append([String(s6.int64(0)), s6.text(1) ?? "", s6.text(2) ?? "", String(s6.int(3)), String(s6.int(4)), String(s6.int(5)),
                           String(s6.int(6)), s6.text(7) ?? ""])
        }
        var failed: [(String, String)] = []
        let s5 = try db.prepare("SELECT path, coalesce(message, '') FROM imports WHERE status = 'failed' ORDER BY id DESC LIMIT 10")
        while try s5.step() { failed.append((s5.text(0) ?? "", s5.text(1) ?? "")) }
        return Info(path: store.path, devices: devices, zone: zone, zoneFrom: zoneFrom, statuses: statuses, reasons: reasons,
                    kinds: kinds, recent: recent, failed: failed)
    }

    /// `info --json`: one object.
    static func json(_ info: Info) -> String {
        let devs = info.devices.map { d in
            "{\"name\":\(JSONText.quotedForTerminal(d.name)),\"source\":\(JSONText.quotedForTerminal(d.source)),\"name_origin\":\(JSONText.quotedForTerminal(d.origin)),\"points\":\(d.points),"
                + "\"first_ms\":\(d.first.map { String($0) } ?? "null"),\"last_ms\":\(d.last.map { String($0) } ?? "null"),\"app_events\":\(d.events),"
                + "\"rebuilt_ms\":\(d.rebuiltMs.map { String($0) } ?? "null"),\"points_waiting\":\(d.waiting),\"app_events_waiting\":\(d.eventsWaiting),"
                + "\"results_current\":\(d.version == Rebuild.algorithmVersion)}"
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
                if d.version != nil && d.version != Rebuild.algorithmVersion { rebuilt += " (older code)" }
                rows.append([d.name, d.source, d.origin, String(d.points), d.first.map { CivilTime.iso8601(ms: $0) } ?? "-",
                             d.last.map { CivilTime.iso8601(ms: $0) } ?? "-", String(d.events), rebuilt, String(d.waiting)])
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
