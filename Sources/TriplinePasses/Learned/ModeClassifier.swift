import TriplineCore

/// A learned classifier of a leg's coarse mode: foot, bicycle or motorised (issue 23, item 3), in one of two forms.
/// **Linear**: a multinomial logistic regression over the standardised ``ModeFeatures``: each class scores
/// `bias + Σ weight × (feature − mean) / scale`. **Stumps** (when ``stumps`` is not empty): softmax-boosted stumps,
/// each class scores `bias` plus the leaf of each of its stumps (one feature against one split), which can say
/// "fast and steady" and thresholds that differ by class. The highest score wins (ties: the earlier class). Trained by
/// `scripts/train-modes.py` on the GeoLife development users; the shipped model is generated into `ModeModel.swift`
/// (``shipped``). The trips pass uses it for the class of each leg the speed rules made, and keeps the rules for what
/// it cannot see (docs/PASSES.md, "Learned modes").
public struct ModeModel: Sendable, Equatable {
    /// The classes, in the order of `bias` and `weights`.
    public static let classes = ["foot", "bicycle", "motorised"]

    /// One stump of the boosted form: adds `left` to class `classIndex`'s score when feature `feature` is at most
    /// `split`, else `right`.
    public struct Stump: Sendable, Equatable {
        public var classIndex: Int
        public var feature: Int
        public var split: Double
        public var left: Double
        public var right: Double
        public init(_ classIndex: Int, _ feature: Int, _ split: Double, _ left: Double, _ right: Double) {
            (self.classIndex, self.feature, self.split, self.left, self.right) = (classIndex, feature, split, left, right)
        }
    }

    /// Linear form: each feature's mean and scale (empty in the stump form).
    public var mean: [Double]
    public var scale: [Double]
    /// Each class's score before any weight or stump.
    public var bias: [Double]
    /// Linear form: one row per class, one weight per feature (empty in the stump form).
    public var weights: [[Double]]
    /// Stump form: the stumps of every class, in training order (empty: the linear form).
    public var stumps: [Stump]

    /// The linear form.
    public init(mean: [Double], scale: [Double], bias: [Double], weights: [[Double]]) {
        self.mean = mean
        self.scale = scale
        self.bias = bias
        self.weights = weights
        self.stumps = []
    }

    /// The stump form: `bias` per class, then the stumps.
    public init(bias: [Double], stumps: [Stump]) {
        self.mean = []
        self.scale = []
        self.bias = bias
        self.weights = []
        self.stumps = stumps
    }

    /// Each class's score for `features` (``ModeFeatures/names``).
    public func scores(_ features: [Double]) -> [Double] {
        var s = bias
        if stumps.isEmpty {
            for c in bias.indices {
                for f in features.indices { s[c] += weights[c][f] * (features[f] - mean[f]) / scale[f] }
            }
        } else {
            for t in stumps { s[t.classIndex] += features[t.feature] <= t.split ? t.left : t.right }
        }
        return s
    }

    /// The index into ``classes`` of the highest-scoring class for `features` (``ModeFeatures/names``).
    public func classify(_ features: [Double]) -> Int { classify(features, among: Array(bias.indices)) }

    /// The index into ``classes`` of the highest-scoring class for `features` among `candidates` (indices into
    /// ``classes``, in order; ties: the earlier).
    public func classify(_ features: [Double], among candidates: [Int]) -> Int {
        let all = scores(features)
        var best = candidates[0], bestScore = -Double.infinity
        for c in candidates where all[c] > bestScore { best = c; bestScore = all[c] }
        return best
    }

    /// Reads the text form `scripts/train-modes.py` writes beside the Swift source (for `evaluate --mode-model`, to
    /// score coefficients that were not shipped, such as each leave-one-user-out fold's): a line `features NAME…`, then
    /// either the linear form, `mean V…`, `scale V…` and one `CLASS BIAS W…` per class, or the stump form, `base
    /// B…` (one per class) and any number of `stump CLASS FEATURE SPLIT LEFT RIGHT`; last `end N`, N the number of rows
    /// above it (``ModelFileRows``: a file cut short is refused); `#` starts a comment. The features must be
    /// ``ModeFeatures/names`` in order.
    public init(text: String, path: String) throws {
        var rows: [String: [String]] = [:]
        var stumps: [Stump] = []
        for row in try ModelFileRows.read(text, origin: path) {
            let fields = row.words, key = fields[0]
            if key == "stump" {
                let values = fields.count == 6 ? fields[3...].compactMap { Double($0) }.filter { $0.isFinite } : []
                guard let c = Self.classes.firstIndex(of: fields.count == 6 ? fields[1] : ""),
                      let f = ModeFeatures.names.firstIndex(of: fields[2]), values.count == 3 else {
                    throw ModelFileError(path, line: row.line, "a stump is 'stump CLASS FEATURE SPLIT LEFT RIGHT' with a known class and feature")
                }
                stumps.append(Stump(c, f, values[0], values[1], values[2]))
                continue
            }
            guard ["features", "mean", "scale", "base"].contains(key) || Self.classes.contains(key) else {
                let classes = Self.classes.joined(separator: ", ")
                throw ModelFileError(path, line: row.line, "unknown row '\(key)' (features, mean, scale, \(classes); base, stump; end)")
            }
            guard rows[key] == nil else { throw ModelFileError(path, line: row.line, "a second '\(key)' row") }
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
        if rows["base"] != nil || !stumps.isEmpty {
            guard rows["mean"] == nil, rows["scale"] == nil, Self.classes.allSatisfy({ rows[$0] == nil }) else {
                throw ModelFileError(path, "a model is either linear (mean, scale, a row per class) or stumps (base, stump rows), not both")
            }
            self.init(bias: try numbers("base", Self.classes.count), stumps: stumps)
            return
        }
        let mean = try numbers("mean", count)
        let scale = try numbers("scale", count)
        if let bad = scale.firstIndex(where: { $0 <= 0 }) { throw ModelFileError(path, "scale of \(names[bad]) must be above 0") }
        var bias: [Double] = [], weights: [[Double]] = []
        for c in Self.classes {
            let row = try numbers(c, count + 1)
            bias.append(row[0])
            weights.append(Array(row.dropFirst()))
        }
        self.init(mean: mean, scale: scale, bias: bias, weights: weights)
    }

    /// Reads ``init(text:path:)`` from a file.
    public static func load(_ path: String) throws -> ModeModel {
        let bytes = try FileSystem.read(path, limit: 1 << 20)
        return try ModeModel(text: String(decoding: bytes, as: UTF8.self), path: path)
    }
}
