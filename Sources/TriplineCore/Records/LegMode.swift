/// How a leg was travelled, as the rebuild names it (a trip takes its longest leg's). The raw value is the text
/// stored in `legs.mode` and `trips.mode` and written by every export, report and the map; trips from an app's own
/// timeline may carry other words of the app's.
public enum LegMode: String, Sendable, CaseIterable {
    case walk, run, cycle, car, bus, train
    /// Motorised, but the fixes cannot tell a car from a bus or a train (`trips.vehicle_max_interval_s`).
    case vehicle
    case plane, boat
    /// No fix says how the traveller moved: a silence crossed, a trip no fix saw, a pace that fits a bicycle, a bus
    /// or a car in town.
    case unknown

    /// The three classes every mode score uses (GeoLife's, in its spelling): foot, bicycle, motorized.
    public enum Coarse: String, Sendable, CaseIterable {
        case foot, bicycle, motorized
    }

    /// This mode's class; nil for `unknown`, which is of none.
    public var coarse: Coarse? {
        switch self {
        case .walk, .run: return .foot
        case .cycle: return .bicycle
        case .car, .bus, .train, .vehicle, .plane, .boat: return .motorized
        case .unknown: return nil
        }
    }

    /// Whether the mode is a motorised one (car, bus, train, vehicle, plane, boat).
    public var isMotorised: Bool { coarse == .motorized }
}
