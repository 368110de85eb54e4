/// Text that reaches a terminal: device names, file names and reject details come from files, and a name holding
/// ESC, BEL or CR could recolour, ring or overwrite the user's terminal. Everything printed from such sources goes
/// through ``escaped(_:)``.
public enum Terminal {
    /// `text` with control characters (C0 except tab, DEL, C1) written as `\xNN` / `\u{NNNN}`, so they show instead
    /// of acting.
    public static func escaped(_ text: String) -> String {
        var needs = false
        for s in text.unicodeScalars where isControl(s) {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for s in text.unicodeScalars {
            if isControl(s) { out += hex(s.value) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return (v < 0x20 && v != 0x09) || v == 0x7F || (v >= 0x80 && v < 0xA0) || v == 0x2028 || v == 0x2029
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
                out += isControl(s) ? hex(UInt32(b)) : String(Character(s))
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
