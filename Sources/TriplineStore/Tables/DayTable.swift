import TriplineCore

// `days`: one device's totals for one local day. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `days`: one device's totals for one local day.
public struct DayRow: Sendable, Equatable {
    public var deviceID: Int64
    /// `YYYY-MM-DD`, local.
    public var date: String
    public var utcOffset: UTCOffset?
    public var distanceM: Double
    public var movingS: Double
    public var trips: Int
    public var visits: Int
    public var places: Int
    /// The straight lines between the day's kept fixes (``distanceM`` is the estimated path; docs/EXPORTS.md).
    public var lineDistanceM: Double?

    public init(
        deviceID: Int64, date: String, utcOffset: UTCOffset?, distanceM: Double, movingS: Double, trips: Int, visits: Int, places: Int,
        lineDistanceM: Double? = nil
    ) {
        self.lineDistanceM = lineDistanceM
        self.deviceID = deviceID
        self.date = date
        self.utcOffset = utcOffset
        self.distanceM = distanceM
        self.movingS = movingS
        self.trips = trips
        self.visits = visits
        self.places = places
    }
}

extension RebuildTables {
    /// Deletes a device's day totals from `fromDate` to `toDate` (`YYYY-MM-DD`, inclusive).
    public func deleteDays(device: Int64, fromDate: String, toDate: String) throws {
        try db.run("DELETE FROM days WHERE device_id = ? AND date >= ? AND date <= ?", [.integer(device), .text(fromDate), .text(toDate)])
    }

    /// Inserts (or replaces) a day's totals.
    public func insert(_ r: DayRow) throws {
        let s = try statement(
            "INSERT OR REPLACE INTO days(device_id, date, utc_offset_s, distance_m, moving_s, trips, visits, places, line_distance_m) VALUES (?,?,?,?,?,?,?,?,?)")
        try s.bind([.integer(r.deviceID), .text(r.date), .optional(r.utcOffset.map(\.seconds64)), .real(r.distanceM), .real(r.movingS),
                    .integer(Int64(r.trips)), .integer(Int64(r.visits)), .integer(Int64(r.places)), .optional(r.lineDistanceM)])
        _ = try s.step()
    }
}

// MARK: Reading days

extension Store {
    /// The day totals of `device` (every device when nil) from `fromDate` to `toDate` (`YYYY-MM-DD`, inclusive; nil:
    /// unbounded), by date then device name (not id: the order devices were imported in does not show).
    public func forEachDay(device: Int64?, fromDate: String?, toDate: String?, _ body: (DayRow) throws -> Void) throws {
        let s = try db.prepare(
            """
            SELECT d.device_id, d.date, d.distance_m, d.moving_s, d.trips, d.visits, d.places, d.line_distance_m, d.utc_offset_s
            FROM days d JOIN devices dev ON dev.id = d.device_id
            WHERE (?1 IS NULL OR d.device_id = ?1) AND (?2 IS NULL OR d.date >= ?2) AND (?3 IS NULL OR d.date <= ?3)
            ORDER BY d.date, dev.name
            """)
        s.bindInt(device, at: 1)
        s.bindText(fromDate, at: 2)
        s.bindText(toDate, at: 3)
        while try s.step() {
            try body(
                DayRow(
                    deviceID: s.int64(0), date: s.text(1) ?? "", utcOffset: s.optionalInt64(8).map(UTCOffset.init(stored:)), distanceM: s.double(2),
                    movingS: s.double(3), trips: s.int(4), visits: s.int(5), places: s.int(6), lineDistanceM: s.optionalDouble(7)))
        }
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// How many `days` rows `device` has from `fromDate` through `toDate` (`YYYY-MM-DD`), and their total distance in
    /// metres.
    public func dayTotals(device: Int64, fromDate: String, toDate: String) throws -> (days: Int, distanceM: Double) {
        let st = try db.prepare("SELECT count(*), total(distance_m) FROM days WHERE device_id = ? AND date >= ? AND date <= ?")
        try st.bind([.integer(device), .text(fromDate), .text(toDate)])
        _ = try st.step()
        return (st.int(0), st.double(1))
    }
}

// MARK: Read and written by the metrics pass

extension RebuildTables {
    /// The stored count of places of each of the device's days, by date (`YYYY-MM-DD`).
    public func placeCounts(device: Int64) throws -> [String: Int] {
        let d = try statement("SELECT date, places FROM days WHERE device_id = ?")
        d.bindInt(device, at: 1)
        var stored: [String: Int] = [:]
        while try d.step() { stored[d.text(0) ?? ""] = d.int(1) }
        return stored
    }

    /// Sets the count of places of one of the device's days.
    public func setPlaces(device: Int64, date: String, places: Int) throws {
        let s = try statement("UPDATE days SET places = ? WHERE device_id = ? AND date = ?")
        try s.bind([.integer(Int64(places)), .integer(device), .text(date)])
        _ = try s.step()
    }
}
