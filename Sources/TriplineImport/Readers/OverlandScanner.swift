#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The `properties` of one Overland location feature that the builder reads, as nodes (byte ranges into the
/// input): filled from a tape by ``RecordBuilder/overlandFeature(_:_:_:start:end:eventKind:)`` or directly from the
/// bytes by ``JSONParser/scanOverlandFeature(_:_:)``. Both then call
/// ``RecordBuilder/overlandLocation(_:_:device:time:coordinates:start:end:)``, so a point is built by one piece of code
/// whichever way it was found.
struct OverlandFields {
    var timestamp: JSONNode?
    var deviceID: JSONNode?
    var altitude: JSONNode?
    var speed: JSONNode?
    var course: JSONNode?
    var hacc: JSONNode?
    var vacc: JSONNode?
    var batteryLevel: JSONNode?
    var batteryState: JSONNode?
    var wifi: JSONNode?
    var bssid: JSONNode?
    var tripID: JSONNode?
    var tripMode: JSONNode?
    /// Kept in `extra` with their keys' own bytes.
    var speedAccuracy: (key: JSONNode, value: JSONNode)?
    var courseAccuracy: (key: JSONNode, value: JSONNode)?
    var uniqueID: (key: JSONNode, value: JSONNode)?
    /// `motion` joined by commas (``RecordBuilder/joined(_:_:_:)``'s rules).
    var motion: String?
    /// `geometry.coordinates` (the direct scanner only; the tape path reads them from the tape).
    var lon: JSONNode?
    var lat: JSONNode?
    var alt: JSONNode?

    /// Stores the value of a scalar property in its field (with its key where the field keeps it); false for the
    /// properties that are not a field here (`none`, `type`, `action`, `motion`: each reader handles them its way).
    @inline(__always)
    mutating func set(_ property: RecordBuilder.OverlandProperty, key: JSONNode, _ value: JSONNode) -> Bool {
        switch property {
        case .wifi: wifi = value
        case .speed: speed = value
        case .course: course = value
        case .tripID: tripID = value
        case .altitude: altitude = value
        case .timestamp: timestamp = value
        case .deviceID: deviceID = value
        case .tripMode: tripMode = value
        case .uniqueID: uniqueID = (key, value)
        case .bssid: bssid = value
        case .batteryLevel: batteryLevel = value
        case .batteryState: batteryState = value
        case .speedAccuracy: speedAccuracy = (key, value)
        case .courseAccuracy: courseAccuracy = (key, value)
        case .verticalAccuracy: vacc = value
        case .horizontalAccuracy: hacc = value
        case .none, .action, .type, .motion: return false
        }
        return true
    }
}

/// Reused state of the direct scanner: the keys seen in the object being scanned (for duplicate detection) and a
/// tape for nested values it does not read (validated by the general parser).
final class OverlandScratch {
    /// Start and end offsets of the unlisted keys of the objects being scanned, two entries a key; one region of
    /// ``maxKeys`` keys for each of the three nested objects (feature, geometry, properties).
    var keys: UnsafeMutablePointer<Int>
    static let maxKeys = 32
    var tape = JSONTape()

    init() {
        keys = UnsafeMutablePointer<Int>.allocate(capacity: 3 * 2 * Self.maxKeys)
    }

    deinit { keys.deallocate() }
}

extension JSONParser {
    /// The fast path for the common record of an Overland archive: one plain location feature
    /// (`{"type":"Feature","geometry":{"type":"Point","coordinates":[lon,lat(,alt)]},"properties":{…}}`, any key order),
    /// read straight from the bytes with no tape: one walk over each object's keys, the `properties` names told apart
    /// by ``RecordBuilder/overlandProperty(_:_:)``'s perfect hash, the values kept as nodes in `f`.
    ///
    /// Why: the tape path appends a node per key and value, then walks the tape four times per record (`_type`,
    /// `properties`, `geometry`, `coordinates`); for the Overland import that was over half the parser thread.
    ///
    /// It gives up (returns false, with `pos` anywhere in the record) on anything that is not that plain shape or that
    /// needs the general parser's judgement: a syntax error, an escaped or invalid-UTF-8 string anywhere, a duplicate
    /// key (or a key-filter hit it cannot settle), `NaN`/`Infinity`/out-of-range numbers, an OwnTracks `_type`, an
    /// `action` or a `"type":"trip"` (app events), a missing or non-object `geometry`/`properties`, coordinates that
    /// are not numbers. The caller then rewinds to the record's start and parses it through the tape, which gives
    /// the same result or the exact reject and position. Nested values the builder does not read are parsed onto
    /// `scratch.tape` by the general parser (so they are validated exactly as on the tape path).
    // Long by design: one pass over a feature's three objects, kept in one function so that no call or allocation happens per key.
    mutating func scanOverlandFeature(_ f: inout OverlandFields, _ scratch: OverlandScratch) -> Bool {
        guard pos < count, base[pos] == UInt8(ascii: "{") else { return false }
        pos += 1
        var sawProperties = false
        var sawGeometry = false
        var sawType = false
        var unlisted = 0
        var filter = JSONParser.KeyFilter()
        skipWhitespace()
        if pos < count, base[pos] == UInt8(ascii: "}") { return false }
        while true {
            // The three keys of a feature by a word comparison each; any other key scanned as a string.
            if key("properties\"") {
                if sawProperties { return false }
                sawProperties = true
                guard scanProperties(&f, scratch) else { return false }
            } else if key("geometry\"") {
                if sawGeometry { return false }
                sawGeometry = true
                guard scanGeometry(&f, scratch) else { return false }
            } else if key("type\"") {
                if sawType { return false }
                sawType = true
                guard skipPlainValue(scratch) else { return false }
            } else {
                guard let (ks, ke) = plainKey() else { return false }
                switch ke - ks {
                case 4 where Self.sameWord(base + ks, "type"), 8 where Self.sameWord(base + ks, "geometry"),
                     10 where Self.sameWord(base + ks, "properties"):
                    return false  // the shortcut missed it (within 24 bytes of the end): the tape path
                case 5 where Self.sameWord(base + ks, "_type"):
                    return false  // an OwnTracks message
                default:
                    guard unlistedKey(ks, ke, region: 0, &unlisted, &filter, scratch), skipPlainValue(scratch) else { return false }
                }
            }
            guard let more = afterMember(close: UInt8(ascii: "}")) else { return false }
            if more { continue }
            return sawProperties && sawGeometry
        }
    }

    /// `geometry`: an object whose `coordinates` is an array of numbers (its `type` and other members are not read).
    mutating func scanGeometry(_ f: inout OverlandFields, _ scratch: OverlandScratch) -> Bool {
        guard pos < count, base[pos] == UInt8(ascii: "{") else { return false }
        pos += 1
        skipWhitespace()
        if pos < count, base[pos] == UInt8(ascii: "}") { return false }
        var sawType = false
        var sawCoordinates = false
        var unlisted = 0
        var filter = JSONParser.KeyFilter()
        while true {
            var which = 0  // 1 type, 2 coordinates, 0 another key
            if key("type\"") {
                which = 1
            } else if key("coordinates\"") {
                which = 2
            } else {
                guard let (ks, ke) = plainKey() else { return false }
                if ke - ks == 4 && Self.sameWord(base + ks, "type") {
                    which = 1
                } else if ke - ks == 11 && Self.sameWord(base + ks, "coordinates") {
                    which = 2
                } else {
                    guard unlistedKey(ks, ke, region: 1, &unlisted, &filter, scratch) else { return false }
                }
            }
            switch which {
            case 1:
                if sawType { return false }
                sawType = true
                guard skipPlainValue(scratch) else { return false }
            case 2:
                if sawCoordinates { return false }
                sawCoordinates = true
                guard scanCoordinates(&f, scratch) else { return false }
            default:
                guard skipPlainValue(scratch) else { return false }
            }
            guard let more = afterMember(close: UInt8(ascii: "}")) else { return false }
            if more { continue }
            return sawCoordinates
        }
    }

    /// What follows a member or an element: `,` and the blanks after it (true: another follows) or `close` (false: the
    /// container ended), consumed; nil for anything else (the scanner gives up).
    @inline(__always) mutating func afterMember(close: UInt8) -> Bool? {
        skipWhitespace()
        guard pos < count else { return nil }
        if base[pos] == UInt8(ascii: ",") {
            pos += 1
            skipWhitespace()
            return true
        }
        guard base[pos] == close else { return nil }
        pos += 1
        return false
    }

    /// `[lon, lat]` or `[lon, lat, alt]` (more elements are validated and ignored, as on the tape path); gives up
    /// when the first two are not plain numbers. A third that is not a number is no altitude.
    mutating func scanCoordinates(_ f: inout OverlandFields, _ scratch: OverlandScratch) -> Bool {
        guard pos < count, base[pos] == UInt8(ascii: "[") else { return false }
        pos += 1
        skipWhitespace()
        var n = 0
        while true {
            guard pos < count else { return false }
            if n < 3, base[pos] == UInt8(ascii: "-") || base[pos] &- UInt8(ascii: "0") < 10 {
                guard let node = plainNumber() else { return false }
                if n == 0 { f.lon = node } else if n == 1 { f.lat = node } else { f.alt = node }
            } else {
                if n < 2 { return false }
                guard skipPlainValue(scratch) else { return false }
            }
            n += 1
            guard let more = afterMember(close: UInt8(ascii: "]")) else { return false }
            if more { continue }
            return n >= 2
        }
    }

    /// `properties`: each key classified once (``knownProperty()``, else scanned and checked as an unlisted key); a
    /// listed key seen twice gives up.
    // Long by design: the one switch over the Overland property names, kept whole so each key costs one lookup and one jump.
    mutating func scanProperties(_ f: inout OverlandFields, _ scratch: OverlandScratch) -> Bool {
        guard pos < count, base[pos] == UInt8(ascii: "{") else { return false }
        pos += 1
        skipWhitespace()
        if pos < count, base[pos] == UInt8(ascii: "}") {  // `{}`: no property (the point is rejected for its time)
            pos += 1
            return true
        }
        var seen = 0  // one bit per OverlandProperty
        var unlisted = 0
        var filter = JSONParser.KeyFilter()
        while true {
            let ks = pos + 1
            var property = knownProperty()
            let ke: Int
            if property != .none {
                ke = pos - 1
                guard colon() else { return false }
            } else {
                let nearEnd = pos + 1 + 24 > count  // where knownProperty() does not look
                guard let (s, e) = plainKey() else { return false }
                assert(s == ks)
                ke = e
                // A plain key that knownProperty() did not match is no listed name, except near the end of the input.
                if nearEnd { property = RecordBuilder.overlandProperty(self, JSONNode(kind: .string, flags: 0, start: ks, end: ke, next: 0, count: 0)) }
            }
            let key = JSONNode(kind: .string, flags: 0, start: ks, end: ke, next: 0, count: 0)
            if property != .none {
                let bit = 1 << property.rawValue
                if seen & bit != 0 { return false }
                seen |= bit
            }
            switch property {
            case .none:
                guard unlistedKey(ks, ke, region: 2, &unlisted, &filter, scratch), skipPlainValue(scratch) else { return false }
            case .action:
                return false  // an app event: the tape path
            case .type:
                // `"type":"trip"` is a trip record (an app event); read as a scalar so that an escaped spelling gives up.
                guard let value = plainScalar(scratch) else { return false }
                if value.kind == .string, value.end - value.start == 4, Self.sameWord(base + value.start, "trip") { return false }
            case .motion:
                guard scanMotion(&f, scratch) else { return false }
            default:
                guard let value = plainScalar(scratch), f.set(property, key: key, value) else { return false }
            }
            guard let more = afterMember(close: UInt8(ascii: "}")) else { return false }
            if more { continue }
            return true
        }
    }

    /// `motion`: an array of plain strings joined by commas (``RecordBuilder/joined(_:_:_:)``: `[]` is none, one
    /// string is itself); a value that is not an array is no motion. Gives up on an element that is not a plain string.
    mutating func scanMotion(_ f: inout OverlandFields, _ scratch: OverlandScratch) -> Bool {
        guard pos < count else { return false }
        guard base[pos] == UInt8(ascii: "[") else {
            f.motion = nil
            return skipPlainValue(scratch)
        }
        pos += 1
        skipWhitespace()
        guard pos < count else { return false }
        if base[pos] == UInt8(ascii: "]") {
            pos += 1
            f.motion = nil
            return true
        }
        var joined: String?
        while true {
            guard pos < count, base[pos] == UInt8(ascii: "\""), let (s, e) = plainString() else { return false }
            let text = String(decoding: UnsafeBufferPointer(start: base + s, count: e - s), as: UTF8.self)
            if joined == nil { joined = text } else { joined! += "," + text }
            guard let more = afterMember(close: UInt8(ascii: "]")) else { return false }
            if more { continue }
            f.motion = joined
            return true
        }
    }

    /// The Overland property whose name (and closing quote) follows the quote at `pos`, with `pos` moved past the
    /// closing quote; `.none` (and `pos` unchanged) when it is none of them, is escaped, or the input is within 24
    /// bytes of its end — the caller then scans the key as a string and classifies it by
    /// ``RecordBuilder/overlandProperty(_:_:)``, so this is only a shortcut: a name is found by its first byte and one
    /// or two word comparisons, without scanning it as a string first.
    @inline(__always)
    mutating func knownProperty() -> RecordBuilder.OverlandProperty {
        let k = pos + 1
        guard pos < count, base[pos] == UInt8(ascii: "\""), k + 24 <= count else { return .none }
        let a = base + k
        var length = 0
        @inline(__always) func named(_ word: StaticString) -> Bool {
            guard RecordBuilder.sameBytes(a, word.utf8Start, word.utf8CodeUnitCount) else { return false }
            length = word.utf8CodeUnitCount
            return true
        }
        let property: RecordBuilder.OverlandProperty
        switch a[0] {
        case UInt8(ascii: "t"):
            property = named("timestamp\"") ? .timestamp : named("type\"") ? .type : named("trip_id\"") ? .tripID
                : named("trip_mode\"") ? .tripMode : .none
        case UInt8(ascii: "a"): property = named("altitude\"") ? .altitude : named("action\"") ? .action : .none
        case UInt8(ascii: "s"): property = named("speed\"") ? .speed : named("speed_accuracy\"") ? .speedAccuracy : .none
        case UInt8(ascii: "c"): property = named("course\"") ? .course : named("course_accuracy\"") ? .courseAccuracy : .none
        case UInt8(ascii: "h"): property = named("horizontal_accuracy\"") ? .horizontalAccuracy : .none
        case UInt8(ascii: "v"): property = named("vertical_accuracy\"") ? .verticalAccuracy : .none
        case UInt8(ascii: "m"): property = named("motion\"") ? .motion : .none
        case UInt8(ascii: "b"): property = named("battery_level\"") ? .batteryLevel : named("battery_state\"") ? .batteryState : .none
        case UInt8(ascii: "d"): property = named("device_id\"") ? .deviceID : .none
        case UInt8(ascii: "w"): property = named("wifi\"") ? .wifi : named("wifi_bssid\"") ? .bssid : .none
        case UInt8(ascii: "u"): property = named("unique_id\"") ? .uniqueID : .none
        default: property = .none
        }
        if property != .none { pos = k + length }
        return property
    }

    /// Whether the key at `pos` (on its quote) is `word` (its name and closing quote; 4 to 24 bytes): if so `pos` is
    /// moved past the key's colon, on its value. Else `pos` is unchanged. A shortcut, as in ``knownProperty()``.
    @inline(__always)
    mutating func key(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + 1 + 24 <= count, base[pos] == UInt8(ascii: "\""), RecordBuilder.sameBytes(base + pos + 1, word.utf8Start, n) else { return false }
        let saved = pos
        pos += 1 + n
        guard colon() else {
            pos = saved
            return false
        }
        return true
    }

    /// The white space, colon and white space after a key; `pos` ends on the value. False to give up.
    @inline(__always)
    mutating func colon() -> Bool {
        skipWhitespace()
        guard pos < count, base[pos] == UInt8(ascii: ":") else { return false }
        pos += 1
        skipWhitespace()
        return true
    }

    /// A key (`"…"`, no escape), the white space and the colon after it; `pos` ends on the value. Nil to give up.
    @inline(__always)
    mutating func plainKey() -> (Int, Int)? {
        guard pos < count, base[pos] == UInt8(ascii: "\""), let (s, e) = plainString() else { return nil }
        skipWhitespace()
        guard pos < count, base[pos] == UInt8(ascii: ":") else { return nil }
        pos += 1
        skipWhitespace()
        return (s, e)
    }

    /// A string at `pos` with no escape and valid UTF-8: its content range. Nil to give up.
    @inline(__always)
    mutating func plainString() -> (Int, Int)? {
        guard let (s, e, flags) = try? scanString(), flags == 0 else { return nil }
        return (s, e)
    }

    /// A finite number at `pos`, as a node. Nil to give up (a syntax error, `-Infinity`, out of range).
    ///
    /// Numbers are parsed while they are scanned (one pass instead of a scan now and ``parseDouble(_:_:)`` later):
    /// the same digits, zeros and exponent as ``parseDouble(_:_:)`` counts, and the same exact fast path (at most 15
    /// significant digits, a power of ten up to 22), so the value is bit for bit what ``double(_:)`` would give; the
    /// node carries it (``JSONNode/Flags/valueInline``). Anything else (an exponent, more digits) is scanned by
    /// ``scanNumber()`` and parsed later by ``parseDouble(_:_:)`` as on the tape path.
    @inline(__always)
    mutating func plainNumber() -> JSONNode? {
        let start = pos
        var i = pos
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < count else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var flags: UInt8 = 0
        let first = base[i]
        if first == UInt8(ascii: "0") {
            i += 1
        } else if first &- UInt8(ascii: "1") < 9 {
            while i < count, base[i] &- UInt8(ascii: "0") < 10 {
                guard digits < 15 else { return plainNumberSlow(start) }
                mantissa = mantissa &* 10 &+ UInt64(base[i] &- UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
        } else {
            return nil
        }
        if i < count, base[i] == UInt8(ascii: ".") {
            flags = JSONNode.Flags.fractional
            i += 1
            guard i < count, base[i] &- UInt8(ascii: "0") < 10 else { return nil }
            while i < count, base[i] &- UInt8(ascii: "0") < 10 {
                let d = base[i] &- UInt8(ascii: "0")
                if mantissa == 0 && d == 0 {
                    exponent -= 1  // a zero before the first significant digit (0.05)
                } else {
                    guard digits < 15 else { return plainNumberSlow(start) }
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                    exponent -= 1
                }
                i += 1
            }
        }
        if i < count, base[i] | 0x20 == UInt8(ascii: "e") { return plainNumberSlow(start) }
        let value: Double
        if mantissa == 0 {
            value = negative ? -0.0 : 0.0
        } else {
            guard exponent >= -22 else { return plainNumberSlow(start) }
            let magnitude = exponent < 0 ? Double(mantissa) / Self.powerOfTen(-exponent) : Double(mantissa)
            value = negative ? -magnitude : magnitude
        }
        pos = i
        let bits = value.bitPattern
        return JSONNode(kind: .number, flags: flags | JSONNode.Flags.valueInline, start: start, end: i,
                        next: Int32(truncatingIfNeeded: Int64(bitPattern: bits)), count: Int32(truncatingIfNeeded: Int64(bitPattern: bits >> 32)))
    }

    /// 10^k for 0 ≤ k ≤ 22, exact (the same values as ``powersOfTen``, without its lazy global's check).
    @inline(__always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// ``plainNumber()`` for the numbers its one pass does not parse: scanned as on the tape path, parsed later.
    mutating func plainNumberSlow(_ start: Int) -> JSONNode? {
        pos = start
        if base[pos] == UInt8(ascii: "-"), pos + 1 < count, base[pos + 1] == UInt8(ascii: "I") { return nil }
        guard let flags = try? scanNumber(), flags & JSONNode.Flags.nonFinite == 0 else { return nil }
        return JSONNode(kind: .number, flags: flags, start: start, end: pos, next: 0, count: 0)
    }

    /// A scalar the builder reads (string, number, `true`/`false`/`null`) as a node; a container is parsed onto the
    /// scratch tape and given as a node of its kind (the builder reads no container's content). Nil to give up.
    @inline(__always)
    mutating func plainScalar(_ scratch: OverlandScratch) -> JSONNode? {
        guard pos < count else { return nil }
        let start = pos
        switch base[pos] {
        case UInt8(ascii: "\""):
            guard let (s, e) = plainString() else { return nil }
            return JSONNode(kind: .string, flags: 0, start: s, end: e, next: 0, count: 0)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return plainNumber()
        default:
            guard skipPlainValue(scratch) else { return nil }
            let kind: JSONKind
            switch base[start] {
            case UInt8(ascii: "n"): kind = .null
            case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = .bool
            case UInt8(ascii: "["): kind = .array
            default: kind = .object
            }
            return JSONNode(kind: kind, flags: 0, start: start, end: pos, next: 0, count: kind == .bool && base[start] == UInt8(ascii: "t") ? 1 : 0)
        }
    }

    /// Skips a value nothing reads, validating it: scalars here, containers by the general parser onto the scratch
    /// tape. False to give up (a syntax error, or anything the tape would flag: bad UTF-8, duplicate keys,
    /// non-finite numbers).
    @inline(__always)
    mutating func skipPlainValue(_ scratch: OverlandScratch) -> Bool {
        guard pos < count else { return false }
        switch base[pos] {
        case UInt8(ascii: "\""):
            // Escapes are fine in a value nothing reads; bad UTF-8 is not (the tape path rejects the record).
            guard let (_, _, flags) = try? scanString() else { return false }
            return flags & JSONNode.Flags.badUnicode == 0
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return plainNumber() != nil
        case UInt8(ascii: "t"):
            return literalWord("true")
        case UInt8(ascii: "f"):
            return literalWord("false")
        case UInt8(ascii: "n"):
            return literalWord("null")
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Depth 5: the deepest the tape path parses a member of `properties` at, so a value too deep for it is
            // too deep here too.
            scratch.tape.removeAll()
            guard (try? value(into: &scratch.tape, depth: 5)) != nil else { return false }
            return scratch.tape.problems == 0
        default:
            return false
        }
    }

    /// `true`, `false` or `null` at `pos`. False to give up.
    @inline(__always)
    mutating func literalWord(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + n <= count, memcmp(base + pos, word.utf8Start, n) == 0 else { return false }
        pos += n
        return true
    }

    /// A key the scanner does not know: false (give up) when it may repeat an earlier one of the same object, or when
    /// the object has more than ``OverlandScratch/maxKeys`` of them. A 128-bit filter on the key; a hit is compared
    /// with the earlier unlisted keys.
    @inline(__always)
    func unlistedKey(_ ks: Int, _ ke: Int, region: Int, _ unlisted: inout Int, _ filter: inout KeyFilter,
                     _ scratch: OverlandScratch) -> Bool {
        guard unlisted < OverlandScratch.maxKeys else { return false }
        let keys = scratch.keys + region * 2 * OverlandScratch.maxKeys
        if filter.insert(keyFilterHash(ks, ke)) {
            let length = ke - ks
            for k in 0..<unlisted {
                let s = keys[2 * k], e = keys[2 * k + 1]
                if e - s == length && memcmp(base + s, base + ks, length) == 0 { return false }
            }
        }
        keys[2 * unlisted] = ks
        keys[2 * unlisted + 1] = ke
        unlisted += 1
        return true
    }

    /// Whether the bytes at `a` are `word` (4 to 24 bytes; the caller has checked the length).
    @inline(__always)
    static func sameWord(_ a: UnsafePointer<UInt8>, _ word: StaticString) -> Bool {
        RecordBuilder.sameBytes(a, word.utf8Start, word.utf8CodeUnitCount)
    }
}
