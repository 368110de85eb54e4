#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

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
}
