import TriplineCore
import TriplineStore

/// Pass 3, `evidence` (after `stays`, before `places`): what the apps said besides their fixes, applied to the stays.
///
/// Sparse archives leave long silences: OwnTracks in significant-changes mode reports a still phone every 25–75 min,
/// Overland with iOS's automatic pauses reports nothing from ~10 min after arriving until the person is 100–250 m
/// away again. The fixes alone cannot say whether a silence was spent at the place or on the way. The apps' other
/// records can, and this pass uses them (all from `app_events` and `points.extra`, see docs/IMPORT.md):
/// - **Presence intervals.** OwnTracks region `transition` events: from an `enter` to the next `leave` of the same
///   region (`desc`) the phone was inside it (centre and radius from the `waypoint` messages; times corrected by
///   `enter_lag_s` / `leave_lag_s` for iOS's detection delay). Overland iOS `visit` records: from `arrival_date` to
///   `departure_date`. Overland pauses: from `paused_location_updates` to the next `resumed_location_updates` /
///   `exited_pause_region` the phone lay within its pause region (the departure is the resume time less the time to
///   walk from the place to the resume point at the next fix's speed). A pause no resume ended ends at the first fix
///   far from it when the app records again from there (`pause_exit_m`); an iOS arrival in a silence inside a stay at
///   its place splits the stay (`arrival_gap_s`).
/// - A stay whose centre lies within `match_m` (regions: their radius plus `match_m`) of a presence interval and
///   overlaps it in time is stretched to cover it, but never over a kept fix further away than that (trip fixes
///   win); stays of one interval are joined when nothing in between was further away. A fix that carries
///   `inregions` naming the region (OwnTracks) counts as being there, wherever its coordinates put it (wifi fixes
///   hundreds of metres off). An interval with fixes near it but no stay becomes a stay of its own (≥ `min_stay_s`).
/// - **Lone-fix stays.** Between two stays, a fix that did not move (no speed, or below `moving_mps`) next to a
///   silence of at least `still_gap_s` that travel at the trip's own speed explains only partly is a stay at that
///   fix when at least `lone_stay_s` remain (significant-change mode reports a stop with one fix, then nothing for
///   25–75 min). The trip's speed is the median of its fix-to-fix speeds over shorter silences (else reported
///   speeds, else `default_speed_mps`).
/// - **Motion states** (Overland): a stay before a long silence whose first fix starts a 1-Hz track the motion
///   states call moving lasts until that fix less the travel to it; a `stationary` fix (or a few) outside any stay
///   before such a silence is a stop (``movingResumes(_:_:keepFirst:speed:_:)``,
///   ``silencedStops(_:_:keepFirst:speed:_:)``). Travel times use the median speed of the fixes around a departure
///   (``travelSpeed(_:_:after:_:)``), and trips no fix saw the device's own pace (``observedTrips(_:_:_:)``).
/// - **Triggers** (OwnTracks significant changes, `m:1`): a lone fix published within `still_gap_s` of the one before
///   it was published while moving, so its stay starts no earlier; a next fix the time trigger published lies at least
///   `time_trigger_s` after the departure (``triggerEdges(_:_:keepFirst:automatic:crossings:_:)``).
/// With no app events, no motion states and no such silences (GPX, GeoLife), the stays pass's stays are kept
/// unchanged.
public struct EvidencePass: Pass {
    public static let name = "evidence"

    public struct Parameters: PassParameters {
        /// Stays within this distance (metres) of an interval's position belong to it (regions: radius + this).
        public var matchM: Double = 150
        /// iOS reports a region `leave` this long (seconds) after the person left the place (boundary crossing plus
        /// the monitor's delay); it reports `enter` about when the person arrives.
        public var leaveLagS: Double = 90
        public var enterLagS: Double = 0
        /// Presence intervals shorter than this (seconds) create no stay of their own.
        public var minStayS: Double = 300
        /// A silence this long (seconds) next to a still fix between stays …
        public var stillGapS: Double = 600
        /// … leaving at least this long (seconds) unexplained by travel makes the fix a stay.
        public var loneStayS: Double = 600
        /// … and only a fix this far (seconds) from both its neighbours: sparse sampling, not a dense track's
        /// stop at a traffic light just before the phone went silent.
        public var loneIsolationS: Double = 60
        /// A silence longer than this (seconds) is a gap, not presence: no rule here claims any of it for a stay (a
        /// lone fix, a sparse edge, an arrival a silence hid). As `stays.max_gap_s`, the longest silence one stay
        /// holds: a day covers a night and a day with the phone off; beyond, nothing says where the person was (one
        /// fix in California, the next 71 days later in Denmark was a 51-day visit in Denmark).
        public var loneMaxS: Double = 86_400
        /// A still fix far from a place between two near ones at most this far (seconds) away is at the place.
        public var outlierS: Double = 300
        /// Seconds between a departure and the next fix when the trip was too short for the distance trigger (the
        /// significant-changes time trigger fires 4–10 min after the phone starts moving: its middle).
        public var settleLagS: Double = 0
        /// A lone stay may be a run of still fixes this close (metres) to its first one (move mode's 180 s timer
        /// reports a 12-minute visit with three or four fixes: too short a span for the stays pass).
        public var clusterM: Double = 120
        /// Lone-fix stays only between stays whose fixes in between are this far apart (median, seconds).
        public var sparseIntervalS: Double = 30
        /// A fix at or above this reported speed (m/s) was moving.
        public var movingMps: Double = 0.7
        /// Speed (m/s) assumed when a trip shows none (walking).
        public var defaultSpeedMps: Double = 1.4
        /// The speed of a departure or arrival is the median reported speed (≥ 0.5 m/s) of the kept fixes this many
        /// seconds after (before) the fix next to the stay, not that fix's alone: the first fix after an iOS pause or
        /// a dead phone is often at a traffic light (0–1 m/s in a car that then drives at 14 m/s).
        public var speedWindowS: Double = 120
        /// … but never below this (m/s; 0 = no floor).
        public var travelMinSpeedMps: Double = 1.4
        /// A stay followed by a silence this long (seconds) whose first fix the motion coprocessor already calls
        /// moving (`walking`, `running`, `cycling`, `driving`) in a 1-Hz track ends that fix's distance from the
        /// stay before it, at the speed above (the app was killed or the phone dead while the person was still
        /// there: the stays pass leaves silences over `stays.extend_max_s` unclaimed).
        public var resumeGapS: Double = 600
        /// A trip with no fix at all (a dead phone, a killed app) between a stay and an iOS visit elsewhere takes the
        /// time to cover the distance at the median straight-line speed of this device's observed trips of similar
        /// length (half to twice, at least three of them), else this speed (m/s).
        public var unseenSpeedMps: Double = 5
        /// … except that a trip no fix saw shorter than this (metres, straight line) is taken as walked
        /// (`default_speed_mps`): most short trips are.
        public var unseenWalkMaxM: Double = 1500
        /// An Overland resume (`exited_pause_region`) with no pause before it in the archive belongs to the last
        /// still fix before it when it lies at most this far away (metres): the largest "resume with geofence"
        /// radius (2 km) plus the exit's lag.
        public var pauseReachM: Double = 2500
        /// An Overland pause with no resume before the next kept fix further than this (metres) from where it began
        /// ended at that fix, when the app records again from there (the next fix within a minute; 0 = off): the phone
        /// died or the app was killed while paused, and the app came back elsewhere without writing
        /// `resumed_location_updates`. The departure is that fix less the travel to it, as for a resume. (A lone fix
        /// after the silence, an hourly sample or the archive's last, leaves the pause as it was: 13 hours of
        /// "still at work" before it cost more than they gained on the development seeds.)
        public var pauseExitM: Double = 150
        /// An iOS visit whose arrival falls in a silence of at least this long (seconds) inside a stay at its place
        /// splits the stay there (0 = off): iOS saw the device arrive, so it was away before (a killed app or a dead
        /// phone hid the trips out and back).
        public var arrivalGapS: Double = 600
        /// An iOS visit's departure in the silence after its stay's last fix ends the stay there, where the stays pass
        /// (the next fix less the way at its pace) or a pause (the resume less the way out of its region) placed the
        /// departure later: a slow start, a walk to the car or a light, puts those estimates minutes late (1 = on,
        /// 0 = off; ``StayAmendment/endAtDeparture(_:)``, algorithm version 74).
        public var visitDeparts: Double = 1
        /// A presence (an iOS visit, a pause, a region) never joins two stays across a walk out between them, as the
        /// stays pass never merges them (`stays.walk_out_s`, `stays.walk_out_m`: a visit's 150-m reach covers the
        /// pharmacy and the office 116 m away, and the walk between them was recorded) (1 = on, 0 = off; algorithm
        /// version 75).
        public var walkApart: Double = 1
        /// The stays pass's `walk_out_s` and `walk_out_m` (not keys of this pass: ``EvidencePass/init(settings:)``
        /// reads them from the stays pass's settings).
        var walkOut = (seconds: StaysPass.Parameters().walkOutS, metres: StaysPass.Parameters().walkOutM)
        /// The device's own pace (trips no fix saw, arrivals a silence hid) is learnt from the trips the fixes saw whole
        /// between the stays pass's stays, then (2) again between the amended stays, and the amendments are redone with
        /// it: a trip seen whole to a place whose stay only the evidence made (an iOS visit or a pause over a few fixes,
        /// too short for the stays pass) is this person's pace between those two places (1 = the first only).
        public var paceRounds: Double = 2
        /// The departure and arrival of a trip seen by few fixes come from the person's pace (1 = on, 0 = off;
        /// ``sparseTripEdges(_:_:keepFirst:speed:_:)``) …
        public var edgePace: Double = 1
        /// … when the silence between the last fix at the origin and the first moving fix (likewise at the
        /// destination) lasts at least this long (seconds).
        public var edgeMinS: Double = 120
        /// A region `leave` fix tells the pace of a trip that shows no pace of its own (1 = on, 0 = off;
        /// ``leavePace(_:_:leaves:_:)``).
        public var leavePace: Double = 1
        /// A stop inside a region absence is proven when both fixes around its silence were moving and the silence
        /// outlasts `still_gap_s` by `min_stay_s` (1 = on, 0 = off; ``absentStops(_:_:absences:keepFirst:leaves:speed:_:)``).
        public var provenStops: Double = 1
        /// A silence between two fixes of one trip that an OwnTracks phone published in significant-changes mode as
        /// automatic updates, outlasting `still_gap_s` by `min_stay_s`, holds a stop (1 = on, 0 = off;
        /// ``wayStops(_:_:keepFirst:automatic:_:)``, algorithm version 71).
        public var wayStops: Double = 1
        /// A region absence shorter than twice `lone_stay_s` whose only fix is the region's own `leave` holds a stop when
        /// the ways out and back leave at least `min_stay_s` (1 = on, 0 = off;
        /// ``absentStops(_:_:absences:keepFirst:leaves:speed:_:)``, algorithm version 72).
        public var errandStops: Double = 1
        /// The edges of stays next to fixes an OwnTracks phone published in significant-changes mode follow its
        /// triggers (1 = on, 0 = off; ``triggerEdges(_:_:keepFirst:automatic:crossings:_:)``): a lone-fix stay whose fix
        /// came within `still_gap_s` of the fix before it starts no earlier than its fix, and a departure whose next
        /// fix came after a silence nearer than `distance_trigger_m` to the last one lies at least `time_trigger_s`
        /// before that fix.
        public var triggerEdges: Double = 1
        /// A stay at a region that begins inside the region's absence (between its `leave` and the next `enter`) and
        /// runs past the `enter` begins at the `enter` (1 = on, 0 = off; ``StayAmendment/splitAtAbsences()``): a work
        /// stay that began at the `leave` fix of a lunch out held the lunch (algorithm version 28).
        public var absenceStarts: Double = 1
        /// The trips out and back of a stop in a region absence take a `leave` fix's pace only when the fix resolves
        /// it (beyond the region's edge by more than twice its accuracy, and above the floor of half of
        /// `default_speed_mps`), else the device's pace (1 = on, 0 = off: the `leave` fix's pace whenever it lies
        /// beyond the edge; ``absentStops(_:_:absences:keepFirst:leaves:speed:_:)``, algorithm version 32).
        public var absentPace: Double = 1
        /// The sparse trips' arrival estimate never moves a stay at a region back into an absence of that region that
        /// ended (`enter`) before the stay began (1 = on, 0 = off; ``sparseTripEdges(_:_:keepFirst:leaves:absences:speed:_:)``,
        /// algorithm version 32).
        public var enterBound: Double = 1
        /// The distance trigger's shortest displacement (metres): significant changes publish a moving phone once it is
        /// 400–1200 m from its last fix, so a nearer fix is the time trigger's.
        public var distanceTriggerM: Double = 400
        /// The time trigger's shortest delay (seconds): it starts when the person starts moving and fires 4–10 min later.
        public var timeTriggerS: Double = 240

        public init() {}

        public static var keys: Keys { [
            "match_m": \.matchM, "leave_lag_s": \.leaveLagS, "enter_lag_s": \.enterLagS, "min_stay_s": \.minStayS,
            "still_gap_s": \.stillGapS, "lone_stay_s": \.loneStayS, "lone_isolation_s": \.loneIsolationS, "lone_max_s": \.loneMaxS, "outlier_s": \.outlierS, "sparse_interval_s": \.sparseIntervalS, "settle_lag_s": \.settleLagS, "cluster_m": \.clusterM, "moving_mps": \.movingMps, "default_speed_mps": \.defaultSpeedMps,
            "speed_window_s": \.speedWindowS, "travel_min_speed_mps": \.travelMinSpeedMps, "resume_gap_s": \.resumeGapS, "unseen_speed_mps": \.unseenSpeedMps, "unseen_walk_max_m": \.unseenWalkMaxM, "pause_reach_m": \.pauseReachM, "pause_exit_m": \.pauseExitM, "arrival_gap_s": \.arrivalGapS, "pace_rounds": \.paceRounds,
            "visit_departs": \.visitDeparts, "walk_apart": \.walkApart,
            "edge_pace": \.edgePace, "edge_min_s": \.edgeMinS, "leave_pace": \.leavePace, "proven_stops": \.provenStops, "way_stops": \.wayStops, "errand_stops": \.errandStops,
            "trigger_edges": \.triggerEdges, "distance_trigger_m": \.distanceTriggerM, "time_trigger_s": \.timeTriggerS,
            "absence_starts": \.absenceStarts, "absent_pace": \.absentPace, "enter_bound": \.enterBound,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges"): speeds the pass divides distances by are above 0; the
        /// speed window it scans around each fix is at most an hour; `pace_rounds` is a small whole number of rounds.
        public static var ranges: Ranges { [
            "match_m": .distanceOrOff, "leave_lag_s": .duration, "enter_lag_s": .duration, "min_stay_s": .duration,
            "still_gap_s": .duration, "lone_stay_s": .duration, "lone_isolation_s": .duration, "lone_max_s": .duration,
            "outlier_s": .duration, "sparse_interval_s": .duration, "settle_lag_s": .duration, "cluster_m": .distanceOrOff,
            "moving_mps": .speed, "default_speed_mps": .speed, "speed_window_s": .window, "travel_min_speed_mps": .speedOrOff,
            "resume_gap_s": .duration, "unseen_speed_mps": .speed, "unseen_walk_max_m": .distanceOrOff,
            "pause_reach_m": .distanceOrOff, "pause_exit_m": .distanceOrOff, "arrival_gap_s": .duration, "visit_departs": .flag, "walk_apart": .flag,
            "pace_rounds": ParameterRange(1, 10, whole: true),  // each round reruns the amendments
            "edge_pace": ParameterRange(0, 1, whole: true), "edge_min_s": .duration,
            "leave_pace": ParameterRange(0, 1, whole: true), "proven_stops": ParameterRange(0, 1, whole: true),
            "way_stops": ParameterRange(0, 1, whole: true), "errand_stops": ParameterRange(0, 1, whole: true),
            "trigger_edges": ParameterRange(0, 1, whole: true), "distance_trigger_m": .distanceOrOff, "time_trigger_s": .duration,
            "absence_starts": ParameterRange(0, 1, whole: true), "absent_pace": ParameterRange(0, 1, whole: true),
            "enter_bound": ParameterRange(0, 1, whole: true),
        ] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Its own settings, and the stays pass's walk out (`stays.walk_out_s`, `stays.walk_out_m`; `walk_apart`).
    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        let stays = try StaysPass(settings: settings).parameters
        p.walkOut = (stays.walkOutS, stays.walkOutM)
        self.init(parameters: p)
    }

    /// What the pass reads for one device's span.
    public struct Input {
        /// The stays pass's stays of the span, the visit kept before it first (``DeviceWork/previousStay``).
        public var stays: [StayRecord]
        /// The app's records around the span (``Store/evidenceEvents(device:fromMs:toMs:)``).
        public var events: [EvidenceEvent]
        /// The span's fixes that name the regions they were in (``Store/regionFixes(device:fromMs:untilMs:)``); read
        /// only when the events name a region (``namesRegions(_:)``).
        public var regionFixes: [RegionFix]
        /// Whether the span's fix at a time is one an OwnTracks phone published in significant-changes mode as an
        /// automatic update (``Store/significantChanges(device:fromMs:untilMs:)``, looked up only for the fixes the
        /// trigger-edges rule weighs).
        public var significantChange: (Int64) -> Bool
        /// The stored stays of the context before the span (a window's or an incremental rebuild's), matched to its
        /// points: the trips between them teach the device's pace (``paceReachMs``); they are never amended.
        public var context: [StayRecord]
        /// The stored fixes between an `enter` read before the span's loaded points and the first of them
        /// (``EarlierFixes``); nil when there is none.
        var earlier: EarlierFixes? = nil

        public init(stays: [StayRecord], events: [EvidenceEvent] = [], regionFixes: [RegionFix] = [], significantChange: @escaping (Int64) -> Bool = { _ in false },
                    context: [StayRecord] = []) {
            self.stays = stays
            self.events = events
            self.regionFixes = regionFixes
            self.significantChange = significantChange
            self.context = context
        }
    }

    /// What the pass found for one device's span.
    public struct Output {
        /// The span's stays as amended, the kept visit first when there is one.
        public var stays: [StayRecord]
        /// How many presence intervals the app's records gave.
        public var presences: Int
    }

    /// The stays of `input` amended by the app's records (see the type's documentation): those that start at or after
    /// ``DeviceWork/keepFromMs`` left out, those that cannot have happened dropped or shortened
    /// (``possible(_:keepFirst:)``).
    public static func amendStays(_ work: DeviceWork, _ input: Input, _ p: Parameters) -> Output {
        let evidence = Self.evidence(
            work, events: input.events, regionFixes: input.regionFixes, significantChange: input.significantChange, earlier: input.earlier, p)
        let amended = apply(work, stays: input.stays, context: input.context, evidence: evidence, p).filter { $0.startMs < work.keepFromMs || $0 == work.previousStay }
        let keepFirst = work.previousStay != nil && !input.stays.isEmpty ? 1 : 0
        return Output(stays: possible(amended, keepFirst: keepFirst), presences: evidence.presences.count)
    }

    /// Reads the span's stays (the stays pass's of this run, else the stored ones) and the app's records, amends the
    /// stays (``amendStays(_:_:_:)``) and writes them: the one write of the span's `stays` in a rebuild that runs both
    /// passes (the stays pass then leaves its stays to this one, ``StaysPass/writesStays``).
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        try work.ensureFlags(store: store)
        let fromThisRun = work.stays != nil
        let stays = try work.stays ?? StaysPass.load(work, store: store)
        let from = work.fromMs == Int64.min ? Int64.min : work.fromMs - Self.eventMarginMs
        let to = work.toMs == Int64.max ? Int64.max : work.toMs + Self.eventMarginMs
        let events = try store.evidenceEvents(device: work.deviceID, fromMs: from, toMs: to)
        let fixes = try Self.namesRegions(events) ? store.regionFixes(device: work.deviceID, fromMs: work.fromMs, untilMs: work.toMs) : []
        let significant = try parameters.triggerEdges > 0
            ? store.significantChanges(device: work.deviceID, fromMs: work.fromMs, untilMs: work.toMs) : nil
        // The stored stays of the loaded context before the span (none in a rebuild over everything).
        var context: [StayRecord] = []
        if work.processFromMs > Int64.min, work.fromMs < work.processFromMs {
            let until = stays.first?.startMs ?? work.processFromMs
            context = try store.stays(device: work.deviceID, endingAtOrAfterMs: work.fromMs, startingBeforeMs: until)
                .map { StayRecord($0).indexed(in: work.time) }.filter { $0.endMs < until }
        }
        var input = Input(stays: stays, events: events, regionFixes: fixes,
                          significantChange: { significant?.contains(timeMs: $0) ?? false }, context: context)
        input.earlier = try EarlierFixes.load(work, events: events, store: store, parameters)
        let output = Self.amendStays(work, input, parameters)
        if let error = significant?.error { throw error }
        let keepFirst = work.previousStay != nil && !stays.isEmpty ? 1 : 0
        // Replace this span's stays with the amended ones: the stays pass's span (as it would have cleared it), or the
        // stored stays read.
        let tables = RebuildTables(store)
        if fromThisRun {
            try tables.deleteStays(device: work.deviceID, fromMs: max(work.fromMs, work.processFromMs), toMs: work.replaceToMs)
        } else {
            // Only those the amended stays replace: a `--to` rebuild keeps the stays from `keepFromMs` on as stored
            // (``amendStays(_:_:_:)`` leaves them out).
            for s in stays[keepFirst...] where s.startMs < work.keepFromMs { try tables.deleteStay(id: s.id) }
        }
        var out = output.stays
        for k in out.indices where k >= keepFirst {
            out[k].id = try tables.insert(out[k].row(device: work.deviceID, key: work.deviceKey))
        }
        // Point ranges from the times, as the next rebuild reads them back (``StayRecord/indexed(in:)``).
        for k in out.indices where k >= keepFirst { out[k] = out[k].indexed(in: work.time) }
        work.stays = out
        let changed = zip(stays, out).filter { $0.0.startMs != $0.1.startMs || $0.0.endMs != $0.1.endMs }.count + abs(stays.count - out.count)
        return ["presences": .count(output.presences), "stays": .count(out.count - keepFirst), "changed": .count(changed)]
    }
}
