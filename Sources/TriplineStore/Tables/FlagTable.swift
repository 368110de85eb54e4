import TriplineCore

// `point_flags`: the cleaning flags of points (0 is never stored). Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

extension RebuildTables {
    /// Deletes the flags of a device's points with `fromMs ≤ time_ms < toMs`.
    public func deleteFlags(device: Int64, fromMs: Int64, toMs: Int64) throws {
        try db.run("DELETE FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms < ?", [.integer(device), .integer(fromMs), .integer(toMs)])
    }

    /// Sets a point's cleaning flags (`point_flags`; 0 is never stored).
    public func setFlags(device: Int64, timeMs: Int64, flags: UInt8) throws {
        let s = try statement("INSERT OR REPLACE INTO point_flags(device_id, time_ms, flags) VALUES (?, ?, ?)")
        s.bindInt(device, at: 1)
        s.bindInt(timeMs, at: 2)
        s.bindInt(Int64(flags), at: 3)
        _ = try s.step()
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// The non-zero cleaning flags of `device`'s points with `fromMs <= time < untilMs`, in time order.
    public func flags(device: Int64, fromMs: Int64, untilMs: Int64, _ body: (_ timeMs: Int64, _ flags: UInt8) throws -> Void) throws {
        let statement = try db.prepare(
            "SELECT time_ms, flags FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY time_ms")
        statement.bindInt(device, at: 1)
        statement.bindInt(fromMs, at: 2)
        statement.bindInt(untilMs, at: 3)
        while try statement.step() { try body(statement.int64(0), UInt8(truncatingIfNeeded: statement.int64(1))) }
    }

    /// How many of `device`'s points with `fromMs <= time < untilMs` carry any of the flags in `mask`.
    public func flaggedCount(device: Int64, fromMs: Int64, untilMs: Int64, mask: UInt8) throws -> Int {
        Int(try db.scalarInt(
            "SELECT count(*) FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms < ? AND flags & ? != 0",
            [.integer(device), .integer(fromMs), .integer(untilMs), .integer(Int64(mask))]) ?? 0)
    }
}
