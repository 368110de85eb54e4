/// The values one pass parameter may take: `lower ≤ value ≤ upper`, whole numbers only when `whole`. Every pass
/// parameter declares one (`PassParameters.ranges`); `--set` and `--config` values outside it are refused before
/// the rebuild starts, so no pass ever divides by a zero speed, converts 1e19 seconds to milliseconds or loops
/// `1e9` rounds. Lives in TriplineCore so the fuzz module (Core, Store, Import) reaches the parsing.
public struct ParameterRange: Sendable, Equatable, CustomStringConvertible {
    public let lower: Double
    public let upper: Double
    public let whole: Bool

    public init(_ lower: Double, _ upper: Double, whole: Bool = false) {
        precondition(lower.isFinite && upper.isFinite && lower <= upper, "a parameter range is finite and not empty")
        self.lower = lower
        self.upper = upper
        self.whole = whole
    }

    /// Whether `value` is allowed: finite, within the bounds, and whole when the range is.
    public func contains(_ value: Double) -> Bool {
        value.isFinite && value >= lower && value <= upper && (!whole || value == value.rounded())
    }

    /// `0.1 ≤ value ≤ 350`, `0 or 1`, `whole 1 … 10`: as `rebuild --help` and docs/PASSES.md print it.
    public var description: String {
        let a = ParameterText.format(lower), b = ParameterText.format(upper)
        if whole { return upper - lower == 1 ? "\(a) or \(b)" : "whole \(a) … \(b)" }
        return "\(a) … \(b)"
    }
}

/// The ranges most parameters share, by what they measure. Bounds are physical (nothing is slower than standing
/// still or faster than an airliner) and keep every pass's arithmetic finite and its loops short: a positive lower
/// bound where a pass divides by the value, an upper bound far inside what `Int64` milliseconds hold.
extension ParameterRange {
    /// A speed a pass divides by or compares moving fixes with: 0.1 m/s (a shuffle) to 350 m/s (above any airliner).
    public static let speed = ParameterRange(0.1, 350)
    /// A speed threshold where 0 turns its rule off.
    public static let speedOrOff = ParameterRange(0, 350)
    /// A distance a pass needs to be more than nothing (a radius, a cluster's size): 1 m to 1000 km.
    public static let distance = ParameterRange(1, 1_000_000)
    /// A distance threshold where 0 turns its rule off (or keeps everything): 0 to 1000 km.
    public static let distanceOrOff = ParameterRange(0, 1_000_000)
    /// A duration threshold: 0 to a year (10¹⁰ ms, far inside `Int64`).
    public static let duration = ParameterRange(0, 31_536_000)
    /// A duration a pass needs to be more than nothing: 1 s to a year.
    public static let positiveDuration = ParameterRange(1, 31_536_000)
    /// A window a pass scans around every fix (its work grows with it): 0 to an hour.
    public static let window = ParameterRange(0, 3600)
    /// A share of something: 0 to 1.
    public static let share = ParameterRange(0, 1)
    /// A switch: 0 (off) or 1 (on).
    public static let flag = ParameterRange(0, 1, whole: true)
}

/// The text of `--set pass.key=value` and `--config` files: one parser for both, total on any bytes.
public enum ParameterText {
    /// A `pass.key=value` assignment split at its first `=` and trimmed, or a message saying what is wrong.
    public static func assignment(_ text: String) -> Result<(key: String, value: String), ParameterTextError> {
        guard let eq = text.firstIndex(of: "=") else {
            return .failure(ParameterTextError("'\(text)' is not of the form pass.key=value"))
        }
        let key = text[..<eq].trimmingCharacters(in: " \t")
        let value = text[text.index(after: eq)...].trimmingCharacters(in: " \t")
        guard key.contains(".") else { return .failure(ParameterTextError("'\(key)' must name a pass and a key, such as stays.radius_m")) }
        return .success((key, value))
    }

    /// The assignments of a config file: one `pass.key = value` per line, `#` starts a comment, blank lines are
    /// skipped; each with its 1-based line number.
    public static func lines(_ text: String) -> [(line: Int, text: String)] {
        var out: [(Int, String)] = []
        for (n, raw) in TextLines.split(text).enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingCharacters(in: " \t\r")
            if trimmed.isEmpty { continue }
            out.append((n + 1, trimmed))
        }
        return out
    }

    /// `text` as the value of parameter `key`: a plain decimal number (`12`, `-0.5`, `1e3`; no `nan`, `inf`, hex
    /// or spaces inside) within `range`, or a message naming the key, the value and the range.
    public static func number(_ text: String, key: String, range: ParameterRange) -> Result<Double, ParameterTextError> {
        let shown = "parameter '\(Terminal.cell(key))': '\(Terminal.cell(String(text.prefix(80))))\(text.count > 80 ? "…" : "")'"
        let plain = !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        guard plain, let value = Double(text) else {
            return .failure(ParameterTextError("\(shown) is not a number (allowed: \(range))"))
        }
        guard value.isFinite else { return .failure(ParameterTextError("\(shown) is not a finite number (allowed: \(range))")) }
        guard range.contains(value) else {
            return .failure(ParameterTextError("\(shown) is out of range: allowed \(range)\(range.whole ? "" : " (docs/PASSES.md says why)")"))
        }
        return .success(value == 0 ? 0 : value)  // -0 is 0
    }

    /// A parameter value as `pass_runs.parameters` and the help print it: without a trailing `.0`.
    public static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}

/// What is wrong with a parameter's text (the caller adds where it came from).
public struct ParameterTextError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
