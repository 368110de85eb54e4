/// Runs the passes per device, in order, over the span that needs it, and records each run in `pass_runs`.
///
/// By default only what changed is recomputed: for each device, the points imported since its last rebuild
/// (`import_id` above the one recorded in `settings` as `rebuild.last_import.<device id>`) decide where to restart —
/// right after the second-to-last stored visit that ended before the earliest new point. That restart point is one
/// the stay detector itself passes through (it restarts after every stay), so the result is the same as a full
/// rebuild; a test proves it on split imports. `full` recomputes everything.
public struct Rebuild {
    public static let passOrder = ["clean", "stays", "evidence", "places", "trips", "paths", "metrics", "apptrips"]

    public struct Options {
        public var device: String?
        /// Local days (days since 1970-01-01), inclusive; restricts the devices' spans.
        public var fromDay: Int?
        public var toDay: Int?
        /// Run only this pass.
        public var pass: String?
        public var settings = PassSettings()
        /// The zone of points without their own offset (`--timezone`); nil = the stored setting, else UTC.
        public var timeZoneName: String?
        public var full = false
        /// Points per window when rebuilding a device in bounded memory (see ``run()``).
        public var windowPoints = 250_000
        public init() {}
    }

    /// What one pass produced for one device.
    public struct Report {
        public var device: String
        public var pass: String
        public var stats: [(String, String)]
        public var span: (Int64, Int64)
    }

    let store: Store
    let options: Options

    public init(store: Store, options: Options) {
        self.store = store
        self.options = options
    }

    func makePass(_ name: String) throws -> any Pass { try Self.makePass(name, settings: options.settings) }

    /// The pass called `name` with the parameter overrides in `settings` (unknown keys throw).
    public static func makePass(_ name: String, settings: PassSettings) throws -> any Pass {
        switch name {
        case "clean": return try CleanPass(settings: settings)
        case "stays": return try StaysPass(settings: settings)
        case "evidence": return try EvidencePass(settings: settings)
        case "places": return try PlacesPass(settings: settings)
        case "trips": return try TripsPass(settings: settings)
        case "paths": return try PathsPass(settings: settings)
        case "metrics": return try MetricsPass(settings: settings)
        case "apptrips": return try AppTripsPass(settings: settings)
        default: throw PassError("unknown pass '\(name)'; passes are \(Self.passOrder.joined(separator: ", "))")
        }
    }

    /// The time zone for points without an offset, stored in `settings` (key `timezone`) for exports.
    func resolveTimeZone() throws -> TimeZoneTable {
        var name = options.timeZoneName
        if name == nil { name = try store.db.scalarText("SELECT value FROM settings WHERE key = 'timezone'") }
        let zoneName = name ?? "UTC"
        guard let table = TimeZoneTable.named(zoneName) else {
            throw PassError("unknown time zone '\(zoneName)'; use an IANA name such as Europe/Berlin")
        }
        if options.timeZoneName != nil {
            try store.db.run("INSERT OR REPLACE INTO settings(key, value) VALUES ('timezone', ?)", [.text(zoneName)])
        }
        return table
    }

    /// Runs the rebuild and returns one report per device and pass.
    public func run() throws -> [Report] {
        try options.settings.validate()
        let passNames = options.pass.map { [$0] } ?? Self.passOrder
        var passes = try passNames.map { try makePass($0) }
        var devices: [(Int64, String)] = []
        let list = try store.db.prepare("SELECT id, name FROM devices ORDER BY id")
        while try list.step() { devices.append((list.int64(0), list.text(1) ?? "")) }
        if let wanted = options.device {
            devices = devices.filter { $0.1 == wanted }
            if devices.isEmpty { throw PassError("no device named '\(wanted)'; see 'tripline info' for the device names") }
        }
        let zone = try resolveTimeZone()
        var reports: [Report] = []
        for (deviceID, name) in devices {
            let key = "rebuild.last_import.\(deviceID)"
            // The span: the whole device, or from where new points start to matter.
            var processFrom = Int64.min
            var previous: StayRecord? = nil
            let restricted = options.fromDay != nil || options.toDay != nil
            if let fromDay = options.fromDay {
                let ms = Int64(fromDay) * 86_400_000
                processFrom = ms - Int64(zone.offset(at: ms)) * 1000
            } else if !options.full && options.pass == nil,
                let last = try store.db.scalarText("SELECT value FROM settings WHERE key = ?", [.text(key)]).flatMap({ Int64($0) })
            {
                guard let earliest = try store.db.scalarInt(
                    "SELECT min(time_ms) FROM points WHERE device_id = ? AND import_id > ?", [.integer(deviceID), .integer(last)])
                else {
                    reports.append(Report(device: name, pass: "-", stats: [("up_to_date", "1")], span: (0, 0)))
                    continue
                }
                processFrom = try restartPoint(deviceID: deviceID, before: earliest, previous: &previous)
            }
            // `--to`: recompute up to the end of the stored stay that contains or follows the end of that day (the
            // trip leaving it, and later rows, stay as they are); without such a stay, up to the end of the data.
            var toMs = Int64.max
            var keepFrom = Int64.max
            var lastDate: String? = nil
            if let toDay = options.toDay {
                let ms = Int64(toDay + 1) * 86_400_000
                let dayEnd = ms - Int64(zone.offset(at: ms)) * 1000
                if let end = try store.db.scalarInt(
                    "SELECT end_ms FROM stays WHERE device_id = ? AND end_ms >= ? ORDER BY end_ms LIMIT 1", [.integer(deviceID), .integer(dayEnd)])
                {
                    // Load two hours past the stay as context (its cluster and trimming saw them in a full run).
                    toMs = end + 2 * 3_600_000
                    keepFrom = end
                    let (y, m, d) = CivilTime.civilFromDays(toDay)
                    lastDate = CivilTime.pad(y, 4) + "-" + CivilTime.pad(m, 2) + "-" + CivilTime.pad(d, 2)
                }
            }
            if restricted && options.fromDay != nil {
                // Start right after the last visit that ended before the requested day, as an incremental run would.
                processFrom = try restartPoint(deviceID: deviceID, before: processFrom, previous: &previous, keep: 1)
            }
            // Bounded memory: a device is rebuilt in windows of about `windowPoints` points. Each window restarts
            // right after the second-to-last visit of the previous one, exactly as an incremental run would, so the
            // result equals one pass over everything; the overlap is recomputed and replaced.
            let windowed = options.pass == nil
            var windowSize = options.windowPoints
            var windowFrom = processFrom
            var windowPrevious = previous
            var totals: [String: [(String, Double)]] = [:]
            var windows = 0
            var maxImport = Int64.min
            try store.db.transaction {
                while true {
                    let loadFrom = windowFrom == Int64.min ? Int64.min : windowFrom - 2 * 86_400_000
                    let work = DeviceWork(deviceID: deviceID, fromMs: loadFrom, toMs: toMs, processFromMs: windowFrom, timeZone: zone)
                    let loadStarted = Clock.monotonic()
                    // One ordered statement per window; a window that hits its point limit ends after its last point.
                    try work.loadPoints(store: store, limit: windowed ? windowSize : Int.max)
                    let end = work.toMs
                    if end == toMs {
                        work.keepFromMs = keepFrom
                        work.lastDate = lastDate
                    }
                    maxImport = max(maxImport, work.maxImportID)
                    Self.add(&totals, "load", [("points", String(work.count)), ("ms", String(Int((Clock.monotonic() - loadStarted) * 1000)))])
                    if let p = windowPrevious {
                        // Index the kept visit in this work.
                        var s = p
                        s.first = lowerBound(work.time, p.startMs)
                        s.last = max(s.first, lowerBound(work.time, p.endMs + 1) - 1)
                        work.previousStay = s
                    }
                    for k in passes.indices {
                        let started = Clock.nowMs()
                        let stats = try passes[k].run(work, store: store)
                        let type = type(of: passes[k])
                        try store.db.run(
                            "INSERT INTO pass_runs(pass, device_id, from_ms, to_ms, parameters, stats, started_ms, finished_ms) VALUES (?,?,?,?,?,?,?,?)",
                            [.text(type.name), .integer(deviceID), windowFrom == Int64.min ? .null : .integer(windowFrom),
                             end == Int64.max ? .null : .integer(end), .text(Self.json(passes[k].parameterList)), .text(Self.json(stats)),
                             .integer(started), .integer(Clock.nowMs())])
                        Self.add(&totals, type.name, stats + [("ms", String(Clock.nowMs() - started))])
                    }
                    windows += 1
                    if end >= toMs { break }
                    var next: StayRecord? = nil
                    let restart = try restartPoint(deviceID: deviceID, before: end, previous: &next)
                    if restart == Int64.min || restart <= windowFrom {
                        windowSize *= 2  // no two visits in this window: take a bigger one
                        continue
                    }
                    windowFrom = restart
                    windowPrevious = next
                    windowSize = options.windowPoints
                }
                if options.pass == nil && !restricted && maxImport != Int64.min {
                    try store.db.run("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", [.text(key), .text(String(maxImport))])
                }
            }
            for pass in ["load"] + passNames {
                var stats = (totals[pass] ?? []).map { ($0.0, formatParameter(($0.1 * 100).rounded() / 100)) }
                if windows > 1 && pass == "load" { stats.append(("windows", String(windows))) }
                reports.append(Report(device: name, pass: pass, stats: stats, span: (processFrom, toMs)))
            }
        }
        return reports
    }

    /// The restart point for new points from `before` on: right after the `keep`-th last visit ending before it.
    func restartPoint(deviceID: Int64, before: Int64, previous: inout StayRecord?, keep: Int = 2) throws -> Int64 {
        let statement = try store.db.prepare(
            "SELECT id, start_ms, end_ms, lat, lon, radius_m, points, gap_s FROM stays WHERE device_id = ? AND end_ms < ? ORDER BY end_ms DESC LIMIT ?")
        statement.reset()
        statement.bindInt(deviceID, at: 1)
        statement.bindInt(before, at: 2)
        statement.bindInt(Int64(keep), at: 3)
        var rows: [StayRecord] = []
        while try statement.step() {
            rows.append(StayRecord(
                first: 0, last: 0, startMs: statement.int64(1), endMs: statement.int64(2), lat: statement.double(3),
                lon: statement.double(4), radiusM: statement.double(5), points: statement.int(6), gapS: statement.int64(7),
                id: statement.int64(0)))
        }
        guard rows.count == keep, let stay = rows.last else {
            previous = nil
            return Int64.min
        }
        previous = stay
        if let place = try store.db.scalarInt("SELECT place_id FROM visits WHERE id = ?", [.integer(stay.id)]) { previous!.placeID = place }
        return stay.endMs + 1
    }

    /// Adds a window's stats to the running totals (numbers summed; with several windows the overlap of each
    /// restart is counted in both windows).
    static func add(_ totals: inout [String: [(String, Double)]], _ pass: String, _ stats: [(String, String)]) {
        var list = totals[pass] ?? []
        for (key, value) in stats {
            let v = Double(value) ?? 0
            if let i = list.firstIndex(where: { $0.0 == key }) { list[i].1 += v } else { list.append((key, v)) }
        }
        totals[pass] = list
    }

    static func json(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { key, value in
            let numeric = Double(value) != nil
            return "\"\(key)\":" + (numeric ? value : "\"\(value)\"")
        }.joined(separator: ",") + "}"
    }
}
