#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// One location fix as stored in `points`. Optional fields are NULL when the source did not give them
/// (or gave its "unknown" marker, such as Overland's -1).
public struct Point: Sendable, Equatable {
    public var deviceID: Int64
    /// UTC milliseconds since 1970-01-01.
    public var timeMs: Int64
    /// Local offset from UTC in seconds, where the source gives one (Overland timestamps do; OwnTracks and most GPX do not).
    public var utcOffsetS: Int32?
    public var lat: Double
    public var lon: Double
    public var altitudeM: Double?
    public var speedMps: Double?
    public var courseDeg: Double?
    public var accuracyM: Double?
    public var vAccuracyM: Double?
    /// Overland motion states joined by commas (`driving,stationary`), or OwnTracks `motionactivities`.
    public var motion: String?
    public var batteryLevel: Double?
    public var batteryState: String?
    public var ssid: String?
    public var bssid: String?
    public var appTripID: String?
    public var appTripMode: String?
    /// OwnTracks `t` (what triggered the report).
    public var trigger: String?
    /// OwnTracks `conn` (w = wifi, m = mobile, o = offline).
    public var conn: String?
    /// Other source fields worth keeping, as a compact JSON object.
    public var extra: String?
    public var importID: Int64

    public init(
        deviceID: Int64, timeMs: Int64, utcOffsetS: Int32? = nil, lat: Double, lon: Double, altitudeM: Double? = nil,
        speedMps: Double? = nil, courseDeg: Double? = nil, accuracyM: Double? = nil, vAccuracyM: Double? = nil,
        motion: String? = nil, batteryLevel: Double? = nil, batteryState: String? = nil, ssid: String? = nil,
        bssid: String? = nil, appTripID: String? = nil, appTripMode: String? = nil, trigger: String? = nil,
        conn: String? = nil, extra: String? = nil, importID: Int64 = 0
    ) {
        self.deviceID = deviceID
        self.timeMs = timeMs
        self.utcOffsetS = utcOffsetS
        self.lat = lat
        self.lon = lon
        self.altitudeM = altitudeM
        self.speedMps = speedMps
        self.courseDeg = courseDeg
        self.accuracyM = accuracyM
        self.vAccuracyM = vAccuracyM
        self.motion = motion
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.ssid = ssid
        self.bssid = bssid
        self.appTripID = appTripID
        self.appTripMode = appTripMode
        self.trigger = trigger
        self.conn = conn
        self.extra = extra
        self.importID = importID
    }
}

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

/// Wall-clock time, for bookkeeping columns only (never for anything that must be deterministic).
public enum Clock {
    public static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Monotonic seconds, for measuring durations.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
