import TriplineCore
import TriplineStore

/// One stage of `tripline rebuild`. Each pass reads what earlier passes wrote (from the shared in-memory
/// ``DeviceWork`` when the runner already has it, else from its tables), writes its own tables, and reports
/// what it produced. Its parameters are a struct with documented defaults (docs/PASSES.md).
public protocol Pass {
    associatedtype Parameters: PassParameters
    /// The pass's name, used by `--pass NAME` and as the prefix of its `--set name.key=value` parameters.
    static var name: String { get }
    /// The parameters this run uses.
    var parameters: Parameters { get }
    init(parameters: Parameters)
    /// The parameters from their defaults and `--set`/`--config` overrides (``PassSettings``).
    init(settings: PassSettings) throws
    /// The parameters as `key=value` pairs, in a stable order, for `pass_runs.parameters`.
    var parameterList: [(String, String)] { get }
    /// Runs on one device's span and returns what it produced (named counts and measures) for `pass_runs.stats`.
    mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats
}

/// A pass's parameters: a struct of numbers with documented defaults. Each declares its keys once, in ``keys``;
/// `--set`, `--config`, `pass_runs.parameters`, `tripline rebuild --help` and the test that keeps
/// docs/PASSES.md complete all read that one table.
public protocol PassParameters {
    /// The defaults.
    init()
    /// Every parameter: its `--set` key (snake case, with its unit: `radius_m`) and where it lives.
    static var keys: Keys { get }
    typealias Keys = [String: WritableKeyPath<Self, Double>]
    /// Every parameter's valid values, by the same keys, each with why its bounds are where they are. A value
    /// outside is refused before the rebuild starts (docs/PASSES.md, "Valid ranges").
    static var ranges: Ranges { get }
    typealias Ranges = [String: ParameterRange]
}

extension PassParameters {
    /// The values as `key=value` pairs, sorted by key.
    public var list: [(String, String)] {
        Self.keys.keys.sorted().map { ($0, formatParameter(self[keyPath: Self.keys[$0]!])) }
    }
}

extension Pass {
    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p)
    }

    public var parameterList: [(String, String)] { parameters.list }

    /// Every parameter with its default, as `pass.key` → value, for help and documentation.
    public static var defaults: [(String, String)] { Parameters().list.map { (Self.name + "." + $0.0, $0.1) } }

    /// Every parameter with its valid range, as `pass.key` → range, sorted by key.
    public static var ranges: [(String, ParameterRange)] {
        Parameters.keys.keys.sorted().map { (Self.name + "." + $0, Parameters.ranges[$0] ?? ParameterRange(0, 0)) }
    }
}

/// A pass that also measures distances with the metrics pass's parameters (`trips`, `paths`): `--set metrics.KEY`
/// reaches it too, and its parameter list names them `metrics.key`.
public protocol MeasuringPass: Pass {
    var metrics: MetricsPass.Parameters { get }
    init(parameters: Parameters, metrics: MetricsPass.Parameters)
}

extension MeasuringPass {
    public init(parameters: Parameters) { self.init(parameters: parameters, metrics: .init()) }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p, metrics: try MetricsPass(settings: settings).parameters)
    }

    /// Its own parameters, then the metrics parameters it uses (as `metrics.key`).
    public var parameterList: [(String, String)] {
        parameters.list + metrics.list.map { ("metrics." + $0.0, $0.1) }
    }
}

/// A pass setting that does not fit the passes (`--set`, a `--config` line, the parameters stored with earlier
/// results, a pass name): the command line is wrong, nothing was run. Each case says which key or name is wrong and
/// where it came from.
public enum PassSettingsError: Error, CustomStringConvertible, Equatable {
    /// `origin` (`--set`, `FILE:LINE`) is not `pass.key=value`.
    case malformedAssignment(origin: String, reason: String)
    /// No pass of that name (`--pass NAME`, or the `pass` of a `pass.key` key).
    case unknownPass(String, key: String?)
    /// The pass has no parameter `key`; `known` are the ones it has.
    case unknownParameter(key: String, pass: String, known: [String])
    /// The pass declares `key` but no valid range for it (a mistake in the pass, not in the setting).
    case undeclaredRange(key: String)
    /// The value of `key` is not a finite number within its range; `origin` says where it was set.
    case badValue(key: String, origin: String?, reason: String)
    /// `key` is set a second time at `origin` where one place sets it (a `--config` file, or `--set`); `first` is
    /// where it was set before.
    case repeatedKey(key: String, origin: String, first: String)

    public var description: String {
        switch self {
        case .malformedAssignment(let origin, let reason): return "\(origin): \(reason)"
        case .unknownPass(let name, let key?): return "unknown pass '\(name)' in '\(key)'; passes are \(Rebuild.passOrder.joined(separator: ", "))"
        case .unknownPass(let name, nil): return "unknown pass '\(name)'; passes are \(Rebuild.passOrder.joined(separator: ", "))"
        case .unknownParameter(let key, let pass, let known): return "unknown parameter '\(key)'; \(pass) has: \(known.joined(separator: ", "))"
        case .undeclaredRange(let key): return "parameter '\(key)' declares no range"
        case .badValue(_, let origin, let reason): return (origin.map { $0 + ": " } ?? "") + reason
        case .repeatedKey(let key, let origin, let first):
            return "\(origin): '\(key)' is already set (\(first)); give each parameter once"
        }
    }

    /// ``description``, led by where the key was set (`FILE:LINE`, `--set`) when the case does not say it itself:
    /// an unknown pass or parameter names the line that holds it.
    public func located(_ origins: [String: String]) -> String {
        switch self {
        case .unknownPass(_, let key?), .unknownParameter(let key, _, _):
            return origins[key].map { $0 + ": " + description } ?? description
        default:
            return description
        }
    }
}

/// Why a rebuild (or the rerun of passes after a place edit) could not run, though its settings were valid.
public enum RebuildError: Error, CustomStringConvertible, Equatable {
    /// The zone given with `--timezone`, or stored by an earlier `--timezone`, is not a zone of the embedded table.
    case unknownTimeZone(String)
    /// The database is a study merged with `merge --results-only` (its path): no points to recompute from.
    case resultsOnly(String)

    public var description: String {
        switch self {
        case .unknownTimeZone(let name): return "unknown time zone '\(name)'; use an IANA name such as Europe/Berlin"
        case .resultsOnly(let path):
            return "\(path) was merged with --results-only: its points stay in the shards, and nothing can be recomputed "
                + "here (a rebuild would find no points and delete every trip, visit and place); rebuild or edit the "
                + "shards and merge them into a new study"
        }
    }
}

/// Parameter overrides from `--set pass.key=value` and config files, validated against each pass's keys.
public struct PassSettings {
    public var values: [String: String] = [:]

    public init() {}

    /// Where each value came from (`--set`, `FILE:LINE`), for messages.
    public var origins: [String: String] = [:]

    /// Development only (`evaluate --trip-cut-model`, held-out scoring): coefficients that replace the shipped
    /// ``TripCutModel`` in the trips pass. Never set by `rebuild`.
    public var tripCutModel: TripCutModel? = nil
    /// Development only (`evaluate --mode-model`, held-out scoring): coefficients that replace the shipped
    /// ``ModeModel`` in the trips pass. Never set by `rebuild`.
    public var modeModel: ModeModel? = nil
    /// Development only (`evaluate --dump-trip-cuts`): receives every drift candidate's features.
    public var tripCutLog: TripCutLog? = nil
    /// Development only (`evaluate --pause-model`, held-out scoring): coefficients that replace the shipped
    /// ``PauseModel`` in the stays pass. Never set by `rebuild`.
    public var pauseModel: PauseModel? = nil
    /// Development only (`evaluate --dump-pauses`): receives every candidate pause's features.
    public var pauseLog: PauseLog? = nil

    /// Adds `pass.key=value`.
    public mutating func set(_ assignment: String, origin: String) throws {
        switch ParameterText.assignment(assignment) {
        case .failure(let error): throw PassSettingsError.malformedAssignment(origin: origin, reason: error.message)
        case .success(let (key, value)):
            values[key] = value
            origins[key] = origin
        }
    }

    /// Reads a config file: one `pass.key = value` per line; `#` starts a comment; blank lines are skipped.
    /// A key given twice in the file is an error naming both lines (which one was meant cannot be known).
    public mutating func load(file path: String) throws {
        let bytes = try FileSystem.read(path, limit: 1 << 20)
        // A file that is no text (the database or an archive given by mistake) is named so, not shown as its first
        // "line" of binary; text that is not UTF-8 is named by its line, not read with U+FFFD in place of the bytes.
        if bytes.contains(0) {
            let what = bytes.starts(with: Array("SQLite format 3".utf8)) ? "an SQLite database" : "NUL bytes"
            throw PassSettingsError.malformedAssignment(origin: path, reason: "binary data (\(what)), not a file of 'pass.key = value' lines")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
            let line = 1 + (lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0)
            throw PassSettingsError.malformedAssignment(origin: "\(path):\(line)", reason: "not UTF-8 text; save the file as UTF-8")
        }
        var seen: [String: String] = [:]
        for (line, assignment) in ParameterText.lines(text) {
            let origin = "\(path):\(line)"
            if case .success(let parsed) = ParameterText.assignment(assignment) {
                if let first = seen[parsed.key] { throw PassSettingsError.repeatedKey(key: parsed.key, origin: origin, first: first) }
                seen[parsed.key] = origin
            }
            try set(assignment, origin: origin)
        }
    }

    /// Applies the settings for `pass` to a parameters value through its key table; unknown keys, values that are
    /// not finite numbers and values outside the parameter's range are errors naming the key, value and range.
    func apply<P: PassParameters>(_ pass: String, to parameters: inout P, keys: [String: WritableKeyPath<P, Double>]) throws {
        for key in values.keys.sorted() where key.hasPrefix(pass + ".") {
            let value = values[key]!
            let name = String(key.dropFirst(pass.count + 1))
            guard let path = keys[name] else {
                throw PassSettingsError.unknownParameter(key: key, pass: pass, known: keys.keys.sorted())
            }
            guard let range = P.ranges[name] else { throw PassSettingsError.undeclaredRange(key: key) }
            switch ParameterText.number(value, key: key, range: range) {
            case .success(let number): parameters[keyPath: path] = number
            case .failure(let error): throw PassSettingsError.badValue(key: key, origin: origins[key], reason: error.message)
            }
        }
    }

    /// Every pass name a key may start with.
    static var passNames: [String] { Rebuild.passOrder }

    /// Checks that every key names a known pass.
    package func validate() throws {
        for key in values.keys.sorted() {
            let pass = String(key.split(separator: ".").first ?? "")
            if !Self.passNames.contains(pass) {
                throw PassSettingsError.unknownPass(pass, key: key)
            }
        }
    }
}

/// Formats a parameter value without trailing `.0`.
func formatParameter(_ v: Double) -> String { ParameterText.format(v) }
