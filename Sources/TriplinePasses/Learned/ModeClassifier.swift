import TriplineCore

/// A learned classifier of a leg's coarse mode: foot, bicycle or motorised (issue 23, item 3). A multinomial logistic
/// regression over the standardised ``ModeFeatures``: each class scores `bias + Σ weight × (feature − mean) / scale`,
/// the highest score wins (ties: the earlier class). Trained by `scripts/train-modes.py` on the GeoLife development
/// users; the shipped coefficients are generated into `ModeModel.swift` (``shipped``). The trips pass uses it for the
/// class of each leg the speed rules made, and keeps the rules for what it cannot see (docs/PASSES.md, "Learned modes").
public struct ModeModel: Sendable, Equatable {
    /// The classes, in the order of `bias` and `weights`.
    public static let classes = ["foot", "bicycle", "motorised"]

    public var mean: [Double]
    public var scale: [Double]
    public var bias: [Double]
    /// One row per class, one weight per feature.
    public var weights: [[Double]]

    public init(mean: [Double], scale: [Double], bias: [Double], weights: [[Double]]) {
        self.mean = mean
        self.scale = scale
        self.bias = bias
        self.weights = weights
    }

    /// The index into ``classes`` of the highest-scoring class for `features` (``ModeFeatures/names``).
    public func classify(_ features: [Double]) -> Int { classify(features, among: Array(bias.indices)) }

    /// The index into ``classes`` of the highest-scoring class for `features` among `candidates` (indices into
    /// ``classes``, in order; ties: the earlier).
    public func classify(_ features: [Double], among candidates: [Int]) -> Int {
        var best = candidates[0], bestScore = -Double.infinity
        for c in candidates {
            var s = bias[c]
            for f in features.indices { s += weights[c][f] * (features[f] - mean[f]) / scale[f] }
            if s > bestScore { best = c; bestScore = s }
        }
        return best
    }

    /// Reads the text form `scripts/train-modes.py` writes beside the Swift source (for `evaluate --mode-model`, to
    /// score coefficients that were not shipped, such as each leave-one-user-out fold's): lines `features NAME…`,
    /// `mean V…`, `scale V…`, and one `CLASS BIAS W…` per class; `#` starts a comment. The features must be
    /// ``ModeFeatures/names`` in order.
    public init(text: String, path: String) throws {
        var rows: [String: [String]] = [:]
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let key = fields.first else { continue }
            guard ["features", "mean", "scale"].contains(key) || Self.classes.contains(key) else {
                throw ModelFileError(path, line: n + 1, "unknown row '\(key)' (features, mean, scale, \(Self.classes.joined(separator: ", ")))")
            }
            guard rows[key] == nil else { throw ModelFileError(path, line: n + 1, "a second '\(key)' row") }
            rows[key] = Array(fields.dropFirst())
        }
        let count = ModeFeatures.names.count
        guard let names = rows["features"], names == ModeFeatures.names else {
            throw ModelFileError(path, "the features row must name \(ModeFeatures.names.joined(separator: " "))")
        }
        func numbers(_ key: String, _ expected: Int) throws -> [Double] {
            guard let fields = rows[key] else { throw ModelFileError(path, "no '\(key)' row") }
            let values = fields.compactMap { Double($0) }.filter { $0.isFinite }
            guard values.count == fields.count, values.count == expected else {
                throw ModelFileError(path, "the '\(key)' row wants \(expected) finite numbers")
            }
            return values
        }
        mean = try numbers("mean", count)
        scale = try numbers("scale", count)
        if let bad = scale.firstIndex(where: { $0 <= 0 }) { throw ModelFileError(path, "scale of \(names[bad]) must be above 0") }
        var bias: [Double] = [], weights: [[Double]] = []
        for c in Self.classes {
            let row = try numbers(c, count + 1)
            bias.append(row[0])
            weights.append(Array(row.dropFirst()))
        }
        self.bias = bias
        self.weights = weights
    }

    /// Reads ``init(text:path:)`` from a file.
    public static func load(_ path: String) throws -> ModeModel {
        let bytes = try FileSystem.read(path, limit: 1 << 20)
        return try ModeModel(text: String(decoding: bytes, as: UTF8.self), path: path)
    }
}
