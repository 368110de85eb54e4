import TriplineCore
import TriplineStore
import TriplineGeography

/// Pass 4, `trips`: a trip runs from one stay to the next; legs by mode inside it.
///
/// The kept points between two stays form a trip; stops shorter than a stay (traffic lights, bus stops, stations)
/// and short silences (tunnels) stay inside it. A silence longer than `split_gap_s` splits it (missing data: what
/// happened then is unknown, so no distance is invented across it). A trip must move `min_distance_m`.
///
/// Legs: each point's speed (reported, else displacement over ≥ 10 s) gives the highest speed within ±`window_s`; that
/// speed says foot (< `walk_max_mps`), run (< `run_max_mps`), cycle (< `cycle_max_mps`) or motorised; points that did
/// not move take their neighbours' class. Runs shorter than `min_leg_s` join a neighbour (not a motorised one whose
/// fixes moved `vehicle_hold_m` at a vehicle's pace). With `profile` on, those classes only find where the traveller is
/// on foot: vehicle runs that no walk or silence parts form one leg, classified by its whole speed profile
/// (percentiles, steadiness, stops per km; see ``profileRuns``), so legs do not flicker between cycle and car.
/// Overland's motion states (when most of a leg's points carry one) override the speed class, and the app's own
/// `trip_mode` (when most points carry one) overrides both. A silence longer than `leg_gap_s` inside a trip ends a leg
/// (a change of vehicle out of the satellites' reach), and a shorter one crossed faster than walking parts a walk
/// (`fast_hop`). A walk meets a vehicle inside a hop of `hop_split_s` or more between their fixes, where the paces fit
/// (``hopsSplit(_:_:_:_:_:_:_:)``). A motorised leg is a plane above `flight_min_mps`, a boat when its path lies mostly
/// at sea at a vessel's speed (`boat_min_sea_share`, ``seaShare``), a train above `rail_min_mps` (no road vehicle is
/// that fast), else public transport when it is entered or left on foot (a bus below `train_min_mps`, else a train),
/// else a car. With `mode_model` on, each leg's class (foot, bicycle, motorised) is the learned mode model's
/// (``learnedClasses``, docs/PASSES.md "Learned modes") before the motion states, the app's mode and the motorised
/// modes above.
public struct TripsPass: MeasuringPass {
    public static let name = "trips"

    public struct Parameters: PassParameters {
        /// A silence longer than this (seconds) splits a trip (missing data).
        public var splitGapS: Double = 1800
        /// Two stays at two places with no fix between them imply the trip between them when they are at most this
        /// far apart in time (seconds): a day covers a long-haul flight with the phone off; a longer silence is
        /// missing data, and the trip's time and distance unknown.
        public var impliedMaxS: Double = 86_400
        /// … except a silence the traveller spent moving: one whose two ends lie at least this far apart per second of
        /// it (m/s, straight line) does not split the trip (a phone that died in a car and woke at the destination);
        /// its straight line counts towards the distance. 0 = off.
        public var travelMinMps: Double = 5
        /// Least path length (metres) of a trip.
        public var minDistanceM: Double = 150
        /// Half-window (seconds) of the highest-speed profile.
        public var windowS: Double = 30
        /// A speed counts only when held this long (seconds; the lowest speed within ±half of it), 0 = off.
        public var sustainS: Double = 0
        /// Class thresholds on the windowed highest speed (m/s).
        public var walkMaxMps: Double = 2.4
        public var runMaxMps: Double = 3.9
        /// A "run" whose speed varies more than this (standard deviation / mean) is a bicycle ride.
        public var runMaxCV: Double = 0.3
        /// A "run" that goes from one place to another (straight-line distance from its first to its last fix over its
        /// path length above this) is a bicycle ride: runners run loops and out-and-backs, a slow, even commuter ride
        /// goes somewhere (0 = off).
        public var runMaxStraightness: Double = 0.6
        public var cycleMaxMps: Double = 7.5
        /// Below this windowed speed (m/s) a point did not move: it takes its neighbours' class.
        public var stillMps: Double = 0.6
        /// A silence longer than this (seconds) inside a trip ends a leg (0 = off).
        public var legGapS: Double = 600
        /// A foot run between two vehicle runs (motorised; with `profile` on, bicycle too) that moved less than this
        /// (metres) is the vehicle crawling or standing in traffic, not a change of vehicle: it joins the vehicle leg.
        /// A change of vehicle walks to another stop or platform; a walk shorter than this between two buses is taken
        /// as one bus leg (chosen by leave-one-user-out on GeoLife, docs/PASSES.md).
        public var transferMinM: Double = 300
        /// Shortest leg (seconds).
        public var minLegS: Double = 120
        /// A motorised run shorter than `min_leg_s` is a leg all the same when its own fixes moved at least this far
        /// (metres, first to last in a straight line; 0 = off) at a motor vehicle's pace (above `cycle_max_mps`): a
        /// train seen by a few sparse fixes, not a GPS jump.
        public var vehicleHoldM: Double = 300
        /// Where a walk meets a vehicle across a hop of at least this long (seconds; 0 = off) between their fixes, the
        /// change lies inside the hop where the two paces fit its straight line, not at the vehicle's first fix
        /// (``TripsPass/hopsSplit(_:_:_:_:_:_:_:)``).
        public var hopSplitS: Double = 60
        /// A hop of at least `hop_split_s` between two fixes on foot, crossed faster than `walk_max_mps`, parts their run
        /// while short runs join a neighbour (1; 0 = off): the fixes at a station before a train ran on unseen are the
        /// train's, not the walk's.
        public var fastHop: Double = 1
        /// A walk at either end of a vehicle or bicycle trip, to or from where it was parked, is a leg of its own when
        /// it lasts this long (seconds; 0 = off), though shorter than `min_leg_s`: the fixes there are at walking pace,
        /// after the last `driving` state, and most of them say walking or running (``TripsPass/endWalks(_:_:_:_:_:)``).
        public var endWalkS: Double = 20
        /// A leg at walking pace beside a vehicle leg is no walk to or from public transport when most of its fixes say
        /// `driving`: the vehicle in a jam (1; 0 = off).
        public var jamDriven: Double = 1
        /// iOS names a walk late: a walk at a trip's end may begin with this long (seconds; 0 = off) of fixes still
        /// saying driving, after the vehicle's last stop; one at its start with this long still saying stationary
        /// (``TripsPass/endWalks(_:_:_:_:_:)``).
        public var endWalkLagS: Double = 60
        /// A run classed a bicycle or faster by its speeds whose 90th-percentile speed is above this (m/s; 0 = off) stays
        /// so, though most of its fixes say walking: iOS still names the walk before a vehicle.
        public var motionWalkMaxMps: Double = 2.4
        /// A foot run between two vehicle runs whose fixes mostly say walking or running is a walk however little it
        /// moved (1; 0 = off): out of the car and back.
        public var stopOnFoot: Double = 1
        /// How many ends of a vehicle leg walked to or from must be open for it to be public transport: 2 (algorithm
        /// version 99: a walk, a bicycle or another vehicle at each end, or a logger's recording beginning or ending
        /// there), or 1 (before: a walk at either end). A bus is walked to and from; a car waits where it was parked,
        /// so a drive with a walk at one end only, however long (a car park 300 m from the shop), is a drive.
        public var transitFeet: Double = 2
        /// With `profile`, neighbouring runs of a bicycle's pace or faster join into one vehicle leg unless most fixes of
        /// one say cycling and most of the other driving (1; 0 = off): bike and ride.
        public var profileStates: Double = 1
        /// Neighbouring runs whose modes came out the same are one leg unless a silence of `leg_gap_s` parts them
        /// (1; 0 = off).
        public var joinSameMode: Double = 1
        /// A silence crossed in a straight line at least this fast (m/s) was flown; transit legs faster than
        /// `train_min_mps` are trains.
        public var planeMinMps: Double = 70
        /// Motorised legs faster than this (95th percentile, m/s) are planes: above every train in service (350 km/h,
        /// 97 m/s; a Shinkansen at 281 km/h was a plane at `plane_min_mps`' 70 m/s), below an airliner's cruise.
        public var flightMinMps: Double = 100
        public var trainMinMps: Double = 17
        /// Motorised legs faster than this (95th percentile, m/s) but slower than a plane are trains even when not
        /// entered on foot: no road vehicle keeps 160 km/h.
        public var railMinMps: Double = 45
        /// A motorised leg slower than `rail_min_mps`, entered or left on foot, whose fixes lie more than this apart
        /// (median, seconds) is a `vehicle`, not public transport: at that sampling a walk to a stop and a car
        /// crawling out of a car park look alike, and nothing tells a car from a bus or a train (sparse Google
        /// histories: highway driving was called `train`). A trip none of whose fixes moved, faster than
        /// `cycle_max_mps` stay to stay, is a `vehicle` too. 0 = off: such legs are bus or train as dense ones are,
        /// and such trips car.
        public var vehicleMaxIntervalS: Double = 20
        /// A motorised leg slower than a plane whose path lies at sea for at least this share (``seaShare``: more than
        /// 1.5 km beyond the 1:10m coastline, where ``Geography/country(latitude:longitude:)`` finds no country) and
        /// whose 95th-percentile speed is at most `boat_max_mps` is a `boat` (a ferry). 0 = off.
        public var boatMinSeaShare: Double = 0.6
        /// The fastest a vessel goes (95th percentile, m/s; 25 m/s = 90 km/h, beyond the fastest passenger ferries'
        /// 40 knots): a faster leg over the sea is a plane or something else, not a boat.
        public var boatMaxMps: Double = 25
        /// The sea test looks up one fix per this much path (metres), or every fix where they lie farther apart:
        /// each lookup stands for the path since the one before.
        public var boatSampleM: Double = 200
        /// A motorised leg that holds a stretch at sea of at least this much path (metres, beyond the coast's 1.5 km
        /// margins) at a vessel's speed, but is not mostly at sea (`boat_min_sea_share`: that is a boat whole), is cut
        /// there (``seaCut``): a car driven onto a ferry is car, boat, car. 0 = off.
        public var boatCutMinM: Double = 5000
        /// Vehicle runs (run, cycle, motorised) not parted by a walk or a silence form one leg whose mode comes from
        /// its whole speed profile (1 = on, 0 = each run keeps its own class). People change vehicles on foot: a car
        /// does not turn into a bicycle at a red light, so a slow stretch of a car ride is not a bicycle leg.
        public var profile: Double = 1
        /// Profile of a vehicle leg (time-weighted speed percentiles of its moving fixes): a bicycle keeps its 85th
        /// percentile below `cycle_p85_max_mps` and its 95th below `cycle_p95_max_mps`; faster is motorised.
        public var cycleP85MaxMps: Double = 7
        public var cycleP95MaxMps: Double = 10
        /// A faster leg is still a bicycle when it is steady (85th / 50th percentile at most `cycle_steady_ratio`:
        /// a road cyclist keeps a cadence, motor traffic alternates crawling and bursts) and its 95th percentile stays
        /// below `cycle_steady_p95_max_mps` (40 km/h: a sporty ride at 25–30 km/h with short faster stretches; a
        /// car cruising at 43 km/h or more is not a bicycle).
        public var cycleSteadyRatio: Double = 1.35
        public var cycleSteadyP95MaxMps: Double = 11
        /// … and it stops (at least 10 s below `still_mps`) less often than this per km: a bus keeps its cadence
        /// between stops every few hundred metres, a cyclist on an open road rarely stops.
        public var cycleSteadyMaxStopsPerKm: Double = 1
        /// … and its median moving speed is at most this (m/s; 29 km/h, a fast amateur's cruise): a vehicle that
        /// holds 33 km/h without stopping is a car, not a cyclist.
        public var cycleSteadyP50MaxMps: Double = 8
        /// A vehicle leg whose 85th percentile is below `walk_max_mps` is a walk (GPS scatter, not a vehicle).
        public var profileWalk: Double = 1
        /// A leg the rules call foot between two motorised legs of one trip whose fixes are not a pedestrian's
        /// (``ModeFeatures/pedestrian(_:walkMaxMps:)``: steady walking pace, short stops) is the vehicle crawling and
        /// standing in traffic: the three join as one motorised leg (1 = on, 0 = off; docs/PASSES.md, "Vehicles the
        /// rules call walks").
        public var crawlJoin: Double = 1
        /// A candidate trip that never goes 1 km from its first fix is dropped when the learned model calls it drift
        /// (``TripCutModel``; 1 = on, 0 = off).
        public var cutModel: Double = 1
        /// A candidate whose fixes keep a vehicle's pace (`walk_max_mps`, measured over a minute, ``RideGuard``) for at
        /// least this long (seconds) is a ride, whatever the drift-or-walk model says (0 = off): a GPS jump out and
        /// back within a minute draws under 180 s of such windows (algorithm version 40; docs/PASSES.md, "Rides the
        /// drift model dropped").
        public var rideGuardS: Double = 180
        /// A candidate whose fixes carry the app's motion states of walking, running or cycling for at least this long
        /// (seconds) in all is a trip, whatever the drift-or-walk model says (0 = off): GPS drift at a stay has no
        /// steps, and a phone lying still says `stationary` (``MotionGuard``; algorithm version 57). The model learned
        /// from GeoLife, whose labels lost their walks and which records no motion states; it called the simulator's
        /// walks out and back from home (5–12 min, 250–670 m) drift. 120 in version 57; 60 since 58, the one measure of
        /// steps the stays and trips passes share (`stays.steps_leave_s`, `walk_out_s`, `steps_min_s`).
        public var walkGuardS: Double = 60
        /// A trip shorter than `min_distance_m` is one all the same when its fixes carry walking, running or cycling
        /// states for this long (seconds; ``MotionGuard``) and it moves `steps_min_distance_m`: the walk from home to
        /// the kiosk 100 m away, which the app heard (algorithm version 58; 0 = off).
        public var stepsMinS: Double = 60
        /// … the path (metres) such a trip must still cover.
        public var stepsMinDistanceM: Double = 50
        /// Each leg's class (foot, bicycle, motorised) from the speed rules alone (0, the default), or from the learned
        /// mode model over its features where the leg is like GeoLife's (1); see ``learnedClasses`` and
        /// docs/PASSES.md, "Learned modes" and "Learned modes that do not learn the logger": GPS loggers without
        /// speeds are GeoLife-like to every gate, and there the model, which never saw a walk logged slower than
        /// every second, turns walks into vehicles. 2 (development, to measure the model where it does not decide):
        /// on every leg of three fixes or more, whatever its sampling.
        public var modeModel: Double = 0
        /// A walk the learned model may not turn into a vehicle (1 = on, 0 = off; ``ModeFeatures/pedestrian(_:walkMaxMps:)``):
        /// the trip's only leg, the rules call it foot, its 95th-percentile speed is below `walk_max_mps`, and its
        /// stops are a pedestrian's (docs/PASSES.md, "Walks the labels cannot teach").
        public var footGuard: Double = 1
        /// The learned model decides only legs whose median fix interval is at most this (seconds;
        /// ``ModeFeatures/learnedMaxFixIntervalS``: sparser fixes are outside what it learned from).
        public var modelMaxIntervalS: Double = ModeFeatures.learnedMaxFixIntervalS
        /// On a leg whose median fix interval is above this (seconds), the learned model may not move the leg across
        /// foot / not foot: a leg the rules call foot stays foot, one they call bicycle or motorised takes the model's
        /// better of those two (docs/PASSES.md, "Learned modes that do not learn the logger").
        public var modelFootMaxIntervalS: Double = ModeFeatures.learnedMaxFixIntervalS
        /// The learned model's coefficients (not a `--set` key): the shipped ones (`Learned/ModeModel.swift`, generated
        /// by `scripts/train-modes.py`), or others for development (`evaluate --mode-model`).
        public var learnedModes = ModeModel.shipped
        /// Development only (not a `--set` key): collects every leg's features (`evaluate --dump-leg-features`).
        public var featureLog: LegFeatureLog? = nil
        public init() {}
        public static var keys: Keys { [
            "split_gap_s": \.splitGapS, "implied_max_s": \.impliedMaxS, "travel_min_mps": \.travelMinMps, "min_distance_m": \.minDistanceM, "window_s": \.windowS, "sustain_s": \.sustainS, "walk_max_mps": \.walkMaxMps,
            "run_max_mps": \.runMaxMps, "run_max_cv": \.runMaxCV, "run_max_straightness": \.runMaxStraightness, "cycle_max_mps": \.cycleMaxMps, "still_mps": \.stillMps, "min_leg_s": \.minLegS, "vehicle_hold_m": \.vehicleHoldM, "hop_split_s": \.hopSplitS, "fast_hop": \.fastHop, "end_walk_s": \.endWalkS, "end_walk_lag_s": \.endWalkLagS, "motion_walk_max_mps": \.motionWalkMaxMps, "stop_on_foot": \.stopOnFoot, "transit_feet": \.transitFeet, "jam_driven": \.jamDriven, "profile_states": \.profileStates, "join_same_mode": \.joinSameMode, "leg_gap_s": \.legGapS, "transfer_min_m": \.transferMinM,
            "plane_min_mps": \.planeMinMps, "flight_min_mps": \.flightMinMps, "train_min_mps": \.trainMinMps, "rail_min_mps": \.railMinMps,
            "vehicle_max_interval_s": \.vehicleMaxIntervalS,
            "boat_min_sea_share": \.boatMinSeaShare, "boat_max_mps": \.boatMaxMps, "boat_sample_m": \.boatSampleM, "boat_cut_min_m": \.boatCutMinM,
            "profile": \.profile, "cycle_p85_max_mps": \.cycleP85MaxMps, "cycle_p95_max_mps": \.cycleP95MaxMps, "cycle_steady_ratio": \.cycleSteadyRatio, "cycle_steady_p95_max_mps": \.cycleSteadyP95MaxMps, "cycle_steady_max_stops_per_km": \.cycleSteadyMaxStopsPerKm, "cycle_steady_p50_max_mps": \.cycleSteadyP50MaxMps, "profile_walk": \.profileWalk, "cut_model": \.cutModel, "ride_guard_s": \.rideGuardS,
            "walk_guard_s": \.walkGuardS, "steps_min_s": \.stepsMinS, "steps_min_distance_m": \.stepsMinDistanceM,
            "mode_model": \.modeModel, "foot_guard": \.footGuard, "model_max_interval_s": \.modelMaxIntervalS,
            "model_foot_max_interval_s": \.modelFootMaxIntervalS, "crawl_join": \.crawlJoin,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges"): class thresholds are speeds above 0; the windows the pass
        /// scans around each fix are at most an hour; `profile` and `profile_walk` are switches.
        public static var ranges: Ranges { [
            "split_gap_s": .positiveDuration, "implied_max_s": .duration, "travel_min_mps": .speedOrOff,
            "min_distance_m": .distanceOrOff, "window_s": .window, "sustain_s": .window, "walk_max_mps": .speed,
            "run_max_mps": .speed, "run_max_cv": ParameterRange(0, 100),  // a coefficient of variation
            "run_max_straightness": .share,  // straight line ÷ path: at most 1
            "cycle_max_mps": .speed, "still_mps": .speedOrOff, "min_leg_s": .duration, "vehicle_hold_m": .distanceOrOff, "hop_split_s": .window, "fast_hop": .flag, "end_walk_s": .window, "end_walk_lag_s": .window,
            "motion_walk_max_mps": .speedOrOff, "stop_on_foot": .flag, "transit_feet": ParameterRange(1, 2, whole: true),
            "jam_driven": .flag, "profile_states": .flag, "join_same_mode": .flag, "leg_gap_s": .duration,
            "transfer_min_m": .distanceOrOff, "plane_min_mps": .speed, "flight_min_mps": .speed, "train_min_mps": .speed, "rail_min_mps": .speed,
            "vehicle_max_interval_s": .window,  // 0 = off; an hour between fixes is far beyond any sampling that shows a stop
            "boat_min_sea_share": .share, "boat_max_mps": .speed,
            "boat_sample_m": ParameterRange(1, 100_000),  // at least a metre: a lookup per fix at most
            "boat_cut_min_m": .distanceOrOff,
            "profile": .flag, "cycle_p85_max_mps": .speed, "cycle_p95_max_mps": .speed,
            "cycle_steady_ratio": ParameterRange(0, 100),  // p85 ÷ p50 (at least 1); 0 turns the steady-ride rule off (scripts/loo-grid.txt tries it)
            "cycle_steady_p95_max_mps": .speed, "cycle_steady_max_stops_per_km": ParameterRange(0, 1000),
            "cycle_steady_p50_max_mps": .speed, "profile_walk": .flag, "cut_model": .flag, "ride_guard_s": .window,
            "walk_guard_s": .window, "steps_min_s": .window, "steps_min_distance_m": .distanceOrOff,
            "mode_model": ParameterRange(0, 2, whole: true),  // 2: everywhere (development)
            "foot_guard": .flag, "model_max_interval_s": .window, "model_foot_max_interval_s": .window,
            "crawl_join": .flag,
        ] }
    }

    public var parameters: Parameters
    public var metrics: MetricsPass.Parameters
    /// The drift-or-walk model (`cut_model`): the shipped coefficients unless an evaluation replaces them.
    public var cutModel: TripCutModel = .shipped
    /// Receives every drift candidate's features when set (the training export).
    public var cutLog: TripCutLog? = nil
    /// Whether the trips pass stores its trips itself. The runner turns it off when the paths pass runs in the same
    /// rebuild: the trips are left in ``DeviceWork/trips`` and the paths pass stores them once it has measured them
    /// (`trips` and `legs` written once per rebuild).
    public var writesTrips = true

    public init(parameters: Parameters = Parameters(), metrics: MetricsPass.Parameters = .init()) {
        self.parameters = parameters
        self.metrics = metrics
    }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        self.init(parameters: p, metrics: try MetricsPass(settings: settings).parameters)
        if let model = settings.tripCutModel { cutModel = model }
        if let model = settings.modeModel { parameters.learnedModes = model }
        cutLog = settings.tripCutLog
    }

    /// Speed of each of `pts`: reported, else displacement over at least 10 s.
    static func speeds(_ w: DeviceWork, _ pts: [Int]) -> [Double] {
        let m = pts.count
        var v = [Double](repeating: 0, count: m)
        for k in 0..<m {
            let r = w.speed[pts[k]]
            if !r.isNaN && r >= 0 { v[k] = r; continue }
            var a = k, b = k
            while (a > 0 || b < m - 1) && w.time[pts[b]] - w.time[pts[a]] < 10_000 {
                if a > 0 && (b == m - 1 || k - a <= b - k) { a -= 1 } else if b < m - 1 { b += 1 }
            }
            let dt = Double(w.time[pts[b]] - w.time[pts[a]]) / 1000
            v[k] = dt > 0 && dt <= 600 ? Geo.distance(w.lat[pts[a]], w.lon[pts[a]], w.lat[pts[b]], w.lon[pts[b]]) / dt : 0
        }
        return v
    }

    /// Finds trips between stays, with legs and metrics.
    public static func detect(_ w: DeviceWork, stays: [StayRecord], _ p: Parameters, _ mp: MetricsPass.Parameters,
                              cutModel: TripCutModel = .shipped, cutLog: TripCutLog? = nil) -> [TripRecord] {
        var trips: [TripRecord] = []
        let splitMs = Int64(p.splitGapS * 1000)
        func segment(_ lo: Int, _ hi: Int, from: Int?, to: Int?) {
            // Kept points strictly inside (lo, hi).
            var pts: [Int] = []
            var i = lo + 1
            while i < hi {
                if w.flags[i] == 0 { pts.append(i) }
                i += 1
            }
            // A stay without fixes (an iOS visit no fix saw, a stop on the way) points at the fix before it, which lies
            // before its start: that fix is the trip's way there, as the paths and metrics passes read the trip back from
            // its times (``interior(startMs:endMs:fromVisit:toVisit:_:)``), so its moving time and its days agree. So it
            // is when it is the only fix between the two stays (after the stay before has ended): until algorithm
            // version 78 the trip was then the two stays' edges alone, whose fixes were the stop's own and the stay
            // before's, so it measured nothing and was no trip — a visit, then a visit 800 m away with no trip between
            // (an OwnTracks phone's stop on the way, ``EvidencePass/wayStops``).
            if let t = to, stays[t].points == 0, hi > lo, hi < w.count, w.flags[hi] == 0, w.time[hi] < stays[t].startMs,
               !pts.isEmpty || from.map({ w.time[hi] > stays[$0].endMs }) ?? true {
                pts.append(hi)
            }
            // No fix in between (sparse sampling): the trip joins the two stays' edge points, and runs from the one
            // stay to the other however long the silence (the points are the stays' own, so no silence between them
            // splits it; issue 10: two stays at two places imply the trip).
            // A silence longer than `implied_max_s` implies nothing: the phone was off or the data is missing for
            // days, and a trip "from" one stay "to" the other would invent its time and distance.
            let edgesOnly = pts.isEmpty
            if pts.isEmpty, let f = from, let t = to,
               Double(stays[t].startMs - stays[f].endMs) <= p.impliedMaxS * 1000 {
                // Two stays that abut: no fix missed between them (their edge fixes no further apart in time than
                // 1.5 × the longer of the intervals at those edges), and neither those fixes nor the step between them
                // moving (reported speeds and the step's pace below `metrics.moving_mps`, the step shorter than
                // `min_distance_m`): nothing went unseen and the fixes show no trip. A dawdle (a walk round a 111-m
                // circle at 0.4 m/s, below `stays.moving_mps`) is cut into adjacent stays; taking the distance between
                // their centres made 10-s "trips" of 180 m at 18 m/s (algorithm version 48).
                let a = stays[f].last, b = stays[t].first
                if a > 0, b + 1 < w.count, b > a, w.time[b] > w.time[a] {
                    let gap = w.time[b] - w.time[a]
                    let sampling = max(w.time[a] - w.time[a - 1], w.time[b + 1] - w.time[b])
                    let step = Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b])
                    let still = [w.speed[a], w.speed[b], step / (Double(gap) / 1000)].allSatisfy { $0.isNaN || $0 < mp.movingMps }
                    if gap * 2 <= sampling * 3, still, step < p.minDistanceM { return }
                }
                // Two stays further apart than anything travels in the time between them (faster than sound,
                // `maxPaceMps`: the clean pass's `max_mps`): the jump is bad data or a clock's error, and a trip
                // across it would invent a distance and a speed (3,000 m/s for 20 min, then an hour 3,600 km away,
                // was a 4,032-km trip at 3,332 m/s; algorithm version 48). The two stays stand, with no trip.
                let seconds = Double(stays[t].startMs - stays[f].endMs) / 1000
                if Geo.distance(stays[f].lat, stays[f].lon, stays[t].lat, stays[t].lon) > Self.maxPaceMps * max(seconds, 1) { return }
                pts = [stays[f].last, stays[t].first]
            }
            guard !pts.isEmpty else { return }
            // No fix between two stays and a silence longer than `split_gap_s` between them: their straight line is
            // crossed, as between two fixes (``splitAtSilences``), when travel explains the silence (``travelled``): a
            // flight with the phone in airplane mode, from the stay at the departure airport to the one at the arrival
            // airport. Before algorithm version 82 such a trip measured its two edge fixes' step alone and was none: BER
            // to JFK in 9 hours left no trip and no day's distance.
            var silent = 0.0
            if edgesOnly, let f = from, let t = to {
                let ms = stays[t].startMs - stays[f].endMs, metres = Geo.distance(stays[f].lat, stays[f].lon, stays[t].lat, stays[t].lon)
                if ms > Int64(p.splitGapS * 1000), Self.travelled(metres, ms, p) { silent = metres }
            }
            let (parts, crossed, gapBefore, gapAfter) = edgesOnly
                ? ([pts], [silent], false, false)
                : splitAtSilences(w, pts, from: from.map { stays[$0] }, to: to.map { stays[$0] }, p)
            for (n, part) in parts.enumerated() where !part.isEmpty {
                let f = n == 0 && !gapBefore ? from : nil
                let t = n == parts.count - 1 && !gapAfter ? to : nil
                var trip = TripRecord(
                    first: part[0], last: part.last!, startMs: f.map { stays[$0].endMs } ?? w.time[part[0]],
                    endMs: t.map { stays[$0].startMs } ?? w.time[part.last!], fromStay: f, toStay: t)
                Self.holdFixes(&trip, w, part, edgesOnly: edgesOnly)
                // Sparse fixes: the stretch between a stay and a fix far from it counts towards `min_distance_m` too.
                var connectors = PathsPass.connectors(w, part, from: f.map { stays[$0] }, to: t.map { stays[$0] }) + crossed[n]
                // No fix in between, the stays less than `split_gap_s` apart and their edge fixes each within 30 s of
                // the fix before (after) it: the two stays' distance counts (the edge fixes may be further apart than
                // `metrics.bridge_max_s`, so that the increments leave it out: a short walk under an iOS pause, whose
                // stays are sampled every 5–15 s, or a trip hidden by a killed app between a stop and an iOS visit).
                // Sparse stays are left as they were (OwnTracks: more trips found, more spurious ones; development
                // seeds F1 0.904 → 0.897 without these conditions).
                if edgesOnly, let f, let t, stays[t].startMs - stays[f].endMs <= splitMs,
                   stays[f].last > 0, w.time[stays[f].last] - w.time[stays[f].last - 1] <= 30_000,
                   stays[t].first + 1 < w.count, w.time[stays[t].first + 1] - w.time[stays[t].first] <= 30_000 {
                    connectors = max(connectors, Geo.distance(stays[f].lat, stays[f].lon, stays[t].lat, stays[t].lon))
                }
                if let t = build(&trip, w, part, p, mp, extraDistanceM: connectors, unseen: edgesOnly,
                                 ends: (f.map { (stays[$0].lat, stays[$0].lon) }, t.map { (stays[$0].lat, stays[$0].lon) })), t {
                    // Drift or walk: a trip of its own fixes that never went far from its first is a candidate.
                    if !edgesOnly, p.cutModel > 0 || cutLog != nil,
                       let features = TripCutFeatures.compute(
                        w, part, startMs: trip.startMs, endMs: trip.endMs, from: trip.fromStay.map { stays[$0] }, to: trip.toStay.map { stays[$0] },
                        distanceM: trip.distanceM, speeds: speeds(w, part)) {
                        let drop = p.cutModel > 0 && cutModel.isDrift(features)
                            && !(p.rideGuardS > 0 && RideGuard.sustainedS(w, part, paceMps: p.walkMaxMps) >= p.rideGuardS)
                            && !(p.walkGuardS > 0 && MotionGuard.movingS(w, part) >= p.walkGuardS)
                            && !(p.walkGuardS > 0 && SpeedGuard.movingS(w, part[...]) >= p.walkGuardS)
                        cutLog?.add(TripCutCandidate(startMs: trip.startMs, endMs: trip.endMs, features: features, dropped: drop))
                        if drop { continue }
                    }
                    trips.append(trip)
                }
            }
        }
        if stays.isEmpty {
            segment(lowerBound(w.time, w.processFromMs) - 1, w.count, from: nil, to: nil)
            return trips
        }
        if w.previousStay == nil { segment(-1, stays[0].first, from: nil, to: 0) }
        for k in 0..<(stays.count - 1) { segment(stays[k].last, stays[k + 1].first, from: k, to: k + 1) }
        segment(stays.last!.last, w.count, from: stays.count - 1, to: nil)
        return trips
    }

    /// Makes a trip possible: it ends no earlier than it starts, and holds its own fixes. A stay that the evidence pass
    /// stretched over the trip's first fix (or the next stay over its last) no longer moves the trip's start past it:
    /// the trip starts a millisecond before its first fix (ends one after its last; the paths and metrics passes find
    /// a trip's fixes from its times, and a trip starting exactly at a fix leaves that fix to the stay). A trip no fix
    /// saw whose two stays' estimated edges cross takes no time, at the middle of the two. Before, 17 of 4,564 trips
    /// of a real Google history ended before they started (issue 28).
    static func holdFixes(_ trip: inout TripRecord, _ w: DeviceWork, _ part: [Int], edgesOnly: Bool) {
        if !edgesOnly, let first = part.first, let last = part.last {
            if trip.fromStay != nil { trip.startMs = min(trip.startMs, w.time[first] - 1) }
            if trip.toStay != nil { trip.endMs = max(trip.endMs, w.time[last] + 1) }
        }
        if trip.endMs < trip.startMs {
            let middle = trip.startMs + (trip.endMs - trip.startMs) / 2
            (trip.startMs, trip.endMs) = (middle, middle)
        }
    }

    /// The most a traveller's speed changes per second (m/s²): a strong car's half a g, as the clean pass's
    /// `jump_accel_mps2` (``reportedSpeedHolds(_:_:_:_:_:_:)``).
    static let reportedSpeedAccelMps2 = 5.0
    /// What a reported (Doppler) speed may differ by beyond that acceleration: its own noise (m/s).
    static let reportedSpeedSlackMps = 2.0

    /// Whether the speed fix `pts[k]` reports could be the traveller's: reachable at ``reportedSpeedAccelMps2`` from
    /// the speed a fix beside it reports, or, where neither reports one, no faster than the straight line between the
    /// fixes beside it allows at that acceleration. A walk's one fix reporting 95 m/s between fixes 5 s apart at
    /// 1.4 m/s was the trip's maximum (342 km/h); a vehicle cannot gain and lose 90 m/s in 10 s. A lone fix holds.
    static func reportedSpeedHolds(
        _ k: Int, _ pts: [Int], _ time: [Int64], _ lat: [Double], _ lon: [Double], _ speed: [Double]
    ) -> Bool {
        let i = pts[k], s = speed[i]
        guard s >= 0 else { return false }
        var reported = false
        for n in [k - 1, k + 1] where n >= 0 && n < pts.count {
            let j = pts[n], other = speed[j]
            guard !other.isNaN, other >= 0 else { continue }
            reported = true
            let seconds = Double(abs(time[j] - time[i])) / 1000
            if abs(s - other) <= reportedSpeedAccelMps2 * seconds + reportedSpeedSlackMps { return true }
        }
        guard k > 0, k + 1 < pts.count else { return !reported }
        let a = pts[k - 1], b = pts[k + 1]
        let seconds = Double(time[b] - time[a]) / 1000
        guard seconds > 0 else { return !reported }
        let pace = Geo.distance(lat[a], lon[a], lat[b], lon[b]) / seconds
        return s <= pace + reportedSpeedAccelMps2 * seconds / 2 + reportedSpeedSlackMps
    }

    /// The highest speed the fixes `pts` show: their reported speeds (the app's own, Doppler) that
    /// ``reportedSpeedHolds(_:_:_:_:_:_:)``, and the straight line
    /// over each shortest run of consecutive fixes that spans at least 10 s (at 1 Hz a chord of one fix to the next
    /// would add metres of noise per second; across a silence it is the pace over it, a lower bound of the speed
    /// then: a flight's fixes give the flight's pace). Nil when there is neither a reported speed nor two fixes apart
    /// in time.
    static func maxSpeed(_ w: DeviceWork, _ pts: [Int]) -> Double? {
        // The columns once (a class's array property checks exclusivity at run time on every read).
        let time = w.time, lat = w.lat, lon = w.lon, speed = w.speed
        let m = pts.count
        var best = -1.0
        for k in 0..<m where !speed[pts[k]].isNaN && speed[pts[k]] > best && reportedSpeedHolds(k, pts, time, lat, lon, speed) {
            best = speed[pts[k]]
        }
        guard m >= 2 else { return best >= 0 ? best : nil }
        // A chord that cannot beat the best speed so far needs no haversine (the result is the same): its length is at
        // most that of the straight way in latitude and longitude between its fixes, whose metres east are those of
        // the degrees of longitude at the lowest latitude that way passes (the fixes' lowest, or the equator when
        // they lie on both sides of it); 0.1 % above, for the rounding of the haversine and the cosine.
        var south = Double.infinity, north = -Double.infinity
        for i in pts {
            south = min(south, lat[i])
            north = max(north, lat[i])
        }
        let bounded = south >= -90 && north <= 90  // every latitude a number on the sphere
        let lowest = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
        let eastFactor = bounded ? Geo.cosLatitude(lowest) : 1
        var b = 1
        for a in 0..<(m - 1) {
            if b <= a { b = a + 1 }
            while b < m - 1 && time[pts[b]] - time[pts[a]] < 10_000 { b += 1 }
            let ms = time[pts[b]] - time[pts[a]]
            // A span shorter than 10 s counts only when it is all there is.
            guard ms >= 10_000 || (a == 0 && b == m - 1 && ms > 0) else { continue }
            let i = pts[a], j = pts[b]
            if bounded {
                let dLat = lat[j] - lat[i], dLon = (lon[j] - lon[i]) * eastFactor
                let way = (dLat * dLat + dLon * dLon).squareRoot() * Geo.metresPerDegree * 1.001 + 0.001
                if way / (Double(ms) / 1000) <= best { continue }
            }
            best = max(best, Geo.distance(lat[i], lon[i], lat[j], lon[j]) / (Double(ms) / 1000))
        }
        return best >= 0 ? best : nil
    }

    /// The time of `trip` spent under way: the time between consecutive fixes at ≥ `metrics.moving_mps` (as the
    /// metrics pass counts it), the silences the trip crosses (longer than `split_gap_s`: the traveller moved
    /// through them, and their straight line is in the distance), and the stretches from the stay left to the first
    /// fix and from the last fix to the stay reached when they are long enough (`paths.connector_min_m`) for their
    /// distance to count — all within the trip's start and end, so never more than its duration. A trip no fix saw
    /// was under way all along: its distance is the two stays' (issue 28: 115 of 4,564 real trips moved longer than
    /// they lasted, 840 s in a 41-s trip, and a crossed silence's distance without its time put the average above
    /// the maximum in 56 % of them).
    static func movingTime(
        _ trip: TripRecord, _ w: DeviceWork, _ pts: [Int], _ moving: [Double], unseen: Bool, ends: (from: (Double, Double)?, to: (Double, Double)?),
        _ p: Parameters, _ mp: MetricsPass.Parameters
    ) -> Double {
        let duration = Double(trip.endMs - trip.startMs) / 1000
        if unseen { return duration }
        var ms: Int64 = 0
        for s in movingStretches(startMs: trip.startMs, endMs: trip.endMs, w, pts, moving, unseen: false, ends: ends,
                                 silences: .init(p, mp)) {
            ms += s.to - s.from
        }
        return min(duration, Double(ms) / 1000)
    }

    /// Which silences inside a trip the traveller was under way through (``movingStretches``): those longer than
    /// `split_gap_s` (the trip crosses them only when travel explains them), and those longer than
    /// `metrics.bridge_max_s` crossed at least at `metrics.moving_mps` in a straight line (``crossedSilences``).
    public struct Silences: Sendable {
        var splitGapS: Double
        var bridgeMaxS: Double
        /// `metrics.moving_mps`: the least pace of a silence crossed under way (its straight line less both fixes'
        /// accuracy over its time), as between any two fixes.
        var minPaceMps: Double

        init(_ p: Parameters, _ mp: MetricsPass.Parameters) {
            (splitGapS, bridgeMaxS, minPaceMps) = (p.splitGapS, mp.bridgeMaxS, mp.movingMps)
        }

        init(splitGapS: Double, bridgeMaxS: Double, minPaceMps: Double) {
            (self.splitGapS, self.bridgeMaxS, self.minPaceMps) = (splitGapS, bridgeMaxS, minPaceMps)
        }

        /// Whether the silence from fix `a` to fix `b` is one the trips pass counts in the leg that holds it (its own, or a
        /// vehicle's that carried on): longer than `metrics.bridge_max_s`, at most `split_gap_s`, crossed under way.
        func ridden(_ w: DeviceWork, _ a: Int, _ b: Int) -> Bool {
            Double(w.time[b] - w.time[a]) <= splitGapS * 1000 && crossed(w, a, b)
        }

        /// Whether the silence from fix `a` to fix `b` (no increment bridges it) was crossed under way
        /// (``TrackMotion/crossedSilence(seconds:accuracyBefore:accuracy:bridgeMaxS:splitGapS:minPaceMps:metres:)``).
        func crossed(_ w: DeviceWork, _ a: Int, _ b: Int) -> Bool {
            TrackMotion.crossedSilence(
                seconds: Double(w.time[b] - w.time[a]) / 1000, accuracyBefore: w.accuracy[a], accuracy: w.accuracy[b], bridgeMaxS: bridgeMaxS,
                splitGapS: splitGapS, minPaceMps: minPaceMps) { Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) }
        }

        /// The straight line (metres) over the silence from fix `a` to fix `b` when it was crossed under way (``crossed``),
        /// which the trip counts; nil otherwise.
        func crossedLineM(_ w: DeviceWork, _ a: Int, _ b: Int) -> Double? {
            let line = Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b])
            let crossed = TrackMotion.crossedSilence(
                seconds: Double(w.time[b] - w.time[a]) / 1000, accuracyBefore: w.accuracy[a], accuracy: w.accuracy[b], bridgeMaxS: bridgeMaxS,
                splitGapS: splitGapS, minPaceMps: minPaceMps) { line }
            return crossed ? line : nil
        }

        /// The least pace (m/s) over the silence from fix `a` to fix `b` (``TrackMotion/silencePace(seconds:metres:accuracyBefore:accuracy:)``:
        /// each fix's accuracy, at least 5 m; 30 m when it reports none, GPX and GeoLife).
        static func pace(_ w: DeviceWork, _ a: Int, _ b: Int) -> Double {
            TrackMotion.silencePace(seconds: Double(w.time[b] - w.time[a]) / 1000, metres: Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]),
                                    accuracyBefore: w.accuracy[a], accuracy: w.accuracy[b])
        }
    }

    /// The stretches of a trip from `startMs` to `endMs` under way, as ``movingTime`` counts them (one rule for the
    /// trip and for its local days, ``MetricsPass``): each from and to (ms, clipped to the trip), with the position in
    /// `pts` of the fix it ends at when it is time between consecutive fixes at ≥ `metrics.moving_mps` (`moving`);
    /// nil for a crossed silence (``Silences``), a counted connector and a trip no fix saw (`unseen`, under way all along).
    static func movingStretches(
        startMs: Int64, endMs: Int64, _ w: DeviceWork, _ pts: [Int], _ moving: [Double], unseen: Bool,
        ends: (from: (Double, Double)?, to: (Double, Double)?), silences: Silences
    ) -> [(from: Int64, to: Int64, fix: Int?)] {
        if unseen { return endMs > startMs ? [(startMs, endMs, nil)] : [] }
        guard !pts.isEmpty else { return [] }
        var out: [(from: Int64, to: Int64, fix: Int?)] = []
        func add(_ a: Int64, _ b: Int64, _ fix: Int?) {
            let lo = max(a, startMs), hi = min(b, endMs)
            if hi > lo { out.append((lo, hi, fix)) }
        }
        let connectorM = PathsPass.Parameters().connectorMinM
        let first = pts[0], last = pts[pts.count - 1]
        if let from = ends.from, Geo.distance(from.0, from.1, w.lat[first], w.lon[first]) >= connectorM { add(startMs, w.time[first], nil) }
        for k in 1..<max(1, pts.count) {
            let a = w.time[pts[k - 1]], b = w.time[pts[k]]
            if moving[k] > 0 { add(a, b, k) } else if silences.crossed(w, pts[k - 1], pts[k]) { add(a, b, nil) }
        }
        if let to = ends.to, Geo.distance(w.lat[last], w.lon[last], to.0, to.1) >= connectorM { add(w.time[last], endMs, nil) }
        return out
    }

    /// Whether travel explains a silence of `ms` whose two ends lie `metres` apart: at least `travel_min_mps` in a straight
    /// line, within `implied_max_s` (0 = never).
    static func travelled(_ metres: Double, _ ms: Int64, _ p: Parameters) -> Bool {
        p.travelMinMps > 0 && Double(ms) <= p.impliedMaxS * 1000 && metres >= p.travelMinMps * Double(ms) / 1000
    }

    /// The kept points `pts` between two stays cut at silences longer than `split_gap_s`, except those the traveller
    /// moved through (`travel_min_mps`, within `implied_max_s`): the parts, each part's crossed straight lines, and
    /// whether a silence parts the first part from the stay before it (the last from the stay after it).
    static func splitAtSilences(_ w: DeviceWork, _ pts: [Int], from: StayRecord?, to: StayRecord?, _ p: Parameters)
        -> (parts: [[Int]], crossed: [Double], gapBefore: Bool, gapAfter: Bool) {
        let splitMs = Int64(p.splitGapS * 1000)
        /// A silence of `ms` longer than `split_gap_s` that travel does not explain.
        func splits(_ aLat: Double, _ aLon: Double, _ bLat: Double, _ bLon: Double, _ ms: Int64) -> Bool {
            guard ms > splitMs else { return false }
            return !travelled(Geo.distance(aLat, aLon, bLat, bLon), ms, p)
        }
        var parts: [[Int]] = [[]]
        var crossed: [Double] = [0]
        for (k, i) in pts.enumerated() {
            if k > 0 {
                let h = pts[k - 1], ms = w.time[i] - w.time[h]
                if splits(w.lat[h], w.lon[h], w.lat[i], w.lon[i], ms) {
                    parts.append([])
                    crossed.append(0)
                } else if ms > splitMs {
                    crossed[crossed.count - 1] += Geo.distance(w.lat[h], w.lon[h], w.lat[i], w.lon[i])
                }
            }
            parts[parts.count - 1].append(i)
        }
        let first = pts[0], last = pts[pts.count - 1]
        let before = from.map { splits($0.lat, $0.lon, w.lat[first], w.lon[first], w.time[first] - $0.endMs) } ?? false
        let after = to.map { splits(w.lat[last], w.lon[last], $0.lat, $0.lon, $0.startMs - w.time[last]) } ?? false
        return (parts, crossed, before, after)
    }

    /// The highest (or lowest) of `values` within ±`halfWindowMs` of each point (monotonic deque, linear time).
    static func slidingExtreme(_ values: [Double], _ w: DeviceWork, _ pts: [Int], halfWindowMs win: Int64, highest: Bool) -> [Double] {
        let m = pts.count
        var out = [Double](repeating: 0, count: m)
        var deque: [Int] = []
        deque.reserveCapacity(64)
        var head = 0
        var right = 0
        let time = w.time  // once: a class's array property checks exclusivity at run time on every read
        for k in 0..<m {
            while right < m && time[pts[right]] <= time[pts[k]] + win {
                while deque.count > head && (highest ? values[deque.last!] <= values[right] : values[deque.last!] >= values[right]) {
                    deque.removeLast()
                }
                deque.append(right)
                right += 1
            }
            while time[pts[deque[head]]] < time[pts[k]] - win { head += 1 }
            out[k] = values[deque[head]]
        }
        return out
    }

    /// Joins vehicle runs (run, cycle, motorised) that no walk or silence parts into one leg, and gives it the class of
    /// its whole speed profile: time-weighted percentiles of the moving fixes' speeds (each fix weighs the time to the
    /// next, at most a minute). Then joins neighbours of one class.
    static func profileRuns(_ input: [(Int, Int, UInt8)], _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double], _ p: Parameters,
                            _ silenceBefore: (Int) -> Bool) -> [(Int, Int, UInt8)] {
        // The motion state most of a run's fixes carry, when most carry one: a bicycle ridden to the station and
        // the train after it are two vehicles, however alike their speeds (version 65, `profile_states`).
        func state(_ r: (Int, Int, UInt8)) -> UInt8 {
            guard p.profileStates > 0 else { return 0 }
            return mostlySay(MotionBits.cycling, w, pts, r.0, r.1) ? MotionBits.cycling
                : mostlySay(MotionBits.driving, w, pts, r.0, r.1) ? MotionBits.driving : 0
        }
        var chains: [(Int, Int, UInt8)] = []
        var previous: UInt8 = 0
        for r in input {
            let now = state(r)
            defer { previous = now }
            if let last = chains.last, last.2 >= 2, r.2 >= 2, !silenceBefore(r.0), previous == 0 || now == 0 || previous == now {
                chains[chains.count - 1].1 = r.1
                chains[chains.count - 1].2 = max(last.2, r.2)
            } else {
                chains.append(r)
            }
        }
        var weighted: [(Double, Double)] = []
        for k in chains.indices where chains[k].2 >= 2 {
            let (a, b, _) = chains[k]
            weighted.removeAll(keepingCapacity: true)
            var total = 0.0, metres = 0.0
            var stops = 0
            var stillSince: Int64? = nil
            for q in a...b {
                metres += inc[q]
                if v[q] < p.stillMps {
                    if stillSince == nil { stillSince = w.time[pts[q]] }
                    continue
                }
                if let since = stillSince, w.time[pts[q]] - since >= 10_000 { stops += 1 }
                stillSince = nil
                let next = q < b ? w.time[pts[q + 1]] : w.time[pts[q]] + 1000
                let wt = Double(min(max(next - w.time[pts[q]], 1000), 60_000)) / 1000
                weighted.append((v[q], wt))
                total += wt
            }
            guard total > 0 else { continue }
            weighted.sort { $0.0 < $1.0 }
            func percentile(_ f: Double) -> Double {
                var acc = 0.0
                for (speed, wt) in weighted {
                    acc += wt
                    if acc >= f * total { return speed }
                }
                return weighted.last!.0
            }
            let p50 = percentile(0.5), p85 = percentile(0.85), p95 = percentile(0.95)
            let steadyCycle = p95 < p.cycleSteadyP95MaxMps && p85 <= p.cycleSteadyRatio * p50
                && Double(stops) < p.cycleSteadyMaxStopsPerKm * metres / 1000
                && p50 <= p.cycleSteadyP50MaxMps
            let cls: UInt8
            if (p85 >= p.cycleP85MaxMps || p95 >= p.cycleP95MaxMps) && !steadyCycle { cls = 4 }
            else if p.profileWalk > 0 && p85 < p.walkMaxMps { cls = 1 }
            else if p85 < p.runMaxMps { cls = 2 }
            else { cls = 3 }
            chains[k].2 = cls
        }
        var out: [(Int, Int, UInt8)] = []
        for r in chains {
            if let last = out.last, last.2 == r.2, !silenceBefore(r.0) { out[out.count - 1].1 = r.1 } else { out.append(r) }
        }
        return out
    }

    /// A leg the rules call foot between two motorised legs of one trip (no silence longer than `leg_gap_s` at
    /// either end) whose fixes are not a pedestrian's (``ModeFeatures/pedestrian(_:walkMaxMps:)``: steady walking pace,
    /// short stops) is the vehicle crawling and standing in traffic: the three become one motorised leg.
    static func crawlsJoined(_ runs: [Run], _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double], _ p: Parameters,
                             _ silenceBefore: (Int) -> Bool) -> [Run] {
        guard runs.count >= 3 else { return runs }
        var out = runs
        var k = 1
        while k < out.count - 1 {
            let r = out[k]
            if r.cls <= 2 && out[k - 1].cls == 4 && out[k + 1].cls == 4 && !silenceBefore(r.a) && !silenceBefore(out[k + 1].a) {
                let features = ModeFeatures.compute(w, pts, v, inc, r.a, r.b, ruleClass: r.cls, stillMps: p.stillMps)
                // Steps the phone felt are a pedestrian's, however long the stops (`stop_on_foot`, version 68).
                let steps = p.stopOnFoot > 0 && phoneSaysOnFoot(w, pts, r.a, r.b)
                if !ModeFeatures.pedestrian(features, walkMaxMps: p.walkMaxMps) && !steps {
                    out[k - 1].b = out[k + 1].b
                    out.removeSubrange(k...(k + 1))
                    continue
                }
            }
            k += 1
        }
        return out
    }

    /// Whether fixes `a...b` (indices into `pts`) are a pedestrian's by the phone's own word (`stop_on_foot`): most say
    /// walking or running; or (algorithm version 99) most say walking, running or stationary and not driving, a quarter
    /// of them walking or running: the walk to a platform and the wait on it (a 3-min wait made most of such a run
    /// stationary, and the drive, the walk and the train before it joined into one leg; the seventeenth hostile round).
    static func phoneSaysOnFoot(_ w: DeviceWork, _ pts: [Int], _ a: Int, _ b: Int) -> Bool {
        guard w.motion.count == w.count, a <= b else { return false }
        var feet = 0, still = 0
        for q in a...b {
            let m = w.motion[pts[q]]
            guard m & MotionBits.driving == 0 else { continue }
            if m & (MotionBits.walking | MotionBits.running) != 0 { feet += 1 } else if m & MotionBits.stationary != 0 { still += 1 }
        }
        let n = b - a + 1
        return feet * 2 > n || ((feet + still) * 2 > n && feet * 4 >= n)
    }

    /// Whether more than half of fixes `a...b` (indices into `pts`) carry the motion state `bit`; false for a track
    /// without motion states.
    static func mostlySay(_ bit: UInt8, _ w: DeviceWork, _ pts: [Int], _ a: Int, _ b: Int) -> Bool {
        guard w.motion.count == w.count, a <= b else { return false }
        var n = 0
        for q in a...b where w.motion[pts[q]] & bit != 0 { n += 1 }
        return n * 2 > b - a + 1
    }

    /// Points `a...b` (indices into the trip's `pts`) of one speed class.
    struct Run {
        var a: Int
        var b: Int
        var cls: UInt8
        /// A walk to or from a parked vehicle (``endWalks(_:_:_:_:_:)``), shorter than `min_leg_s`: no sign of public
        /// transport (``legMode(_:_:_:_:_:_:_:_:)``).
        var parked = false
    }

    /// The learned mode model's class of each run the speed rules made (docs/PASSES.md, "Learned modes"): where the
    /// model (``ModeModel``, over ``ModeFeatures``) puts a run of at least three fixes in another coarse class than
    /// the rules (foot = walk or run, bicycle, motorised), the run takes the model's class (walk, cycle, motorised),
    /// then neighbours of one class join. Only runs like those it learned from: at most half of their fixes carry a
    /// reported speed (GeoLife's have none; an app's Doppler speeds jitter from fix to fix where speeds from
    /// displacement over 10 s do not, so its features differ, and the rules decide: simulated 1-Hz walks with
    /// reported speeds became cars), and whose median fix interval is at most
    /// `model_max_interval_s` (sparse fixes minutes apart are not what it learned from); on runs sampled sparser than
    /// `model_foot_max_interval_s` it chooses only between bicycle and motorised, and only where the rules do not say
    /// foot. The rest of ``legMode`` is unchanged: plane, train and bus from the
    /// motorised leg's speeds and the walks beside it, and Overland's motion states and the app's trip mode over both.
    /// With a ``LegFeatureLog``, every run's features are logged as well (development: the model's training data).
    static func learnedClasses(_ runs: [Run], _ trip: TripRecord, _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double],
                               _ p: Parameters, _ silenceBefore: (Int) -> Bool) -> [Run] {
        var out = runs
        for (k, r) in runs.enumerated() {
            // The model decides only runs of 3 fixes or more, at most half of them with a reported speed: count that
            // first, so the features are computed only where they are used (or logged).
            var reported = 0
            if p.modeModel > 0, r.b - r.a >= 2 {
                for q in r.a...r.b where !w.speed[pts[q]].isNaN && w.speed[pts[q]] >= 0 { reported += 1 }
            }
            let everywhere = p.modeModel >= 2
            let decides = p.modeModel > 0 && r.b - r.a >= 2 && (everywhere || reported * 2 <= r.b - r.a + 1)
            guard decides || p.featureLog != nil else { continue }
            let features = ModeFeatures.compute(w, pts, v, inc, r.a, r.b, ruleClass: r.cls, stillMps: p.stillMps)
            if let log = p.featureLog {
                log.add(LegFeatureLog.Entry(
                    deviceID: w.deviceID, startMs: k == 0 ? trip.startMs : w.time[pts[r.a]],
                    endMs: k == runs.count - 1 ? trip.endMs : w.time[pts[runs[k + 1].a]], ruleClass: ["still", "walk", "run", "cycle", "motorised"][Int(min(r.cls, 4))],
                    features: features, motion: ModeFeatures.motionShares(w, pts, r.a, r.b)))
            }
            guard decides, everywhere || ModeFeatures.sampledWithin(features, seconds: p.modelMaxIntervalS) else { continue }
            // Where the labels hold no walks (sampled sparser than `model_foot_max_interval_s`), the rules' physics
            // keep the foot / not-foot call and the model only chooses between bicycle and motorised.
            let footFree = everywhere || ModeFeatures.sampledWithin(features, seconds: p.modelFootMaxIntervalS)
            if !footFree && r.cls <= 2 { continue }
            let learned: UInt8 = [1, 3, 4][footFree ? p.learnedModes.classify(features) : p.learnedModes.classify(features, among: [1, 2])]
            // Physics the labels cannot teach (their walks were deleted upstream): a trip that is one leg at walking
            // pace throughout, with a pedestrian's stops, was walked, whatever the model learnt of slow vehicles.
            if r.cls <= 2 && runs.count == 1 && p.footGuard > 0 && ModeFeatures.pedestrian(features, walkMaxMps: p.walkMaxMps) { continue }
            if learned != (r.cls <= 2 ? 1 : r.cls) { out[k].cls = learned }
        }
        var joined: [Run] = []
        for r in out {
            if let last = joined.last, last.cls == r.cls, !silenceBefore(r.a) { joined[joined.count - 1].b = r.b } else { joined.append(r) }
        }
        return joined
    }

    /// The walks at the ends of a trip whose first or last run is a bicycle or a vehicle (`end_walk_s`): from the car
    /// to the door, from the bicycle rack, out of the bus. The windowed speed classes give such a walk to the vehicle
    /// (the window reaches the driving), and `min_leg_s` joins what is left of it. Here the fixes at the trip's end
    /// that are each slower than `walk_max_mps` and come after the last fix saying `driving` (at its start: before the
    /// first) are a walk leg of their own when they last `end_walk_s` and most of them say walking or running: the
    /// phone's motion coprocessor felt the steps, which a car crawling into a parking space or a bus at its last stop
    /// does not give (iOS names the change late, so the leg starts when the driving state ends, not when the speed
    /// fell). Such a leg is no sign of public transport (`parked`). Tracks without motion states keep their legs.
    static func endWalks(_ runs: [Run], _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ p: Parameters) -> [Run] {
        guard w.motion.count == w.count, let firstRun = runs.first, let lastRun = runs.last else { return runs }
        let feet = MotionBits.walking | MotionBits.running
        let minMs = Int64(p.endWalkS * 1000)
        @inline(__always) func slow(_ q: Int) -> Bool { v[q] < p.walkMaxMps && w.motion[pts[q]] & MotionBits.driving == 0 }
        let lagMs = Int64(p.endWalkLagS * 1000)
        /// Whether fixes `a...b` are such a walk, most of `named...b` (`a...named`) saying walking or running.
        func walk(_ a: Int, _ b: Int, named: Int? = nil, to last: Int? = nil) -> Bool {
            guard b > a, w.time[pts[b]] - w.time[pts[a]] >= minMs else { return false }
            let (x, y) = (named ?? a, last ?? b)
            var steps = 0
            for q in x...y where w.motion[pts[q]] & feet != 0 { steps += 1 }
            return steps * 2 > y - x + 1
        }
        var out = runs
        if lastRun.cls >= 3 {
            var q = lastRun.b
            while q > lastRun.a && slow(q) { q -= 1 }
            // iOS names the walk late: its first seconds still say driving (`end_walk_lag_s`, version 67). Back over
            // such fixes at walking pace, when they began with the vehicle's stop (a fix below `still_mps`) that close
            // to the first fix that stopped saying driving: out of the car there. Without a stop (a car crawling into
            // its space at walking pace, then the walk), the walk starts where the driving state ends.
            var start = q + 1
            if lagMs > 0 && q < lastRun.b - 1 {
                var k = q
                while k > lastRun.a && v[k - 1] < p.walkMaxMps && w.time[pts[q + 1]] - w.time[pts[k - 1]] <= lagMs { k -= 1 }
                // k: the first fix at walking pace after the vehicle's last fast one (unless that lies beyond the lag).
                if k > lastRun.a && v[k - 1] >= p.walkMaxMps, let stop = (k...q).first(where: { v[$0] < p.stillMps }) { start = stop }
            }
            if q > lastRun.a && q < lastRun.b - 1 && start > lastRun.a + 1 && walk(start, lastRun.b, named: q + 1) {
                out[out.count - 1].b = start - 1
                out.append(Run(a: start, b: lastRun.b, cls: 1, parked: true))
            }
        }
        if firstRun.cls >= 3 && out[0].b > out[0].a {
            let r = out[0]
            var q = r.a
            while q < r.b && slow(q) { q += 1 }
            // The walk's first seconds still say stationary (iOS names it late): the steps are counted from the first
            // fix that says walking or running, when it comes within `end_walk_lag_s` (version 67).
            var named = r.a
            if lagMs > 0 {
                while named < q && w.motion[pts[named]] & feet == 0 && w.time[pts[named]] - w.time[pts[r.a]] <= lagMs { named += 1 }
                if named == q || w.motion[pts[named]] & feet == 0 { named = r.a }
            }
            if q < r.b && q > r.a + 1 && walk(r.a, q - 1, named: named) {
                out[0].a = q
                out.insert(Run(a: r.a, b: q - 1, cls: 1, parked: true), at: 0)
            }
        }
        return out
    }

    /// The mode of the `k`th run of a trip and where it comes from (`speed`, `motion`, `speed+motion`, `app`): its
    /// speed class, refined by its pace and straightness (run or bicycle), Overland's motion states, its 95th
    /// percentile speed and the walks next to it (plane, train, bus), and the app's own trip mode.
    static func legMode(_ r: Run, _ k: Int, _ runs: [Run], _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double],
                        _ p: Parameters) -> (mode: String, source: String) {
        var mode: String
        var source = "speed"
        switch r.cls {
        case 1: mode = "walk"
        case 2: mode = "run"
        case 3: mode = "cycle"
        default: mode = "car"
        }
        var motionCounts = [0, 0, 0, 0]  // walking, running, cycling, driving
        var modeCounts: [UInt16: Int] = [:]
        var speedsInRun: [Double] = []
        for q in r.a...r.b {
            let bits = w.motion[pts[q]]
            if bits & MotionBits.walking != 0 { motionCounts[0] += 1 }
            if bits & MotionBits.running != 0 { motionCounts[1] += 1 }
            if bits & MotionBits.cycling != 0 { motionCounts[2] += 1 }
            if bits & MotionBits.driving != 0 { motionCounts[3] += 1 }
            if w.tripMode[pts[q]] != 0 { modeCounts[w.tripMode[pts[q]], default: 0] += 1 }
            speedsInRun.append(v[q])
        }
        let n = r.b - r.a + 1
        if r.cls == 2 {
            // Speed alone cannot tell a run from a slow bicycle ride; runners keep an even pace, cyclists in
            // traffic do not: a varied speed (coefficient of variation above `run_max_cv`) makes it a bicycle.
            var sum = 0.0, sum2 = 0.0, k = 0.0
            for q in r.a...r.b where v[q] >= p.stillMps {
                sum += v[q]
                sum2 += v[q] * v[q]
                k += 1
            }
            if k > 1 {
                let mean = sum / k
                let sd = max(0, sum2 / k - mean * mean).squareRoot()
                if sd / mean > p.runMaxCV { mode = "cycle" }
            }
            if mode == "run" && p.runMaxStraightness > 0 {
                var path = 0.0
                for q in r.a...r.b { path += inc[q] }
                let a = pts[r.a], b = pts[r.b]
                if path > 0 && Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) > p.runMaxStraightness * path { mode = "cycle" }
            }
        }
        // iOS names a vehicle late too: its first minute may still say walking. A run whose 90th-percentile speed is
        // beyond anyone's walk is not one, whatever most of its fixes say (version 68, `trips.motion_walk_max_mps`).
        func beyondWalk() -> Bool {
            guard p.motionWalkMaxMps > 0, r.cls >= 3 else { return false }
            var sorted = speedsInRun
            sorted.sort()
            return sorted[sorted.count * 9 / 10] > p.motionWalkMaxMps
        }
        if let best = motionCounts.indices.max(by: { motionCounts[$0] < motionCounts[$1] }), motionCounts[best] * 2 > n,
            !(best == 0 && beyondWalk()) {
            let fromMotion = ["walk", "run", "cycle", "car"][best]
            if fromMotion != mode { source = "motion" }
            if !(fromMotion == "car" && mode == "car") { mode = fromMotion }
            if source == "speed" { source = "speed+motion" }
        }
        if mode == "car" {
            speedsInRun.sort()  // only motorised legs need their 95th percentile
            let p95 = speedsInRun[min(speedsInRun.count - 1, Int(Double(speedsInRun.count) * 0.95))]
            // A neighbour at walking pace whose fixes mostly say driving is the vehicle in a jam, not a walk (version 64).
            func onFoot(_ n: Run) -> Bool {
                n.cls <= 2 && !n.parked && !(p.jamDriven > 0 && mostlySay(MotionBits.driving, w, pts, n.a, n.b)) && !errand(n)
            }
            /// A walk between two vehicle runs that ends where it began, the phone feeling the steps (`stop_on_foot`):
            /// out of the car and back to it, no change of vehicle. Since algorithm version 99 of any length (a shop
            /// 250 m from where the car stood, and back); before, shorter than `transfer_min_m`.
            func errand(_ n: Run) -> Bool {
                guard p.stopOnFoot > 0, n.a > 0, n.b < pts.count - 1 else { return false }
                return mostlySay(MotionBits.walking | MotionBits.running, w, pts, n.a, n.b)
                    && Geo.distance(w.lat[pts[n.a]], w.lon[pts[n.a]], w.lat[pts[n.b]], w.lon[pts[n.b]]) < p.transferMinM / 3
            }
            let footBefore = k > 0 && onFoot(runs[k - 1])
            let footAfter = k < runs.count - 1 && onFoot(runs[k + 1])
            /// Whether the leg is open for public transport at the end where run `j` lies (`transit_feet`): a walk (a short
            /// one too, which may be to a stop as well as to a parked car), a bicycle (bike and ride) or another vehicle
            /// (a change). At the trip's own end (`j` beyond the runs), on a track without motion states, when the
            /// device's recording began less than `leg_gap_s` before the trip's first fix (a silence that long, or none
            /// before, within that time) or ended less than that after its last: a logger switched on at the stop or
            /// aboard saw no car waiting there. A phone that reports motion states records in the background: a silence
            /// there is the phone lying still (iOS at rest), not a logger switched on.
            func open(_ j: Int) -> Bool {
                let gapMs = p.legGapS > 0 ? Int64(p.legGapS * 1000) : Int64.max
                if j < 0 || j >= runs.count, w.motion.count == w.count, pts.contains(where: { w.motion[$0] != 0 }) { return false }
                if j < 0 {
                    let start = w.time[pts[0]]
                    var q = pts[0]
                    while q > 0 && start - w.time[q] <= gapMs {
                        if w.time[q] - w.time[q - 1] > gapMs { return true }
                        q -= 1
                    }
                    return q == 0
                }
                if j >= runs.count {
                    let end = w.time[pts[pts.count - 1]]
                    var q = pts[pts.count - 1]
                    while q < w.count - 1 && w.time[q] - end <= gapMs {
                        if w.time[q + 1] - w.time[q] > gapMs { return true }
                        q += 1
                    }
                    return q == w.count - 1
                }
                return onFoot(runs[j]) || runs[j].parked || runs[j].cls >= 3
            }
            // Below a train's pace, both ends (`transit_feet` 2): a car park's walk is at one end of a drive. A train's
            // pace is no car's in town, and its station is often reached by a ride the trip's fixes join to it.
            let walkedTo = (footBefore || footAfter) && (p.transitFeet < 2 || (open(k - 1) && open(k + 1)))
            if p95 >= p.flightMinMps { mode = "plane" } else if p.boatMinSeaShare > 0 && p95 <= p.boatMaxMps
                && seaShare(r, w, pts, inc, sampleM: p.boatSampleM) >= p.boatMinSeaShare {
                // Mostly at sea at a vessel's speed: a ferry, whether entered on foot or driven aboard, densely
                // sampled or not (the sea says what the fixes' sampling cannot).
                mode = LegMode.boat.rawValue
            } else if p95 >= p.railMinMps { mode = "train" } else if footBefore || footAfter, sparse(r, w, pts, p) {
                // Walks around a vehicle mean public transport only where the fixes are dense enough to tell a walk to
                // a stop from a car crawling out of a car park: sparser, a car, a bus and a train entered on foot
                // look alike, and the honest answer is a motorised vehicle, not a guess.
                mode = LegMode.vehicle.rawValue
            } else if walkedTo {
                mode = p95 >= p.trainMinMps ? "train" : "bus"
            }
        }
        if let (key, count) = modeCounts.max(by: { $0.value < $1.value }), count * 2 > n {
            let app = w.tripModes[Int(key) - 1]
            let mapped = appLegMode(app)
            // The app's mode names the whole trip; it decides a leg when the leg's own class agrees in kind.
            func motorised(_ m: String) -> Bool { LegMode(rawValue: m)?.isMotorised ?? false }
            if motorised(mapped) == motorised(mode) { mode = mapped; source = "app" }
        }
        return (mode, source)
    }

    /// The share of run `r`'s path (its increments after its first fix) that lies at sea: more than 1.5 km beyond the
    /// 1:10m coastline, where ``Geography/country(latitude:longitude:)`` finds no country. The path is cut into pieces
    /// of at least `sampleM` metres (or one hop, where fixes lie farther apart) and each piece is at sea when its
    /// last fix is: at most one lookup per `sampleM` of path or per fix, whichever fewer. Lakes and rivers lie inside
    /// countries, so a river ferry is not at sea. 0 for a run that did not move.
    static func seaShare(_ r: Run, _ w: DeviceWork, _ pts: [Int], _ inc: [Double], sampleM: Double) -> Double {
        guard r.b > r.a else { return 0 }
        var sea = 0.0, total = 0.0, piece = 0.0
        for q in (r.a + 1)...r.b {
            piece += inc[q]
            guard piece > 0, piece >= sampleM || q == r.b else { continue }
            if Geography.country(latitude: w.lat[pts[q]], longitude: w.lon[pts[q]]) == nil { sea += piece }
            total += piece
            piece = 0
        }
        return total > 0 ? sea / total : 0
    }

    /// Motorised runs cut where they cross the sea: a car driven onto a ferry and off it again, with no walk or
    /// silence to part the drive from the crossing, is one motorised run. Its longest stretch of consecutive pieces
    /// at sea (as in ``seaShare``: pieces of `boat_sample_m`, each at sea when its last fix is) becomes a run of its
    /// own when it holds at least `boat_cut_min_m` of path and its 95th-percentile speed is at most `boat_max_mps`;
    /// the road before and after stay runs of their own when each lasts `min_leg_s`, else they join the crossing. A
    /// run mostly at sea is not cut (its land is the harbours' 1.5-km margins): ``legMode`` names it a boat whole.
    /// The runs still cover the same fixes, so the legs still sum to the trip; ``legMode`` then names each.
    static func seaCut(_ runs: [Run], _ w: DeviceWork, _ pts: [Int], _ v: [Double], _ inc: [Double], _ p: Parameters) -> [Run] {
        var out: [Run] = []
        let minLeg = Int64(p.minLegS * 1000)
        for r in runs {
            guard r.cls == 4, r.b > r.a else { out.append(r); continue }
            var path = 0.0
            for q in (r.a + 1)...r.b { path += inc[q] }
            guard path >= p.boatCutMinM else { out.append(r); continue }
            // The longest stretch at sea: from the fix its first piece starts at to its last piece's last fix.
            var best: (a: Int, b: Int, m: Double)? = nil
            var piece = 0.0, pieceStart = r.a, stretchStart = -1, stretch = 0.0, atSea = 0.0
            for q in (r.a + 1)...r.b {
                piece += inc[q]
                guard piece > 0, piece >= p.boatSampleM || q == r.b else { continue }
                if Geography.country(latitude: w.lat[pts[q]], longitude: w.lon[pts[q]]) == nil {
                    atSea += piece
                    if stretchStart < 0 { (stretchStart, stretch) = (pieceStart, 0) }
                    stretch += piece
                    if stretch > (best?.m ?? 0) { best = (stretchStart, q, stretch) }
                } else {
                    stretchStart = -1
                }
                piece = 0
                pieceStart = q
            }
            // Mostly at sea, the run is a boat whole (``legMode``): its ends are the harbours' coastal margins.
            guard let sea = best, sea.m >= p.boatCutMinM, atSea < p.boatMinSeaShare * path else { out.append(r); continue }
            var speeds = (sea.a...sea.b).map { v[$0] }
            speeds.sort()
            guard speeds[min(speeds.count - 1, Int(Double(speeds.count) * 0.95))] <= p.boatMaxMps else { out.append(r); continue }
            // Road before: r.a ... sea.a; the crossing: sea.a + 1 ... sea.b; road after: sea.b + 1 ... r.b.
            func road(_ a: Int, _ b: Int) -> Bool { a < b && w.time[pts[b]] - w.time[pts[a]] >= minLeg }
            var crossing = Run(a: sea.a + 1, b: sea.b, cls: 4)
            if road(r.a, sea.a) { out.append(Run(a: r.a, b: sea.a, cls: 4)) } else { crossing.a = r.a }
            let after = sea.b < r.b && road(sea.b + 1, r.b)
            if !after { crossing.b = r.b }
            out.append(crossing)
            if after { out.append(Run(a: sea.b + 1, b: r.b, cls: 4)) }
        }
        return out
    }

    /// Whether the fixes of run `r` lie more than `vehicle_max_interval_s` apart (the median interval): too sparse for
    /// the walks around it to tell public transport from a car.
    static func sparse(_ r: Run, _ w: DeviceWork, _ pts: [Int], _ p: Parameters) -> Bool {
        guard p.vehicleMaxIntervalS > 0, r.b > r.a else { return p.vehicleMaxIntervalS > 0 }
        var gaps: [Int64] = []
        gaps.reserveCapacity(r.b - r.a)
        for q in r.a..<r.b { gaps.append(w.time[pts[q + 1]] - w.time[pts[q]]) }
        gaps.sort()
        return Double(gaps[gaps.count / 2]) > p.vehicleMaxIntervalS * 1000
    }

    /// An app's trip mode (Overland's `mode`, as the importer keeps it) as a leg mode.
    static func appLegMode(_ app: String) -> String {
        switch app {
        case "walk", "hike": return "walk"
        case "run": return "run"
        case "bicycle", "ebike", "scooter": return "cycle"
        case "car", "taxi": return "car"
        case "bus": return "bus"
        case "tram", "metro", "train", "monorail", "funicular": return "train"
        case "plane": return "plane"
        case "boat": return "boat"
        case LegMode.vehicle.rawValue: return LegMode.vehicle.rawValue
        default: return app
        }
    }

    /// Fills legs and metrics; returns whether it is a trip at all (moved far enough).
    // Long by design: speed classes, runs and their merging share the trip's per-point arrays, in order (each leg's mode is apart, in legMode).
    static func build(
        _ trip: inout TripRecord, _ w: DeviceWork, _ pts: [Int], _ p: Parameters, _ mp: MetricsPass.Parameters, extraDistanceM: Double = 0,
        unseen: Bool = false, ends: (from: (Double, Double)?, to: (Double, Double)?) = (nil, nil)
    ) -> Bool? {
        let (inc, moving, gaps) = MetricsPass.increments(w, pts, mp)
        let distance = inc.reduce(0, +)
        if distance + extraDistanceM < p.minDistanceM {
            guard p.stepsMinS > 0, distance + extraDistanceM >= p.stepsMinDistanceM, MotionGuard.movingS(w, pts) >= p.stepsMinS else { return false }
        }
        let v = speeds(w, pts)
        let m = pts.count
        // Highest speed within ±window (monotonic deque). A motorised speed counts only when it is held for `sustain_s`
        // (the highest within ±window of the lowest within ±sustain_s/2): a GPS jump of a few seconds is not a car.
        let vmax = slidingExtreme(v, w, pts, halfWindowMs: Int64(p.windowS * 1000), highest: true)
        let vheld = p.sustainS > 0
            ? slidingExtreme(slidingExtreme(v, w, pts, halfWindowMs: Int64(p.sustainS * 500), highest: false), w, pts,
                halfWindowMs: Int64(p.windowS * 1000), highest: true) : vmax
        // Classes: 0 still, 1 walk, 2 run, 3 cycle, 4 motor.
        var cls = [UInt8](repeating: 0, count: m)
        for k in 0..<m {
            let s = vmax[k]
            cls[k] = s < p.stillMps ? 0 : s < p.walkMaxMps ? 1 : s < p.runMaxMps ? 2 : s < p.cycleMaxMps || vheld[k] < p.cycleMaxMps ? 3 : 4
        }
        let paced = unseen || !cls.allSatisfy({ $0 == 0 }) ? nil : Self.paceMode(distance + extraDistanceM, trip, p)
        if let paced { for k in 0..<m { cls[k] = LegMode(rawValue: paced)?.isMotorised == true ? 4 : 1 } }
        // Still points take the previous moving class (the next one at the start).
        var lastMoving: UInt8 = 0
        for k in 0..<m { if cls[k] == 0 { cls[k] = lastMoving } else { lastMoving = cls[k] } }
        var nextMoving: UInt8 = 1
        for k in stride(from: m - 1, through: 0, by: -1) { if cls[k] == 0 { cls[k] = nextMoving } else { nextMoving = cls[k] } }
        // Runs of one class.
        // A silence longer than `leg_gap_s` inside a trip is a leg boundary: the traveller may have changed vehicles
        // out of reach of the satellites (a station, an underground transfer); each side gets its own mode.
        let legGapMs = p.legGapS > 0 ? Int64(p.legGapS * 1000) : Int64.max
        @inline(__always) func silenceBefore(_ k: Int) -> Bool { k > 0 && w.time[pts[k]] - w.time[pts[k - 1]] > legGapMs }
        // A hop of `hop_split_s` or more between two fixes on foot that was crossed faster than anyone walks (a train
        // running on under the ground after a stop at a station, the phone silent) is no part of a walk: a foot run
        // parts there until short runs have joined a neighbour (the one on their side of it), then joins again.
        let fastHopMs = p.fastHop > 0 && p.hopSplitS > 0 ? Int64(p.hopSplitS * 1000) : Int64.max
        let denseMs: Int64 = 10_000
        func fastHop(_ k: Int) -> Bool {
            guard k > 0, cls[k] <= 2, cls[k - 1] <= 2 else { return false }
            let ms = w.time[pts[k]] - w.time[pts[k - 1]]
            guard ms >= fastHopMs, ms <= legGapMs else { return false }
            // A silence of a phone that records often (the fixes on both sides of it a few seconds apart): a sparse
            // phone's every hop is minutes long, and its vehicle's are the vehicle's legs (`vehicle_hold_m`).
            guard k >= 2, k + 1 < m, w.time[pts[k - 1]] - w.time[pts[k - 2]] <= denseMs, w.time[pts[k + 1]] - w.time[pts[k]] <= denseMs
            else { return false }
            let (a, b) = (pts[k - 1], pts[k])
            return Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) / (Double(ms) / 1000) > p.walkMaxMps
        }
        var runs: [Run] = []
        for k in 0..<m {
            if let last = runs.last, last.cls == cls[k], !silenceBefore(k), !fastHop(k) { runs[runs.count - 1].b = k } else {
                runs.append(Run(a: k, b: k, cls: cls[k]))
            }
        }
        func duration(_ r: Run) -> Int64 { w.time[pts[r.b]] - w.time[pts[r.a]] + 1000 }
        let minLeg = Int64(p.minLegS * 1000)
        /// A motorised run whose own fixes covered `vehicle_hold_m` at a motor vehicle's pace (judged once, on the runs of
        /// one class; a run that absorbs others keeps it).
        func held(_ r: Run) -> Bool {
            guard p.vehicleHoldM > 0, r.cls >= 4, r.b > r.a, duration(r) < minLeg else { return false }
            let d = Geo.distance(w.lat[pts[r.a]], w.lon[pts[r.a]], w.lat[pts[r.b]], w.lon[pts[r.b]])
            return d >= p.vehicleHoldM && d / (Double(w.time[pts[r.b]] - w.time[pts[r.a]]) / 1000) > p.cycleMaxMps
        }
        var holds = runs.map(held)
        while runs.count > 1 {
            var shortest = -1
            for (k, r) in runs.enumerated() where duration(r) < minLeg && !holds[k] {
                if shortest < 0 || duration(r) < duration(runs[shortest]) { shortest = k }
            }
            if shortest < 0 { break }
            let k = shortest
            let target: Int
            if k == 0 { target = 1 } else if k == runs.count - 1 { target = k - 1 } else {
                // The neighbour on this side of a silence, else the longer one.
                let beforeSilent = silenceBefore(runs[k].a) || fastHop(runs[k].a)
                let afterSilent = silenceBefore(runs[k + 1].a) || fastHop(runs[k + 1].a)
                if beforeSilent != afterSilent { target = beforeSilent ? k + 1 : k - 1 } else {
                    target = duration(runs[k - 1]) >= duration(runs[k + 1]) ? k - 1 : k + 1
                }
            }
            if target < k { runs[target].b = runs[k].b } else { runs[target].a = runs[k].a }
            runs.remove(at: k)
            holds.remove(at: k)
            // Join neighbours of one class (not across a silence).
            var joined: [Run] = [], joinedHolds: [Bool] = []
            for (r, h) in zip(runs, holds) {
                if let last = joined.last, last.cls == r.cls, !silenceBefore(r.a), !fastHop(r.a) {
                    joined[joined.count - 1].b = r.b
                    joinedHolds[joined.count - 1] = joinedHolds[joined.count - 1] || h
                } else {
                    joined.append(r)
                    joinedHolds.append(h)
                }
            }
            (runs, holds) = (joined, joinedHolds)
        }
        if fastHopMs < Int64.max {
            var joined: [Run] = []
            for r in runs {
                if let last = joined.last, last.cls == r.cls, !silenceBefore(r.a) { joined[joined.count - 1].b = r.b } else { joined.append(r) }
            }
            runs = joined
        }
        // A "foot" run between two motorised runs that hardly moved is the vehicle standing in traffic or at a stop,
        // not a change of vehicle (which means walking to the next stop or platform): it joins the vehicle.
        if p.transferMinM > 0 && runs.count >= 3 {
            var k = 1
            while k < runs.count - 1 {
                let r = runs[k]
                let vehicleMin: UInt8 = p.profile > 0 ? 3 : 4
                if r.cls <= 2 && runs[k - 1].cls >= vehicleMin && runs[k + 1].cls >= vehicleMin && (p.profile > 0 || runs[k - 1].cls == runs[k + 1].cls)
                    && !silenceBefore(r.a) && !silenceBefore(runs[k + 1].a) {
                    var d = 0.0
                    for q in r.a...r.b { d += inc[q] }
                    // … or one that covered its ground faster than anyone walks (a silence crossed by the vehicle),
                    // or one the motion coprocessor calls driving for most of its fixes (a kilometre of stop-and-go
                    // traffic at walking pace: as a "walk" it made the car legs around it a train entered on foot).
                    let seconds = Double(w.time[pts[runs[k + 1].a]] - w.time[pts[r.a]]) / 1000
                    // Not one whose fixes mostly say walking or running (`stop_on_foot`, version 68): the phone felt
                    // the steps, out of the car to a cash machine and back.
                    let steps = p.stopOnFoot > 0 && phoneSaysOnFoot(w, pts, r.a, r.b)
                    if (d < p.transferMinM && !steps) || (p.profile > 0 && seconds > 0 && d / seconds > p.walkMaxMps)
                        || mostlySay(MotionBits.driving, w, pts, r.a, r.b) {
                        runs[k - 1].b = runs[k + 1].b
                        runs.removeSubrange(k...(k + 1))
                        continue
                    }
                }
                k += 1
            }
        }
        if p.profile > 0 { runs = profileRuns(runs.map { ($0.a, $0.b, $0.cls) }, w, pts, v, inc, p, silenceBefore).map { Run(a: $0.0, b: $0.1, cls: $0.2) } }
        if p.crawlJoin > 0 && paced == nil { runs = crawlsJoined(runs, w, pts, v, inc, p, silenceBefore) }
        if paced == nil && (p.modeModel > 0 || p.featureLog != nil) { runs = learnedClasses(runs, trip, w, pts, v, inc, p, silenceBefore) }
        if paced == nil && p.boatMinSeaShare > 0 && p.boatCutMinM > 0 { runs = seaCut(runs, w, pts, v, inc, p) }
        if paced == nil && !unseen && p.endWalkS > 0 { runs = endWalks(runs, w, pts, v, p) }
        // Modes per run.
        var legs: [LegRecord] = []
        var longest: [Int64] = []  // per leg, the duration of the longest run in it (whose source the leg keeps)
        var spans: [(a: Int, b: Int)] = []  // per leg, its first and last fix in `pts`
        for (k, r) in runs.enumerated() {
            var (mode, source) = legMode(r, k, runs, w, pts, v, inc, p)
            if let paced, source == "speed" { (mode, source) = (paced, "pace") }
            // A walk to or from where the vehicle was parked is one by its steps, though iOS named it late and most of
            // its fixes still say driving (`end_walk_lag_s`).
            if r.parked && mode != LegMode.walk.rawValue && mode != LegMode.run.rawValue { (mode, source) = (LegMode.walk.rawValue, "motion") }
            // The leg's way is that of its time, from its first fix to the next leg's first: the hop into its first
            // fix (from the leg before's last) is the leg before's, the hop out of its last is its own (algorithm
            // version 38; before, a 9-km hop across a silence went to the leg after it, 52.9 m/s in a leg of 238 s
            // whose trip never went above 21.3 m/s).
            var d = 0.0
            let (from, to) = (k == 0 ? r.a : r.a + 1, k == runs.count - 1 ? r.b : runs[k + 1].a)
            if from <= to { for q in from...to { d += inc[q] } }  // a last run of one fix has no hop of its own
            let endMs = k == runs.count - 1 ? trip.endMs : w.time[pts[runs[k + 1].a]]
            // Runs of two speed classes that came out as one mode (a bicycle's pace and a car's that the motion states
            // both call driving) are one leg: a trip is not "walk, walk, walk" (version 66, `join_same_mode`). Not
            // across a silence, where each side keeps its own leg: two trains with a change out of the satellites' sight.
            if p.joinSameMode > 0, let last = legs.last, last.mode == mode, !silenceBefore(r.a) {
                let n = legs.count - 1
                legs[n].last = pts[r.b]
                legs[n].endMs = endMs
                legs[n].distanceM += d
                if duration(r) > longest[n] { (legs[n].modeSource, longest[n]) = (source, duration(r)) }
                spans[n].b = r.b
                continue
            }
            legs.append(LegRecord(
                mode: mode, modeSource: source, first: pts[r.a], last: pts[r.b], startMs: k == 0 ? trip.startMs : w.time[pts[r.a]],
                endMs: endMs, distanceM: d))
            longest.append(duration(r))
            spans.append((r.a, r.b))
        }
        if p.hopSplitS > 0 && !unseen { hopsSplit(&legs, spans, w, pts, v, inc, p, bridgeMaxS: mp.bridgeMaxS) }
        // A trip no fix saw (two stays at two places, nothing in between): its time comes from the stays' estimated
        // ends, so its speed says nothing about the vehicle; one leg of mode `unknown` rather than a guessed walk
        // (but a flight when even that pace is one, ``silentMode(_:_:_:_:)``).
        if unseen, let first = legs.first, let last = legs.last {
            let d = legs.reduce(0) { $0 + $1.distanceM }
            let line = Geo.distance(w.lat[pts[0]], w.lon[pts[0]], w.lat[pts[m - 1]], w.lon[pts[m - 1]])
            // Over the silence between the stays' edge fixes: the stays' estimated ends may squeeze the trip.
            let (mode, source) = silentMode(line, w.time[pts[0]], w.time[pts[m - 1]], p)
            legs = [LegRecord(mode: mode, modeSource: source, first: first.first, last: last.last, startMs: trip.startMs,
                              endMs: trip.endMs, distanceM: d)]
        }
        // A crossed silence inside the trip counts its straight line (the paths pass adds those at the ends).
        var crossed = 0.0
        if !unseen {
            (legs, crossed) = crossedSilences(legs, trip, w, pts, inc, p, mp, ends)
            for k in legs.indices where legs[k].modeSource == "none" {
                (legs[k].mode, legs[k].modeSource) = Self.silentMode(legs[k].distanceM, legs[k].startMs, legs[k].endMs, p)
            }
        }
        trip.legs = legs
        trip.distanceM = distance + crossed
        trip.movingS = movingTime(trip, w, pts, moving, unseen: unseen, ends: ends, p, mp)
        trip.maxSpeed = maxSpeed(w, pts)
        trip.gaps = gaps
        return true
    }

    /// A walk that meets a motor vehicle across a hop of at least `hop_split_s` between their fixes (sparse fixes
    /// minutes apart: the last at walking pace, the next already in the bus) changed inside the hop, not at the
    /// vehicle's first fix: walking at ``walkingPaceMps`` for `t` and riding at the vehicle's pace (the median of its
    /// moving fixes' speeds) for the rest of the hop's time `T` covers its straight line `D` when
    /// `t = (v_vehicle × T − D) / (v_vehicle − v_walk)`, within `[0, T]`. The walk takes `t` at its pace of the hop's way
    /// (``footMetres(_:seconds:)``; the paths pass shares the hop's pieces the same way), the vehicle the rest. A wait at
    /// the stop counts as walking time (it slows the hop). A silence longer than `split_gap_s` is a leg of its own
    /// (``crossedSilences``) and left alone. Before, the hop was the earlier leg's whole: a 9-min walk to a train had
    /// the train's first 2 min and 1.7 of its kilometres.
    static func hopsSplit(_ legs: inout [LegRecord], _ spans: [(a: Int, b: Int)], _ w: DeviceWork, _ pts: [Int], _ v: [Double],
                          _ inc: [Double], _ p: Parameters, bridgeMaxS: Double = MetricsPass.Parameters().bridgeMaxS) {
        let minMs = Int64(p.hopSplitS * 1000)
        for k in 0..<max(0, legs.count - 1) {
            guard let footFirst = walkMeetsVehicle(legs[k].mode, legs[k + 1].mode) else { continue }
            let (a, b) = (spans[k].b, spans[k + 1].a)
            let hopMs = w.time[pts[b]] - w.time[pts[a]]
            // A silence longer than `metrics.bridge_max_s` is ``crossedSilences``'s (a leg of its own when ridden
            // through, else nothing): left alone (algorithm version 90; before, up to `split_gap_s`).
            guard hopMs >= minMs, Double(hopMs) <= min(p.splitGapS, bridgeMaxS) * 1000 else { continue }
            var moving: [Double] = []
            let vehicleSpan = spans[footFirst ? k + 1 : k]
            for q in vehicleSpan.a...vehicleSpan.b where v[q] >= p.stillMps { moving.append(v[q]) }
            guard !moving.isEmpty else { continue }
            moving.sort()
            let vehicle = moving[moving.count / 2]
            guard vehicle > walkingPaceMps * 1.5 else { continue }
            let seconds = Double(hopMs) / 1000
            let line = Geo.distance(w.lat[pts[a]], w.lon[pts[a]], w.lat[pts[b]], w.lon[pts[b]])
            let t = min(seconds, max(0, (vehicle * seconds - line) / (vehicle - walkingPaceMps)))
            // The change, at least a second inside each leg.
            let lo = legs[k].startMs + 1000, hi = legs[k + 1].endMs - 1000
            guard lo <= hi else { continue }
            let at = min(hi, max(lo, footFirst ? w.time[pts[a]] + Int64(t * 1000) : w.time[pts[b]] - Int64(t * 1000)))
            let footS = Double(footFirst ? at - w.time[pts[a]] : w.time[pts[b]] - at) / 1000
            let footM = footMetres(inc[b], seconds: footS)
            legs[k].endMs = at
            legs[k + 1].startMs = at
            // The hop's way is the earlier leg's (``build``): hand the later leg its share.
            let handed = footFirst ? inc[b] - footM : footM
            legs[k].distanceM -= handed
            legs[k + 1].distanceM += handed
        }
    }

    /// Whether legs of `before` and `after` are a walk and a motor vehicle (true: the walk first), for ``hopsSplit``.
    static func walkMeetsVehicle(_ before: String, _ after: String) -> Bool? {
        func motorised(_ m: String) -> Bool { LegMode(rawValue: m)?.isMotorised ?? false }
        if before == LegMode.walk.rawValue && motorised(after) { return true }
        if motorised(before) && after == LegMode.walk.rawValue { return false }
        return nil
    }

    /// The walk's part of a hop of `metres` that it walked for `seconds` (``hopsSplit``).
    static func footMetres(_ metres: Double, seconds: Double) -> Double { min(metres, max(0, walkingPaceMps * seconds)) }

    /// A walker's pace (m/s): what a walk covers of a hop it shares with a vehicle.
    static let walkingPaceMps = 1.4

    /// The mode of a stretch no fix saw, `d` metres in a straight line from `startMs` to `endMs`: `unknown`
    /// (`mode_source` `none`), except that a straight-line pace at or above `plane_min_mps` is a flight (`plane`,
    /// `pace`). The pace is a lower bound of the traveller's speed (the way was at least the straight line, and took
    /// at most the silence), and nothing on the ground keeps 250 km/h door to door: a phone in airplane mode from
    /// Berlin to Lisbon leaves 2,300 km in 4 h 30 with no fix.
    /// The mode of a trip none of whose fixes moved (one fix, or fixes that stood still: sparse Google or OwnTracks
    /// data), from its pace stay to stay over `metres` (straight lines through its fixes): the only speed there is, and
    /// a lower bound of the traveller's. Faster than `cycle_max_mps` is a motorised `vehicle` (a 3.7-km trip in 5.6 min
    /// was a "walk" before; no fix tells a car from a train; `car` with `vehicle_max_interval_s` = 0); slower than
    /// `walk_max_mps` a walk; in between it could be a bicycle, a bus or a car in town: `unknown`.
    static func paceMode(_ metres: Double, _ trip: TripRecord, _ p: Parameters) -> String? {
        guard trip.endMs > trip.startMs else { return nil }
        let pace = metres / (Double(trip.endMs - trip.startMs) / 1000)
        return pace >= p.cycleMaxMps ? (p.vehicleMaxIntervalS > 0 ? LegMode.vehicle.rawValue : "car") : pace >= p.walkMaxMps ? "unknown" : "walk"
    }

    /// A silence shorter than `split_gap_s`, or a pace above the speed of sound (340 m/s), is no flight but bad data
    /// (two stays' edge fixes 15 s apart and 4 km off, a cold start's jump): `unknown`.
    static func silentMode(_ d: Double, _ startMs: Int64, _ endMs: Int64, _ p: Parameters) -> (String, String) {
        let seconds = Double(endMs - startMs) / 1000
        guard p.planeMinMps > 0, seconds >= p.splitGapS else { return ("unknown", "none") }
        let pace = d / seconds
        return pace >= p.planeMinMps && pace <= maxPaceMps ? ("plane", "pace") : ("unknown", "none")
    }

    /// The speed of sound (m/s): no traveller's pace is faster (the clean pass's `max_mps` default).
    static let maxPaceMps = 340.0

    /// The silences a trip crosses that become legs of their own, of mode `unknown` (`mode_source` `none`): no fix says
    /// how the traveller moved then, and a 30-km drive with the phone dead is not the walk its few fixes show.
    /// - Longer than `split_gap_s` (`travel_min_mps`: the traveller moved through them, or the trip would have been
    ///   cut there), with their straight line as distance.
    /// - Longer than `metrics.bridge_max_s` and crossed under way, at least at `metrics.moving_mps` in a straight line
    ///   less both fixes' accuracy (algorithm version 90, at `walk_max_mps` until version 92): a metro ride of 20 min
    ///   under the ground, 12 km, between two walks; before, such a silence was neither
    ///   bridged nor a leg, and the trip measured the two walks' 661 m though its ends lay 12.4 km apart. Inside a
    ///   vehicle leg, or between two legs of one vehicle, it stays that leg's, its straight line added: the vehicle
    ///   carried on (GeoLife 010's intercity train, 90 km in 18 min unseen, is a train, not `unknown`).
    /// - At least `hop_split_s` long, bridged, inside a walk, run or ride (or between two of them) of fixes a few
    ///   seconds apart on both sides, and crossed faster in a straight line (less both fixes' accuracy) than either
    ///   class goes (`walk_max_mps`, `run_max_mps`, `cycle_max_mps`), with the bridged increment as distance: a 10-min
    ///   metro ride of 5 km was "walk 5.4 km" at 18.8 km/h. A hop where a walk meets a vehicle is ``hopsSplit``'s.
    /// Returns the legs and the straight lines of the silences longer than `metrics.bridge_max_s` (which no increment
    /// counts).
    static func crossedSilences(
        _ legs: [LegRecord], _ trip: TripRecord, _ w: DeviceWork, _ pts: [Int], _ inc: [Double], _ p: Parameters,
        _ mp: MetricsPass.Parameters, _ ends: (from: (Double, Double)?, to: (Double, Double)?)
    ) -> (legs: [LegRecord], crossedM: Double) {
        guard let a = pts.first, let b = pts.last, !legs.isEmpty else { return (legs, 0) }
        // The bridged hops are `fast_hop`'s reading (off with it).
        let splitMs = Int64(p.splitGapS * 1000), bridgeMs = Int64(mp.bridgeMaxS * 1000)
        let hopMs = p.hopSplitS > 0 && p.fastHop > 0 ? Int64(p.hopSplitS * 1000) : Int64.max
        let denseMs: Int64 = 10_000
        var crossedM = 0.0
        /// The straight lines of silences a vehicle leg keeps as its own (by the position of the fix after each).
        var absorbed = [Double](repeating: 0, count: pts.count)
        func silent(_ i: Int, _ j: Int, _ startMs: Int64, _ endMs: Int64, _ d: Double) -> LegRecord {
            LegRecord(mode: "unknown", modeSource: "none", first: i, last: j, startMs: startMs, endMs: endMs, distanceM: d)
        }
        var out: [LegRecord] = []
        if let from = ends.from, w.time[a] - trip.startMs > splitMs {
            out.append(silent(a, a, trip.startMs, w.time[a], Geo.distance(from.0, from.1, w.lat[a], w.lon[a])))
        }
        /// The position of point `i` in `pts` (sorted).
        func index(_ i: Int) -> Int {
            var lo = 0, hi = pts.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if pts[mid] < i { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        func bound(_ mode: String) -> Double { classMaxMps(mode, p) }
        /// Whether the hop into `pts[q]`, inside leg `k` or (`boundary`) out of its last fix into leg `k + 1`'s first, is
        /// a silence of its own (above).
        func gap(_ q: Int, _ k: Int, boundary: Bool = false) -> Bool {
            let ms = w.time[pts[q]] - w.time[pts[q - 1]]
            if ms > splitMs { return true }
            guard ms > bridgeMs || ms >= hopMs else { return false }
            let next = boundary ? legs[k + 1].mode : legs[k].mode
            // A bridged hop where a walk meets a vehicle is the two legs' to share (``hopsSplit``).
            if boundary && ms <= bridgeMs && walkMeetsVehicle(legs[k].mode, next) != nil { return false }
            if ms > bridgeMs {
                guard Silences.pace(w, pts[q - 1], pts[q]) >= mp.movingMps else { return false }
                // A vehicle that carried on through it (the leg holding it motorised, and the next leg the same vehicle):
                // the leg's own, its straight line added (an intercity train's 18 min out of the satellites' sight).
                if LegMode(rawValue: legs[k].mode)?.isMotorised == true, !boundary || legs[k + 1].mode == legs[k].mode {
                    absorbed[q] = Geo.distance(w.lat[pts[q - 1]], w.lon[pts[q - 1]], w.lat[pts[q]], w.lon[pts[q]])
                    crossedM += absorbed[q]
                    return false
                }
                return true
            }
            // A silence of a phone that records often (the fixes on both sides a few seconds apart), as `fast_hop`
            // reads one: a sparse phone's every hop is minutes long, and one fix 200 m off (more than it says) made a
            // runner's minute 6 m/s.
            guard q >= 2, q + 1 < pts.count, w.time[pts[q - 1]] - w.time[pts[q - 2]] <= denseMs, w.time[pts[q + 1]] - w.time[pts[q]] <= denseMs
            else { return false }
            return Silences.pace(w, pts[q - 1], pts[q]) > max(bound(legs[k].mode), bound(next))
        }
        /// The leg of the silence into `pts[q]`: the straight line over a silence no increment bridges, else the increment.
        func silence(_ q: Int) -> LegRecord {
            let (i, j) = (pts[q - 1], pts[q])
            if w.time[j] - w.time[i] <= bridgeMs { return silent(i, j, w.time[i], w.time[j], inc[q]) }
            let d = Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j])
            crossedM += d
            return silent(i, j, w.time[i], w.time[j], d)
        }
        /// The way of a piece of leg `k` (points from `lo`), its increments from `start` through `last`: not the hop
        /// into its first fix, which is the leg before's or the silence's before it (as the legs count them; the
        /// thirteenth hostile round: a piece after a bridged silence counted the silence's increment again).
        func way(_ start: Int, through last: Int, _ lo: Int, _ k: Int) -> Double {
            let from = start == lo && k == 0 ? start : start + 1
            return from <= last ? inc[from...last].reduce(0, +) + absorbed[from...last].reduce(0, +) : 0
        }
        for (k, leg) in legs.enumerated() {
            // The leg's points are pts[lo..<hi]; each silence inside it, and one before the next leg, is cut out.
            let lo = index(leg.first), hi = k + 1 < legs.count ? index(legs[k + 1].first) : pts.count
            var piece = leg, start = lo
            if k == 0 && !out.isEmpty { piece.startMs = w.time[a] }
            let gapAfter = hi < pts.count && gap(hi, k, boundary: k + 1 < legs.count)
            for q in (lo + 1)..<max(lo + 1, hi) where gap(q, k) {
                var done = piece
                done.first = pts[start]
                done.last = pts[q - 1]
                done.endMs = w.time[pts[q - 1]]
                done.distanceM = way(start, through: q - 1, lo, k)
                out.append(done)
                out.append(silence(q))
                start = q
                piece.startMs = w.time[pts[q]]
            }
            if start > lo || gapAfter {
                piece.first = pts[start]
                piece.distanceM = way(start, through: hi < pts.count && !gapAfter ? hi : hi - 1, lo, k)
            } else if lo + 1 <= min(hi, pts.count - 1) {
                piece.distanceM += absorbed[(lo + 1)...min(hi, pts.count - 1)].reduce(0, +)
            }
            if gapAfter {
                piece.endMs = w.time[pts[hi - 1]]
                out.append(piece)
                out.append(silence(hi))
            } else {
                out.append(piece)
            }
        }
        if let to = ends.to, trip.endMs - w.time[b] > splitMs {
            out[out.count - 1].endMs = w.time[b]
            out.append(silent(b, b, w.time[b], trip.endMs, Geo.distance(w.lat[b], w.lon[b], to.0, to.1)))
        }
        guard out.contains(where: { $0.modeSource == "none" }) || crossedM > 0 else { return (legs, crossedM) }
        // A lone fix between two crossed silences (hourly fixes on a train) is no leg of its own: consecutive silences
        // are one `unknown` leg.
        var joined: [LegRecord] = []
        for leg in out {
            let lone = leg.modeSource != "none" && leg.first == leg.last && leg.distanceM == 0
            if lone, out.count > 1 { continue }
            if let last = joined.last, last.modeSource == "none", leg.modeSource == "none" {
                joined[joined.count - 1].last = leg.last
                joined[joined.count - 1].endMs = leg.endMs
                joined[joined.count - 1].distanceM += leg.distanceM
            } else {
                if let last = joined.last, last.endMs != leg.startMs { joined[joined.count - 1].endMs = leg.startMs }
                joined.append(leg)
            }
        }
        if let first = joined.first, first.startMs != trip.startMs { joined[0].startMs = trip.startMs }
        if let last = joined.last, last.endMs != trip.endMs { joined[joined.count - 1].endMs = trip.endMs }
        return (joined, crossedM)
    }

    /// What the trips pass found for the span: the trips, each with its row and its legs' rows ready to store (a leg
    /// row's `tripID` is its trip's stable id; the writer sets the id the trip was stored under, another should that
    /// one be taken), its legs' fixes and its stays' indices.
    public struct Output {
        public var trips: [TripRecord]
    }

    /// The fastest a leg of `mode` goes (`walk_max_mps`, `run_max_mps`, `cycle_max_mps`): no bound for a vehicle (or a
    /// leg of no known class).
    static func classMaxMps(_ mode: String, _ p: Parameters) -> Double {
        switch LegMode(rawValue: mode) {
        case .walk: p.walkMaxMps
        case .run: p.runMaxMps
        case .cycle: p.cycleMaxMps
        default: .infinity
        }
    }

    /// The trip's mode: the mode of its longest leg by distance; when that is a silence no fix saw (`unknown`), the
    /// longest leg of a known mode's, where every such silence lasted at most `split_gap_s` and was crossed no faster
    /// than that mode goes (``classMaxMps(_:_:)``): a ride with 4.5 km of a 10.5-km route unseen at 3.75 m/s between
    /// two cycling legs is a `cycle` trip (the fourteenth hostile round: `unknown`), a walk to the metro, 12 km under
    /// the ground and a walk out stays `unknown`.
    static func tripMode(_ legs: [LegRecord], _ p: Parameters) -> String {
        guard let longest = legs.max(by: { $0.distanceM < $1.distanceM }) else { return "unknown" }
        guard longest.mode == LegMode.unknown.rawValue,
              let known = legs.filter({ $0.mode != LegMode.unknown.rawValue }).max(by: { $0.distanceM < $1.distanceM })
        else { return longest.mode }
        let bound = classMaxMps(known.mode, p)
        let within = legs.allSatisfy { leg in
            let seconds = Double(leg.endMs - leg.startMs) / 1000
            return leg.mode != LegMode.unknown.rawValue || (seconds > 0 && seconds <= p.splitGapS && leg.distanceM / seconds <= bound)
        }
        return within ? known.mode : longest.mode
    }

    /// The span's trips between `stays` (``detect``), those starting before `keepFromMs`, with their rows filled in.

    static func assemble(
        _ work: DeviceWork, stays: [StayRecord], _ p: Parameters, _ mp: MetricsPass.Parameters, cutModel: TripCutModel = .shipped,
        cutLog: TripCutLog? = nil
    ) -> Output {
        var out = Self.detect(work, stays: stays, p, mp, cutModel: cutModel, cutLog: cutLog).filter { $0.startMs < work.keepFromMs }
        for k in out.indices {
            let t = out[k]
            let main = Self.tripMode(t.legs, p)
            // Local offsets at the trip's own start and end instants: where it left (reached) a stay, at that stay's
            // place, as the visit's end (start) has them; else at its first (last) fix.
            let startOffset = work.localOffset(
                atMs: t.startMs, latitude: t.fromStay.map { stays[$0].lat } ?? work.lat[t.first], longitude: t.fromStay.map { stays[$0].lon } ?? work.lon[t.first])
            let endOffset = work.localOffset(
                atMs: t.endMs, latitude: t.toStay.map { stays[$0].lat } ?? work.lat[t.last], longitude: t.toStay.map { stays[$0].lon } ?? work.lon[t.last])
            let id = StableID.make(.trip, deviceKey: work.deviceKey, startMs: t.startMs)
            var row = t.row
            row.id = id
            row.deviceID = work.deviceID
            row.startUTCOffset = UTCOffset(seconds: startOffset)
            row.endUTCOffset = UTCOffset(seconds: endOffset)
            row.durationS = Double(t.endMs - t.startMs) / 1000
            row.avgSpeedMps = Self.average(t)
            row.maxSpeedMps = Self.maximum(t)
            row.lineMaxSpeedMps = row.maxSpeedMps  // what `--pass paths` starts from (the paths pass raises `maxSpeedMps`)
            row.mode = main
            row.legs = t.legs.count
            row.fromVisitID = t.fromStay.map { stays[$0].id }
            row.toVisitID = t.toStay.map { stays[$0].id }
            row.fromPlaceID = t.fromStay.map { stays[$0].placeID }.flatMap { $0 == 0 ? nil : $0 }
            row.toPlaceID = t.toStay.map { stays[$0].placeID }.flatMap { $0 == 0 ? nil : $0 }
            row.startLat = work.lat[t.first]
            row.startLon = work.lon[t.first]
            row.endLat = work.lat[t.last]
            row.endLon = work.lon[t.last]
            row.points = t.last - t.first + 1
            out[k].row = row
            for n in t.legs.indices {
                let leg = t.legs[n]
                out[k].legs[n].row.tripID = id
                out[k].legs[n].row.leg = n
                out[k].legs[n].row.deviceID = work.deviceID
                out[k].legs[n].row.durationS = Double(leg.endMs - leg.startMs) / 1000
                out[k].legs[n].row.points = leg.last - leg.first + 1
                out[k].legs[n].row.lineDistanceM = leg.row.distanceM  // its straight lines (the paths pass shares the path)
            }
        }
        return Output(trips: out)
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        try work.ensureFlags(store: store)
        let stays: [StayRecord]
        if let s = work.stays { stays = s } else { stays = try StaysPass.load(work, store: store) }
        let output = Self.assemble(work, stays: stays, parameters, metrics, cutModel: cutModel, cutLog: cutLog)
        var legCount = 0
        var total = 0.0
        for trip in output.trips {
            legCount += trip.legs.count
            total += trip.distanceM
        }
        if writesTrips {
            try Self.store(output.trips, work, store: store)
        } else {
            // The paths pass measures them and stores them (`trips` and `legs` written once).
            work.trips = output.trips
        }
        return ["trips": .count(output.trips.count), "legs": .count(legCount), "distance_km": .measure((total / 10).rounded() / 100)]
    }

    /// Replaces the device's trips (and their legs) that start in the span the trips pass recomputes with `trips`, in
    /// their order, each under the id the store gives it (its stable id, or the next free one), its legs under it.
    /// The trips pass stores its trips this way when it runs without the paths pass; else the paths pass does, once
    /// it has measured them.
    static func store(_ trips: [TripRecord], _ work: DeviceWork, store: Store) throws {
        let deleteFrom = work.previousStay?.endMs ?? max(work.fromMs, work.processFromMs)
        let tables = RebuildTables(store)
        try tables.deleteTrips(device: work.deviceID, startingFromMs: deleteFrom, toMs: work.replaceToMs)
        for trip in trips {
            let id = try tables.insert(trip.row)
            for leg in trip.legs {
                var row = leg.row
                row.tripID = id
                try tables.insert(row)
            }
        }
    }

    /// The average speed: distance over moving time (nil when the trip never moved).
    static func average(_ t: TripRecord) -> Double? { t.movingS > 0 ? t.distanceM / t.movingS : nil }

    /// The maximum speed: the highest the fixes show, and never below the average — the highest speed over any part
    /// of a trip is at least its mean over the whole (the paths pass, which may lengthen the distance, keeps this).
    static func maximum(_ t: TripRecord) -> Double? {
        guard let average = average(t) else { return t.maxSpeed }
        return max(t.maxSpeed ?? 0, average)
    }

    /// A stored trip as a record matched to the points of `work`: its interior points (after the departure point
    /// when it left a visit, before the arrival point when it reached one) and its row. The rule by
    /// which the paths and metrics passes find a trip's fixes from its times.
    static func record(_ row: TripRow, _ work: DeviceWork) -> TripRecord {
        let (first, last) = interior(startMs: row.startMs, endMs: row.endMs, fromVisit: row.fromVisitID != nil, toVisit: row.toVisitID != nil, work)
        var t = TripRecord(first: first, last: last, startMs: row.startMs, endMs: row.endMs, fromStay: nil, toStay: nil)
        t.row = row
        return t
    }

    /// The point range of a trip from `startMs` to `endMs` read from its times: after the departure point when it
    /// left a visit (`fromVisit`), before the arrival point when it reached one (`toVisit`); `last` is at least `first`.
    static func interior(startMs start: Int64, endMs end: Int64, fromVisit: Bool, toVisit: Bool, _ work: DeviceWork) -> (first: Int, last: Int) {
        var first = lowerBound(work.time, start)
        if fromVisit && first < work.count && work.time[first] == start && first + 1 < work.count { first += 1 }
        var last = toVisit ? lowerBound(work.time, end) - 1 : lowerBound(work.time, end + 1) - 1
        if last < first { last = first }
        return (first, last)
    }
}
