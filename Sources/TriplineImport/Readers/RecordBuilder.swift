#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore


/// Turns parsed JSON records (Overland features, OwnTracks messages) into points, app events and rejects.
/// Shared by the JSON reader and the Recorder `.rec` reader.
struct RecordBuilder {
    var context: ReadContext
    var out = ParseOutput()
    var sink: BatchSink?
    /// Records recognised as Overland or OwnTracks (a file with none is not a location archive).
    var recognized = 0
    var sawOverland = false
    var sawOwnTracks = false
    /// A Google location-history record was seen (see TakeoutRecords.swift).
    var sawGoogle = false
    var googleDeviceIndex: Int?
    /// `Records.json`'s device tags, counted when the first tagged location is read (TakeoutRecords.swift).
    var googleTags: GoogleDeviceTags?
    // Incremental line counting (offsets only ever grow within a file).
    var lineOffset = 0
    var lineNumber = 1
    let base: UnsafePointer<UInt8>
    let count: Int
    var fallbackIndex: Int?
    var lastOwnTracksDevice: Int?
    var rejectTotal = 0
    var structuralRejects = 0
    var unlistedUnknown = 0
    var firstReject: RejectRecord?
    /// The first reject that says the bytes are not well-formed (a syntax error, binary bytes, a cut), if any.
    var firstSyntaxError: RejectRecord?
    var lastOverlandDevice: (raw: [UInt8], index: Int)?
    var scratch: [UInt8] = []
    /// With ``ReadContext/encodeCold``: encodes each point's `cold` object into ``ParseOutput/cold``.
    let coldEncoder: ColdBuffer?

    init(context: ReadContext, bytes: UnsafeRawBufferPointer, sink: BatchSink?) {
        self.context = context
        coldEncoder = context.encodeCold ? ColdBuffer() : nil
        self.sink = sink
        self.base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONParser.emptyByte
        self.count = bytes.count
        scratch.reserveCapacity(256)
    }

    /// The 1-based line of `offset` (offsets must not go backwards by much; a backwards one is recounted).
    mutating func line(at offset: Int) -> Int {
        if offset < lineOffset {
            lineOffset = 0
            lineNumber = 1
        }
        var i = lineOffset
        var n = lineNumber
        let end = min(offset, count)
        while i < end, let hit = memchr(base + i, 0x0A, end - i) {
            n += 1
            i = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base + 1
        }
        lineOffset = end
        lineNumber = n
        return n
    }

    /// Checks a record's time and position (``Validate/point``); false after rejecting the record when they fail.
    @inline(__always)
    mutating func acceptPoint(timeMs: Int64, lat: Double, lon: Double, start: Int, end: Int) -> Bool {
        guard let (reason, detail) = Validate.point(timeMs: timeMs, lat: lat, lon: lon, nowMs: context.nowMs) else { return true }
        reject(reason, detail, start: start, end: end)
        return false
    }

    /// Adds an app event (a visit, trip, waypoint, region transition, …) after the checks a point gets
    /// (``Validate/event(_:nowMs:)``, docs/IMPORT.md "App events are checked as points are"): an event whose own time
    /// or position a point could not have, or that ends before it starts, is rejected with its reason; a start, end or
    /// distance no journey can have is dropped from the kept event, with a row saying so.
    mutating func addEvent(_ event: consuming ParsedEvent, start: Int, end: Int) {
        if let (reason, detail) = Validate.event(event.row, nowMs: context.nowMs) {
            reject(reason, detail, start: start, end: end)
            return
        }
        for (bound, label) in [(\AppEventRow.startMs, "start"), (\AppEventRow.endMs, "end")] {
            guard let ms = event.row[keyPath: bound], let (reason, detail) = Validate.time(ms, nowMs: context.nowMs) else { continue }
            event.row[keyPath: bound] = nil
            reject(reason, "the \(label) \(detail); the \(event.row.kind.rawValue) was kept without it", start: start, end: end)
        }
        if let distance = event.row.distanceM, let detail = Validate.eventDistance(distance, startMs: event.row.startMs, endMs: event.row.endMs) {
            event.row.distanceM = nil
            reject(.measureOutOfRange, "distance \(detail); the \(event.row.kind.rawValue) was kept without it", start: start, end: end)
        }
        out.events.append(event)
    }

    /// A record's position as a reader found it, telling none (nil) from something that is not a position
    /// (`.some(nil)`): the position, or nil after rejecting the record as `missing_coordinates` (with `missing`) or
    /// `invalid_coordinates` (with `invalid`).
    @inline(__always)
    mutating func position<Position>(_ found: Position??, missing: String, invalid: String, start: Int, end: Int) -> Position? {
        guard let found else {
            reject(.missingCoordinates, missing, start: start, end: end)
            return nil
        }
        guard let position = found else {
            reject(.invalidCoordinates, invalid, start: start, end: end)
            return nil
        }
        return position
    }

    mutating func reject(_ reason: RejectReason, _ detail: String, start: Int, end: Int) {
        rejectTotal += 1
        switch reason {
        case .invalidJSON, .truncated, .unknownRecord, .binaryData, .invalidLine, .invalidXML: structuralRejects += 1
        default: break
        }
        // JSON of another kind (say a huge Google export) must not pile up rejects: when nothing at all has been
        // recognised, only the first hundred unknown records are listed.
        if reason == .unknownRecord, recognized == 0, structuralRejects > 100 {
            unlistedUnknown += 1
            return
        }
        let line = self.line(at: start)
        let e = min(max(end, start), count)
        let record = RejectRecord(line: line, byteOffset: start, reason: reason, detail: detail,
                                  excerpt: start < count ? Validate.excerpt(base + start, e - start) : nil)
        if firstReject == nil { firstReject = record }
        if firstSyntaxError == nil, reason == .invalidJSON || reason == .binaryData || reason == .truncated || reason == .invalidXML {
            firstSyntaxError = record
        }
        out.rejects.append(record)
        flushIfFull()
    }

    /// Hands the output to the sink once a batch's worth of points, events and rejects has gathered.
    mutating func flushIfFull() {
        if context.batchSize > 0, out.points.count + out.rejects.count + out.events.count >= context.batchSize, let sink { sink(&out) }
    }

    /// Whether the file, having recognised nothing, is not a location archive; the message says why.
    func notAnArchive() -> String? {
        guard recognized == 0 else { return nil }
        if rejectTotal == 0 {
            return "valid JSON, but not a location archive: no Overland feature, OwnTracks message or Google location record in it"
        }
        guard rejectTotal == structuralRejects, let first = firstReject else { return nil }
        if first.reason == .emptyFile { return nil }
        // Only JSON without a syntax error is "valid JSON": a file whose records are damaged says what is wrong and
        // where, even when a value before the damage parsed (random bytes after `{"locations":[` often start with one).
        let more = rejectTotal > 1 ? "; \(rejectTotal) damaged or unknown records in all" : ""
        if let syntax = firstSyntaxError {
            return "not a location archive (no record in it could be read): \(syntax.detail) (line \(syntax.line ?? 0), byte \(syntax.byteOffset))\(more)"
        }
        if first.reason == .unknownRecord {
            return "valid JSON, but not a location archive: no Overland feature, OwnTracks message or Google location record in it"
        }
        return "not a location archive: \(first.detail) (line \(first.line ?? 0), byte \(first.byteOffset))\(more)"
    }

    mutating func fallbackDevice(source: String) -> Int {
        if let fallbackIndex { return fallbackIndex }
        let fallback = context.fallbackDevice
        let i = source == "gpx" && fallback.origin == .file && !(context.folderDevice ?? "").isEmpty
            ? out.deviceIndex(ParsedDevice(name: context.folderDevice!, source: source, origin: .folderOfTheFile))
            : out.deviceIndex(ParsedDevice(name: fallback.name, source: source, origin: fallback.origin))
        fallbackIndex = i
        return i
    }

    /// Rejects a record whose tape has a duplicate key or bad Unicode. Returns true when it did.
    mutating func rejectProblems(_ tape: JSONTape, start: Int, end: Int) -> Bool {
        if tape.problems & JSONNode.Flags.duplicateKey != 0 {
            reject(.duplicateKey, "the record has the same key twice; which value is right is unknowable", start: start, end: end)
            return true
        }
        if tape.problems & JSONNode.Flags.badUnicode != 0 {
            reject(.invalidUTF8, "a string holds bytes that are not valid UTF-8 (or an unpaired surrogate escape)", start: start, end: end)
            return true
        }
        return false
    }

    // MARK: Tape helpers

    /// Calls `body(keyNode, valueIndex)` for each member of the object at `index`.
    @inline(__always)
    func members(_ tape: JSONTape, _ index: Int, _ body: (JSONNode, Int) -> Void) {
        // Through the buffer: a tape is well formed by construction (every `next` is inside it).
        tape.nodes.withUnsafeBufferPointer { nodes in
            let node = nodes[index]
            guard node.kind == .object else { return }
            var child = index + 1
            for _ in 0..<node.count {
                body(nodes[child], child + 1)
                child = Int(nodes[child + 1].next)
            }
        }
    }

    func member(_ p: JSONParser, _ tape: JSONTape, _ index: Int, _ key: StaticString) -> Int? {
        var found: Int?
        members(tape, index) { k, v in if p.equals(k, key) { found = v } }
        return found
    }

    /// A finite number (or a numeric string) at `index`, else nil.
    @inline(__always)
    func number(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> Double? {
        guard let index else { return nil }
        return number(p, tape.nodes[index])
    }

    /// A finite number (or a numeric string) in `node`, else nil.
    @inline(__always)
    func number(_ p: JSONParser, _ node: JSONNode?) -> Double? {
        guard let node else { return nil }
        if node.kind == .number {
            let v = p.double(node)
            return v.isFinite ? v : nil
        }
        if node.kind == .string, node.end > node.start, node.end - node.start < 40, node.flags == 0 {
            let raw = p.raw(node)
            let first = raw[0]
            guard first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10 else { return nil }
            return JSONParser.parseDecimalText(raw.baseAddress!, raw.count)
        }
        return nil
    }

    /// A non-negative measurement (accuracy): negatives (the apps' "-1 = unknown") become nil.
    @inline(__always)
    func measure(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> Double? {
        guard let v = number(p, tape, index), v >= 0 else { return nil }
        return v
    }

    /// As ``measure(_:_:_:)`` for a node.
    @inline(__always)
    func measure(_ p: JSONParser, _ node: JSONNode?) -> Double? {
        guard let v = number(p, node), v >= 0 else { return nil }
        return v
    }

    /// A measure read as ``number(_:_:_:)``, said when it is there but is no number: `"x"`, `"abc"`, `"fast"`, `true`,
    /// `{}` or `1e400` is dropped with an `invalid_measure` row naming `field` and the value, and the record (a `kept`)
    /// is kept without it, as an out-of-range measure is (``addPoint(_:start:end:coldHere:)``). An absent key or `null`
    /// says nothing. (Google's readers dropped such a value without a word.)
    @inline(__always)
    mutating func checkedNumber(_ p: JSONParser, _ tape: JSONTape, _ index: Int?, field: StaticString, kept: String = "point",
                                start: Int, end: Int) -> Double? {
        guard let index else { return nil }
        let node = tape.nodes[index]
        if let v = number(p, node) { return v }
        if node.kind != .null { rejectMeasure(p, node, field: field, kept: kept, start: start, end: end) }
        return nil
    }

    /// The `invalid_measure` row of ``checkedNumber(_:_:_:field:kept:start:end:)`` (out of line: the hot path is the number).
    /// The string `"NaN"` (any case) is an app's "unknown", as -1 is (an iOS app writing an unknown speed so): no row.
    @inline(never)
    mutating func rejectMeasure(_ p: JSONParser, _ node: JSONNode, field: StaticString, kept: String, start: Int, end: Int) {
        if node.kind == .string, p.string(node).lowercased() == "nan" { return }
        let what = node.kind == .number ? "is not a finite number" : node.kind == .string ? "is not a number" : "is not a number but JSON of another kind"
        reject(.invalidMeasure, "\(field) \(p.rawText(node).prefix(60)) \(what); the \(kept) was kept without it", start: start, end: end)
    }

    /// ``checkedNumber(_:_:_:field:kept:start:end:)`` for a member node (the Overland reader's).
    @inline(__always)
    mutating func checkedNumber(_ p: JSONParser, _ node: JSONNode?, field: StaticString, start: Int, end: Int) -> Double? {
        guard let node else { return nil }
        if let v = number(p, node) { return v }
        if node.kind != .null { rejectMeasure(p, node, field: field, kept: "point", start: start, end: end) }
        return nil
    }

    /// ``checkedMeasure(_:_:_:field:start:end:)`` for a member node (the Overland reader's).
    @inline(__always)
    mutating func checkedMeasure(_ p: JSONParser, _ node: JSONNode?, field: StaticString, start: Int, end: Int) -> Double? {
        guard let v = checkedNumber(p, node, field: field, start: start, end: end), v >= 0 else { return nil }
        return v
    }

    /// As ``measure(_:_:_:)`` (a negative value is the apps' "unknown", dropped without a row), with
    /// ``checkedNumber(_:_:_:field:kept:start:end:)``'s row for a value that is no number.
    @inline(__always)
    mutating func checkedMeasure(_ p: JSONParser, _ tape: JSONTape, _ index: Int?, field: StaticString, start: Int, end: Int) -> Double? {
        guard let v = checkedNumber(p, tape, index, field: field, start: start, end: end), v >= 0 else { return nil }
        return v
    }

    @inline(__always)
    func string(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> String? {
        guard let index, tape.nodes[index].kind == .string else { return nil }
        return p.string(tape.nodes[index])
    }

    /// A non-empty string, else nil.
    @inline(__always)
    func text(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> String? {
        guard let index, tape.nodes[index].kind == .string, tape.nodes[index].end > tape.nodes[index].start else { return nil }
        return p.string(tape.nodes[index])
    }

    /// A non-empty string node's text, else nil.
    @inline(__always)
    func text(_ p: JSONParser, _ node: JSONNode?) -> String? {
        guard let node, node.kind == .string, node.end > node.start else { return nil }
        return p.string(node)
    }

    /// An ISO 8601 time string at `index`.
    func isoTime(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> ParsedTime? {
        guard let index, tape.nodes[index].kind == .string else { return nil }
        let node = tape.nodes[index]
        return Timestamp.parseISO8601(p.base + node.start, node.end - node.start)
    }

    /// An ISO 8601 time string node.
    @inline(__always)
    func isoTime(_ p: JSONParser, _ node: JSONNode?) -> ParsedTime? {
        guard let node, node.kind == .string else { return nil }
        return Timestamp.parseISO8601(p.base + node.start, node.end - node.start)
    }

    /// An array of strings joined by commas (Overland `motion`, OwnTracks `motionactivities`).
    func joined(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> String? {
        guard let index, tape.nodes[index].kind == .array, tape.nodes[index].count > 0 else { return nil }
        if tape.nodes[index].count == 1 {
            let only = tape.nodes[index + 1]
            return only.kind == .string ? p.string(only) : nil
        }
        var parts: [String] = []
        var child = index + 1
        for _ in 0..<tape.nodes[index].count {
            if tape.nodes[child].kind == .string { parts.append(p.string(tape.nodes[child])) }
            child = Int(tape.nodes[child].next)
        }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
    }

    /// Appends `"key":<raw value>` to the scratch JSON object being built for `extra`.
    @inline(__always)
    mutating func extra(_ p: JSONParser, _ key: JSONNode, _ value: JSONNode) {
        scratch.append(scratch.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
        scratch.append(contentsOf: UnsafeBufferPointer(start: p.base + key.start - 1, count: key.end - key.start + 2))
        scratch.append(UInt8(ascii: ":"))
        let s = value.kind == .string ? value.start - 1 : value.start
        let e = value.kind == .string ? value.end + 1 : value.end
        scratch.append(contentsOf: UnsafeBufferPointer(start: p.base + s, count: e - s))
    }

    mutating func takeExtra() -> String? {
        guard !scratch.isEmpty else { return nil }
        scratch.append(UInt8(ascii: "}"))
        let text = String(decoding: scratch, as: UTF8.self)
        scratch.removeAll(keepingCapacity: true)
        return text
    }

    func rawText(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
    }

    /// Adds a point and where it was. `coldHere`: encode its `cold` object on this (the parsing) thread when the
    /// context asks for it — done for Overland points, where the scanner leaves the parsing thread the lighter one; a
    /// Google Takeout import's parsing thread is already the busier (docs/PERFORMANCE.md, "Fourth round"), so other
    /// readers leave the encoding to the writer.
    mutating func addPoint(_ point: consuming Point, start: Int, end: Int, coldHere: Bool = false) {
        if let altitude = point.altitudeM, !Validate.altitudeRange.contains(altitude) {
            // An absurd altitude (−1e308 would be a 309-digit GPX <ele>) is dropped; the fix itself is kept.
            point.altitudeM = nil
            reject(.altitudeOutOfRange, "altitude \(altitude) m is outside \(Int(Validate.altitudeRange.lowerBound)) to "
                   + "\(Int(Validate.altitudeRange.upperBound)) m; the point was kept without it", start: start, end: end)
        }
        if let speed = point.speedMps, !(speed <= Validate.maxSpeedMps) {
            point.speedMps = nil
            reject(.measureOutOfRange, "speed \(speed) m/s is above \(Int(Validate.maxSpeedMps)) m/s; the point was kept without it",
                   start: start, end: end)
        }
        if let course = point.courseDeg, !(course <= 360) {
            // A negative course is the apps' "unknown" (iOS writes -1), dropped without a row; one above 360° is no
            // direction.
            point.courseDeg = nil
            if course > 360 {
                reject(.measureOutOfRange, "course \(course)° is above 360°; the point was kept without it", start: start, end: end)
            }
        } else if let course = point.courseDeg, course < 0 {
            point.courseDeg = nil
        }
        if let accuracy = point.accuracyM, !(accuracy <= Validate.maxAccuracyM) {
            point.accuracyM = nil
            reject(.measureOutOfRange, "accuracy \(accuracy) m is above \(Int(Validate.maxAccuracyM)) m; the point was kept without it",
                   start: start, end: end)
        }
        if let accuracy = point.vAccuracyM, !(accuracy <= Validate.maxAccuracyM) {
            point.vAccuracyM = nil
            reject(.measureOutOfRange, "vertical accuracy \(accuracy) m is above \(Int(Validate.maxAccuracyM)) m; the point was kept "
                   + "without it", start: start, end: end)
        }
        let line = self.line(at: start)
        var position = SourcePosition(line: Int32(clamping: line), byteOffset: Int64(start), length: Int32(clamping: end - start))
        if coldHere, let coldEncoder, out.cold.count < Int(Int32.max) - 65_536 {
            // The `cold` column as the writer would encode it (the same code), here on the parsing thread.
            let n = coldEncoder.encode(point)
            position.coldOffset = Int32(out.cold.count)
            position.coldLength = Int32(n)
            out.cold.append(contentsOf: UnsafeBufferPointer(start: coldEncoder.bytes, count: n))
        }
        out.points.append(point)
        out.positions.append(position)
        flushIfFull()
    }
}
