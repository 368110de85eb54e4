import TriplineCore

// A table `tripline import` writes (docs/SCHEMA.md has every column): its one insert, and its reads.

/// `devices`: one row per device.
public final class DeviceTable {
    let db: Database
    let find: Statement
    let insertStatement: Statement
    /// The ids new devices take in a shard's import (`import --plan`); nil: the next free id.
    public var plan: DeviceIDPlan?

    public init(_ db: Database) throws {
        self.db = db
        find = try db.prepare("SELECT id FROM devices WHERE name = ?")
        insertStatement = try db.prepare("INSERT INTO devices(id, name, source, name_origin, tid, created_ms) VALUES (?, ?, ?, ?, ?, ?)")
    }

    /// The devices table of `store`'s connection.
    public convenience init(_ store: Store) throws { try self.init(store.db) }

    /// The id of the device named `name`, or nil.
    public func id(named name: String) throws -> Int64? {
        find.reset()
        defer { find.reset() }
        find.bindText(name, at: 1)
        return try find.step() ? find.int64(0) : nil
    }

    /// The id of the device named `name`, creating it (with `source`, how the name was found and the OwnTracks
    /// tracker id) when new.
    public func id(named name: String, source: String, origin: DeviceOrigin, tid: String? = nil) throws -> Int64 {
        if let id = try id(named: name) { return id }
        let chosen: SQLValue = try plan.map { plan in
            .integer(try plan.next { try db.scalarInt("SELECT 1 FROM devices WHERE id = ?", [.integer($0)]) != nil })
        } ?? .null
        let s = insertStatement
        s.reset()
        try s.bind([chosen, .text(name), .text(source), .text(origin.rawValue), tid.map { .text($0) } ?? .null, .integer(Clock.nowMs())])
        _ = try s.step()
        s.reset()
        return db.lastInsertRowID
    }
}

// MARK: Reading devices

extension Store {
    /// Every device's name by id.
    public func deviceNames() throws -> [Int64: String] {
        let statement = try db.prepare("SELECT id, name FROM devices")
        var names: [Int64: String] = [:]
        while try statement.step() { names[statement.int64(0)] = statement.text(1) ?? "" }
        return names
    }

    /// Every device's name, sorted by name (``idsByName(_:)``).
    public func sortedDeviceNames() throws -> [String] {
        let names = try deviceNames()
        return Self.idsByName(names).map { names[$0] ?? "" }
    }

    /// The ids of `names` in the order of the names' UTF-8 bytes, as SQLite's `ORDER BY name` sorts them: the order
    /// exports, reports and the map list devices in, so the order devices were imported in (their ids) never shows.
    /// By bytes, not Swift's `<`, which calls two spellings of "é" equal (names are unique by their bytes).
    public static func idsByName(_ names: [Int64: String]) -> [Int64] {
        names.map { (id: $0.key, name: Array($0.value.utf8)) }
            .sorted { $0.name.lexicographicallyPrecedes($1.name) || ($0.name == $1.name && $0.id < $1.id) }
            .map(\.id)
    }

    /// The id of the device named `name`.
    /// - Throws: ``StoreError/unknownDevice(name:known:)``, listing the devices there are, when none has that name:
    ///   the one "no device named …" of every command that selects a device.
    public func deviceID(named name: String) throws -> Int64 {
        if let id = try db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(name)]) { return id }
        throw StoreError.unknownDevice(name: name, known: try sortedDeviceNames())
    }

    /// The first device (by id) whose name matches any of the SQL `LIKE` patterns, or whose OwnTracks tracker id is
    /// `tid`; nil when none does (the evaluation's lookup of a simulated device among imported ones).
    public func firstDeviceID(nameLike patterns: [String], tid: String? = nil) throws -> Int64? {
        guard !patterns.isEmpty || tid != nil else { return nil }
        let clauses = patterns.map { _ in "name LIKE ?" } + (tid == nil ? [] : ["tid = ?"])
        return try db.scalarInt(
            "SELECT id FROM devices WHERE " + clauses.joined(separator: " OR ") + " ORDER BY id LIMIT 1",
            patterns.map { .text($0) } + (tid.map { [SQLValue.text($0)] } ?? []))
    }
}

/// What `tripline info` shows of a device: its row, its points and app events, and its rebuild state.
public struct DeviceSummary: Sendable, Equatable {
    public var name: String
    public var source: String
    public var nameOrigin: DeviceOrigin
    public var points: Int
    /// The times of its first and last point; nil without points.
    public var firstMs: Int64?
    public var lastMs: Int64?
    public var appEvents: Int
    /// When it was last rebuilt (nil: never) and the algorithm version of its results.
    public var rebuiltMs: Int64?
    public var algorithmVersion: Int?
    /// The points, and the app events a rebuild reads, imported since its last rebuild.
    public var pointsWaiting: Int
    public var appEventsWaiting: Int
}

extension Store {
    /// Every device's summary, by name.
    public func deviceSummaries() throws -> [DeviceSummary] {
        let low = "d.id << \(PointKey.timeBits)", high = "(d.id << \(PointKey.timeBits)) | \(PointKey.maxTimeMs)"
        let st = try db.prepare(
            """
            SELECT d.name, d.source, d.name_origin,
              (SELECT count(*) FROM points_hot p WHERE p.key BETWEEN \(low) AND \(high)),
              (SELECT min(key) FROM points_hot p WHERE p.key BETWEEN \(low) AND \(high)) & \(PointKey.maxTimeMs),
              (SELECT max(key) FROM points_hot p WHERE p.key BETWEEN \(low) AND \(high)) & \(PointKey.maxTimeMs),
              (SELECT count(*) FROM app_events e WHERE e.device_id = d.id),
              r.rebuilt_ms, r.algorithm_version,
              (SELECT count(*) FROM points_hot p WHERE p.key BETWEEN \(low) AND \(high)
                 AND p.import_id > coalesce(r.last_import_id, -1)),
              (SELECT count(*) FROM app_events e WHERE e.device_id = d.id AND e.import_id > coalesce(r.last_import_id, -1)
                 AND e.kind != 'waypoint' AND coalesce(e.time_ms, e.start_ms) IS NOT NULL)
            FROM devices d LEFT JOIN rebuild_state r ON r.device_id = d.id ORDER BY d.name
            """)
        var devices: [DeviceSummary] = []
        while try st.step() {
            devices.append(
                DeviceSummary(
                    name: st.text(0) ?? "", source: st.text(1) ?? "", nameOrigin: DeviceOrigin(rawValue: st.text(2) ?? ""), points: st.int(3),
                    firstMs: st.optionalInt64(4), lastMs: st.optionalInt64(5), appEvents: st.int(6),
                    rebuiltMs: st.optionalInt64(7).flatMap { $0 > 0 ? $0 : nil }, algorithmVersion: st.optionalInt64(8).map { Int($0) },
                    pointsWaiting: st.int(9), appEventsWaiting: st.int(10)))
        }
        return devices
    }

    /// `(text, count)` pairs from a two-column query (the summaries of `tripline info`).
    func counts(_ sql: String) throws -> [(String, Int)] {
        var pairs: [(String, Int)] = []
        let statement = try db.prepare(sql)
        while try statement.step() { pairs.append((statement.text(0) ?? "", statement.int(1))) }
        return pairs
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// Every device, by id.
    public func devices() throws -> [(id: Int64, name: String)] {
        let list = try db.prepare("SELECT id, name FROM devices ORDER BY id")
        var out: [(id: Int64, name: String)] = []
        while try list.step() { out.append((list.int64(0), list.text(1) ?? "")) }
        return out
    }

    /// The name of device `id`; nil when there is none.
    public func deviceName(id: Int64) throws -> String? {
        try db.scalarText("SELECT name FROM devices WHERE id = ?", [.integer(id)])
    }
}
