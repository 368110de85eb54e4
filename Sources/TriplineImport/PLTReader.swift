import TriplineCore

/// Reads GeoLife `.plt` trajectories (Microsoft Research GeoLife 1.3): six header lines (the first is
/// `Geolife trajectory`; a line of the other five that reads whole as a fix is one), then one fix a line,
/// `lat,lon,0,altitude_ft,days_since_1899-12-30,YYYY-MM-DD,HH:MM:SS`, in GMT, CRLF or LF line ends. Altitude is in
/// feet, −777 = unknown. The date/time fields are authoritative; the day-number field is only used when they are
/// missing. GeoLife has no device field: the device is `--device`, else
/// the user folder of GeoLife's own layout (`…/<user>/Trajectory/<file>.plt` → `<user>`, so that a folder of many
/// users gives one device each instead of one device whose users' fixes clash), else the folder or file name (as for
/// GPX). A bad line costs one reject naming its line and byte.
public struct PLTReader {
    var builder: RecordBuilder

    public init(bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink? = nil) {
        builder = RecordBuilder(context: context, bytes: bytes, sink: sink)
    }

    /// Whether the bytes at `i` start the GeoLife header line.
    static func isHeader(_ bytes: UnsafeRawBufferPointer, at i: Int) -> Bool {
        let header: StaticString = "Geolife trajectory"
        guard i + header.utf8CodeUnitCount <= bytes.count else { return false }
        let h = header.utf8Start
        for k in 0..<header.utf8CodeUnitCount where bytes[i + k] | 0x20 != h[k] | 0x20 { return false }
        return true
    }

    /// Two or four ASCII digits at `p` as a number, or nil.
    @inline(__always) static func digits(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var v = 0
        for k in 0..<n {
            let d = p[k] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    /// The GeoLife user folder holding the file (`…/<user>/Trajectory/<file>.plt`, the data set's own layout), as
    /// the file's device — unless `--device` names one.
    mutating func userDevice() -> Int? {
        guard builder.context.fallbackDevice.origin != .deviceOption,
              let user = Self.userFolder(builder.context.path) else { return nil }
        return builder.out.deviceIndex(ParsedDevice(name: user, source: "geolife", origin: .geoLifeUserFolder))
    }

    /// `<user>` of a path `…/<user>/Trajectory/<file>` (`Trajectory` in any case), or nil.
    static func userFolder(_ path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[parts.count - 2].lowercased() == "trajectory" else { return nil }
        let user = parts[parts.count - 3]
        return user == "." || user == ".." ? nil : String(user)
    }

    // Long by design: a parser's single pass over each line's fields, kept in one function for speed.
    public mutating func read() -> ParseOutput {
        let base = builder.base
        let count = builder.count
        var lineStart = 0
        var lineNumber = 0
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { lineStart = 3 }
        var device: Int?
        var fields = [(Int, Int)](repeating: (0, 0), count: 8)
        while lineStart < count {
            lineNumber += 1
            var lineEnd = lineStart
            // A line ends at LF, or at a CR no LF follows (files saved with classic Mac line ends).
            while lineEnd < count, base[lineEnd] != 0x0A, base[lineEnd] != 0x0D || (lineEnd + 1 < count && base[lineEnd + 1] == 0x0A) { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            // The header: six lines, the first `Geolife trajectory`. A line of lines 2–6 that reads whole as a fix
            // is one (a file whose writer kept fewer header lines); the others are skipped without a word.
            if lineNumber == 1 { continue }
            let inHeader = lineNumber <= 6
            var e = lineEnd
            while e > lineStart, base[e - 1] == 0x0D || base[e - 1] == 0x20 || base[e - 1] == 0x09 { e -= 1 }
            if e == lineStart { continue }
            builder.lineOffset = lineStart
            builder.lineNumber = lineNumber
            // Split on commas (up to 8 fields).
            var n = 0
            var s = lineStart
            var i = lineStart
            while i <= e && n < 8 {
                if i == e || base[i] == UInt8(ascii: ",") {
                    fields[n] = (s, i)
                    n += 1
                    s = i + 1
                }
                i += 1
            }
            guard n >= 7 else {
                if inHeader { continue }
                let binary = (lineStart..<e).contains { base[$0] == 0 }
                builder.reject(binary ? .binaryData : .invalidLine, "a GeoLife line has 7 comma-separated fields, this one has \(n)", start: lineStart, end: e)
                continue
            }
            func number(_ f: Int) -> Double? {
                let (a, b) = fields[f]
                guard b > a else { return nil }
                return JSONParser.parseDecimalText(base + a, b - a)
            }
            guard let lat = number(0), let lon = number(1) else {
                if inHeader { continue }
                builder.reject(.invalidCoordinates, "latitude/longitude (fields 1 and 2) are not numbers", start: lineStart, end: e)
                continue
            }
            // Time: YYYY-MM-DD and HH:MM:SS (GMT).
            var timeMs: Int64?
            let (da, db) = fields[5], (ta, tb) = fields[6]
            if db - da == 10, tb - ta >= 8, let y = PLTReader.digits(base + da, 4), base[da + 4] == UInt8(ascii: "-") || base[da + 4] == UInt8(ascii: "/"),
                let mo = PLTReader.digits(base + da + 5, 2), let d = PLTReader.digits(base + da + 8, 2),
                let hh = PLTReader.digits(base + ta, 2), base[ta + 2] == UInt8(ascii: ":"), let mm = PLTReader.digits(base + ta + 3, 2),
                base[ta + 5] == UInt8(ascii: ":"), let ss = PLTReader.digits(base + ta + 6, 2),
                (1...12).contains(mo), d >= 1, d <= CivilTime.daysInMonth(year: y, month: mo), hh < 24, mm < 60, ss < 61
            {
                let days = CivilTime.daysFromCivil(year: y, month: mo, day: d)
                // A leap second (`:60`) is the minute's last millisecond, as `Timestamp.parseISO8601` reads it.
                timeMs = Int64(days) * 86_400_000 + Int64(hh * 3600 + mm * 60 + min(ss, 59)) * 1000 + (ss == 60 ? 999 : 0)
            } else if da == db && ta == tb, let days = number(4) {
                // No date/time text: the day number (days since 1899-12-30).
                timeMs = Int64(((days - 25_569) * 86_400_000).rounded())
            }
            guard let time = timeMs else {
                if inHeader { continue }
                builder.reject(.invalidTime, "fields 6 and 7 are not a YYYY-MM-DD date and an HH:MM:SS time", start: lineStart, end: e)
                continue
            }
            guard builder.acceptPoint(timeMs: time, lat: lat, lon: lon, start: lineStart, end: e) else { continue }
            let feet = number(3)
            let altitude: Double? = feet.flatMap { $0 == -777 ? nil : $0 * 0.3048 }
            let d = device ?? userDevice() ?? builder.fallbackDevice(source: "geolife")
            device = d
            builder.addPoint(Point(deviceID: Int64(d), timeMs: time, lat: lat, lon: lon, altitudeM: altitude), start: lineStart, end: e)
        }
        var out = builder.out
        out.format = "geolife-plt"
        if lineNumber <= 6 && out.points.isEmpty && out.rejects.isEmpty {
            out.rejects.append(RejectRecord(line: nil, byteOffset: 0, reason: .emptyFile, detail: "the GeoLife file holds no fix after its header", excerpt: nil))
        }
        builder.out = ParseOutput()
        return out
    }
}
