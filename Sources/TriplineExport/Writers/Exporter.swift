import TriplineCore
import TriplineStore

/// What an export holds: one kind of record per file.
public enum ExportKind: String, CaseIterable, Sendable {
    case trips, legs, visits, places, points, days
}

/// The file format of an export.
public enum ExportFormat: String, CaseIterable, Sendable {
    case geojson, gpx, csv

    /// The usual file name extension.
    public var fileExtension: String { rawValue }
}

/// The export's parameters, with their defaults.
public struct ExportParameters: Sendable, Equatable {
    /// Two consecutive points (flagged points left out) further apart than this are a recording gap: the line
    /// breaks there (a new GeoJSON LineString of a MultiLineString, a new GPX `trkseg`). Default 300 s.
    public var gapSeconds: Int64 = 300

    public init(gapSeconds: Int64 = 300) { self.gapSeconds = gapSeconds }
}

/// What an export wrote.
public struct ExportResult: Sendable, Equatable {
    public var kind: ExportKind
    public var format: ExportFormat
    /// Records written (features, `trk`/`wpt` elements or CSV rows, not counting the header).
    public var records: Int
    /// Bytes written.
    public var bytes: Int
}

/// Why an export cannot run.
public enum ExportError: Error, CustomStringConvertible, Sendable, Equatable {
    case unknownDevice(name: String, known: [String])
    /// The kind has no location, so the format (GPX) cannot hold it.
    case noGeometry(kind: ExportKind, format: ExportFormat)
    case emptyDateRange(from: String, to: String)

    public var description: String {
        switch self {
        case .unknownDevice(let name, let known):
            let list = known.isEmpty ? "the database has no devices yet" : "known devices: " + known.joined(separator: ", ")
            return "no device named '\(name)' (\(list))"
        case .noGeometry(let kind, let format):
            return "\(kind.rawValue) have no location, so they cannot be written as \(format.rawValue); use --format csv or geojson"
        case .emptyDateRange(let from, let to):
            return "--from \(from) is after --to \(to)"
        }
    }
}

/// Exports trips, legs, visits, places, points or days as GeoJSON, GPX or CSV, streaming.
///
/// Memory stays bounded whatever the database holds: rows are read one at a time from SQLite and formatted straight
/// into a ``ByteWriter``; the only per-record buffer is one trip's (or leg's) geometry text for GeoJSON, which must
/// know whether the line has a gap before it writes the geometry's type.
///
/// Line geometry (trips, legs) comes from `points` of the trip's device between its start and end, without flagged
/// points (`point_flags.flags != 0`), broken at gaps longer than ``ExportParameters/gapSeconds``.
/// Everything is ordered (trips by start, then id; points by device id, then time), so the same database always
/// gives the same bytes.
public final class Exporter {
    public let store: Store
    public let parameters: ExportParameters
    var localTime: LocalTime
    /// Device names by id.
    let deviceNames: [Int64: String]
    /// What no output may show (docs/EXPORTS.md, "Privacy zones"); empty by default.
    public let privacyZones: PrivacyZones
    /// Applies ``privacyZones`` to the rows read; nil without zones.
    let privacy: PrivacyClipper?

    public init(store: Store, parameters: ExportParameters = ExportParameters(), privacyZones: PrivacyZones = PrivacyZones()) throws {
        self.store = store
        self.parameters = parameters
        self.privacyZones = privacyZones
        privacy = privacyZones.isEmpty ? nil : try PrivacyClipper(db: store.db, zones: privacyZones, gapSeconds: parameters.gapSeconds)
        localTime = try LocalTime(store: store)
        var names: [Int64: String] = [:]
        let statement = try store.db.prepare("SELECT id, name FROM devices")
        while try statement.step() { names[statement.int64(0)] = statement.text(1) ?? "" }
        deviceNames = names
    }

    /// Writes the selected records to `writer` (and flushes it).
    /// - Throws: ``ExportError`` for a filter or kind that cannot be exported, ``DatabaseError``, ``FileError``.
    public func export(_ kind: ExportKind, as format: ExportFormat, filter: RecordFilter = RecordFilter(), to writer: ByteWriter) throws -> ExportResult {
        let selection = try select(filter)
        let start = writer.bytesWritten
        let records: Int
        switch format {
        case .geojson:
            let lines = try PointReader(store.db, positionOnly: true, zones: privacyZones)
            records = try GeoJSONExport(exporter: self, out: writer, selection: selection, lineReader: lines).write(kind)
        case .gpx:
            let lines = try PointReader(store.db, lineOnly: true, zones: privacyZones)
            records = try GPXExport(exporter: self, out: writer, selection: selection, lineReader: lines).write(kind)
        case .csv: records = try CSVExport(exporter: self, out: writer, selection: selection).write(kind)
        }
        try writer.flush()
        return ExportResult(kind: kind, format: format, records: records, bytes: writer.bytesWritten - start)
    }

    /// Writes the selected records to the file at `path` atomically (a temporary file renamed into place), or to
    /// `stdout` when `path` is nil or `-`.
    public func export(_ kind: ExportKind, as format: ExportFormat, filter: RecordFilter = RecordFilter(), toFile path: String?, stdout: OutputStream) throws -> ExportResult {
        _ = try select(filter)  // fail on a bad filter before creating anything
        let destination = try ExportDestination(path: path, stdout: stdout)
        do {
            let result = try export(kind, as: format, filter: filter, to: destination.writer)
            try destination.commit()
            return result
        } catch {
            destination.discard()
            throw error
        }
    }

    // MARK: Selection

    /// A resolved ``RecordFilter``: the device id and the local-day bounds, plus the filter's UTC window
    /// (``RecordFilter/utcWindowMs``) that SQLite narrows by before the exact local-day test in Swift.
    struct Selection {
        var deviceID: Int64?
        var fromDay: Int?
        var toDay: Int?
        var windowStartMs: Int64
        var windowEndMs: Int64

        @inline(__always)
        func includes(day: Int) -> Bool {
            if let fromDay, day < fromDay { return false }
            if let toDay, day > toDay { return false }
            return true
        }

        var isBounded: Bool { fromDay != nil || toDay != nil }
    }

    func select(_ filter: RecordFilter) throws -> Selection {
        var deviceID: Int64?
        if let name = filter.device {
            guard let id = deviceNames.first(where: { $0.value == name })?.key else {
                throw ExportError.unknownDevice(name: name, known: deviceNames.values.sorted())
            }
            deviceID = id
        }
        if let from = filter.fromDay, let to = filter.toDay, from > to {
            throw ExportError.emptyDateRange(
                from: CivilTime.localDate(ms: Int64(from) * 86_400_000, offsetSeconds: 0),
                to: CivilTime.localDate(ms: Int64(to) * 86_400_000, offsetSeconds: 0))
        }
        let window = filter.utcWindowMs
        return Selection(deviceID: deviceID, fromDay: filter.fromDay, toDay: filter.toDay, windowStartMs: window.lo, windowEndMs: window.hi)
    }

    func deviceName(_ id: Int64) -> String { deviceNames[id] ?? "device \(id)" }

    // MARK: Rows

    struct TripRow {
        var id: Int64, deviceID: Int64, startMs: Int64, endMs: Int64
        var startOffset: Int32?, endOffset: Int32?
        var durationS: Double, movingS: Double, distanceM: Double
        var avgSpeedMps: Double?, maxSpeedMps: Double?
        var mode: String, legs: Int64
        var fromPlaceID: Int64?, toPlaceID: Int64?
        var startLat: Double?, startLon: Double?, endLat: Double?, endLon: Double?
        var points: Int64, gaps: Int64
        var fromPlace: String?, toPlace: String?
        /// The straight lines between the kept fixes, and how `distanceM` was estimated (`paths` pass; NULL before it ran).
        var lineDistanceM: Double? = nil, distanceMethod: String? = nil
        /// `points` (rebuilt from fixes) or `app` (an app's own timeline: Google's; migration 9).
        var source: String = "points"
    }

    /// Binds the selection's device (`?1`, NULL for all) and UTC window (`?2`, `?3`) to a row query.
    func bindWindow(_ statement: Statement, _ selection: Selection) {
        statement.bindInt(selection.deviceID, at: 1)
        statement.bindInt(selection.windowStartMs, at: 2)
        statement.bindInt(selection.windowEndMs, at: 3)
    }

    /// Runs a row query of the selection (bound by ``bindWindow(_:_:)``), calling `body` on each row.
    func forEachRow(_ sql: String, _ selection: Selection, _ body: (Statement) throws -> Void) throws {
        let statement = try store.db.prepare(sql)
        bindWindow(statement, selection)
        while try statement.step() { try body(statement) }
    }

    /// Whether a record starting at `ms` (at its recorded `offset`, if any) starts on a local day the selection holds.
    func startsInRange(_ selection: Selection, ms: Int64, offset: Int32?) -> Bool {
        guard selection.isBounded else { return true }
        return selection.includes(day: LocalTime.day(ms: ms, offset: localTime.offset(offset, atMs: ms)))
    }

    /// Trips of the selection whose local start day is in range, by start time then id.
    func forEachTrip(_ selection: Selection, _ body: (TripRow) throws -> Void) throws {
        try forEachRow(
            """
            SELECT t.id, t.device_id, t.start_ms, t.end_ms, t.start_utc_offset_s, t.end_utc_offset_s, t.duration_s,
                   t.moving_s, t.distance_m, t.avg_speed_mps, t.max_speed_mps, t.mode, t.legs, t.from_place_id,
                   t.to_place_id, t.start_lat, t.start_lon, t.end_lat, t.end_lon, t.points, t.gaps, fp.name, tp.name,
                   t.line_distance_m, t.distance_method, t.source
            FROM trips t
            LEFT JOIN places fp ON fp.id = t.from_place_id
            LEFT JOIN places tp ON tp.id = t.to_place_id
            WHERE (?1 IS NULL OR t.device_id = ?1) AND t.start_ms BETWEEN ?2 AND ?3
            ORDER BY t.start_ms, t.id
            """, selection) { s in
            let row = TripRow(
                id: s.int64(0), deviceID: s.int64(1), startMs: s.int64(2), endMs: s.int64(3),
                startOffset: s.utcOffset(4), endOffset: s.utcOffset(5),
                durationS: s.double(6), movingS: s.double(7), distanceM: s.double(8),
                avgSpeedMps: s.optionalDouble(9), maxSpeedMps: s.optionalDouble(10),
                mode: s.text(11) ?? "", legs: s.int64(12), fromPlaceID: s.optionalInt64(13), toPlaceID: s.optionalInt64(14),
                startLat: s.optionalDouble(15), startLon: s.optionalDouble(16), endLat: s.optionalDouble(17),
                endLon: s.optionalDouble(18), points: s.int64(19), gaps: s.int64(20), fromPlace: s.text(21), toPlace: s.text(22),
                lineDistanceM: s.optionalDouble(23), distanceMethod: s.text(24), source: s.text(25) ?? "points")
            guard startsInRange(selection, ms: row.startMs, offset: row.startOffset), let shown = try shown(row) else { return }
            try body(shown)
        }
    }

    struct LegRow {
        var tripID: Int64, leg: Int64, deviceID: Int64
        var mode: String, modeSource: String
        var startMs: Int64, endMs: Int64
        var distanceM: Double, durationS: Double, points: Int64
        /// The trip's offsets (legs have none of their own), and its start and end.
        var tripStartOffset: Int32?, tripEndOffset: Int32?
        var tripStartMs: Int64 = .min, tripEndMs: Int64 = .max
        var source: String = "points"
    }

    /// Legs of the selected trips, by trip (as ``forEachTrip(_:_:)``) then leg number.
    func forEachLeg(_ selection: Selection, _ body: (LegRow) throws -> Void) throws {
        try forEachRow(
            """
            SELECT l.trip_id, l.leg, l.device_id, l.mode, l.mode_source, l.start_ms, l.end_ms, l.distance_m,
                   l.duration_s, l.points, t.start_utc_offset_s, t.end_utc_offset_s, t.start_ms, t.end_ms, l.source
            FROM legs l JOIN trips t ON t.id = l.trip_id
            WHERE (?1 IS NULL OR t.device_id = ?1) AND t.start_ms BETWEEN ?2 AND ?3
            ORDER BY t.start_ms, t.id, l.leg
            """, selection) { s in
            let row = LegRow(
                tripID: s.int64(0), leg: s.int64(1), deviceID: s.int64(2), mode: s.text(3) ?? "", modeSource: s.text(4) ?? "",
                startMs: s.int64(5), endMs: s.int64(6), distanceM: s.double(7), durationS: s.double(8), points: s.int64(9),
                tripStartOffset: s.utcOffset(10), tripEndOffset: s.utcOffset(11), tripStartMs: s.int64(12), tripEndMs: s.int64(13), source: s.text(14) ?? "points")
            guard startsInRange(selection, ms: s.int64(12), offset: row.tripStartOffset), let shown = try shown(row) else { return }
            try body(shown)
        }
    }

    /// The offset to show a leg's time with: the trip's offset when both ends of the trip agree, else the
    /// fallback zone's, else the trip's own at the trip's start and end, else that of where the leg was at that instant (its first fix from its start on, its last
    /// fix up to its end: the fix's own offset at its own instant, else the zone's there, as the rebuild gives the
    /// trip's ends; a trip across a zone or a DST change), else the nearer end's.
    func legOffset(_ leg: LegRow, atMs ms: Int64, isStart: Bool) -> Int32? {
        if leg.tripStartOffset == leg.tripEndOffset, let offset = leg.tripStartOffset { return offset }
        if localTime.zone != nil { return localTime.offset(nil, atMs: ms) }
        if ms == leg.tripStartMs, let offset = leg.tripStartOffset { return offset }
        if ms == leg.tripEndMs, let offset = leg.tripEndOffset { return offset }
        if let offset = try? legPositionOffset(leg, atMs: ms, isStart: isStart) { return offset }
        return isStart ? (leg.tripStartOffset ?? leg.tripEndOffset) : (leg.tripEndOffset ?? leg.tripStartOffset)
    }

    private var legFixQueries: (first: Statement, last: Statement)?

    /// The offset of a leg's start (end) from its first (last) fix, nil when it has none.
    private func legPositionOffset(_ leg: LegRow, atMs ms: Int64, isStart: Bool) throws -> Int32? {
        if legFixQueries == nil {
            let sql = "SELECT \(PointKey.timeSQL), utc_offset_s, lat, lon FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key"
            legFixQueries = (try store.db.prepare(sql + " LIMIT 1"), try store.db.prepare(sql + " DESC LIMIT 1"))
        }
        guard let queries = legFixQueries else { return nil }
        let q = isStart ? queries.first : queries.last
        let keys = PointKey.range(device: leg.deviceID, fromMs: max(0, leg.startMs), throughMs: max(0, leg.endMs))
        q.reset()
        try q.bind([.integer(keys.lower), .integer(keys.upper)])
        guard try q.step() else { return nil }
        let recorded = q.int64(0) == ms && !q.isNull(1) ? Int32(q.int64(1)) : nil
        return localTime.offset(recorded, atMs: ms, latitude: q.double(2), longitude: q.double(3))
    }

    struct VisitRow {
        var id: Int64, deviceID: Int64, placeID: Int64?, placeName: String?
        var startMs: Int64, endMs: Int64, startOffset: Int32?, endOffset: Int32?
        var lat: Double, lon: Double, radiusM: Double, points: Int64
        /// Where the visit's centre is (NULL before migration 3's first rebuild, and at sea).
        var countryCode: String? = nil, country: String? = nil, locality: String? = nil
        var source: String = "points"
    }

    /// Visits whose local start day is in range, by start time then id.
    func forEachVisit(_ selection: Selection, _ body: (VisitRow) throws -> Void) throws {
        try forEachRow(
            """
            SELECT v.id, v.device_id, v.place_id, p.name, v.start_ms, v.end_ms, v.start_utc_offset_s,
                   v.end_utc_offset_s, v.lat, v.lon, v.radius_m, v.points, v.country_code, v.country, v.locality, v.source
            FROM visits v LEFT JOIN places p ON p.id = v.place_id
            WHERE (?1 IS NULL OR v.device_id = ?1) AND v.start_ms BETWEEN ?2 AND ?3
            ORDER BY v.start_ms, v.id
            """, selection) { s in
            let row = VisitRow(
                id: s.int64(0), deviceID: s.int64(1), placeID: s.optionalInt64(2), placeName: s.text(3),
                startMs: s.int64(4), endMs: s.int64(5),
                startOffset: s.utcOffset(6), endOffset: s.utcOffset(7),
                lat: s.double(8), lon: s.double(9), radiusM: s.double(10), points: s.int64(11),
                countryCode: s.text(12), country: s.text(13), locality: s.text(14), source: s.text(15) ?? "points")
            guard startsInRange(selection, ms: row.startMs, offset: row.startOffset), let shown = shown(row) else { return }
            try body(shown)
        }
    }

    struct PlaceRow {
        var id: Int64, deviceID: Int64, name: String, ssid: String?
        var lat: Double, lon: Double, radiusM: Double, visits: Int64, totalDwellS: Int64
        var firstVisitMs: Int64?, lastVisitMs: Int64?, firstOffset: Int32?, lastOffset: Int32?
        var countryCode: String? = nil, country: String? = nil, locality: String? = nil
        var source: String = "points"
    }

    /// Places, by id. With a date range: only places with a visit that starts on a day in range (their columns
    /// still describe all their visits).
    func forEachPlace(_ selection: Selection, _ body: (PlaceRow) throws -> Void) throws {
        var visited: Set<Int64>?
        if selection.isBounded {
            var ids = Set<Int64>()
            try forEachVisit(selection) { if let id = $0.placeID { ids.insert(id) } }
            visited = ids
        }
        let statement = try store.db.prepare(
            """
            SELECT p.id, p.device_id, p.name, p.ssid, p.lat, p.lon, p.radius_m, p.visits, p.total_dwell_s,
                   p.first_visit_ms, p.last_visit_ms,
                   (SELECT v.start_utc_offset_s FROM visits v WHERE v.place_id = p.id AND v.start_ms = p.first_visit_ms LIMIT 1),
                   (SELECT coalesce(v.end_utc_offset_s, v.start_utc_offset_s) FROM visits v
                     WHERE v.place_id = p.id AND (v.end_ms = p.last_visit_ms OR v.start_ms = p.last_visit_ms) LIMIT 1),
                   p.country_code, p.country, p.locality, p.source
            FROM places p
            WHERE (?1 IS NULL OR p.device_id = ?1)
            ORDER BY p.first_visit_ms, p.id
            """)
        statement.bindInt(selection.deviceID, at: 1)
        while try statement.step() {
            let s = statement
            let id = s.int64(0)
            if let visited, !visited.contains(id) { continue }
            let row = PlaceRow(
                id: id, deviceID: s.int64(1), name: s.text(2) ?? "", ssid: s.text(3), lat: s.double(4), lon: s.double(5),
                radiusM: s.double(6), visits: s.int64(7), totalDwellS: s.int64(8), firstVisitMs: s.optionalInt64(9),
                lastVisitMs: s.optionalInt64(10), firstOffset: s.utcOffset(11),
                lastOffset: s.utcOffset(12),
                countryCode: s.text(13), country: s.text(14), locality: s.text(15), source: s.text(16) ?? "points")
            guard let shown = shown(row) else { continue }
            try body(shown)
        }
    }

    struct DayRow {
        var deviceID: Int64, date: String, distanceM: Double, movingS: Double
        var trips: Int64, visits: Int64, places: Int64
        /// The days' straight-line distance (NULL in databases rebuilt before the `paths` pass existed).
        var lineDistanceM: Double? = nil
    }

    /// Daily totals, by date then device id.
    func forEachDay(_ selection: Selection, _ body: (DayRow) throws -> Void) throws {
        let statement = try store.db.prepare(
            """
            SELECT device_id, date, distance_m, moving_s, trips, visits, places, line_distance_m FROM days
            WHERE (?1 IS NULL OR device_id = ?1) AND (?2 IS NULL OR date >= ?2) AND (?3 IS NULL OR date <= ?3)
            ORDER BY date, device_id
            """)
        statement.bindInt(selection.deviceID, at: 1)
        statement.bindText(selection.fromDay.map { CivilTime.localDate(ms: Int64($0) * 86_400_000, offsetSeconds: 0) }, at: 2)
        statement.bindText(selection.toDay.map { CivilTime.localDate(ms: Int64($0) * 86_400_000, offsetSeconds: 0) }, at: 3)
        while try statement.step() {
            let s = statement
            try body(
                DayRow(
                    deviceID: s.int64(0), date: s.text(1) ?? "", distanceM: s.double(2), movingS: s.double(3),
                    trips: s.int64(4), visits: s.int64(5), places: s.int64(6), lineDistanceM: s.optionalDouble(7)))
        }
    }

    /// Every point of the selection (flagged ones too) by device then time, with the offset it is shown at (its
    /// recorded one, else that of the zone where it was), for the formats that print local times. `name` writes a
    /// device's name as the format quotes it, once per device; `body` gets those bytes with each of its points.
    @inline(__always)
    func forEachLocalPoint(_ selection: Selection, name: (ByteWriter, String) throws -> Void,
                           _ body: (_ s: Statement, _ time: Int64, _ offset: Int32, _ flags: Int64, _ name: UnsafeRawBufferPointer) throws -> Void) throws {
        let reader = try PointReader(store.db, zones: privacyZones)
        // A local copy: mutating it in the loop needs no run-time exclusivity check.
        var local = localTime
        let scratch = ByteWriter.memory()
        for id in try pointDevices(selection) {
            scratch.clear()
            try name(scratch, deviceName(id))
            // The name's bytes are handed over in place (no array to retain and release at each point).
            try scratch.withBytes { encoded in
                try reader.read(device: id, startMs: selection.windowStartMs, endMs: selection.windowEndMs) { s, time, flags in
                    let recorded = PointColumn.recordedOffset(s)
                    let offset = recorded ?? local.offset(nil, atMs: time, latitude: s.double(PointColumn.lat), longitude: s.double(PointColumn.lon))
                    if selection.isBounded, !selection.includes(day: LocalTime.day(ms: time, offset: offset)) { return }
                    try body(s, time, offset, flags, encoded)
                }
            }
        }
    }

    /// Writes every record of `kind` (any kind but points, which each format streams itself) in the selection with
    /// `writer`, in export order; returns how many.
    func writeRecords<W: RecordWriter>(_ kind: ExportKind, _ selection: Selection, with writer: W) throws -> Int {
        var count = 0
        func next() throws {
            try writer.willWrite(record: count)
            count += 1
        }
        switch kind {
        case .trips: try forEachTrip(selection) { try next(); try writer.writeTrip($0) }
        case .legs: try forEachLeg(selection) { try next(); try writer.writeLeg($0) }
        case .visits: try forEachVisit(selection) { try next(); try writer.writeVisit($0) }
        case .places: try forEachPlace(selection) { try next(); try writer.writePlace($0) }
        case .days: try forEachDay(selection) { try next(); try writer.writeDay($0) }
        case .points: preconditionFailure("points are streamed by each format's writePoints")
        }
        return count
    }

    /// Device ids with points, in id order (restricted to the selection's device).
    func pointDevices(_ selection: Selection) throws -> [Int64] {
        if let id = selection.deviceID { return [id] }
        return deviceNames.keys.sorted()
    }

    /// A reusable reader of one device's points in a time window, merged with their flags.
    ///
    /// Reads `points` and the non-zero rows of `point_flags` as two ordered range scans of their primary keys and
    /// merges them, which is much faster than a per-row join. Columns of `points` (see ``PointColumn``) are read from
    /// the statement handed to `body`.
    final class PointReader {
        let points: Statement
        let flags: Statement
        /// Points inside these are never handed over.
        let zones: PrivacyZones
        /// How many points inside a zone were passed over so far: a line breaks where this changed since its last
        /// point, as at a recording gap.
        private(set) var zoneSkips = 0

        /// - Parameter lineOnly: read only time, offset, position and altitude (what a line needs): SQLite decodes
        ///   every selected column of every row, so the lines of trips and legs read faster this way.
        ///
        /// NULLs come back as values no real reading has, so each column is read with one call instead of two
        /// (type, then value): a NULL offset as `Int32.min`, a NULL number as +infinity (which every writer already
        /// writes as unknown, like any non-finite number). Text columns tell NULL by a nil pointer.
        ///   With `positionOnly`, offset and altitude are not read either (GeoJSON lines have neither).
        /// - Parameter zones: the privacy zones whose points are passed over (the exporter's; no default, so that no
        ///   reader forgets them).
        init(_ db: Database, lineOnly: Bool = false, positionOnly: Bool = false, zones: PrivacyZones) throws {
            self.zones = zones
            let columns = positionOnly
                ? "\(PointKey.timeSQL), NULL, lat, lon, NULL"
                : lineOnly
                ? "\(PointKey.timeSQL), ifnull(utc_offset_s, -2147483648), lat, lon, ifnull(altitude_m, 1e999)"
                : """
                \(PointKey.timeSQL), ifnull(utc_offset_s, -2147483648), lat, lon, ifnull(altitude_m, 1e999), ifnull(speed_mps, 1e999),
                ifnull(course_deg, 1e999), ifnull(accuracy_m, 1e999), motion, ssid
                """
            points = try db.prepare(
                "SELECT \(columns) FROM points_hot WHERE key BETWEEN ?4 AND ?5 ORDER BY key")
            flags = try db.prepare(
                "SELECT time_ms, flags FROM point_flags WHERE device_id = ?1 AND time_ms BETWEEN ?2 AND ?3 AND flags != 0 ORDER BY time_ms")
        }

        /// Calls `body(statement, timeMs, flags)` for each point of `device` with `startMs <= time <= endMs`.
        @inline(__always)
        func read(device: Int64, startMs: Int64, endMs: Int64, _ body: (Statement, Int64, Int64) throws -> Void) throws {
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
                if !zones.isEmpty, zones.contains(lat: points.double(PointColumn.lat), lon: points.double(PointColumn.lon)) {
                    zoneSkips += 1
                    continue
                }
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

    /// Column indexes of ``PointReader``'s statement (a line-only reader has the first five).
    enum PointColumn {
        /// The recorded UTC offset of the current row, or nil.
        @inline(__always)
        static func recordedOffset(_ s: Statement) -> Int32? {
            let value = s.int64(offset)
            return value == -2_147_483_648 ? nil : Int32(truncatingIfNeeded: value)
        }

        static let time: Int32 = 0, offset: Int32 = 1, lat: Int32 = 2, lon: Int32 = 3, altitude: Int32 = 4
        static let speed: Int32 = 5, course: Int32 = 6, accuracy: Int32 = 7, motion: Int32 = 8, ssid: Int32 = 9
    }
}

extension Statement {
    /// A UTC offset column (seconds; NULL when the record has none).
    @inline(__always)
    fileprivate func utcOffset(_ index: Int32) -> Int32? {
        optionalInt64(index).map { Int32(truncatingIfNeeded: $0) }
    }
}

/// A format's writer of one record of each kind, called by ``Exporter/writeRecords(_:_:with:)``.
protocol RecordWriter {
    /// Before the record numbered `index` (from 0): a separator, where the format has one.
    func willWrite(record index: Int) throws
    func writeTrip(_ trip: Exporter.TripRow) throws
    func writeLeg(_ leg: Exporter.LegRow) throws
    func writeVisit(_ visit: Exporter.VisitRow) throws
    func writePlace(_ place: Exporter.PlaceRow) throws
    func writeDay(_ day: Exporter.DayRow) throws
}

extension RecordWriter {
    func willWrite(record index: Int) throws {}
}
