import TriplineStore

/// The metrics pass's parameters a device was rebuilt with (`rebuild_state.parameters`), for the readers that measure
/// fixes as that pass does: a day's share of a trip (``TripDayShares``), the part of a trip a privacy zone leaves
/// (``PrivacyClipper``). A parameter the stored state lacks has the pass's default.
struct MetricsSettings: Sendable, Equatable {
    /// `metrics.min_step_m`: a new vertex once the track has moved this far from the last.
    var minStepM = 12.0
    /// `metrics.bridge_max_s`: no distance across a silence longer than this.
    var bridgeMaxS = 900.0
    /// `metrics.moving_mps`: time between fixes at this speed or faster is moving.
    var movingMps = 0.6
    /// `trips.split_gap_s`: with `bridge_max_s` and `moving_mps`, which silences a trip crossed under way
    /// (``TrackMotion/crossedSilence(seconds:accuracyBefore:accuracy:bridgeMaxS:splitGapS:minPaceMps:metres:)``).
    var splitGapS = 1800.0

    /// The settings of each device, read once.
    final class Cache {
        private let store: Store
        private var known: [Int64: MetricsSettings] = [:]

        init(_ store: Store) { self.store = store }

        func of(device: Int64) throws -> MetricsSettings {
            if let settings = known[device] { return settings }
            var p = MetricsSettings()
            if let state = try store.rebuildState(device: device) {
                for (key, value) in try store.parameterMembers(state.parameters) {
                    let number: Double?
                    switch value {
                    case .integer(let n): number = Double(n)
                    case .real(let x): number = x
                    default: number = nil
                    }
                    guard let number, number.isFinite else { continue }
                    switch key {
                    case "metrics.min_step_m": p.minStepM = number
                    case "metrics.bridge_max_s": p.bridgeMaxS = number
                    case "metrics.moving_mps": p.movingMps = number
                    case "trips.split_gap_s": p.splitGapS = number
                    default: break
                    }
                }
            }
            known[device] = p
            return p
        }
    }
}
