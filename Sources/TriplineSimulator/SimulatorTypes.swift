import TriplineCore

/// A way of moving, as the simulator knows it and as the passes name legs.
public enum TravelMode: String, Sendable, CaseIterable, Comparable {
    case walk, run, cycle, car, bus, train, plane

    public static func < (a: TravelMode, b: TravelMode) -> Bool { a.rawValue < b.rawValue }

    /// GeoLife's three evaluation classes: foot, bicycle, motorized.
    public var coarseClass: String {
        switch self {
        case .walk, .run: return "foot"
        case .cycle: return "bicycle"
        default: return "motorized"
        }
    }

    /// Overland's trip-mode server value for this mode.
    public var overlandTripMode: String {
        switch self {
        case .cycle: return "bicycle"
        default: return rawValue
        }
    }
}

/// The world and routines of a simulation (docs/SIMULATOR.md).
public enum SimulatedWorldKind: String, Sendable, CaseIterable {
    /// The original world: one Berlin-like city, the same routine for everyone, visits that mostly last long.
    case standard
    /// A world unlike the one the defaults were tuned on: errand chains with stops of 3–9 min (school runs,
    /// bakeries, fuel), walks and drives of 1–5 min between nearby places, a random set of scattered places per
    /// person (some 80–300 m apart), suburban people with long drives, in Melbourne with its southern summer time.
    case varied
}

/// Which app a simulated device imitates.
public enum SimulatedApp: String, Sendable {
    /// Overland (iOS): local offsets in timestamps, motion states, "discard stationary" (one point an hour while still).
    case overland
    /// OwnTracks (iOS, significant-change monitoring): no offsets, reports every few minutes to hours while still.
    case owntracks
    /// A GPS logger or GPX tracking app: GPX tracks with time, position, elevation, `hdop` and `sat` only.
    case logger = "gpx"
}

/// What to simulate. Every field has a default; the seed decides everything else.
public struct SimulatorConfig: Sendable {
    public var seed: UInt64
    /// Number of local days to simulate (each runs 03:00 → 03:00 local time).
    public var days: Int
    /// People, each carrying one device; even-numbered people carry Overland, odd-numbered OwnTracks.
    public var people: Int
    /// First local day, as days since 1970-01-01. Default 2024-03-29: the EU DST change (03-31) is day 3.
    public var startDay: Int
    /// Seconds between fixes while moving (1 = 1 Hz, as the apps record in their moving modes).
    public var movingIntervalS: Int
    /// The city centre around which places are laid out.
    public var originLat: Double
    public var originLon: Double
    /// Local time rule of the simulated people (Europe/Berlin-like).
    public var timeZone: TimeZoneTable
    /// Whether far-off wifi/cell fixes (1–3 km accuracy, kilometres off) appear.
    public var farOffFixes: Bool
    /// Whether missing-data gaps (phone off at night or at work, short losses inside trips) appear.
    public var gaps: Bool
    /// Whether a plane trip may happen (on day 5 of runs of at least 8 days, for person 0).
    public var planes: Bool
    /// How the phones sample (docs/SIMULATOR.md, "Sampling profiles"). `classic` is the original model (1 Hz while
    /// moving, one app per person); the others draw a sampling regime per device and day.
    public var profile: SimulationProfile = .classic
    /// Which world and routines the people live in (docs/SIMULATOR.md, "A varied world"). `standard` is the original
    /// world byte for byte; set another with ``useWorld(_:)``, which also moves the city and its zone.
    public private(set) var world: SimulatedWorldKind = .standard
    /// The IANA name of `timeZone`, written to `truth.json` and given to the rebuild for local days.
    public var timeZoneName: String = "Europe/Berlin"

    /// Puts the people in `kind`'s world: `varied` moves the city to Melbourne (Australia/Melbourne, southern
    /// summer time) and starts on 2024-04-05, so the change back to standard time (2024-04-07) falls on day 2.
    public mutating func useWorld(_ kind: SimulatedWorldKind) {
        world = kind
        switch kind {
        case .standard:
            break
        case .varied:
            originLat = -37.8136
            originLon = 144.9631
            timeZone = TimeZoneTable.named("Australia/Melbourne", years: 1996...2040) ?? .fixed(36_000, identifier: "AEST")
            timeZoneName = "Australia/Melbourne"
            startDay = CivilTime.daysFromCivil(year: 2024, month: 4, day: 5)
        }
    }

    public init(
        seed: UInt64 = 1, days: Int = 3, people: Int = 1, startDay: Int = CivilTime.daysFromCivil(year: 2024, month: 3, day: 29),
        movingIntervalS: Int = 1, originLat: Double = 52.5200, originLon: Double = 13.4050,
        timeZone: TimeZoneTable = .centralEuropean(years: 1996...2040), farOffFixes: Bool = true, gaps: Bool = true,
        planes: Bool = true
    ) {
        self.seed = seed
        self.days = days
        self.people = people
        self.startDay = startDay
        self.movingIntervalS = max(1, movingIntervalS)
        self.originLat = originLat
        self.originLon = originLon
        self.timeZone = timeZone
        self.farOffFixes = farOffFixes
        self.gaps = gaps
        self.planes = planes
    }
}

/// A place in the simulated world.
public struct TruthPlace: Sendable {
    public var id: Int
    public var person: Int
    /// home, work, shop_a, shop_b, lunch, park, friend, far, stop_*, airport, hotel …
    public var kind: String
    public var lat: Double
    public var lon: Double
    /// The wifi network seen there, if any.
    public var ssid: String?
}

/// A true stationary period at a place (arrival to departure).
public struct TruthStay: Sendable {
    public var device: String
    public var placeID: Int
    public var startMs: Int64
    public var endMs: Int64
    public var durationS: Double { Double(endMs - startMs) / 1000 }
}

/// One leg of a true trip.
public struct TruthLeg: Sendable {
    public var mode: TravelMode
    public var startMs: Int64
    public var endMs: Int64
    /// Length of the path actually travelled (metres, haversine over the 1 s true positions).
    public var distanceM: Double
    /// The varied world's habit this leg shows (`parking`: the walk between the door and the car; `jam_start`: a drive
    /// that starts with a stand and stop-and-go; `bike_and_ride`: the ride to or from the station and the train), nil
    /// elsewhere (and not written to truth.json then).
    public var habit: String? = nil
}

/// A true trip from one stay to the next.
public struct TruthTrip: Sendable {
    public var device: String
    public var startMs: Int64
    public var endMs: Int64
    public var fromPlaceID: Int
    public var toPlaceID: Int
    public var legs: [TruthLeg]
    public var distanceM: Double
    /// Stops of a few minutes or less inside the trip (traffic lights, bus stops, stations, waits).
    public var stops: Int
}

/// A span with no fixes: `stay` (phone off while at one place), `tunnel` (signal lost while moving),
/// `trip` (a short loss inside a trip), `dead` (the battery ran out: nothing at all, wherever the person was).
public struct TruthGap: Sendable {
    public var device: String
    public var startMs: Int64
    public var endMs: Int64
    public var kind: String
}

/// True totals of one local day of one device.
public struct TruthDay: Sendable {
    public var device: String
    public var date: String
    public var distanceM: Double
    public var trips: Int
    /// The sampling regime of the device that day (profiles other than `classic`), e.g. `owntracks-significant`.
    public var regime: String? = nil
}

/// A non-location record the app wrote (an OwnTracks `transition` or `waypoint`, an Overland `visit` or pause
/// action), exactly as the archive holds it in `raw`; the other fields are what the importer stores in `app_events`.
public struct SimulatedEvent: Sendable {
    public var kind: String
    public var timeMs: Int64
    public var utcOffsetS: Int32?
    public var lat: Double?
    public var lon: Double?
    public var startMs: Int64?
    public var endMs: Int64?
    public var raw: String
}

/// A trip record as Overland writes it when the user recorded a trip (`"type":"trip"`); evidence, not truth.
public struct AppTripRecord: Sendable {
    public var startMs: Int64
    public var endMs: Int64
    public var utcOffsetS: Int32
    public var distanceM: Double
    public var mode: String
    public var endLat: Double
    public var endLon: Double
    public var startLat: Double
    public var startLon: Double
}

/// One simulated device: its name, app, and fixes in time order (device id 0: the loader assigns ids).
public struct SimulatedDevice: Sendable {
    public var name: String
    public var app: SimulatedApp
    public var person: Int
    public var points: [Point]
    public var appTrips: [AppTripRecord]
    /// Non-location records (profiles other than `classic`), in time order.
    public var events: [SimulatedEvent] = []
}

/// Exact ground truth of a simulation.
public struct SimulationTruth: Sendable {
    public var places: [TruthPlace] = []
    public var stays: [TruthStay] = []
    public var trips: [TruthTrip] = []
    public var gaps: [TruthGap] = []
    public var days: [TruthDay] = []
    /// The zone the people live in (for `--timezone` when rebuilding OwnTracks data).
    public var timeZoneName: String = "Europe/Berlin"
}

/// What one simulation produced.
public struct SimulationResult: Sendable {
    public var config: SimulatorConfig
    public var devices: [SimulatedDevice]
    public var truth: SimulationTruth
}
