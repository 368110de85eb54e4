#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Powers of ten as integers and doubles, for fixed-point number formatting.
@usableFromInline let fixedPointScales: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]
@usableFromInline let fixedPointScalesDouble: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

// MARK: Numbers and times

extension ByteWriter {
    /// A decimal integer.
    @inlinable @inline(__always)
    public func append(int value: Int64) throws {
        try reserve(20)
        if value < 0 {
            put(UInt8(ascii: "-"))
            putDigits(UInt64(0) &- UInt64(bitPattern: value))
        } else {
            putDigits(UInt64(value))
        }
    }

    /// `value` in decimal; the caller has reserved 20 bytes.
    @inlinable @inline(__always)
    func putDigits(_ value: UInt64) {
        let base = buffer + count  // locals: the state behind the pointer is read once, not after every byte
        if value < 10 {
            base[0] = UInt8(truncatingIfNeeded: value) &+ 48
            count += 1
            return
        }
        var digits = 1
        var probe = value / 10
        while probe > 0 {
            digits += 1
            probe /= 10
        }
        var v = value
        var index = digits
        while index >= 2 {
            let pair = Int(v % 100)
            v /= 100
            index -= 2
            base[index] = UInt8(truncatingIfNeeded: pair / 10) &+ 48
            base[index + 1] = UInt8(truncatingIfNeeded: pair % 10) &+ 48
        }
        if index == 1 { base[0] = UInt8(truncatingIfNeeded: v) &+ 48 }
        count += digits
    }

    /// `value` zero-padded to `width` digits (dates and times). The caller has reserved room.
    @inlinable @inline(__always)
    func putPadded(_ value: Int, _ width: Int) {
        let base = buffer + count
        var v = value
        var index = width
        while index >= 2 {
            let pair = v % 100
            v /= 100
            index -= 2
            base[index] = UInt8(truncatingIfNeeded: pair / 10) &+ 48
            base[index + 1] = UInt8(truncatingIfNeeded: pair % 10) &+ 48
        }
        if index == 1 { base[0] = UInt8(truncatingIfNeeded: v % 10) &+ 48 }
        count += width
    }

    /// A decimal number with at most `maxDecimals` (0…9) digits after the point, trailing zeros and a trailing
    /// point dropped: `12.5`, `-0.0000123`, `600`. Never an exponent, never a locale's separator, never `-0`.
    /// Rounds half away from zero on the value's binary form (`value * 10^d`), which is exact and deterministic.
    /// Non-finite values are written as `null` by ``append(json:decimals:)``; here the caller must handle them.
    @inlinable @inline(__always)
    public func append(fixed value: Double, decimals maxDecimals: Int) throws {
        // The two precisions exports use get constant divisors (a multiply instead of a 64-bit division).
        switch maxDecimals {
        case 7: try appendFixed7(value)
        case 3: try appendFixed(value, 3, 1e3, 1_000)
        default: try appendFixed(value, maxDecimals, fixedPointScalesDouble[maxDecimals], fixedPointScales[maxDecimals])
        }
    }

    @inlinable @inline(__always)
    func appendFixed(_ value: Double, _ maxDecimals: Int, _ scaleDouble: Double, _ scale: UInt64) throws {
        // + 0.5 and truncation: round half away from zero without a libm call.
        let scaled = value.magnitude * scaleDouble + 0.5
        guard scaled < 9.0e18 else { return try appendLarge(value, decimals: maxDecimals) }
        try reserve(24)
        let n = UInt64(scaled)
        if n == 0 {
            put(UInt8(ascii: "0"))
            return
        }
        if value < 0 { put(UInt8(ascii: "-")) }
        putDigits(n / scale)
        var fraction = n % scale
        if fraction == 0 { return }
        var decimals = maxDecimals
        while fraction % 10 == 0 {
            fraction /= 10
            decimals -= 1
        }
        put(UInt8(ascii: "."))
        putPadded(Int(fraction), decimals)
    }

    /// ``appendFixed(_:_:_:_:)`` with 7 decimals for magnitudes below 1000 (every coordinate), written straight into
    /// the buffer: the whole part has at most 3 digits, the 7 fraction digits are written at once and trailing zeros
    /// dropped by looking at the bytes. Same text, same rounding; fewer divisions and no per-digit state updates.
    @inlinable @inline(__always)
    func appendFixed7(_ value: Double) throws {
        let scaled = value.magnitude * 1e7 + 0.5
        guard scaled < 1e10 else { return try appendFixed(value, 7, 1e7, 10_000_000) }
        try reserve(24)
        let n = UInt64(scaled)
        if n == 0 {
            put(UInt8(ascii: "0"))
            return
        }
        let start = buffer + count
        var p = start
        if value < 0 {
            p[0] = UInt8(ascii: "-")
            p += 1
        }
        let whole = UInt32(truncatingIfNeeded: n / 10_000_000)
        var fraction = UInt32(truncatingIfNeeded: n &- UInt64(whole) &* 10_000_000)
        let pairs = Self.digitPairs
        if whole >= 100 {
            let rest = Int(whole % 100)
            p[0] = UInt8(truncatingIfNeeded: whole / 100) &+ 48
            p[1] = pairs[2 * rest]
            p[2] = pairs[2 * rest + 1]
            p += 3
        } else if whole >= 10 {
            p[0] = pairs[2 * Int(whole)]
            p[1] = pairs[2 * Int(whole) + 1]
            p += 2
        } else {
            p[0] = UInt8(truncatingIfNeeded: whole) &+ 48
            p += 1
        }
        if fraction != 0 {
            p[0] = UInt8(ascii: ".")
            p[7] = UInt8(truncatingIfNeeded: fraction % 10) &+ 48
            fraction /= 10
            var index = 5
            while index > 0 {
                let pair = Int(fraction % 100)
                fraction /= 100
                p[index] = pairs[2 * pair]
                p[index + 1] = pairs[2 * pair + 1]
                index -= 2
            }
            var end = 7
            while p[end] == UInt8(ascii: "0") { end -= 1 }
            p += end + 1
        }
        count += p - start
    }

    /// "00", "01", … "99": two digits at a time (a literal, so no lazily initialised global in the hot path).
    @inlinable @inline(__always)
    static var digitPairs: UnsafePointer<UInt8> {
        let literal: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        return literal.utf8Start
    }

    /// Numbers too large for the integer path (beyond 9e18 / 10^d): C's `%.*f` in the default "C" locale.
    @usableFromInline @inline(never)
    func appendLarge(_ value: Double, decimals: Int) throws {
        var text = [CChar](repeating: 0, count: 400)
        let n = withVaList([Int32(decimals), value]) { vsnprintf(&text, 400, "%.*f", $0) }
        try text.withUnsafeBytes { try append(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<Int(max(0, min(n, 399)))])) }
    }

    /// A finite number as ``append(fixed:decimals:)``, or `null` for NaN and infinities (JSON has no such numbers).
    @inlinable @inline(__always)
    public func append(json value: Double?, decimals: Int) throws {
        guard let value, value.isFinite else { return try append("null") }
        try append(fixed: value, decimals: decimals)
    }

    /// ISO 8601 / RFC 3339 date-time of `ms` (UTC milliseconds) at `offset`:
    /// `2024-03-01T09:00:00+01:00`, or `…Z` when the offset is nil (or not a whole number of minutes, which
    /// `±HH:MM` cannot say). Milliseconds appear only when not zero.
    public func append(time ms: Int64, offset utcOffset: UTCOffset?) throws {
        try reserve(40)
        var offset = utcOffset?.seconds64 ?? 0
        var utc = utcOffset == nil
        if offset % 60 != 0 {
            offset = 0
            utc = true
        }
        let localMs = ms + offset * 1000
        let seconds = CivilTime.floorDiv(localMs, 1000)
        let millis = Int(localMs - seconds * 1000)
        let days = CivilTime.floorDiv(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        if days == state.pointee.cachedDay {
            withUnsafeBytes(of: &state.pointee.cachedDate) { (buffer + count).update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 11) }
            count += 11
        } else {
            let (y, m, d) = CivilTime.civilFromDays(Int(days))
            if y < 0 || y > 9999 {
                put(UInt8(ascii: y < 0 ? "-" : "+"))
                putPadded(abs(y), 6)
            } else {
                putPadded(y, 4)
            }
            put(UInt8(ascii: "-"))
            putPadded(m, 2)
            put(UInt8(ascii: "-"))
            putPadded(d, 2)
            put(UInt8(ascii: "T"))
            if y >= 0 && y <= 9999 {
                let start = buffer + count - 11
                state.pointee.cachedDay = days
                withUnsafeMutableBytes(of: &state.pointee.cachedDate) { $0.baseAddress!.copyMemory(from: start, byteCount: 11) }
            }
        }
        putPadded(secondOfDay / 3600, 2)
        put(UInt8(ascii: ":"))
        putPadded(secondOfDay / 60 % 60, 2)
        put(UInt8(ascii: ":"))
        putPadded(secondOfDay % 60, 2)
        if millis != 0 {
            put(UInt8(ascii: "."))
            putPadded(millis, 3)
        }
        if utc {
            put(UInt8(ascii: "Z"))
            return
        }
        put(UInt8(ascii: offset < 0 ? "-" : "+"))
        let magnitude = Int(offset.magnitude)
        putPadded(magnitude / 3600, 2)
        put(UInt8(ascii: ":"))
        putPadded(magnitude / 60 % 60, 2)
    }

    /// The local civil date `YYYY-MM-DD` of a day number (days since 1970-01-01).
    public func append(date day: Int) throws {
        try reserve(12)
        let (y, m, d) = CivilTime.civilFromDays(day)
        putPadded(min(max(y, 0), 9999), 4)
        put(UInt8(ascii: "-"))
        putPadded(m, 2)
        put(UInt8(ascii: "-"))
        putPadded(d, 2)
    }
}

// MARK: Text escaping

/// How text is escaped for one output format.
public enum TextEscaping: Sendable {
    /// Inside a JSON string: `"` `\` and control characters escaped (`\n`, `\u0001`), U+2028/U+2029 escaped too.
    case json
    /// Inside a JSON string embedded in an HTML `<script>` element: as ``json`` plus `<` `>` `&` as `\u003c`
    /// `\u003e` `\u0026`, so `</script>` and `<!--` cannot appear in the page; control characters other than tab,
    /// LF and CR, DEL and the noncharacters U+FFFE/U+FFFF become `\ufffd`.
    case jsonInScript
    /// XML 1.0 character data: `&` `<` `>` escaped; characters XML 1.0 forbids (C0 controls but tab, LF, CR;
    /// U+FFFE, U+FFFF) replaced by U+FFFD; CR written as `&#13;` so it survives end-of-line normalisation.
    case xmlText
    /// An XML attribute value in double quotes: as ``xmlText`` plus `"` `'` tab, LF and CR as references.
    case xmlAttribute
    /// A CSV field's content (the quoting is decided by ``ByteWriter/append(csv:)``): `"` doubled,
    /// C0 controls other than tab, LF and CR replaced by U+FFFD.
    case csv
}

/// The UTF-8 bytes of U+FFFD REPLACEMENT CHARACTER.
let replacementCharacter: StaticString = "\u{FFFD}"

/// Length of the valid UTF-8 sequence starting at `p[i]` (a non-ASCII lead byte), or 0 when the bytes there are
/// not valid UTF-8 (a stray continuation byte, an overlong form, an encoded surrogate, a value beyond U+10FFFF, or
/// a sequence cut short). Encoded surrogates are what "lone surrogates" become in stored text, so they are
/// rejected here and replaced by U+FFFD by every writer, and the JSON parser marks the string (`badUnicode`).
@inlinable @inline(__always)
package func validUTF8Length(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int {
    let b0 = p[i]
    @inline(__always) func cont(_ k: Int) -> Bool { i + k < end && p[i + k] & 0xC0 == 0x80 }
    switch b0 {
    case 0xC2...0xDF:
        return cont(1) ? 2 : 0
    case 0xE0...0xEF:
        guard cont(1), cont(2) else { return 0 }
        let b1 = p[i + 1]
        if b0 == 0xE0 && b1 < 0xA0 { return 0 }  // overlong
        if b0 == 0xED && b1 >= 0xA0 { return 0 }  // UTF-16 surrogate
        return 3
    case 0xF0...0xF4:
        guard cont(1), cont(2), cont(3) else { return 0 }
        let b1 = p[i + 1]
        if b0 == 0xF0 && b1 < 0x90 { return 0 }  // overlong
        if b0 == 0xF4 && b1 >= 0x90 { return 0 }  // beyond U+10FFFF
        return 4
    default:
        return 0
    }
}

extension ByteWriter {
    /// Writes `text` escaped for `escaping`; invalid UTF-8 becomes U+FFFD, so the output is always valid UTF-8.
    public func append(escaped text: UnsafeRawBufferPointer, _ escaping: TextEscaping) throws {
        guard let raw = text.baseAddress, text.count > 0 else { return }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let end = text.count
        var i = 0
        while i < end {
            // A run of bytes that need nothing: copied in one go.
            let runStart = i
            while i < end, !needsAttention(p[i], escaping) { i += 1 }
            if i > runStart { try append(bytes: UnsafeRawBufferPointer(start: p + runStart, count: i - runStart)) }
            if i >= end { break }
            let b = p[i]
            if b >= 0x80 {
                let n = validUTF8Length(p, i, end)
                if n == 0 {
                    try append(replacementCharacter)
                    i += 1
                    continue
                }
                // U+2028 / U+2029 (E2 80 A8/A9): legal JSON, but escaped so the output is also valid JavaScript.
                if escaping == .json || escaping == .jsonInScript, n == 3, b == 0xE2, p[i + 1] == 0x80, p[i + 2] == 0xA8 || p[i + 2] == 0xA9 {
                    try append(p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                } else if escaping != .json && escaping != .csv, n == 3, b == 0xEF, p[i + 1] == 0xBF,
                    p[i + 2] >= 0xBE
                {
                    // U+FFFE and U+FFFF are not XML characters, and the map page writes no noncharacter either.
                    if escaping == .jsonInScript { try append("\\ufffd") } else { try append(replacementCharacter) }
                } else {
                    try append(bytes: UnsafeRawBufferPointer(start: p + i, count: n))
                }
                i += n
                continue
            }
            try appendEscapedASCII(b, escaping)
            i += 1
        }
    }

    /// Whether an ASCII byte needs escaping in this format, or a byte is non-ASCII (and must be validated).
    @inline(__always)
    func needsAttention(_ b: UInt8, _ escaping: TextEscaping) -> Bool {
        if b >= 0x80 || b < 0x20 { return true }
        switch escaping {
        case .json: return b == 0x22 || b == 0x5C
        case .jsonInScript: return b == 0x22 || b == 0x5C || b == 0x3C || b == 0x3E || b == 0x26 || b == 0x7F
        case .xmlText: return b == 0x26 || b == 0x3C || b == 0x3E
        case .xmlAttribute: return b == 0x26 || b == 0x3C || b == 0x3E || b == 0x22 || b == 0x27
        case .csv: return b == 0x22
        }
    }

    private func appendEscapedASCII(_ b: UInt8, _ escaping: TextEscaping) throws {
        switch escaping {
        case .jsonInScript where b < 0x20 && b != 0x0A && b != 0x0D && b != 0x09, .jsonInScript where b == 0x7F:
            try append("\\ufffd")  // a control character is shown as U+FFFD on the page, never passed to it
        case .json, .jsonInScript:
            switch b {
            case 0x22: try append("\\\"")
            case 0x5C: try append("\\\\")
            case 0x0A: try append("\\n")
            case 0x0D: try append("\\r")
            case 0x09: try append("\\t")
            case 0x08: try append("\\b")
            case 0x0C: try append("\\f")
            default:
                try append("\\u00")
                try append(hexDigit(b >> 4))
                try append(hexDigit(b & 0xF))
            }
        case .xmlText, .xmlAttribute:
            switch b {
            case 0x26: try append("&amp;")
            case 0x3C: try append("&lt;")
            case 0x3E: try append("&gt;")
            case 0x22: try append("&quot;")
            case 0x27: try append("&apos;")
            case 0x0D: try append("&#13;")
            case 0x0A: if escaping == .xmlText { try append(b) } else { try append("&#10;") }
            case 0x09: if escaping == .xmlText { try append(b) } else { try append("&#9;") }
            default: try append(replacementCharacter)  // C0 controls cannot appear in XML 1.0 at all
            }
        case .csv:
            switch b {
            case 0x22: try append("\"\"")
            case 0x09, 0x0A, 0x0D: try append(b)
            default: try append(replacementCharacter)
            }
        }
    }

    @inline(__always)
    private func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 48 + v : 87 + v }

    /// A string escaped for `escaping`.
    public func append(escaped text: String, _ escaping: TextEscaping) throws {
        var text = text
        try text.withUTF8 { try append(escaped: UnsafeRawBufferPointer($0), escaping) }
    }

    /// A JSON string literal with its quotes, or `null`.
    public func append(jsonString text: String?) throws {
        guard let text else { return try append("null") }
        try append(UInt8(ascii: "\""))
        try append(escaped: text, .json)
        try append(UInt8(ascii: "\""))
    }

    /// A CSV text field (RFC 4180): quoted when it holds `,` `"` CR or LF or starts or ends with a space; `"`
    /// doubled. A field that a spreadsheet would run as a formula (first character `=` `+` `-` `@`, tab or CR)
    /// gets a leading `'` (OWASP's advice), so `=HYPERLINK(…)` in a place name stays text. Numbers are written with
    /// ``append(fixed:decimals:)`` and never get the prefix: `-12.5` stays a number.
    public func append(csv text: UnsafeRawBufferPointer) throws {
        guard let raw = text.baseAddress, text.count > 0 else { return }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        var quote = p[0] == 0x20 || p[text.count - 1] == 0x20
        if !quote {
            for i in 0..<text.count {
                let b = p[i]
                if b == 0x2C || b == 0x22 || b == 0x0A || b == 0x0D {
                    quote = true
                    break
                }
            }
        }
        let formula = p[0] == 0x3D || p[0] == 0x2B || p[0] == 0x2D || p[0] == 0x40 || p[0] == 0x09 || p[0] == 0x0D
        if quote { try append(UInt8(ascii: "\"")) }
        if formula { try append(UInt8(ascii: "'")) }
        try append(escaped: text, .csv)
        if quote { try append(UInt8(ascii: "\"")) }
    }

    /// A CSV text field, or an empty field for nil.
    public func append(csv text: String?) throws {
        guard var text else { return }
        try text.withUTF8 { try append(csv: UnsafeRawBufferPointer($0)) }
    }

    /// A CSV number field, empty for nil or non-finite values.
    @inlinable @inline(__always)
    public func append(csvNumber value: Double?, decimals: Int) throws {
        guard let value, value.isFinite else { return }
        try append(fixed: value, decimals: decimals)
    }
}
