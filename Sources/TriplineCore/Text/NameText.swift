/// Place names from the user and from imported files (docs/RELIABILITY.md): a name is shown in a table, a map, a GPX
/// `<name>`, a CSV cell, so it must hold something to see and nothing that moves the cursor or ends the text.
public enum NameText {
    /// Whether `scalar` is a control character (Unicode category Cc: U+0000–U+001F, U+007F–U+009F).
    @inline(__always) static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }

    /// The name of a control character for a message: `U+0000 (NUL)`, `U+0009 (tab)`, `U+001B (ESC)`, `U+0085`.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt32: String] = [
            0: "NUL", 7: "bell", 8: "backspace", 9: "tab", 10: "line feed", 13: "carriage return", 0x1B: "ESC", 0x7F: "DEL",
        ]
        return names[scalar.value].map { code + " (" + $0 + ")" } ?? code
    }

    /// `text` without white space (Unicode `White_Space`: spaces, tabs, line ends, no-break and ideographic spaces) at
    /// either end.
    public static func trimmed(_ text: some StringProtocol) -> String {
        var s = Substring(text)
        while let f = s.unicodeScalars.first, f.properties.isWhitespace { s = Substring(s.unicodeScalars.dropFirst()) }
        while let l = s.unicodeScalars.last, l.properties.isWhitespace { s = Substring(s.unicodeScalars.dropLast()) }
        return String(s)
    }

    /// A name from an imported file (Google's place name or address, an OwnTracks region, a wifi network) as a place's
    /// name: each control character becomes a space (a NUL or a line end inside it is no reason to lose the rest),
    /// white space at the ends is trimmed, and a name with nothing left (empty, only white space) is no name (nil).
    public static func imported(_ text: String?) -> String? {
        guard let text else { return nil }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isControl(scalar) ? " " : scalar) }
        let name = trimmed(String(out))
        return name.isEmpty ? nil : name
    }

    /// Why `name`, given by the user (`tripline places rename`), cannot name a place, or nil when it can: it is empty
    /// or only white space (the place would be shown blank), or it holds a control character (a NUL would cut it in
    /// other programs, a line end or ESC would break the tables and the terminal), named with its position.
    public static func userNameProblem(_ name: String) -> String? {
        if trimmed(name).isEmpty {
            return name.isEmpty ? "the new name is empty" : "the new name is only white space: a place would be shown without a name"
        }
        for (k, scalar) in name.unicodeScalars.enumerated() where isControl(scalar) {
            return "the new name holds the control character \(describe(scalar)) at character \(k + 1): a name is text to show"
        }
        return nil
    }

    /// The text of the JSON value `json` (as SQLite's `->` gives it) when it is a string, decoded whole: SQLite's
    /// `json_extract` cuts a string at an escaped NUL (`"nul\u0000byte"` gave `nul`). A number or `true`/`false` is its
    /// own text (what `json_extract` gave); `null`, an object, an array or text that is no JSON value give nil.
    public static func jsonString(_ json: String?) -> String? {
        guard let json else { return nil }
        let s = Array(json.unicodeScalars)
        guard let first = s.first else { return nil }
        guard first == "\"" else {
            return first == "{" || first == "[" || json == "null" ? nil : json
        }
        var out = String.UnicodeScalarView()
        var i = 1
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= s.count else { return nil }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                guard let d = Int(String(s[k]), radix: 16) else { return nil }
                v = v * 16 + UInt32(d)
            }
            return v
        }
        while i < s.count {
            let c = s[i]
            if c == "\"" { return i == s.count - 1 ? String(out) : nil }
            guard c == "\\" else { out.append(c); i += 1; continue }
            guard i + 1 < s.count else { return nil }
            let e = s[i + 1]
            i += 2
            switch e {
            case "\"", "\\", "/": out.append(e)
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                guard var v = hex4(i) else { return nil }
                i += 4
                if v >= 0xD800 && v < 0xDC00, i + 6 <= s.count, s[i] == "\\", s[i + 1] == "u", let low = hex4(i + 2),
                   low >= 0xDC00 && low < 0xE000 {
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
            default: return nil
            }
        }
        return nil
    }
}
