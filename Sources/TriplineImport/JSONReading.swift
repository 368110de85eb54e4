#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension JSONParser {
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

    /// A decimal number written as text by a format with no number grammar of its own to check it (GPX attributes
    /// and elements, GeoLife `.plt` fields, Google's `"geo:LAT,LON"`, JSON numbers given as strings): an optional
    /// `+` or `-`, digits with at most one `.` (at least one digit), an optional exponent `e`/`E`, an optional sign
    /// and at least one digit, and nothing else; nil when the bytes are anything else or the value is not finite.
    /// ``parseDouble(_:_:)`` alone reads what a JSON scanner already checked, so a malformed text read through it
    /// gives a prefix or 0 (`+48.1` → 0, `.` → 0, `1.2.3` → 1.2).
    public static func parseDecimalText(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var i = 0
        let plus = n > 0 && p[0] == UInt8(ascii: "+")
        if n > 0, plus || p[0] == UInt8(ascii: "-") { i = 1 }
        var digits = 0
        while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < n, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard i == n else { return nil }
        let v = plus ? parseDouble(p + 1, n - 1) : parseDouble(p, n)
        return v.isFinite ? v : nil
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
