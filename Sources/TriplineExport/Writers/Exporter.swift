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
    /// The kind has no location, so the format (GPX) cannot hold it.
    case noGeometry(kind: ExportKind, format: ExportFormat)
    case emptyDateRange(from: String, to: String)

    public var description: String {
        switch self {
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
/// points (`point_flags.flags != 0`), broken at gaps longer than ``ExportParameters/gapSeconds`` whose way the
/// rebuild did not measure (``LineJoins``).
/// Everything is ordered (trips by start, then id; points by device name, then time; days by date, then device name),
/// so the same database always gives the same bytes, and the same files imported in any order give the same bytes
/// (ids are mixed from device names, ``StableID``).
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
        privacy = privacyZones.isEmpty ? nil : try PrivacyClipper(store: store, zones: privacyZones)
        localTime = try LocalTime(store: store)
        deviceNames = try store.deviceNames()
    }

    /// Writes the selected records to `writer` (and flushes it).
    /// - Throws: ``ExportError`` for a filter or kind that cannot be exported, ``StoreError`` for an unknown device, ``DatabaseError``, ``FileError``.
    public func export(_ kind: ExportKind, as format: ExportFormat, filter: RecordFilter = RecordFilter(), to writer: ByteWriter) throws -> ExportResult {
        let selection = try select(filter)
        let start = writer.bytesWritten
        let records: Int
        switch format {
        case .geojson:
            let lines = try PointReader(store, positionOnly: true, zones: privacyZones)
            records = try GeoJSONExport(exporter: self, out: writer, selection: selection, lineReader: lines).write(kind)
        case .gpx:
            let lines = try PointReader(store, lineOnly: true, zones: privacyZones)
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
            deviceID = try store.deviceID(named: name)
        }
        if let from = filter.fromDay, let to = filter.toDay, from > to {
            throw ExportError.emptyDateRange(
                from: CivilTime.date(day: from),
                to: CivilTime.date(day: to))
        }
        let window = filter.utcWindowMs
        return Selection(deviceID: deviceID, fromDay: filter.fromDay, toDay: filter.toDay, windowStartMs: window.lo, windowEndMs: window.hi)
    }

    func deviceName(_ id: Int64) -> String { deviceNames[id] ?? "device \(id)" }

    // MARK: Rows (each table's one row type, or its listing: the row and what the read joined)

    /// Whether a record starting at `ms` (at its recorded `offset`, if any) starts on a local day the selection holds.
    func startsInRange(_ selection: Selection, ms: Int64, offset: UTCOffset?) -> Bool {
        guard selection.isBounded else { return true }
        return selection.includes(day: LocalTime.day(ms: ms, offset: localTime.offset(offset, atMs: ms)))
    }

    /// Trips of the selection whose local start day is in range, by start time then id.
    func forEachTrip(_ selection: Selection, _ body: (TripListing) throws -> Void) throws {
        try store.forEachTrip(device: selection.deviceID, startingFromMs: selection.windowStartMs, throughMs: selection.windowEndMs) { row in
            guard startsInRange(selection, ms: row.startMs, offset: row.startOffset), let shown = try shown(row) else { return }
            try body(shown)
        }
    }

    /// Legs of the selected trips, by trip (as ``forEachTrip(_:_:)``) then leg number.
    func forEachLeg(_ selection: Selection, _ body: (LegListing) throws -> Void) throws {
        try store.forEachLeg(device: selection.deviceID, tripsStartingFromMs: selection.windowStartMs, throughMs: selection.windowEndMs) { row in
            guard startsInRange(selection, ms: row.tripStartMs, offset: row.tripStartOffset), let shown = try shown(row) else { return }
            try body(shown)
        }
    }

    /// The offset to show a leg's time with: the trip's offset when both ends of the trip agree, else the
    /// fallback zone's, else the trip's own at the trip's start and end, else that of where the leg was at that instant (its first fix from its start on, its last
    /// fix up to its end: the fix's own offset at its own instant, else the zone's there, as the rebuild gives the
    /// trip's ends; a trip across a zone or a DST change), else the nearer end's.
    func legOffset(_ leg: LegListing, atMs ms: Int64, isStart: Bool) -> UTCOffset? {
        if leg.tripStartOffset == leg.tripEndOffset, let offset = leg.tripStartOffset { return offset }
        if localTime.zone != nil { return localTime.offset(nil, atMs: ms) }
        if ms == leg.tripStartMs, let offset = leg.tripStartOffset { return offset }
        if ms == leg.tripEndMs, let offset = leg.tripEndOffset { return offset }
        if let offset = try? legPositionOffset(leg, atMs: ms, isStart: isStart) { return offset }
        return isStart ? (leg.tripStartOffset ?? leg.tripEndOffset) : (leg.tripEndOffset ?? leg.tripStartOffset)
    }

    private var legFixes: FixFinder?
    /// Where trips' and legs' lines go on across a recording gap, made at the first line drawn.
    private var joins: LineJoins?

    /// The rule of where trips' and legs' lines go on across a recording gap (``LineJoins``).
    func lineJoins() throws -> LineJoins {
        if let joins { return joins }
        let made = try LineJoins(store: store, gapSeconds: parameters.gapSeconds)
        joins = made
        return made
    }
    /// The reader of Google's legs' lines (``appLine(tripID:source:leg:)``), made at the first app trip.
    var appLines: AppLineLoader?

    /// The offset of a leg's start (end) from its first (last) fix, nil when it has none.
    private func legPositionOffset(_ leg: LegListing, atMs ms: Int64, isStart: Bool) throws -> UTCOffset? {
        if legFixes == nil { legFixes = try FixFinder(store) }
        guard let finder = legFixes,
            let fix = try finder.fix(device: leg.deviceID, fromMs: max(0, leg.startMs), throughMs: max(0, leg.endMs), last: !isStart)
        else { return nil }
        let recorded = fix.timeMs == ms ? fix.utcOffset : nil
        return localTime.offset(recorded, atMs: ms, latitude: fix.lat, longitude: fix.lon)
    }

    /// Visits whose local start day is in range, by start time then id.
    func forEachVisit(_ selection: Selection, _ body: (VisitListing) throws -> Void) throws {
        try store.forEachVisit(device: selection.deviceID, startingFromMs: selection.windowStartMs, throughMs: selection.windowEndMs) { row in
            guard startsInRange(selection, ms: row.startMs, offset: row.startOffset), let shown = shown(row) else { return }
            try body(shown)
        }
    }

    /// Places, by id. With a date range: only places with a visit that starts on a day in range (their columns
    /// still describe all their visits).
    func forEachPlace(_ selection: Selection, _ body: (PlaceListing) throws -> Void) throws {
        var visited: Set<Int64>?
        if selection.isBounded {
            var ids = Set<Int64>()
            try forEachVisit(selection) { if let id = $0.placeID { ids.insert(id) } }
            visited = ids
        }
        try store.forEachPlace(device: selection.deviceID) { row in
            if let visited, !visited.contains(row.id) { return }
            guard let shown = shown(row) else { return }
            try body(shown)
        }
    }

    /// Daily totals, by date then device name.
    func forEachDay(_ selection: Selection, _ body: (DayRow) throws -> Void) throws {
        try store.forEachDay(
            device: selection.deviceID, fromDate: selection.fromDay.map { CivilTime.date(day: $0) },
            toDate: selection.toDay.map { CivilTime.date(day: $0) }, body)
    }

    /// Every point of the selection (flagged ones too) by device then time, with the offset it is shown at (its
    /// recorded one, else that of the zone where it was), for the formats that print local times. `name` writes a
    /// device's name as the format quotes it, once per device; `body` gets those bytes with each of its points.
    @inline(__always)
    func forEachLocalPoint(_ selection: Selection, name: (ByteWriter, String) throws -> Void,
                           _ body: (_ s: Statement, _ time: Int64, _ offset: UTCOffset, _ flags: Int64, _ name: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let reader = try PointReader(store, zones: privacyZones)
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

    /// Device ids with points, in the order of their names (``Store/idsByName(_:)``; restricted to the selection's
    /// device), so the order the devices were imported in does not show.
    func pointDevices(_ selection: Selection) throws -> [Int64] {
        if let id = selection.deviceID { return [id] }
        return Store.idsByName(deviceNames)
    }

    /// A reusable reader of one device's points in a time window, merged with their flags, that passes over the
    /// points inside the privacy zones (``PointRangeReader`` reads them; its ``PointRangeReader/Column`` indexes
    /// the statement handed to `body`).
    final class PointReader {
        let reader: PointRangeReader
        /// Points inside these are never handed over.
        let zones: PrivacyZones
        /// How many points inside a zone were passed over so far: a line breaks where this changed since its last
        /// point, as at a recording gap.
        private(set) var zoneSkips = 0

        /// - Parameter lineOnly: read only time, offset, position and altitude (what a line needs).
        ///   With `positionOnly`, offset and altitude are not read either (GeoJSON lines have neither).
        /// - Parameter zones: the privacy zones whose points are passed over (the exporter's; no default, so that no
        ///   reader forgets them).
        init(_ store: Store, lineOnly: Bool = false, positionOnly: Bool = false, zones: PrivacyZones) throws {
            self.zones = zones
            reader = try PointRangeReader(store, columns: positionOnly ? .position : lineOnly ? .line : .all)
        }

        /// Calls `body(statement, timeMs, flags)` for each point of `device` with `startMs <= time <= endMs`.
        @inline(__always)
        func read(device: Int64, startMs: Int64, endMs: Int64, _ body: (Statement, Int64, Int64) throws -> Void) throws {
            if zones.isEmpty { return try reader.read(device: device, startMs: startMs, endMs: endMs, body) }
            try reader.read(device: device, startMs: startMs, endMs: endMs) { points, time, flags in
                if zones.contains(lat: points.double(PointColumn.lat), lon: points.double(PointColumn.lon)) {
                    zoneSkips += 1
                    return
                }
                try body(points, time, flags)
            }
        }
    }

    /// Column indexes of ``PointReader``'s statement (a line-only reader has the first five).
    typealias PointColumn = PointRangeReader.Column
}

/// A format's writer of one record of each kind, called by ``Exporter/writeRecords(_:_:with:)``.
protocol RecordWriter {
    /// Before the record numbered `index` (from 0): a separator, where the format has one.
    func willWrite(record index: Int) throws
    func writeTrip(_ trip: TripListing) throws
    func writeLeg(_ leg: LegListing) throws
    func writeVisit(_ visit: VisitListing) throws
    func writePlace(_ place: PlaceListing) throws
    func writeDay(_ day: DayRow) throws
}

extension RecordWriter {
    func willWrite(record index: Int) throws {}
}

// MARK: The rows as the writers print them

/// Offsets as the writers take them (nil when the record has none).
extension TripListing {
    var startOffset: UTCOffset? { row.startUTCOffset }
    var endOffset: UTCOffset? { row.endUTCOffset }
}

extension LegListing {
    var tripStartOffset: UTCOffset? { tripStartUTCOffset }
    var tripEndOffset: UTCOffset? { tripEndUTCOffset }
}

extension VisitListing {
    var startOffset: UTCOffset? { row.startUTCOffset }
    var endOffset: UTCOffset? { row.endUTCOffset }
}

extension PlaceListing {
    var firstOffset: UTCOffset? { firstUTCOffset }
    var lastOffset: UTCOffset? { lastUTCOffset }
}
