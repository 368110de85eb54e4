import TriplineCore
import TriplineStore

/// Writes an export as an RFC 7946 GeoJSON FeatureCollection, one feature per line.
///
/// Positions are `[longitude, latitude]` with at most 7 decimals (about 1 cm). Trips and legs are LineStrings, or
/// MultiLineStrings when the recording has gaps or the line crosses the antimeridian (cut at ±180°, RFC 7946 §3.1.9) (runs of a single point are left out, since a line needs two
/// positions; a trip with no line at all has `"geometry": null`). Visits, places and points are Points. Days have no
/// location and are written as features with `"geometry": null` (RFC 7946 §3.2 "unlocated" features), so one
/// format carries every kind.
struct GeoJSONExport: RecordWriter {
    let exporter: Exporter
    let out: ByteWriter
    let selection: Exporter.Selection
    /// The positions of trips' and legs' lines.
    let lineReader: Exporter.PointReader
    /// The geometry of one line, written before its feature because its type depends on its gaps.
    let scratch = ByteWriter.memory()

    func write(_ kind: ExportKind) throws -> Int {
        try out.append("{\"type\":\"FeatureCollection\",\"features\":[\n")
        let count = kind == .points ? try writePoints() : try exporter.writeRecords(kind, selection, with: self)
        try out.append(count > 0 ? "\n]}\n" : "]}\n")
        return count
    }

    func willWrite(record index: Int) throws {
        if index > 0 { try out.append(",\n") }
    }

    // MARK: Pieces

    @inline(__always)
    static func position(_ w: ByteWriter, lon: Double, lat: Double) throws {
        try w.append(UInt8(ascii: "["))
        try w.append(fixed: lon, decimals: 7)
        try w.append(UInt8(ascii: ","))
        try w.append(fixed: lat, decimals: 7)
        try w.append(UInt8(ascii: "]"))
    }

    func pointGeometry(lon: Double?, lat: Double?) throws {
        guard let lon, let lat, lon.isFinite, lat.isFinite else { return try out.append("\"geometry\":null") }
        try out.append("\"geometry\":{\"type\":\"Point\",\"coordinates\":")
        try Self.position(out, lon: lon, lat: lat)
        try out.append(UInt8(ascii: "}"))
    }

    /// Writes `"geometry":…` for the unflagged points of `device` in `[startMs, endMs]`, or for `appLine`, the line
    /// of a trip or leg taken from Google's timeline (``Exporter/appLine(tripID:source:leg:)``: its runs, each a line).
    func lineGeometry(device: Int64, startMs: Int64, endMs: Int64, appLine: [[LineVertex]]? = nil) throws {
        scratch.clear()
        var coordinates = LineCoordinates(scratch: scratch)
        if let appLine {
            for run in appLine {
                for (k, v) in run.enumerated() { try coordinates.add(lon: v.lon, lat: v.lat, breaks: k == 0) }
            }
        } else {
            let joins = try exporter.lineJoins()
            var lastTime = Int64.min, lastLat = 0.0, lastLon = 0.0
            var lastSkips = lineReader.zoneSkips
            try lineReader.read(device: device, startMs: startMs, endMs: endMs) { s, time, flags in
                guard flags == 0 else { return }
                let lat = s.double(Exporter.PointColumn.lat), lon = s.double(Exporter.PointColumn.lon)
                // A recording gap whose way was not measured, or a privacy zone passed over: the line breaks.
                var breaks = lastTime == Int64.min || lineReader.zoneSkips != lastSkips
                if !breaks && time - lastTime > joins.gapMs {
                    breaks = try joins.breaks(device: device, fromMs: lastTime, toMs: time) { Geo.distance(lastLat, lastLon, lat, lon) }
                }
                lastSkips = lineReader.zoneSkips
                (lastTime, lastLat, lastLon) = (time, lat, lon)
                try coordinates.add(lon: lon, lat: lat, breaks: breaks)
            }
        }
        try coordinates.close()
        let lines = coordinates.lines
        switch lines {
        case 0:
            try out.append("\"geometry\":null")
        case 1:
            try out.append("\"geometry\":{\"type\":\"LineString\",\"coordinates\":")
            try scratch.withBytes { try out.append(bytes: $0) }
            try out.append(UInt8(ascii: "}"))
        default:
            try out.append("\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[")
            try scratch.withBytes { try out.append(bytes: $0) }
            try out.append("]}")
        }
    }

    /// `,"name":` before a property value.
    @inline(__always)
    func key(_ name: StaticString) throws {
        try out.append(",\"")
        try out.append(name)
        try out.append("\":")
    }

    func number(_ name: StaticString, _ value: Double?, decimals: Int = 3) throws {
        try key(name)
        try out.append(json: value, decimals: decimals)
    }

    func integer(_ name: StaticString, _ value: Int64?) throws {
        try key(name)
        if let value { try out.append(int: value) } else { try out.append("null") }
    }

    func integer(_ name: StaticString, _ value: Int) throws { try integer(name, Int64(value)) }

    func text(_ name: StaticString, _ value: String?) throws {
        try key(name)
        try out.append(jsonString: value)
    }

    func time(_ name: StaticString, _ ms: Int64?, offset recorded: UTCOffset?) throws {
        try key(name)
        guard let ms else { return try out.append("null") }
        try out.append(UInt8(ascii: "\""))
        try out.append(time: ms, offset: exporter.localTime.offset(recorded, atMs: ms))
        try out.append(UInt8(ascii: "\""))
    }

    /// `{"type":"Feature","id":…,` (the geometry follows).
    func featureStart(id: Int64) throws {
        try out.append("{\"type\":\"Feature\",\"id\":")
        try out.append(int: id)
        try out.append(UInt8(ascii: ","))
    }

    /// `,"properties":{"id":…` after the geometry.
    func propertiesStart(id: Int64) throws {
        try out.append(",\"properties\":{\"id\":")
        try out.append(int: id)
    }

    /// The place-name properties that end a visit or place feature, then the feature's close.
    func featureEnd(countryCode: String?, country: String?, locality: String?) throws {
        try text("country_code", countryCode)
        try text("country", country)
        try text("locality", locality)
        try out.append("}}")
    }

    // MARK: Records

    func writeTrip(_ trip: TripListing) throws {
        try featureStart(id: trip.id)
        try lineGeometry(device: trip.deviceID, startMs: trip.startMs, endMs: trip.endMs, appLine: try exporter.appLine(tripID: trip.id, source: trip.source))
        try propertiesStart(id: trip.id)
        try text("device", exporter.deviceName(trip.deviceID))
        try time("start", trip.startMs, offset: trip.startOffset)
        try time("end", trip.endMs, offset: trip.endOffset)
        try number("duration_s", trip.durationS)
        try number("moving_s", trip.movingS)
        try number("distance_m", trip.distanceM)
        try number("avg_speed_mps", trip.avgSpeedMps)
        try number("max_speed_mps", trip.maxSpeedMps)
        try text("mode", trip.mode)
        try integer("legs", trip.legs)
        try integer("from_place_id", trip.fromPlaceID)
        try text("from_place", trip.fromPlace)
        try integer("to_place_id", trip.toPlaceID)
        try text("to_place", trip.toPlace)
        try integer("points", trip.points)
        try integer("gaps", trip.gaps)
        try text("source", trip.source)
        try text("line_method", try exporter.lineMethod(tripID: trip.id, source: trip.source))
        try out.append("}}")
    }

    func writeLeg(_ leg: LegListing) throws {
        try out.append("{\"type\":\"Feature\",")
        try lineGeometry(
            device: leg.deviceID, startMs: leg.startMs, endMs: leg.endMs, appLine: try exporter.appLine(tripID: leg.tripID, source: leg.source, leg: leg.leg))
        try out.append(",\"properties\":{\"trip_id\":")
        try out.append(int: leg.tripID)
        try integer("leg", leg.leg)
        try text("device", exporter.deviceName(leg.deviceID))
        try text("mode", leg.mode)
        try text("mode_source", leg.modeSource)
        try time("start", leg.startMs, offset: exporter.legOffset(leg, atMs: leg.startMs, isStart: true))
        try time("end", leg.endMs, offset: exporter.legOffset(leg, atMs: leg.endMs, isStart: false))
        try number("distance_m", leg.distanceM)
        try number("duration_s", leg.durationS)
        try integer("points", leg.points)
        try text("source", leg.source)
        try text("line_method", try exporter.lineMethod(tripID: leg.tripID, source: leg.source, leg: leg.leg))
        try out.append("}}")
    }

    func writeVisit(_ visit: VisitListing) throws {
        try featureStart(id: visit.id)
        try pointGeometry(lon: visit.lon, lat: visit.lat)
        try propertiesStart(id: visit.id)
        try text("device", exporter.deviceName(visit.deviceID))
        try integer("place_id", visit.placeID)
        try text("place_name", visit.placeName)
        try time("start", visit.startMs, offset: visit.startOffset)
        try time("end", visit.endMs, offset: visit.endOffset)
        try number("duration_s", Double(visit.endMs - visit.startMs) / 1000)
        try number("radius_m", visit.radiusM)
        try integer("points", visit.points)
        try text("source", visit.source)
        try featureEnd(countryCode: visit.countryCode, country: visit.country, locality: visit.locality)
    }

    func writePlace(_ place: PlaceListing) throws {
        try featureStart(id: place.id)
        try pointGeometry(lon: place.lon, lat: place.lat)
        try propertiesStart(id: place.id)
        try text("device", exporter.deviceName(place.deviceID))
        try text("name", place.name)
        try text("ssid", place.ssid)
        try number("radius_m", place.radiusM)
        try integer("visits", place.visits)
        try integer("total_dwell_s", place.totalDwellS)
        try time("first_visit", place.firstVisitMs, offset: place.firstOffset)
        try time("last_visit", place.lastVisitMs, offset: place.lastOffset)
        try text("source", place.source)
        try featureEnd(countryCode: place.countryCode, country: place.country, locality: place.locality)
    }

    func writeDay(_ day: DayRow) throws {
        try out.append("{\"type\":\"Feature\",\"geometry\":null,\"properties\":{\"date\":")
        try out.append(jsonString: day.date)
        try text("device", exporter.deviceName(day.deviceID))
        try number("distance_m", day.distanceM)
        try number("moving_s", day.movingS)
        try integer("trips", day.trips)
        try integer("visits", day.visits)
        try integer("places", day.places)
        try out.append("}}")
    }

    /// Every point of the selection (flagged ones too, with their `flags`), by device then time.
    func writePoints() throws -> Int {
        var count = 0
        try exporter.forEachLocalPoint(selection, name: { try $0.append(jsonString: $1) }) { s, time, offset, flags, name in
            if count > 0 { try out.append(",\n") }
            count += 1
            try out.append("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":")
            try Self.position(out, lon: s.double(Exporter.PointColumn.lon), lat: s.double(Exporter.PointColumn.lat))
            try out.append("},\"properties\":{\"device\":")
            try out.append(bytes: name)
            try out.append(",\"time\":\"")
            try out.append(time: time, offset: offset)
            try out.append(UInt8(ascii: "\""))
            try number("altitude_m", s.double(Exporter.PointColumn.altitude))
            try number("speed_mps", s.double(Exporter.PointColumn.speed))
            try number("course_deg", s.double(Exporter.PointColumn.course))
            try number("accuracy_m", s.double(Exporter.PointColumn.accuracy))
            try key("motion")
            try jsonText(s, Exporter.PointColumn.motion)
            try key("ssid")
            try jsonText(s, Exporter.PointColumn.ssid)
            try key("flags")
            try out.append(int: flags)
            try out.append("}}")
        }
        return count
    }

    /// A text column as a JSON string (or `null`), escaped straight from SQLite's bytes.
    @inline(__always)
    func jsonText(_ s: Statement, _ column: Int32) throws {
        try s.withTextBytes(column) { text in
            guard text.baseAddress != nil else { return try out.append("null") }
            try out.append(UInt8(ascii: "\""))
            try out.append(escaped: text, .json)
            try out.append(UInt8(ascii: "\""))
        }
    }
}

/// The coordinates of a trip's or leg's GeoJSON line as they are written into `scratch`: its lines (`[…]` each, comma
/// separated), a line broken where the caller says (a recording gap, a privacy zone) and where it crosses the
/// antimeridian, a run of a single position left out. A value with mutating methods rather than nested functions over
/// local variables, which the closure reading the fixes would capture: their boxes cost a dynamic exclusivity check at
/// each access, for each fix of each exported trip (+25 % instructions on the trips export).
private struct LineCoordinates {
    let scratch: ByteWriter
    /// Lines written and closed.
    var lines = 0
    var lineStart = 0
    var linePoints = 0
    var lastLon = 0.0
    var lastLat = 0.0

    /// Ends the current line (a single position is no line and is taken back).
    mutating func close() throws {
        if linePoints == 1 {
            scratch.truncate(to: lineStart)
        } else if linePoints > 1 {
            try scratch.append(UInt8(ascii: "]"))
            lines += 1
        }
        linePoints = 0
    }

    /// Adds a position; `breaks`: a new line starts at it.
    @inline(__always)
    mutating func add(lon: Double, lat: Double, breaks: Bool) throws {
        if linePoints > 0 && breaks { try close() }
        if linePoints > 0 && (lon - lastLon).magnitude > 180 {
            // Crossing the antimeridian (RFC 7946 §3.1.9): end this line at ±180 and start the next at ∓180, at the
            // latitude where the straight segment crosses.
            let edge = lastLon > 0 ? 180.0 : -180.0
            let unwrapped = lastLon > 0 ? lon + 360 : lon - 360
            let crossing = lastLat + (lat - lastLat) * (edge - lastLon) / (unwrapped - lastLon)
            try scratch.append(UInt8(ascii: ","))
            try GeoJSONExport.position(scratch, lon: edge, lat: crossing)
            linePoints += 1
            try close()
            lineStart = scratch.bytesWritten
            try scratch.append(lines > 0 ? ",[" : "[")
            try GeoJSONExport.position(scratch, lon: -edge, lat: crossing)
            linePoints = 1
        }
        if linePoints == 0 {
            lineStart = scratch.bytesWritten
            try scratch.append(lines > 0 ? ",[" : "[")
        } else {
            try scratch.append(UInt8(ascii: ","))
        }
        try GeoJSONExport.position(scratch, lon: lon, lat: lat)
        linePoints += 1
        lastLon = lon
        lastLat = lat
    }
}
