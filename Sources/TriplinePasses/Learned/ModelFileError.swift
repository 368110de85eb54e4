import TriplineCore

/// A model file (`evaluate --trip-cut-model`, `--pause-model`, `--mode-model`: coefficients in the training scripts'
/// text form) that cannot be read as one: which file, which line when one is to blame, and what is wrong with it.
public struct ModelFileError: Error, CustomStringConvertible, Equatable {
    /// The file (or the name it was given as).
    public var path: String
    /// The 1-based line at fault; nil when the file as a whole is (a row missing).
    public var line: Int?
    public var reason: String

    public init(_ path: String, line: Int? = nil, _ reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    public var description: String { path + (line.map { ":\($0)" } ?? "") + ": " + reason }
}

/// The rows of a model file's text form, checked whole: `#` starts a comment, blank lines are skipped, and the last
/// row is `end N`, N the number of rows above it (comments and blank lines not counted). The count makes a file cut
/// short (at a line end, or inside a number) an error instead of a smaller model: without it, a file cut after any
/// stump row read as the stumps above the cut.
public enum ModelFileRows {
    /// One row: its 1-based line and its words (split at spaces and tabs).
    public struct Row: Sendable, Equatable {
        public var line: Int
        public var words: [String]
    }

    /// The rows of `text` before its `end N` row; errors name `origin` and the line: no `end` row (the file ends at
    /// its last line: cut short), a count that differs from the rows above it, or a row after it.
    public static func read(_ text: String, origin: String) throws -> [Row] {
        var rows: [Row] = []
        var end: (line: Int, count: Int)? = nil
        let lines = TextLines.split(text)
        var last = 0
        for (n, raw) in lines.enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let key = words.first else { continue }
            last = n + 1
            if let end {
                throw ModelFileError(origin, line: n + 1, "a row after 'end \(end.count)' (line \(end.line)): 'end N' is the last row")
            }
            if key == "end" {
                guard words.count == 2, let count = Int(words[1]), count >= 0 else {
                    throw ModelFileError(origin, line: n + 1, "the last row is 'end N', N the number of rows above it")
                }
                guard count == rows.count else {
                    let what = count > rows.count
                        ? "\(count - rows.count) row\(count - rows.count == 1 ? " is" : "s are") missing"
                        : "\(rows.count - count) row\(rows.count - count == 1 ? " is" : "s are") more than it counts"
                    throw ModelFileError(origin, line: n + 1, "'end \(count)' counts \(count) rows above it, the file has \(rows.count): \(what)")
                }
                end = (n + 1, count)
                continue
            }
            rows.append(Row(line: n + 1, words: words))
        }
        guard end != nil else {
            let reason = "no 'end N' row after the last row (\(rows.count) rows): the file is cut short, or was written before "
                + "model files ended with their count of rows (add 'end \(rows.count)' if it is whole)"
            throw ModelFileError(origin, line: last > 0 ? last : nil, reason)
        }
        return rows
    }
}
