import TriplineCore
import TriplineStore

/// Writes an export as GPX 1.1, valid against the official schema (`gpx-1.1.xsd`).
///
/// - trips: one `trk` per trip, named and typed by its mode, a new `trkseg` at each recording gap;
/// - legs: one `trk` per leg, the same way;
/// - points: one `trk` per device with every point (flagged ones too), a new `trkseg` at each gap;
/// - visits and places: one `wpt` each, with name, time and description.
/// `trkpt` has `ele` (when known) and `time` in UTC. Everything GPX has no element for is inside `extensions`, in
/// Tripline's namespace ``GPXExport/namespace``. Days have no location: exporting them as GPX is an error.
struct GPXExport: RecordWriter {
    /// The XML namespace of Tripline's GPX extensions.
    static let namespace: StaticString = "urn:tripline:gpx-extensions:1"

    let exporter: Exporter
    let out: ByteWriter
    let selection: Exporter.Selection
    /// The points of trips' and legs' tracks.
    let lineReader: Exporter.PointReader

    func write(_ kind: ExportKind) throws -> Int {
        if kind == .days { throw ExportError.noGeometry(kind: .days, format: .gpx) }
        try out.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Tripline" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:tripline="
            """)
        try out.append(GPXExport.namespace)
        try out.append(
            """
            " xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
            <metadata><name>Tripline 
            """)
        try out.append(raw: kind.rawValue)
        try out.append("</name></metadata>\n")
        // Days have no location (refused above).
        let count = kind == .points ? try writePoints() : try exporter.writeRecords(kind, selection, with: self)
        try out.append("</gpx>\n")
        return count
    }

    // MARK: Pieces

    /// `lat="…" lon="…"`; longitude 180 is written as -180 (the schema's range is [-180, 180)).
    @inline(__always)
    func coordinates(lat: Double, lon: Double) throws {
        try out.append(" lat=\"")
        try out.append(fixed: lat, decimals: 7)
        try out.append("\" lon=\"")
        try out.append(fixed: lon >= 180 ? lon - 360 : lon, decimals: 7)
        try out.append("\"")
    }

    /// `<` or `</` (`open`), optionally with the `tripline:` namespace, then `name` and `>`.
    @inline(__always)
    func tag(_ open: StaticString, _ name: StaticString) throws {
        try out.append(open)
        try out.append(name)
        try out.append(">")
    }

    func element(_ name: StaticString, _ text: String?) throws {
        guard let text else { return }
        try tag("<", name)
        try out.append(escaped: text, .xmlText)
        try tag("</", name)
    }

    func utcTime(_ ms: Int64) throws {
        try out.append("<time>")
        try out.append(time: ms, offset: nil)
        try out.append("</time>")
    }

    /// `<tripline:name>value</tripline:name>` for each non-nil value, inside one `extensions` element.
    func extensions(_ values: [(StaticString, String?)]) throws {
        try out.append("<extensions>")
        for (name, value) in values {
            guard let value else { continue }
            try tag("<tripline:", name)
            try out.append(escaped: value, .xmlText)
            try tag("</tripline:", name)
        }
        try out.append("</extensions>")
    }

    /// Text for a number in a description or extension.
    func number(_ value: Double?, decimals: Int = 3) -> String? {
        guard let value, value.isFinite else { return nil }
        let w = TextBuffer(capacity: 32)
        w.append(fixed: value, decimals: decimals)
        return w.text
    }

    func localTime(_ ms: Int64, _ recorded: UTCOffset?) -> String {
        let w = TextBuffer(capacity: 40)
        w.append(time: ms, offset: exporter.localTime.offset(recorded, atMs: ms))
        return w.text
    }

    /// `trkseg`s of the unflagged points of `device` in `[startMs, endMs]`, a new one after each gap whose way the
    /// rebuild did not measure (``LineJoins``).
    ///
    /// `appLine`: the line of a trip or leg taken from Google's timeline instead (``Exporter/appLine(tripID:source:leg:)``),
    /// a `trkseg` per run; a `trkpt` has a `time` only where Google gives one (a leg's start and end), none is invented.
    func segments(device: Int64, startMs: Int64, endMs: Int64, appLine: [[LineVertex]]? = nil) throws {
        if let appLine {
            for run in appLine {
                try out.append("<trkseg>\n")
                for v in run {
                    try out.append("<trkpt")
                    try coordinates(lat: v.lat, lon: v.lon)
                    try out.append(">")
                    if let ms = v.timeMs {
                        try out.append("<time>")
                        try out.append(time: ms, offset: nil)
                        try out.append("</time>")
                    }
                    try out.append("</trkpt>\n")
                }
                try out.append("</trkseg>\n")
            }
            return
        }
        let joins = try exporter.lineJoins()
        var track = Segments(out: out, gapMs: joins.gapMs)
        var lastLat = 0.0, lastLon = 0.0
        try lineReader.read(device: device, startMs: startMs, endMs: endMs) { s, time, flags in
            guard flags == 0 else { return }
            let lat = s.double(Exporter.PointColumn.lat), lon = s.double(Exporter.PointColumn.lon)
            try track.point(at: time, zoneSkips: lineReader.zoneSkips) { from in
                try joins.breaks(device: device, fromMs: from, toMs: time) { Geo.distance(lastLat, lastLon, lat, lon) }
            }
            (lastLat, lastLon) = (lat, lon)
            try trackPoint(s, time: time, extended: false, flags: 0)
        }
        try track.close()
    }

    /// The `trkseg`s of one track: one opens at its first point and after each recording gap (longer than `gapMs`),
    /// closing the one before.
    struct Segments {
        let out: ByteWriter
        let gapMs: Int64
        var open = false
        var lastTime = Int64.min
        var lastSkips = 0

        /// Before the point at `time`: closes the segment at a gap (that `breaks`, given the time of the point
        /// before, confirms: a trip's line goes on where its way was measured) or where points inside a privacy zone
        /// were passed over (`zoneSkips`, the reader's count, changed), opens one when none is.
        mutating func point(at time: Int64, zoneSkips: Int, breaks: (_ fromMs: Int64) throws -> Bool = { _ in true }) throws {
            defer { lastSkips = zoneSkips }
            if open, try zoneSkips != lastSkips || (time - lastTime > gapMs && breaks(lastTime)) {
                try out.append("</trkseg>\n")
                open = false
            }
            if !open {
                try out.append("<trkseg>\n")
                open = true
            }
            lastTime = time
        }

        func close() throws {
            if open { try out.append("</trkseg>\n") }
        }
    }

    @inline(__always)
    func trackPoint(_ s: Statement, time: Int64, extended: Bool, flags: Int64) throws {
        try out.append("<trkpt")
        try coordinates(lat: s.double(Exporter.PointColumn.lat), lon: s.double(Exporter.PointColumn.lon))
        try out.append(">")
        let ele = s.double(Exporter.PointColumn.altitude)
        if ele.isFinite {
            try out.append("<ele>")
            try out.append(fixed: ele, decimals: 3)
            try out.append("</ele>")
        }
        try out.append("<time>")
        try out.append(time: time, offset: nil)
        try out.append("</time>")
        if extended { try pointExtensions(s, flags: flags) }
        try out.append("</trkpt>\n")
    }

    /// Speed, course, accuracy, motion, SSID and flags of one point, those that are known.
    func pointExtensions(_ s: Statement, flags: Int64) throws {
        var opened = false
        func open() throws {
            if !opened {
                try out.append("<extensions>")
                opened = true
            }
        }
        func numeric(_ name: StaticString, _ column: Int32) throws {
            let value = s.double(column)  // +infinity for NULL (see PointReader)
            guard value.isFinite else { return }
            try open()
            try tag("<tripline:", name)
            try out.append(fixed: value, decimals: 3)
            try tag("</tripline:", name)
        }
        func textual(_ name: StaticString, _ column: Int32) throws {
            try s.withTextBytes(column) { text in
                guard text.baseAddress != nil else { return }  // NULL
                try open()
                try tag("<tripline:", name)
                try out.append(escaped: text, .xmlText)
                try tag("</tripline:", name)
            }
        }
        try numeric("speed_mps", Exporter.PointColumn.speed)
        try numeric("course_deg", Exporter.PointColumn.course)
        try numeric("accuracy_m", Exporter.PointColumn.accuracy)
        try textual("motion", Exporter.PointColumn.motion)
        try textual("ssid", Exporter.PointColumn.ssid)
        if flags != 0 {
            try open()
            try out.append("<tripline:flags>")
            try out.append(int: flags)
            try out.append("</tripline:flags>")
        }
        if opened { try out.append("</extensions>") }
    }

    // MARK: Records

    func writeTrip(_ trip: TripListing) throws {
        let start = localTime(trip.startMs, trip.startOffset)
        let end = localTime(trip.endMs, trip.endOffset)
        try out.append("<trk>")
        try element("name", "Trip \(trip.id): \(trip.mode), \(start)")
        var desc = "\(number(trip.distanceM / 1000, decimals: 2) ?? "?") km in \(number(trip.durationS / 60, decimals: 1) ?? "?") min"
        if let from = trip.fromPlace { desc += " from \(from)" }
        if let to = trip.toPlace { desc += " to \(to)" }
        try element("desc", desc)
        try element("type", trip.mode)
        try extensions([
            ("id", String(trip.id)), ("device", exporter.deviceName(trip.deviceID)), ("start", start), ("end", end),
            ("duration_s", number(trip.durationS)), ("moving_s", number(trip.movingS)),
            ("distance_m", number(trip.distanceM)), ("avg_speed_mps", number(trip.avgSpeedMps)),
            ("max_speed_mps", number(trip.maxSpeedMps)), ("legs", String(trip.legs)),
            ("from_place_id", trip.fromPlaceID.map { String($0) }), ("from_place", trip.fromPlace),
            ("to_place_id", trip.toPlaceID.map { String($0) }), ("to_place", trip.toPlace),
            ("points", String(trip.points)), ("gaps", String(trip.gaps)),
            ("line_method", try exporter.lineMethod(tripID: trip.id, source: trip.source)),
        ])
        try out.append("\n")
        try segments(device: trip.deviceID, startMs: trip.startMs, endMs: trip.endMs, appLine: try exporter.appLine(tripID: trip.id, source: trip.source))
        try out.append("</trk>\n")
    }

    func writeLeg(_ leg: LegListing) throws {
        let start = localTime(leg.startMs, exporter.legOffset(leg, atMs: leg.startMs, isStart: true))
        let end = localTime(leg.endMs, exporter.legOffset(leg, atMs: leg.endMs, isStart: false))
        try out.append("<trk>")
        try element("name", "Trip \(leg.tripID) leg \(leg.leg): \(leg.mode), \(start)")
        try element("desc", "\(number(leg.distanceM / 1000, decimals: 2) ?? "?") km in \(number(leg.durationS / 60, decimals: 1) ?? "?") min")
        try element("type", leg.mode)
        try extensions([
            ("trip_id", String(leg.tripID)), ("leg", String(leg.leg)), ("device", exporter.deviceName(leg.deviceID)),
            ("mode_source", leg.modeSource), ("start", start), ("end", end), ("distance_m", number(leg.distanceM)),
            ("duration_s", number(leg.durationS)), ("points", String(leg.points)),
            ("line_method", try exporter.lineMethod(tripID: leg.tripID, source: leg.source, leg: leg.leg)),
        ])
        try out.append("\n")
        try segments(
            device: leg.deviceID, startMs: leg.startMs, endMs: leg.endMs, appLine: try exporter.appLine(tripID: leg.tripID, source: leg.source, leg: leg.leg))
        try out.append("</trk>\n")
    }

    func writeVisit(_ visit: VisitListing) throws {
        let start = localTime(visit.startMs, visit.startOffset)
        let end = localTime(visit.endMs, visit.endOffset)
        let minutes = number(Double(visit.endMs - visit.startMs) / 60_000, decimals: 1) ?? "?"
        try out.append("<wpt")
        try coordinates(lat: visit.lat, lon: visit.lon)
        try out.append(">")
        try utcTime(visit.startMs)
        try element("name", visit.placeName ?? "Visit \(visit.id)")
        try element("desc", "Visit \(visit.id): \(start) to \(end) (\(minutes) min)")
        try element("type", "visit")
        try extensions([
            ("visit_id", String(visit.id)), ("device", exporter.deviceName(visit.deviceID)),
            ("place_id", visit.placeID.map { String($0) }), ("start", start), ("end", end),
            ("duration_s", number(Double(visit.endMs - visit.startMs) / 1000)), ("radius_m", number(visit.radiusM)),
            ("points", String(visit.points)), ("country_code", visit.countryCode), ("country", visit.country),
            ("locality", visit.locality),
        ])
        try out.append("</wpt>\n")
    }

    func writePlace(_ place: PlaceListing) throws {
        let first = place.firstVisitMs.map { localTime($0, place.firstOffset) }
        let last = place.lastVisitMs.map { localTime($0, place.lastOffset) }
        try out.append("<wpt")
        try coordinates(lat: place.lat, lon: place.lon)
        try out.append(">")
        if let firstMs = place.firstVisitMs { try utcTime(firstMs) }
        try element("name", place.name)
        var desc = "\(place.visits) visit\(place.visits == 1 ? "" : "s"), \(number(Double(place.totalDwellS) / 3600, decimals: 1) ?? "?") h in total"
        if let first, let last { desc += ", from \(first) to \(last)" }
        try element("desc", desc)
        try element("type", "place")
        try extensions([
            ("place_id", String(place.id)), ("device", exporter.deviceName(place.deviceID)), ("ssid", place.ssid),
            ("radius_m", number(place.radiusM)), ("visits", String(place.visits)),
            ("total_dwell_s", String(place.totalDwellS)), ("first_visit", first), ("last_visit", last),
            ("country_code", place.countryCode), ("country", place.country), ("locality", place.locality),
        ])
        try out.append("</wpt>\n")
    }

    /// Days have no location: ``write(_:)`` refuses them before any record is read.
    func writeDay(_ day: DayRow) throws {}

    /// One `trk` per device holding every point of the selection (flagged ones with their `flags`).
    /// Returns the number of points written.
    func writePoints() throws -> Int {
        let reader = try Exporter.PointReader(exporter.store, zones: exporter.privacyZones)
        // A local copy: mutating it in the loop needs no run-time exclusivity check.
        var local = exporter.localTime
        let gapMs = exporter.parameters.gapSeconds * 1000
        var written = 0
        for device in try exporter.pointDevices(selection) {
            var opened = false
            var track = Segments(out: out, gapMs: gapMs)
            try reader.read(device: device, startMs: selection.windowStartMs, endMs: selection.windowEndMs) { s, time, flags in
                if selection.isBounded {
                    let recorded = Exporter.PointColumn.recordedOffset(s)
                    let offset = recorded ?? local.offset(nil, atMs: time, latitude: s.double(Exporter.PointColumn.lat), longitude: s.double(Exporter.PointColumn.lon))
                    if !selection.includes(day: LocalTime.day(ms: time, offset: offset)) { return }
                }
                if !opened {
                    try out.append("<trk>")
                    try element("name", exporter.deviceName(device))
                    try element("type", "points")
                    try out.append("\n")
                    opened = true
                }
                try track.point(at: time, zoneSkips: reader.zoneSkips)
                try trackPoint(s, time: time, extended: true, flags: flags)
                written += 1
            }
            try track.close()
            if opened { try out.append("</trk>\n") }
        }
        return written
    }
}
