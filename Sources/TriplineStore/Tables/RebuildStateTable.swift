import TriplineCore

// `rebuild_state`: what a device's stored results were built with. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `rebuild_state`: what a device's stored results were built with (the rebuild compares it with its own
/// parameters, time zone and code version, and recomputes when they differ).
public struct RebuildStateRow: Sendable, Equatable {
    public var deviceID: Int64
    /// A JSON object of every pass parameter, `"pass.key": value`; `{}` when unknown (results of an older Tripline).
    public var parameters: String
    /// The IANA zone of points without their own offset; empty when unknown.
    public var timezone: String
    public var algorithmVersion: Int
    /// The highest `points.import_id` rebuilt (drives incremental rebuilds); nil when none.
    public var lastImportID: Int64?
    /// Wall-clock time of the rebuild (bookkeeping).
    public var rebuiltMs: Int64

    public init(deviceID: Int64, parameters: String, timezone: String, algorithmVersion: Int, lastImportID: Int64?, rebuiltMs: Int64) {
        self.deviceID = deviceID
        self.parameters = parameters
        self.timezone = timezone
        self.algorithmVersion = algorithmVersion
        self.lastImportID = lastImportID
        self.rebuiltMs = rebuiltMs
    }
}

extension RebuildTables {
    /// The names of the devices that hold points or app events but were never rebuilt (no `rebuild_state` row):
    /// their trips, visits, places and days are empty until `tripline rebuild` runs.
    public func devicesNeverRebuilt() throws -> [String] {
        let s = try statement(
            """
            SELECT name FROM devices d WHERE NOT EXISTS (SELECT 1 FROM rebuild_state r WHERE r.device_id = d.id)
            AND (EXISTS (SELECT 1 FROM points_hot WHERE key BETWEEN d.id << \(PointKey.timeBits) AND (d.id << \(PointKey.timeBits)) + \(PointKey.maxTimeMs))
                 OR EXISTS (SELECT 1 FROM app_events e WHERE e.device_id = d.id))
            ORDER BY name
            """)
        var names: [String] = []
        while try s.step() { names.append(s.text(0) ?? "") }
        return names
    }

    /// Records what a device's results were built with (replacing the previous record).
    public func insert(_ r: RebuildStateRow) throws {
        try db.run(
            "INSERT OR REPLACE INTO rebuild_state(device_id, parameters, timezone, algorithm_version, last_import_id, rebuilt_ms) VALUES (?,?,?,?,?,?)",
            [.integer(r.deviceID), .text(r.parameters), .text(r.timezone), .integer(Int64(r.algorithmVersion)), .optional(r.lastImportID),
             .integer(r.rebuiltMs)])
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// The stored `rebuild_state` row of a device; nil when it was never rebuilt.
    public func rebuildState(device: Int64) throws -> RebuildStateRow? {
        let st = try db.prepare(
            "SELECT parameters, timezone, algorithm_version, last_import_id, rebuilt_ms FROM rebuild_state WHERE device_id = ?")
        st.bindInt(device, at: 1)
        guard try st.step() else { return nil }
        return RebuildStateRow(deviceID: device, parameters: st.text(0) ?? "{}", timezone: st.text(1) ?? "", algorithmVersion: st.int(2),
                               lastImportID: st.optionalInt64(3), rebuiltMs: st.int64(4))
    }

    /// The members of a stored parameter object (`rebuild_state.parameters`) in their stored order, each value as
    /// SQLite reads it from the JSON: an integer, a real, or text.
    public func parameterMembers(_ json: String) throws -> [(key: String, value: SQLValue)] {
        let st = try db.prepare("SELECT key, value FROM json_each(?)")
        try st.bind([.text(json)])
        var out: [(key: String, value: SQLValue)] = []
        while try st.step() { out.append((st.text(0) ?? "", st.value(1))) }
        return out
    }
}
