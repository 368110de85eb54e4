import TriplineCore

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A gradient-boosted ensemble of stumps (one feature compared with one threshold each), the model of the learned
/// yes-or-no decisions: drift or walk (``TripCutModel``) and stop or traffic (``PauseModel``). Trained by
/// `scripts/stumps.py` (through `scripts/train-trip-cuts.py` and `scripts/train-pause-cuts.py`); the shipped ensembles
/// are generated source, and the text form below is what those scripts write for held-out scoring.
public struct StumpEnsemble: Sendable, Equatable {
    /// One weak learner: `left` when feature `feature` is at most `split`, else `right` (log-odds).
    public struct Stump: Sendable, Equatable {
        public var feature: Int
        public var split: Double
        public var left: Double
        public var right: Double
        public init(_ feature: Int, _ split: Double, _ left: Double, _ right: Double) {
            (self.feature, self.split, self.left, self.right) = (feature, split, left, right)
        }
    }

    /// The log-odds before any stump.
    public var base: Double
    public var stumps: [Stump]
    /// The decision is yes when the probability is above this.
    public var threshold: Double

    public init(base: Double, stumps: [Stump], threshold: Double) {
        self.base = base
        self.stumps = stumps
        self.threshold = threshold
    }

    /// The probability of yes for `features` (in the order of the names the model was read with).
    public func probability(_ features: [Double]) -> Double {
        var z = base
        for s in stumps { z += features[s.feature] <= s.split ? s.left : s.right }
        return 1 / (1 + exp(-z))
    }

    /// Whether ``probability(_:)`` is above ``threshold``.
    public func decides(_ features: [Double]) -> Bool { probability(features) > threshold }

    // MARK: Text form (for `evaluate --trip-cut-model`, `--pause-model` and the training scripts)

    /// Reads the text the training scripts write: `base x`, `threshold x` (once each), any number of lines
    /// `stump FEATURE SPLIT LEFT RIGHT` (FEATURE one of `featureNames`), and last `end N`, N the number of rows above
    /// it (``ModelFileRows``: a file cut short is refused, not read as fewer stumps); `#` starts a comment. Errors name
    /// `origin` and the line.
    public init(text: String, origin: String, featureNames: [String]) throws {
        var base: Double? = nil, threshold: Double? = nil
        var stumps: [Stump] = []
        for row in try ModelFileRows.read(text, origin: origin) {
            let words = row.words, key = words[0]
            func number(_ k: Int) throws -> Double {
                guard k < words.count, let v = Double(words[k]), v.isFinite else {
                    throw ModelFileError(origin, line: row.line, "'\(k < words.count ? words[k] : "")' is not a finite number")
                }
                return v
            }
            switch key {
            case "base", "threshold":
                guard (key == "base" ? base : threshold) == nil else {
                    throw ModelFileError(origin, line: row.line, "a second '\(key)' row")
                }
                if key == "base" { base = try number(1) } else { threshold = try number(1) }
            case "stump":
                guard words.count == 5, let feature = featureNames.firstIndex(of: words[1]) else {
                    throw ModelFileError(origin, line: row.line, "a stump is 'stump FEATURE SPLIT LEFT RIGHT' with a known feature name")
                }
                stumps.append(Stump(feature, try number(2), try number(3), try number(4)))
            default:
                throw ModelFileError(origin, line: row.line, "unknown row '\(key)' (rows are base, threshold, stump, end)")
            }
        }
        guard let base, let threshold else { throw ModelFileError(origin, "a model needs a 'base' and a 'threshold' row") }
        self.init(base: base, stumps: stumps, threshold: threshold)
    }
}
