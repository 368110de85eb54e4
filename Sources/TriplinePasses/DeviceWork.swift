import CSQLite
import TriplineCore
import TriplineGeography
import TriplineStore

/// Overland motion states as bits.
public enum MotionBits {
    public static let walking: UInt8 = 1
    public static let running: UInt8 = 2
    public static let cycling: UInt8 = 4
    public static let driving: UInt8 = 8
    public static let stationary: UInt8 = 16

    /// Parses `walking,stationary` (or OwnTracks-style lists) from raw bytes.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> UInt8 {
        var bits: UInt8 = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "w"): bits |= walking
            case UInt8(ascii: "r"): bits |= running
            case UInt8(ascii: "c"): bits |= cycling
            case UInt8(ascii: "d"), UInt8(ascii: "a"): bits |= driving  // driving, automotive
            case UInt8(ascii: "s"): bits |= stationary
            default: break
            }
            while i < n && bytes[i] != UInt8(ascii: ",") { i += 1 }
            i += 1
        }
        return bits
    }
}

/// One device's points for the span being rebuilt, as columns, plus what the passes found so far.
///
/// The runner loads the points with one ordered statement; passes share this instead of re-reading.
public final class DeviceWork {
    public let deviceID: Int64
    /// The span rebuilt: points with `fromMs <= time_ms < toMs`.
    public let fromMs: Int64
    /// End of the span (exclusive); lowered by a window's load when it stops at its point limit.
    public internal(set) var toMs: Int64
    /// Where stays and trips are recomputed from (the point after the last visit kept from an earlier rebuild).
    /// Points before it are loaded only as context (neighbours, speeds, whole local days).
    public var processFromMs: Int64
    /// Rows (flags, stays, trips) at or after this time are kept as stored: a `--to` rebuild ends at the end of a
    /// stored stay and loads a little beyond it only as context. `Int64.max` = no limit.
    public var keepFromMs: Int64 = Int64.max
    /// The end of what a pass may replace: `min(toMs, keepFromMs)`.
    var replaceToMs: Int64 { min(toMs, keepFromMs) }

    /// `sql` prepared (and reset) with this device at `?1` and the span at `?2` (`from`, default `fromMs`) and `?3`
    /// (`to`, default `toMs`): the passes' reads of what earlier passes wrote for the span.
    func spanQuery(_ sql: String, _ store: Store, from: Int64? = nil, to: Int64? = nil) throws -> Statement {
        let statement = try store.db.prepare(sql)
        statement.reset()
        statement.bindInt(deviceID, at: 1)
        statement.bindInt(from ?? fromMs, at: 2)
        statement.bindInt(to ?? toMs, at: 3)
        return statement
    }
    /// With `--to`: the last local date whose `days` row is rewritten (later days were only partly loaded).
    public var lastDate: String? = nil
    /// Another window of this device follows this one in the same rebuild (``Rebuild``'s bounded memory). Device-wide
    /// work whose result the next window redoes anyway is left to the last one (``PlacesPass``).
    public var windowsFollow = false
    /// The last stored visit before `processFromMs` (the trip after it is recomputed).
    public var previousStay: StayRecord?
    public var time: [Int64] = []
    public var lat: [Double] = []
    public var lon: [Double] = []
    /// Horizontal accuracy in metres; NaN when unknown.
    public var accuracy: [Double] = []
    /// Reported speed in m/s; NaN when unknown.
    public var speed: [Double] = []
    /// The point's own UTC offset, `Int32.min` when the source gave none.
    public var offset: [Int32] = []
    public var motion: [UInt8] = []
    /// Index into `tripModes` + 1 (0 = none).
    public var tripMode: [UInt16] = []
    public var tripModes: [String] = []
    /// Clean flags (``CleanPass/Flag``); 0 = the point counts.
    public var flags: [UInt8] = []
    public var flagsLoaded = false

    public var stays: [StayRecord]? = nil
    public var trips: [TripRecord]? = nil
    /// The zones of points without their own offset: by position, or the one the user chose.
    public let zones: LocalZones

    public var count: Int { time.count }

    /// The first kept point (clean flag 0) at or after `i`; `count` when there is none.
    @inline(__always) func firstKept(atOrAfter i: Int) -> Int {
        var j = i
        while j < count && flags[j] != 0 { j += 1 }
        return j
    }

    /// The last kept point at or before `i`; -1 when there is none.
    @inline(__always) func lastKept(atOrBefore i: Int) -> Int {
        var j = i
        while j >= 0 && flags[j] != 0 { j -= 1 }
        return j
    }

    init(deviceID: Int64, fromMs: Int64, toMs: Int64, processFromMs: Int64, zones: LocalZones) {
        self.deviceID = deviceID
        self.fromMs = fromMs
        self.processFromMs = processFromMs
        self.toMs = toMs
        self.zones = zones
    }

    /// The local offset of point `i`: its own when it has one, else that of the zone where it was taken.
    @inline(__always)
    public func localOffset(_ i: Int) -> Int32 {
        let o = offset[i]
        return o != Int32.min ? o : zones.offset(atMs: time[i], latitude: lat[i], longitude: lon[i])
    }

    /// The local offset of a record's start or end at `ms` (a visit's, a trip's, a leg's): that of the fix taken at
    /// that instant (``localOffset(_:)``), else, when the time was estimated (a departure or arrival across a
    /// silence), that of the zone at (`latitude`, `longitude`) at that instant, so that DST and zone changes count.
    public func localOffset(atMs ms: Int64, latitude: Double, longitude: Double) -> Int32 {
        let j = lowerBound(time, ms)
        if j < count && time[j] == ms { return localOffset(j) }
        return zones.offset(atMs: ms, latitude: latitude, longitude: longitude)
    }

    /// Loads the device's points of the span, in time order, with one statement.
    /// The highest `import_id` among the loaded points.
    public private(set) var maxImportID: Int64 = Int64.min

    /// Loads the device's points of the span, in time order, with one statement; at most `limit` points, in which case
    /// the span ends just after the last one loaded (`toMs` is lowered).
    func loadPoints(store: Store, limit: Int) throws {
        try loadPoints(store: store, limitRows: limit)
        if count >= limit, let last = time.last { toMs = last + 1 }
    }

    func loadPoints(store: Store) throws { try loadPoints(store: store, limitRows: Int.max) }

    private func loadPoints(store: Store, limitRows: Int) throws {
        let statement = try store.db.prepare(
            """
            SELECT \(PointKey.timeSQL), lat, lon, coalesce(accuracy_m, -1e300), coalesce(speed_mps, -1e300),
              coalesce(utc_offset_s, -2147483648), motion, app_trip_mode, import_id
            FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key LIMIT ?
            """)
        let keys = PointKey.range(device: deviceID, fromMs: fromMs, untilMs: toMs)
        statement.reset()
        statement.bindInt(keys.lower, at: 1)
        statement.bindInt(keys.upper, at: 2)
        statement.bindInt(limitRows == Int.max ? -1 : Int64(limitRows), at: 3)
        var maxImport = Int64.min
        var modeIndex: [String: UInt16] = [:]
        // Local arrays (no exclusivity checks on the class's properties per row), moved in at the end.
        var time: [Int64] = [], lat: [Double] = [], lon: [Double] = [], accuracy: [Double] = [], speed: [Double] = []
        var offset: [Int32] = [], motion: [UInt8] = [], tripMode: [UInt16] = []
        var tripModes = self.tripModes
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
            if statement.columnType(7) == 5 /* SQLITE_NULL */ {
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
        self.time = time
        self.lat = lat
        self.lon = lon
        self.accuracy = accuracy
        self.speed = speed
        self.offset = offset
        self.motion = motion
        self.tripMode = tripMode
        self.tripModes = tripModes
        self.maxImportID = maxImport
    }

    /// Loads the clean flags of the span (when the clean pass did not run in this rebuild).
    func loadFlags(store: Store) throws {
        flags = [UInt8](repeating: 0, count: count)
        let statement = try store.db.prepare(
            "SELECT time_ms, flags FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY time_ms")
        statement.reset()
        statement.bindInt(deviceID, at: 1)
        statement.bindInt(fromMs, at: 2)
        statement.bindInt(toMs, at: 3)
        var i = 0
        while try statement.step() {
            let t = statement.int64(0)
            while i < count && time[i] < t { i += 1 }
            if i < count && time[i] == t { flags[i] = UInt8(truncatingIfNeeded: statement.int64(1)) }
        }
        flagsLoaded = true
    }

    /// Flags, loading them from `point_flags` first if needed.
    func ensureFlags(store: Store) throws {
        if !flagsLoaded { try loadFlags(store: store) }
    }
}

/// A stay (one per visit): a stationary period at one spot, as the stays pass found it.
public struct StayRecord: Sendable, Equatable {
    public var first: Int  // index of its first point in DeviceWork
    public var last: Int
    public var startMs: Int64
    public var endMs: Int64
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var points: Int
    /// The longest time without points inside the stay, in seconds.
    public var gapS: Int64
    public var id: Int64 = 0
    public var placeID: Int64 = 0

    /// The stay with its point range read from its times alone, as a stay read back from the `stays` table is
    /// (the next rebuild restarts from one): every point from its start to its end belongs to it, so a trip never
    /// holds a fix from before its own start, and an incremental rebuild gives the full rebuild's trips. A stay without
    /// fixes (an app's visit over a dead phone) points at the fix before it, so the fixes after it start the next trip.
    func indexed(in time: [Int64]) -> StayRecord {
        var s = self
        let a = lowerBound(time, startMs)
        if points == 0 && a >= 1 {
            s.first = a - 1
            s.last = a - 1
        } else {
            s.first = a
            s.last = max(a, lowerBound(time, endMs + 1) - 1)
        }
        return s
    }

    /// The row to store the stay as, under its stable id (from the device and its start, so it survives rebuilds).
    func row(device: Int64) -> StayRow {
        StayRow(id: StableID.make(.stay, device: device, startMs: startMs), deviceID: device, startMs: startMs, endMs: endMs,
                lat: lat, lon: lon, radiusM: radiusM, points: points, gapS: gapS)
    }
}

/// One leg of a rebuilt trip.
public struct LegRecord: Sendable, Equatable {
    public var mode: String
    public var modeSource: String
    public var first: Int
    public var last: Int
    public var startMs: Int64
    public var endMs: Int64
    public var distanceM: Double
}

/// A rebuilt trip between two stays (or a data edge / a long gap).
public struct TripRecord: Sendable, Equatable {
    public var first: Int
    public var last: Int
    public var startMs: Int64
    public var endMs: Int64
    public var fromStay: Int?  // index into stays
    public var toStay: Int?
    public var legs: [LegRecord] = []
    public var distanceM: Double = 0
    public var movingS: Double = 0
    /// The highest speed the fixes show (``TripsPass/maxSpeed(_:_:_:)``); nil with fewer than two fixes and no reported speed.
    public var maxSpeed: Double?
    public var gaps: Int = 0
    public var id: Int64 = 0
}
