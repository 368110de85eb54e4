import TriplineCore

import TriplineCore


extension Store {
    /// The id of the device named `name`, creating it (with `source` and how the name was found) when new.
    public func deviceID(named name: String, source: String, origin: String, tid: String? = nil) throws -> Int64 {
        if let id = try db.scalarInt("SELECT id FROM devices WHERE name = ?", [.text(name)]) { return id }
        try db.run(
            "INSERT INTO devices(name, source, name_origin, tid, created_ms) VALUES (?, ?, ?, ?, ?)",
            [.text(name), .text(source), .text(origin), tid.map { .text($0) } ?? .null, .integer(Clock.nowMs())])
        return db.lastInsertRowID
    }

    /// Inserts points, skipping any whose (device, time) is already stored. Returns how many were new.
    /// The caller wraps this in a transaction. Simple and general; the importer has its own faster path.
    @discardableResult
    public func insertPoints<S: Sequence>(_ points: S) throws -> Int where S.Element == Point {
        let statement = try db.prepare(
            """
            INSERT OR IGNORE INTO points(device_id, time_ms, utc_offset_s, lat, lon, altitude_m, speed_mps, course_deg,
              accuracy_m, v_accuracy_m, motion, battery_level, battery_state, ssid, bssid, app_trip_id, app_trip_mode,
              trigger, conn, extra, import_id)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        var inserted = 0
        for p in points {
            statement.reset()
            statement.bindInt(p.deviceID, at: 1)
            statement.bindInt(p.timeMs, at: 2)
            statement.bindInt(p.utcOffsetS.map(Int64.init), at: 3)
            statement.bindDouble(p.lat, at: 4)
            statement.bindDouble(p.lon, at: 5)
            statement.bindDouble(p.altitudeM, at: 6)
            statement.bindDouble(p.speedMps, at: 7)
            statement.bindDouble(p.courseDeg, at: 8)
            statement.bindDouble(p.accuracyM, at: 9)
            statement.bindDouble(p.vAccuracyM, at: 10)
            statement.bindText(p.motion, at: 11)
            statement.bindDouble(p.batteryLevel, at: 12)
            statement.bindText(p.batteryState, at: 13)
            statement.bindText(p.ssid, at: 14)
            statement.bindText(p.bssid, at: 15)
            statement.bindText(p.appTripID, at: 16)
            statement.bindText(p.appTripMode, at: 17)
            statement.bindText(p.trigger, at: 18)
            statement.bindText(p.conn, at: 19)
            statement.bindText(p.extra, at: 20)
            statement.bindInt(p.importID, at: 21)
            _ = try statement.step()
            inserted += db.changes
        }
        return inserted
    }
}
