#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Google location history in its four shapes (see docs/IMPORT.md, "Google Takeout"), told apart by content:
///
/// - `Records.json` (Takeout, raw history): `{"locations":[{latitudeE7, longitudeE7, timestamp | timestampMs, …}]}`.
///   Every element is a fix → a point.
/// - `Semantic Location History/YYYY/YYYY_MONTH.json` (Takeout): `{"timelineObjects":[{placeVisit} | {activitySegment}]}`
///   → app events `visit` and `trip` (Google's own reading of the day, compared against the rebuild like an app's
///   trip records). Their `simplifiedRawPath` / `waypointPath` points are not stored as points: they are Google's
///   simplified or road-snapped path, and the raw fixes they were derived from are in `Records.json` of the same
///   export; storing both would count every trip twice. They stay in the event's `raw` JSON.
/// - `Timeline.json` (exported on the phone, 2024+): `{"semanticSegments":[…],"rawSignals":[…]}`. Segments with
///   `visit` / `activity` → app events; `timelinePath` points (`{"point":"48.1°, 11.5°","time":…}`) → points (they are
///   the only stored positions of those days); `rawSignals[].position` (`LatLng`, `timestamp`, accuracy, altitude,
///   speed, source) → points. `activityRecord` and `wifiScan` signals carry no position and are ignored.
/// - iOS `location-history.json` (exported on the phone by Google Maps for iOS): a top-level array of segments with `visit` /
///   `activity` / `timelinePath`, positions as `"geo:lat,lon"`, numbers as strings, and path points timed by
///   `durationMinutesOffsetFromStartTime` from the segment's `startTime`.
///
/// Google files name no device usable for a device row: the device is `--device`, else the folder given on the
/// command line, else `google`. A `Records.json` holds every phone and tablet of the account, told apart only by
/// `deviceTag`; interleaved by time, a tablet at home and the phone on the road would make a trip of every fix. So
/// each tag is a device of its own: the tag with the most fixes in the file keeps the name, every other one is
/// `NAME#TAG` (``googleLocationDevice(_:_:)``). `deviceTag` is kept in `extra` too.
extension RecordBuilder {
    /// The kind of a Google record, told from its keys.
    enum GoogleKind {
        case location, timelineObject, segment, rawSignal
    }

    /// Whether the object at `index` is a Google location-history record, and which.
    func googleKind(_ p: JSONParser, _ tape: JSONTape, _ index: Int) -> GoogleKind? {
        guard tape.nodes[index].kind == .object else { return nil }
        var kind: GoogleKind?
        var hasStart = false
        var segmentBody = false
        members(tape, index) { k, _ in
            switch k.end - k.start {
            case 5: if p.equals(k, "visit") { segmentBody = true }
            case 8:
                if p.equals(k, "activity") { segmentBody = true } else if p.equals(k, "position") || p.equals(k, "wifiScan") { kind = .rawSignal }
            case 9: if p.equals(k, "startTime") { hasStart = true }
            case 10: if p.equals(k, "latitudeE7") { kind = .location } else if p.equals(k, "placeVisit") { kind = .timelineObject }
            case 11: if p.equals(k, "longitudeE7") { kind = .location }
            case 12: if p.equals(k, "timelinePath") { segmentBody = true }
            case 14: if p.equals(k, "timelineMemory") { segmentBody = true } else if p.equals(k, "activityRecord") { kind = .rawSignal }
            case 15: if p.equals(k, "activitySegment") { kind = .timelineObject }
            default: break
            }
        }
        if kind == nil, hasStart, segmentBody { kind = .segment }
        return kind
    }

    /// Reads one Google record (after ``googleKind(_:_:_:)`` said it is one).
    mutating func googleRecord(_ p: JSONParser, _ tape: JSONTape, _ index: Int, kind: GoogleKind, start: Int, end: Int) {
        sawGoogle = true
        recognized += 1
        if rejectProblems(tape, start: start, end: end) { return }
        switch kind {
        case .location: googleLocation(p, tape, index, start: start, end: end)
        case .timelineObject: timelineObject(p, tape, index, start: start, end: end)
        case .segment: semanticSegment(p, tape, index, start: start, end: end)
        case .rawSignal: rawSignal(p, tape, index, start: start, end: end)
        }
    }

    /// The device of every Google record in the file (see the type's comment).
    mutating func googleDevice() -> Int {
        if let googleDeviceIndex { return googleDeviceIndex }
        let fallback = context.fallbackDevice
        // Inside a folder given, the fallback is already the folder holding the export (origin `subfolder`).
        let device = fallback.origin == .file || fallback.origin == .stdin
            ? ParsedDevice(name: "google", source: "google", origin: .googleDefault)
            : ParsedDevice(name: fallback.name, source: "google", origin: fallback.origin)
        let i = out.deviceIndex(device)
        googleDeviceIndex = i
        return i
    }

    /// The device of a `Records.json` location whose `deviceTag` is `tag` (nil: none; see the type's comment).
    mutating func googleLocationDevice(_ p: JSONParser, _ tag: JSONNode?) -> Int {
        guard let tag, tag.kind == .number || tag.kind == .string else { return googleDevice() }
        let raw = p.raw(tag)
        if googleTags == nil {
            googleTags = GoogleDeviceTags(countingIn: UnsafeRawBufferPointer(start: base, count: count), dropPages: context.dropPages)
        }
        if let primary = googleTags!.primary, raw.elementsEqual(primary) { return googleDevice() }
        // Fixes of one device come in runs: the last other tag is compared in place, without a key to hash.
        if let last = googleTags!.last, raw.elementsEqual(last.tag) { return last.index }
        if let i = googleTags!.devices[Array(raw)] {
            googleTags!.last = (Array(raw), i)
            return i
        }
        let baseDevice = out.devices[googleDevice()]
        let text = String(decoding: raw, as: UTF8.self)
        let i = out.deviceIndex(ParsedDevice(name: baseDevice.name + "#" + text, source: "google",
                                             origin: .googleDeviceTag(tag: text, base: baseDevice.name)))
        googleTags!.devices[Array(raw)] = i
        googleTags!.last = (Array(raw), i)
        return i
    }

    // MARK: Values

    /// An E7 coordinate (integer degrees × 10^7). Old exports wrote values above 2^31 as wrapped-around unsigned
    /// 32-bit numbers (a known Google bug): a value beyond ±180° that is back in range after subtracting 2^32 is
    /// read that way.
    func e7(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> Double?? {
        guard let index else { return nil }
        guard let raw = number(p, tape, index), raw == raw.rounded() else { return .some(nil) }
        var v = raw
        if v > 1_800_000_000, v - 4_294_967_296 >= -1_800_000_000 { v -= 4_294_967_296 }
        return .some(v / 1e7)
    }

    /// A time given as ISO 8601 text or as a string (or number) of epoch milliseconds.
    func googleTime(_ p: JSONParser, _ tape: JSONTape, iso: Int?, ms: Int?) -> ParsedTime?? {
        if let iso {
            guard let t = isoTime(p, tape, iso) else { return .some(nil) }
            return .some(t)
        }
        if let ms {
            let node = tape.nodes[ms]
            guard node.kind == .string || node.kind == .number, node.flags & JSONNode.Flags.fractional == 0,
                  let v = JSONParser.parseInt(p.base + node.start, node.end - node.start)
            else { return .some(nil) }
            return .some(ParsedTime(ms: v, offsetSeconds: nil))
        }
        return nil
    }

    /// `"geo:48.123,11.456"`, `"48.123°, 11.456°"` or `"48.123,11.456"` → (lat, lon); nil when it is none of these.
    static func latLng(_ bytes: UnsafeBufferPointer<UInt8>) -> (lat: Double, lon: Double)? {
        var i = 0
        let n = bytes.count
        if n >= 4, bytes[0] == UInt8(ascii: "g"), bytes[1] == UInt8(ascii: "e"), bytes[2] == UInt8(ascii: "o"), bytes[3] == UInt8(ascii: ":") { i = 4 }
        func number() -> Double? {
            while i < n, bytes[i] == 0x20 { i += 1 }
            let s = i
            while i < n {
                let b = bytes[i]
                guard b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") else { break }
                i += 1
            }
            guard i > s, i - s < 40, let v = JSONParser.parseDecimalText(bytes.baseAddress! + s, i - s) else { return nil }
            // A degree sign (U+00B0, C2 B0 in UTF-8) may follow.
            if i + 1 < n, bytes[i] == 0xC2, bytes[i + 1] == 0xB0 { i += 2 }
            while i < n, bytes[i] == 0x20 { i += 1 }
            return v
        }
        guard let lat = number(), i < n, bytes[i] == UInt8(ascii: ",") else { return nil }
        i += 1
        guard let lon = number(), i == n else { return nil }
        return (lat, lon)
    }

    /// A position string at `index`: nil when absent, `.some(nil)` when malformed.
    func latLng(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> (lat: Double, lon: Double)?? {
        guard let index else { return nil }
        let node = tape.nodes[index]
        guard node.kind == .string else { return .some(nil) }
        if node.flags & JSONNode.Flags.escaped != 0 {
            // "48.86\u00b0, 2.33\u00b0": the degree sign written as an escape.
            let decoded = p.decodedBytes(node)
            return .some(decoded.withUnsafeBufferPointer { RecordBuilder.latLng($0) })
        }
        return .some(RecordBuilder.latLng(p.raw(node)))
    }

    /// Google activity names (`IN_PASSENGER_VEHICLE`, `in passenger vehicle`, `WALKING`, …) as Tripline modes.
    static func googleMode(_ raw: String) -> String {
        let key = String(raw.uppercased().map { $0 == " " ? "_" : $0 })
        switch key {
        case "WALKING", "ON_FOOT", "HIKING": return "walk"
        case "RUNNING": return "run"
        case "CYCLING", "ON_BICYCLE": return "cycle"
        case "IN_PASSENGER_VEHICLE", "IN_VEHICLE", "IN_ROAD_VEHICLE", "IN_CAR", "IN_TAXI", "DRIVING", "MOTORCYCLING": return "car"
        case "IN_BUS": return "bus"
        case "IN_TRAIN", "IN_SUBWAY", "IN_TRAM", "IN_RAIL_VEHICLE": return "train"
        case "FLYING": return "plane"
        case "IN_FERRY", "SAILING", "BOATING": return "boat"
        default: return raw.lowercased()
        }
    }

    /// Google's fix-level activity types as Overland motion words (what the trips pass reads), or nil.
    static func googleMotion(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        switch String(decoding: raw, as: UTF8.self) {
        case "STILL": return "stationary"
        case "WALKING", "ON_FOOT": return "walking"
        case "RUNNING": return "running"
        case "ON_BICYCLE": return "cycling"
        case "IN_VEHICLE", "IN_ROAD_VEHICLE", "IN_CAR", "IN_FOUR_WHEELER_VEHICLE", "IN_TWO_WHEELER_VEHICLE", "IN_BUS", "IN_RAIL_VEHICLE": return "driving"
        default: return nil
        }
    }

    // MARK: Records.json

    /// One element of `Records.json`'s `locations`.
    mutating func googleLocation(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int) {
        var lat: Int?, lon: Int?, timestamp: Int?, timestampMs: Int?, accuracy: Int?, altitude: Int?, vacc: Int?
        var velocity: Int?, heading: Int?, activity: Int?, charging: Int?, deviceTag: Int?
        var keep: [Int] = []
        members(tape, index) { k, v in
            switch k.end - k.start {
            case 6: if p.equals(k, "source") { keep.append(v) }
            case 7: if p.equals(k, "heading") { heading = v }
            case 8:
                if p.equals(k, "accuracy") { accuracy = v } else if p.equals(k, "altitude") { altitude = v }
                else if p.equals(k, "velocity") { velocity = v } else if p.equals(k, "activity") { activity = v }
            case 9:
                if p.equals(k, "timestamp") { timestamp = v } else if p.equals(k, "deviceTag") { keep.append(v); deviceTag = v }
            case 10: if p.equals(k, "latitudeE7") { lat = v }
            case 11: if p.equals(k, "longitudeE7") { lon = v } else if p.equals(k, "timestampMs") { timestampMs = v }
            case 12: if p.equals(k, "platformType") { keep.append(v) }
            case 15: if p.equals(k, "batteryCharging") { charging = v }
            case 16: if p.equals(k, "verticalAccuracy") { vacc = v }
            default: break
            }
        }
        let device = googleLocationDevice(p, deviceTag.map { tape.nodes[$0] })
        guard let time = googleTime(p, tape, iso: timestamp, ms: timestampMs) else {
            reject(.missingTime, "the location has no 'timestamp' or 'timestampMs'", start: start, end: end)
            return
        }
        guard let time else {
            let node = tape.nodes[timestamp ?? timestampMs!]
            reject(.invalidTime, "\(timestamp != nil ? "timestamp" : "timestampMs") \(p.rawText(node).prefix(60)) is not \(timestamp != nil ? "an ISO 8601 time" : "epoch milliseconds")",
                   start: start, end: end)
            return
        }
        guard let latE7 = e7(p, tape, lat), let lonE7 = e7(p, tape, lon) else {
            reject(.missingCoordinates, "the location has no 'latitudeE7'/'longitudeE7'", start: start, end: end)
            return
        }
        guard let latValue = latE7, let lonValue = lonE7 else {
            reject(.invalidCoordinates, "'latitudeE7'/'longitudeE7' are not integers", start: start, end: end)
            return
        }
        guard acceptPoint(timeMs: time.ms, lat: latValue, lon: lonValue, start: start, end: end) else { return }
        for v in keep { extra(p, tape.nodes[v - 1], tape.nodes[v]) }
        // The first activity reading's most likely type (Google lists them by confidence).
        var motion: String?
        if let activity, tape.nodes[activity].kind == .array, tape.nodes[activity].count > 0,
           let inner = member(p, tape, activity + 1, "activity"), tape.nodes[inner].kind == .array, tape.nodes[inner].count > 0,
           let type = member(p, tape, inner + 1, "type"), tape.nodes[type].kind == .string
        {
            motion = RecordBuilder.googleMotion(p.raw(tape.nodes[type]))
        }
        // A value that is no number is named in a row (`checkedNumber`); one above the bounds is, by `addPoint`.
        let speed = checkedMeasure(p, tape, velocity, field: "velocity", start: start, end: end)
        let course = checkedNumber(p, tape, heading, field: "heading", start: start, end: end)
        var batteryState: String?
        if let charging, tape.nodes[charging].kind == .bool { batteryState = tape.nodes[charging].count == 1 ? "charging" : "unplugged" }
        let point = Point(
            deviceID: Int64(device), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: latValue, lon: lonValue,
            altitudeM: checkedNumber(p, tape, altitude, field: "altitude", start: start, end: end), speedMps: speed, courseDeg: course,
            accuracyM: checkedMeasure(p, tape, accuracy, field: "accuracy", start: start, end: end),
            vAccuracyM: checkedMeasure(p, tape, vacc, field: "verticalAccuracy", start: start, end: end), motion: motion,
            batteryState: batteryState, extra: takeExtra())
        addPoint(point, start: start, end: end)
    }

    /// An activity's distance (``checkedNumber(_:_:_:field:kept:start:end:)``): a value that is no number is named in
    /// a row only when the event itself will be kept (``addEvent(_:start:end:)`` rejects one whose time or position
    /// fails, and a row saying "kept without it" would then be false).
    mutating func eventDistance(_ p: JSONParser, _ tape: JSONTape, _ index: Int?, field: StaticString, event: ParsedEvent,
                                start: Int, end: Int) -> Double? {
        guard Validate.event(event.row, nowMs: context.nowMs) == nil else { return number(p, tape, index) }
        return checkedNumber(p, tape, index, field: field, kept: event.row.kind.rawValue, start: start, end: end)
    }

    // MARK: Semantic Location History

    /// `startTimestamp`/`endTimestamp` (ISO) or `startTimestampMs`/`endTimestampMs` of a `duration` object.
    func duration(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> (start: ParsedTime?, end: ParsedTime?) {
        guard let index, tape.nodes[index].kind == .object else { return (nil, nil) }
        let s = googleTime(p, tape, iso: member(p, tape, index, "startTimestamp"), ms: member(p, tape, index, "startTimestampMs"))
        let e = googleTime(p, tape, iso: member(p, tape, index, "endTimestamp"), ms: member(p, tape, index, "endTimestampMs"))
        return (s ?? nil, e ?? nil)
    }

    /// The `latitudeE7`/`longitudeE7` of a location object.
    func locationE7(_ p: JSONParser, _ tape: JSONTape, _ index: Int?) -> (lat: Double, lon: Double)? {
        guard let index, tape.nodes[index].kind == .object,
              case .some(.some(let lat)) = e7(p, tape, member(p, tape, index, "latitudeE7")),
              case .some(.some(let lon)) = e7(p, tape, member(p, tape, index, "longitudeE7"))
        else { return nil }
        return (lat, lon)
    }

    /// One element of `timelineObjects`: a `placeVisit` → event `visit`, an `activitySegment` → event `trip`.
    mutating func timelineObject(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int) {
        let device = googleDevice()
        if let visit = member(p, tape, index, "placeVisit"), tape.nodes[visit].kind == .object {
            let (s, e) = duration(p, tape, member(p, tape, visit, "duration"))
            guard let s else {
                reject(.missingTime, "the placeVisit has no valid duration.startTimestamp", start: start, end: end)
                return
            }
            var event = ParsedEvent(device: device, kind: .visit, timeMs: s.ms, utcOffsetS: s.offsetSeconds, startMs: s.ms, endMs: e?.ms,
                                    raw: rawText(start, end))
            if let c = locationE7(p, tape, member(p, tape, visit, "location")) {
                event.lat = c.lat
                event.lon = c.lon
            } else if case .some(.some(let lat)) = e7(p, tape, member(p, tape, visit, "centerLatE7")),
                      case .some(.some(let lon)) = e7(p, tape, member(p, tape, visit, "centerLngE7")) {
                event.lat = lat
                event.lon = lon
            }
            addEvent(event, start: start, end: end)
            return
        }
        guard let segment = member(p, tape, index, "activitySegment"), tape.nodes[segment].kind == .object else {
            reject(.unknownRecord, "a timeline object that is neither a placeVisit nor an activitySegment object", start: start, end: end)
            return
        }
        let (s, e) = duration(p, tape, member(p, tape, segment, "duration"))
        guard let s, let e else {
            reject(.missingTime, "the activitySegment has no valid duration (start and end)", start: start, end: end)
            return
        }
        var event = ParsedEvent(device: device, kind: .trip, timeMs: e.ms, utcOffsetS: e.offsetSeconds, startMs: s.ms, endMs: e.ms,
                                raw: rawText(start, end))
        if let c = locationE7(p, tape, member(p, tape, segment, "endLocation")) {
            event.lat = c.lat
            event.lon = c.lon
        }
        event.distanceM = eventDistance(p, tape, member(p, tape, segment, "distance"), field: "distance", event: event, start: start, end: end)
        if event.distanceM == nil, let path = member(p, tape, segment, "waypointPath"), tape.nodes[path].kind == .object {
            event.distanceM = eventDistance(p, tape, member(p, tape, path, "distanceMeters"), field: "waypointPath.distanceMeters", event: event,
                                            start: start, end: end)
        }
        if let type = text(p, tape, member(p, tape, segment, "activityType")) { event.mode = RecordBuilder.googleMode(type) }
        addEvent(event, start: start, end: end)
    }

    // MARK: Timeline.json and location-history.json

    /// A `semanticSegments` element (Timeline.json) or a top-level element of iOS's location-history.json.
    mutating func semanticSegment(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int) {
        let device = googleDevice()
        guard case .some(.some(let s)) = googleTime(p, tape, iso: member(p, tape, index, "startTime"), ms: nil) else {
            reject(.invalidTime, "the segment's startTime is not an ISO 8601 time", start: start, end: end)
            return
        }
        let e: ParsedTime? = googleTime(p, tape, iso: member(p, tape, index, "endTime"), ms: nil) ?? nil
        if let path = member(p, tape, index, "timelinePath"), tape.nodes[path].kind == .array {
            var child = path + 1
            for _ in 0..<tape.nodes[path].count {
                pathPoint(p, tape, child, segmentStart: s, device: device)
                child = Int(tape.nodes[child].next)
            }
            return
        }
        if let visit = member(p, tape, index, "visit"), tape.nodes[visit].kind == .object {
            var event = ParsedEvent(device: device, kind: .visit, timeMs: s.ms, utcOffsetS: s.offsetSeconds, startMs: s.ms, endMs: e?.ms,
                                    raw: rawText(start, end))
            if let top = member(p, tape, visit, "topCandidate"), tape.nodes[top].kind == .object {
                // Timeline.json: "placeLocation":{"latLng":"48.1°, 11.5°"}; iOS: "placeLocation":"geo:48.1,11.5".
                var location = member(p, tape, top, "placeLocation")
                if let l = location, tape.nodes[l].kind == .object { location = member(p, tape, l, "latLng") }
                if case .some(.some(let c)) = latLng(p, tape, location) {
                    event.lat = c.lat
                    event.lon = c.lon
                }
            }
            addEvent(event, start: start, end: end)
            return
        }
        if let activity = member(p, tape, index, "activity"), tape.nodes[activity].kind == .object {
            guard let e else {
                reject(.missingTime, "the activity segment has no valid endTime", start: start, end: end)
                return
            }
            var event = ParsedEvent(device: device, kind: .trip, timeMs: e.ms, utcOffsetS: e.offsetSeconds, startMs: s.ms, endMs: e.ms,
                                    raw: rawText(start, end))
            var endNode = member(p, tape, activity, "end")
            if let l = endNode, tape.nodes[l].kind == .object { endNode = member(p, tape, l, "latLng") }
            if case .some(.some(let c)) = latLng(p, tape, endNode) {
                event.lat = c.lat
                event.lon = c.lon
            }
            event.distanceM = eventDistance(p, tape, member(p, tape, activity, "distanceMeters"), field: "distanceMeters", event: event,
                                            start: start, end: end)
            if let top = member(p, tape, activity, "topCandidate"), tape.nodes[top].kind == .object,
               let type = text(p, tape, member(p, tape, top, "type")) {
                event.mode = RecordBuilder.googleMode(type)
            }
            addEvent(event, start: start, end: end)
            return
        }
        // timelineMemory (trip summaries of the app's "memories" view): no position of its own.
        if member(p, tape, index, "timelineMemory") == nil {
            // `"visit":null`, `"activity":"x"`, `"timelinePath":{}`: nothing readable, said rather than dropped.
            reject(.unknownRecord, "the segment's visit or activity is not an object, or its timelinePath not an array: nothing in it to read",
                   start: start, end: end)
        }
    }

    /// One `timelinePath` element: `{"point":"…","time":"…"}` or, on iOS, `{"point":"geo:…",
    /// "durationMinutesOffsetFromStartTime":"12"}`.
    mutating func pathPoint(_ p: JSONParser, _ tape: JSONTape, _ index: Int, segmentStart: ParsedTime, device: Int) {
        let node = tape.nodes[index]
        let start = node.start, end = node.end
        guard node.kind == .object else {
            reject(.unknownRecord, "a timelinePath element that is not an object", start: start, end: end)
            return
        }
        var time: ParsedTime
        if let t = member(p, tape, index, "time") {
            guard let parsed = isoTime(p, tape, t) else {
                reject(.invalidTime, "time \(p.rawText(tape.nodes[t]).prefix(60)) is not an ISO 8601 time", start: start, end: end)
                return
            }
            time = parsed
        } else if let offset = member(p, tape, index, "durationMinutesOffsetFromStartTime") {
            guard let minutes = number(p, tape, offset), minutes == minutes.rounded(), abs(minutes) < 1e7 else {
                reject(.invalidTime, "durationMinutesOffsetFromStartTime \(p.rawText(tape.nodes[offset]).prefix(60)) is not a whole number of minutes",
                       start: start, end: end)
                return
            }
            time = ParsedTime(ms: segmentStart.ms + Int64(minutes) * 60_000, offsetSeconds: segmentStart.offsetSeconds)
        } else {
            reject(.missingTime, "the path point has no 'time' or 'durationMinutesOffsetFromStartTime'", start: start, end: end)
            return
        }
        guard let c = position(latLng(p, tape, member(p, tape, index, "point")), missing: "the path point has no 'point'",
                               invalid: "'point' is not \"geo:lat,lon\" or \"lat°, lon°\"", start: start, end: end),
              acceptPoint(timeMs: time.ms, lat: c.lat, lon: c.lon, start: start, end: end)
        else { return }
        addPoint(Point(deviceID: Int64(device), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: c.lat, lon: c.lon,
                       trigger: "timelinePath"), start: start, end: end)
    }

    /// One `rawSignals` element: a `position` → a point; `activityRecord` and `wifiScan` carry no position.
    mutating func rawSignal(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int) {
        guard let position = member(p, tape, index, "position") else { return }
        let device = googleDevice()
        guard tape.nodes[position].kind == .object else {
            reject(.invalidCoordinates, "'position' is not an object", start: start, end: end)
            return
        }
        var latLngNode: Int?, timestamp: Int?, accuracy: Int?, altitude: Int?, speed: Int?, source: Int?
        members(tape, position) { k, v in
            if p.equals(k, "LatLng") || p.equals(k, "latLng") { latLngNode = v }
            else if p.equals(k, "timestamp") { timestamp = v }
            else if p.equals(k, "accuracyMeters") { accuracy = v }
            else if p.equals(k, "altitudeMeters") { altitude = v }
            else if p.equals(k, "speedMetersPerSecond") { speed = v }
            else if p.equals(k, "source") { source = v }
        }
        guard let timestamp else {
            reject(.missingTime, "the position has no 'timestamp'", start: start, end: end)
            return
        }
        guard let time = isoTime(p, tape, timestamp) else {
            reject(.invalidTime, "timestamp \(p.rawText(tape.nodes[timestamp]).prefix(60)) is not an ISO 8601 time", start: start, end: end)
            return
        }
        guard let c = self.position(latLng(p, tape, latLngNode), missing: "the position has no 'LatLng'",
                                    invalid: "'LatLng' is not \"lat°, lon°\"", start: start, end: end),
              acceptPoint(timeMs: time.ms, lat: c.lat, lon: c.lon, start: start, end: end)
        else { return }
        if let source { extra(p, tape.nodes[source - 1], tape.nodes[source]) }
        // A value that is no number is named in a row (`checkedNumber`); one above the bounds is, by `addPoint`.
        let speedValue = checkedMeasure(p, tape, speed, field: "speedMetersPerSecond", start: start, end: end)
        let altitudeValue = checkedNumber(p, tape, altitude, field: "altitudeMeters", start: start, end: end)
        let accuracyValue = checkedMeasure(p, tape, accuracy, field: "accuracyMeters", start: start, end: end)
        addPoint(Point(deviceID: Int64(device), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: c.lat, lon: c.lon,
                       altitudeM: altitudeValue, speedMps: speedValue, accuracyM: accuracyValue,
                       trigger: "rawSignal", extra: takeExtra()),
                 start: start, end: end)
    }
}

/// The `deviceTag`s of a `Records.json`, counted by a byte scan of the whole file before its first tagged location
/// is read, so that the phone that made most of the history keeps the export's device name whatever the order of
/// the records (and a re-export of the same account names its devices the same way).
struct GoogleDeviceTags {
    /// The tag with the most occurrences (ties: the first in byte order); nil when the scan found none.
    let primary: [UInt8]?
    /// Devices made so far for the other tags, and the last one looked up.
    var devices: [[UInt8]: Int] = [:]
    var last: (tag: [UInt8], index: Int)?

    /// Counts `"deviceTag"` keys followed by `:` and a number or a string, as they stand in the bytes.
    /// Past 32 MiB, the pages behind the scan are let go (`dropPages`) in windows of 8 MiB, as the fingerprint does.
    init(countingIn bytes: UnsafeRawBufferPointer, dropPages: (@Sendable (Int, Int) -> Void)? = nil) {
        var counts: [[UInt8]: Int] = [:]
        let key = Array("deviceTag\"".utf8)
        let b = bytes.bindMemory(to: UInt8.self)
        let n = b.count
        var i = 0
        let window = 8 << 20
        var dropped = 0
        while i < n {
            if let dropPages, n > 4 * window, i - dropped >= window {
                dropPages(dropped, i)
                dropped = i
            }
            // memchr for the key's `g`, rare in Records.json (`longitudeE7`, `heading`, `deviceTag`): a memchr for
            // every quote cost a third of the parse, a byte-by-byte search one sixth.
            let m = key.count
            let limit = min(n, i + window)
            var found = -1
            var at = i + 8
            while at < limit, let g = memchr(b.baseAddress! + at, 0x67, limit - at) {
                at = b.baseAddress!.distance(to: g.assumingMemoryBound(to: UInt8.self))
                if at - 8 >= 1, at + 1 < n, b[at + 1] == 0x22, memcmp(b.baseAddress! + at - 8, key, m) == 0 {
                    found = at - 8
                    break
                }
                at += 1
            }
            guard found >= 0 else {
                if limit == n { break }
                i = limit - m + 1
                continue
            }
            var j = found + m
            i = j
            guard found > 0, b[found - 1] == 0x22 else { continue }
            while j < n, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
            guard j < n, b[j] == UInt8(ascii: ":") else { continue }
            j += 1
            while j < n, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
            let quoted = j < n && b[j] == 0x22
            let first = quoted ? j + 1 : j
            var end = first
            if quoted {
                while end < n, end - first < 64, b[end] != 0x22, b[end] != 0x5C { end += 1 }
                guard end < n, b[end] == 0x22 else { continue }
            } else {
                while end < n, end - first < 32, b[end] == UInt8(ascii: "-") || (b[end] >= 0x30 && b[end] <= 0x39) { end += 1 }
            }
            guard end > first else { continue }
            counts[Array(b[first..<end]), default: 0] += 1
            i = quoted ? end + 1 : end
        }
        if let dropPages, n > 4 * window { dropPages(dropped, n) }
        primary = counts.max { a, b in a.value != b.value ? a.value < b.value : !a.key.lexicographicallyPrecedes(b.key) }?.key
    }
}
