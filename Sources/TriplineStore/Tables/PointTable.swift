import CSQLite

import TriplineCore


/// The integer primary key of `points_hot`: `device_id << 42 | time_ms` (schema migration 3, docs/SCHEMA.md).
///
/// One integer key instead of the two-column record key of versions 1 and 2: SQLite compares integers at every level of
/// the b-tree instead of decoding and comparing records, and a device's points in time order are one key range.
public enum PointKey {
    /// Bits of the key that hold the time: times 0 … 2^42 − 1 ms (1970-01-01 … 2109-05-15).
    public static let timeBits = 42
    /// The largest storable `time_ms`.
    public static let maxTimeMs: Int64 = (1 << 42) - 1
    /// The largest storable device id (2^21 − 1: the key must stay a positive 63-bit integer).
    public static let maxDeviceID: Int64 = (1 << 21) - 1

    /// The key of a point, or nil when the device or time cannot be stored.
    @inline(__always)
    public static func make(device: Int64, timeMs: Int64) -> Int64? {
        guard device >= 0, device <= maxDeviceID, timeMs >= 0, timeMs <= maxTimeMs else { return nil }
        return device << 42 | timeMs
    }

    /// The time of a key.
    @inline(__always)
    public static func time(_ key: Int64) -> Int64 { key & maxTimeMs }

    /// The device of a key.
    @inline(__always)
    public static func device(_ key: Int64) -> Int64 { key >> 42 }

    /// The keys of `device`'s points with `fromMs <= time_ms <= throughMs`, as an inclusive range for
    /// `key BETWEEN ? AND ?` (times clamped to the storable range; an empty span gives `lower > upper`).
    public static func range(device: Int64, fromMs: Int64, throughMs: Int64) -> (lower: Int64, upper: Int64) {
        let from = max(fromMs, 0)
        let through = min(throughMs, maxTimeMs)
        guard device >= 0, device <= maxDeviceID, from <= through else { return (1, 0) }
        return (device << 42 | from, device << 42 | through)
    }

    /// As ``range(device:fromMs:throughMs:)`` for the half-open span `fromMs <= time_ms < untilMs`.
    public static func range(device: Int64, fromMs: Int64, untilMs: Int64) -> (lower: Int64, upper: Int64) {
        untilMs == Int64.min ? (1, 0) : range(device: device, fromMs: fromMs, throughMs: untilMs - 1)
    }

    /// SQL for the time of `points_hot.key` (the view `points` uses the same expression).
    public static let timeSQL = "key & 4398046511103"
}

/// The one writer of `points` (`points_hot`): every point in Tripline is stored through this type — the importer,
/// ``Store/insertPoints(_:)``, the simulator's loaders and the benchmarks.
///
/// One prepared statement of 13 parameters; the texts are bound without a copy by SQLite (``RowText``); the fields
/// nothing in Tripline reads are encoded as one JSON object (`cold`, NULL when the point has none of them). Every
/// bind's result code is OR-ed together and checked once per row. A point whose (device, time) is already stored is
/// not written (the first one stays): ``insert(_:deviceID:importID:)`` returns false and the caller decides what that
/// means (see ``stored(deviceID:timeMs:)``).
///
/// Used by one thread at a time, like its connection.
public final class PointWriter {
    let db: Database
    let insertStatement: Statement
    let findStatement: Statement
    /// motion, app_trip_mode, ssid and cold, bound from one reused buffer.
    let texts = RowText()
    let cold: ColdBuffer

    public static let insertSQL = """
        INSERT INTO points_hot(key, lat, lon, accuracy_m, speed_mps, utc_offset_s, motion, app_trip_mode, import_id,
          altitude_m, course_deg, ssid, cold)
        VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
        ON CONFLICT(key) DO NOTHING
        """

    /// The point writer of `store`'s connection.
    public convenience init(_ store: Store) throws { try self.init(store.db) }

    public init(_ db: Database) throws {
        self.db = db
        insertStatement = try db.prepare(Self.insertSQL)
        findStatement = try db.prepare("SELECT lat, lon, import_id FROM points_hot WHERE key = ?")
        cold = ColdBuffer()
    }

    /// Inserts `point` with its own `deviceID` and `importID`. Returns true when it was new.
    @inline(__always)
    @discardableResult
    public func insert(_ point: Point) throws -> Bool {
        try insert(point, deviceID: point.deviceID, importID: point.importID)
    }

    /// Inserts `point` for database device `deviceID` and import `importID` (the point's own `deviceID` and
    /// `importID` are not looked at). Returns true when it was new, false when a point of this device and time is
    /// already stored (nothing is written then).
    /// - Throws: ``StoreError/pointOutOfRange(deviceID:timeMs:)`` when the device or time does not fit the key;
    ///   ``DatabaseError`` when a bind or the step fails.
    public func insert(_ p: Point, deviceID: Int64, importID: Int64) throws -> Bool {
        let coldCount = cold.encode(p)
        return try insert(p, cold: UnsafeRawBufferPointer(start: cold.bytes, count: coldCount), deviceID: deviceID, importID: importID)
    }

    /// As ``insert(_:deviceID:importID:)`` with the point's `cold` object already encoded (``ColdBuffer/encode(_:)``'s
    /// bytes for this point; empty for NULL): the point's own cold fields are not looked at. The importer encodes them
    /// on its parsing thread, so that the writing thread, the pipeline's busier one, only binds them.
    package func insert(_ p: Point, cold coldBytes: UnsafeRawBufferPointer, deviceID: Int64, importID: Int64) throws -> Bool {
        guard let key = PointKey.make(device: deviceID, timeMs: p.timeMs) else {
            throw StoreError.pointOutOfRange(deviceID: deviceID, timeMs: p.timeMs)
        }
        let s = insertStatement.handle
        let texts = self.texts
        texts.clear()
        var rc = sqlite3_bind_int64(s, 1, key)
        rc |= sqlite3_bind_double(s, 2, p.lat)
        rc |= sqlite3_bind_double(s, 3, p.lon)
        rc |= bind(p.accuracyM, s, 4)
        rc |= bind(p.speedMps, s, 5)
        if let o = p.utcOffsetS { rc |= bound(sqlite3_bind_int64(s, 6, Int64(o)), 6) } else { rc |= bindNull(s, 6) }
        rc |= bind(p.motion, s, 7)
        rc |= bind(p.appTripMode, s, 8)
        rc |= sqlite3_bind_int64(s, 9, importID)
        rc |= bind(p.altitudeM, s, 10)
        rc |= bind(p.courseDeg, s, 11)
        rc |= bind(p.ssid, s, 12)
        if coldBytes.isEmpty {
            rc |= bindNull(s, 13)
        } else {
            rc |= bound(texts.bindChecked(bytes: coldBytes, to: s, at: 13), 13)
        }
        if rc != SQLITE_OK {
            nullParameters = 0  // a failed bind leaves the parameter's value unknown
            let error = db.error(rc, sql: insertStatement.sql)
            sqlite3_reset(s)
            throw error
        }
        let step = sqlite3_step(s)
        sqlite3_reset(s)
        guard step == SQLITE_DONE else { throw db.error(step, sql: insertStatement.sql) }
        return sqlite3_changes(db.handle) == 1
    }

    /// The parameters of the insert statement known to be bound to NULL (bit `index − 1`). SQLite keeps a statement's
    /// bindings across `sqlite3_reset`, so a parameter that was NULL in the last row and is NULL again is not bound
    /// again (each bind is a call, a check and a value release in SQLite: a point usually has the same optional fields
    /// as the one before).
    private var nullParameters: UInt32 = 0

    @inline(__always)
    func bindNull(_ s: OpaquePointer, _ index: Int32) -> Int32 {
        let bit: UInt32 = 1 << UInt32(index - 1)
        if nullParameters & bit != 0 { return SQLITE_OK }
        nullParameters |= bit
        return sqlite3_bind_null(s, index)
    }

    /// Notes that parameter `index` was bound to a value (`rc` is the bind's result, passed through).
    @inline(__always)
    func bound(_ rc: Int32, _ index: Int32) -> Int32 {
        nullParameters &= ~(1 << UInt32(index - 1))
        return rc
    }

    @inline(__always)
    func bind(_ value: Double?, _ s: OpaquePointer, _ index: Int32) -> Int32 {
        if let value { return bound(sqlite3_bind_double(s, index, value), index) }
        return bindNull(s, index)
    }

    @inline(__always)
    func bind(_ value: String?, _ s: OpaquePointer, _ index: Int32) -> Int32 {
        if let value { return bound(texts.bindChecked(value, to: s, at: index), index) }
        return bindNull(s, index)
    }

    /// The stored position and import of the point of `deviceID` at `timeMs`, or nil when there is none.
    public func stored(deviceID: Int64, timeMs: Int64) throws -> (lat: Double, lon: Double, importID: Int64)? {
        guard let key = PointKey.make(device: deviceID, timeMs: timeMs) else { return nil }
        let f = findStatement
        f.reset()
        f.bindInt(key, at: 1)
        defer { f.reset() }
        guard try f.step() else { return nil }
        return (f.double(0), f.double(1), f.int64(2))
    }
}

/// The `cold` JSON object of a point: `{"v_accuracy_m":…,"battery_level":…,"battery_state":…,"bssid":…,
/// "app_trip_id":…,"trigger":…,"conn":…,"extra":"…"}` with only the members the point has (in this order), written
/// into one reused buffer. Numbers are written so that they read back as the same double (`extra` is a JSON
/// string holding the source's own text exactly, so the view gives it back byte for byte).
package final class ColdBuffer {
    /// The buffer; grown (rarely: a long `extra`) when a row needs more.
    package private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int

    package init(capacity: Int = 1024) {
        self.capacity = capacity
        bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit { bytes.deallocate() }

    /// Writes the point's cold object; returns its length in bytes, 0 when the point has no cold field.
    package func encode(_ p: Point) -> Int {
        if p.vAccuracyM == nil && p.batteryLevel == nil && p.batteryState == nil && p.bssid == nil && p.appTripID == nil
            && p.trigger == nil && p.conn == nil && p.extra == nil {
            return 0
        }
        // Worst case: every text byte escaped as \u00XX (6 bytes), numbers at most 32 bytes, keys and punctuation.
        var bound = 8 * 48  // (one at a time: an array of the six would allocate for every row)
        if let t = p.batteryState { bound += 6 * t.utf8.count }
        if let t = p.bssid { bound += 6 * t.utf8.count }
        if let t = p.appTripID { bound += 6 * t.utf8.count }
        if let t = p.trigger { bound += 6 * t.utf8.count }
        if let t = p.conn { bound += 6 * t.utf8.count }
        if let t = p.extra { bound += 6 * t.utf8.count }
        if bound > capacity {
            bytes.deallocate()
            capacity = max(bound, capacity * 2)
            bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        }
        var w = ColdWriter(out: bytes)
        w.byte(UInt8(ascii: "{"))
        if let v = p.vAccuracyM, !v.isNaN { w.key("\"v_accuracy_m\":"); w.number(v) }
        if let v = p.batteryLevel, !v.isNaN { w.key("\"battery_level\":"); w.number(v) }
        if let v = p.batteryState { w.key("\"battery_state\":"); w.string(v) }
        if let v = p.bssid { w.key("\"bssid\":"); w.string(v) }
        if let v = p.appTripID { w.key("\"app_trip_id\":"); w.string(v) }
        if let v = p.trigger { w.key("\"trigger\":"); w.string(v) }
        if let v = p.conn { w.key("\"conn\":"); w.string(v) }
        if let v = p.extra { w.key("\"extra\":"); w.string(v) }
        if w.count == 1 { return 0 }  // only NaNs (which SQLite stores as NULL): nothing to keep
        w.byte(UInt8(ascii: "}"))
        return w.count
    }
}

/// Appends JSON to a buffer known to be large enough.
struct ColdWriter {
    let out: UnsafeMutablePointer<UInt8>
    var count = 0

    @inline(__always) mutating func byte(_ b: UInt8) {
        out[count] = b
        count += 1
    }

    /// `"name":`, preceded by a comma unless it is the first member.
    @inline(__always) mutating func key(_ text: StaticString) {
        if count > 1 { byte(UInt8(ascii: ",")) }
        let n = text.utf8CodeUnitCount
        (out + count).update(from: text.utf8Start, count: n)
        count += n
    }

    /// A JSON string: `"`, `\` and control bytes escaped; other bytes (valid UTF-8: a Swift string's) as they are.
    mutating func string(_ value: String) {
        byte(UInt8(ascii: "\""))
        if value.utf8.withContiguousStorageIfAvailable({ append(escaping: $0) }) == nil {
            var copy = value
            copy.withUTF8 { append(escaping: $0) }
        }
        byte(UInt8(ascii: "\""))
    }

    /// The bytes of a JSON string's content, escaped: runs of plain bytes copied at once, `"` and `\` as `\"` and
    /// `\\`, control bytes as `\u00XX`. (An `extra` is JSON text itself, so it always has quotes to escape.)
    mutating func append(escaping b: UnsafeBufferPointer<UInt8>) {
        guard let source = b.baseAddress else { return }
        @inline(__always) func hex(_ d: UInt8) -> UInt8 { d < 10 ? UInt8(ascii: "0") + d : UInt8(ascii: "a") + d - 10 }
        var run = 0  // start of the plain bytes not yet copied
        var i = 0
        while i < b.count {
            let c = source[i]
            if c == 0x22 || c == 0x5C || c < 0x20 {
                (out + count).update(from: source + run, count: i - run)
                count += i - run
                if c < 0x20 {
                    byte(0x5C); byte(UInt8(ascii: "u")); byte(UInt8(ascii: "0")); byte(UInt8(ascii: "0"))
                    byte(hex(c >> 4)); byte(hex(c & 15))
                } else {
                    byte(0x5C)
                    byte(c)
                }
                run = i + 1
            }
            i += 1
        }
        (out + count).update(from: source + run, count: b.count - run)
        count += b.count - run
    }

    /// A number that reads back as the same double: the shortest of 0–9 decimals that is exact (a source's
    /// `0.87` or `55`), else Swift's shortest round-trip form.
    mutating func number(_ v: Double) {
        if v.isInfinite {  // read back by SQLite's JSON functions as ±infinity, like the REAL column stored it
            if v < 0 { byte(UInt8(ascii: "-")) }
            for c in "1e999".utf8 { byte(c) }
            return
        }
        var scale = 1.0
        for decimals in 0...9 {
            let scaled = (v * scale).rounded()
            if abs(scaled) < 9e15, scaled / scale == v {
                var n = Int64(scaled)
                if n < 0 || (n == 0 && v.sign == .minus) {
                    byte(UInt8(ascii: "-"))
                    n = -n
                }
                var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
                let length = withUnsafeMutableBytes(of: &digits) { raw -> Int in
                    var k = 0
                    var m = UInt64(n)
                    repeat {
                        raw[k] = UInt8(ascii: "0") + UInt8(m % 10)
                        m /= 10
                        k += 1
                    } while m > 0
                    while k <= decimals {  // leading zeros of a fraction (0.05)
                        raw[k] = UInt8(ascii: "0")
                        k += 1
                    }
                    return k
                }
                withUnsafeBytes(of: &digits) { raw in
                    var k = length
                    while k > 0 {
                        k -= 1
                        byte(raw[k])
                        if k == decimals && decimals > 0 { byte(UInt8(ascii: ".")) }
                    }
                }
                return
            }
            scale *= 10
        }
        for c in v.description.utf8 { byte(c) }
    }
}

extension RowText {
    /// As ``bind(_:to:at:)``, returning SQLite's result code.
    @inline(__always)
    func bindChecked(_ value: String?, to s: OpaquePointer, at index: Int32) -> Int32 {
        guard let value else { return sqlite3_bind_null(s, index) }
        if let rc = value.utf8.withContiguousStorageIfAvailable({ bindChecked(bytes: UnsafeRawBufferPointer($0), to: s, at: index) }) {
            return rc
        }
        var copy = value
        return copy.withUTF8 { bindChecked(bytes: UnsafeRawBufferPointer($0), to: s, at: index) }
    }
}

// MARK: Reading points

/// A reusable reader of one device's points in a time window, merged with their flags (the exports' and the privacy
/// zones' scan).
///
/// Reads `points_hot` and the non-zero rows of `point_flags` as two ordered range scans of their primary keys and
/// merges them, which is much faster than a per-row join. The columns of the current point are read from the
/// statement handed to `body`, by the indexes of ``Column``.
public final class PointRangeReader {
    /// What a reader reads of each point.
    public enum Columns: Sendable {
        /// Time, position (offset and altitude come back as NULL): GeoJSON lines.
        case position
        /// Time, offset, position and altitude: what a GPX line needs. SQLite decodes every selected column of every
        /// row, so lines read faster this way.
        case line
        /// Every column of ``Column``.
        case all
    }

    /// Column indexes of the statement handed over (a line or position reader has the first five).
    ///
    /// NULLs come back as values no real reading has, so each column is read with one call instead of two (type,
    /// then value): a NULL offset as `Int32.min`, a NULL number as +infinity (which every writer already writes as
    /// unknown, like any non-finite number). Text columns tell NULL by a nil pointer.
    public enum Column {
        /// The recorded UTC offset of the current row, or nil.
        @inline(__always)
        public static func recordedOffset(_ s: Statement) -> UTCOffset? {
            let value = s.int64(offset)
            return value == -2_147_483_648 ? nil : UTCOffset(stored: value)
        }

        public static let time: Int32 = 0, offset: Int32 = 1, lat: Int32 = 2, lon: Int32 = 3, altitude: Int32 = 4
        public static let speed: Int32 = 5, course: Int32 = 6, accuracy: Int32 = 7, motion: Int32 = 8, ssid: Int32 = 9
    }

    @usableFromInline let points: Statement
    @usableFromInline let flags: Statement

    public init(_ store: Store, columns: Columns) throws {
        let selected: String
        switch columns {
        case .position: selected = "\(PointKey.timeSQL), NULL, lat, lon, NULL"
        case .line: selected = "\(PointKey.timeSQL), ifnull(utc_offset_s, -2147483648), lat, lon, ifnull(altitude_m, 1e999)"
        case .all:
            selected = """
                \(PointKey.timeSQL), ifnull(utc_offset_s, -2147483648), lat, lon, ifnull(altitude_m, 1e999), ifnull(speed_mps, 1e999),
                ifnull(course_deg, 1e999), ifnull(accuracy_m, 1e999), motion, ssid
                """
        }
        points = try store.db.prepare("SELECT \(selected) FROM points_hot WHERE key BETWEEN ?4 AND ?5 ORDER BY key")
        flags = try store.db.prepare(
            "SELECT time_ms, flags FROM point_flags WHERE device_id = ?1 AND time_ms BETWEEN ?2 AND ?3 AND flags != 0 ORDER BY time_ms")
    }

    /// Calls `body(statement, timeMs, flags)` for each point of `device` with `startMs <= time <= endMs`, in time
    /// order.
    @inlinable @inline(__always)
    public func read(device: Int64, startMs: Int64, endMs: Int64, _ body: (Statement, Int64, Int64) throws -> Void) throws {
        points.reset()
        flags.reset()
        flags.bindInt(device, at: 1)
        flags.bindInt(startMs, at: 2)
        flags.bindInt(endMs, at: 3)
        let keys = PointKey.range(device: device, fromMs: startMs, throughMs: endMs)
        points.bindInt(keys.lower, at: 4)
        points.bindInt(keys.upper, at: 5)
        var flagTime = Int64.max
        var flagValue: Int64 = 0
        if try flags.step() {
            flagTime = flags.int64(0)
            flagValue = flags.int64(1)
        }
        while try points.step() {
            let time = points.int64(0)
            while flagTime < time {
                if try flags.step() {
                    flagTime = flags.int64(0)
                    flagValue = flags.int64(1)
                } else {
                    flagTime = Int64.max
                }
            }
            try body(points, time, flagTime == time ? flagValue : 0)
        }
    }
}

/// One fix of `points` as the exports look one up: its time, recorded offset and position.
public struct Fix: Sendable, Equatable {
    public var timeMs: Int64
    public var utcOffset: UTCOffset?
    public var lat: Double
    public var lon: Double

    public init(timeMs: Int64, utcOffset: UTCOffset?, lat: Double, lon: Double) {
        self.timeMs = timeMs
        self.utcOffset = utcOffset
        self.lat = lat
        self.lon = lon
    }
}

/// Finds the first or last fix of a device in a time window, and a fix's accuracy (prepared once, reused).
public final class FixFinder {
    let first: Statement
    let last: Statement
    let reported: Statement

    public init(_ store: Store) throws {
        let sql = "SELECT \(PointKey.timeSQL), utc_offset_s, lat, lon FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key"
        first = try store.db.prepare(sql + " LIMIT 1")
        last = try store.db.prepare(sql + " DESC LIMIT 1")
        reported = try store.db.prepare("SELECT accuracy_m FROM points_hot WHERE key = ?")
    }

    /// The accuracy (m) the fix of `device` taken at `ms` reports: NaN when it reports none or there is no such fix,
    /// as the passes read it.
    public func accuracy(device: Int64, atMs ms: Int64) throws -> Double {
        guard let key = PointKey.make(device: device, timeMs: ms) else { return .nan }
        reported.reset()
        reported.bindInt(key, at: 1)
        guard try reported.step(), !reported.isNull(0) else { return .nan }
        let value = reported.double(0)
        return value.isFinite ? value : .nan
    }

    /// The first (`last` false) or last fix of `device` with `fromMs <= time <= throughMs`, or nil when it has none.
    public func fix(device: Int64, fromMs: Int64, throughMs: Int64, last isLast: Bool) throws -> Fix? {
        let q = isLast ? last : first
        let keys = PointKey.range(device: device, fromMs: fromMs, throughMs: throughMs)
        q.reset()
        try q.bind([.integer(keys.lower), .integer(keys.upper)])
        guard try q.step() else { return nil }
        return Fix(timeMs: q.int64(0), utcOffset: q.isNull(1) ? nil : UTCOffset(stored: q.int64(1)), lat: q.double(2), lon: q.double(3))
    }
}

extension Store {
    /// Every point's time and position in key order: device by device, each in time order (the evaluation's stores
    /// hold one device).
    public func forEachPointPosition(_ body: (_ timeMs: Int64, _ lat: Double, _ lon: Double) throws -> Void) throws {
        let q = try db.prepare("SELECT \(PointKey.timeSQL), lat, lon FROM points_hot ORDER BY key")
        while try q.step() { try body(q.int64(0), q.double(1), q.double(2)) }
    }

    /// The times of a device's points and of its app events that have one, unsorted (what was recorded at all).
    public func recordTimes(device: Int64) throws -> [Int64] {
        let q = try db.prepare(
            "SELECT time_ms FROM points WHERE device_id = ?1 UNION ALL SELECT time_ms FROM app_events WHERE device_id = ?1 AND time_ms IS NOT NULL")
        q.bindInt(device, at: 1)
        var out: [Int64] = []
        while try q.step() { out.append(q.int64(0)) }
        return out
    }
}

// MARK: Read by the rebuild runner

/// One device's points of a span as columns, in time order: what the passes work on (``Store/pointColumns(device:fromMs:untilMs:limit:)``).
public struct PointColumns: Sendable {
    public var time: [Int64] = []
    public var lat: [Double] = []
    public var lon: [Double] = []
    /// Horizontal accuracy in metres; NaN when unknown.
    public var accuracy: [Double] = []
    /// Reported speed in m/s; NaN when unknown.
    public var speed: [Double] = []
    /// The point's own UTC offset, `Int32.min` when the source gave none.
    public var offset: [Int32] = []
    /// The app's motion states (``MotionBits``); 0 = none.
    public var motion: [UInt8] = []
    /// Index into `tripModes` + 1 (0 = none): the app's trip mode (Overland's `mode`).
    public var tripMode: [UInt16] = []
    public var tripModes: [String] = []
    /// The highest `import_id` among the points, `Int64.min` for none.
    public var maxImportID: Int64 = Int64.min

    public init() {}
}

extension Store {
    /// The points of `device` with `fromMs <= time < untilMs` in time order, at most `limit` of them (nil: all), read
    /// with one ordered statement.
    public func pointColumns(device: Int64, fromMs: Int64, untilMs: Int64, limit: Int? = nil) throws -> PointColumns {
        let statement = try db.prepare(
            """
            SELECT \(PointKey.timeSQL), lat, lon, coalesce(accuracy_m, -1e300), coalesce(speed_mps, -1e300),
              coalesce(utc_offset_s, -2147483648), motion, app_trip_mode, import_id
            FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key LIMIT ?
            """)
        let keys = PointKey.range(device: device, fromMs: fromMs, untilMs: untilMs)
        statement.reset()
        statement.bindInt(keys.lower, at: 1)
        statement.bindInt(keys.upper, at: 2)
        statement.bindInt(limit.map { Int64($0) } ?? -1, at: 3)
        var maxImport = Int64.min
        var modeIndex: [String: UInt16] = [:]
        // Local arrays (no exclusivity checks per row), moved into the result at the end.
        var time: [Int64] = [], lat: [Double] = [], lon: [Double] = [], accuracy: [Double] = [], speed: [Double] = []
        var offset: [Int32] = [], motion: [UInt8] = [], tripMode: [UInt16] = []
        var tripModes: [String] = []
        while try statement.step() {
            maxImport = max(maxImport, statement.int64(8))
            time.append(statement.int64(0))
            lat.append(statement.double(1))
            lon.append(statement.double(2))
            // NULLs arrive as sentinels (one column call each instead of a type check and a read).
            let a = statement.double(3), v = statement.double(4)
            accuracy.append(a == -1e300 ? .nan : a)
            speed.append(v == -1e300 ? .nan : v)
            offset.append(Int32(truncatingIfNeeded: statement.int64(5)))
            motion.append(statement.withTextBytes(6) { $0.isEmpty ? 0 : MotionBits.parse($0) })
            if statement.isNull(7) {
                tripMode.append(0)
            } else {
                let m = statement.text(7) ?? ""
                if let k = modeIndex[m] { tripMode.append(k) } else {
                    tripModes.append(m)
                    let k = UInt16(min(tripModes.count, Int(UInt16.max)))
                    modeIndex[m] = k
                    tripMode.append(k)
                }
            }
        }
        var out = PointColumns()
        out.time = time
        out.lat = lat
        out.lon = lon
        out.accuracy = accuracy
        out.speed = speed
        out.offset = offset
        out.motion = motion
        out.tripMode = tripMode
        out.tripModes = tripModes
        out.maxImportID = maxImport
        return out
    }

    /// The position of `device` at `ms`: its first point from `ms` on, else its last before; nil without points.
    public func position(device: Int64, nearMs ms: Int64) throws -> (lat: Double, lon: Double)? {
        let near = try db.prepare(
            "SELECT lat, lon FROM (SELECT lat, lon FROM points_hot WHERE key BETWEEN ?1 AND ?2 ORDER BY key LIMIT 1) UNION ALL SELECT lat, lon FROM (SELECT lat, lon FROM points_hot WHERE key BETWEEN ?3 AND ?4 ORDER BY key DESC LIMIT 1) LIMIT 1")
        let from = PointKey.range(device: device, fromMs: ms, throughMs: PointKey.maxTimeMs)
        let before = PointKey.range(device: device, fromMs: 0, untilMs: ms)
        try near.bind([.integer(from.lower), .integer(from.upper), .integer(before.lower), .integer(before.upper)])
        return try near.step() ? (near.double(0), near.double(1)) : nil
    }

    /// Whether `device` has a point without its own UTC offset (whose local time depends on the zone chosen).
    public func hasPointWithoutOffset(device: Int64) throws -> Bool {
        let keys = PointKey.range(device: device, fromMs: 0, throughMs: PointKey.maxTimeMs)
        return try db.scalarInt(
            "SELECT 1 FROM points_hot WHERE key BETWEEN ? AND ? AND utc_offset_s IS NULL LIMIT 1",
            [.integer(keys.lower), .integer(keys.upper)]) != nil
    }

    /// The time of the first point of `device` at or after `fromMs` imported after import `importID`.
    public func firstPointMs(device: Int64, fromMs: Int64, importedAfter importID: Int64) throws -> Int64? {
        let keys = PointKey.range(device: device, fromMs: max(0, fromMs), throughMs: PointKey.maxTimeMs)
        return try db.scalarInt(
            "SELECT min(key) FROM points_hot WHERE key BETWEEN ? AND ? AND import_id > ?",
            [.integer(keys.lower), .integer(keys.upper), .integer(importID)]).map(PointKey.time)
    }

    /// The times of the first and last point of `device` with `fromMs <= time <= throughMs` (flagged ones too); nil
    /// when there is none. Two lookups of the key range, whatever the number of points between.
    public func pointSpan(device: Int64, fromMs: Int64, throughMs: Int64) throws -> (first: Int64, last: Int64)? {
        let keys = PointKey.range(device: device, fromMs: max(0, fromMs), throughMs: min(throughMs, PointKey.maxTimeMs))
        let bounds: [SQLValue] = [.integer(keys.lower), .integer(keys.upper)]
        guard let first = try db.scalarInt("SELECT min(key) FROM points_hot WHERE key BETWEEN ? AND ?", bounds),
              let last = try db.scalarInt("SELECT max(key) FROM points_hot WHERE key BETWEEN ? AND ?", bounds) else { return nil }
        return (PointKey.time(first), PointKey.time(last))
    }

    /// How many points `device` has with `fromMs <= time < untilMs`.
    public func pointCount(device: Int64, fromMs: Int64, untilMs: Int64) throws -> Int {
        let keys = PointKey.range(device: device, fromMs: fromMs, untilMs: untilMs)
        return Int(try db.scalarInt("SELECT count(*) FROM points_hot WHERE key BETWEEN ? AND ?", [.integer(keys.lower), .integer(keys.upper)]) ?? 0)
    }
}

// MARK: Read by the benchmarks

extension Store {
    /// The number of stored points (every device).
    public func pointCount() throws -> Int {
        Int(try db.scalarInt("SELECT count(*) FROM points_hot") ?? 0)
    }

    /// The latest time of any stored point, or nil when there is none.
    public func latestPointMs() throws -> Int64? {
        // The key packs `device_id << 42 | time_ms`: the time is its low bits.
        try db.scalarInt("SELECT max(key & \(PointKey.maxTimeMs)) FROM points_hot")
    }
}

// MARK: Read by the places pass

extension Store {
    /// The wifi networks (SSIDs, not empty) a device's points saw in each of `spans` (`fromMs ... throughMs`, both
    /// included), with how many points saw each: one dictionary per span, in the order given.
    public func ssidCounts(device: Int64, spans: [(fromMs: Int64, throughMs: Int64)]) throws -> [[String: Int]] {
        try eachSpan(Self.ssidCountSQL, device: device, spans: spans, Self.readSSIDCounts)
    }

    /// The mean reported horizontal accuracy (metres) of a device's points in each of `spans` (`fromMs ... throughMs`,
    /// both included) that report one: one value per span, in the order given, nil when none does.
    public func meanAccuracies(device: Int64, spans: [(fromMs: Int64, throughMs: Int64)]) throws -> [Double?] {
        try eachSpan(Self.meanAccuracySQL, device: device, spans: spans, Self.readMeanAccuracy)
    }

    /// ``ssidCounts(device:spans:)`` and ``meanAccuracies(device:spans:)`` of the same spans, read span by span: the
    /// two statements are the same, each run on a span right after the other, so the second finds the span's pages in
    /// SQLite's page cache (read one after the other over a device's every stay, each read them all from the file).
    public func ssidCountsAndMeanAccuracies(device: Int64, spans: [(fromMs: Int64, throughMs: Int64)]) throws
        -> (ssids: [[String: Int]], accuracies: [Double?]) {
        let ssid = try db.prepare(Self.ssidCountSQL)
        let accuracy = try db.prepare(Self.meanAccuracySQL)
        var ssids: [[String: Int]] = [], accuracies: [Double?] = []
        ssids.reserveCapacity(spans.count)
        accuracies.reserveCapacity(spans.count)
        for span in spans {
            let keys = PointKey.range(device: device, fromMs: span.fromMs, throughMs: span.throughMs)
            for q in [ssid, accuracy] {
                q.reset()
                q.bindInt(keys.lower, at: 1)
                q.bindInt(keys.upper, at: 2)
            }
            ssids.append(try Self.readSSIDCounts(ssid))
            accuracies.append(try Self.readMeanAccuracy(accuracy))
        }
        return (ssids, accuracies)
    }

    static let ssidCountSQL = "SELECT ssid, count(*) FROM points_hot WHERE key BETWEEN ? AND ? AND ssid IS NOT NULL AND ssid != '' GROUP BY ssid"
    static let meanAccuracySQL = "SELECT avg(accuracy_m) FROM points_hot WHERE key BETWEEN ? AND ? AND accuracy_m > 0"

    static func readSSIDCounts(_ q: Statement) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        while try q.step() { counts[q.text(0) ?? "", default: 0] += q.int(1) }
        return counts
    }

    static func readMeanAccuracy(_ q: Statement) throws -> Double? { try q.step() && !q.isNull(0) ? q.double(0) : nil }

    /// Runs `sql` (bound to a span's first and last point key) once per span of one device, in the order given, and
    /// returns what `read` makes of each run's rows.
    private func eachSpan<T>(_ sql: String, device: Int64, spans: [(fromMs: Int64, throughMs: Int64)],
                             _ read: (Statement) throws -> T) throws -> [T] {
        let q = try db.prepare(sql)
        var out: [T] = []
        out.reserveCapacity(spans.count)
        for span in spans {
            let keys = PointKey.range(device: device, fromMs: span.fromMs, throughMs: span.throughMs)
            q.reset()
            q.bindInt(keys.lower, at: 1)
            q.bindInt(keys.upper, at: 2)
            out.append(try read(q))
        }
        return out
    }

    /// The fixes of a device taken exactly at each of `times` (those it has), by time: their recorded offsets and
    /// positions.
    public func fixes(device: Int64, at times: [Int64]) throws -> [Int64: Fix] {
        let q = try db.prepare("SELECT utc_offset_s, lat, lon FROM points_hot WHERE key = ?")
        var out: [Int64: Fix] = [:]
        for ms in times where out[ms] == nil {
            guard let key = PointKey.make(device: device, timeMs: ms) else { continue }
            q.reset()
            q.bindInt(key, at: 1)
            guard try q.step() else { continue }
            out[ms] = Fix(timeMs: ms, utcOffset: q.isNull(0) ? nil : UTCOffset(stored: q.int64(0)), lat: q.double(1), lon: q.double(2))
        }
        return out
    }
}

// MARK: Read by the clean pass

extension Store {
    /// The times of a device's points in `fromMs ... throughMs` that a phone's Timeline export gives as
    /// `timelinePath` (`trigger`, docs/IMPORT.md), in time order.
    public func timelinePathTimes(device: Int64, fromMs: Int64, throughMs: Int64) throws -> [Int64] {
        let keys = PointKey.range(device: device, fromMs: fromMs, throughMs: throughMs)
        let q = try db.prepare(
            "SELECT \(PointKey.timeSQL) FROM points_hot WHERE key BETWEEN ? AND ? AND cold IS NOT NULL AND json_extract(cold, '$.trigger') = 'timelinePath'")
        try q.bind([.integer(keys.lower), .integer(keys.upper)])
        var out: [Int64] = []
        while try q.step() { out.append(q.int64(0)) }
        return out
    }
}

// MARK: Read by the evidence pass

/// Whether an OwnTracks phone published a device's fix in significant-changes mode as an automatic location update
/// (`m` = 1 in `extra`, no `trigger`: neither a region event, a ping, a response nor a manual publish; docs/SCHEMA.md),
/// looked up by the fix's time, one fix at a time (``Store/significantChanges(device:fromMs:untilMs:)``).
///
/// The evidence pass asks this of the few fixes its trigger-edges rule weighs (the first kept fix after a stay, the fix
/// of a one-fix stay), not of every fix of the span: one primary-key look-up each, remembered, instead of a scan of the
/// span's rows and their `cold` (that scan cost 9–14 % of a rebuild, docs/PERFORMANCE.md). Used by one thread at a
/// time, like its connection. A failed read answers false and is kept in ``error`` for the caller to throw.
public final class SignificantChanges {
    let statement: Statement
    let device: Int64
    let fromMs: Int64
    let untilMs: Int64
    var known: [Int64: Bool] = [:]
    /// The first read that failed, if any.
    public private(set) var error: (any Error)?

    init(_ db: Database, device: Int64, fromMs: Int64, untilMs: Int64) throws {
        // The `GLOB` spares the JSON functions a fix whose `cold` cannot name `m` (as `instr(cold, …) > 0`, cheaper).
        statement = try db.prepare(
            """
            WITH f AS (SELECT cold, json_extract(cold, '$.extra') AS extra FROM points_hot
                       WHERE key = ? AND cold GLOB '*\\"m\\"*')
            SELECT 1 FROM f
            WHERE json_extract(cold, '$.trigger') IS NULL
              AND CASE WHEN json_valid(extra) THEN json_extract(extra, '$.m') = 1 ELSE 0 END
            """)
        self.device = device
        self.fromMs = fromMs
        self.untilMs = untilMs
    }

    /// Whether the device's fix at `timeMs` is such an update (false outside `fromMs ..< untilMs` and where the device
    /// has no fix).
    public func contains(timeMs: Int64) -> Bool {
        guard timeMs >= fromMs, timeMs < untilMs, let key = PointKey.make(device: device, timeMs: timeMs) else { return false }
        if let answer = known[timeMs] { return answer }
        var answer = false
        do {
            statement.reset()
            statement.bindInt(key, at: 1)
            answer = try statement.step()
            statement.reset()
        } catch {
            statement.reset()
            if self.error == nil { self.error = error }
        }
        known[timeMs] = answer
        return answer
    }
}

extension Store {
    /// The fixes of a device in `fromMs ..< untilMs` that an OwnTracks phone published in significant-changes mode as
    /// automatic updates, to be looked up by time (``SignificantChanges``).
    public func significantChanges(device: Int64, fromMs: Int64, untilMs: Int64) throws -> SignificantChanges {
        try SignificantChanges(db, device: device, fromMs: fromMs, untilMs: untilMs)
    }
}

/// A fix that says which OwnTracks regions it was in (`inregions` in `extra`, docs/SCHEMA.md): a read of `points`, as
/// ``Fix`` is, not a row type of its own.
public struct RegionFix: Sendable, Equatable {
    public var timeMs: Int64
    /// The regions' names, as the fix lists them.
    public var regions: [String]

    public init(timeMs: Int64, regions: [String]) {
        self.timeMs = timeMs
        self.regions = regions
    }
}

extension Store {
    /// A device's fixes in `fromMs ..< untilMs` whose `extra` lists the regions they were in (`inregions`, an array of
    /// strings), in time order. (`cold` holds `extra` as a JSON string, read by SQLite's JSON functions; the `GLOB`
    /// (as ``SignificantChanges``'s) only spares them the fixes that cannot have it.)
    ///
    /// The query returns each fix's `inregions` as SQLite's JSON text (`->`; `extra` extracted once, `MATERIALIZED`,
    /// not once for each use), and the names are the text elements of an array, in order: read here when the array
    /// holds only strings with no escape (SQLite writes them back as read, `["Home","Work"]`, so the bytes between the
    /// quotes are the names), else by `json_each` of that text (``regionNames(_:_:)``). The same rows as a `json_each`
    /// of every fix's array (the read before 2026-12-04), at 56 % of the cost (docs/PERFORMANCE.md).
    public func regionFixes(device: Int64, fromMs: Int64, untilMs: Int64) throws -> [RegionFix] {
        let keys = PointKey.range(device: device, fromMs: fromMs, untilMs: untilMs)
        let q = try db.prepare(
            """
            WITH f AS MATERIALIZED (SELECT key, json_extract(cold, '$.extra') AS extra FROM points_hot
                                    WHERE key BETWEEN ? AND ? AND cold GLOB '*inregions*')
            SELECT key, CASE WHEN json_valid(extra) THEN extra -> '$.inregions' END FROM f
            """)
        try q.bind([.integer(keys.lower), .integer(keys.upper)])
        var out: [RegionFix] = []
        var each: Statement? = nil
        // The last array read and its names: a phone's consecutive fixes mostly name the same regions.
        var lastArray: [UInt8] = [], lastNames: [String] = []
        while try q.step() {
            // `->` gives the JSON text of the value: an array, and only an array, begins with `[`.
            guard !q.isNull(1), q.withTextBytes(1, { $0.first == UInt8(ascii: "[") }) else { continue }
            if !q.withTextBytes(1, { $0.elementsEqual(lastArray) }) {
                lastArray = q.withTextBytes(1) { Array($0) }
                if let plain = q.withTextBytes(1, { Self.plainStrings($0) }) {
                    lastNames = plain
                } else {
                    if each == nil { each = try db.prepare("SELECT value FROM json_each(?) WHERE type = 'text' ORDER BY id") }
                    lastNames = try Self.regionNames(each!, q.text(1) ?? "")
                }
            }
            if !lastNames.isEmpty { out.append(RegionFix(timeMs: PointKey.time(q.int64(0)), regions: lastNames)) }
        }
        // In key order as scanned; sorted here only if SQLite ever returned them otherwise (an `ORDER BY` cost 4 %).
        if zip(out, out.dropFirst()).contains(where: { $0.timeMs >= $1.timeMs }) { out.sort { $0.timeMs < $1.timeMs } }
        return out
    }

    /// The text elements of a JSON array, in order (`json_each`).
    static func regionNames(_ each: Statement, _ array: String) throws -> [String] {
        each.reset()
        try each.bind(.text(array), at: 1)
        var names: [String] = []
        while try each.step() { names.append(each.text(0) ?? "") }
        each.reset()
        return names
    }

    /// The elements of a JSON array written as SQLite writes it back, when every one is a string with no backslash:
    /// `[`, then `"…"` separated by `,`, then `]`, nothing else. Nil for anything else (an escape, a number, a nested
    /// value, white space), which ``regionNames(_:_:)`` reads instead.
    static func plainStrings(_ bytes: UnsafeRawBufferPointer) -> [String]? {
        let n = bytes.count
        guard n >= 2, bytes[0] == UInt8(ascii: "["), bytes[n - 1] == UInt8(ascii: "]") else { return nil }
        var names: [String] = []
        var i = 1
        if i == n - 1 { return names }
        while true {
            guard bytes[i] == UInt8(ascii: "\"") else { return nil }
            var j = i + 1
            while j < n - 1 && bytes[j] != UInt8(ascii: "\"") {
                if bytes[j] == UInt8(ascii: "\\") { return nil }
                j += 1
            }
            guard j < n - 1 else { return nil }
            names.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self))
            i = j + 1
            if i == n - 1 { return names }
            guard bytes[i] == UInt8(ascii: ","), i + 1 < n - 1 else { return nil }
            i += 1
        }
    }
}
