/// Runs the passes per device, in order, over the span that needs it, and records each run in `pass_runs`.
///
/// By default only what changed is recomputed: for each device, the points imported since its last rebuild
/// (`import_id` above the one recorded in `settings` as `rebuild.last_import.<device id>`) decide where to restart —
/// right after the second-to-last stored visit that ended before the earliest new point. That restart point is one
/// the stay detector itself passes through (it restarts after every stay), so the result is the same as a full
/// rebuild; a test proves it on split imports. `full` recomputes everything.
public struct Rebuild {
    public static let passOrder = ["clean", "stays", "places", "trips", "metrics", "apptrips"]

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

    func makePass(_ name: String) throws -> any Pass {
        switch name {
        case "clean": return try CleanPass(settings: options.settings)
        case "stays": return try StaysPass(settings: options.settings)
        case "places": return try PlacesPass(settings: options.settings)
        case "trips": return try TripsPass(settings: options.settings)
        case "metrics": return try MetricsPass(settings: options.settings)
        case "apptrips": return try AppTripsPass(settings: options.settings)
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
        // Read the points through a memory map rather than copying pages (a no-op where unsupported).
        try store.db.execute("PRAGMA mmap_size=1073741824")
        var reports: [Report] = []
        for (deviceID, name) in devices {
            guard let maxImport = try store.db.scalarInt("SELECT max(import_id) FROM points WHERE device_id = ?", [.integer(deviceID)]) else { continue }
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
                if last >= maxImport {
                    reports.append(Report(device: name, pass: "-", stats: [("up_to_date", "1")], span: (0, 0)))
                    continue
                }
                if let earliest = try store.db.scalarInt(
                    "SELECT min(time_ms) FROM points WHERE device_id = ? AND import_id > ?", [.integer(deviceID), .integer(last)])
                {
                    processFrom = try restartPoint(deviceID: deviceID, before: earliest, previous: &previous)
                }
            }
            var toMs = Int64.max
            if let toDay = options.toDay {
                let ms = Int64(toDay + 1) * 86_400_000
                toMs = ms - Int64(zone.offset(at: ms)) * 1000
            }
            if restricted && options.fromDay != nil {
                // Start right after the last visit that ended before the requested day, as an incremental run would.
                processFrom = try restartPoint(deviceID: deviceID, before: processFrom, previous: &previous, keep: 1)
            }
            let loadFrom = processFrom == Int64.min ? Int64.min : processFrom - 2 * 86_400_000
            let work = DeviceWork(deviceID: deviceID, fromMs: loadFrom, toMs: toMs, processFromMs: processFrom, timeZone: zone)
            work.previousStay = previous
            let commitStart = Clock.monotonic()
            defer { _ = commitStart }
            try store.db.transaction {
                let loadStarted = Clock.monotonic()
                try work.loadPoints(store: store)
                reports.append(Report(device: name, pass: "load", stats: [("points", String(work.count)), ("ms", String(Int((Clock.monotonic() - loadStarted) * 1000)))], span: (processFrom, toMs)))
                if let p = previous {
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
                        [.text(type.name), .integer(deviceID), processFrom == Int64.min ? .null : .integer(processFrom),
                         toMs == Int64.max ? .null : .integer(toMs), .text(Self.json(passes[k].parameterList)), .text(Self.json(stats)),
                         .integer(started), .integer(Clock.nowMs())])
                    reports.append(Report(device: name, pass: type.name, stats: stats + [("ms", String(Clock.nowMs() - started))], span: (processFrom, toMs)))
                }
                if options.pass == nil && !restricted {
                    try store.db.run("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", [.text(key), .text(String(maxImport))])
                }
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

    static func json(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { key, value in
            let numeric = Double(value) != nil
            return "\"\(key)\":" + (numeric ? value : "\"\(value)\"")
        }.joined(separator: ",") + "}"
    }
}
