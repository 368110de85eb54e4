import TriplineCore
import TriplineGeography
import TriplineStore

/// One device's points for the span being rebuilt, as columns, plus what the passes found so far.
///
/// The runner loads the points with one ordered statement; passes share this instead of re-reading.
public final class DeviceWork {
    public let deviceID: Int64
    /// The key the device's stable ids are mixed from (``StableID/deviceKey(name:)``: from its name, not its id).
    public let deviceKey: UInt64
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
    /// The trips the trips pass assembled and left for the paths pass to measure and store (``TripsPass/writesTrips``);
    /// nil once stored.
    public var trips: [TripRecord]? = nil
    /// Whether this window's rebuild pointed a stored trip at other places (its visits' places moved;
    /// ``RebuildTables/refreshTripPlaces(device:)``): the runner then checks the stored `history` distances
    /// (`Rebuild.staleHistoryRestart`).
    public var tripsRepointed = false
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

    init(deviceID: Int64, deviceKey: UInt64, fromMs: Int64, toMs: Int64, processFromMs: Int64, zones: LocalZones) {
        self.deviceID = deviceID
        self.deviceKey = deviceKey
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
        let columns = try store.pointColumns(device: deviceID, fromMs: fromMs, untilMs: toMs, limit: limitRows == Int.max ? nil : limitRows)
        time = columns.time
        lat = columns.lat
        lon = columns.lon
        accuracy = columns.accuracy
        speed = columns.speed
        offset = columns.offset
        motion = columns.motion
        tripMode = columns.tripMode
        tripModes = columns.tripModes
        maxImportID = columns.maxImportID
        distrustContradictedSpeeds()
    }

    /// A reported speed below this (m/s) is "not moving" (under every still / moving threshold of the passes).
    static let contradictedBelowMps = 0.5
    /// The displacement over the window, less both ends' accuracy, that is clearly moving (m/s).
    static let contradictingPaceMps = 0.8
    /// The window the displacement is measured over (centred on the fix), and its longest allowed span.
    static let contradictingWindowMs: Int64 = 60_000
    static let contradictingWindowMaxMs: Int64 = 300_000
    /// A run of contradicted fixes must last this long and hold this many fixes.
    static let contradictedRunMs: Int64 = 60_000
    static let contradictedRunFixes = 5
    /// A reported speed at or above this (m/s) is "moving" (above every still / moving threshold of the passes)…
    static let contradictedAboveMps = 1.0
    /// …and is contradicted when the path over the window (the sum of its steps, jitter included) is covered at less
    /// than this part of it: a phone reporting a constant speed while it lies still (algorithm version 52).
    static let contradictingPathShare = 0.5

    /// Drops reported speeds that contradict the track (algorithm version 50): some apps write 0 (or a small constant)
    /// on every fix whatever the motion (a logger's `<speed>0</speed>`, OwnTracks `vel` 0 when the platform gives no
    /// speed). A fix reporting under 0.5 m/s whose displacement over a centred window of at least 60 s, less both
    /// ends' accuracy, is at least 0.8 m/s contradicts its speed; a run of such fixes lasting at least 60 s (and 5 fixes:
    /// never one fix, Doppler can be right while positions jitter) gets its speeds set to unknown, so every pass uses
    /// the displacement speed there as for fixes without one. Reported speeds that agree with the steps are untouched.
    ///
    /// The other way round (algorithm version 52): a fix reporting at least 1 m/s whose path over the same window (the
    /// sum of the steps between its fixes, so GPS jitter only lengthens it) is covered at under half that speed
    /// contradicts it too (a phone that repeats a speed while it lies still: before, the stays pass took such fixes
    /// for departures, and the trips between began and ended minutes early and late, with that speed as their
    /// moving speed). A path is never shorter than the way travelled, so a lap of a running track or a car circling a
    /// block keep their speeds.
    func distrustContradictedSpeeds() {
        let n = count
        guard n >= Self.contradictedRunFixes else { return }
        var contradicts = [Bool](repeating: false, count: n)
        var any = false
        var a = 0, b = 0
        for i in 0..<n {
            let s = speed[i]
            guard !s.isNaN && s >= 0 && s < Self.contradictedBelowMps else { continue }
            centredWindow(i, &a, &b)
            let dtMs = time[b] - time[a]
            guard dtMs >= Self.contradictingWindowMs && dtMs <= Self.contradictingWindowMaxMs else { continue }
            let accA = accuracy[a].isNaN ? 0 : accuracy[a], accB = accuracy[b].isNaN ? 0 : accuracy[b]
            let d = Geo.distance(lat[a], lon[a], lat[b], lon[b]) - accA - accB
            if d / (Double(dtMs) / 1000) >= Self.contradictingPaceMps { contradicts[i] = true; any = true }
        }
        // Moving speeds: a run of at least 5 contradicted fixes holds a fix whose index is a multiple of 5, so only
        // those are tried first, and the fixes around one that is contradicted after it (a fifth of the work on a
        // track that agrees with its speeds).
        var k = 0
        (a, b) = (0, 0)
        let stillEnds = any ? (0..<n).filter { contradicts[$0] && ($0 == 0 || !contradicts[$0 - 1] || $0 == n - 1 || !contradicts[$0 + 1]) } : []
        while k < n {
            if movingSpeedContradicted(k, &a, &b) {
                contradicts[k] = true
                any = true
                var j = k - 1
                while j >= 0 && !contradicts[j] && movingSpeedContradicted(j, &a, &b) { contradicts[j] = true; j -= 1 }
                j = k + 1
                while j < n && movingSpeedContradicted(j, &a, &b) { contradicts[j] = true; j += 1 }
                k = (j / Self.contradictedRunFixes + 1) * Self.contradictedRunFixes
            } else {
                k += Self.contradictedRunFixes
            }
        }
        // A run of moving speeds beside a run of still ones is one run with it (the other side of the same wrong
        // speeds): its fixes are tried outward from the still run's ends.
        for e in stillEnds {
            var j = e - 1
            while j >= 0 && !contradicts[j] && movingSpeedContradicted(j, &a, &b) { contradicts[j] = true; j -= 1 }
            j = e + 1
            while j < n && !contradicts[j] && movingSpeedContradicted(j, &a, &b) { contradicts[j] = true; j += 1 }
        }
        guard any else { return }
        var i = 0
        while i < n {
            guard contradicts[i] else { i += 1; continue }
            var j = i
            while j + 1 < n && contradicts[j + 1] { j += 1 }
            if j - i + 1 >= Self.contradictedRunFixes && time[j] - time[i] >= Self.contradictedRunMs {
                for k in i...j { speed[k] = .nan }
            }
            i = j + 1
        }
    }

    /// Moves `a` and `b` to fix `i`'s centred window: `a` the last fix at least half of ``contradictingWindowMs`` before
    /// it (else the first), `b` the first at least half after it (else the last). Cursors rather than binary searches:
    /// fixes taken in order move them a step or two each (a binary search over ten years' fixes costs a branch
    /// mispredicted at each of its levels, for every fix tried).
    @inline(__always)
    func centredWindow(_ i: Int, _ a: inout Int, _ b: inout Int) {
        let half = Self.contradictingWindowMs / 2
        if a > i { a = i }
        while a < i && time[i] - time[a + 1] >= half { a += 1 }
        while a > 0 && time[i] - time[a] < half { a -= 1 }
        if b < i { b = i }
        while b < count - 1 && time[b] - time[i] < half { b += 1 }
        while b > i && time[b - 1] - time[i] >= half { b -= 1 }
    }

    /// Whether fix `i` reports a moving speed (at least ``contradictedAboveMps``) that the path over its centred
    /// window (the same window as the still fixes': at least 60 s, at most 300 s, here of at least 5 fixes) covers at
    /// under ``contradictingPathShare`` of it.
    /// `a` and `b`: the window's cursors (``centredWindow(_:_:_:)``).
    func movingSpeedContradicted(_ i: Int, _ a: inout Int, _ b: inout Int) -> Bool {
        let s = speed[i]
        guard !s.isNaN && s >= Self.contradictedAboveMps else { return false }
        centredWindow(i, &a, &b)
        let dtMs = time[b] - time[a]
        guard dtMs >= Self.contradictingWindowMs && dtMs <= Self.contradictingWindowMaxMs else { return false }
        // A path needs fixes close together: between fixes minutes apart it is a few chords, shorter than any road
        // that bends (sparse OwnTracks phones on buses and winding roads).
        guard b - a + 1 >= Self.contradictedRunFixes else { return false }
        // The path is at least the displacement, which is at least the latitude's part of it: most moving fixes are
        // settled by those, and only a fix that barely moved has its window's steps summed.
        let needed = s * Self.contradictingPathShare * (Double(dtMs) / 1000)
        if (lat[b] - lat[a]).magnitude * 110_000 >= needed { return false }
        // Steps of a minute or five apart: the equirectangular distance at the fix's latitude (within 0.1 % of the
        // great circle there, without its trigonometry per step: this runs for every slow fix of ten years).
        let cosLat = Geo.cosLatitude(lat[i])
        if Geo.fastDistance(lat[a], lon[a], lat[b], lon[b], cosLat: cosLat) >= needed { return false }
        var covered = 0.0
        var k = a
        while k < b && covered < needed {
            covered += Geo.fastDistance(lat[k], lon[k], lat[k + 1], lon[k + 1], cosLat: cosLat)
            k += 1
        }
        return covered < needed
    }

    /// Loads the clean flags of the span (when the clean pass did not run in this rebuild).
    func loadFlags(store: Store) throws {
        flags = [UInt8](repeating: 0, count: count)
        var i = 0
        try store.flags(device: deviceID, fromMs: fromMs, untilMs: toMs) { t, value in
            while i < count && time[i] < t { i += 1 }
            if i < count && time[i] == t { flags[i] = value }
        }
        flagsLoaded = true
    }

    /// Flags, loading them from `point_flags` first if needed.
    func ensureFlags(store: Store) throws {
        if !flagsLoaded { try loadFlags(store: store) }
    }
}

/// A stay (one per visit) as the passes work on it: its row of `stays` (``StayRow``, the one row type of that table)
/// with the range of its points in ``DeviceWork`` and the place it was assigned to.
public struct StayRecord: Sendable, Equatable {
    public var first: Int  // index of its first point in DeviceWork
    public var last: Int
    /// The stay as it is stored. Its device and stable id are set when it is stored (``row(device:key:)``); until then
    /// the device is 0 and `id` nil.
    public var stay: StayRow
    public var placeID: Int64 = 0

    public init(
        first: Int, last: Int, startMs: Int64, endMs: Int64, lat: Double, lon: Double, radiusM: Double, points: Int, gapS: Int64, id: Int64 = 0,
        placeID: Int64 = 0
    ) {
        self.first = first
        self.last = last
        self.stay = StayRow(id: id == 0 ? nil : id, deviceID: 0, startMs: startMs, endMs: endMs, lat: lat, lon: lon, radiusM: radiusM, points: points, gapS: gapS)
        self.placeID = placeID
    }

    public var startMs: Int64 { get { stay.startMs } set { stay.startMs = newValue } }
    public var endMs: Int64 { get { stay.endMs } set { stay.endMs = newValue } }
    public var lat: Double { get { stay.lat } set { stay.lat = newValue } }
    public var lon: Double { get { stay.lon } set { stay.lon = newValue } }
    public var radiusM: Double { get { stay.radiusM } set { stay.radiusM = newValue } }
    public var points: Int { get { stay.points } set { stay.points = newValue } }
    /// The longest time without points inside the stay, in seconds.
    public var gapS: Int64 { get { stay.gapS } set { stay.gapS = newValue } }
    /// Its id in `stays` once stored; 0 before.
    public var id: Int64 { get { stay.id ?? 0 } set { stay.id = newValue == 0 ? nil : newValue } }

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

    /// The row to store the stay as, under its stable id (from the device's key and its start, so it survives
    /// rebuilds and does not depend on the order devices were imported in).
    func row(device: Int64, key: UInt64) -> StayRow {
        var row = stay
        row.id = StableID.make(.stay, deviceKey: key, startMs: startMs)
        row.deviceID = device
        return row
    }
}

/// One leg of a rebuilt trip as the trips pass works on it: its row of `legs` (``LegRow``, the one row type of that
/// table) with the range of its fixes in ``DeviceWork``. Its trip's id, its number, its device, its duration and its
/// count of fixes are set when its trip is made ready to store (``TripsPass/assemble``); until then they are 0.
public struct LegRecord: Sendable, Equatable {
    public var first: Int  // index of its first fix in DeviceWork
    public var last: Int
    /// The leg as it is stored.
    public var row: LegRow

    public init(mode: String, modeSource: String, first: Int, last: Int, startMs: Int64, endMs: Int64, distanceM: Double) {
        self.first = first
        self.last = last
        self.row = LegRow(tripID: 0, leg: 0, deviceID: 0, mode: mode, modeSource: modeSource, startMs: startMs, endMs: endMs, distanceM: distanceM,
                          durationS: 0, points: 0)
    }

    public var mode: String { get { row.mode } set { row.mode = newValue } }
    public var modeSource: String { get { row.modeSource } set { row.modeSource = newValue } }
    public var startMs: Int64 { get { row.startMs } set { row.startMs = newValue } }
    public var endMs: Int64 { get { row.endMs } set { row.endMs = newValue } }
    public var distanceM: Double { get { row.distanceM } set { row.distanceM = newValue } }
}

/// A rebuilt trip between two stays (or a data edge / a long gap) as the passes work on it: its row of `trips`
/// (``TripRow``, the one row type of that table) with what is no column: the range of its fixes in ``DeviceWork``,
/// the indices of its stays, its legs and the highest speed its fixes show. The row's other columns (device, stable
/// id, offsets, mode, visits and places, ends) are set when it is made ready to store (``TripsPass/assemble``).
public struct TripRecord: Sendable, Equatable {
    public var first: Int
    public var last: Int
    public var fromStay: Int?  // index into stays
    public var toStay: Int?
    public var legs: [LegRecord] = []
    /// The highest speed the fixes show (``TripsPass/maxSpeed(_:_:)``); nil with fewer than two fixes and no reported
    /// speed. The row's `maxSpeedMps` is at least the average (``TripsPass/maximum(_:)``).
    public var maxSpeed: Double?
    /// The trip as it is stored.
    public var row: TripRow

    public init(first: Int, last: Int, startMs: Int64, endMs: Int64, fromStay: Int?, toStay: Int?) {
        self.first = first
        self.last = last
        self.fromStay = fromStay
        self.toStay = toStay
        self.row = TripRow(
            deviceID: 0, startMs: startMs, endMs: endMs, startUTCOffset: nil, endUTCOffset: nil, durationS: 0, movingS: 0, distanceM: 0,
            avgSpeedMps: nil, maxSpeedMps: nil, mode: "unknown", legs: 0, fromVisitID: nil, toVisitID: nil, fromPlaceID: nil, toPlaceID: nil,
            startLat: nil, startLon: nil, endLat: nil, endLon: nil, points: 0, gaps: 0)
    }

    public var startMs: Int64 { get { row.startMs } set { row.startMs = newValue } }
    public var endMs: Int64 { get { row.endMs } set { row.endMs = newValue } }
    public var distanceM: Double { get { row.distanceM } set { row.distanceM = newValue } }
    public var movingS: Double { get { row.movingS } set { row.movingS = newValue } }
    public var gaps: Int { get { row.gaps } set { row.gaps = newValue } }
    /// Its id in `trips` once made ready to store; 0 before.
    public var id: Int64 { get { row.id ?? 0 } set { row.id = newValue == 0 ? nil : newValue } }
}
