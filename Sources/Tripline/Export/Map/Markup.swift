/// Escaping of untrusted text (place names, SSIDs, device names, modes) for each context of an HTML page, and a
/// byte buffer to write the page into.
///
/// Every string that comes from the data goes through exactly one of these functions at the point where it is
/// written; nothing from the data is ever put in a tag name, an attribute name, a class, a style or a script.
///
/// All three escape control characters too: XML 1.0 (the inline SVG must parse as XML) forbids C0 controls other
/// than tab, line feed and carriage return even as character references, so they become U+FFFD.
public enum Markup {
    /// Text between tags, in HTML and in inline SVG (`<text>`, `<title>`): `&`, `<`, `>` become entities.
    public static func text(_ value: String) -> String {
        escape(value, quotes: false)
    }

    /// A double- or single-quoted attribute value: like ``text(_:)`` plus `"` and `'`.
    public static func attribute(_ value: String) -> String {
        escape(value, quotes: true)
    }

    /// A JSON string literal (with its quotes) that is safe inside `<script type="application/json">`:
    /// besides JSON's own escapes, `<`, `>`, `&` become `\u003c`, `\u003e`, `\u0026` (so `</script>` and `<!--`
    /// cannot appear) and U+2028 / U+2029 become `\u2028` / `\u2029` (line terminators to older JavaScript).
    public static func jsonString(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || isNonCharacter(scalar) {
                    out += "\\ufffd"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    static func escape(_ value: String, quotes: Bool) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || isNonCharacter(scalar) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// U+FFFE and U+FFFF are not XML characters.
    @inline(__always)
    static func isNonCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }
}

/// An append-only UTF-8 byte buffer with fast integer and fixed-point number writers (no Foundation, no
/// locale: the same numbers always give the same bytes).
struct ByteBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    @inline(__always)
    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// A decimal integer.
    @inline(__always)
    mutating func append(int value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// A number with `decimals` digits after the point (trailing zeros kept), rounded half away from zero.
    mutating func append(_ value: Double, decimals: Int) {
        append(Format.fixed(value, decimals: decimals))
    }
}

/// Deterministic number and duration formatting for the page.
enum Format {
    /// `value` with exactly `decimals` digits after the point, rounded half away from zero; `-0` prints as `0`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e17 else { return String(Int(value)) }
        let n = Int(scaled)
        let negative = value < 0 && n != 0
        var whole = String(n)
        if decimals > 0 {
            if whole.count <= decimals { whole = String(repeating: "0", count: decimals - whole.count + 1) + whole }
            let cut = whole.index(whole.endIndex, offsetBy: -decimals)
            whole = whole[..<cut] + "." + whole[cut...]
        }
        return negative ? "-" + whole : whole
    }

    /// Digits grouped by thin spaces: `12 345`.
    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "\u{202F}" }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// A distance for people: `850 m`, `12.4 km`, `1 234 km`.
    static func distance(_ metres: Double) -> String {
        if metres < 1000 { return String(Int(metres.rounded())) + " m" }
        if metres < 100_000 { return fixed(metres / 1000, decimals: 1) + " km" }
        return grouped(Int((metres / 1000).rounded())) + " km"
    }

    /// A duration for people: `45 s`, `12 min`, `3 h 05 min`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        if s < 60 { return "\(s) s" }
        let minutes = (s + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        let m = minutes % 60
        return grouped(minutes / 60) + " h " + (m < 10 ? "0" : "") + String(m) + " min"
    }
}
