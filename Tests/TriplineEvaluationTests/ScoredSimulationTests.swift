import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineSimulator
@testable import TriplineEvaluation
import TriplineTestSupport

/// The rebuild scored against the simulator's exact truth, on seeds the tuning never used (tuning used seeds 1–4).
@Suite struct ScoredSimulationTests {
    @Test(arguments: [20_261_129 as UInt64, 777])
    func scoresMeetTargets(seed: UInt64) throws {
        let result = Simulator(config: SimulatorConfig(seed: seed, days: 4, people: 2)).run()
        let store = try Store(path: try temporaryDirectory() + "/sim.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try rebuild(store, timezone: "Europe/Berlin")
        let s = try SimulationEvaluation.score(result.truth, store: store)
        print("simulated seed \(seed), 4 days, 2 people:\n" + s.report)
        #expect(s.tripF1 >= 0.95)
        #expect(s.visitF1 >= 0.95)
        #expect(s.medianTripDistanceError <= 0.02)
        #expect(s.p90TripDistanceError <= 0.05)
        #expect(s.medianDailyDistanceError <= 0.02)
        #expect(s.totalDistanceError <= 0.02)
        // Exact modes (walk/run/cycle/car/bus/train/plane) over true leg time: 99.3 % and 99.6 % with the defaults.
        #expect(s.modeAccuracy >= 0.97)
        // Every visit matched by time is at its true place (within 150 m of it), and the count is the pairs' own.
        #expect(s.offPlaceVisits == 0)
        #expect(s.matchedVisits > 0 && !s.medianVisitCentreM.isNaN && s.medianVisitCentreM < SimulationScores.offPlaceM)
    }

    /// Points arriving in two imports: the incremental rebuild equals a full rebuild of all points. Classic: cut at the
    /// middle point. Sparse OwnTracks over 8 days: cut where the monthly `.rec` files change (2024-04-01T00:00Z), inside
    /// a night at home whose fixes drift; the first rebuild cut that night into three stays, which the restart kept
    /// until it learnt to move back past visits the next one could still merge with.
    @Test(arguments: [(SimulationProfile.classic, UInt64(99), 4, Int64?.none), (.sparseOwnTracks, 11, 8, 1_711_929_600_000)])
    func incrementalEqualsFull(profile: SimulationProfile, seed: UInt64, days: Int, cutMs: Int64?) throws {
        var config = SimulatorConfig(seed: seed, days: days, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        let all = result.devices.flatMap(\.points).map(\.timeMs).sorted()
        let cut = cutMs ?? all[all.count / 2]
        let inc = try Store(path: try temporaryDirectory() + "/inc.sqlite")
        try SimulationEvaluation.load(result, into: inc, importID: 1) { $0.timeMs < cut }
        var options = Rebuild.Options()
        options.timeZoneName = "Europe/Berlin"
        _ = try Rebuild(store: inc, options: options).run()
        try SimulationEvaluation.load(result, into: inc, importID: 2) { $0.timeMs >= cut }
        let reports = try Rebuild(store: inc, options: options).run()
        #expect(reports.contains { $0.span.0 != Int64.min && $0.pass == "stays" }, "the second run was incremental")
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try SimulationEvaluation.load(result, into: full)
        try rebuild(full, timezone: "Europe/Berlin")
        for (sql, what) in Self.comparisons {
            let a = try rows(inc, sql), b = try rows(full, sql)
            #expect(a == b, "\(what) differ")
            // OwnTracks records no trips of its own: only the classic archive (Overland) has app trips to match.
            #expect(!a.isEmpty || (what == "app trip matches" && profile != .classic), "\(what) empty")
        }
    }

    /// A day's points at a time, with a rebuild after each (as a server that receives Overland's batches is used):
    /// the result equals one full rebuild. Each case failed before (docs/PASSES.md, "Incremental"): dense seed 3
    /// dropped an iOS visit that no fix saw when the rebuild restarted right after the visit before it, and mixed
    /// seed 6 and sparse seed 7 kept stays that the end of the earlier data had cut short (the restart now keeps
    /// only visits that ended a day before the new points). Sparse seeds 4, 8 and 1 and mixed seed 5 differed until
    /// algorithm version 28 (each restart kept a visit that the full rebuild made otherwise): seed 4 kept a lone-fix
    /// stay between two pieces of one work stay that the evidence pass split at a region's absence, and the second
    /// piece got a centre of its own; seed 8 kept a 9-min stop the errand rule had kept for the stays around it, and
    /// measured the next errand from it; mixed seed 5 kept a lone-fix stay, and the next stay started 24 s earlier;
    /// seed 1 kept the visit before a one-fix stay at a region's `leave` fix, which the evidence pass made from that
    /// visit's end as amended so far, and the restart lost it. Dense seeds 41 and 44 and sparse seeds 50 and 31
    /// differed until algorithm version 31: seed 41 restarted with an Overland pause two and a half days old (no resume
    /// since) among its events but not its fix, so the pause was never ended and the resume's stay was dropped, where
    /// the rebuild over everything had found fixes far from it that ended it; seed 50 restarted after a stay 2.8 km
    /// from home inside a `Home` presence, and joined the stays after it, which the rebuild over everything left apart
    /// (it joined only the presence's first run); seed 44 kept a stay whose pause was resumed only two days later,
    /// with new data, and seed 31 a work stay joined by an `enter` that a later `enter` of the same region replaced
    /// (the restart keeps no visit since an app record the old data left open).
    @Test(arguments: [(SimulationProfile.denseOverland, UInt64(3)), (.sparseOwnTracks, 7), (.mixed, 6), (.sparseOwnTracks, 4),
                      (.sparseOwnTracks, 8), (.sparseOwnTracks, 1), (.mixed, 5), (.denseOverland, 41), (.sparseOwnTracks, 50),
                      (.denseOverland, 44), (.sparseOwnTracks, 31)])
    func dailyImportsEqualFull(profile: SimulationProfile, seed: UInt64) throws {
        var config = SimulatorConfig(seed: seed, days: 8, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        let (daily, days) = try importedDaily(result, zone: "Europe/Berlin")
        #expect(days >= 8)
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try SimulationEvaluation.load(result, into: full)
        try rebuild(full, timezone: "Europe/Berlin")
        for (sql, what) in Self.comparisons {
            #expect(try rows(daily, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// The varied world's sparse OwnTracks phones, imported a day at a time and rebuilt after each, and rebuilt in
    /// windows of 300 points, equal one rebuild over everything: seed 2's errands on the way that only a silence
    /// between two automatic updates shows (`evidence.way_stops`, stays without fixes that the trips before them end
    /// at) come out the same whichever day or window holds the silence.
    @Test func stopsOnTheWayAreTheSameDailyAndInWindows() throws {
        let (result, full) = try variedSparse(seed: 2, days: 4)
        let zone = Self.melbourne
        #expect(try full.db.scalarInt("SELECT count(*) FROM stays WHERE points = 0") ?? 0 >= 2, "stops on the way were found")
        let (daily, _) = try importedDaily(result, zone: zone)
        let windowed = try Store(path: try temporaryDirectory() + "/windowed.sqlite")
        try SimulationEvaluation.load(result, into: windowed)
        var options = Rebuild.Options()
        options.timeZoneName = zone
        options.full = true
        options.windowPoints = 300
        let reports = try Rebuild(store: windowed, options: options).run()
        #expect(reports.contains { $0.stats.contains { $0.0 == "windows" } }, "several windows were used")
        for (sql, what) in Self.comparisons {
            let whole = try rows(full, sql)
            #expect(try rows(daily, sql) == whole, "a day at a time: \(what) differ")
            #expect(try rows(windowed, sql) == whole, "in windows: \(what) differ")
        }
    }

    /// Imported each evening in Melbourne (days cut at 12:00 UTC, 23:00 there), the varied world's phones equal one
    /// rebuild over everything. Sparse seed 16 did not: two stays at home 105 m apart joined in the rebuild over
    /// everything, because the stays pass merged its stays a second time only when some stay anywhere in the span was
    /// short (the first merge brought the next one's centre within 33 m), and the incremental rebuild's span had no
    /// short stay; the stays and places differed by 30 s and 25 m (`StaysPass.errands` now always merges twice).
    @Test func eveningImportsEqualFull() throws {
        let (result, full) = try variedSparse(seed: 16, days: 6)
        let (daily, _) = try importedDaily(result, zone: Self.melbourne, cutHour: 12)
        for (sql, what) in Self.comparisons {
            #expect(try rows(daily, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// Imported each evening, the varied world's mixed phones of seed 4 equal one rebuild over everything too. Before,
    /// the third evening's places pass put an earlier visit at the place of an earlier walk between the same two places:
    /// the rebuild over everything measured two later walks by that walk (`history`, 328 m), the evening imports kept
    /// the `circuity` of the runs that made them (302 and 359 m), and their day's distance with them
    /// (``PathsPass/firstStale(_:_:)``: the rebuild now recomputes from before such a trip).
    @Test func eveningImportsMeasureHistoryAsFull() throws {
        let (result, full) = try variedSparse(seed: 4, days: 6, profile: .mixed)
        let (daily, _) = try importedDaily(result, zone: Self.melbourne, cutHour: 12)
        for (sql, what) in Self.comparisons {
            #expect(try rows(daily, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// The iOS visits arrive in an import of their own, with no new point (as a visit record posted after its fixes
    /// can): the next rebuild recomputes what they cover, and the result equals a full rebuild with them. Before, a
    /// rebuild looked only for new points and said "up to date".
    @Test func appRecordsWithoutNewPointsAreRebuilt() throws {
        var config = SimulatorConfig(seed: 3, days: 4, people: 2)
        config.profile = .denseOverland
        let result = Simulator(config: config).run()
        let store = try Store(path: try temporaryDirectory() + "/late.sqlite")
        try SimulationEvaluation.load(result, into: store, importID: 1)
        // The visits of the last two days, so that the rebuild that sees them can keep the days before.
        let late = "kind = 'visit' AND time_ms > (SELECT min(time_ms) + 2 * 86400000 FROM app_events)"
        let visits = try store.db.scalarInt("SELECT count(*) FROM app_events WHERE " + late) ?? 0
        try #require(visits > 0)
        try store.db.execute("CREATE TEMP TABLE late AS SELECT * FROM app_events WHERE \(late); DELETE FROM app_events WHERE \(late)")
        var options = Rebuild.Options()
        options.timeZoneName = "Europe/Berlin"
        _ = try Rebuild(store: store, options: options).run()
        let without = try Self.comparisons.map { try rows(store, $0.0) }
        try store.db.execute("INSERT INTO app_events SELECT id, device_id, 2, kind, time_ms, utc_offset_s, lat, lon, start_ms, end_ms, distance_m, mode, raw FROM late")
        let reports = try Rebuild(store: store, options: options).run()
        #expect(!reports.contains { $0.stats.contains { $0.0 == "up_to_date" } }, "the visits were seen")
        #expect(reports.contains { $0.span.0 != Int64.min && $0.pass == "stays" }, "incremental")
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try SimulationEvaluation.load(result, into: full)
        try rebuild(full, timezone: "Europe/Berlin")
        for (k, (sql, what)) in Self.comparisons.enumerated() {
            #expect(try rows(store, sql) == rows(full, sql), "\(what) differ")
            if what == "stays" { #expect(without[k] != (try rows(full, sql)), "the visits change the stays") }
        }
        // Seen once: a third rebuild has nothing new.
        #expect(try Rebuild(store: store, options: options).run().allSatisfy { $0.stats.contains { $0.0 == "up_to_date" } })
    }

    /// Rebuilding in small windows (bounded memory) gives exactly the result of one window over everything. Dense
    /// Overland days at 1 Hz put more than a window's 8,000 points into the two days of context loaded before a
    /// window starts: such a window first had no point of its own, and the evidence pass indexed past its end (seed 15
    /// crashed). Dense seed 3 once differed: one stay end before a trip no fix saw was 249 s apart, because the evidence
    /// pass learnt the device's pace from the trips of the window it had (seed 27 too: a stay end 898 s apart); it now
    /// learns it from the trips of the day and a half before the trip, which every window sees
    /// (`EvidencePass.paceReachMs`). A window's last visit is cut short by the window's end, and the visit before it
    /// ends where the trip to that cut visit says, so the next window keeps the visit before both (the third-to-last):
    /// dense seed 6 (windows of 8,000 points) dropped an iOS visit no fix saw right after the visit it kept, sparse seed
    /// 1 (1,500 points, 4 days) ended a stay 84 s early, from a cut visit that started 20 s early.
    @Test(arguments: [(SimulationProfile.classic, UInt64(5150), 8_000, 3), (.denseOverland, 3, 8_000, 3), (.denseOverland, 15, 8_000, 3),
                      (.denseOverland, 27, 8_000, 3), (.denseOverland, 6, 8_000, 3), (.sparseOwnTracks, 1, 1_500, 4)])
    func windowedEqualsWhole(profile: SimulationProfile, seed: UInt64, windowPoints: Int, days: Int) throws {
        var config = SimulatorConfig(seed: seed, days: days, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        var stores: [Store] = []
        for window in [windowPoints, 10_000_000] {
            let store = try Store(path: try temporaryDirectory() + "/w.sqlite")
            try SimulationEvaluation.load(result, into: store)
            var options = Rebuild.Options()
            options.timeZoneName = "Europe/Berlin"
            options.full = true
            options.windowPoints = window
            let reports = try Rebuild(store: store, options: options).run()
            if window == windowPoints { #expect(reports.contains { $0.stats.contains { $0.0 == "windows" } }, "several windows were used") }
            stores.append(store)
        }
        for (sql, what) in Self.comparisons {
            let a = try rows(stores[0], sql), b = try rows(stores[1], sql)
            #expect(a == b, "\(what) differ")
        }
    }

    /// The pace of a trip after the restart point comes from a trip before it, which only the stored stays of the
    /// context show: an incremental rebuild reads them (`Store.stays(device:endingAtOrAfterMs:startingBeforeMs:)`) and
    /// equals a full one. Home, a drive to work seen whole at 15 m/s, work, a drive home seen by one fix (its arrival
    /// at home estimated at the device's pace between the two places, `EvidencePass.sparseTripEdges`), home, work, a
    /// night at home; the second import starts the next noon, so the rebuild keeps the first visit at work and
    /// recomputes from the drive home on. Without the context's stays it saw no trip of its own and took
    /// `unseen_speed_mps` (5 m/s): the evening at home started at its first fix, 4 min later.
    @Test func contextTripsTeachThePace() throws {
        let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
        let home = (lat: 52.52, lon: 13.405)
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(8 * 3600, every: 300, drift: 0...10)
        b.move(10_000, bearing: 0, speed: 15, every: 10)  // seen whole: the pace between home and work
        b.still(8 * 3600 + 1200, every: 300, drift: 0...10)
        let workEnd = b.t
        b.gap(600, moving: 5000, bearing: 180)
        let fix = b.t
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: 12, accuracyM: 20))  // the one fix
        b.gap(600, moving: 5000, bearing: 180)
        b.still(15 * 3600, every: 300, drift: 0...10)
        b.gap(1800, moving: 10_000, bearing: 0)
        b.still(8 * 3600, every: 300, drift: 0...10)
        b.gap(1800, moving: 10_000, bearing: 180)
        b.still(30 * 3600, every: 300, drift: 0...10)
        let cut = t0 + 2 * 86_400_000 + 12 * 3_600_000
        func load(_ store: Store, _ points: [Point], importID: Int64) throws {
            let id = try store.deviceID(named: "phone", source: "test", origin: .other("test"))
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = importID; return p })
        }
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        let inc = try Store(path: try temporaryDirectory() + "/inc.sqlite")
        try load(inc, b.points.filter { $0.timeMs < cut }, importID: 1)
        _ = try Rebuild(store: inc, options: options).run()
        try load(inc, b.points.filter { $0.timeMs >= cut }, importID: 2)
        let reports = try Rebuild(store: inc, options: options).run()
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try load(full, b.points, importID: 1)
        try rebuild(full, timezone: "UTC")
        // The restart keeps the visit at work, so the drive home is recomputed and the drive to work is context.
        let span = reports.first { $0.pass == "stays" }?.span.0 ?? 0
        #expect(span > t0 + 9 * 3_600_000 && span < fix, "restarted after the first visit at work: \(span - t0) ms")
        let stays = try rows(full, "SELECT start_ms FROM stays ORDER BY start_ms")
        #expect(stays.count == 5)
        // The evening at home starts at the one fix plus the way home at the drive's 15 m/s.
        let evening = try full.db.scalarInt("SELECT min(start_ms) FROM stays WHERE start_ms > \(workEnd)") ?? 0
        #expect(evening > fix + 300_000 && evening < fix + 400_000, "\(evening - fix) ms after the fix")
        for (sql, what) in Self.comparisons {
            #expect(try rows(inc, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// An OwnTracks `Home` entered on the first day and left only on the fifth, with three days 3 km away in between
    /// (a night at home among them) that the phone recorded but whose transitions it missed. The fixes far from home
    /// end the `enter`'s presence before the first of them and begin the `leave`'s after the last (algorithm version 36), so
    /// the rebuild after the import that brings the `leave` restarts after the last far fix before the new points,
    /// not at the `enter` four days back (`Rebuild.openRecordMs`), and equals one rebuild over everything. Before, the
    /// restart was held at the `enter`: a `leave` closed the presence and joined every run of home stays since.
    @Test func aRegionLeftDaysAfterItsEnterRestartsAfterTheLastFarFix() throws {
        let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
        let home = (lat: 52.52, lon: 13.405)
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        let enter = b.t
        b.still(4 * 3600, every: 1800, drift: 5...30)
        b.gap(600, moving: 3000, bearing: 0)
        b.gap(1800)
        b.still(30 * 3600, every: 2400, drift: 5...30)  // away
        b.gap(600, moving: 3000, bearing: 180)
        b.gap(3600)
        b.still(10 * 3600, every: 1800, drift: 5...30)  // a night at home, no transition recorded
        b.gap(600, moving: 3000, bearing: 0)
        b.gap(1800)
        b.still(40 * 3600, every: 2400, drift: 5...30)  // away again
        let lastAway = b.t - 2_400_000
        b.gap(600, moving: 3000, bearing: 180)
        b.gap(3600)
        b.still(20 * 3600, every: 1800, drift: 5...30)  // home, no `enter` recorded
        b.gap(120, moving: 300, bearing: 90)
        let leave = b.t
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, accuracyM: 30))  // the `leave`'s t:"c" fix
        b.gap(600, moving: 4000, bearing: 90)
        b.still(4 * 3600, every: 1800, drift: 5...30)
        let cut = leave - 6 * 3_600_000
        func load(_ store: Store, _ points: [Point], importID: Int64, enter withEnter: Bool, leave withLeave: Bool) throws {
            let id = try store.deviceID(named: "phone", source: "test", origin: .other("test"))
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = importID; return p })
            func event(_ kind: String, _ ms: Int64, _ raw: String) throws {
                try store.db.run(
                    "INSERT INTO app_events(device_id, import_id, kind, time_ms, lat, lon, raw) VALUES (?, ?, ?, ?, 52.52, 13.405, ?)",
                    [.integer(id), .integer(importID), .text(kind), .integer(ms), .text(raw)])
            }
            if withEnter {
                try event("waypoint", t0 - 60_000, #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":100}"#)
                try event("transition", enter, #"{"_type":"transition","desc":"Home","event":"enter","t":"c"}"#)
            }
            if withLeave { try event("transition", leave, #"{"_type":"transition","desc":"Home","event":"leave","t":"c"}"#) }
        }
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        let inc = try Store(path: try temporaryDirectory() + "/inc.sqlite")
        try load(inc, b.points.filter { $0.timeMs < cut }, importID: 1, enter: true, leave: false)
        _ = try Rebuild(store: inc, options: options).run()
        try load(inc, b.points.filter { $0.timeMs >= cut }, importID: 2, enter: false, leave: true)
        let reports = try Rebuild(store: inc, options: options).run()
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try load(full, b.points, importID: 1, enter: true, leave: true)
        try rebuild(full, timezone: "UTC")
        let span = reports.first { $0.pass == "stays" }?.span.0 ?? Int64.min
        // (Two visits before the last far fix a day before the new points: after the first stay away, 34 h after the `enter`.)
        let restarted = span == Int64.min ? "from the start" : "\(span - t0) ms"
        #expect(span > enter + 86_400_000 && span < lastAway, "restarted days after the enter, before the last far fix: \(restarted)")
        #expect(try count(full, "SELECT count(*) FROM visits WHERE start_ms > \(lastAway) AND start_ms < \(leave)") == 1, "one evening at home")
        for (sql, what) in Self.comparisons {
            #expect(try rows(inc, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// An OwnTracks `Home` entered and left a few hours later without a `leave` (six hours 3 km away, the transitions
    /// missed), then three days at two spots 360 m apart within the region (no fix far from it, no `enter`), a second
    /// trip away, and home again. The rebuild after the next import restarts two visits before the last far fix (the
    /// second trip, `Rebuild.openRecordMs`), so its points begin two days before that, after the first trip, while its
    /// app events begin a day earlier still, with the `enter`. The rebuild over everything ends the `enter`'s presence
    /// before the first trip; the incremental one took the first far fix among its loaded points (the second trip) and
    /// stretched the presence over the stays of its span. It now asks the store for a far fix between the `enter`
    /// and its first loaded point (`EvidencePass.earlyFarFixes`) and equals the rebuild over everything.
    @Test func anEnterBeforeTheLoadedPointsEndsAtItsFirstStoredFarFix() throws {
        let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
        let centre = (lat: 52.52, lon: 13.405)
        let west = Geo.destination(centre.lat, centre.lon, bearing: 270, distance: 180)
        var b = TrackBuilder(startMs: t0, lat: west.lat, lon: west.lon)
        let enter = b.t
        b.still(4 * 3600, every: 1800, drift: 5...30)
        b.gap(600, moving: 3000, bearing: 0)
        b.still(6 * 3600, every: 1800, drift: 5...30)  // away, no `leave` recorded
        let firstAway = b.t
        b.gap(600, moving: 3000, bearing: 180)
        b.gap(3000)
        for k in 0..<6 {  // west and east of the centre in turn: 360 m apart, each 180 m from it (the region reaches 250 m)
            b.still(9 * 3600, every: 1800, drift: 5...30)
            b.gap(300, moving: 360, bearing: k % 2 == 0 ? 90 : 270)
        }
        b.still(9 * 3600, every: 1800, drift: 5...30)
        b.gap(600, moving: 3000, bearing: 0)
        b.still(8 * 3600, every: 1800, drift: 5...30)  // away again
        let lastAway = b.t - 1_800_000
        b.gap(600, moving: 3000, bearing: 180)
        b.gap(600)
        for k in 0..<4 {
            b.still(9 * 3600, every: 1800, drift: 5...30)
            b.gap(300, moving: 360, bearing: k % 2 == 0 ? 90 : 270)
        }
        let cut = lastAway + 26 * 3_600_000
        func load(_ store: Store, _ points: [Point], importID: Int64, enter withEnter: Bool) throws {
            let id = try store.deviceID(named: "phone", source: "test", origin: .other("test"))
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = importID; return p })
            if withEnter {
                let waypoint = #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":100}"#
                let entered = #"{"_type":"transition","desc":"Home","event":"enter","t":"c"}"#
                for (kind, ms, raw) in [("waypoint", t0 - 60_000, waypoint), ("transition", enter, entered)] {
                    try store.db.run(
                        "INSERT INTO app_events(device_id, import_id, kind, time_ms, lat, lon, raw) VALUES (?, ?, ?, ?, 52.52, 13.405, ?)",
                        [.integer(id), .integer(importID), .text(kind), .integer(ms), .text(raw)])
                }
            }
        }
        var options = Rebuild.Options()
        options.timeZoneName = "UTC"
        let inc = try Store(path: try temporaryDirectory() + "/inc.sqlite")
        try load(inc, b.points.filter { $0.timeMs < cut }, importID: 1, enter: true)
        _ = try Rebuild(store: inc, options: options).run()
        try load(inc, b.points.filter { $0.timeMs >= cut }, importID: 2, enter: false)
        let reports = try Rebuild(store: inc, options: options).run()
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try load(full, b.points, importID: 1, enter: true)
        try rebuild(full, timezone: "UTC")
        // The `enter` lies among the events the restart loads (a day before its points) but before its points.
        let span = reports.first { $0.pass == "stays" }?.span.0 ?? Int64.min
        let restarted = span == Int64.min ? "from the start" : "\(span - t0) ms"
        #expect(span - 2 * 86_400_000 > firstAway && span - 3 * 86_400_000 < enter && span < lastAway, "restarted: \(restarted)")
        for (sql, what) in Self.comparisons {
            #expect(try rows(inc, sql) == rows(full, sql), "\(what) differ")
        }
    }

    /// `rebuild --from --to` over days already rebuilt changes nothing (the span's edges are handled like an
    /// incremental restart and a kept stay).
    @Test func dateRangeRebuildEqualsFull() throws {
        let result = Simulator(config: SimulatorConfig(seed: 4242, days: 4, people: 2)).run()
        let store = try Store(path: try temporaryDirectory() + "/r.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try rebuild(store, timezone: "Europe/Berlin")
        let before = try Self.comparisons.map { try rows(store, $0.0) }
        var options = Rebuild.Options()
        options.filter.fromDay = CivilTime.parseDate("2024-03-30")
        options.filter.toDay = CivilTime.parseDate("2024-03-31")
        _ = try Rebuild(store: store, options: options).run()
        #expect(try store.db.scalarInt("SELECT count(*) FROM pass_runs WHERE from_ms IS NOT NULL AND to_ms IS NOT NULL") ?? 0 > 0)
        for (k, (sql, what)) in Self.comparisons.enumerated() {
            #expect(try rows(store, sql) == before[k], "\(what) differ")
        }
    }

    /// `rebuild --pass P --from --to` over days already rebuilt changes nothing, for each pass run alone: a pass
    /// that reads its input from the table replaces only what it writes back (the evidence pass once deleted the
    /// stored stays after `--to` and wrote back only those before it).
    @Test(arguments: Rebuild.passOrder)
    func onePassDateRangeRebuildEqualsFull(pass: String) throws {
        let result = Simulator(config: SimulatorConfig(seed: 4242, days: 4, people: 2)).run()
        let store = try Store(path: try temporaryDirectory() + "/r.sqlite")
        try SimulationEvaluation.load(result, into: store)
        try rebuild(store, timezone: "Europe/Berlin")
        let before = try Self.comparisons.map { try rows(store, $0.0) }
        var options = Rebuild.Options()
        options.pass = pass
        options.filter.fromDay = CivilTime.parseDate("2024-03-30")
        options.filter.toDay = CivilTime.parseDate("2024-03-31")
        _ = try Rebuild(store: store, options: options).run()
        for (k, (sql, what)) in Self.comparisons.enumerated() {
            let after = try rows(store, sql)
            let lost = before[k].filter { !after.contains($0) }.prefix(3), gained = after.filter { !before[k].contains($0) }.prefix(3)
            #expect(after == before[k], "\(what) differ after --pass \(pass): lost \(Array(lost)), gained \(Array(gained))")
        }
    }

    static let comparisons: [(String, String)] = [
        ("SELECT d.name, time_ms, flags FROM point_flags JOIN devices d ON d.id = device_id ORDER BY 1, 2", "flags"),
        ("SELECT d.name, start_ms, end_ms, round(lat, 7), round(lon, 7), points, gap_s FROM stays JOIN devices d ON d.id = device_id ORDER BY 1, 2", "stays"),
        ("SELECT d.name, v.start_ms, v.end_ms, p.name, p.visits, p.total_dwell_s, v.start_utc_offset_s FROM visits v JOIN places p ON p.id = v.place_id JOIN devices d ON d.id = v.device_id ORDER BY 1, 2", "visits and places"),
        ("SELECT d.name, start_ms, end_ms, round(distance_m, 3), round(moving_s, 3), mode, legs, gaps, start_utc_offset_s FROM trips JOIN devices d ON d.id = device_id ORDER BY 1, 2", "trips"),
        ("SELECT d.name, l.start_ms, l.end_ms, l.mode, round(l.distance_m, 3) FROM legs l JOIN devices d ON d.id = l.device_id ORDER BY 1, 2", "legs"),
        ("SELECT d.name, date, round(distance_m, 3), round(moving_s, 3), trips, visits, places, utc_offset_s FROM days JOIN devices d ON d.id = device_id ORDER BY 1, 2", "days"),
        ("SELECT e.time_ms, round(m.overlap, 6), m.trip_mode FROM app_trip_matches m JOIN app_events e ON e.id = m.event_id ORDER BY 1", "app trip matches"),
    ]

    /// The varied world's zone.
    static let melbourne = "Australia/Melbourne"

    /// The varied world's phones of `seed` (two people; sparse OwnTracks unless `profile` says otherwise), and a store
    /// with all of it rebuilt at once.
    func variedSparse(seed: UInt64, days: Int, profile: SimulationProfile = .sparseOwnTracks) throws -> (SimulationResult, Store) {
        var config = SimulatorConfig(seed: seed, days: days, people: 2)
        config.profile = profile
        config.useWorld(.varied)
        let result = Simulator(config: config).run()
        let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
        try SimulationEvaluation.load(result, into: full)
        try rebuild(full, timezone: Self.melbourne)
        return (result, full)
    }

    /// `result` imported a day at a time into a new store, the days cut at `cutHour` UTC, with an (incremental)
    /// rebuild after each import; the store and the number of imports.
    func importedDaily(_ result: SimulationResult, zone: String, cutHour: Int64 = 0) throws -> (Store, Int) {
        let times = result.devices.flatMap(\.points).map(\.timeMs)
        let first = times.min()! / 86_400_000 * 86_400_000 + cutHour * 3_600_000
        let daily = try Store(path: try temporaryDirectory() + "/daily.sqlite")
        var options = Rebuild.Options()
        options.timeZoneName = zone
        var day: Int64 = 0
        while first + day * 86_400_000 <= times.max()! {
            let from = day == 0 ? Int64.min : first + day * 86_400_000, to = first + (day + 1) * 86_400_000
            try SimulationEvaluation.load(result, into: daily, importID: day + 1) { $0.timeMs >= from && $0.timeMs < to }
            _ = try Rebuild(store: daily, options: options).run()
            day += 1
        }
        return (daily, Int(day))
    }

    func rows(_ store: Store, _ sql: String) throws -> [String] {
        let s = try store.db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append((0..<s.columnCount).map { "\(s.value($0))" }.joined(separator: "|")) }
        return out
    }
}
