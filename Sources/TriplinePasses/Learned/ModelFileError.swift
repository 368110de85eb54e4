/// A model file (`evaluate --trip-cut-model`, `--mode-model`: coefficients in the training scripts' text form) that
/// cannot be read as one: which file, which line when one is to blame, and what is wrong with it.
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
