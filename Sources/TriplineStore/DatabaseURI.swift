extension Database {
    /// The `file:` URI that names exactly the file `path` (RFC 3986 as SQLite reads it): `%`, `?`, `#` and every byte
    /// outside printable ASCII percent-encoded, so that none starts a query, a fragment or an escape; an absolute path
    /// after an empty authority (`file:///…`, so that a path starting with `//` is not read as an authority); a
    /// relative path after `./` (`file:./file:x.sqlite` is the file `file:x.sqlite` in the current folder, and
    /// `file:./:memory:` a file named `:memory:`, not SQLite's in-memory database).
    static func fileURI(_ path: String) -> String {
        var encoded = path.hasPrefix("/") ? "file://" : "file:./"
        for c in path.utf8 {
            if c > 0x20, c < 0x7F, c != UInt8(ascii: "%"), c != UInt8(ascii: "?"), c != UInt8(ascii: "#") {
                encoded.unicodeScalars.append(Unicode.Scalar(c))
            } else {
                let hex = String(c, radix: 16, uppercase: true)
                encoded += "%" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        return encoded
    }
}
