#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Reads JSON location archives: Overland (one POST body, JSON lines of bodies, an array of bodies, a bare
/// FeatureCollection, arrays or lines of features) and OwnTracks JSON (one message, an array, JSON lines, the
/// Recorder API's `{"data":[...]}` output with `username`/`device`).
///
/// The arrays that hold the records (`locations`, `features`, `data`) are streamed element by element, so a file
/// cut mid-write keeps every complete record before the cut (one `truncated` reject marks the cut) and memory
/// stays bounded by the largest single record. After a syntax error the reader resumes at the next line that
/// starts with `{` or `[` (JSON lines), so one bad line costs one reject.
public struct JSONArchiveReader {
    var builder: RecordBuilder
    var itemTape = JSONTape()
    var elementTape = JSONTape()
    /// The direct Overland scanner's reused state, and how many records in a row it gave up on.
    let scratch = OverlandScratch()
    var fastMisses = 0
    /// Whether the direct scanner is tried at all (tests compare its results with the tape path's), and how many
    /// records it read.
    var useScanner = true
    var scannedRecords = 0
    var topLevelValues = 0
    var layout = ""
    var unknownItems = 0
    let bytes: UnsafeRawBufferPointer
    var recordStart = 0
    /// The array being streamed (`locations`, `timelineObjects`, `semanticSegments`, …), empty at the top level.
    var container = ""
    /// `records`, `semantic`, `timeline` or `ios`, once a Google record was seen.
    var googleLayout = ""

    /// - Parameters:
    ///   - bytes: the file's content; it must stay valid during ``read()``.
    ///   - sink: receives full batches (when `context.batchSize > 0`); nil keeps everything in the result.
    public init(bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink? = nil) {
        self.bytes = bytes
        builder = RecordBuilder(context: context, bytes: bytes, sink: sink)
    }

    /// Parses `bytes` (pure; no database) and returns points, events and rejects.
    public static func parse(_ bytes: [UInt8], context: ReadContext = .memory()) -> ParseOutput {
        bytes.withUnsafeBytes { raw in
            var reader = JSONArchiveReader(bytes: raw, context: context)
            return reader.read()
        }
    }

    public mutating func read() -> ParseOutput {
        var p = JSONParser(bytes, lenient: true)
        if p.count >= 3, p.base[0] == 0xEF, p.base[1] == 0xBB, p.base[2] == 0xBF { p.pos = 3 }
        p.skipWhitespace()
        if p.atEnd {
            builder.out.format = "json"
            builder.reject(.emptyFile, "the file holds no JSON value", start: 0, end: 0)
            return finish()
        }
        var lastTopEnd = -1
        var sawNewlineBetween = false
        while true {
            p.skipWhitespace()
            if p.atEnd { break }
            // A byte-order mark before a later value: files saved with one each and joined by `cat` (JSON lines).
            if Self.isByteOrderMark(p, at: p.pos) {
                p.pos += 3
                continue
            }
            let start = p.pos
            if lastTopEnd >= 0 {
                for i in lastTopEnd..<start where p.base[i] == 0x0A { sawNewlineBetween = true }
            }
            recordStart = start
            do throws(JSONError) {
                switch p.base[p.pos] {
                case UInt8(ascii: "["): try topArray(&p)
                case UInt8(ascii: "{"): try item(&p)
                default: throw p.unexpected()
                }
                topLevelValues += 1
                lastTopEnd = p.pos
            } catch {
                if !syntaxError(error, &p) { break }
            }
        }
        if layout.isEmpty || (topLevelValues > 1 && sawNewlineBetween) {
            layout = topLevelValues > 1 ? "jsonl" : layout
        }
        return finish()
    }

    mutating func finish() -> ParseOutput {
        if builder.unlistedUnknown > 0 && builder.recognized > 0 {
            builder.out.rejects.append(RejectRecord(line: nil, byteOffset: 0, reason: .unknownRecord,
                detail: "\(builder.unlistedUnknown) more records that are neither Overland nor OwnTracks (not listed one by one)", excerpt: nil))
        }
        var out = builder.out
        let family = builder.sawOverland ? "overland" : (builder.sawOwnTracks ? "owntracks-json" : (builder.sawGoogle ? "google" : "json"))
        if builder.sawGoogle && !builder.sawOverland && !builder.sawOwnTracks {
            // Google's layouts are named after the file they come from.
            out.format = "google/" + (googleLayout.isEmpty ? "records" : googleLayout)
        } else {
            out.format = layout.isEmpty ? family : family + "/" + layout
        }
        if out.fatal == nil, let reason = builder.notAnArchive() {
            out.fatal = reason
            out.notArchive = reason.hasPrefix("valid JSON, but not")
            out.format = "json"
            out.rejects.removeAll()
            out.points.removeAll()
            out.positions.removeAll()
            out.events.removeAll()
        }
        builder.out = ParseOutput()
        return out
    }

    /// Whether the UTF-8 byte-order mark (EF BB BF) starts at `at`.
    static func isByteOrderMark(_ p: JSONParser, at i: Int) -> Bool {
        i + 3 <= p.count && p.base[i] == 0xEF && p.base[i + 1] == 0xBB && p.base[i + 2] == 0xBF
    }

    /// Records a syntax error as a reject and moves past it. Returns false when nothing more can be read.
    mutating func syntaxError(_ error: JSONError, _ p: inout JSONParser) -> Bool {
        let start = recordStart
        var resume: Int? = nil
        // Resume at the next line that starts with '{' or '[' in column 0 (JSON lines), after a byte-order mark if the
        // line has one.
        var i = max(error.offset, start)
        while i < p.count {
            if p.base[i] == 0x0A {
                let first = Self.isByteOrderMark(p, at: i + 1) ? i + 4 : i + 1
                if first < p.count, p.base[first] == UInt8(ascii: "{") || p.base[first] == UInt8(ascii: "[") {
                    resume = first
                    break
                }
            }
            i += 1
        }
        let end = resume ?? p.count
        let binary = (start..<min(end, start + 4096)).contains { p.base[$0] == 0 }
        let reason: RejectReason = error.atEnd ? .truncated : (binary ? .binaryData : .invalidJSON)
        var detail = error.atEnd
            ? "the file ends inside this record (cut mid-write?): \(error.message)"
            : "\(error.message) at byte \(error.offset)"
        if !error.atEnd {
            detail += resume != nil ? "; skipped to the next line that starts a record (byte \(end))" : "; the rest of the file (\(p.count - start) bytes) could not be read"
        }
        builder.reject(reason, detail, start: start, end: end)
        guard let resume else { return false }
        p.pos = resume
        return true
    }

    /// A damaged array element: rejected, and `p` moved to the next element if one can be found (else `error`).
    mutating func skipDamaged(_ p: inout JSONParser, start: Int, error: JSONError) throws(JSONError) {
        guard !error.atEnd, let next = nextElement(p, start: start, error: error) else { throw error }
        builder.reject(.invalidJSON, "\(error.message) at byte \(error.offset); skipped to the next element (byte \(next))",
                       start: start, end: next)
        p.pos = next
    }

    /// Where the element after a damaged one starts: the next place after the error where the same first bytes as
    /// the damaged element's (up to 12, as one encoder writes every element alike) follow a comma. Nil if none.
    func nextElement(_ p: JSONParser, start: Int, error: JSONError) -> Int? {
        let prefixLength = min(12, max(0, error.offset - start))
        guard prefixLength >= 2 else { return nil }
        let first = p.base[start]
        var i = max(error.offset, start + 1)
        while i + prefixLength <= p.count {
            guard let hit = memchr(p.base + i, Int32(first), p.count - i) else { return nil }
            let k = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p.base
            if k + prefixLength <= p.count, memcmp(p.base + k, p.base + start, prefixLength) == 0 {
                var b = k - 1
                while b > start, p.base[b] == 0x20 || p.base[b] == 0x0A || p.base[b] == 0x0D || p.base[b] == 0x09 { b -= 1 }
                if p.base[b] == UInt8(ascii: ",") { return k }
            }
            i = k + 1
        }
        return nil
    }

    /// A top-level array: of Overland bodies, features or OwnTracks messages.
    mutating func topArray(_ p: inout JSONParser) throws(JSONError) {
        p.pos += 1
        if layout.isEmpty { layout = "array" }
        if p.closesEmpty(UInt8(ascii: "]")) { return }
        while true {
            p.skipWhitespace()
            guard !p.atEnd else { throw p.unexpected() }
            recordStart = p.pos
            if p.base[p.pos] == UInt8(ascii: "{") {
                let start = p.pos
                do throws(JSONError) {
                    try item(&p)
                } catch {
                    try skipDamaged(&p, start: start, error: error)
                    continue
                }
            } else {
                let start = p.pos
                elementTape.removeAll()
                try p.value(into: &elementTape, depth: 1)
                unknownItems += 1
                builder.reject(.unknownRecord, "an array element that is not an object", start: start, end: p.pos)
            }
            if try p.endOfMember(close: UInt8(ascii: "]")) { return }
        }
    }

    /// One object at the top level (or in a top-level array). Its `locations`, `features` or `data` array is
    /// streamed; everything else is kept on `itemTape`.
    // Long by design: one pass over an object's members, streaming its arrays of records as they come (a repeated one
    // rejected element by element) and keeping the rest on the tape for the object's own checks.
    mutating func item(_ p: inout JSONParser) throws(JSONError) {
        let start = p.pos
        recordStart = start
        itemTape.removeAll()
        itemTape.nodes.append(JSONNode(kind: .object, flags: 0, start: start, end: start, next: 0, count: 0))
        p.pos += 1
        var n: Int32 = 0
        var streamed = false
        var streamedKey = ""
        var streamedElements = 0
        var streamedKeys: [String] = []
        if !p.closesEmpty(UInt8(ascii: "}")) {
            while true {
                p.skipWhitespace()
                guard !p.atEnd else { throw p.unexpected() }
                guard p.base[p.pos] == UInt8(ascii: "\"") else { throw p.fail("expected a string key in object") }
                let keyIndex = itemTape.nodes.count
                try p.string(into: &itemTape)
                p.skipWhitespace()
                guard !p.atEnd, p.base[p.pos] == UInt8(ascii: ":") else { throw p.atEnd ? p.unexpected() : p.fail("expected ':' after object key") }
                p.pos += 1
                p.skipWhitespace()
                let key = itemTape.nodes[keyIndex]
                let streamKey = p.equals(key, "locations") || p.equals(key, "features") || p.equals(key, "data")
                    || p.equals(key, "timelineObjects") || p.equals(key, "semanticSegments") || p.equals(key, "rawSignals")
                if streamKey, !p.atEnd, p.base[p.pos] == UInt8(ascii: "["), streamedKeys.contains(p.string(key)) {
                    // The same array key twice in one object (`"locations":[…],"locations":[…]`): which array the
                    // app meant is unknowable. The first was read as it came; every element of this one is rejected
                    // (`duplicate_key`), so nothing is imported twice silently and the summary says how many. The key
                    // leaves the object's tape, so its own duplicate check judges only the other keys.
                    let name = p.string(key)
                    itemTape.nodes.removeSubrange(keyIndex...)
                    container = name
                    defer { container = "" }
                    try streamArray(&p, key: name, repeated: true)
                    recordStart = start
                    if try p.endOfMember(close: UInt8(ascii: "}")) { break }
                    continue
                } else if streamKey, !p.atEnd, p.base[p.pos] == UInt8(ascii: "[") {
                    // A placeholder for the streamed array (its elements are handled one by one).
                    itemTape.nodes.append(JSONNode(kind: .array, flags: 0, start: p.pos, end: p.pos, next: Int32(itemTape.nodes.count + 1), count: 0))
                    streamed = true
                    streamedKey = p.string(key)
                    streamedKeys.append(streamedKey)
                    container = streamedKey
                    defer { container = "" }
                    streamedElements = try streamArray(&p, key: streamedKey)
                    recordStart = start
                } else {
                    try p.value(into: &itemTape, depth: 1)
                }
                n += 1
                if try p.endOfMember(close: UInt8(ascii: "}")) { break }
            }
        }
        p.close(&itemTape, 0, members: n)
        if n > 1 && p.hasDuplicateKeys(itemTape, object: 0) {
            itemTape.nodes[0].flags |= JSONNode.Flags.duplicateKey
            itemTape.problems |= JSONNode.Flags.duplicateKey
        }
        let end = p.pos
        if streamed {
            if itemTape.nodes[0].flags & JSONNode.Flags.duplicateKey != 0 {
                // Another key twice beside the streamed records (`"current"` twice): its records stand, the object's
                // own values (Overland's batch objects) are not read.
                builder.reject(.duplicateKey, "the object holding the '\(streamedKey)' records has another key twice; which value is right is "
                               + "unknowable, so its other values (such as Overland's 'current' and 'trip') were not read", start: start, end: end)
            }
            if streamedElements == 0, !builder.sawOverland, !builder.sawOwnTracks,
               streamedKey == "timelineObjects" || streamedKey == "semanticSegments" || streamedKey == "rawSignals"
            {
                // A month with nothing in it, or the Timeline.json of a phone that kept no history
                // (`{"semanticSegments":[],"rawSignals":[]}`): Google's file, empty, as an empty Overland body is
                // Overland's (before, "valid JSON, but not a location archive", and the import failed).
                builder.sawGoogle = true
                builder.recognized += 1
                if googleLayout.isEmpty { googleLayout = streamedKey == "timelineObjects" ? "semantic" : "timeline" }
            }
            if builder.sawGoogle && !builder.sawOverland {
                // Records.json, a Semantic Location History month or Timeline.json: no Overland batch objects.
                return
            }
            if streamedKey == "locations" && builder.sawOwnTracks && !builder.sawOverland {
                // OwnTracks messages in a `locations` array (`{"count":N,"locations":[…]}`, as the Recorder's API
                // answers): no Overland batch, so no batch-level `current` or `trip` objects either.
                if layout.isEmpty { layout = "locations" }
            } else if streamedKey == "locations" {
                // An empty Overland POST body is still an Overland record (its elements count on their own).
                if streamedElements == 0 { builder.recognized += 1 }
                if layout.isEmpty || layout == "array" { layout = layout == "array" ? "array" : "body" }
                if itemTape.nodes[0].flags & JSONNode.Flags.duplicateKey == 0 { batchObjects(p, start: start, end: end) }
            } else if streamedKey == "features" {
                if layout.isEmpty { layout = "featurecollection" }
            } else if layout.isEmpty {
                layout = "api"
            }
            return
        }
        record(p, itemTape, 0, start: start, end: end)
    }

    /// The batch-level `current` and `trip` objects of an Overland POST body, kept as app events.
    mutating func batchObjects(_ p: JSONParser, start: Int, end: Int) {
        builder.sawOverland = true
        builder.members(itemTape, 0) { k, v in
            let node = itemTape.nodes[v]
            guard node.kind == .object else { return }
            if p.equals(k, "current") {
                pending.append((v, .current))
            } else if p.equals(k, "trip") {
                pending.append((v, .tripProgress))
            }
        }
        for (v, kind) in pending {
            let node = itemTape.nodes[v]
            if kind == .current {
                builder.overlandFeature(p, itemTape, v, start: node.start, end: node.end, eventKind: .current)
            } else {
                tripProgress(p, v)
            }
        }
        pending.removeAll()
    }

    var pending: [(Int, AppEventKind)] = []

    /// Overland's `trip` object (the trip in progress when the batch was sent).
    mutating func tripProgress(_ p: JSONParser, _ v: Int) {
        let node = itemTape.nodes[v]
        let b = builder
        let device = builder.fallbackDevice(source: "overland")
        var event = ParsedEvent(device: device, kind: .tripProgress, raw: b.rawText(node.start, node.end))
        event.startMs = b.isoTime(p, itemTape, b.member(p, itemTape, v, "start"))?.ms
        event.distanceM = b.number(p, itemTape, b.member(p, itemTape, v, "distance"))
        event.mode = b.text(p, itemTape, b.member(p, itemTape, v, "mode"))
        if let current = b.member(p, itemTape, v, "current_location"), itemTape.nodes[current].kind == .object {
            if let props = b.member(p, itemTape, current, "properties") {
                let time = b.isoTime(p, itemTape, b.member(p, itemTape, props, "timestamp"))
                event.timeMs = time?.ms
                event.utcOffsetS = time?.offsetSeconds
                if let name = b.text(p, itemTape, b.member(p, itemTape, props, "device_id")) {
                    event.device = builder.out.deviceIndex(ParsedDevice(name: name, source: "overland", origin: .deviceID))
                }
            }
            if case .some(.some(let c)) = b.coordinates(p, itemTape, b.member(p, itemTape, current, "geometry")) {
                event.lat = c.lat
                event.lon = c.lon
            }
        }
        if event.timeMs == nil { event.timeMs = event.startMs }
        builder.addEvent(event, start: node.start, end: node.end)
    }

    /// Streams the elements of a `locations` / `features` / `data` array.
    /// Returns how many elements it saw. With `repeated` (the object's second array of that key), every element is
    /// rejected as `duplicate_key` instead of read.
    @discardableResult
    mutating func streamArray(_ p: inout JSONParser, key: String, repeated: Bool = false) throws(JSONError) -> Int {
        p.pos += 1
        if p.closesEmpty(UInt8(ascii: "]")) { return 0 }
        var elements = 0
        while true {
            elements += 1
            p.skipWhitespace()
            let start = p.pos
            recordStart = start
            if repeated {
                elementTape.removeAll()
                do throws(JSONError) {
                    try p.value(into: &elementTape, depth: 2)
                } catch {
                    try skipDamaged(&p, start: start, error: error)
                    continue
                }
                builder.reject(.duplicateKey, "an element of a second '\(key)' array in the same object: the key appears twice, so which "
                               + "array the app meant is unknowable; the first '\(key)' array was read, this one is not", start: start, end: p.pos)
                builder.flushIfFull()
                if try p.endOfMember(close: UInt8(ascii: "]")) { return elements }
                continue
            }
            if useScanner, fastMisses < JSONArchiveReader.fastMissLimit, fastOverland(&p, start: start) {
                if try p.endOfMember(close: UInt8(ascii: "]")) { return elements }
                continue
            }
            elementTape.removeAll()
            do throws(JSONError) {
                try p.value(into: &elementTape, depth: 2)
            } catch {
                try skipDamaged(&p, start: start, error: error)
                continue
            }
            record(p, elementTape, 0, start: start, end: p.pos)
            if try p.endOfMember(close: UInt8(ascii: "]")) { return elements }
        }
    }

    /// How many records in a row the direct Overland scanner may give up on before a stream stops trying it (a
    /// Google `locations` array, OwnTracks `data`): it is only worth its cost where most records are plain features.
    static let fastMissLimit = 16

    /// The element at `start` read by the direct scanner (``JSONParser/scanOverlandFeature(_:_:)``) when it is a
    /// plain Overland location: true when it was (its point or reject is made, `p` is past it); false with `p` back at
    /// `start` otherwise, for the tape path, which reads anything the scanner gives up on exactly as it always did.
    mutating func fastOverland(_ p: inout JSONParser, start: Int) -> Bool {
        var fields = OverlandFields()
        guard p.scanOverlandFeature(&fields, scratch), let lon = fields.lon, let lat = fields.lat else {
            p.pos = start
            fastMisses += 1
            return false
        }
        fastMisses = 0
        scannedRecords += 1
        builder.sawOverland = true
        builder.recognized += 1
        let device = builder.overlandDevice(p, fields.deviceID)
        let time = builder.isoTime(p, fields.timestamp)
        let coordinates = (lat: p.double(lat), lon: p.double(lon), alt: fields.alt.map { p.double($0) })
        builder.overlandLocation(p, fields, device: device, time: time, coordinates: .some(.some(coordinates)), start: start, end: p.pos)
        builder.flushIfFull()
        return true
    }

    /// One record: an Overland feature or an OwnTracks message; anything else is rejected as unknown.
    mutating func record(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int) {
        defer { builder.flushIfFull() }
        if builder.isOwnTracks(p, tape, index) {
            builder.ownTracksMessage(p, tape, index, start: start, end: end, pathDevice: nil, lineTimeMs: nil)
        } else if builder.isFeature(p, tape, index) {
            builder.overlandFeature(p, tape, index, start: start, end: end)
        } else if let kind = builder.googleKind(p, tape, index) {
            if googleLayout.isEmpty {
                switch container {
                case "locations": googleLayout = "records"
                case "timelineObjects": googleLayout = "semantic"
                case "semanticSegments", "rawSignals": googleLayout = "timeline"
                default: googleLayout = kind == .segment ? "ios" : "records"
                }
            }
            builder.googleRecord(p, tape, index, kind: kind, start: start, end: end)
        } else {
            unknownItems += 1
            // In Google's own arrays the Overland and OwnTracks words would mislead: say what Google writes there.
            let detail = switch container {
            case "timelineObjects": "neither a Google placeVisit nor an activitySegment"
            case "semanticSegments": "not a Google segment (a startTime with a visit, activity, timelinePath or timelineMemory)"
            case "rawSignals": "not a Google raw signal (a position, activityRecord or wifiScan)"
            case "locations" where builder.sawGoogle && !builder.sawOverland && !builder.sawOwnTracks:
                "not a Google location record (no latitudeE7/longitudeE7)"
            default: "neither an Overland feature (no 'properties') nor an OwnTracks message (no '_type')"
            }
            builder.reject(.unknownRecord, detail, start: start, end: end)
        }
    }
}
