import TriplineCore
import TriplineStore

/// Writes an export as CSV per RFC 4180: a header row, then one row per record, lines ended by CRLF, UTF-8
/// without a byte-order mark. Times are ISO 8601 with the local offset; `device` is the device's name.
/// The column contracts (names, order and meaning) are documented in `docs/EXPORTS.md`; columns may be added at
/// the end, never removed or reordered.
struct CSVExport: RecordWriter {
    /// One column of a kind's CSV: its header name and how a record gives its value. A kind's columns are one list,
    /// so the header row and the rows cannot disagree on the order.
    struct Column<Record>: Sendable {
        let name: StaticString
        let write: @Sendable (CSVExport, Record) throws -> Void

        init(_ name: StaticString, _ write: @escaping @Sendable (CSVExport, Record) throws -> Void) {
            self.name = name
            self.write = write
        }
    }

    /// The columns of each kind: the fixed contract first, then Tripline's extra columns.
    static let tripColumns: [Column<TripListing>] = [
        Column("trip_id") { try $0.integer($1.id) },
        Column("device") { try $0.text($0.exporter.deviceName($1.deviceID)) },
        Column("start_time") { try $0.time($1.startMs, $1.startOffset) },
        Column("end_time") { try $0.time($1.endMs, $1.endOffset) },
        Column("duration_s") { try $0.number($1.durationS) },
        Column("moving_s") { try $0.number($1.movingS) },
        Column("distance_m") { try $0.number($1.distanceM) },
        Column("avg_speed_mps") { try $0.number($1.avgSpeedMps) },
        Column("max_speed_mps") { try $0.number($1.maxSpeedMps) },
        Column("mode") { try $0.text($1.mode) },
        Column("legs") { try $0.integer($1.legs) },
        Column("from_place_id") { try $0.integer($1.fromPlaceID) },
        Column("to_place_id") { try $0.integer($1.toPlaceID) },
        Column("start_lat") { try $0.number($1.startLat, decimals: 7) },
        Column("start_lon") { try $0.number($1.startLon, decimals: 7) },
        Column("end_lat") { try $0.number($1.endLat, decimals: 7) },
        Column("end_lon") { try $0.number($1.endLon, decimals: 7) },
        Column("points") { try $0.integer($1.points) },
        Column("gaps") { try $0.integer($1.gaps) },
        Column("from_place") { try $0.text($1.fromPlace) },
        Column("to_place") { try $0.text($1.toPlace) },
        Column("line_distance_m") { try $0.number($1.lineDistanceM) },
        Column("distance_method") { try $0.text($1.distanceMethod) },
        Column("source") { try $0.text($1.source) },
        Column("line_method") { try $0.text(try $0.exporter.lineMethod(tripID: $1.id, source: $1.source)) },
    ]

    static let legColumns: [Column<LegListing>] = [
        Column("trip_id") { try $0.integer($1.tripID) },
        Column("leg") { try $0.integer($1.leg) },
        Column("mode") { try $0.text($1.mode) },
        Column("start_time") { try $0.time($1.startMs, $0.exporter.legOffset($1, atMs: $1.startMs, isStart: true), resolved: true) },
        Column("end_time") { try $0.time($1.endMs, $0.exporter.legOffset($1, atMs: $1.endMs, isStart: false), resolved: true) },
        Column("distance_m") { try $0.number($1.distanceM) },
        Column("duration_s") { try $0.number($1.durationS) },
        Column("device") { try $0.text($0.exporter.deviceName($1.deviceID)) },
        Column("mode_source") { try $0.text($1.modeSource) },
        Column("points") { try $0.integer($1.points) },
        Column("source") { try $0.text($1.source) },
        Column("line_method") { try $0.text(try $0.exporter.lineMethod(tripID: $1.tripID, source: $1.source, leg: $1.leg)) },
    ]

    static let visitColumns: [Column<VisitListing>] = [
        Column("visit_id") { try $0.integer($1.id) },
        Column("device") { try $0.text($0.exporter.deviceName($1.deviceID)) },
        Column("place_id") { try $0.integer($1.placeID) },
        Column("place_name") { try $0.text($1.placeName) },
        Column("start_time") { try $0.time($1.startMs, $1.startOffset) },
        Column("end_time") { try $0.time($1.endMs, $1.endOffset) },
        Column("duration_s") { try $0.number(Double($1.endMs - $1.startMs) / 1000) },
        Column("lat") { try $0.number($1.lat, decimals: 7) },
        Column("lon") { try $0.number($1.lon, decimals: 7) },
        Column("radius_m") { try $0.number($1.radiusM) },
        Column("points") { try $0.integer($1.points) },
        Column("country_code") { try $0.text($1.countryCode) },
        Column("country") { try $0.text($1.country) },
        Column("locality") { try $0.text($1.locality) },
        Column("source") { try $0.text($1.source) },
    ]

    static let placeColumns: [Column<PlaceListing>] = [
        Column("place_id") { try $0.integer($1.id) },
        Column("device") { try $0.text($0.exporter.deviceName($1.deviceID)) },
        Column("name") { try $0.text($1.name) },
        Column("lat") { try $0.number($1.lat, decimals: 7) },
        Column("lon") { try $0.number($1.lon, decimals: 7) },
        Column("radius_m") { try $0.number($1.radiusM) },
        Column("visits") { try $0.integer($1.visits) },
        Column("total_dwell_s") { try $0.integer($1.totalDwellS) },
        Column("first_visit") { try $0.time($1.firstVisitMs, $1.firstOffset) },
        Column("last_visit") { try $0.time($1.lastVisitMs, $1.lastOffset) },
        Column("ssid") { try $0.text($1.ssid) },
        Column("country_code") { try $0.text($1.countryCode) },
        Column("country") { try $0.text($1.country) },
        Column("locality") { try $0.text($1.locality) },
        Column("source") { try $0.text($1.source) },
    ]

    static let dayColumns: [Column<DayRow>] = [
        Column("date") { try $0.text($1.date) },
        Column("device") { try $0.text($0.exporter.deviceName($1.deviceID)) },
        Column("distance_m") { try $0.number($1.distanceM) },
        Column("moving_s") { try $0.number($1.movingS) },
        Column("trips") { try $0.integer($1.trips) },
        Column("visits") { try $0.integer($1.visits) },
        Column("places") { try $0.integer($1.places) },
        Column("line_distance_m") { try $0.number($1.lineDistanceM) },
    ]

    /// What a point's row is written from besides its statement row: its time and offset, its flags, its device's name.
    struct PointFix {
        var time: Int64
        var offset: UTCOffset
        var flags: Int64
        var name: UnsafeRawBufferPointer
    }

    /// The points' columns, in order: the one list for the header and the rows. `column` is given each column's
    /// name and the function that writes its value; the header takes the names (``headers``), a row calls the
    /// functions (``writePoint(_:_:)``). Points are millions: inlined, a row is the plain sequence of its fields' writes
    /// (a list of closures cost 6 % more instructions over a whole export, a loop with a `switch` per field 2 %).
    @inline(__always)
    static func pointColumns(_ column: (StaticString, (ByteWriter, Statement, PointFix) throws -> Void) throws -> Void) rethrows {
        try column("device") { out, _, p in try out.append(bytes: p.name) }
        try column("time") { out, _, p in try out.append(time: p.time, offset: p.offset) }
        try column("lat") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.lat), decimals: 7) }
        try column("lon") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.lon), decimals: 7) }
        try column("altitude_m") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.altitude), decimals: 3) }
        try column("speed_mps") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.speed), decimals: 3) }
        try column("course_deg") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.course), decimals: 3) }
        try column("accuracy_m") { out, row, _ in try out.append(csvNumber: row.double(Exporter.PointColumn.accuracy), decimals: 3) }
        try column("motion") { out, row, _ in try row.withTextBytes(Exporter.PointColumn.motion) { try out.append(csv: $0) } }
        try column("flags") { out, _, p in try out.append(int: p.flags) }
        try column("ssid") { out, row, _ in try row.withTextBytes(Exporter.PointColumn.ssid) { try out.append(csv: $0) } }
    }

    /// The points' header: the names of ``pointColumns(_:)``.
    static var pointHeader: String {
        var names: [String] = []
        pointColumns { name, _ in names.append("\(name)") }
        return names.joined(separator: ",")
    }

    let exporter: Exporter
    let out: ByteWriter
    let selection: Exporter.Selection

    /// The header row of each kind: its columns' names.
    static let headers: [ExportKind: String] = [
        .trips: names(tripColumns), .legs: names(legColumns), .visits: names(visitColumns),
        .places: names(placeColumns), .days: names(dayColumns), .points: pointHeader,
    ]

    static func names<Record>(_ columns: [Column<Record>]) -> String {
        columns.map { "\($0.name)" }.joined(separator: ",")
    }

    func write(_ kind: ExportKind) throws -> Int {
        try out.append(raw: CSVExport.headers[kind]!)
        try out.append("\r\n")
        return kind == .points ? try writePoints() : try exporter.writeRecords(kind, selection, with: self)
    }

    /// One row: each column's value, separated by `,`, ended by CRLF.
    @inline(__always)
    func row<Record>(_ columns: [Column<Record>], _ record: Record) throws {
        for index in columns.indices {
            if index > 0 { try out.append(UInt8(ascii: ",")) }
            try columns[index].write(self, record)
        }
        try out.append("\r\n")
    }

    // MARK: Records, one row each

    func writeTrip(_ t: TripListing) throws { try row(Self.tripColumns, t) }
    func writeLeg(_ l: LegListing) throws { try row(Self.legColumns, l) }
    func writeVisit(_ v: VisitListing) throws { try row(Self.visitColumns, v) }
    func writePlace(_ p: PlaceListing) throws { try row(Self.placeColumns, p) }
    func writeDay(_ d: DayRow) throws { try row(Self.dayColumns, d) }

    // MARK: Fields (``row(_:_:)`` writes the separators)

    func integer(_ value: Int64?) throws {
        if let value { try out.append(int: value) }
    }

    func integer(_ value: Int) throws { try out.append(int: Int64(value)) }

    func number(_ value: Double?, decimals: Int = 3) throws {
        try out.append(csvNumber: value, decimals: decimals)
    }

    func text(_ value: String?) throws {
        try out.append(csv: value)
    }

    /// A time at its recorded offset (or, with `resolved`, at exactly `offset`), falling back as ``LocalTime`` does.
    func time(_ ms: Int64?, _ offset: UTCOffset?, resolved: Bool = false) throws {
        if let ms {
            try out.append(time: ms, offset: resolved ? offset : exporter.localTime.offset(offset, atMs: ms))
        }
    }

    /// Every point of the selection (flagged ones too, with their `flags`), by device then time.
    func writePoints() throws -> Int {
        var count = 0
        let name: (ByteWriter, String) throws -> Void = { try $0.append(csv: $1) }
        try exporter.forEachLocalPoint(selection, name: name) { s, time, offset, flags, name in
            count += 1
            try writePoint(s, PointFix(time: time, offset: offset, flags: flags, name: name))
        }
        return count
    }

    /// One point's row: each of ``pointColumns(_:)``, separated by `,`, ended by CRLF.
    @inline(__always)
    func writePoint(_ row: Statement, _ fix: PointFix) throws {
        var first = true
        let out = self.out
        try Self.pointColumns { _, write in
            if !first { try out.append(UInt8(ascii: ",")) }
            first = false
            try write(out, row, fix)
        }
        try out.append("\r\n")
    }
}
