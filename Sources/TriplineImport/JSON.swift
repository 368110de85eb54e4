#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// A JSON syntax error: where (byte offset into the input) and why.
public struct JSONError: Error, CustomStringConvertible, Sendable, Equatable {
    public var offset: Int
    public var message: String
    /// True when the input ended before the value was complete (a file cut mid-write).
    public var atEnd: Bool
    public var description: String { "byte \(offset): \(message)" }
}

/// The kind of a node on a ``JSONTape``.
public enum JSONKind: UInt8, Sendable {
    case null, bool, number, string, array, object
}

/// One node of a parsed value, in document order. Containers are followed by their children; `next` is the
/// index just past the node's whole subtree, so siblings are reached without walking children.
public struct JSONNode: Sendable {
    public var kind: JSONKind
    /// ``JSONNode/Flags`` bits.
    public var flags: UInt8
    /// Byte range in the input: for strings the bytes between the quotes, otherwise the whole token or container.
    public var start: Int
    public var end: Int
    /// Index of the node after this node's subtree.
    public var next: Int32
    /// Members of an object (pairs), elements of an array; for `bool`, 1 = true.
    public var count: Int32

    public enum Flags {
        /// A string that contains backslash escapes (decoding is needed).
        public static let escaped: UInt8 = 1
        /// A string with bytes that are not valid UTF-8, or an unpaired `\uD800`-style surrogate escape.
        public static let badUnicode: UInt8 = 2
        /// An object with the same key twice.
        public static let duplicateKey: UInt8 = 4
        /// A number written `NaN`, `Infinity` or `-Infinity` (accepted only by the lenient parser).
        public static let nonFinite: UInt8 = 8
        /// A number with a fraction or exponent.
        public static let fractional: UInt8 = 16
        /// A number node made by the direct Overland scanner (never on a tape) whose value was parsed while it was
        /// scanned: `next` (low half) and `count` (high half) hold the Double's bits. See ``JSONParser/double(_:)``.
        public static let valueInline: UInt8 = 32
    }
}

/// The nodes of one parsed value (reused between records to avoid allocation), plus what was questionable in it.
public struct JSONTape: Sendable {
    public var nodes: [JSONNode] = []
    /// Flags of every node on the tape OR-ed together: a record with `duplicateKey`, `badUnicode` or `nonFinite`
    /// anywhere is known without a walk.
    public var problems: UInt8 = 0

    public init() { nodes.reserveCapacity(256) }

    public mutating func removeAll() {
        nodes.removeAll(keepingCapacity: true)
        problems = 0
    }
}

/// A byte-level JSON parser (RFC 8259) that never uses Foundation.
///
/// - Strings are validated as UTF-8 and their escapes (including `\uXXXX` surrogate pairs) are checked; decoding
///   happens only when a reader asks for a string.
/// - Nesting deeper than ``maxDepth`` is an error, so hostile input cannot exhaust the stack.
/// - Duplicate keys are kept on the tape and flagged (``JSONNode/Flags/duplicateKey``); ``JSONValue`` resolves
///   them last-wins (as Foundation does), while the importer rejects any record that has one, because which
///   value the app meant is unknowable.
/// - In `lenient` mode `NaN`, `Infinity`, `-Infinity`, bad UTF-8 and lone surrogates are accepted but flagged,
///   so the importer can reject just that record and go on; in strict mode they are errors.
///
/// - Complexity: O(n) in the input size (duplicate-key detection hashes keys of large objects).
public struct JSONParser {
    public let base: UnsafePointer<UInt8>
    public let count: Int
    /// The next byte to read.
    public var pos: Int
    public var maxDepth: Int
    public var lenient: Bool

    /// - Parameters:
    ///   - bytes: the input; it must stay valid while the parser and its tapes are used.
    ///   - lenient: accept and flag (rather than fail on) non-finite numbers and bad Unicode.
    public init(_ bytes: UnsafeRawBufferPointer, start: Int = 0, maxDepth: Int = 512, lenient: Bool = true) {
        // An empty buffer may have a nil base; point at a static byte so reads are never attempted through nil.
        self.base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONParser.emptyByte
        self.count = bytes.count
        self.pos = start
        self.maxDepth = maxDepth
        self.lenient = lenient
    }

    nonisolated(unsafe) static let emptyByte: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.pointee = 0
        return UnsafePointer(p)
    }()

    @inline(__always) var atEnd: Bool { pos >= count }

    @inline(__always) func byte(_ i: Int) -> UInt8 { base[i] }

    func fail(_ message: String, at offset: Int? = nil) -> JSONError {
        let at = offset ?? pos
        return JSONError(offset: at, message: message, atEnd: at >= count)
    }

    /// Puts a container node of `kind` on `tape` at `pos` and consumes its opening byte; returns the node's index.
    @inline(__always)
    mutating func open(_ kind: JSONKind, into tape: inout JSONTape, depth: Int) throws(JSONError) -> Int {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth) levels") }
        let index = tape.nodes.count
        tape.nodes.append(JSONNode(kind: kind, flags: 0, start: pos, end: pos, next: 0, count: 0))
        pos += 1
        return index
    }

    /// After a container's opening byte: skips white space, and consumes `close` if the container is empty.
    @inline(__always)
    public mutating func closesEmpty(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard pos < count, base[pos] == close else { return false }
        pos += 1
        return true
    }

    /// What follows a container's member: `,` (false: another member follows) or `close` (`]` or `}`; true: the
    /// container ended). Both consumed; anything else is an error.
    @inline(__always)
    public mutating func endOfMember(close: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard pos < count else { throw unexpected() }
        if base[pos] == UInt8(ascii: ",") {
            pos += 1
            return false
        }
        if base[pos] == close {
            pos += 1
            return true
        }
        throw fail(close == UInt8(ascii: "]") ? "expected ',' or ']' in array" : "expected ',' or '}' in object")
    }

    /// Closes the container node at `index` of `tape` once its `members` are on the tape (`pos` just past it).
    @inline(__always)
    public func close(_ tape: inout JSONTape, _ index: Int, members: Int32) {
        tape.nodes[index].end = pos
        tape.nodes[index].count = members
        tape.nodes[index].next = Int32(tape.nodes.count)
    }

    func unexpected() -> JSONError {
        if pos >= count { return fail("unexpected end of input (the file looks truncated)") }
        let b = base[pos]
        let shown = b >= 0x20 && b < 0x7F ? " '\(Character(Unicode.Scalar(b)))'" : ""
        return fail("unexpected byte 0x\(String(b, radix: 16, uppercase: true))\(shown)")
    }

    /// Skips spaces, tabs, carriage returns and newlines.
    @inline(__always)
    public mutating func skipWhitespace() {
        while pos < count {
            let b = base[pos]
            if b > 0x20 { return }  // the usual case (compact JSON): one comparison
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    /// Skips whitespace other than newlines (for JSON-lines layouts).
    @inline(__always)
    public mutating func skipBlanks() {
        while pos < count {
            let b = base[pos]
            if b == 0x20 || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    /// Parses one value starting at `pos` (after optional whitespace) and appends its nodes to `tape`.
    /// On return `pos` is just past the value.
    public mutating func parseValue(into tape: inout JSONTape) throws(JSONError) {
        skipWhitespace()
        try value(into: &tape, depth: 0)
    }

    mutating func value(into tape: inout JSONTape, depth: Int) throws(JSONError) {
        guard pos < count else { throw unexpected() }
        switch base[pos] {
        case UInt8(ascii: "{"): try object(into: &tape, depth: depth + 1)
        case UInt8(ascii: "["): try array(into: &tape, depth: depth + 1)
        case UInt8(ascii: "\""): try string(into: &tape)
        case UInt8(ascii: "t"): try literal("true", kind: .bool, count: 1, into: &tape)
        case UInt8(ascii: "f"): try literal("false", kind: .bool, count: 0, into: &tape)
        case UInt8(ascii: "n"): try literal("null", kind: .null, count: 0, into: &tape)
        case UInt8(ascii: "N") where lenient: try literal("NaN", kind: .number, count: 0, into: &tape, flags: JSONNode.Flags.nonFinite)
        case UInt8(ascii: "I") where lenient:
            try literal("Infinity", kind: .number, count: 0, into: &tape, flags: JSONNode.Flags.nonFinite)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(into: &tape)
        default: throw unexpected()
        }
    }

    mutating func literal(_ word: StaticString, kind: JSONKind, count n: Int32, into tape: inout JSONTape, flags: UInt8 = 0) throws(JSONError) {
        let length = word.utf8CodeUnitCount
        let start = pos
        let text = word.utf8Start
        for i in 0..<length {
            guard pos + i < count, base[pos + i] == text[i] else {
                pos += i
                throw pos >= count ? unexpected() : fail("invalid literal (expected '\(word)')", at: start)
            }
        }
        pos += length
        tape.problems |= flags
        tape.nodes.append(JSONNode(kind: kind, flags: flags, start: start, end: pos, next: Int32(tape.nodes.count + 1), count: n))
    }

    mutating func number(into tape: inout JSONTape) throws(JSONError) {
        let start = pos
        if lenient, base[pos] == UInt8(ascii: "-"), pos + 1 < count, base[pos + 1] == UInt8(ascii: "I") {
            pos += 1
            try literal("Infinity", kind: .number, count: 0, into: &tape, flags: JSONNode.Flags.nonFinite)
            tape.nodes[tape.nodes.count - 1].start = start
            return
        }
        let flags = try scanNumber()
        tape.problems |= flags & JSONNode.Flags.nonFinite
        tape.nodes.append(JSONNode(kind: .number, flags: flags, start: start, end: pos, next: Int32(tape.nodes.count + 1), count: 0))
    }

    /// Scans a number at `pos` (on its `-` or first digit; not `-Infinity`, which ``number(into:)`` handles) and
    /// returns its flags (`fractional`, and `nonFinite` for a lenient out-of-range number); `pos` ends just past it.
    @inline(__always)
    mutating func scanNumber() throws(JSONError) -> UInt8 {
        let start = pos
        var flags: UInt8 = 0
        if base[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < count else { throw unexpected() }
        if base[pos] == UInt8(ascii: "0") {
            pos += 1
        } else if base[pos] >= UInt8(ascii: "1") && base[pos] <= UInt8(ascii: "9") {
            pos += 1
            while pos < count, base[pos] &- UInt8(ascii: "0") < 10 { pos += 1 }
        } else {
            throw fail("invalid number", at: start)
        }
        if pos < count, base[pos] == UInt8(ascii: ".") {
            flags |= JSONNode.Flags.fractional
            pos += 1
            guard pos < count, base[pos] &- UInt8(ascii: "0") < 10 else { throw pos >= count ? unexpected() : fail("invalid number: no digit after '.'", at: start) }
            while pos < count, base[pos] &- UInt8(ascii: "0") < 10 { pos += 1 }
        }
        var mayOverflow = pos - start > 300  // more than 300 digits before any exponent
        if pos < count, base[pos] | 0x20 == UInt8(ascii: "e") {
            flags |= JSONNode.Flags.fractional
            pos += 1
            if pos < count, base[pos] == UInt8(ascii: "+") || base[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < count, base[pos] &- UInt8(ascii: "0") < 10 else { throw pos >= count ? unexpected() : fail("invalid number: no digit in exponent", at: start) }
            while pos < count, base[pos] &- UInt8(ascii: "0") < 10 { pos += 1 }
            mayOverflow = true
        }
        // A number beyond ±1.8e308 is not a Double: refused when strict (as Foundation does), flagged like
        // `Infinity` when lenient so only its record is rejected. (Found by fuzzing: `"tst":17040e67300`.)
        if mayOverflow, !JSONParser.parseDouble(base + start, pos - start).isFinite {
            guard lenient else { throw fail("number out of range", at: start) }
            flags |= JSONNode.Flags.nonFinite
        }
        return flags
    }

    mutating func string(into tape: inout JSONTape) throws(JSONError) {
        let (start, end, flags) = try scanString()
        tape.problems |= flags
        tape.nodes.append(JSONNode(kind: .string, flags: flags, start: start, end: end, next: Int32(tape.nodes.count + 1), count: 0))
    }

    /// Scans a string at `pos` (on its opening quote); returns the content range and flags.
    @inline(__always)
    mutating func scanString() throws(JSONError) -> (Int, Int, UInt8) {
        let open = pos
        pos += 1
        let start = pos
        var flags: UInt8 = 0
        while true {
            // Fast path: 8 bytes at a time while none is a quote, a backslash, a control byte or non-ASCII.
            // (Bit tricks: the lowest flagged byte is exact; later ones may be false positives, which is fine.)
            while pos + 8 <= count {
                let w = UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let q = w ^ (ones &* 0x22)
                let b = w ^ (ones &* 0x5C)
                let flagged = ((q &- ones) & ~q) | ((b &- ones) & ~b) | ((w &- ones &* 0x20) & ~w) | w
                let m = flagged & highs
                if m == 0 {
                    pos += 8
                    continue
                }
                pos += m.trailingZeroBitCount >> 3
                break
            }
            // Byte by byte: plain ASCII.
            while pos < count {
                let b = base[pos]
                if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                pos += 1
            }
            guard pos < count else { throw fail("unterminated string (the file looks truncated)", at: open).atEndError(count) }
            let b = base[pos]
            if b == 0x22 {
                let end = pos
                pos += 1
                return (start, end, flags)
            } else if b == 0x5C {
                flags |= JSONNode.Flags.escaped
                pos += 1
                guard pos < count else { throw unexpected() }
                switch base[pos] {
                case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    pos += 1
                case UInt8(ascii: "u"):
                    pos += 1
                    let unit = try hex4()
                    if unit >= 0xD800 && unit <= 0xDBFF {
                        // A high surrogate must be followed by \u and a low surrogate.
                        if pos + 1 < count, base[pos] == 0x5C, base[pos + 1] == UInt8(ascii: "u") {
                            pos += 2
                            let low = try hex4()
                            if !(low >= 0xDC00 && low <= 0xDFFF) {
                                if !lenient { throw fail("unpaired surrogate \\u\(String(unit, radix: 16))", at: pos - 12) }
                                flags |= JSONNode.Flags.badUnicode
                            }
                        } else {
                            if !lenient { throw fail("unpaired surrogate \\u\(String(unit, radix: 16))", at: pos - 6) }
                            flags |= JSONNode.Flags.badUnicode
                        }
                    } else if unit >= 0xDC00 && unit <= 0xDFFF {
                        if !lenient { throw fail("unpaired low surrogate \\u\(String(unit, radix: 16))", at: pos - 6) }
                        flags |= JSONNode.Flags.badUnicode
                    }
                default:
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(base[pos])))' in string")
                }
            } else if b < 0x20 {
                throw fail("control character 0x\(String(b, radix: 16)) inside a string (strings must escape it)")
            } else {
                let length = validUTF8Length(base, pos, count)
                if length == 0 {
                    if !lenient { throw fail("invalid UTF-8 byte 0x\(String(b, radix: 16, uppercase: true)) in string") }
                    flags |= JSONNode.Flags.badUnicode
                    pos += 1
                } else {
                    pos += length
                }
            }
        }
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard pos < count else { throw unexpected() }
            let b = base[pos]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape: '\(Character(Unicode.Scalar(b)))' is not a hex digit")
            }
            value = value << 4 | UInt32(digit)
            pos += 1
        }
        return value
    }

    mutating func array(into tape: inout JSONTape, depth: Int) throws(JSONError) {
        let index = try open(.array, into: &tape, depth: depth)
        var n: Int32 = 0
        if !closesEmpty(UInt8(ascii: "]")) {
            while true {
                skipWhitespace()
                try value(into: &tape, depth: depth)
                n += 1
                if try endOfMember(close: UInt8(ascii: "]")) { break }
            }
        }
        close(&tape, index, members: n)
    }

    mutating func object(into tape: inout JSONTape, depth: Int) throws(JSONError) {
        let index = try open(.object, into: &tape, depth: depth)
        var n: Int32 = 0
        // Duplicate keys, found while the keys are scanned (no second walk of the tape): a 128-bit filter on each
        // key's length and bytes; a key whose bit is already set is compared with the earlier keys at once (a
        // duplicate always sets an already-set bit). An escaped key leaves it to ``hasDuplicateKeys`` after the object.
        var filter = KeyFilter()
        var suspect = false
        var duplicate = false
        if !closesEmpty(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard pos < count else { throw unexpected() }
                guard base[pos] == UInt8(ascii: "\"") else { throw fail("expected a string key in object") }
                let (keyStart, keyEnd, keyFlags) = try scanString()
                tape.problems |= keyFlags
                tape.nodes.append(JSONNode(kind: .string, flags: keyFlags, start: keyStart, end: keyEnd, next: Int32(tape.nodes.count + 1), count: 0))
                if !suspect && !duplicate {
                    if keyFlags & JSONNode.Flags.escaped != 0 {
                        suspect = true  // may equal any other key once decoded: the exact check after the object
                    } else {
                        if filter.insert(keyFilterHash(keyStart, keyEnd)) {
                            // A filter hit: compare with the earlier keys (all plain, or `suspect` would be set).
                            let length = keyEnd - keyStart
                            let keyIndex = tape.nodes.count - 1
                            var j = index + 1
                            while j < keyIndex {
                                let other = tape.nodes[j]
                                if other.end - other.start == length && memcmp(base + other.start, base + keyStart, length) == 0 {
                                    duplicate = true
                                    break
                                }
                                j = Int(tape.nodes[j + 1].next)
                            }
                        }
                    }
                }
                skipWhitespace()
                guard pos < count else { throw unexpected() }
                guard base[pos] == UInt8(ascii: ":") else { throw fail("expected ':' after object key") }
                pos += 1
                skipWhitespace()
                try value(into: &tape, depth: depth)
                n += 1
                if try endOfMember(close: UInt8(ascii: "}")) { break }
            }
        }
        close(&tape, index, members: n)
        if duplicate || (suspect && n > 1 && hasDuplicateKeys(tape, object: index)) {
            tape.nodes[index].flags |= JSONNode.Flags.duplicateKey
            tape.problems |= JSONNode.Flags.duplicateKey
        }
    }

    /// A 128-bit filter of the keys of one object, for finding duplicate keys without a set: a key whose bit is
    /// already set may repeat an earlier one and is compared with them; a key whose bit was clear is new (a duplicate
    /// always finds its bit set).
    struct KeyFilter {
        var low: UInt64 = 0
        var high: UInt64 = 0

        /// Sets the bit of `hash` (bit 6 picks the word, bits 0–5 the bit) and says whether it was set already.
        @inline(__always)
        mutating func insert(_ hash: UInt64) -> Bool {
            let bit: UInt64 = 1 << (hash & 63)
            if hash & 64 != 0 {
                defer { high |= bit }
                return high & bit != 0
            }
            defer { low |= bit }
            return low & bit != 0
        }
    }

    /// The filter hash of the key bytes `start..<end`: its length and its first 8 bytes (fewer when shorter) and its
    /// last byte, mixed; bit 6 picks the filter word, bits 0–5 the bit.
    @inline(__always)
    func keyFilterHash(_ start: Int, _ end: Int) -> UInt64 {
        let length = end - start
        var w: UInt64 = 0
        if length >= 8 {
            w = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            w ^= UInt64(base[end - 1]) << 3
        } else if length > 0 {
            if start + 8 <= count {  // one load, the bytes after the key masked off
                w = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self) & (UInt64.max >> (64 - 8 * UInt64(length)))
            } else {
                var k = 0
                while k < length {
                    w |= UInt64(base[start + k]) << (8 * UInt64(k))
                    k += 1
                }
            }
        }
        var h = (w ^ UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        return h >> 57
    }

    func hasDuplicateKeys(_ tape: JSONTape, object: Int) -> Bool {
        let n = Int(tape.nodes[object].count)
        if n <= 64 {
            // A 128-bit filter on (length, first and last bytes): only when a key's bit is already set is it
            // compared with the keys before it. No allocation; a duplicate always sets an already-set bit.
            return tape.nodes.withUnsafeBufferPointer { nodes in
                var filter = KeyFilter()
                var i = object + 1
                for _ in 0..<n {
                    let k = nodes[i]
                    let length = k.end - k.start
                    var h = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
                    if length > 0 {
                        h ^= UInt64(base[k.start]) &* 0xC2B2_AE3D_27D4_EB4F
                        h ^= UInt64(base[k.end - 1]) &* 0x1656_67B1_9E37_79F9
                        h ^= UInt64(base[k.start + length / 2]) &* 0x27D4_EB2F_1656_67C5
                    }
                    h ^= h >> 29
                    let seen = filter.insert(h)
                    let escaped = k.flags & JSONNode.Flags.escaped != 0
                    if escaped || seen {
                        var j = object + 1
                        while j < i {
                            if sameKey(tape, i, j) { return true }
                            j = Int(nodes[j + 1].next)
                        }
                        if escaped {
                            // An escaped key may equal any later plain key: compare it with those too.
                            var later = Int(nodes[i + 1].next)
                            while later < nodes[object].next {
                                if sameKey(tape, i, later) { return true }
                                later = Int(nodes[later + 1].next)
                            }
                        }
                    }
                    i = Int(nodes[i + 1].next)
                }
                return false
            }
        }
        var keys: [Int] = []
        keys.reserveCapacity(n)
        var child = object + 1
        for _ in 0..<n {
            keys.append(child)
            child = Int(tape.nodes[child + 1].next)
        }
        var seen: [UInt64: [Int]] = [:]
        for k in keys {
            let h = keyHash(tape, k)
            if let others = seen[h], others.contains(where: { sameKey(tape, $0, k) }) { return true }
            seen[h, default: []].append(k)
        }
        return false
    }

    func keyHash(_ tape: JSONTape, _ k: Int) -> UInt64 {
        let node = tape.nodes[k]
        if node.flags & JSONNode.Flags.escaped != 0 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in decodedBytes(node) { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return h
        }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in node.start..<node.end { h = (h ^ UInt64(base[i])) &* 0x100_0000_01b3 }
        return h
    }

    func sameKey(_ tape: JSONTape, _ a: Int, _ b: Int) -> Bool {
        let x = tape.nodes[a]
        let y = tape.nodes[b]
        if (x.flags | y.flags) & JSONNode.Flags.escaped != 0 { return decodedBytes(x) == decodedBytes(y) }
        guard x.end - x.start == y.end - y.start else { return false }
        return memcmp(base + x.start, base + y.start, x.end - x.start) == 0
    }

    // MARK: Reading values

    /// Whether the string or key node equals `text` (compared as decoded text).
    @inline(__always)
    public func equals(_ node: JSONNode, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        if node.flags & JSONNode.Flags.escaped != 0 {
            let decoded = decodedBytes(node)
            return decoded.count == n && decoded.withUnsafeBufferPointer { memcmp($0.baseAddress!, text.utf8Start, n) == 0 }
        }
        return node.end - node.start == n && memcmp(base + node.start, text.utf8Start, n) == 0
    }

    /// The bytes of a string node with escapes decoded (as UTF-8; an unpaired surrogate becomes U+FFFD).
    public func decodedBytes(_ node: JSONNode) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(node.end - node.start)
        var i = node.start
        while i < node.end {
            let b = base[i]
            if b != 0x5C {
                out.append(b)
                i += 1
                continue
            }
            let e = base[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hexAt(i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    if i + 5 < node.end + 1, i + 1 < node.end, base[i] == 0x5C, base[i + 1] == UInt8(ascii: "u") {
                        let low = hexAt(i + 2)
                        if low >= 0xDC00 && low <= 0xDFFF {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        } else {
                            scalar = 0xFFFD
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    scalar = 0xFFFD
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e)  // \" \\ \/
            }
        }
        return out
    }

    func hexAt(_ i: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            let b = base[i + k]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            default: d = UInt32(b - UInt8(ascii: "A") + 10)
            }
            value = value << 4 | d
        }
        return value
    }

    /// The text of a string node (escapes decoded; invalid UTF-8 repaired with U+FFFD).
    public func string(_ node: JSONNode) -> String {
        if node.flags & JSONNode.Flags.escaped == 0 {
            return String(decoding: UnsafeBufferPointer(start: base + node.start, count: node.end - node.start), as: UTF8.self)
        }
        return String(decoding: decodedBytes(node), as: UTF8.self)
    }

    /// The raw bytes of a node as they appear in the input (for strings, without the quotes).
    public func raw(_ node: JSONNode) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + node.start, count: node.end - node.start)
    }

    /// The raw text of a node as it appears in the input (a string node includes its quotes).
    public func rawText(_ node: JSONNode) -> String {
        let s = node.kind == .string ? node.start - 1 : node.start
        let e = node.kind == .string ? node.end + 1 : node.end
        return String(decoding: UnsafeBufferPointer(start: base + s, count: e - s), as: UTF8.self)
    }

    /// The value of a number node (`NaN` for non-finite literals).
    @inline(__always)
    public func double(_ node: JSONNode) -> Double {
        if node.flags & JSONNode.Flags.valueInline != 0 {
            return Double(bitPattern: UInt64(UInt32(bitPattern: node.next)) | UInt64(UInt32(bitPattern: node.count)) << 32)
        }
        if node.flags & JSONNode.Flags.nonFinite != 0 {
            if base[node.start] == UInt8(ascii: "N") { return .nan }
            return base[node.start] == UInt8(ascii: "-") ? -.infinity : .infinity
        }
        return JSONParser.parseDouble(base + node.start, node.end - node.start)
    }

    /// Parses a JSON number's bytes. Exact (Clinger's fast path) for up to 15 significant digits and small
    /// exponents, else correctly rounded by `strtod`.
    public static func parseDouble(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double {
        var i = 0
        var negative = false
        if i < n, p[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var ok = true
        while i < n, p[i] &- UInt8(ascii: "0") < 10 {
            if mantissa == 0 && p[i] == UInt8(ascii: "0") {
                i += 1
                continue
            }
            if digits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(p[i] &- UInt8(ascii: "0"))
                digits += 1
            } else {
                ok = false
                exponent += 1
            }
            i += 1
        }
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, p[i] &- UInt8(ascii: "0") < 10 {
                if mantissa == 0 && p[i] == UInt8(ascii: "0") {
                    exponent -= 1
                    i += 1
                    continue
                }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(p[i] &- UInt8(ascii: "0"))
                    digits += 1
                    exponent -= 1
                } else {
                    ok = false
                }
                i += 1
            }
        }
        if i < n, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var eneg = false
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
                eneg = p[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            while i < n, p[i] &- UInt8(ascii: "0") < 10 {
                if e < 100_000 { e = e * 10 + Int(p[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            exponent += eneg ? -e : e
        }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if ok && digits <= 15 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 { value /= powersOfTen[-exponent] } else { value *= powersOfTen[exponent] }
            return negative ? -value : value
        }
        // Slow path: let the C library round correctly.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer in
            for k in 0..<n { buffer[k] = CChar(bitPattern: p[k]) }
            buffer[n] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    static let powersOfTen: [Double] = (0...22).map { k in
        var v = 1.0
        for _ in 0..<k { v *= 10 }
        return v
    }

    /// The value of an integer number node, or nil when it has a fraction, exponent or does not fit.
    public func int64(_ node: JSONNode) -> Int64? {
        guard node.kind == .number, node.flags & (JSONNode.Flags.fractional | JSONNode.Flags.nonFinite) == 0 else { return nil }
        return JSONParser.parseInt(base + node.start, node.end - node.start)
    }

    /// Parses `-?[0-9]+` (at most 18 digits); nil otherwise.
    public static func parseInt(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
        var i = 0
        var negative = false
        if n > 0, p[0] == UInt8(ascii: "-") {
            negative = true
            i = 1
        }
        guard i < n, n - i <= 18 else { return nil }
        var v: Int64 = 0
        while i < n {
            let d = p[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            v = v * 10 + Int64(d)
            i += 1
        }
        return negative ? -v : v
    }
}

extension JSONError {
    func atEndError(_ count: Int) -> JSONError {
        var copy = self
        copy.atEnd = true
        return copy
    }
}

@inline(__always)
func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    switch scalar {
    case 0..<0x80: out.append(UInt8(scalar))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | (scalar >> 6)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | (scalar >> 12)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    default:
        out.append(UInt8(0xF0 | (scalar >> 18)))
        out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    }
}

/// A parsed JSON value as a plain Swift tree, for tests, tools and small documents (not for hot loops).
public indirect enum JSONValue: Equatable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order; duplicate keys are resolved last-wins (the earlier member is removed).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            // Key order is not significant.
            guard x.count == y.count else { return false }
            let sx = x.sorted { $0.0 < $1.0 }
            let sy = y.sorted { $0.0 < $1.0 }
            return zip(sx, sy).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }
    }

    /// Parses a complete document strictly (RFC 8259: one value, only whitespace around it).
    /// - Throws: ``JSONError`` naming the byte offset and the reason.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 512) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw, maxDepth: maxDepth, lenient: false)
            var tape = JSONTape()
            do throws(JSONError) {
                try parser.parseValue(into: &tape)
                parser.skipWhitespace()
                guard parser.atEnd else { throw parser.fail("unexpected data after the JSON value") }
            } catch {
                return .failure(error)
            }
            var index = 0
            return .success(build(parser, tape, &index))
        }
        return try result.get()
    }

    static func build(_ p: JSONParser, _ tape: JSONTape, _ index: inout Int) -> JSONValue {
        let node = tape.nodes[index]
        index += 1
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.count == 1)
        case .number: return .number(p.double(node))
        case .string: return .string(p.string(node))
        case .array:
            var items: [JSONValue] = []
            for _ in 0..<node.count { items.append(build(p, tape, &index)) }
            return .array(items)
        case .object:
            var members: [(String, JSONValue)] = []
            for _ in 0..<node.count {
                let key = p.string(tape.nodes[index])
                index += 1
                let value = build(p, tape, &index)
                if node.flags & JSONNode.Flags.duplicateKey != 0 { members.removeAll { $0.0 == key } }
                members.append((key, value))
            }
            return .object(members)
        }
    }
}
