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
            for b in raw where !(b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b | 0x20 == UInt8(ascii: "e") || b == UInt8(ascii: "+")) {
                return nil
            }
            let v = JSONParser.parseDouble(raw.baseAddress!, raw.count)
            return v.isFinite ? v : nil
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

    // MARK: Overland

    /// Whether the object at `index` looks like a GeoJSON Feature (Overland location, action or trip record).
    func isFeature(_ p: JSONParser, _ tape: JSONTape, _ index: Int) -> Bool {
        guard tape.nodes[index].kind == .object else { return false }
        var yes = false
        members(tape, index) { k, v in
            if p.equals(k, "properties") && tape.nodes[v].kind == .object { yes = true }
        }
        return yes
    }

    /// One Overland feature at tape index `index` whose bytes are `start..<end`. (Plain location features in a
    /// streamed array usually come through the direct scanner instead, `JSONParser.scanOverlandFeature`; both end in
    /// ``overlandLocation(_:_:device:time:coordinates:start:end:)``.)
    // Long by design: a parser's single pass over one feature's many keys, kept in one function for speed (no call or allocation per key or point).
    mutating func overlandFeature(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int, eventKind: AppEventKind? = nil) {
        var geometry: Int?
        var properties: Int?
        members(tape, index) { k, v in
            if p.equals(k, "geometry") { geometry = v } else if p.equals(k, "properties") { properties = v }
        }
        guard let properties, tape.nodes[properties].kind == .object else {
            reject(.unknownRecord, "a GeoJSON object without 'properties' is not an Overland record", start: start, end: end)
            return
        }
        sawOverland = true
        recognized += 1
        if eventKind == nil, rejectProblems(tape, start: start, end: end) { return }
        var f = OverlandFields()
        var type: Int?, action: Int?, motion: Int?
        members(tape, properties) { k, v in
            switch Self.overlandProperty(p, k) {
            case .none: break
            case .type: type = v
            case .motion: motion = v
            case .action: action = v
            case let property: _ = f.set(property, key: k, tape.nodes[v])
            }
        }
        let device = overlandDevice(p, f.deviceID)
        let time = isoTime(p, f.timestamp)
        let coordinates = self.coordinates(p, tape, geometry)

        // Non-location records: trip summaries, actions (visits, pauses, terminations), batch-level objects.
        let isTrip = type.map { tape.nodes[$0].kind == .string && p.equals(tape.nodes[$0], "trip") } ?? false
        if eventKind != nil || isTrip || action != nil {
            let kind = eventKind ?? (isTrip ? .trip : (string(p, tape, action).map(AppEventKind.init(rawValue:)) ?? .action))
            var event = ParsedEvent(device: device, kind: kind, timeMs: time?.ms, utcOffsetS: time?.offsetSeconds,
                                    raw: rawText(start, end))
            if case .some(.some(let c)) = coordinates { event.lat = c.lat; event.lon = c.lon }
            if isTrip {
                let startTime = isoTime(p, tape, member(p, tape, properties, "start"))
                let endTime = isoTime(p, tape, member(p, tape, properties, "end"))
                event.startMs = startTime?.ms
                event.endMs = endTime?.ms
                if event.timeMs == nil { event.timeMs = endTime?.ms ?? startTime?.ms; event.utcOffsetS = endTime?.offsetSeconds }
                event.distanceM = number(p, tape, member(p, tape, properties, "distance"))
                event.mode = text(p, tape, member(p, tape, properties, "mode"))
            } else if kind == .visit {
                event.startMs = isoTime(p, tape, member(p, tape, properties, "arrival_date"))?.ms
                event.endMs = isoTime(p, tape, member(p, tape, properties, "departure_date"))?.ms
            }
            out.events.append(event)
            return
        }
        f.motion = joined(p, tape, motion)
        overlandLocation(p, f, device: device, time: time, coordinates: coordinates, start: start, end: end)
    }

    /// The device of an Overland feature: its `device_id`, else --device / the folder or file name.
    @inline(__always)
    mutating func overlandDevice(_ p: JSONParser, _ deviceID: JSONNode?) -> Int {
        guard let node = deviceID, node.kind == .string, node.end > node.start else { return fallbackDevice(source: "overland") }
        // Most files hold one device: compare the raw bytes with the last one before building a String.
        let raw = p.raw(node)
        if let last = lastOverlandDevice, last.raw.count == raw.count,
           last.raw.withUnsafeBufferPointer({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }) {
            return last.index
        }
        let device = out.deviceIndex(ParsedDevice(name: p.string(node), source: "overland", origin: .deviceID))
        lastOverlandDevice = (Array(raw), device)
        return device
    }

    /// An Overland location (not an event): its checks, then the point. Shared by the tape path
    /// (``overlandFeature(_:_:_:start:end:eventKind:)``) and the direct scanner.
    mutating func overlandLocation(_ p: JSONParser, _ f: borrowing OverlandFields, device: Int, time: ParsedTime?,
                                   coordinates: (lat: Double, lon: Double, alt: Double?)??, start: Int, end: Int) {
        guard let timestamp = f.timestamp else {
            reject(.missingTime, "the feature has no 'timestamp'", start: start, end: end)
            return
        }
        guard let time else {
            let shown = timestamp.kind == .string ? "'\(p.string(timestamp).prefix(60))'" : p.rawText(timestamp).prefix(60) + ""
            reject(.invalidTime, "timestamp \(shown) is not an ISO 8601 time", start: start, end: end)
            return
        }
        guard let c = position(coordinates, missing: "the feature has no geometry (and is not an action or trip record)",
                               invalid: "geometry.coordinates is not [lon, lat] with two finite numbers", start: start, end: end),
              acceptPoint(timeMs: time.ms, lat: c.lat, lon: c.lon, start: start, end: end)
        else { return }
        // Kept in `extra` unless -1 (unknown) or null; no array of the three (that would allocate for every point).
        @inline(__always) func keep(_ member: (key: JSONNode, value: JSONNode)?) {
            guard let (key, node) = member else { return }
            if node.kind == .number, let d = number(p, node), d < 0 { return }
            if node.kind == .null { return }
            extra(p, key, node)
        }
        keep(f.speedAccuracy)
        keep(f.courseAccuracy)
        keep(f.uniqueID)
        var speedValue = measure(p, f.speed)

        if let s = speedValue, s > 1000 { speedValue = nil }  // not a phone's speed
        var courseValue = number(p, f.course)
        if let v = courseValue, v < 0 || v > 360 { courseValue = nil }
        let point = Point(
            deviceID: Int64(device), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: c.lat, lon: c.lon,
            altitudeM: number(p, f.altitude) ?? c.alt, speedMps: speedValue, courseDeg: courseValue,
            accuracyM: measure(p, f.hacc), vAccuracyM: measure(p, f.vacc), motion: f.motion,
            batteryLevel: measure(p, f.batteryLevel), batteryState: text(p, f.batteryState), ssid: text(p, f.wifi),
            bssid: text(p, f.bssid), appTripID: text(p, f.tripID), appTripMode: text(p, f.tripMode),
            trigger: nil, conn: nil, extra: takeExtra())
        addPoint(point, start: start, end: end, coldHere: true)
    }

    /// The Overland `properties` keys the builder reads.
    enum OverlandProperty: Int {
        case none, type, wifi, speed, course, motion, action, tripID, altitude, timestamp, deviceID, tripMode, uniqueID, bssid
        case batteryLevel, batteryState, speedAccuracy, courseAccuracy, verticalAccuracy, horizontalAccuracy
    }

    static let overlandProperties: [(StaticString, OverlandProperty)] = [
        ("type", .type), ("wifi", .wifi), ("speed", .speed), ("course", .course), ("motion", .motion), ("action", .action),
        ("trip_id", .tripID), ("altitude", .altitude), ("timestamp", .timestamp), ("device_id", .deviceID), ("trip_mode", .tripMode),
        ("unique_id", .uniqueID), ("wifi_bssid", .bssid), ("battery_level", .batteryLevel), ("battery_state", .batteryState),
        ("speed_accuracy", .speedAccuracy), ("course_accuracy", .courseAccuracy), ("vertical_accuracy", .verticalAccuracy),
        ("horizontal_accuracy", .horizontalAccuracy),
    ]

    /// Which `properties` key `k` is: a perfect hash on (length, first byte, last byte) picks the one candidate,
    /// one comparison confirms it. An escaped key (rare) is decoded and compared with every name.
    @inline(__always)
    static func overlandProperty(_ p: JSONParser, _ k: JSONNode) -> OverlandProperty {
        let n = k.end - k.start
        guard n >= 4 else { return .none }
        if k.flags & JSONNode.Flags.escaped != 0 {
            for (name, key) in overlandProperties where p.equals(k, name) { return key }
            return .none
        }
        let b = p.base + k.start
        let first = b[0]
        let last = b[n - 1]
        let candidate: (StaticString, OverlandProperty)
        switch n {
        case 4: candidate = first == UInt8(ascii: "t") ? ("type", .type) : ("wifi", .wifi)
        case 5: candidate = ("speed", .speed)
        case 6:
            candidate = first == UInt8(ascii: "c") ? ("course", .course) : first == UInt8(ascii: "m") ? ("motion", .motion) : ("action", .action)
        case 7: candidate = ("trip_id", .tripID)
        case 8: candidate = ("altitude", .altitude)
        case 9:
            switch first {
            case UInt8(ascii: "t"): candidate = last == UInt8(ascii: "p") ? ("timestamp", .timestamp) : ("trip_mode", .tripMode)
            case UInt8(ascii: "d"): candidate = ("device_id", .deviceID)
            default: candidate = ("unique_id", .uniqueID)
            }
        case 10: candidate = ("wifi_bssid", .bssid)
        case 13: candidate = last == UInt8(ascii: "l") ? ("battery_level", .batteryLevel) : ("battery_state", .batteryState)
        case 14: candidate = ("speed_accuracy", .speedAccuracy)
        case 15: candidate = ("course_accuracy", .courseAccuracy)
        case 17: candidate = ("vertical_accuracy", .verticalAccuracy)
        case 19: candidate = ("horizontal_accuracy", .horizontalAccuracy)
        default: return .none
        }
        return Self.sameBytes(b, candidate.0.utf8Start, n) ? candidate.1 : .none
    }

    /// Whether the `n` bytes (4 ≤ n ≤ 24) at `a` and `b` are equal: two or three overlapping word loads each,
    /// no call (all loads stay inside the `n` bytes).
    @inline(__always)
    static func sameBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        if n < 8 {
            return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
                && x.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == y.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        }
        if n > 24 { return memcmp(a, b, n) == 0 }
        guard x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self),
              x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        else { return false }
        return n <= 16 || x.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    }

    /// `geometry.coordinates` of a Point: nil when there is no geometry, `.some(nil)` when it is malformed.
    func coordinates(_ p: JSONParser, _ tape: JSONTape, _ geometry: Int?) -> (lat: Double, lon: Double, alt: Double?)?? {
        guard let geometry, tape.nodes[geometry].kind == .object else { return nil }
        guard let c = member(p, tape, geometry, "coordinates") else { return nil }
        guard tape.nodes[c].kind == .array, tape.nodes[c].count >= 2 else { return .some(nil) }
        let a = c + 1
        let b = Int(tape.nodes[a].next)
        guard tape.nodes[a].kind == .number, tape.nodes[b].kind == .number else { return .some(nil) }
        let lon = p.double(tape.nodes[a])
        let lat = p.double(tape.nodes[b])
        var alt: Double?
        if tape.nodes[c].count >= 3 {
            let z = Int(tape.nodes[b].next)
            if tape.nodes[z].kind == .number { alt = p.double(tape.nodes[z]) }
        }
        return .some((lat, lon, alt))
    }

    // MARK: OwnTracks

    /// Whether the object at `index` is an OwnTracks message: it has an OwnTracks `_type`, or it is a location
    /// written without one (`lat`, `lon` and `tst` and no `_type`, as GeoPulse's export writes OwnTracks locations).
    func isOwnTracks(_ p: JSONParser, _ tape: JSONTape, _ index: Int) -> Bool {
        guard tape.nodes[index].kind == .object else { return false }
        if member(p, tape, index, "_type") != nil { return true }
        return member(p, tape, index, "tst") != nil && member(p, tape, index, "lat") != nil && member(p, tape, index, "lon") != nil
    }

    /// The device of an OwnTracks message: `username`/`device` (Recorder API), else the `.rec` path's user/device,
    /// else the `topic` (`owntracks/user/device`), else `tid`, else --device / the file or folder name.
    mutating func ownTracksDevice(_ p: JSONParser, _ tape: JSONTape, _ index: Int, pathDevice: ParsedDevice?) -> Int {
        let user = text(p, tape, member(p, tape, index, "username"))
        let dev = text(p, tape, member(p, tape, index, "device"))
        let tid = text(p, tape, member(p, tape, index, "tid"))
        if let user, let dev {
            return out.deviceIndex(ParsedDevice(name: user + "/" + dev, source: "owntracks", origin: .usernameDevice, tid: tid))
        }
        if let pathDevice { return out.deviceIndex(pathDevice) }
        if let topic = text(p, tape, member(p, tape, index, "topic")) {
            var parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "owntracks" { parts.removeFirst() }
            if parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty {
                return out.deviceIndex(ParsedDevice(name: parts[0] + "/" + parts[1], source: "owntracks", origin: .topic, tid: tid))
            }
        }
        if let tid { return out.deviceIndex(ParsedDevice(name: tid, source: "owntracks", origin: .tid, tid: tid)) }
        // A message that names no device (an `lwt`, a waypoint) belongs to the device last seen in this file.
        if let lastOwnTracksDevice { return lastOwnTracksDevice }
        return fallbackDevice(source: "owntracks")
    }

    /// One OwnTracks message. `lineTimeMs` is the Recorder's receive time (used only when `tst` is missing).
    // Long by design: a parser's single pass over one message's many keys, kept in one function for speed (no call or allocation per key or point).
    mutating func ownTracksMessage(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int,
                                   pathDevice: ParsedDevice?, lineTimeMs: Int64?) {
        sawOwnTracks = true
        recognized += 1
        if rejectProblems(tape, start: start, end: end) { return }
        var type: Int?, tst: Int?, lat: Int?, lon: Int?, acc: Int?, alt: Int?, vac: Int?, vel: Int?, cog: Int?
        var batt: Int?, bs: Int?, trigger: Int?, conn: Int?, ssid: Int?, bssid: Int?, motion: Int?
        members(tape, index) { k, v in
            switch k.end - k.start {
            case 1:
                if p.equals(k, "t") { trigger = v }
            case 3:
                if p.equals(k, "tst") { tst = v } else if p.equals(k, "lat") { lat = v } else if p.equals(k, "lon") { lon = v }
                else if p.equals(k, "acc") { acc = v } else if p.equals(k, "alt") { alt = v } else if p.equals(k, "vac") { vac = v }
                else if p.equals(k, "vel") { vel = v } else if p.equals(k, "cog") { cog = v }
            case 2:
                if p.equals(k, "bs") { bs = v }
            case 4:
                if p.equals(k, "batt") { batt = v } else if p.equals(k, "conn") { conn = v } else if p.equals(k, "SSID") { ssid = v }
            case 5:
                if p.equals(k, "_type") { type = v } else if p.equals(k, "BSSID") { bssid = v }
            case 16:
                if p.equals(k, "motionactivities") { motion = v }
            default: break
            }
        }
        // A message without `_type` that `isOwnTracks` took for one is a location (lat, lon and tst).
        let kind = type == nil ? "location" : string(p, tape, type) ?? ""
        if kind == "encrypted" {
            reject(.encrypted, "an encrypted OwnTracks payload; Tripline cannot decrypt it", start: start, end: end)
            return
        }
        let device = ownTracksDevice(p, tape, index, pathDevice: pathDevice)
        lastOwnTracksDevice = device
        // tst: the fix time, a number or a string of digits.
        var timeMs: Int64?
        var badTime = false
        if let tst {
            let node = tape.nodes[tst]
            if node.kind == .number || node.kind == .string {
                timeMs = Timestamp.parseEpoch(p.base + node.start, node.end - node.start)
            }
            badTime = timeMs == nil
        }
        if kind != "location" {
            var event = ParsedEvent(device: device, kind: kind.isEmpty ? .unknown : AppEventKind(rawValue: kind), timeMs: timeMs ?? lineTimeMs,
                                    raw: rawText(start, end))
            event.lat = number(p, tape, lat)
            event.lon = number(p, tape, lon)
            out.events.append(event)
            return
        }
        if badTime {
            reject(.invalidTime, "tst \(p.rawText(tape.nodes[tst!]).prefix(60)) is not epoch seconds", start: start, end: end)
            return
        }
        guard let time = timeMs ?? lineTimeMs else {
            reject(.missingTime, "the location has no 'tst'", start: start, end: end)
            return
        }
        guard lat != nil, lon != nil else {
            reject(.missingCoordinates, "the location has no 'lat'/'lon'", start: start, end: end)
            return
        }
        // Numbers, or (early OwnTracks apps: "lat":"52.19","lon":"7.68") strings that hold a decimal number.
        let latNode = tape.nodes[lat!], lonNode = tape.nodes[lon!]
        guard latNode.kind == .number || latNode.kind == .string, lonNode.kind == .number || lonNode.kind == .string,
              let latParsed = latNode.kind == .number ? p.double(latNode) : number(p, tape, lat),
              let lonParsed = lonNode.kind == .number ? p.double(lonNode) : number(p, tape, lon)
        else {
            reject(.invalidCoordinates, "'lat'/'lon' are not numbers (or strings holding a number)", start: start, end: end)
            return
        }
        let latValue = latParsed
        let lonValue = lonParsed
        guard acceptPoint(timeMs: time, lat: latValue, lon: lonValue, start: start, end: end) else { return }
        // Extra fields worth keeping, copied as raw JSON.
        members(tape, index) { k, v in
            switch k.end - k.start {
            case 1:
                if p.equals(k, "m") || p.equals(k, "p") { self.extra(p, k, tape.nodes[v]) }
            case 3:
                if p.equals(k, "tid") || p.equals(k, "poi") || p.equals(k, "tag") { self.extra(p, k, tape.nodes[v]) }
            case 6:
                if p.equals(k, "inrids") { self.extra(p, k, tape.nodes[v]) }
            case 9:
                if p.equals(k, "inregions") { self.extra(p, k, tape.nodes[v]) }
            case 10:
                if p.equals(k, "created_at") { self.extra(p, k, tape.nodes[v]) }
            default: break
            }
        }
        var speed: Double?
        if let kmh = number(p, tape, vel), kmh >= 0 { speed = kmh / 3.6 }
        var course = number(p, tape, cog)
        if let c = course, c < 0 || c > 360 { course = nil }
        var battery: Double?
        if let b = number(p, tape, batt), b >= 0, b <= 100 { battery = b / 100 }
        var batteryState: String?
        if let s = number(p, tape, bs) {
            switch s {
            case 1: batteryState = "unplugged"
            case 2: batteryState = "charging"
            case 3: batteryState = "full"
            default: batteryState = "unknown"
            }
        }
        let point = Point(
            deviceID: Int64(device), timeMs: time, utcOffsetS: nil, lat: latValue, lon: lonValue,
            altitudeM: number(p, tape, alt), speedMps: speed, courseDeg: course, accuracyM: measure(p, tape, acc),
            vAccuracyM: measure(p, tape, vac), motion: joined(p, tape, motion), batteryLevel: battery, batteryState: batteryState,
            ssid: text(p, tape, ssid), bssid: text(p, tape, bssid), appTripID: nil, appTripMode: nil,
            trigger: text(p, tape, trigger), conn: text(p, tape, conn), extra: takeExtra())
        addPoint(point, start: start, end: end)
    }
}
