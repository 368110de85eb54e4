/// Street tiles from a server the user chooses (`tripline map --tiles URL-TEMPLATE`): off by default, and then the
/// page stays self-contained with `default-src 'none'`. With a template the page's Content-Security-Policy adds
/// `img-src` for that one origin (scheme, host and port) and nothing else; the script asks for the tiles of the
/// view as SVG images. The template is checked strictly, so it can never carry markup or a second origin.
public struct MapTiles: Sendable, Equatable {
    /// The template, e.g. `https://tile.example.org/{z}/{x}/{y}.png`.
    public let template: String
    /// `https://tile.example.org` (with `:port` when given): what the CSP allows.
    public let origin: String

    /// Checks a template: `http://` or `https://`, a host of letters, digits, dots and hyphens (optionally
    /// `:port`), then a path holding `{z}`, `{x}` and `{y}` once each, made only of URL-safe characters (no quotes,
    /// angle brackets, backslashes, spaces or `%` escapes that could hide them).
    public init(template: String) throws {
        let bytes = Array(template.utf8)
        func fail(_ why: String) -> MapError { MapError("bad --tiles template '\(template)': \(why)") }
        let scheme: String
        if template.hasPrefix("https://") { scheme = "https://" } else if template.hasPrefix("http://") { scheme = "http://" } else {
            throw fail("it must start with https:// (or http://)")
        }
        let rest = bytes.dropFirst(scheme.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { throw fail("no path after the host") }
        let host = rest[rest.startIndex..<slash]
        var sawColon = false
        for (i, b) in host.enumerated() {
            let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2D
            if b == UInt8(ascii: ":") && !sawColon && i > 0 { sawColon = true; continue }
            if sawColon && !(b >= 0x30 && b <= 0x39) { throw fail("the port must be digits") }
            if !ok { throw fail("the host may hold only letters, digits, dots and hyphens") }
        }
        guard !host.isEmpty, host.first != UInt8(ascii: ":"), host.last != UInt8(ascii: ":") else { throw fail("no host") }
        let path = bytes[slash...]
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/{}=&?:@!$+,;".utf8)
        for b in path where !allowed.contains(b) {
            throw fail("the path may not hold '\(String(decoding: [b], as: UTF8.self))'")
        }
        let text = Array(path)
        func occurrences(_ key: String) -> Int {
            let k = Array(key.utf8)
            guard text.count >= k.count else { return 0 }
            return (0...(text.count - k.count)).filter { Array(text[$0..<($0 + k.count)]) == k }.count
        }
        for key in ["{z}", "{x}", "{y}"] where occurrences(key) != 1 {
            throw fail("the path must hold \(key) exactly once")
        }
        let braces = path.filter { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }.count
        guard braces == 6 else { throw fail("only {z}, {x} and {y} may use braces") }
        self.template = template
        self.origin = scheme + String(decoding: host, as: UTF8.self)
    }
}

