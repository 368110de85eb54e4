import TriplineCore

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
        append(NumberText.fixed(value, decimals: decimals))
    }
}
