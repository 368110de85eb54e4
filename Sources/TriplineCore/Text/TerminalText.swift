/// Text that reaches a terminal: device names, place names (often wifi SSIDs), file names, reject excerpts and error
/// messages come from files, and a name holding ESC, BEL, CR or CSI (U+009B) could recolour, ring or overwrite the
/// user's terminal, and a right-to-left override (U+202E) could make it read backwards. Everything printed from such
/// sources goes through ``escaped(_:)`` (one value) or ``message(_:)`` (a whole message that may span lines); the
/// CLI's error printing and every line a command prints with archive text in it do. Data written as CSV or JSON
/// (to a file or standard output) is not terminal text and is never altered; a command's `--json` output writes
/// these characters as JSON's own `\u` escapes (``JSONText/quotedForTerminal(_:)``), the same value to a reader.
public enum Terminal {
    /// `text` with control characters (C0 except tab, DEL, C1 — U+0080–U+009F —, the line and paragraph separators)
    /// and bidirectional controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069) written as `\xNN` /
    /// `\u{NNNN}`, so they show instead of acting. Idempotent: its output contains none of them.
    public static func escaped(_ text: String) -> String { escape(text, keep: [0x09]) }

    /// A table cell: as ``escaped(_:)`` and tab too (a tab would break the columns).
    public static func cell(_ text: String) -> String { escape(text, keep: []) }

    /// A whole message (an error, a warning, a report): as ``escaped(_:)`` but line feeds kept, so a message
    /// written on several lines still is.
    public static func message(_ text: String) -> String { escape(text, keep: [0x09, 0x0A]) }

    static func escape(_ text: String, keep: Set<UInt32>) -> String {
        var needs = false
        for s in text.unicodeScalars where isControl(s) && !keep.contains(s.value) {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for s in text.unicodeScalars {
            if isControl(s) && !keep.contains(s.value) { out += hex(s.value) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Whether `s` acts on a terminal instead of showing: C0 (tab too: it moves the cursor; ``escaped(_:)`` keeps
    /// it), DEL, C1, U+2028/U+2029, and the bidirectional controls (a right-to-left override reverses what follows).
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 { return true }
        if v < 0x7F { return false }
        if v < 0xA0 { return true }  // DEL and C1
        switch v {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        if v < 0x100 { return "\\x" + (digits.count < 2 ? "0" : "") + digits }
        return "\\u{" + digits + "}"
    }

    /// A file name's bytes as text: valid UTF-8 as it is, every byte that is not valid UTF-8 as `\xNN`, control
    /// characters escaped as in ``escaped(_:)``. Two different names never look the same unless one contains a
    /// literal `\x` sequence.
    public static func escapedPathBytes(_ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                let s = Unicode.Scalar(b)
                out += isControl(s) && b != 0x09 ? hex(UInt32(b)) : String(Character(s))
                i += 1
                continue
            }
            let length = b >= 0xF0 ? 4 : (b >= 0xE0 ? 3 : (b >= 0xC2 ? 2 : 0))
            if length > 0, i + length <= bytes.count, bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }),
               let scalar = String(validating: bytes[i..<(i + length)], as: UTF8.self)
            {
                out += escaped(scalar)
                i += length
            } else {
                out += hex(UInt32(b))
                i += 1
            }
        }
        return out
    }
}
