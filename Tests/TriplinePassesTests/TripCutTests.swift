#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TriplineCore
@testable import TriplinePasses
@testable import TriplineStore
import TriplineTestSupport

/// The learned drift-or-walk decision of the trips pass (``TripCutModel``, docs/PASSES.md "Learned: drift or walk").
@Suite struct TripCutTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    /// Home; a 10-min zigzag 280 m out and back (a phone carried round the block; less than the stays pass's
    /// `excursion_m`, 250 m, would stay inside the stay; slower, it would be a stay of its own); home; a walk round the park,
    /// 700 m out and back; home; a walk to a shop 900 m away, a 20-min visit, and back; home.
    func day() -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 60, drift: 5...15)
        for bearing in [80.0, 100, 90, 260, 280, 270] { b.move(95, bearing: bearing, speed: 1.0, every: 5) }
        b.still(3600, every: 60, drift: 5...15)
        b.move(700, bearing: 0, speed: 1.4, every: 5)
        b.move(700, bearing: 180, speed: 1.4, every: 5)
        b.still(3600, every: 60, drift: 5...15)
        b.move(900, bearing: 90, speed: 1.4, every: 5)
        b.still(1200, every: 60, drift: 5...15)
        b.move(900, bearing: 270, speed: 1.4, every: 5)
        b.still(3600, every: 60, drift: 5...15)
        // No reported speed or accuracy, as GeoLife's PLT files: the speeds come from displacement.
        return b.points.map { var p = $0; p.speedMps = nil; p.accuracyM = nil; return p }
    }

    func rebuilt(_ model: TripCutModel?, sets: [String]) throws -> Store {
        let store = try storeWith([("phone", day())])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        for s in sets { try options.settings.set(s, origin: "test") }
        options.settings.tripCutModel = model
        _ = try Rebuild(store: store, options: options).run()
        return store
    }

    /// A model that calls drift whatever never left 300 m of its first fix.
    let nearIsDrift = TripCutModel(base: 0, stumps: [.init(TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!, 5.707, 20, -20)], threshold: 0.5)

    @Test func theModelDropsTheCandidatesItCallsDrift() throws {
        // Off: the wander is a trip (560 m of path), as before the model.
        #expect(try count(try rebuilt(nearIsDrift, sets: ["trips.cut_model=0"]), "SELECT count(*) FROM trips") == 4)
        // On: the wander goes; the walk round the park and the walks to the shop and back stay.
        let store = try rebuilt(nearIsDrift, sets: [])
        #expect(try count(store, "SELECT count(*) FROM trips") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE distance_m > 700") == 3)
        // A model that calls nothing drift changes nothing.
        let never = TripCutModel(base: -20, stumps: [], threshold: 0.5)
        #expect(try count(try rebuilt(never, sets: []), "SELECT count(*) FROM trips") == 4)
    }

    /// The shipped coefficients (trained on GeoLife) call the wander drift and keep the walks.
    @Test func theShippedModelDropsTheWander() throws {
        let store = try rebuilt(nil, sets: [])
        #expect(try count(store, "SELECT count(*) FROM trips") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE distance_m > 700") == 3)
    }

    /// The features the pass logs: only candidates, trips back to the place they left (the walks to the shop and back
    /// go from one place to another); the wander's farthest fix is about 280 m from its first, the park walk's 650–700 m.
    @Test func featuresOfTheCandidates() throws {
        let log = TripCutLog()
        let store = try storeWith([("phone", day())])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        try options.settings.set("trips.cut_model=0", origin: "test")
        options.settings.tripCutLog = log
        _ = try Rebuild(store: store, options: options).run()
        let entries = log.take()
        #expect(entries.count == 2)
        let far = TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!
        let metres = entries.map { exp($0.features[far]) - 1 }
        #expect(metres.count == 2 && metres[0] > 230 && metres[0] < 300 && metres[1] > 600 && metres[1] < 800, "\(metres)")
        #expect(entries.allSatisfy { $0.features.count == TripCutFeatures.names.count && !$0.dropped })
    }

    /// A model that calls drift every candidate (all of whose fixes stay within 1 km of the first), as the shipped
    /// model, fitted on GeoLife 097's day-long labels, calls that user's loop rides.
    let everyCandidateIsDrift = TripCutModel(
        base: 0, stumps: [.init(TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!, 6.909, 20, -20)], threshold: 0.5)

    /// Home for an hour (a fix a minute), `away`, home again; GeoLife-like fixes (no reported speed or accuracy).
    func homeAnd(_ away: (inout TrackBuilder) -> Void) -> (all: [Point], away: [Point]) {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 60, drift: 5...15)
        let first = b.points.count
        away(&b)
        let last = b.points.count
        b.still(3600, every: 60, drift: 5...15)
        let all = b.points.map { var p = $0; p.speedMps = nil; p.accuracyM = nil; return p }
        return (all, Array(all[first..<last]))
    }

    func trips(_ points: [Point], _ model: TripCutModel, sets: [String]) throws -> Int {
        let store = try storeWith([("phone", points)])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        for s in sets { try options.settings.set(s, origin: "test") }
        options.settings.tripCutModel = model
        _ = try Rebuild(store: store, options: options).run()
        return try count(store, "SELECT count(*) FROM trips")
    }

    /// The longest stretch of 60-s windows at `walk_max_mps` (2.4 m/s) or more over `points` (``RideGuard``).
    func sustained(_ points: [Point]) -> Double {
        var track = FixTrack()
        for p in points { track.add(p.timeMs, p.lat, p.lon) }
        return RideGuard.sustainedS(track.work, Array(points.indices), paceMps: 2.4)
    }

    /// Algorithm version 40 (`trips.ride_guard_s`, docs/PASSES.md "Rides the drift model dropped"): a bicycle ride
    /// round a 300-m block at 4 m/s (5 min, a fix a second, never 430 m from home) is a candidate the model calls
    /// drift; it holds a vehicle's pace over every minute, so it is kept as a trip whatever the model says.
    @Test func aRideRoundTheBlockIsNoDrift() throws {
        let ride = homeAnd { b in for bearing in [0.0, 90, 180, 270] { b.move(300, bearing: bearing, speed: 4, every: 1) } }
        #expect(sustained(ride.away) >= 280, "\(sustained(ride.away))")
        #expect(try trips(ride.all, everyCandidateIsDrift, sets: ["trips.cut_model=0"]) == 1)
        #expect(try trips(ride.all, everyCandidateIsDrift, sets: ["trips.ride_guard_s=0"]) == 0)
        #expect(try trips(ride.all, everyCandidateIsDrift, sets: []) == 1)
    }

    /// GPS drift at home logged every second (a 10-min wander round the block at 1 m/s, as in ``day()``) with one
    /// jump out and back in the middle (200 m out in 25 s, back in 25 s): the jump makes the windows that straddle it
    /// fast, but one jump of D < 60 s draws at most D + 120 < 180 s of them, so the model still drops the drift.
    @Test func oneJumpOutAndBackIsStillDrift() throws {
        let drift = homeAnd { b in
            for bearing in [80.0, 100, 90] { b.move(95, bearing: bearing, speed: 1.0, every: 1) }
            b.move(200, bearing: 0, speed: 8, every: 1)
            b.move(200, bearing: 180, speed: 8, every: 1)
            for bearing in [260.0, 280, 270] { b.move(95, bearing: bearing, speed: 1.0, every: 1) }
        }
        let s = sustained(drift.away)
        #expect(s > 60 && s < 180, "\(s)")
        #expect(try trips(drift.all, everyCandidateIsDrift, sets: ["trips.cut_model=0"]) == 1)
        #expect(try trips(drift.all, everyCandidateIsDrift, sets: []) == 0)
        // A guard short enough to count the jump's windows would keep it: the bound is what the 180 s is for.
        #expect(try trips(drift.all, everyCandidateIsDrift, sets: ["trips.ride_guard_s=60"]) == 1)
    }

    /// The text form `evaluate --trip-cut-model` reads: errors name the file and line.
    @Test func modelText() throws {
        let m = try TripCutModel(text: "# a comment\nbase -1.5\nthreshold 0.6\nstump log_fixes 2.5 0.25 -0.5\nend 3\n", origin: "m.txt")
        #expect(m == TripCutModel(base: -1.5, stumps: [.init(1, 2.5, 0.25, -0.5)], threshold: 0.6))
        #expect(throws: ModelFileError.self) { try TripCutModel(text: "base 1\nthreshold x\nend 2\n", origin: "m.txt") }
        do {
            _ = try TripCutModel(text: "base 0\nthreshold 0.5\nstump no_such 1 2 3\nend 3\n", origin: "m.txt")
            Issue.record("an unknown feature was accepted")
        } catch let e as ModelFileError {
            #expect(e.path == "m.txt" && e.line == 3, "\(e)")
            #expect(e.description.hasPrefix("m.txt:3: "), "\(e)")
        }
        #expect(throws: ModelFileError.self) { try TripCutModel(text: "stump log_fixes 1 2 3\nend 1\n", origin: "m.txt") }
    }
}

/// Algorithm version 57 (`stays.walk_out_s`, `trips.walk_guard_s`; docs/PASSES.md "A walk out and back"): an hour at
/// home, a walk 200 m out and back (a fix a second, 5 min), an hour at home. Without motion states the fixes cannot
/// tell the walk from drift round the house: the two hours are one stay (the walk never went `excursion_m` away), and
/// even apart the drift-or-walk model may drop it. With the app's `walking` states it is a trip between two stays.
@Suite struct WalkOutAndBackTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z

    /// A model that calls every candidate drift (the shipped one called the simulator's walks from home drift).
    let everyCandidateIsDrift = TripCutModel(
        base: 0, stumps: [.init(TripCutFeatures.names.firstIndex(of: "log_max_from_first_m")!, 6.909, 20, -20)], threshold: 0.5)

    func walk(_ motion: String?) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 5...15, motion: motion == nil ? nil : "stationary")
        b.move(200, bearing: 0, speed: 1.3, every: 1, motion: motion)
        b.move(200, bearing: 180, speed: 1.3, every: 1, motion: motion)
        b.still(3600, every: 60, drift: 5...15, motion: motion == nil ? nil : "stationary")
        return b.points
    }

    func rebuilt(_ points: [Point], _ model: TripCutModel? = nil, sets: [String] = []) throws -> (trips: Int, visits: Int) {
        let store = try storeWith([("phone", points)])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        for s in sets { try options.settings.set(s, origin: "test") }
        if let model { options.settings.tripCutModel = model }
        _ = try Rebuild(store: store, options: options).run()
        return (try count(store, "SELECT count(*) FROM trips"), try count(store, "SELECT count(*) FROM visits"))
    }

    @Test func aWalkTheAppHeardIsATripBetweenTwoStays() throws {
        let walked = walk("walking")
        let shipped = try rebuilt(walked)
        #expect(shipped.trips == 1 && shipped.visits == 2, "\(shipped)")
        // Whatever the drift-or-walk model says.
        #expect(try rebuilt(walked, everyCandidateIsDrift).trips == 1)
        #expect(try rebuilt(walked, everyCandidateIsDrift, sets: ["trips.walk_guard_s=0"]).trips == 0)
        // Without the stays rule the hours are one stay, and nothing is between.
        let merged = try rebuilt(walked, sets: ["stays.walk_out_s=0"])
        #expect(merged.trips == 0 && merged.visits == 1, "\(merged)")
    }

    @Test func withoutStepsTheFixesDecideAsBefore() throws {
        // No motion states (GPX, GeoLife): one stay, no trip.
        let silent = try rebuilt(walk(nil))
        #expect(silent.trips == 0 && silent.visits == 1, "\(silent)")
        // The phone says it lay still while its fixes wandered 200 m: drift.
        let still = try rebuilt(walk("stationary"))
        #expect(still.trips == 0 && still.visits == 1, "\(still)")
    }
}

/// Algorithm version 58 (`stays.steps_leave_*`, `trips.steps_min_*`; docs/PASSES.md "A walk to the next door"): an hour
/// at home, a walk of 100 m (77 s, a fix every 2 s), ten minutes at the kiosk, the walk back, an hour at home. The
/// kiosk lies inside the home stay's radius (120 m) and the walks are shorter than `trips.min_distance_m` (150 m):
/// from the fixes alone it is one stay. The app's `walking` states say the person went.
@Suite struct WalkToTheNextDoorTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z

    func kiosk(_ walking: String?, still: String?, metres: Double = 100, speed: Double = 1.3) -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 3...8, motion: still)
        b.move(metres, bearing: 90, speed: speed, every: 2, motion: walking)
        b.still(600, every: 30, drift: 3...8, motion: still)
        b.move(metres, bearing: 270, speed: speed, every: 2, motion: walking)
        b.still(3600, every: 60, drift: 3...8, motion: still)
        return b.points
    }

    /// A store holding `points` as one phone, rebuilt in full with `sets`.
    func rebuiltStore(_ points: [Point], sets: [String]) throws -> Store {
        let store = try storeWith([("phone", points)])
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        options.full = true
        for s in sets { try options.settings.set(s, origin: "test") }
        _ = try Rebuild(store: store, options: options).run()
        return store
    }

    /// The trips' start and end (ms) a full rebuild of `points` makes with `sets`.
    func tripSpans(_ points: [Point], sets: [String]) throws -> [(Int64, Int64)] {
        let store = try rebuiltStore(points, sets: sets)
        let q = try store.db.prepare("SELECT start_ms, end_ms FROM trips ORDER BY start_ms")
        var rows: [(Int64, Int64)] = []
        while try q.step() { rows.append((q.int64(0), q.int64(1))) }
        return rows
    }

    func rebuilt(_ points: [Point], sets: [String] = []) throws -> (trips: Int, visits: Int) {
        let store = try rebuiltStore(points, sets: sets)
        return (try count(store, "SELECT count(*) FROM trips"), try count(store, "SELECT count(*) FROM visits"))
    }

    @Test func aWalkToTheKioskIsTwoTripsAndThreeVisits() throws {
        let went = kiosk("walking", still: "stationary")
        let found = try rebuilt(went)
        #expect(found.trips == 2 && found.visits == 3, "\(found)")
        // Each rule off: the stay is never cut (one visit), or the walks are too short to be trips.
        let uncut = try rebuilt(went, sets: ["stays.steps_leave_s=0"])
        #expect(uncut.trips == 0 && uncut.visits == 1, "\(uncut)")
        let short = try rebuilt(went, sets: ["trips.steps_min_s=0"])
        #expect(short.trips == 0, "\(short)")
        // The drift-or-walk model (learned on GeoLife, no motion states) drops a 77-s walk between stays 100 m apart
        // unless its steps count (`walk_guard_s`, 120 s in version 57).
        let guarded = try rebuilt(went, sets: ["trips.walk_guard_s=120"])
        #expect(guarded.trips == 0 && guarded.visits == 3, "\(guarded)")
    }

    @Test func withoutStepsOrWithoutDistanceItIsOneStay() throws {
        // No motion states (GPX, GeoLife): the fixes alone decide, one stay.
        let silent = try rebuilt(kiosk(nil, still: nil))
        #expect(silent.trips == 0 && silent.visits == 1, "\(silent)")
        // Pacing round a room: walking for 100 s each way, never 50 m from where it began (`steps_leave_m`).
        let pacing = kiosk("walking", still: "stationary", metres: 30, speed: 0.3)
        let paced = try rebuilt(pacing)
        #expect(paced.trips == 0 && paced.visits == 1, "\(paced)")
        // The reach is what holds: with no `steps_leave_m` both paces are walks.
        let work = EarlyPassesWork.of(pacing), kept = Array(0..<pacing.count)
        var anyReach = StaysPass.Parameters()
        anyReach.stepsLeaveM = 0
        #expect(StaysPass.walks(work, kept, StaysPass.Parameters()).isEmpty)
        #expect(StaysPass.walks(work, kept, anyReach).count == 2)
    }

    /// Algorithm version 59 (`stays.steps_trim`): round the block, 90 m out to a 2-min stop and back, between two hours
    /// at home. The stop is too short to be a stay, so the walk and the stop are one trip home → home; before, the stay
    /// began at the stop, took in the way back, and the trip was the way out alone.
    @Test func aStopAtTheFarEndOfAWalkIsTheTrips() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        let leave = b.t
        b.move(90, bearing: 0, speed: 1.3, every: 2, motion: "walking")
        b.still(120, every: 20, drift: 2...5, motion: "stationary")
        b.move(90, bearing: 180, speed: 1.3, every: 2, motion: "walking")
        let back = b.t
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        func trips(_ sets: [String]) throws -> [(Int64, Int64)] { try tripSpans(b.points, sets: sets) }
        let round = try trips([])
        #expect(round.count == 1, "\(round)")
        // Within the still fixes' minute: the stays end and begin at their last and first fix.
        if let t = round.first { #expect(abs(t.0 - leave) <= 61_000 && abs(t.1 - back) <= 61_000, "\(t) \(leave) \(back)") }
        let before = try trips(["stays.steps_trim=0"])
        // Before: the way out alone, ending at the stop.
        #expect(before.count == 1 && before.allSatisfy { back - $0.1 >= 120_000 }, "\(before)")
    }

    /// Algorithm version 61 (`stays.steps_lead`): iOS names a walk late. The same round of the block, each way 100 m
    /// at 1.3 m/s with a fix every 5 s, its first 30 s still called `stationary` (at walking speeds) and the rest,
    /// 47 s, `walking`: shorter than `steps_leave_s` alone. The walk begins at its first moving fix, so the trip leaves
    /// home at the last still fix before it (a minute apart); with the rule off neither walk is one and the round is lost
    /// inside the stay at home.
    @Test func aWalkBeginsBeforeThePhoneSaysWalking() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        let leave = b.t
        b.move(39, bearing: 0, speed: 1.3, every: 5, motion: "stationary")
        b.move(61, bearing: 0, speed: 1.3, every: 5, motion: "walking")
        b.still(120, every: 20, drift: 2...5, motion: "stationary")
        b.move(39, bearing: 180, speed: 1.3, every: 5, motion: "stationary")
        b.move(61, bearing: 180, speed: 1.3, every: 5, motion: "walking")
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        func trips(_ sets: [String]) throws -> [(Int64, Int64)] { try tripSpans(b.points, sets: sets) }
        let round = try trips([])
        #expect(round.count == 1 && round.allSatisfy { (-61_000...10_000).contains($0.0 - leave) }, "\(round.map { ($0.0 - leave, $0.1 - leave) })")
        let late = try trips(["stays.steps_lead=0"])
        #expect(late.isEmpty, "\(late.map { ($0.0 - leave, $0.1 - leave) })")
    }

    /// Algorithm version 73 (`stays.steps_wait`): a walk to the kiosk 100 m away with a 20-s wait at a crossing half way,
    /// where iOS says `walking,stationary`. Each half walks for 35–42 s, shorter than `steps_leave_s`; the walk goes on
    /// through the wait, so it is one walk of about 100 s, and the kiosk is a visit with a trip there and back. With the
    /// rule off the wait ends each walk and the stay at home takes in the kiosk.
    @Test func aWaitAtACrossingIsPartOfTheWalk() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        for bearing in [90.0, 270.0] {
            b.move(45, bearing: bearing, speed: 1.3, every: 2, motion: "walking")
            b.still(20, every: 2, drift: 0...2, motion: "walking,stationary")
            b.move(55, bearing: bearing, speed: 1.3, every: 2, motion: "walking")
            if bearing == 90 { b.still(600, every: 30, drift: 3...8, motion: "stationary") }
        }
        b.still(3600, every: 60, drift: 3...8, motion: "stationary")
        let found = try rebuilt(b.points)
        #expect(found.trips == 2 && found.visits == 3, "\(found)")
        let cut = try rebuilt(b.points, sets: ["stays.steps_wait=0"])
        #expect(cut.trips == 0 && cut.visits == 1, "\(cut)")
    }
}
