import TriplineCore

/// Reads GPX 1.0 and 1.1 files with a small byte-level XML reader (no Foundation, no libxml).
///
/// Every `trkpt` with a `time` becomes a point (`ele` → altitude, GPX 1.0 `speed`/`course` or an extension's
/// `speed` → speed and course; Tripline's own extensions `speed_mps`, `course_deg`, `accuracy_m`, `motion` and `ssid`
/// → those fields, so its GPX points export reads back whole; `hdop`, `vdop`, `sat`, `src` kept in `extra`). A `wpt` becomes an app event of kind
/// `waypoint`. The root's `creator` is kept (`imports.creator`). GPX has no device, so the device is `--device`,
/// else the folder or file name. A syntax error is one `invalid_xml` reject; reading resumes at the next `<trkpt`.
public struct GPXReader {
    var builder: RecordBuilder
    /// The XML declaration names a single-byte encoding (`ISO-8859-1`, `windows-1252`): text bytes are characters.
    var singleByteText = false

    public init(bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink? = nil) {
        builder = RecordBuilder(context: context, bytes: bytes, sink: sink)
    }

    struct XMLError: Error {
        var offset: Int
        var message: String
        var atEnd: Bool
    }

    /// What the current `trkpt` / `wpt` has collected.
    struct Fix {
        var start = 0
        var isWaypoint = false
        /// `waypoint` for `<wpt>`, `route_point` for `<rtept>` (planned, not recorded: kept as app events).
        var eventKind: AppEventKind = .waypoint
        var lat: Double?
        var lon: Double?
        var latText = ""
        var lonText = ""
        var time: ParsedTime?
        var timeText: String?
        var ele: Double?
        var speed: Double?
        var course: Double?
        /// Tripline's own extensions (its GPX points export): horizontal accuracy, motion states, wifi network.
        var accuracy: Double?
        var motion: String?
        var ssid: String?
        /// `<ele>`, `<speed>` or `<course>` text that is no number (`0x10`, `fast`): an `invalid_measure` row each.
        var badMeasures: [(String, String)] = []
        var extras: [(String, String)] = []
    }

    // Long by design: one pass over the bytes as a small state machine (tags, attributes, text) sharing its cursor and the open fix; split, the hot loop would pass that state around.
    public mutating func read() -> ParseOutput {
        let base = builder.base
        let count = builder.count
        var i = 0
        var stack: [String] = []
        var fix: Fix?
        var text: [UInt8] = []
        var sawRoot = false
        var device: Int?
        var format = "gpx"
        // A fix element (`trkpt`, `wpt`, `rtept`) found deeper inside an open fix, in its `<extensions>` say: the
        // stack's size outside it and where it starts. Everything in it is skipped, and the open fix read on.
        var nested: (depth: Int, start: Int, name: String, within: String)?
        func skip(to marker: StaticString, from: Int) -> Int? {
            let m = marker.utf8Start
            let n = marker.utf8CodeUnitCount
            var k = from
            while k + n <= count {
                if base[k] == m[0] {
                    var same = true
                    for j in 1..<n where base[k + j] != m[j] {
                        same = false
                        break
                    }
                    if same { return k + n }
                }
                k += 1
            }
            return nil
        }
        while i < count {
            // Text up to the next tag.
            let textStart = i
            while i < count, base[i] != UInt8(ascii: "<") { i += 1 }
            if fix != nil, i > textStart { text.append(contentsOf: UnsafeBufferPointer(start: base + textStart, count: i - textStart)) }
            if i >= count { break }
            let tagStart = i
            do {
                if i + 1 < count, base[i + 1] == UInt8(ascii: "?") {
                    guard let e = skip(to: "?>", from: i + 2) else { throw XMLError(offset: i, message: "unterminated processing instruction", atEnd: true) }
                    if !sawRoot, stack.isEmpty { singleByteText = Self.declaresSingleByteEncoding(base, i, e) }
                    i = e
                    continue
                }
                if i + 3 < count, base[i + 1] == UInt8(ascii: "!"), base[i + 2] == UInt8(ascii: "-"), base[i + 3] == UInt8(ascii: "-") {
                    guard let e = skip(to: "-->", from: i + 4) else { throw XMLError(offset: i, message: "unterminated comment", atEnd: true) }
                    i = e
                    continue
                }
                if i + 8 < count, base[i + 1] == UInt8(ascii: "!"), base[i + 2] == UInt8(ascii: "[") {
                    guard let e = skip(to: "]]>", from: i + 9) else { throw XMLError(offset: i, message: "unterminated CDATA section", atEnd: true) }
                    if fix != nil { text.append(contentsOf: UnsafeBufferPointer(start: base + i + 9, count: e - 3 - (i + 9))) }
                    i = e
                    continue
                }
                if i + 1 < count, base[i + 1] == UInt8(ascii: "!") {
                    guard let e = skip(to: ">", from: i + 2) else { throw XMLError(offset: i, message: "unterminated declaration", atEnd: true) }
                    i = e
                    continue
                }
                let closing = i + 1 < count && base[i + 1] == UInt8(ascii: "/")
                i += closing ? 2 : 1
                let nameStart = i
                while i < count, !isSpace(base[i]), base[i] != UInt8(ascii: ">"), base[i] != UInt8(ascii: "/") { i += 1 }
                guard i < count else { throw XMLError(offset: tagStart, message: "the file ends inside a tag", atEnd: true) }
                guard i > nameStart else { throw XMLError(offset: tagStart, message: "a '<' that does not start a tag", atEnd: false) }
                let name = localName(base, nameStart, i)
                // Attributes.
                var attributes: [(String, String)] = []
                var selfClosing = false
                while true {
                    while i < count, isSpace(base[i]) { i += 1 }
                    guard i < count else { throw XMLError(offset: tagStart, message: "the file ends inside a tag", atEnd: true) }
                    if base[i] == UInt8(ascii: ">") {
                        i += 1
                        break
                    }
                    if base[i] == UInt8(ascii: "/"), i + 1 < count, base[i + 1] == UInt8(ascii: ">") {
                        selfClosing = true
                        i += 2
                        break
                    }
                    let attrStart = i
                    while i < count, base[i] != UInt8(ascii: "="), !isSpace(base[i]), base[i] != UInt8(ascii: ">") { i += 1 }
                    // The whole name: GPX's attributes (`lat`, `lon`, `version`, `creator`) have no prefix, and an
                    // extension's `g:lat` is another attribute (it replaced the fix's latitude when read as `lat`).
                    let attrName = String(decoding: UnsafeBufferPointer(start: base + attrStart, count: i - attrStart), as: UTF8.self)
                    while i < count, isSpace(base[i]) { i += 1 }
                    guard i < count else { throw XMLError(offset: tagStart, message: "the file ends inside a tag", atEnd: true) }
                    guard base[i] == UInt8(ascii: "="), i > attrStart else { throw XMLError(offset: i, message: "malformed attribute in <\(name)>", atEnd: false) }
                    i += 1
                    while i < count, isSpace(base[i]) { i += 1 }
                    guard i < count else { throw XMLError(offset: tagStart, message: "the file ends inside a tag", atEnd: true) }
                    let quote = base[i]
                    guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                        throw XMLError(offset: i, message: "attribute value in <\(name)> is not quoted", atEnd: false)
                    }
                    i += 1
                    let valueStart = i
                    while i < count, base[i] != quote { i += 1 }
                    guard i < count else { throw XMLError(offset: tagStart, message: "the file ends inside an attribute", atEnd: true) }
                    // XML allows an attribute once per tag (`lat="48.1" lon="11.5" lat="49.0"`: which is meant is
                    // unknowable, as for a JSON key twice).
                    for (prior, _) in attributes where prior == attrName {
                        throw XMLError(offset: attrStart, message: "<\(name)> has the attribute '\(attrName)' twice", atEnd: false)
                    }
                    attributes.append((attrName, decodeEntities(base, valueStart, i)))
                    i += 1
                }
                if closing {
                    guard let top = stack.last else { throw XMLError(offset: tagStart, message: "</\(name)> closes nothing", atEnd: false) }
                    guard top == name else { throw XMLError(offset: tagStart, message: "</\(name)> closes <\(top)>", atEnd: false) }
                    stack.removeLast()
                    if let n = nested {
                        text.removeAll(keepingCapacity: true)
                        if stack.count == n.depth {
                            nested = nil
                            skipNested(n.name, within: n.within, start: n.start, end: i)
                        }
                        continue
                    }
                    if var f = fix {
                        let value = trimmed(text)
                        text.removeAll(keepingCapacity: true)
                        if name == "trkpt" || name == "wpt" || name == "rtept" {
                            fix = nil
                            emit(f, end: i, device: &device)
                            continue
                        }
                        switch name {
                        case "ele":
                            f.ele = parseNumber(value)
                            if f.ele == nil && !value.isEmpty { f.badMeasures.append((name, value)) }
                        case "time":
                            f.timeText = value
                            f.time = Timestamp.parseISO8601(value)
                        case "speed", "speed_mps":
                            f.speed = parseNumber(value)
                            if f.speed == nil && !value.isEmpty { f.badMeasures.append((name, value)) }
                        case "course", "course_deg":
                            f.course = parseNumber(value)
                            if f.course == nil && !value.isEmpty { f.badMeasures.append((name, value)) }
                        // Tripline's GPX points export writes these under its namespace (`tripline:accuracy_m`): a backup
                        // it wrote reads back whole (the twelfth hostile round: speed and accuracy were lost).
                        case "accuracy_m":
                            f.accuracy = parseNumber(value)
                            if f.accuracy == nil && !value.isEmpty { f.badMeasures.append((name, value)) }
                        case "motion": if !value.isEmpty { f.motion = value }
                        case "ssid": if !value.isEmpty { f.ssid = value }
                        case "hdop", "vdop", "pdop", "sat", "src", "fix", "name", "sym", "type", "desc":
                            if !value.isEmpty { f.extras.append((name, value)) }
                        default: break
                        }
                        fix = f
                    }
                    continue
                }
                // An opening tag.
                if !sawRoot {
                    sawRoot = true
                    guard name == "gpx" else {
                        builder.out.notArchive = true
                        builder.out.fatal = "XML, but not GPX: the root element is <\(name)>, not <gpx>"
                        return finish(format)
                    }
                    for (k, v) in attributes {
                        if k == "creator" { builder.out.creator = v }
                        if k == "version" { format = "gpx/" + v }
                    }
                }
                if nested != nil {
                    if !selfClosing {
                        guard stack.count < 256 else { throw XMLError(offset: tagStart, message: "elements nested deeper than 256", atEnd: false) }
                        stack.append(name)
                    }
                    continue
                }
                if name == "trkpt" || name == "wpt" || name == "rtept" {
                    if let open = fix {
                        let outer = open.isWaypoint ? (open.eventKind == .waypoint ? "wpt" : "rtept") : "trkpt"
                        if let top = stack.last, top != outer,
                           let at = stack.lastIndex(where: { $0 == "trkpt" || $0 == "wpt" || $0 == "rtept" }), at + 1 < stack.count {
                            // Deeper than a child (inside the fix's `<extensions>`, say): not the track's fix, and
                            // not a reason to lose the one around it. Skipped whole, with a row naming its line.
                            let within = "<\(outer)>'s <\(stack[at + 1])>"
                            if selfClosing {
                                skipNested(name, within: within, start: tagStart, end: i)
                            } else {
                                nested = (stack.count, tagStart, name, within)
                                stack.append(name)
                            }
                            continue
                        }
                        // A child of the open fix: that fix was never closed (cut or broken writing).
                        builder.reject(.invalidXML, "<\(name)> inside an unclosed <\(outer)>", start: open.start, end: tagStart)
                    }
                    var f = Fix()
                    f.start = tagStart
                    f.isWaypoint = name != "trkpt"
                    f.eventKind = name == "wpt" ? .waypoint : .routePoint
                    for (k, v) in attributes {
                        if k == "lat" { f.lat = parseNumber(v); f.latText = v }
                        if k == "lon" { f.lon = parseNumber(v); f.lonText = v }
                    }
                    text.removeAll(keepingCapacity: true)
                    if selfClosing {
                        emit(f, end: i, device: &device)
                    } else {
                        fix = f
                        stack.append(name)
                    }
                    continue
                }
                if !selfClosing {
                    guard stack.count < 256 else { throw XMLError(offset: tagStart, message: "elements nested deeper than 256", atEnd: false) }
                    stack.append(name)
                    if fix != nil { text.removeAll(keepingCapacity: true) }
                }
            } catch let error as XMLError {
                let start = fix?.start ?? error.offset
                if error.atEnd {
                    builder.reject(.truncated, "the file ends inside this element (cut mid-write?): \(error.message)", start: start, end: count)
                    break
                }
                builder.reject(.invalidXML, "\(error.message) at byte \(error.offset)", start: start, end: min(count, error.offset + 80))
                // Resume at the next <trkpt, inside its segment.
                guard let next = skip(to: "<trkpt", from: max(error.offset, start) + 1) else { break }
                i = next - 6
                fix = nil
                nested = nil
                text.removeAll()
                if let seg = stack.lastIndex(of: "trkseg") { stack.removeSubrange((seg + 1)...) }
            } catch {
                break
            }
        }
        if let f = fix {
            builder.reject(.truncated, "the file ends inside this <\(f.isWaypoint ? "wpt" : "trkpt")> (cut mid-write?)", start: f.start, end: count)
        } else if sawRoot, !stack.isEmpty, builder.out.rejects.last?.reason != .truncated {
            builder.reject(.truncated, "the file ends before </\(stack.last!)> (cut mid-write?)", start: max(0, count - 1), end: count)
        }
        if !sawRoot {
            var k = 0
            while k < count, isSpace(base[k]) { k += 1 }
            if k == count {
                builder.out.rejects.append(RejectRecord(line: nil, byteOffset: 0, reason: .emptyFile, detail: "the file is empty", excerpt: nil))
            } else {
                builder.out.notArchive = true
                builder.out.fatal = "XML without any element: not a GPX file"
            }
        }
        return finish(format)
    }

    mutating func finish(_ format: String) -> ParseOutput {
        var out = builder.out
        out.format = format
        builder.out = ParseOutput()
        return out
    }

    /// A fix element inside another fix's child element: a row naming it and its line, nothing read from it.
    mutating func skipNested(_ name: String, within: String, start: Int, end: Int) {
        builder.reject(.unknownRecord, "a <\(name)> inside \(within) is not a fix of the track; it was skipped and the "
                       + "element around it read", start: start, end: end)
    }

    mutating func emit(_ f: Fix, end: Int, device: inout Int?) {
        let d = device ?? builder.fallbackDevice(source: "gpx")
        device = d
        if f.isWaypoint {
            var event = ParsedEvent(device: d, kind: f.eventKind, timeMs: f.time?.ms, utcOffsetS: f.time?.offsetSeconds, raw: rawXML(f.start, end))
            event.lat = f.lat
            event.lon = f.lon
            builder.addEvent(event, start: f.start, end: end)
            builder.flushIfFull()
            return
        }
        guard let timeText = f.timeText else {
            builder.reject(.missingTime, "the <trkpt> has no <time>", start: f.start, end: end)
            return
        }
        guard let time = f.time else {
            builder.reject(.invalidTime, "<time>\(timeText.prefix(60))</time> is not an ISO 8601 time", start: f.start, end: end)
            return
        }
        guard let lat = f.lat, let lon = f.lon else {
            let what = f.latText.isEmpty && f.lonText.isEmpty ? "no lat/lon attributes" : "lat '\(f.latText.prefix(30))' / lon '\(f.lonText.prefix(30))' are not numbers"
            builder.reject(f.latText.isEmpty && f.lonText.isEmpty ? .missingCoordinates : .invalidCoordinates, "the <trkpt> has \(what)", start: f.start, end: end)
            return
        }
        guard builder.acceptPoint(timeMs: time.ms, lat: lat, lon: lon, start: f.start, end: end) else { return }
        var extra: String?
        if !f.extras.isEmpty {
            extra = "{" + f.extras.map { k, v in "\"\(k)\":" + (parseNumber(v) != nil && k != "name" && k != "src" && k != "fix" && k != "sym" && k != "type" && k != "desc" ? v : JSONText.quoted(v)) }.joined(separator: ",") + "}"
        }
        for (name, value) in f.badMeasures where value.lowercased() != "nan" {  // "NaN": a writer's "unknown", no row
            builder.reject(.invalidMeasure, "<\(name)>\(value.prefix(60))</\(name)> is not a number; the point was kept without it", start: f.start, end: end)
        }
        // A negative speed is "unknown"; one too fast, or a course above 360°, leaves `addPoint`'s row.
        var speed = f.speed
        if let s = speed, !(s >= 0) { speed = nil }
        let point = Point(deviceID: Int64(d), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: lat, lon: lon,
                          altitudeM: f.ele.flatMap { $0.isFinite ? $0 : nil }, speedMps: speed, courseDeg: f.course,
                          accuracyM: f.accuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }, motion: f.motion, ssid: f.ssid,
                          extra: extra)
        builder.addPoint(point, start: f.start, end: end)
    }

    @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The element name without its namespace prefix (`gpxtpx:speed` → `speed`).
    func localName(_ base: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> String {
        var start = s
        for k in s..<e where base[k] == UInt8(ascii: ":") { start = k + 1 }
        return String(decoding: UnsafeBufferPointer(start: base + start, count: e - start), as: UTF8.self)
    }

    func trimmed(_ bytes: [UInt8]) -> String {
        var s = 0
        var e = bytes.count
        while s < e, isSpace(bytes[s]) { s += 1 }
        while e > s, isSpace(bytes[e - 1]) { e -= 1 }
        return bytes.withUnsafeBufferPointer { decodeEntities($0.baseAddress!, s, e) }
    }

    /// Text with the five predefined entities and numeric character references decoded.
    func decodeEntities(_ base: UnsafePointer<UInt8>, _ s: Int, _ e: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(e - s)
        var k = s
        while k < e {
            if base[k] == UInt8(ascii: "&") {
                var semi = k + 1
                while semi < e, semi - k < 12, base[semi] != UInt8(ascii: ";") { semi += 1 }
                if semi < e, base[semi] == UInt8(ascii: ";") {
                    let entity = String(decoding: UnsafeBufferPointer(start: base + k + 1, count: semi - k - 1), as: UTF8.self)
                    var scalar: UInt32?
                    switch entity {
                    case "amp": scalar = 0x26
                    case "lt": scalar = 0x3C
                    case "gt": scalar = 0x3E
                    case "quot": scalar = 0x22
                    case "apos": scalar = 0x27
                    default:
                        if entity.hasPrefix("#x") { scalar = UInt32(entity.dropFirst(2), radix: 16) } else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst()) }
                    }
                    if let scalar, scalar < 0x110000, !(0xD800...0xDFFF).contains(scalar) {
                        appendUTF8(scalar, to: &out)
                        k = semi + 1
                        continue
                    }
                }
            }
            // A file declared ISO-8859-1 or windows-1252: each byte is a character.
            if singleByteText, base[k] >= 0x80 { appendUTF8(Self.windows1252(base[k]), to: &out) } else { out.append(base[k]) }
            k += 1
        }
        return Self.text(out)
    }

    /// The bytes of an element as they stand, decoded as its text is (a waypoint's raw record keeps its name).
    func rawXML(_ start: Int, _ end: Int) -> String {
        let bytes = UnsafeBufferPointer(start: builder.base + start, count: end - start)
        guard singleByteText else { return Self.text(Array(bytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes { if b >= 0x80 { appendUTF8(Self.windows1252(b), to: &out) } else { out.append(b) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// Text bytes as a string: UTF-8, or, where the bytes are not UTF-8 (a writer that put Latin-1 names in a file
    /// that declares no encoding), each byte a character of windows-1252. Names stay "Café Müller", not
    /// "Caf\u{FFFD} M\u{FFFD}ller".
    static func text(_ bytes: [UInt8]) -> String {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return String(decoding: bytes, as: UTF8.self) }
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 2)
        for b in bytes { appendUTF8(windows1252(b), to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The character of a byte in windows-1252: ISO-8859-1 but for 0x80–0x9F, which Latin-1 files use for `€`,
    /// quotes and dashes, as browsers read them (the five bytes it leaves undefined keep their Latin-1 code).
    static func windows1252(_ byte: UInt8) -> UInt32 {
        byte >= 0x80 && byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
    }

    static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Whether the processing instruction at `start` (`<?xml version="1.0" encoding="ISO-8859-1"?>`, ending before
    /// `end`) is the XML declaration and names a single-byte Western encoding.
    static func declaresSingleByteEncoding(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let declaration = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self).lowercased()
        guard declaration.hasPrefix("<?xml"), let at = declaration.range(of: "encoding") else { return false }
        let rest = declaration[at.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0 == "\t" }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return ["iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252"]
            .contains(String(name))
    }

    /// An `xsd:decimal` (or a double in decimal form) as GPX writes coordinates and `ele`: XML white space around
    /// it is allowed (the schema collapses it); anything but a whole decimal number is nil
    /// (``JSONParser/parseDecimalText(_:_:)``), never a prefix of it or 0.
    func parseNumber(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { buf -> Double? in
            var a = 0, b = buf.count
            func space(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
            while a < b, space(buf[a]) { a += 1 }
            while b > a, space(buf[b - 1]) { b -= 1 }
            guard b > a else { return nil }
            return JSONParser.parseDecimalText(buf.baseAddress! + a, b - a)
        }
    }
}
