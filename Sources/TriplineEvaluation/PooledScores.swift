import TriplineCore
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// Scores of several simulations pooled: matches and counts summed, distance errors collected, then one F1 and one
/// median over all of them (not a mean of per-seed figures).
public struct PooledScores: Sendable {
    public var runs = 0
    public var truthTrips = 0, foundTrips = 0, matchedTrips = 0
    public var truthVisits = 0, foundVisits = 0, matchedVisits = 0
    public var tripErrors: [Double] = [], dayErrors: [Double] = []
    /// True trips and visits no rebuild can see (``Observability``).
    public var hiddenTrips = 0, hiddenVisits = 0
    /// The hidden trips and those no guess across their silence matches (``Observability``, `beyond`).
    public var beyondTrips = 0
    /// Matched visits more than ``SimulationScores/offPlaceM`` from the true place.
    public var offPlaceVisits = 0
    /// True leg time, and the part of it whose rebuilt leg has the same mode / the same foot, bicycle or motorized class.
    public var modeSeconds = 0.0, modeExactSeconds = 0.0, modeCoarseSeconds = 0.0

    public init() {}

    public var modeAccuracy: Double { modeSeconds > 0 ? modeExactSeconds / modeSeconds : .nan }
    public var coarseModeAccuracy: Double { modeSeconds > 0 ? modeCoarseSeconds / modeSeconds : .nan }

    public var tripF1: Double { Scoring.prf(matched: matchedTrips, truth: truthTrips, found: foundTrips).f1 }
    public var visitF1: Double { Scoring.prf(matched: matchedVisits, truth: truthVisits, found: foundVisits).f1 }
    public var medianTripDistanceError: Double { Scoring.quantile(tripErrors, 0.5) }
    public var p90TripDistanceError: Double { Scoring.quantile(tripErrors, 0.9) }
    public var medianDailyDistanceError: Double { Scoring.quantile(dayErrors, 0.5) }

    /// Adds one run: its counts and seconds summed (the same names on both sides), its distance errors collected.
    public mutating func add(_ s: SimulationScores) {
        runs += 1
        let counts: [(WritableKeyPath<PooledScores, Int>, KeyPath<SimulationScores, Int>)] = [
            (\.truthTrips, \.truthTrips), (\.foundTrips, \.foundTrips), (\.matchedTrips, \.matchedTrips), (\.truthVisits, \.truthVisits),
            (\.foundVisits, \.foundVisits), (\.matchedVisits, \.matchedVisits), (\.hiddenTrips, \.hiddenTrips), (\.hiddenVisits, \.hiddenVisits),
            (\.beyondTrips, \.beyondTrips),
            (\.offPlaceVisits, \.offPlaceVisits),
        ]
        for (sum, value) in counts { self[keyPath: sum] += s[keyPath: value] }
        let seconds: [(WritableKeyPath<PooledScores, Double>, KeyPath<SimulationScores, Double>)] = [
            (\.modeSeconds, \.modeSeconds), (\.modeExactSeconds, \.modeExactSeconds), (\.modeCoarseSeconds, \.modeCoarseSeconds),
        ]
        for (sum, value) in seconds { self[keyPath: sum] += s[keyPath: value] }
        tripErrors += s.tripDistanceErrors
        dayErrors += s.dailyDistanceErrors
    }

    /// The F1 ceilings: every true trip (visit) found but the hidden ones (``Observability``).
    public var tripCeiling: Double { Observability.ceiling(truth: truthTrips, hidden: hiddenTrips) }
    public var visitCeiling: Double { Observability.ceiling(truth: truthVisits, hidden: hiddenVisits) }
    /// The trip ceiling when a trip no record saw is found only if it lasts at least half its silence.
    public var beyondCeiling: Double { Observability.ceiling(truth: truthTrips, hidden: beyondTrips) }

    /// What no rebuild can see, and the F1 it leaves within reach.
    public var hiddenLine: String {
        "hidden (nothing recorded during them): \(hiddenTrips) trips, \(hiddenVisits) visits (ceiling F1 \(NumberText.fixed(tripCeiling, decimals: 3)) / \(NumberText.fixed(visitCeiling, decimals: 3)))"
            + "; \(beyondTrips) trips beyond a guess across their silence (trip ceiling F1 \(NumberText.fixed(beyondCeiling, decimals: 3)))"
    }

    /// One line: trip and visit F1 with their counts, trip distance median and p90, daily distance median.
    public var line: String {
        "trip F1 \(NumberText.fixed(tripF1, decimals: 2)) (\(matchedTrips) of \(truthTrips) true, \(foundTrips) rebuilt), visit F1 \(NumberText.fixed(visitF1, decimals: 2)) "
            + "(\(matchedVisits) of \(truthVisits), \(foundVisits)), trip distance median \(NumberText.fixed(medianTripDistanceError * 100, decimals: 2)) % "
            + "(p90 \(NumberText.fixed(p90TripDistanceError * 100, decimals: 2)) %), daily distance median \(NumberText.fixed(medianDailyDistanceError * 100, decimals: 2)) %"
    }

    /// One line: the share of true leg time with the right mode, exact and foot / bicycle / motorized.
    public var modeLine: String {
        func pct(_ v: Double) -> String { v.isNaN ? "n/a" : String(NumberText.fixed(v * 100, decimals: 2)) + " %" }
        return "modes (share of true leg time): exact \(pct(modeAccuracy)), foot/bicycle/motorized \(pct(coarseModeAccuracy)); "
            + "\(offPlaceVisits) matched visits lie more than \(Int(SimulationScores.offPlaceM)) m from the true place (visit F1 with a place check "
            + "\(NumberText.fixed(Scoring.prf(matched: matchedVisits - offPlaceVisits, truth: truthVisits, found: foundVisits).f1, decimals: 3)))"
    }

    /// Simulates, loads, rebuilds (defaults, or `settings`) and scores one configuration in a fresh database at `path`.
    ///
    /// With `archives`, the simulation goes the way a user's data does: written as the apps' archives (Overland
    /// POST bodies, OwnTracks `.rec` files: whole seconds, `vel` in whole km/h, rounded coordinates) into the folder
    /// `archives` and imported by the ``Importer``; else its fixes and events are loaded as simulated, exactly.
    public static func run(_ config: SimulatorConfig, path: String, settings: PassSettings = PassSettings(), archives: String? = nil) throws -> SimulationScores {
        try run(config, path: path, settings: settings, archives: archives, legFeatures: nil).scores
    }

    /// ``run(_:path:settings:archives:)``, and with `legFeatures` (development, `evaluate --seeds … --dump-leg-features`)
    /// also the rows of the leg-feature CSV (``SimulationEvaluation/legFeatureRows(_:truth:store:user:)``) for the user
    /// `legFeatures` names: every rebuilt leg's features and the true leg seconds inside it per class.
    public static func run(_ config: SimulatorConfig, path: String, settings: PassSettings = PassSettings(), archives: String? = nil,
                           legFeatures user: String?) throws -> (scores: SimulationScores, legRows: [String]) {
        let result = Simulator(config: config).run()
        let store = try Store(path: path)
        if let archives {
            try SimulationEvaluation.importArchives(result, into: store, folder: archives)
        } else {
            try SimulationEvaluation.load(result, into: store)
        }
        var options = Rebuild.Options()
        options.settings = settings
        options.timeZoneName = result.truth.timeZoneName
        options.full = true
        let log = user != nil ? LegFeatureLog() : nil
        options.legFeatures = log
        _ = try Rebuild(store: store, options: options).run()
        let scores = try SimulationEvaluation.score(result.truth, store: store)
        guard let log, let user else { return (scores, []) }
        return (scores, try SimulationEvaluation.legFeatureRows(log, truth: result.truth, store: store, user: user))
    }
}
