import TriplineCore

/// What a pass produced for one device's span: named figures, in the order `tripline rebuild` prints them and
/// `pass_runs.stats` stores them (`points 42588, low_accuracy 0`, `trips 26, legs 90, distance_km 659.43`).
///
/// Written as a dictionary literal (`["days": .count(n), "distance_km": .measure(km)]`, the order kept). Iterating
/// gives each figure's name and its text (``Figure/text``), the one way a figure is written.
public struct PassStats: Equatable, Sendable, ExpressibleByDictionaryLiteral, Sequence {
    /// One figure: a count, or a measure already rounded to what is shown (kilometres, hours, milliseconds).
    public enum Figure: Equatable, Sendable {
        case count(Int)
        case measure(Double)

        /// As printed and stored: a count in digits, a measure without a trailing `.0` (`659.43`, `2`).
        public var text: String {
            switch self {
            case .count(let n): return String(n)
            case .measure(let v): return ParameterText.format(v)
            }
        }

        /// A count as it is; a measure rounded to hundredths (the sum of a run's windows, as printed).
        public var toHundredths: Figure {
            switch self {
            case .count: return self
            case .measure(let v): return .measure((v * 100).rounded() / 100)
            }
        }

        /// The figure as a number, for sums over windows.
        public var number: Double {
            switch self {
            case .count(let n): return Double(n)
            case .measure(let v): return v
            }
        }
    }

    /// One named figure.
    public struct Entry: Equatable, Sendable {
        public var name: String
        public var figure: Figure
    }

    /// The figures in order.
    public private(set) var entries: [Entry] = []

    public init(_ entries: [Entry] = []) { self.entries = entries }

    public init(dictionaryLiteral elements: (String, Figure)...) {
        entries = elements.map { Entry(name: $0.0, figure: $0.1) }
    }

    /// The figure called `name`, if the pass reported one.
    public subscript(name: String) -> Figure? { entries.first { $0.name == name }?.figure }

    /// Adds a figure after the others.
    public mutating func append(_ name: String, _ figure: Figure) { entries.append(Entry(name: name, figure: figure)) }

    /// Adds `other`'s figures to these by name (a window's figures to the run's totals): two counts make a count,
    /// anything else a measure; a name not seen yet goes last.
    public mutating func add(_ other: PassStats) {
        for entry in other.entries {
            guard let i = entries.firstIndex(where: { $0.name == entry.name }) else {
                entries.append(entry)
                continue
            }
            switch (entries[i].figure, entry.figure) {
            case (.count(let a), .count(let b)): entries[i].figure = .count(a + b)
            case (let a, let b): entries[i].figure = .measure(a.number + b.number)
            }
        }
    }

    /// Each figure's name and text, in order.
    public var pairs: [(String, String)] { entries.map { ($0.name, $0.figure.text) } }

    public func makeIterator() -> IndexingIterator<[(String, String)]> { pairs.makeIterator() }

    /// `name value, name value`: the figures as `tripline rebuild` prints them after the pass's name.
    public var text: String { entries.map { $0.name + " " + $0.figure.text }.joined(separator: ", ") }

    /// The figures as one JSON object (`pass_runs.stats`, `tripline rebuild --json`): `{"points":42588,…}`.
    public var json: String { Rebuild.json(pairs) }
}
