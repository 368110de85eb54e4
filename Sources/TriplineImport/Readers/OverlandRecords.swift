#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

extension RecordBuilder {
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
            addEvent(event, start: start, end: end)
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
        // A value that is no number leaves an `invalid_measure` row; one out of range, `addPoint`'s row.
        let point = Point(
            deviceID: Int64(device), timeMs: time.ms, utcOffsetS: time.offsetSeconds, lat: c.lat, lon: c.lon,
            altitudeM: checkedNumber(p, f.altitude, field: "altitude", start: start, end: end) ?? c.alt,
            speedMps: checkedMeasure(p, f.speed, field: "speed", start: start, end: end),
            courseDeg: checkedNumber(p, f.course, field: "course", start: start, end: end),
            accuracyM: checkedMeasure(p, f.hacc, field: "horizontal_accuracy", start: start, end: end),
            vAccuracyM: checkedMeasure(p, f.vacc, field: "vertical_accuracy", start: start, end: end), motion: f.motion,
            batteryLevel: checkedMeasure(p, f.batteryLevel, field: "battery_level", start: start, end: end), batteryState: text(p, f.batteryState), ssid: text(p, f.wifi),
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
}
