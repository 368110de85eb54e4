/// JSON text as a `String`, for the few places that build a small JSON value (a command's `--json` line, the map's
/// inline data). Every JSON string Tripline writes goes through one escaper, ``ByteWriter/append(escaped:_:)`` with
/// ``TextEscaping/json`` (or ``TextEscaping/jsonInScript`` inside an HTML page); this type only wraps it.
public enum JSONText {
    /// A JSON string literal, quotes included: `"`, `\` and control characters escaped, U+2028/U+2029 escaped,
    /// invalid UTF-8 replaced by U+FFFD.
    public static func quoted(_ text: String) -> String {
        render(text, .json)
    }

    /// ``quoted(_:)`` that is also safe inside an HTML `<script>` element (`<`, `>`, `&` escaped).
    public static func quotedForScript(_ text: String) -> String {
        render(text, .jsonInScript)
    }

    /// A JSON string literal, or `null`.
    public static func quoted(_ text: String?) -> String {
        text.map { quoted($0) } ?? "null"
    }

    /// ``quoted(_:)`` for a command's `--json` output, which may reach a terminal: DEL, C1 (U+0080–U+009F) and the
    /// bidirectional controls (``Terminal/isControl(_:)``) are written as `\u00XX` escapes too, so a JSON reader gets
    /// the same string and a terminal shows the escape instead of acting on it (CSI, a right-to-left override).
    public static func quotedForTerminal(_ text: String) -> String {
        let json = quoted(text)
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && Terminal.isControl($0) }) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 16)
        for s in json.unicodeScalars {
            if s.value >= 0x7F && Terminal.isControl(s) {
                let digits = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            } else {
                out.unicodeScalars.append(s)
            }
        }
        return out
    }

    /// ``quotedForTerminal(_:)``, or `null`.
    public static func quotedForTerminal(_ text: String?) -> String {
        text.map { quotedForTerminal($0) } ?? "null"
    }

    private static func render(_ text: String, _ escaping: TextEscaping) -> String {
        let out = TextBuffer(capacity: text.utf8.count + 8)
        out.append(UInt8(ascii: "\""))
        out.append(escaped: text, escaping)
        out.append(UInt8(ascii: "\""))
        return out.text
    }
}

/// Numbers as text for messages, summaries and the map page: deterministic, no locale, no Foundation. Exports
/// write numbers straight into their buffers with ``ByteWriter/append(fixed:decimals:)`` instead.
public enum NumberText {
    /// `value` with exactly `decimals` digits after the point, rounded half away from zero; `-0` prints as `0`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
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
    public static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "\u{202F}" }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// A distance for people: `850 m`, `12.4 km`, `1 234 km`.
    public static func distance(_ metres: Double) -> String {
        if metres < 1000 { return String(Int(metres.rounded())) + " m" }
        if metres < 100_000 { return fixed(metres / 1000, decimals: 1) + " km" }
        return grouped(Int((metres / 1000).rounded())) + " km"
    }

    /// A duration for people: `45 s`, `12 min`, `3 h 05 min`.
    public static func duration(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        if s < 60 { return "\(s) s" }
        let minutes = (s + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        let m = minutes % 60
        return grouped(minutes / 60) + " h " + (m < 10 ? "0" : "") + String(m) + " min"
    }
}
