import TriplineCore
import TriplineGeography
import TriplineStore

/// Runs the passes per device, in order, over the span that needs it, and records each run in `pass_runs`.
///
/// By default only what changed is recomputed: for each device, the points imported since its last rebuild
/// (`import_id` above the one recorded in `settings` as `rebuild.last_import.<device id>`) decide where to restart —
/// right after the second-to-last stored visit that ended a day before the earliest new point, or further back while
/// the visits after it lie at its place (``restartPoint(deviceID:before:previous:keep:)``). That restart point is one the
/// stay detector itself passes through (it restarts after every stay), so the result is the same as a full rebuild
/// except where the evidence pass's learnt pace differs (docs/PASSES.md, "How the runner works"); tests compare the
/// two on split imports. `full` recomputes everything.
public struct Rebuild {
    /// The passes, in the order they run.
    public static var passes: [any Pass.Type] {
        [
            CleanPass.self, StaysPass.self, EvidencePass.self, PlacesPass.self, TripsPass.self, PathsPass.self, TimelinePass.self,
            MetricsPass.self, AppTripsPass.self,
        ]
    }
    public static var passOrder: [String] { passes.map { $0.name } }

    /// The version of the passes' logic, recorded with each device's results (`rebuild_state.algorithm_version`).
    /// Bump it whenever a change to a pass changes what it writes: the next rebuild of every device then recomputes
    /// everything and says why. 2: stable ids, the user's place edits, wifi names without `Wifi "…"`. 3: the evidence
    /// pass's motion-state, travel-speed and unseen-trip rules; trips between two stays with no fix in between.
    /// 4: stays' point ranges from their times (`StayRecord.indexed`); place names with their offset from the
    /// locality (`near Beijing (12 km NW)`). 6: a trip none of whose fixes moved takes its mode from its pace.
    /// 7: the evidence pass's pauses no resume ended (`pause_exit_m`), iOS arrivals that split a stay
    /// (`arrival_gap_s`) and the pace learnt again from the amended stays (`pace_rounds`). 8: incremental restarts a
    /// day back and past visits that could still merge, and the errand and unseen-visit rules next to a kept visit
    /// (a full rebuild writes what it wrote; results built a day at a time by 7 can differ from it, so they are redone).
    /// 9 (issue 22): estimated visit and trip times carry their zone's offset, legs share their trip's distance, days
    /// are the legs spread over local days, and a silence longer than `evidence.lone_max_s` is claimed by no stay.
    /// Also 9 (issue 28): the clean pass flags fixes out of reach (`max_mps`, flag 8); trips hold their fixes and never end before
    /// they start; moving time within the trip, a maximum speed from the fixes and never below the average.
    /// Also 9 (issue 22, Google): Google's own visits and activities become visits, places, trips and legs where the fixes made nothing
    /// (the `timeline` pass); rows say their `source`; Google's `timelinePath` points inside its segments are flagged
    /// (clean flag 16) and Google's visits are no iOS visits for the evidence pass.
    /// 10 (issue 29): places named as people know them (`PlaceNames`): the user's name, the app's (Google's, OwnTracks'
    /// regions), `Home`/`Work` from when the time is spent, the wifi, the locality; no two places of a device share one.
    /// 11 (issue 23, sparse phones): a sparsely seen trip's departure and arrival from the person's pace
    /// (`EvidencePass.sparseTripEdges`), and a stop hidden inside a region absence (`EvidencePass.absentStops`).
    /// Also 11 (issue 23): the trips pass drops short candidate trips its learned drift-or-walk model calls drift
    /// (`TripCutModel`, `trips.cut_model`).
    /// Also 11 (issue 29 item 1): places clustered over the device's whole history with a link distance that follows the
    /// stays' scatter (`places.merge_max_m`, `places.scatter_factor`); every day's place count taken again at the end.
    /// Also 11 (issue 23): each leg's class (foot / bicycle / motorised) from the learned mode model (`trips.mode_model`,
    /// `Learned/ModeModel.swift`).
    /// 12 (issue 22 item 6): a motorised leg whose fixes lie more than `trips.vehicle_max_interval_s` apart, and a trip
    /// no moving fix saw that went faster than a bicycle, is a `vehicle` rather than a guessed car, bus or train.
    /// 13 (issue 29): the places pass keeps close places apart by distinct wifi, distinct app place ids and a wall of
    /// time (`places.evidence`, `places.wall_visits`), and a place of lone-fix stays joins the nearest place fixes
    /// showed (`places.weak_reach_m`).
    /// 14 (issue 23, sparse phones): a region `leave` fix gives the pace of a trip that has none of its own
    /// (`evidence.leave_pace`), and a stop in a region absence is proven by the silence between two moving fixes
    /// (`evidence.proven_stops`).
    /// 15 (issue 23 item 3): a short stay between two trips that the learned stop-or-traffic model calls a pause on
    /// the way is no stay (`stays.pause_model`, `Learned/PauseCut.swift`): the trips on both sides are one.
    /// 16 (issue 23 item 4): a region `enter` with no `leave` after it (the archive ends inside the region) joins
    /// every stay after it that no fix left the region between, not only the first (a wifi fix far off that says it
    /// is in the region split the stay).
    /// 17 (issue 29, sparse phones): a place of lone-fix stays also joins a place up to `places.weak_ahead_m` away when
    /// that place lies ahead on the lone fix's way, and joins the place of least distance × (1 + deviation / 30°)
    /// rather than the nearest.
    /// 18 (issue 23, pieces): a candidate pause whose traveller moved faster than any bicycle in the minute before and
    /// after it stayed aboard and is no stay (`stays.aboard_mps`, `PauseFeatures.aboard`).
    /// 19 (issue 23 item 5, dense visits): an Overland resume after a pause that fixes far from it had already ended
    /// ends a later, unrecorded pause (the evidence pass's ``EvidencePass/pauseStart(_:resume:_:_:_:)``), not the old one.
    /// 20 (window pace): the device's pace for a trip no fix saw is learnt from the trips seen whole in the day and a
    /// half before it (`EvidencePass.paceReachMs`), the stored stays of a window's context included, no longer from
    /// every trip of the window: a windowed or incremental rebuild learns what one over everything learns.
    /// 21 (issue 29, sparse phones): a place of lone-fix stays that lie between an OwnTracks region's `leave` and its
    /// next `enter` joins no place inside that region (a lunch out seen by one fix 300 m from work, a shop 400 m from
    /// home: the phone said the person was out of the region).
    /// 22 (issue 23 item 4, trigger edges): in an OwnTracks phone's significant-changes mode a lone-fix stay whose fix
    /// came within `still_gap_s` of the fix before it starts no earlier than its fix, and a departure whose next fix is
    /// the time trigger's lies at least `time_trigger_s` before it (``EvidencePass/triggerEdges(_:_:keepFirst:automatic:crossings:_:)``).
    /// 23 (issue 29, sparse phones): a stay's scatter in the places' link distance is at least its centre's
    /// uncertainty, the mean accuracy its fixes reported over the square root of their number
    /// (`places.accuracy_factor`): a shop's two stays of three wifi fixes, 36 and 62 m from it, are one place.
    /// 24 (windows equal): a window restarts right after the third-to-last visit of the one before, not the
    /// second-to-last, whose end followed the trip to the window's last visit, which the window's end cut short.
    /// 25 (issue 23 item 3, reproducible learning): the shipped drift-or-walk ensemble (`TripCutCoefficients.swift`)
    /// regenerated by `scripts/train-trip-cuts.py` on the current build's candidates, as its reproduce command says.
    /// 26 (walks the labels cannot teach): a trip that is one leg at walking pace with a pedestrian's stops stays a
    /// walk whatever the learned mode model says (`trips.foot_guard`, ``ModeFeatures/pedestrian(_:walkMaxMps:)``).
    /// 27 (learned modes that do not learn the logger): the speed rules decide every leg's class by default
    /// (`trips.mode_model` = 0): no variant of the learned model kept GPS loggers' walks and GeoLife 010 and 020.
    /// 28 (places complete on sparse phones): a stay at a region that begins inside the region's absence and runs past
    /// the `enter` begins at the `enter` (`evidence.absence_starts`): a lunch out is no longer part of the work stay.
    /// 29 (daily imports equal a full rebuild): an incremental, windowed or `--from` restart keeps no visit of one fix
    /// or whose fixes span less than `stays.min_duration_s`, none followed by such a visit, and none that a later visit
    /// within 2 × `stays.merge_m` (nothing further than `stays.excursion_m` between) could still merge with.
    /// 30 (hand-logged tracks, issue 23): a silence of at least `stays.silence_min_s` between a track that arrived at a
    /// place and one that left it (fixes without a speed: GPX loggers, GeoLife) is a stay there (`stays.silence_*`).
    /// 31 (the restart's leftovers): an Overland pause with no kept fix loaded before it is taken as not in the
    /// archive (its resume is one without a pause); every run of a presence's stays with nothing far between is joined,
    /// not only the first; an incremental restart keeps no visit since an app record the old data left open (a
    /// region entered and not left, a pause not resumed).
    /// 32 (places complete on sparse phones): a stop in a region absence takes the `leave` fix's pace only when the fix
    /// lies beyond the region's edge by more than twice its accuracy, else the device's (`evidence.absent_pace`); the
    /// sparse trips' arrival estimate never moves a stay at a region back into an absence of that region that ended
    /// before the stay began (`evidence.enter_bound`).
    /// 33 (the ends of logged stretches, issue 23): a silence that ends in a stay at the place the track before arrived
    /// at is that stay from the track's end (`stays.silence_wake_m`: a logger left on all day wakes at home); a track
    /// that stood still at the place for two minutes before the silence arrived, whatever its pace, and a lone last
    /// fix more than a minute after the rest (a signal lost indoors) no longer hides the track's arrival.
    /// 34 (vehicles the rules call walks, issue 23): a leg the rules call foot between two motorised legs of one trip
    /// whose fixes are not a pedestrian's (stop-and-go, or leaving walking pace) is the vehicle in traffic and joins
    /// them (`trips.crawl_join`).
    /// 35 (place names are text to show): an imported name (Google's place name or address, an OwnTracks region, a wifi
    /// network) has its control characters replaced by spaces instead of being cut at a NUL, and one of only white
    /// space names nothing (the next rule names the place) instead of naming it blank.
    /// 36 (a region entered and left with a far fix in between is two presences): a kept fix clearly outside an OwnTracks
    /// region between its `enter` and `leave` (or the next `enter`, or none yet) ends the `enter`'s presence at the kept
    /// fix before the first such fix and begins the `leave`'s at the kept fix after the last one; an incremental restart
    /// reaches back to the last far fix after an open `enter`, not to the `enter` itself.
    /// 37 (glitches of loggers left on indoors, issue 23): an out-and-back jump (reached or left faster than a car,
    /// its neighbours close together) is flagged from 150 m off both neighbours (`clean.jump_min_m`, 300 before).
    /// 38 (a leg's way is that of its time): a leg's distance counts the hop out of its last fix to the next leg's first
    ///    (within its time), not the hop into its first (the leg before's time); no leg's average above its trip's maximum.
    /// 39 (a day's moving time is its trips'): the days count the silences a trip crosses, its counted connectors and
    ///    a trip no fix saw by their time on each local day, as the trip counts them (days' moving time = trips').
    /// 40 (rides the drift model dropped, issue 23): a candidate trip that keeps a vehicle's pace (`walk_max_mps`) over
    ///    60-s windows for 3 min is a ride, whatever the drift-or-walk model says (`trips.ride_guard_s`, ``RideGuard``).
    /// 41 (a leg's distance is that of its own time): the paths pass gives each leg its own straight lines plus the
    ///    circuity extras found in its span (a connector to the first or last leg) instead of a share of the trip's
    ///    estimate by straight lines; a trip's maximum speed is never below any of its legs' averages.
    /// 42 (ids from the device's name): stay, visit, trip and place ids mix the device's name (``StableID/deviceKey(name:)``),
    ///    not its database id, so they do not depend on the order the devices were imported in.
    /// 43 (Recorder regions name places): the OwnTracks regions of a `.rec` file (each message after its time and
    ///    topic) name places as those of the app's JSON do; before, only the evidence pass read them.
    /// 44 (`--pass paths` equals a full rebuild): trips keep the trips pass's maximum speed (`line_max_speed_mps`) and
    ///    legs their straight lines (`line_distance_m`, migration 11), which a `--pass paths` run starts from; the other
    ///    columns are unchanged (a plain rebuild after this rebuilds whole, so every row has them).
    /// 45 (a region's radius is a place's): an OwnTracks `rad` that is not a number above 0 and at most 100 km is no
    ///    radius (the default); a `rad` of 1e308 named every place on Earth after its region.
    /// 46 (the 180th meridian): stays, their merges, the evidence's still runs and the places' clustering measure and
    ///    average longitudes the shorter way round (`Geo.unwrappedLongitude`, `Geo.meanLongitude`), and places near it
    ///    are compared with those across it; a stay on Taveuni was cut at every crossing and centred at longitude 0.
    ///    And moving time: a fix reporting a speed below `metrics.moving_mps` whose step from the one before is
    ///    longer than standing still and both fixes' accuracy allow counts as moving (fixes all reporting 0 made an
    ///    hour's drive 30 s of moving time, 888 m/s on average).
    /// 47 (outliers of dense phones): a fix at most `clean.line_jump_s` from both neighbours, `line_jump_min_m` off
    ///    the line they draw and further than `jump_speed_mps` × the shorter interval, is an out-and-back jump.
    /// 48 (adjacent stays): no trip between two stays whose edge fixes follow each other at the device's sampling
    ///    (no fix missed) less than `trips.min_distance_m` apart; a dawdle cut into adjacent stays made 10-s trips of
    ///    the distance between their centres (180 m at 18 m/s). And sides that follow each other: the clean pass flags
    ///    a source only where it interleaves with a larger one (or is a side of one or two fixes), so an hour 5,400 km
    ///    away after 30 min at 3,000 m/s is no longer dropped whole; no trip joins two stays faster than 340 m/s.
    /// 49 (ferries): a motorised leg mostly at sea (`trips.boat_min_sea_share` of its path more than 1.5 km off the
    ///    coastline) at a vessel's speed (95th percentile at most `trips.boat_max_mps`) is a `boat`, not a car; one
    ///    that holds a crossing of `trips.boat_cut_min_m` but more road is cut there (car, boat, car).
    /// 50 (reported speeds the track contradicts): a run of fixes reporting under 0.5 m/s whose displacement over a
    ///    centred 60-s window, less both ends' accuracy, is at least 0.8 m/s, for at least 60 s and 5 fixes, has its
    ///    speeds set to unknown when the points are loaded (`DeviceWork.distrustContradictedSpeeds`), so every pass
    ///    uses the displacement speed there: a drive and a walk whose fixes all report 0 are a `car` and a `walk`.
    /// 51 (Google's journeys): Google's activities that follow each other less than `timeline.chain_gap_s` apart with
    ///    nothing between are the legs of one trip (a walk, a train, a walk), not three trips; a Google trip leaves the
    ///    visit that ends last before it and reaches the one that starts first after it, with nothing between (before,
    ///    the visit nearest in time on either side: a trip could leave the visit it reached). The apptrips pass compares
    ///    a record covering less than half of its trip (Google's walk to the station) with the leg it overlaps most.
    /// 52 (Google's lines): each leg taken from Google's timeline stores its line (`legs.app_line`: start, path
    /// points, end) and its straight lines along it (`legs.line_distance_m`, summed into the trip's); days' straight
    /// lines take each Google leg's own.
    /// 53 (a repeated speed): a run of fixes reporting at least 1 m/s whose path over a centred minute (the sum of its
    ///    steps) is covered at under half that speed has its speeds set to unknown where the points are loaded, as a
    ///    run of zeros on a moving track is since version 50: a phone repeating 15 m/s while still and on a ride of
    ///    6 m/s no longer makes the ride a `car` at 15 m/s.
    /// 54 (Google's impossible figures): a Google activity whose distance no traveller of its mode covers in its time
    ///    (`TimelinePass.fastestMps`) takes the distance along its own line where that is shorter, and a walk, run or
    ///    ride faster than feet or a bicycle go is a `vehicle` (`mode_source` `pace`; `app_activity` keeps Google's word).
    /// 55 (stops out of a vehicle): a stay of at least `stays.got_out_min_duration_s` (5 min) and shorter than
    ///    `min_duration_s` is kept when the app's motion states show the person on foot or on a bicycle at both its ends
    ///    and never `driving` inside it, and the stop-or-traffic model does not join it away; tracks without motion
    ///    states are unchanged.
    /// 56 (still fixes that stray beyond their accuracy): in a sparsely sampled stay, a fix that reports an accuracy
    ///    but no speed is a departure only beyond its accuracy × `scatter_factor` × the cluster's median ratio of
    ///    distance to accuracy (when above 1; `stays.known_scatter`): such a phone's visits no longer end minutes early.
    /// 57 (a walk out and back): two stays at one place are two, not one, when the fixes between them carry the
    ///    app's moving motion states for `stays.walk_out_s` (60 s) and draw a path of `walk_out_m` (150 m); a
    ///    drift-or-walk candidate whose fixes carry walking, running or cycling states for `trips.walk_guard_s`
    ///    (120 s) is a trip whatever the model says. Tracks without motion states are unchanged.
    /// 58 (a walk to the next door): a stay with a walk inside it (motion states of walking, running or cycling for
    ///    `stays.steps_leave_s`, 60 s, reaching `steps_leave_m`, 50 m, from where it began) is two stays when each part
    ///    lasts the shortest stay any rule keeps, even inside the stay's radius; two stays at one place stay apart
    ///    over a walk of `walk_out_m` 50 m (150 in 57); a trip under `trips.min_distance_m` is one when its fixes say
    ///    walking for `trips.steps_min_s` (60 s) over `steps_min_distance_m` (50 m), and `trips.walk_guard_s` is 60 s
    ///    (120 in 57). Tracks without motion states are unchanged.
    /// 59 (the rest of a walk): a walk inside a stay with only one part around it long enough to be a stay ends the
    ///    stay where the walk began or begins it where the walk ended (`stays.steps_trim`): the short part and the walk
    ///    are the trip's (a wait at the bus stop next door; a stop at the far end of a walk round the block).
    /// 60 (indoors): a stay of `stays.got_out_min_duration_s` whose fixes report no speed while the fixes around it
    ///    report one is out of any vehicle (`stays.got_out_indoors`): the phone lost its satellites at a shop, where a
    ///    car in a jam keeps them and reports 0.
    /// 61 (a walk named late): a walk (`stays.steps_leave_s`) begins at the moving fixes just before its first stepping
    ///    state, which iOS names late (`stays.steps_lead`).
    /// 62 (indoors, from the arrival): `stays.got_out_indoors` counts a stop's time from the arrival to the departure
    ///    the fixes beside it place, and the stays pass takes two such fixes as a candidate however close together
    ///    (a phone that reports every 3 min indoors sees a 6-min stop with two fixes).
    /// 63 (a walk to the car): the walk at either end of a vehicle or bicycle trip that the motion states call walking
    ///    is a leg of its own from `trips.end_walk_s`, though shorter than `trips.min_leg_s`, and no sign of public
    ///    transport.
    /// 64 (a jam is no walk): a leg at walking pace beside a vehicle leg, most of whose fixes say `driving`, does not
    ///    make that vehicle public transport (`trips.jam_driven`).
    /// 65 (bike and ride): neighbouring vehicle runs whose fixes mostly say cycling and mostly driving are two legs,
    ///    not one leg of their joined speed profile (`trips.profile_states`).
    /// 66 (one mode, one leg): neighbouring runs whose modes come out the same are one leg unless a silence of
    ///    `trips.leg_gap_s` parts them (`trips.join_same_mode`).
    /// 67 (walks named late): a walk at a trip's end begins at the vehicle's stop, though its first seconds still say
    ///    driving, and one at its start counts its steps from the first fix that says walking (`trips.end_walk_lag_s`).
    /// 68 (named late, on foot): a run at a vehicle's speeds stays a vehicle though most of its fixes still say
    ///    walking (`trips.motion_walk_max_mps`); a foot run between two vehicle runs whose fixes mostly say walking is a
    ///    walk however little it moved or long it stood, and one that returns where it began no sign of public
    ///    transport (`trips.stop_on_foot`).
    /// 69 (a train between sparse fixes): a motorised run whose own fixes moved 300 m at a motor vehicle's pace is a
    ///    leg though shorter than `trips.min_leg_s` (`trips.vehicle_hold_m`), and a walk meets a vehicle inside the hop
    ///    between their fixes where the paces fit, the hop's way shared between them (`trips.hop_split_s`).
    /// 70 (a train that ran on unseen): a hop of `trips.hop_split_s` or more between fixes on foot of a phone that
    ///    records often, crossed faster than walking, parts their run while short runs join a neighbour
    ///    (`trips.fast_hop`): the fixes at a station before the train ran on under the ground are the train's.
    /// 71 (stops on the way): a silence between two automatic updates of one trip in OwnTracks' significant-changes
    ///    mode, longer than the time trigger lets a moving phone be quiet by `evidence.min_stay_s`, holds a stop
    ///    (`evidence.way_stops`); the stays pass merges its stays a second time whether or not one was short (an
    ///    incremental rebuild's span equals the rebuild over everything).
    /// 72 (short errands; no stale `history`): a region absence shorter than twice `evidence.lone_stay_s` whose only fix
    ///    is the region's own `leave` holds a stop at that fix when the ways out and back, each as long as the way to the
    ///    fix took, leave at least `evidence.min_stay_s` (`evidence.errand_stops`); a rebuild whose places pass moved
    ///    an earlier visit so that a trip measured before its span (or window) would now take another `history`
    ///    distance recomputes from before that trip (``staleHistoryRestart(deviceID:passes:)``).
    /// 73 (iOS names activities late): a stop of `stays.got_out_min_duration_s` with a foot or bicycle state on one
    ///    side and no moving state within `stays.got_out_reach_s` on the other is out of any vehicle
    ///    (`stays.got_out_late`); a walk goes on through fixes that say `stationary` beside a foot state, a wait at a
    ///    crossing (`stays.steps_wait`).
    /// 74 (a visit's departure ends a pause): an iOS visit's departure in the silence after its stay's last fix ends
    ///    the stay there, and a pause at its place that began while it was open claims nothing after the departure
    ///    (`evidence.visit_departs`).
    /// 75 (a visit keeps a walk): a presence never joins two stays across a walk out the fixes recorded between them
    ///    (`evidence.walk_apart`, the stays pass's `walk_out_s` and `walk_out_m`).
    /// 76 (short walks logged by hand): the silence between two tracks logged by hand is a stay when each track reaches
    ///    further than `stays.silence_leave_m` (120 m, the place's own reach) from its end, where it had to reach
    ///    `stays.silence_jump_m` (300 m).
    /// 77 (a drive logged to the door): the track before such a silence arrived when it ended no faster than walking
    ///    over its last two minutes or over its last `stays.silence_arrive_s` (30 s: the walk from the parked car).
    /// 78 (a short stop logged by hand): such a silence of 10–30 min (`stays.silence_short_s` up to
    ///    `stays.silence_min_s`) is a stay too when the next track's first fix lies within `stays.silence_jump_m` of the
    ///    place (no late start allowed: a ride through a short silence resumes far off). And the trips pass takes the
    ///    fix a stay without fixes points at as the trip's way there when it is the only fix between the two stays
    ///    (before, such a trip measured nothing and was none: a visit, then a visit 800 m away with no trip between).
    /// 79 (moves Google wrote no activity for): two visits, one of them Google's, at places `timeline.unseen_min_m`
    ///    apart, less than `timeline.link_s` apart with nothing between them, are joined by a trip of mode `unknown`
    ///    along the straight line, when no faster than `timeline.unseen_max_mps`.
    /// 80 (where Google's segments do not meet): inside a Google trip, the straight line from the visit it leaves to
    ///    its first activity, between consecutive activities, and from its last activity to the visit it reaches joins a
    ///    leg's line and distance when at least `timeline.connector_min_m` long; such a leg faster than 70 m/s over half
    ///    an hour is a flight, and a walk, run or ride made faster than the trips pass's bound of its class a vehicle.
    /// 81 (a visit where its own fixes were): a Semantic Location History visit whose centre (`centerLatE7`) lies
    ///    `timeline.centre_min_m` or more from its place's position is at its centre when most of its own fixes
    ///    (`simplifiedRawPath`) lie nearer the centre, and so are the ends of Google's activities at that place.
    /// 82 (a flight with the phone off): two stays with no fix between them, further apart than `trips.travel_min_mps`
    ///    over a silence longer than `trips.split_gap_s`, are a trip of their straight line (before, none); such a trip
    ///    at `paths.straight_mps` or faster measures no circuity.
    /// 83 (a cached fix re-sent): a run of fixes at exactly one position is one fix for the clean pass's out-and-back
    ///    rule, so a stale fix written again and again far from the track is flagged whole.
    /// 84 (a still phone's wifi fallbacks): a run of fixes without a speed between two that report standing still, each
    ///    `clean.still_jump_min_m` from both, is one excursion for the still-fix rule, flagged whole.
    /// 85 (the rest of a visit the fixes saw in part): a Google visit overlapping a visit of the fixes at the same place
    ///    is no longer dropped whole; like any segment, it gives its longest unclaimed part when that is most of it.
    /// 86 (excursions no traveller made): a fix, or a run of fixes within `clean.still_jump_s`, at least
    ///    `clean.jump_min_m` from the fixes before and after it, which are close together, is a jump when going there,
    ///    coming back or the round trip needs more than `clean.jump_accel_mps2` of acceleration from their speeds.
    /// 87 (no day moves longer than it lasts): the moving time between two fixes on either side of a local midnight
    ///    is spread over the two days by its time (before, all of it went to the later fix's day).
    /// 88 (histories and flights on their days): an earlier trip's way longer than `paths.history_max_pace` × the
    ///    trip's own highest speed × its duration is another route, not this trip's; a plane leg needs
    ///    `trips.flight_min_mps`; a reported speed counts for the maximum only where it is reachable from its
    ///    neighbours; a trip counts on its start's local day and a leg no fix saw goes over the days by the local clock
    ///    moving from its start's offset to its end's (``UTCOffset/dayShares(startMs:endMs:start:end:)``);
    ///    Google's `STILL` makes no trip; the night shift's home.
    /// 89 (a still phone's lone far fix): the still-fix rule reads a fix that reports no speed and only the motion state
    ///    `stationary` as still, and looks up to `clean.still_jump_s` = 900 s (was 300) either side: an iPhone at rest
    ///    samples every 1–15 min. A device's rebuild replaces the `days` rows of every date it rewrites, through the
    ///    end of time when its span reaches the end of the data: a date that holds nothing any more loses its row.
    /// 90 (a ride no fix saw is no walk, and counts): a silence inside a trip longer than `metrics.bridge_max_s` crossed
    ///    at `trips.walk_max_mps` or faster counts its straight line, in the vehicle leg that carried on or a leg of its
    ///    own (`unknown`), and a bridged hop of at least `trips.hop_split_s` between dense fixes of a walk, run or ride
    ///    crossed faster than its class goes is a leg of its own; before, the first counted 0 m below `split_gap_s` and
    ///    the second went to the walk ("walk 5.4 km" at 18.8 km/h).
    /// 91 (days hold what their trips crossed): a day's `line_distance_m` is its trips' straight lines (silences they
    ///    crossed included), and the way between fixes either side of a local midnight, and a crossed silence, go over
    ///    the days by time, as their moving time.
    /// 92 (a walk with the phone off counts): a silence inside a trip longer than `metrics.bridge_max_s` is crossed
    ///    under way at `metrics.moving_mps` (was `trips.walk_max_mps`): a 20-min walk of 1.5 km with no fix counted 0 m.
    /// 93 (a flight is no road): a connector between a place and the trip's first or last fix crossed at
    ///    `paths.straight_mps` or faster over a silence longer than `metrics.bridge_max_s` gets no circuity.
    /// 94 (what the phone says it measured): fixes reporting a walker's speed for a minute or more at a stay's ends are
    ///    travel, a cluster of such fixes for half its time is no stay (laps of a track), and a drift-or-walk candidate
    ///    whose fixes report such speeds for `trips.walk_guard_s` is a trip.
    /// 95 (an accurate fix is no wifi fallback): a lone fix without a speed between still fixes whose accuracy is within
    ///    a third of `clean.still_jump_min_m` has the window of `clean.still_run_s`, not `still_jump_s`.
    /// 96 (a parked vehicle stopped): `stays.aboard_mps` is off (7.5 before): a stand as long as a stay is a stop.
    /// 97 (a trip's mode is what moved it): when a trip's longest leg is a silence (`unknown`), its mode is the longest
    ///    known leg's where every silence was crossed no faster than that mode goes.
    public static let algorithmVersion = 99

    /// Every pass parameter with its default (`stays.radius_m` → `50`), in pass order: for help and docs.
    public static var parameterDefaults: [(String, String)] { passes.flatMap { $0.defaults } }

    public struct Options {
        /// One device, and local days (inclusive) that restrict the devices' spans.
        public var filter = RecordFilter()
        /// Run only this pass.
        public var pass: String?
        public var settings = PassSettings()
        /// The zone of every point without its own offset (`--timezone`); nil = the stored setting, else each
        /// point's zone by its position.
        public var timeZoneName: String?
        public var full = false
        /// Points per window when rebuilding a device in bounded memory (see ``run()``).
        public var windowPoints = 250_000
        /// Development: other coefficients for the trips pass's learned mode model (`evaluate --mode-model`).
        public var modeModel: ModeModel? = nil
        /// Development: collects the trips pass's per-leg features (`evaluate --dump-leg-features`).
        public var legFeatures: LegFeatureLog? = nil
        public init() {}
    }

    /// What one pass produced for one device.
    public struct Report {
        public var device: String
        /// The pass that ran; nil when the device's results were up to date and none ran.
        public var pass: String?
        public var stats: PassStats
        public var span: (Int64, Int64)
        /// Why everything was recomputed (stale parameters, zone or code version), when it was.
        public var reason: String? = nil
    }

    let store: Store
    let options: Options

    public init(store: Store, options: Options) {
        self.store = store
        self.options = options
    }

    func makePass(_ name: String) throws -> any Pass { try Self.makePass(name, settings: options.settings) }

    /// The pass called `name` with the parameter overrides in `settings` (unknown keys throw).
    public static func makePass(_ name: String, settings: PassSettings) throws -> any Pass {
        guard let type = passes.first(where: { $0.name == name }) else {
            throw PassSettingsError.unknownPass(name, key: nil)
        }
        return try type.init(settings: settings)
    }

    /// The `--timezone` value, and `rebuild_state.timezone`, of zones by each point's position (the default).
    public static let positionZones = "position"

    /// Where the zone of points without their own offset came from.
    public enum ZoneSource: String, Sendable {
        case option = "--timezone"
        case stored = "stored"
        /// Each point's zone by its position (the embedded boundary table).
        case position = "position"
    }

    /// The zones of points without an offset: the zone the user chose (`--timezone`, stored in `settings` as
    /// `timezone` for later runs and for exports), else each point's zone by its position (recorded as `position`).
    /// `--timezone position` takes back a zone chosen before: each point's zone by its position again, as if none had
    /// ever been given (the twelfth hostile round: nothing could undo `--timezone UTC`).
    func resolveZones() throws -> (name: String, zones: LocalZones, source: ZoneSource) {
        let chosen = options.timeZoneName
        if chosen == Self.positionZones {
            try store.removeSetting("timezone")
            return (Self.positionZones, LocalZones(), .position)
        }
        guard let zoneName = try chosen ?? store.setting("timezone") else { return (Self.positionZones, LocalZones(), .position) }
        guard let zones = LocalZones(overrideName: zoneName) else {
            throw RebuildError.unknownTimeZone(zoneName)
        }
        if chosen != nil {
            try store.setSetting("timezone", zoneName)
        }
        return (zoneName, zones, chosen != nil ? .option : .stored)
    }

    /// The offset at `ms` for a device: at the device's position then (its first point from `ms` on, else its last
    /// before), or in the zone the user chose.
    func offset(atMs ms: Int64, device: Int64, zones: LocalZones) throws -> Int32 {
        var lat = 0.0, lon = 0.0
        if zones.override == nil, let near = try store.position(device: device, nearMs: ms) { (lat, lon) = near }
        return zones.offset(atMs: ms, latitude: lat, longitude: lon)
    }

    /// The UTC instant of local midnight starting day-number `day` for a device (see ``offset(atMs:device:zones:)``).
    func localMidnight(day: Int, device: Int64, zones: LocalZones) throws -> Int64 {
        let ms = Int64(day) * 86_400_000
        return ms - Int64(try offset(atMs: ms, device: device, zones: zones)) * 1000
    }

    /// Every pass's parameters as one JSON object, `"pass.key": value` in pass order (`rebuild_state.parameters`).
    public func parameterSnapshot() throws -> [(String, String)] {
        try Self.passOrder.flatMap { name in try makePass(name).parameterList.map { (name + "." + $0.0, $0.1) } }
    }

    /// The stored parameters of a `rebuild_state` row, in their stored order.
    func storedParameters(_ json: String) throws -> [(String, String)] {
        try store.parameterMembers(json).map { key, value in
            switch value {
            case .integer(let v): (key, String(v))
            case .real(let v): (key, formatParameter(v))
            case .text(let v): (key, v)
            default: (key, "")
            }
        }
    }

    /// Why a device's stored results are stale for this run (nil: they were built with what this run uses).
    func staleness(_ state: RebuildStateRow?, parameters: [(String, String)], zone: String) throws -> String? {
        guard let state else { return nil }
        if state.parameters == "{}" || state.timezone.isEmpty {
            return "the stored results have no record of the parameters, time zone and code version they were built with"
        }
        var reasons: [String] = []
        if state.algorithmVersion != Self.algorithmVersion {
            reasons.append("code version changed (\(state.algorithmVersion) → \(Self.algorithmVersion))")
        }
        let stored = Dictionary(try storedParameters(state.parameters), uniquingKeysWith: { a, _ in a })
        var changed: [String] = []
        for (key, value) in parameters where stored[key] != value {
            changed.append("\(key) \(stored[key] ?? "unset") → \(value)")
        }
        if !changed.isEmpty {
            let shown = changed.prefix(4).joined(separator: ", ") + (changed.count > 4 ? ", and \(changed.count - 4) more" : "")
            reasons.append("parameters changed (\(shown))")
        }
        // The zone only matters to points without their own offset (OwnTracks, GPX; Overland carries its offsets).
        if state.timezone != zone, try store.hasPointWithoutOffset(device: state.deviceID) {
            reasons.append("time zone changed (\(state.timezone) → \(zone))")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// The stored `rebuild_state` row of a device.
    func state(of deviceID: Int64) throws -> RebuildStateRow? { try store.rebuildState(device: deviceID) }

    /// Reruns the places and metrics passes of one device with the parameters and zone its results were built with
    /// (after `tripline places rename|merge|forget`), so an edit shows at once, exactly as the next rebuild applies it.
    public static func reapplyPlaceEdits(store: Store, deviceID: Int64) throws {
        guard let name = try store.deviceName(id: deviceID) else { return }
        var options = Options()
        options.filter = RecordFilter(device: name)
        let probe = Rebuild(store: store, options: options)
        if let state = try probe.state(of: deviceID), state.parameters != "{}" {
            for (key, value) in try probe.storedParameters(state.parameters) where key.hasPrefix("places.") || key.hasPrefix("metrics.") {
                options.settings.values[key] = value
            }
        }
        for pass in [PlacesPass.name, TimelinePass.name, MetricsPass.name] {
            options.pass = pass
            _ = try Rebuild(store: store, options: options).run()
        }
    }

    /// What a run did: one report per device and pass, and warnings to show once.
    public struct Outcome {
        public var reports: [Report] = []
        public var warnings: [String] = []
        public var timeZone = "position"
        public var zoneSource = ZoneSource.position
    }

    /// Runs the rebuild and returns one report per device and pass.
    public func run() throws -> [Report] { try execute().reports }

    /// Runs the rebuild: per device, one write transaction (`BEGIN IMMEDIATE`) that decides what to recompute —
    /// stale settings, new points, `--from`/`--to` — and recomputes it, so nothing imported meanwhile is skipped.
    public func execute() throws -> Outcome {
        try options.settings.validate()
        if try store.holdsResultsOnly() { throw RebuildError.resultsOnly(store.path) }
        let passNames = options.pass.map { [$0] } ?? Self.passOrder
        var passes = try passNames.map { try makePass($0) }
        for k in passes.indices where options.modeModel != nil || options.legFeatures != nil {
            guard var trips = passes[k] as? TripsPass else { continue }
            if let model = options.modeModel { trips.parameters.learnedModes = model }
            trips.parameters.featureLog = options.legFeatures
            passes[k] = trips
        }
        // The evidence pass writes the stays it amends: the stays pass before it leaves them to it (`stays` written once).
        if passNames.contains(EvidencePass.name), let k = passes.firstIndex(where: { $0 is StaysPass }), var stays = passes[k] as? StaysPass {
            stays.writesStays = false
            passes[k] = stays
        }
        // The paths pass stores the trips the trips pass leaves it, once measured (`trips` and `legs` written once); the
        // timeline pass points the trips at their visits' places after the places pass (`trips` not written by that one).
        if passNames.contains(PathsPass.name), let k = passes.firstIndex(where: { $0 is TripsPass }), var trips = passes[k] as? TripsPass {
            trips.writesTrips = false
            passes[k] = trips
        }
        if let k = passes.firstIndex(where: { $0 is PlacesPass }), var places = passes[k] as? PlacesPass {
            if passNames.contains(TimelinePass.name) {
                places.refreshesTrips = false
            } else {
                places.namesPlaces = true  // the timeline pass, which names the places, does not follow
            }
            passes[k] = places
        }
        // Devices in name order, as exports list them: the order they were imported in (their ids) never shows.
        var devices = try store.devices().sorted {
            Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) || ($0.name == $1.name && $0.id < $1.id)
        }
        if let wanted = options.filter.device {
            devices = [(try store.deviceID(named: wanted), wanted)]
        }
        var outcome = Outcome()
        let (zoneName, zones, zoneSource) = try resolveZones()
        outcome.timeZone = zoneName
        outcome.zoneSource = zoneSource
        let parameters = try parameterSnapshot()
        let parameterJSON = Self.json(parameters)
        // Each pass's parameters as `pass_runs` records them: the same for every device (a pass's run never changes
        // them), so written once, not once a device (measured: 12 % of the CPU time of devices of one fix each).
        let passParameterJSON = passes.map { Self.json($0.parameterList) }
        for (deviceID, name) in devices {
            PausePoint.reach("rebuild.before-lock")
            let deviceReports: [Report] = try store.transaction {
                PausePoint.reach("rebuild.locked")
                return try rebuildDevice(
                    deviceID, name: name, passes: &passes, passNames: passNames, zones: zones, zoneName: zoneName,
                    parameters: parameters, parameterJSON: parameterJSON, passParameterJSON: passParameterJSON)
            }
            outcome.reports += deviceReports
            if deviceReports.contains(where: { $0.pass != nil }), let warning = try foreignOffsets(deviceID, name: name, zones: zones) {
                outcome.warnings.append(warning)
            }
        }
        return outcome
    }

    /// A warning when visits of the device carry their fixes' own UTC offset and it is not the offset of the zone
    /// where they were (a phone set to another zone): the rows are right to follow the fixes (what the person's clock
    /// said), but a local day may then not be the day where the person was (docs/EXPORTS.md, "Local time"). Read
    /// after the device's rebuild; one zone lookup a visit.
    func foreignOffsets(_ deviceID: Int64, name: String, zones: LocalZones) throws -> String? {
        var count = 0, total = 0
        var first: (row: VisitRow, own: UTCOffset, zone: UTCOffset)? = nil
        for visit in try store.visitsInOrder(device: deviceID) {
            total += 1
            // Its start's offset, else its end's (a start estimated across a silence takes the zone's).
            for (ms, offset) in [(visit.startMs, visit.startUTCOffset), (visit.endMs, visit.endUTCOffset)] {
                guard let own = offset else { continue }
                let zone = UTCOffset(seconds: zones.offset(atMs: ms, latitude: visit.lat, longitude: visit.lon))
                guard own != zone else { continue }
                count += 1
                if first == nil { first = (visit, own, zone) }
                break
            }
        }
        guard let first else { return nil }
        return "\(name): \(count) of \(total) visits carry their fixes' own UTC offset, not that of the zone where they were "
            + "(the first on \(first.own.localDate(ms: first.row.startMs)) at \(first.own.isoSuffix), where "
            + "\(zones.zoneName(latitude: first.row.lat, longitude: first.row.lon)) had \(first.zone.isoSuffix)); local days and times "
            + "follow the fixes' offsets, as the phone's clock said"
    }

    /// One device's rebuild, inside its write transaction.
    // Long by design: the span decision (stale, full, --to, incremental) and the windowed pass loop share one transaction's state, in order.
    func rebuildDevice(
        _ deviceID: Int64, name: String, passes: inout [any Pass], passNames: [String], zones: LocalZones, zoneName: String,
        parameters: [(String, String)], parameterJSON: String, passParameterJSON: [String]
    ) throws -> [Report] {
        var reports: [Report] = []
        // The stable ids of the device's records are mixed from its name, not its id (docs/PASSES.md "Stable ids").
        let deviceKey = StableID.deviceKey(name: name)
        let state = try state(of: deviceID)
        // Stale results (built with other parameters, another zone or older code) are recomputed whole; a single
        // `--pass` run is explicit and records its own parameters instead.
        let stale = options.pass == nil ? try staleness(state, parameters: parameters, zone: zoneName) : nil
        let full = options.full || stale != nil || state?.lastImportID == nil
        let filter = stale == nil ? options.filter : RecordFilter(device: options.filter.device)
        // The span: the whole device, or from where new points start to matter.
        var processFrom = Int64.min
        var previous: StayRecord? = nil
        let restricted = filter.fromDay != nil || filter.toDay != nil
        if let fromDay = filter.fromDay {
            processFrom = try localMidnight(day: fromDay, device: deviceID, zones: zones)
        } else if !full && options.pass == nil, let last = state?.lastImportID {
            // The new points start no earlier than the imports after the last one say (`imports.first_ms`), so only
            // the points from there on are read (a day's import after ten years reads a day, not ten years).
            let bound = try store.firstNewPointMs(after: last) ?? 0
            let firstPoint = try store.firstPointMs(device: deviceID, fromMs: bound, importedAfter: last)
            // An app's record that came without new points (an iOS visit posted after its fixes) matters too: the
            // evidence pass reads it, so the span it covers is recomputed (a record with no time at all is read by
            // none of the passes' time spans, and `info` does not count it as waiting either).
            let firstEvent = try store.firstAppEventMs(device: deviceID, importedAfter: last)
            guard let earliest = [firstPoint, firstEvent].compactMap({ $0 }).min() else {
                if var state, state.timezone != zoneName {
                    // Another zone that changes nothing here (every point has its own offset): recorded, so the
                    // record says what the results hold.
                    state.timezone = zoneName
                    try RebuildTables(store).insert(state)
                }
                return [Report(device: name, pass: nil, stats: ["up_to_date": .count(1)], span: (0, 0))]
            }
            // Only visits that ended a day before the new points are kept: the end of the earlier data cut the
            // last stays short, and what the evidence pass made of them (arrivals, stops, errands) reaches back hours.
            // Nor any visit since an app record that the old data left open (a region entered and not yet left, an
            // Overland pause not yet resumed): what closes it (or replaces it) may come with the new data, and the
            // evidence pass then makes the stays since it began otherwise (a night's pause resumed two days later
            // stretches the stay it began at; a second `enter` drops the first one's presence).
            var before = earliest - Self.restartMarginMs
            if let open = try openRecordMs(deviceID: deviceID, deviceKey: deviceKey, beforeMs: earliest, before: before, zones: zones) {
                before = min(before, open)
            }
            processFrom = try restartPoint(deviceID: deviceID, before: before, previous: &previous)
        }
        // `--to`: recompute up to the end of the stored stay that contains or follows the end of that day (the
        // trip leaving it, and later rows, stay as they are); without such a stay, up to the end of the data.
        var toMs = Int64.max
        var keepFrom = Int64.max
        var lastDate: String? = nil
        if let toDay = filter.toDay {
            let dayEnd = try localMidnight(day: toDay + 1, device: deviceID, zones: zones)
            if let end = try store.stays(device: deviceID, endingAtOrAfterMs: dayEnd, limit: 1).first?.endMs {
                // Load two hours past the stay as context (its cluster and trimming saw them in a full run).
                toMs = end + 2 * 3_600_000
                keepFrom = end
                let (y, m, d) = CivilTime.civilFromDays(toDay)
                lastDate = CivilTime.pad(y, 4) + "-" + CivilTime.pad(m, 2) + "-" + CivilTime.pad(d, 2)
            }
        }
        if restricted && filter.fromDay != nil {
            // Start right after the last visit that ended before the requested day, as an incremental run would.
            processFrom = try restartPoint(deviceID: deviceID, before: processFrom, previous: &previous, keep: 1)
        }
        // Trips are recomputed from the end of the visit kept before the span (the trip leaving it).
        var tripsFrom = previous?.endMs ?? processFrom
        // Bounded memory: a device is rebuilt in windows of about `windowPoints` points. Each window restarts
        // right after the third-to-last visit of the previous one: the window's end cut its last visit short, and
        // the visit before that ends where the trip to the cut visit says. The visit kept is followed by one the
        // cut never reached, as an incremental run's kept visit is (by its day's margin), so the result equals one
        // pass over everything (docs/PASSES.md); the overlap is recomputed and replaced.
        let windowed = options.pass == nil
        var windowSize = options.windowPoints
        var windowFrom = processFrom
        var windowPrevious = previous
        var totals: [String: PassStats] = [:]
        var windows = 0
        var maxImport = Int64.min
        // Where the last recomputation for stale `history` distances restarted (``staleHistoryRestart``).
        var redoneFrom = Int64.max
        rebuilding: while true {
            windows = 0
            // Whether some window pointed a stored trip at other places (only then can a `history` be stale).
            var repointed = false
            while true {
                let loadFrom = windowFrom == Int64.min ? Int64.min : windowFrom - 2 * 86_400_000
                let work = DeviceWork(deviceID: deviceID, deviceKey: deviceKey, fromMs: loadFrom, toMs: toMs, processFromMs: windowFrom, zones: zones)
                let loadStarted = Clock.monotonic()
                // One ordered statement per window; a window that hits its point limit ends after its last point.
                try work.loadPoints(store: store, limit: windowed ? windowSize : Int.max)
                if work.toMs < toMs, (work.time.last ?? Int64.min) < windowFrom {
                    // The two days of context alone filled the window (dense data: 1-Hz days hold 86,400 points each), so
                    // it has no point of its own and the kept visit lies past its end: take a bigger one.
                    windowSize *= 2
                    continue
                }
                let end = work.toMs
                if end == toMs {
                    work.keepFromMs = keepFrom
                    work.lastDate = lastDate
                }
                work.windowsFollow = end < toMs
                maxImport = max(maxImport, work.maxImportID)
                Self.add(&totals, "load", ["points": .count(work.count), "ms": .count(Int((Clock.monotonic() - loadStarted) * 1000))])
                if let p = windowPrevious {
                    // Index the kept visit in this work.
                    work.previousStay = p.indexed(in: work.time)
                }
                for k in passes.indices {
                    let started = Clock.nowMs()
                    let type = type(of: passes[k])
                    store.tableWrites?.writer = type.name
                    let stats = try passes[k].run(work, store: store)
                    store.tableWrites?.writer = TableWriteLog.runner
                    PausePoint.reach("rebuild.\(name).\(type.name)")
                    try RebuildTables(store).insert(
                        PassRunRow(pass: type.name, deviceID: deviceID, fromMs: windowFrom == Int64.min ? nil : windowFrom,
                                   toMs: end == Int64.max ? nil : end, parameters: passParameterJSON[k], stats: stats.json,
                                   startedMs: started, finishedMs: Clock.nowMs()))
                    Self.add(&totals, type.name, stats)
                    Self.add(&totals, type.name, ["ms": .count(Int(Clock.nowMs() - started))])
                }
                windows += 1
                repointed = repointed || work.tripsRepointed
                if end >= toMs { break }
                var next: StayRecord? = nil
                let restart = try restartPoint(deviceID: deviceID, before: end, previous: &next, keep: 3)
                if restart == Int64.min || restart <= windowFrom {
                    windowSize *= 2  // no three visits in this window: take a bigger one
                    continue
                }
                windowFrom = restart
                windowPrevious = next
                windowSize = options.windowPoints
            }
            if options.pass == nil && !restricted && repointed, let redo = try staleHistoryRestart(deviceID: deviceID, passes: passes),
               redo.from < redoneFrom,
               redo.from < processFrom || windows > 1 {
                // The places now stand otherwise for a trip measured before this run's span (or an earlier window): what
                // follows its restart is recomputed as one rebuild over everything would have it.
                (processFrom, previous, redoneFrom) = (redo.from, redo.previous, redo.from)
                tripsFrom = previous?.endMs ?? processFrom
                (windowFrom, windowPrevious, windowSize) = (processFrom, previous, options.windowPoints)
                continue rebuilding
            }
            break
        }
        let tables = RebuildTables(store)
        if options.pass == nil && !restricted {
            try tables.insert(RebuildStateRow(
                deviceID: deviceID, parameters: parameterJSON, timezone: zoneName, algorithmVersion: Self.algorithmVersion,
                lastImportID: try lastImportSeen(deviceID: deviceID, points: maxImport, before: state?.lastImportID), rebuiltMs: Clock.nowMs()))
        } else if let pass = options.pass, var state, state.parameters != "{}" {
            // One pass rerun with its own parameters: the record says so, and a later plain rebuild that uses other
            // parameters for this pass sees the difference.
            var stored = try storedParameters(state.parameters)
            for (key, value) in parameters where key.hasPrefix(pass + ".") {
                if let i = stored.firstIndex(where: { $0.0 == key }) { stored[i].1 = value } else { stored.append((key, value)) }
            }
            state.parameters = Self.json(stored)
            state.rebuiltMs = Clock.nowMs()
            try tables.insert(state)
        }
        // The counts printed are the stored rows of the span (summing windows would count each overlap twice).
        let stored = try storedStats(deviceID: deviceID, fromMs: processFrom, tripsFromMs: tripsFrom, toMs: min(toMs, keepFrom), zones: zones)
        for pass in ["load"] + passNames {
            var stats = PassStats((totals[pass]?.entries ?? []).map { entry in
                PassStats.Entry(name: entry.name, figure: stored[pass]?[entry.name] ?? entry.figure.toHundredths)
            })
            if windows > 1 && pass == "load" { stats.append("windows", .count(windows)) }
            reports.append(Report(device: name, pass: pass, stats: stats, span: (processFrom, toMs), reason: stale))
        }
        return reports
    }

    /// The stored results of a span, by pass and stat (the passes' own counts are per window).
    func storedStats(deviceID: Int64, fromMs: Int64, tripsFromMs: Int64, toMs: Int64, zones: LocalZones) throws -> [String: PassStats] {
        func real(_ v: Double, scale: Double) -> PassStats.Figure { .measure((v / scale * 100).rounded() / 100) }
        func flagged(_ flag: UInt8) throws -> PassStats.Figure {
            .count(try store.flaggedCount(device: deviceID, fromMs: fromMs, untilMs: toMs, mask: flag))
        }
        var out: [String: PassStats] = [:]
        out["clean"] = [
            "points": .count(try store.pointCount(device: deviceID, fromMs: fromMs, untilMs: toMs)),
            "low_accuracy": try flagged(CleanPass.Flag.lowAccuracy), "jumps": try flagged(CleanPass.Flag.jump),
            "duplicates": try flagged(CleanPass.Flag.duplicate),
        ]
        let stays = try store.stayTotals(device: deviceID, startingFromMs: fromMs, untilMs: toMs)
        out["stays"] = ["stays": .count(stays.count), "dwell_h": real(stays.durationMs / 1000, scale: 3600)]
        out["places"] = [
            "places": .count(try store.placeCount(device: deviceID)),
            "visits": .count(try store.visitCount(device: deviceID)),
            "named_by_wifi": .count(try store.placeCount(device: deviceID, namedByWifi: true)),
        ]
        let trips = try store.tripTotals(device: deviceID, startingFromMs: tripsFromMs, untilMs: toMs)
        out["trips"] = ["trips": .count(trips.trips), "legs": .count(trips.legs), "distance_km": real(trips.distanceM, scale: 1000)]
        let appTrips = try store.tripTotals(device: deviceID, startingFromMs: tripsFromMs, untilMs: toMs, source: "app")
        out["timeline"] = [
            "visits": .count(try store.visitCount(device: deviceID, source: "app")),
            "places": .count(try store.placeCount(device: deviceID, source: "app")),
            "trips": .count(appTrips.trips),
            "distance_km": real(appTrips.distanceM, scale: 1000),
        ]
        func date(_ ms: Int64) throws -> String {
            CivilTime.localDate(ms: ms, offset: UTCOffset(seconds: try offset(atMs: ms, device: deviceID, zones: zones)))
        }
        let days = try store.dayTotals(
            device: deviceID, fromDate: fromMs == Int64.min ? "" : try date(fromMs), toDate: toMs == Int64.max ? "~" : try date(toMs))
        out["metrics"] = ["days": .count(days.days), "distance_km": real(days.distanceM, scale: 1000)]
        let matches = try store.appTripMatchCounts(device: deviceID, fromMs: fromMs, untilMs: toMs)
        out["apptrips"] = ["app_trips": .count(matches.appTrips), "matched": .count(matches.matched)]
        return out
    }

    /// The earliest start of what the new data may change among the app records the old data left open
    /// (``Store/openPauseMs(device:beforeMs:)``, ``Store/openEnters(device:beforeMs:)``): a pause with no resume
    /// before `beforeMs`; a region entered and not left, from the last far fix after its `enter` before `before`
    /// (``EvidencePass/farFix(_:inRegion:region:_:_:reach:after:before:last:_:)``: a `leave` that comes later
    /// begins a presence after it, and the `enter`'s own ended before the first one), else from the `enter` itself.
    /// Nil when none is open.
    func openRecordMs(deviceID: Int64, deviceKey: UInt64, beforeMs: Int64, before: Int64, zones: LocalZones) throws -> Int64? {
        var open = try store.openPauseMs(device: deviceID, beforeMs: beforeMs)
        let enters = try store.openEnters(device: deviceID, beforeMs: beforeMs)
        guard !enters.isEmpty else { return open }
        let p = try EvidencePass(settings: options.settings).parameters
        // The regions' positions as the evidence pass reads them (every waypoint, the last one of a name winning).
        let regions = EvidencePass.regionPositions(try store.evidenceEvents(device: deviceID, fromMs: 0, toMs: 0))
        // Each scanned span is loaded with `margin` of fixes on both sides, so that a far fix's neighbours (which
        // may make it an outlier) are read as the evidence pass reads them (``EvidencePass/storedFixes``).
        let margin = Int64(p.outlierS * 1000) + 1
        for (name, enterMs, lat, lon) in enters {
            var from = enterMs
            // (A region with no waypoint: centred on its `enter`, 150 m, as the evidence pass takes it.)
            if let region = regions[name] ?? lat.flatMap({ lat in lon.map { (lat, $0, 150) } }) {
                var hi = before - margin
                scan: while hi > enterMs {
                    let lo = max(enterMs, hi - 86_400_000)
                    let (w, inRegion) = try EvidencePass.storedFixes(
                        store: store, deviceID: deviceID, deviceKey: deviceKey, fromMs: lo, toMs: hi, regions: regions, zones: zones, p)
                    if let far = EvidencePass.farFix(
                        w, inRegion: inRegion, region: name, region.lat, region.lon, reach: region.radius + p.matchM,
                        after: max(enterMs, lo - 1), before: hi, last: true, p
                    ) {
                        from = far
                        break scan
                    }
                    hi = lo
                }
            }
            open = min(open ?? from, from)
        }
        return open
    }

    /// Where to recompute from so that no stored `history` distance is stale (``PathsPass/firstStale(_:_:)``): the
    /// restart point before the earliest trip whose measure the places as they now stand make otherwise, with the
    /// visit kept there; nil when every stored measure stands or the paths pass does not run.
    func staleHistoryRestart(deviceID: Int64, passes: [any Pass]) throws -> (from: Int64, previous: StayRecord?)? {
        let tables = RebuildTables(store)
        guard let paths = passes.lazy.compactMap({ $0 as? PathsPass }).first, try tables.hasSparseTrips(device: deviceID),
              let stale = PathsPass.firstStale(try tables.measuredTrips(device: deviceID), paths.parameters) else { return nil }
        var previous: StayRecord? = nil
        let from = try restartPoint(deviceID: deviceID, before: stale, previous: &previous)
        return (from, previous)
    }

    /// The restart point for new points from `before` on: right after the `keep`-th last visit ending before it, or
    /// an earlier one where the visits after it could still become one stay with it.
    ///
    /// A visit is kept only where a full rebuild's stays pass passed through its end as the restart does, and where
    /// the evidence pass made nothing from it in the same run; otherwise the restart moves back past it, at most
    /// `restartReach` visits (docs/PASSES.md, "Incremental"):
    /// - a later visit within 2 × `stays.merge_m`, no more than `stays.max_gap_s` after it and with no visit further
    ///   than `stays.excursion_m` between, may still merge with it (a night at home that the end of the earlier data
    ///   cut into three stays is one stay in a full rebuild; a work stay the evidence pass split at a region's
    ///   absence was one stay of the stays pass, whose second piece a restart between them gave a centre of its own);
    /// - a visit of one fix, or whose fixes span less than `stays.min_duration_s`, is none the stays pass kept on its
    ///   own (a lone-fix stay, a presence, an errand kept for the stays around it), and neither is one followed by
    ///   such a visit: the full rebuild's evidence rules made those from the stay before them as amended so far,
    ///   which a restart reads as finally stored.
    func restartPoint(deviceID: Int64, before: Int64, previous: inout StayRecord?, keep: Int = 2) throws -> Int64 {
        // Latest first.
        let rows = try store.stays(device: deviceID, endingBeforeMs: before, latestFirst: keep + Self.restartReach).map(StayRecord.init(restartRow:))
        let merging = try StaysPass(settings: options.settings).parameters
        // The visits after the candidates, earliest first: the first `keep - 1` rows reversed, then those ending from
        // `before` on (as many as the scan below may read).
        var later: [StayRecord]? = nil
        func visit(after k: Int, _ n: Int) throws -> StayRecord? {
            if k - n >= 0 { return rows[k - n] }
            if later == nil {
                later = try store.stays(device: deviceID, endingAtOrAfterMs: before, limit: Self.restartLookahead).map(StayRecord.init(restartRow:))
            }
            let j = n - k - 1
            return j < later!.count ? later![j] : nil
        }
        /// Whether the full rebuild could have made candidate `k` otherwise than a restart right after it would keep it.
        func unsafe(_ k: Int) throws -> Bool {
            let stay = rows[k]
            // A stay of one fix, or whose fixes span less than `min_duration_s`, is none the stays pass kept on its own:
            // the evidence pass made it (a lone fix, a region's split, a presence), or the errand rule kept it for the
            // stays around it. The full rebuild's rules read it with the stays next to it (which came in the same run),
            // while a restart right after it keeps it as it is (an errand measured from it, a lone fix beside it, …).
            func weak(_ s: StayRecord) throws -> Bool {
                guard s.points >= 2, let span = try store.pointSpan(device: deviceID, fromMs: s.startMs, throughMs: s.endMs) else { return true }
                return Double(span.last - span.first) < merging.minDurationS * 1000
            }
            if try weak(stay) { return true }
            // Likewise the visit right after it: the evidence pass made it (or its edges) from the stay before it as
            // amended so far, which a restart reads as finally stored.
            if let next = try visit(after: k, 1), try weak(next) { return true }
            // A later visit that the stays pass could merge with it: within 2 × `merge_m`, no more than `max_gap_s`
            // after it, with every visit in between within `excursion_m` of it (the evidence pass may have split one
            // stay of the stays pass around a region's absence or a lone fix: the pieces after the kept one were one
            // stay with it, and restarting between them gives the second piece a centre of its own).
            var n = 1
            while n <= Self.restartLookahead, let next = try visit(after: k, n) {
                if Double(next.startMs - stay.endMs) > merging.maxGapS * 1000 { return false }
                let d = Geo.distance(stay.lat, stay.lon, next.lat, next.lon)
                if d <= 2 * merging.mergeM { return true }
                if d > merging.excursionM { return false }
                n += 1
            }
            return false
        }
        var k = keep - 1
        while k < rows.count, k - (keep - 1) < Self.restartReach, try unsafe(k) { k += 1 }
        guard k < rows.count else {
            previous = nil
            return Int64.min
        }
        let stay = rows[k]
        previous = stay
        if let place = try store.placeID(ofVisit: stay.id) { previous!.placeID = place }
        return stay.endMs + 1
    }

    /// The highest import the device's results have seen: that of the points loaded (`points`, `Int64.min` for none),
    /// or of the device's app events, whichever is higher; `before` when neither says.
    func lastImportSeen(deviceID: Int64, points: Int64, before: Int64?) throws -> Int64? {
        let events = try store.lastAppEventImport(device: deviceID)
        let seen = max(points, events ?? Int64.min)
        return seen != Int64.min ? seen : before
    }

    /// How long before the earliest new point an incremental rebuild's kept visits must have ended (a day, the
    /// longest silence a stay bridges: `stays.max_gap_s`, `evidence.lone_max_s`).
    static let restartMarginMs: Int64 = 86_400_000

    /// How many visits ``restartPoint(deviceID:before:previous:keep:)`` moves back at most (weeks at one place with no
    /// other stay between them are recomputed from the last one it reached).
    static let restartReach = 64

    /// How many visits after a candidate ``restartPoint(deviceID:before:previous:keep:)`` reads at most to find one
    /// the stays pass could merge with it (a scan that a visit further than `stays.excursion_m` ends first).
    static let restartLookahead = 16

    /// Adds a window's stats to the running totals (numbers summed; with several windows the overlap of each
    /// restart is counted in both windows).
    static func add(_ totals: inout [String: PassStats], _ pass: String, _ stats: PassStats) {
        totals[pass, default: PassStats()].add(stats)
    }

    /// A JSON object of `key: value` pairs: a value that is a finite JSON number stays a number, anything else is a
    /// string; keys and strings go through the one escaper (``JSONText/quoted(_:)``).
    package static func json(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { key, value in
            JSONText.quoted(key) + ":" + (isJSONNumber(value) ? value : JSONText.quoted(value))
        }.joined(separator: ",") + "}"
    }

    /// Whether `text` is a JSON number as written (`-12`, `0.5`, `1e3`; not `nan`, `inf`, `+1`, `.5` or `01`).
    static func isJSONNumber(_ text: String) -> Bool {
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int { let s = i; while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }; return i - s }
        if i < b.count && b[i] == UInt8(ascii: "-") { i += 1 }
        let start = i
        let n = digits()
        if n == 0 || (n > 1 && b[start] == UInt8(ascii: "0")) { return false }
        if i < b.count && b[i] == UInt8(ascii: ".") { i += 1; if digits() == 0 { return false } }
        if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            i += 1
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
            if digits() == 0 { return false }
        }
        return i == b.count
    }
}

extension StayRecord {
    /// A stored stay as the restart point reads it: its times, place and id; its point range is set later
    /// (``indexed(in:)``) in the window that loads its points.
    fileprivate init(restartRow r: StayRow) {
        self.init(first: 0, last: 0, startMs: r.startMs, endMs: r.endMs, lat: r.lat, lon: r.lon, radiusM: r.radiusM, points: r.points, gapS: r.gapS,
                  id: r.id ?? 0)
    }
}
