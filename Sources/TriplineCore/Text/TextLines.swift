/// The lines of a small text file a user writes by hand (`--config`, the `evaluate` model files and grids): split at
/// "\n" and at "\r\n", after a leading byte-order mark.
///
/// Not `text.split(separator: "\n")`: Swift keeps "\r\n" as one `Character`, which is not "\n", so a file saved on
/// Windows was one single line (and a byte-order mark became part of its first key).
public enum TextLines {
    /// Every line, empty ones included, in order (line n is element n − 1); a final line end gives a last empty line.
    public static func split(_ text: String) -> [Substring] {
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" { body = body.dropFirst() }
        return body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }
}
