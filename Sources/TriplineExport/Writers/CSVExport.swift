import TriplineCore

/// Writes an export as CSV per RFC 4180: a header row, then one row per record, lines ended by CRLF, UTF-8
/// without a byte-order mark. Times are ISO 8601 with the local offset; `device` is the device's name.
/// The column contracts (names, order and meaning) are documented in `docs/EXPORTS.md`; columns may be added at
/// the end, never removed or reordered.
struct CSVExport: RecordWriter {
    /// The header row of each kind: the fixed contract first, then Tripline's extra columns.
    static let headers: [ExportKind: StaticString] = [
        .trips: "trip_id,device,start_time,end_time,duration_s,moving_s,distance_m,avg_speed_mps,max_speed_mps,mode,legs,from_place_id,to_place_id,start_lat,start_lon,end_lat,end_lon,points,gaps,from_place,to_place,line_distance_m,distance_method,source",
        .legs: "trip_id,leg,mode,start_time,end_time,distance_m,duration_s,device,mode_source,points,source",
        .visits: "visit_id,device,place_id,place_name,start_time,end_time,duration_s,lat,lon,radius_m,points,country_code,country,locality,source",
        .places: "place_id,device,name,lat,lon,radius_m,visits,total_dwell_s,first_visit,last_visit,ssid,country_code,country,locality,source",
        .days: "date,device,distance_m,moving_s,trips,visits,places,line_distance_m",
        .points: "device,time,lat,lon,altitude_m,speed_mps,course_deg,accuracy_m,motion,flags,ssid",
    ]

    let exporter: Exporter
    let out: ByteWriter
    let selection: Exporter.Selection

    func write(_ kind: ExportKind) throws -> Int {
        try out.append(CSVExport.headers[kind]!)
        try out.append("\r\n")
        return kind == .points ? try writePoints() : try exporter.writeRecords(kind, selection, with: self)
    }

    // MARK: Records, one row each

    func writeTrip(_ t: Exporter.TripRow) throws {
        try integer(t.id)
        try text(exporter.deviceName(t.deviceID))
        try time(t.startMs, t.startOffset)
        try time(t.endMs, t.endOffset)
        try number(t.durationS)
        try number(t.movingS)
        try number(t.distanceM)
        try number(t.avgSpeedMps)
        try number(t.maxSpeedMps)
        try text(t.mode)
        try integer(t.legs)
        try integer(t.fromPlaceID)
        try integer(t.toPlaceID)
        try number(t.startLat, decimals: 7)
        try number(t.startLon, decimals: 7)
        try number(t.endLat, decimals: 7)
        try number(t.endLon, decimals: 7)
        try integer(t.points)
        try integer(t.gaps)
        try text(t.fromPlace)
        try text(t.toPlace)
        try number(t.lineDistanceM)
        try text(t.distanceMethod)
        try text(t.source, last: true)
    }

    func writeLeg(_ l: Exporter.LegRow) throws {
        try integer(l.tripID)
        try integer(l.leg)
        try text(l.mode)
        try time(l.startMs, exporter.legOffset(l, atMs: l.startMs, isStart: true), resolved: true)
        try time(l.endMs, exporter.legOffset(l, atMs: l.endMs, isStart: false), resolved: true)
        try number(l.distanceM)
        try number(l.durationS)
        try text(exporter.deviceName(l.deviceID))
        try text(l.modeSource)
        try integer(l.points)
        try text(l.source, last: true)
    }

    func writeVisit(_ v: Exporter.VisitRow) throws {
        try integer(v.id)
        try text(exporter.deviceName(v.deviceID))
        try integer(v.placeID)
        try text(v.placeName)
        try time(v.startMs, v.startOffset)
        try time(v.endMs, v.endOffset)
        try number(Double(v.endMs - v.startMs) / 1000)
        try number(v.lat, decimals: 7)
        try number(v.lon, decimals: 7)
        try number(v.radiusM)
        try integer(v.points)
        try text(v.countryCode)
        try text(v.country)
        try text(v.locality)
        try text(v.source, last: true)
    }

    func writePlace(_ p: Exporter.PlaceRow) throws {
        try integer(p.id)
        try text(exporter.deviceName(p.deviceID))
        try text(p.name)
        try number(p.lat, decimals: 7)
        try number(p.lon, decimals: 7)
        try number(p.radiusM)
        try integer(p.visits)
        try integer(p.totalDwellS)
        try time(p.firstVisitMs, p.firstOffset)
        try time(p.lastVisitMs, p.lastOffset)
        try text(p.ssid)
        try text(p.countryCode)
        try text(p.country)
        try text(p.locality)
        try text(p.source, last: true)
    }

    func writeDay(_ d: Exporter.DayRow) throws {
        try text(d.date)
        try text(exporter.deviceName(d.deviceID))
        try number(d.distanceM)
        try number(d.movingS)
        try integer(d.trips)
        try integer(d.visits)
        try integer(d.places)
        try number(d.lineDistanceM, last: true)
    }

    // MARK: Fields, each followed by `,` or, for the last, CRLF.

    @inline(__always)
    func end(_ last: Bool) throws {
        if last { try out.append("\r\n") } else { try out.append(UInt8(ascii: ",")) }
    }

    func integer(_ value: Int64?, last: Bool = false) throws {
        if let value { try out.append(int: value) }
        try end(last)
    }

    func integer(_ value: Int, last: Bool = false) throws { try integer(Int64(value), last: last) }

    func number(_ value: Double?, decimals: Int = 3, last: Bool = false) throws {
        try out.append(csvNumber: value, decimals: decimals)
        try end(last)
    }

    func text(_ value: String?, last: Bool = false) throws {
        try out.append(csv: value)
        try end(last)
    }

    /// A time at its recorded offset (or, with `resolved`, at exactly `offset`), falling back as ``LocalTime`` does.
    func time(_ ms: Int64?, _ offset: Int32?, resolved: Bool = false, last: Bool = false) throws {
        if let ms {
            try out.append(time: ms, offsetSeconds: resolved ? offset : exporter.localTime.offset(offset, atMs: ms))
        }
        try end(last)
    }

    /// Every point of the selection (flagged ones too, with their `flags`), by device then time.
    func writePoints() throws -> Int {
        var count = 0
        try exporter.forEachLocalPoint(selection, name: { try $0.append(csv: $1); try $0.append(UInt8(ascii: ",")) }) { s, time, offset, flags, name in
            count += 1
            try out.append(bytes: name)
            try out.append(time: time, offsetSeconds: offset)
            try out.append(UInt8(ascii: ","))
            try number(s.double(Exporter.PointColumn.lat), decimals: 7)
            try number(s.double(Exporter.PointColumn.lon), decimals: 7)
            try number(s.double(Exporter.PointColumn.altitude))
            try number(s.double(Exporter.PointColumn.speed))
            try number(s.double(Exporter.PointColumn.course))
            try number(s.double(Exporter.PointColumn.accuracy))
            try s.withTextBytes(Exporter.PointColumn.motion) { try out.append(csv: $0) }
            try out.append(UInt8(ascii: ","))
            try out.append(int: flags)
            try out.append(UInt8(ascii: ","))
            try s.withTextBytes(Exporter.PointColumn.ssid) { try out.append(csv: $0) }
            try out.append("\r\n")
        }
        return count
    }
}
