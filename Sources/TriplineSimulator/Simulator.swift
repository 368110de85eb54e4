#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// A seeded, deterministic simulator of people going about their days, with the fixes their phones would record and
/// the exact truth of where they were.
///
/// Each person has a home, a work place, two shops about 200 m apart, a lunch place, a park, a friend and a far place.
/// Days follow routines (commute by car, bus, bicycle or train; lunch walks; shopping at one or both shops; evening
/// runs; weekend outings; rarely a flight). Paths are polylines with corners; legs move with per-mode speeds and
/// accelerations and stop at traffic lights, bus stops and stations; tunnels lose the signal while moving.
/// Fixes come at 1 Hz while moving and sparsely while still (Overland: first point after stopping, then one an
/// hour; OwnTracks significant-change: minutes to hours), with noise scaled to the reported accuracy, 20–80 m of
/// drift while still, far-off wifi/cell fixes and missing-data gaps.
///
/// Each local day (03:00 → 03:00, always at home at both ends) is simulated from a generator derived from
/// (seed, person, day), so days can be produced one at a time and the result never depends on call order.
public struct Simulator {
    public let config: SimulatorConfig
    let metresPerDegreeLat = Geo.earthRadius * Double.pi / 180
    let metresPerDegreeLon: Double
    var worlds: [PersonWorld] = []

    public init(config: SimulatorConfig) {
        self.config = config
        metresPerDegreeLon = metresPerDegreeLat * cos(config.originLat * Double.pi / 180)
        for person in 0..<max(1, config.people) {
            worlds.append(config.world == .varied ? makeVariedWorld(person: person) : makeWorld(person: person))
        }
    }

    /// The name of person `index`'s device.
    public func deviceName(person: Int) -> String {
        switch app(person: person) {
        case .overland: return "overland-\(person + 1)"
        case .owntracks: return "owntracks-\(person + 1)"
        case .logger: return "logger-\(person + 1)"
        }
    }

    /// Even-numbered people carry Overland and odd-numbered OwnTracks, except in the single-app profiles.
    public func app(person: Int) -> SimulatedApp {
        switch config.profile {
        case .sparseOwnTracks: return .owntracks
        case .denseOverland: return .overland
        case .logger: return .logger
        case .classic, .mixed: return person % 2 == 0 ? .overland : .owntracks
        }
    }

    /// Simulates every day of every person.
    public func run() -> SimulationResult {
        var truth = SimulationTruth()
        var devices: [SimulatedDevice] = []
        truth.timeZoneName = config.timeZoneName
        for world in worlds { truth.places.append(contentsOf: world.places) }
        for person in 0..<worlds.count {
            var device = SimulatedDevice(name: deviceName(person: person), app: app(person: person), person: person, points: [], appTrips: [])
            for day in 0..<config.days {
                let d = simulateDay(person: person, day: day)
                device.points.append(contentsOf: d.points)
                device.appTrips.append(contentsOf: d.appTrips)
                device.events.append(contentsOf: d.events)
                Self.appendStays(&truth.stays, d.stays)
                truth.trips.append(contentsOf: d.trips)
                truth.gaps.append(contentsOf: d.gaps)
                Self.appendDays(&truth.days, d.days)
            }
            device.points.sort { $0.timeMs < $1.timeMs }
            var unique: [Point] = []
            unique.reserveCapacity(device.points.count)
            for p in device.points where unique.last?.timeMs != p.timeMs { unique.append(p) }
            device.points = unique
            device.events.sort { $0.timeMs < $1.timeMs }
            devices.append(device)
        }
        return SimulationResult(config: config, devices: devices, truth: truth)
    }

    /// The fixes of one person's device on one day (in time order), for callers that stream many days
    /// (benchmarks) without holding a whole simulation.
    public func dayPoints(person: Int, day: Int) -> [Point] {
        var points = simulateDay(person: person, day: day).points
        points.sort { $0.timeMs < $1.timeMs }
        var unique: [Point] = []
        unique.reserveCapacity(points.count)
        for p in points where unique.last?.timeMs != p.timeMs { unique.append(p) }
        return unique
    }

    /// Joins a stay that continues the previous day's last stay (home across 03:00).
    static func appendStays(_ all: inout [TruthStay], _ new: [TruthStay]) {
        for stay in new {
            if let last = all.last, last.device == stay.device, last.placeID == stay.placeID, last.endMs == stay.startMs {
                all[all.count - 1].endMs = stay.endMs
            } else {
                all.append(stay)
            }
        }
    }

    static func appendDays(_ all: inout [TruthDay], _ new: [TruthDay]) {
        for day in new {
            if let i = all.lastIndex(where: { $0.device == day.device && $0.date == day.date }) {
                all[i].distanceM += day.distanceM
                all[i].trips += day.trips
            } else {
                all.append(day)
            }
        }
    }
}
