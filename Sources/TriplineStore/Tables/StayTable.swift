import TriplineCore

// `stays`: the stationary periods the stays pass finds (and the evidence pass amends). Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

import TriplineCore
// The rows the rebuild writes (docs/SCHEMA.md has every column), each with its one insert in ``RebuildTables``.
// The passes, the synthetic map fixture and the benchmarks all write through these; no other code in Sources/
// inserts into these tables.
/// A row of `stays`: a stationary period found by the stays pass.
public struct StayRow: Sendable, Equatable {
    /// A stable id (``StableID``) to store the stay under; nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var startMs: Int64
    public var endMs: Int64
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var points: Int
    /// The longest silence inside the stay, in seconds.
    public var gapS: Int64

    public init(id: Int64? = nil, deviceID: Int64, startMs: Int64, endMs: Int64, lat: Double, lon: Double, radiusM: Double, points: Int, gapS: Int64) {
        self.id = id
        self.deviceID = deviceID
        self.startMs = startMs
        self.endMs = endMs
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.points = points
        self.gapS = gapS
    }
}

extension RebuildTables {
    /// Deletes a device's stays that start in `fromMs ..< toMs`.
    public func deleteStays(device: Int64, fromMs: Int64, toMs: Int64) throws {
        try db.run("DELETE FROM stays WHERE device_id = ? AND start_ms >= ? AND start_ms < ?", [.integer(device), .integer(fromMs), .integer(toMs)])
    }

    /// Deletes one stay (the evidence pass replaces the stays it amends).
    public func deleteStay(id: Int64) throws {
        try db.run("DELETE FROM stays WHERE id = ?", [.integer(id)])
    }

    /// Inserts a stay and returns its id.
    @discardableResult
    public func insert(_ r: StayRow) throws -> Int64 {
        let s = try statement("INSERT INTO stays(id, device_id, start_ms, end_ms, lat, lon, radius_m, points, gap_s) VALUES (?,?,?,?,?,?,?,?,?)")
        return try insert(s, id: r.id, "stays", [.integer(r.deviceID), .integer(r.startMs), .integer(r.endMs), .real(r.lat), .real(r.lon),
                                               .real(r.radiusM), .integer(Int64(r.points)), .integer(r.gapS)])
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// `device`'s stays ending before `ms`, latest first, at most `limit`.
    public func stays(device: Int64, endingBeforeMs ms: Int64, latestFirst limit: Int) throws -> [StayRow] {
        try stays(device: device, "end_ms < ? ORDER BY end_ms DESC", ms, limit)
    }

    /// `device`'s stays ending at or after `ms`, earliest first, at most `limit`.
    public func stays(device: Int64, endingAtOrAfterMs ms: Int64, limit: Int) throws -> [StayRow] {
        try stays(device: device, "end_ms >= ? ORDER BY end_ms", ms, limit)
    }

    private func stays(device: Int64, _ condition: String, _ bound: Int64, _ limit: Int) throws -> [StayRow] {
        try stayRows(device: device, condition + " LIMIT ?", [.integer(bound), .integer(Int64(limit))])
    }

    /// The stays of `device` that meet `condition` (SQL after `WHERE device_id = ? AND`, with its own order; `values`
    /// bind its `?`s in turn): every read of whole stay rows goes through here.
    fileprivate func stayRows(device: Int64, _ condition: String, _ values: [SQLValue]) throws -> [StayRow] {
        let q = try db.prepare("SELECT id, start_ms, end_ms, lat, lon, radius_m, points, gap_s FROM stays WHERE device_id = ? AND " + condition)
        try q.bind([.integer(device)] + values)
        var rows: [StayRow] = []
        while try q.step() {
            rows.append(StayRow(id: q.int64(0), deviceID: device, startMs: q.int64(1), endMs: q.int64(2), lat: q.double(3), lon: q.double(4),
                                radiusM: q.double(5), points: q.int(6), gapS: q.int64(7)))
        }
        return rows
    }

    /// How many stays of `device` start in `fromMs ..< untilMs`, and their total duration in milliseconds.
    public func stayTotals(device: Int64, startingFromMs fromMs: Int64, untilMs: Int64) throws -> (count: Int, durationMs: Double) {
        let st = try db.prepare("SELECT count(*), total(end_ms - start_ms) FROM stays WHERE device_id = ? AND start_ms >= ? AND start_ms < ?")
        try st.bind([.integer(device), .integer(fromMs), .integer(untilMs)])
        _ = try st.step()
        return (st.int(0), st.double(1))
    }
}

// MARK: Read by the places pass

extension Store {
    /// Every stay of `device`, by start (the places pass clusters the device's whole history).
    public func stays(device: Int64) throws -> [StayRow] {
        try stayRows(device: device, "1 ORDER BY start_ms", [])
    }
}

// MARK: Read by the stays and evidence passes

extension Store {
    /// A device's stays that end at or after `endingAtOrAfterMs` and start before `startingBeforeMs`, in time order
    /// (the evidence pass learns the device's pace from the trips between the stored stays of its context).
    public func stays(device: Int64, endingAtOrAfterMs fromMs: Int64, startingBeforeMs untilMs: Int64) throws -> [StayRow] {
        try stayRows(device: device, "end_ms >= ? AND start_ms < ? ORDER BY start_ms", [.integer(fromMs), .integer(untilMs)])
    }

    /// A device's stays that start in `fromMs ..< untilMs`, in time order.
    public func stays(device: Int64, fromMs: Int64, untilMs: Int64) throws -> [StayRow] {
        try stayRows(device: device, "start_ms >= ? AND start_ms < ? ORDER BY start_ms", [.integer(fromMs), .integer(untilMs)])
    }
}
