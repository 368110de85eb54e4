/// A benchmark's command-line options, read in order: `while let option = options.next() { switch option { … } }`,
/// with `options.value()` for the word after an option that takes one.
struct BenchOptions {
    private let args: [String]
    private var index = 0

    init(_ args: [String]) { self.args = args }

    /// The next option, or nil after the last.
    mutating func next() -> String? {
        guard index < args.count else { return nil }
        defer { index += 1 }
        return args[index]
    }

    /// The value of the option just read; nil when the arguments end first.
    mutating func value() -> String? { next() }

    /// The value of the option just read as a number; `fallback` when it is missing or not a number.
    mutating func value<T: LosslessStringConvertible>(or fallback: T) -> T {
        value().flatMap { T($0) } ?? fallback
    }
}
