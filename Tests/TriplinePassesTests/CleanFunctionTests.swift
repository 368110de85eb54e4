import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineGeography
import TriplineTestSupport

/// One device's points as the clean, stays and evidence passes see them, built in memory (no database): the functions
/// of those passes are tested on it (issue 24).
enum EarlyPassesWork {
    /// `points` (in time order) as a ``DeviceWork`` with no flag set, their motion states parsed as the store reads them; `processFromMs` as a rebuild that restarts there.
    static func of(_ points: [Point], processFromMs: Int64 = Int64.min) -> DeviceWork {
        let w = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: Int64.min, toMs: Int64.max, processFromMs: processFromMs, zones: LocalZones())
        w.time = points.map(\.timeMs)
        w.lat = points.map(\.lat)
        w.lon = points.map(\.lon)
        w.accuracy = points.map { $0.accuracyM ?? .nan }
        w.speed = points.map { $0.speedMps ?? .nan }
        w.offset = points.map { $0.utcOffsetS ?? Int32.min }
        w.motion = points.map { p in p.motion.map { Array($0.utf8).withUnsafeBytes { MotionBits.parse($0) } } ?? 0 }
        w.tripMode = [UInt16](repeating: 0, count: points.count)
        w.flags = [UInt8](repeating: 0, count: points.count)
        w.flagsLoaded = true
        return w
    }
}

/// The clean pass as a function (``CleanPass/clean(_:_:_:)``): the flags of a device's points from the points and
/// Google's segments alone.
@Suite struct CleanFunctionTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z

    /// Half an hour still in Berlin, a fix a minute, with one fix of each kind the pass flags.
    func points() -> [Point] {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 60)
        var points = b.points
        points[5].accuracyM = 500  // worse than max_accuracy_m
        points[10].lat += 0.05  // 5.6 km off and back a minute later: 93 m/s
        points[12].timeMs = points[11].timeMs + 200  // 200 ms after the one before
        return points
    }

    @Test func flagsBadFixesAndTimelinePathPointsInsideGoogleSegments() {
        let w = EarlyPassesWork.of(points())
        // Google's own segment from fix 20 to fix 25 (inclusive); fixes 18 and 22 are `timelinePath` points.
        let input = CleanPass.Input(googleSegments: [(w.time[20], w.time[25])], timelinePathTimes: [w.time[18], w.time[22]])
        let out = CleanPass.clean(w, input, CleanPass.Parameters())
        #expect(out.flags[5] == CleanPass.Flag.lowAccuracy)
        #expect(out.flags[10] == CleanPass.Flag.jump)
        #expect(out.flags[12] == CleanPass.Flag.duplicate)
        #expect(out.flags[22] == CleanPass.Flag.timelinePath)
        #expect(out.flags[18] == 0)  // a path point outside every segment stays a point
        #expect(out.flags.enumerated().filter { $0.element != 0 }.map(\.offset) == [5, 10, 12, 22])
        let stats = Dictionary(uniqueKeysWithValues: out.stats)
        #expect(stats["points"] == "30" && stats["low_accuracy"] == "1" && stats["jumps"] == "1" && stats["duplicates"] == "1")
        #expect(stats["timeline_path"] == "1" && stats["impossible"] == "0")
        // Without Google's segments no path point is flagged.
        let alone = CleanPass.clean(w, CleanPass.Input(timelinePathTimes: [w.time[18], w.time[22]]), CleanPass.Parameters())
        #expect(alone.flags[22] == 0)
    }

    /// A rebuild that restarts inside the points keeps the stored flags of the points before it, and recomputes and
    /// counts only the rest.
    @Test func keepsTheStoredFlagsBeforeTheRecomputedSpan() {
        let all = points()
        let w = EarlyPassesWork.of(all, processFromMs: all[8].timeMs)
        var stored = [UInt8](repeating: 0, count: all.count)
        stored[3] = CleanPass.Flag.duplicate  // as an earlier rebuild stored it
        stored[5] = 0
        stored[15] = CleanPass.Flag.duplicate  // recomputed: not a duplicate
        let out = CleanPass.clean(w, CleanPass.Input(storedFlags: stored), CleanPass.Parameters())
        #expect(out.firstNew == 8)
        #expect(out.flags[3] == CleanPass.Flag.duplicate && out.flags[5] == 0 && out.flags[15] == 0)
        #expect(out.flags[10] == CleanPass.Flag.jump && out.flags[12] == CleanPass.Flag.duplicate)
        let stats = Dictionary(uniqueKeysWithValues: out.stats)
        #expect(stats["points"] == "22" && stats["low_accuracy"] == "0" && stats["duplicates"] == "1")
    }

    /// A phone's lone outlier on a dense track (algorithm version 47, `line_jump_s`): 100 m off the line a car's 1 Hz
    /// fixes draw, with an ordinary accuracy, is flagged; the older out-and-back rule needs 150 m and neighbours close
    /// together, and missed it (the car moves 30 m between them). A car's right-angle turn, a plane's fixes a second
    /// apart and a walk are not flagged.
    @Test func aDenseTracksOutlierIsAJump() {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.move(600, bearing: 90, speed: 15)
        b.move(600, bearing: 0, speed: 15)  // a right-angle turn at 15 m/s
        b.move(300, bearing: 0, speed: 1.4, every: 1)
        b.gap(3600, moving: 40_000, bearing: 45)
        b.move(30_000, bearing: 45, speed: 250)  // a plane, a fix a second
        var points = b.points
        let k = 20  // in the first 600 m: 300 m in
        let off = Geo.destination(points[k].lat, points[k].lon, bearing: 180, distance: 100)
        points[k].lat = off.lat
        points[k].lon = off.lon
        let w = EarlyPassesWork.of(points)
        let flags = CleanPass.clean(w, CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(flags.enumerated().filter { $0.element != 0 }.map(\.offset) == [k])
        #expect(flags[k] == CleanPass.Flag.jump)
        // Without the rule the outlier is kept.
        var old = CleanPass.Parameters()
        old.lineJumpS = 0
        #expect(CleanPass.clean(w, CleanPass.Input(), old).flags.allSatisfy { $0 == 0 })
        // The same fix 100 m off between neighbours a minute away is movement for all the rule knows.
        var sparse = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        sparse.move(9000, bearing: 90, speed: 15, every: 60)
        var fixes = sparse.points
        let moved = Geo.destination(fixes[4].lat, fixes[4].lon, bearing: 180, distance: 100)
        fixes[4].lat = moved.lat
        fixes[4].lon = moved.lon
        #expect(CleanPass.clean(EarlyPassesWork.of(fixes), CleanPass.Input(), CleanPass.Parameters()).flags.allSatisfy { $0 == 0 })
    }

    /// A cached fix re-sent at the current time (PROVENANCE: Overland's stale fixes, no accuracy): a phone at work, a
    /// fix a minute, then its home fix 8 km away written again and again, then work again. The run of fixes at exactly
    /// that one position is one fix for the out-and-back rule, so every one is a jump (algorithm version 83; before,
    /// two or more made a round trip of 16 km at 133–267 m/s). A run at one position reached at a car's pace stays.
    @Test func aCachedFixReSentAgainAndAgainIsAJump() {
        for (copies, every) in [(2, Int64(30_000)), (5, 60_000), (30, 60_000)] {
            var b = TrackBuilder(startMs: t0, lat: 52.50, lon: 13.45)
            b.still(3600, every: 60, drift: 2...8)
            var points = b.points
            let home = Geo.destination(52.50, 13.45, bearing: 270, distance: 8000)
            var t = points.last!.timeMs
            for _ in 0..<copies {
                t += every
                points.append(Point(deviceID: 1, timeMs: t, utcOffsetS: 7200, lat: home.lat, lon: home.lon))
            }
            var after = TrackBuilder(startMs: t + 30_000, lat: 52.50, lon: 13.45)
            after.still(3600, every: 60, drift: 2...8)
            points += after.points
            let flags = CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags
            let run = (b.points.count)..<(b.points.count + copies)
            #expect(flags.enumerated().filter { $0.element != 0 }.map(\.offset) == Array(run), "\(copies) copies")
            #expect(run.allSatisfy { flags[$0] == CleanPass.Flag.jump }, "\(copies) copies")
        }
        // Driven to and from at 20 m/s, the same run of identical fixes is a stay.
        var b = TrackBuilder(startMs: t0, lat: 52.50, lon: 13.45)
        b.still(600, every: 60)
        b.move(8000, bearing: 270, speed: 20, every: 60)
        var points = b.points
        let there = points.last!
        for k in 1...10 { points.append(Point(deviceID: 1, timeMs: there.timeMs + Int64(k) * 60_000, lat: there.lat, lon: there.lon)) }
        var back = TrackBuilder(startMs: there.timeMs + 660_000, lat: there.lat, lon: there.lon)
        back.move(8000, bearing: 90, speed: 20, every: 60)
        points += back.points.dropFirst()
        #expect(CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags.allSatisfy { $0 == 0 })
    }

    /// A still phone whose fused position falls back to a wifi estimate 300 m off for two to four fixes at a time, a
    /// fix every 10 s, the true fixes saying speed 0, the others no speed (the eighth hostile round: eight hours of it
    /// made a `car` trip of 215 km): each such run between two still fixes is one excursion, every fix of it a jump
    /// (algorithm version 84). Runs whose neighbours do not both report standing still are left to the other rules.
    @Test func aStillPhonesWifiFallbacksAreJumps() {
        let home = (lat: 52.52, lon: 13.40), wifi = Geo.destination(52.52, 13.40, bearing: 90, distance: 300)
        var points: [Point] = []
        var t = t0
        var expected: [Int] = []
        for (n, run) in [2, 3, 4, 2, 3].enumerated() {
            for _ in 0..<3 {
                points.append(Point(deviceID: 1, timeMs: t, lat: home.lat, lon: home.lon + Double(n) * 1e-6, speedMps: 0, accuracyM: 8))
                t += 10_000
            }
            for q in 0..<run {
                expected.append(points.count)
                points.append(Point(deviceID: 1, timeMs: t, lat: wifi.lat + Double(q) * 2e-5, lon: wifi.lon, accuracyM: 40))
                t += 10_000
            }
        }
        points.append(Point(deviceID: 1, timeMs: t, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 8))
        let flags = CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(flags.enumerated().filter { $0.element != 0 }.map(\.offset) == expected)
        #expect(expected.allSatisfy { flags[$0] == CleanPass.Flag.jump })
        // Without speeds at the true fixes nothing says the phone lay still: the still-fix rule leaves the runs (the
        // acceleration rule, version 86, flags them: `aWifiFallbackWithoutAnySpeedIsAJump`).
        let unknown = withoutSpeeds(points)
        var stillRuleAlone = CleanPass.Parameters()
        stillRuleAlone.jumpAccelMps2 = 0
        #expect(CleanPass.clean(EarlyPassesWork.of(unknown), CleanPass.Input(), stillRuleAlone).flags.allSatisfy { $0 == 0 })
    }

    /// An iPhone at home at night, a fix every 5 min, every fix `stationary`, and one of them 950 m off (accuracy 165 m,
    /// no speed) (the ninth hostile round: a 2.1-km trip at 01:25). The phone said it lay still before and after, and
    /// nobody walks 1.9 km there and back in 10 min without a stop: the fix is a jump (algorithm version 89), whether
    /// the home fixes report speed 0 or none (then their motion state says it). Fixes that say `walking` around it, or
    /// still fixes more than `still_jump_s` (15 min) apart, leave it to the other rules.
    @Test func aLoneFixFarOffBetweenStationaryFixesIsAJump() {
        func night(homeSpeed: Double?, motion: String, every: Int64) -> [Point] {
            let off = Geo.destination(52.53, 13.40, bearing: 315, distance: 950)
            return (0..<13).map { i in
                let t = t0 + Int64(i) * every * 1000
                if i == 6 { return Point(deviceID: 1, timeMs: t, lat: off.lat, lon: off.lon, accuracyM: 165, motion: "stationary") }
                return Point(deviceID: 1, timeMs: t, lat: 52.53 + Double(i % 3) * 2e-5, lon: 13.40, speedMps: homeSpeed, accuracyM: 10, motion: motion)
            }
        }
        func jumps(_ points: [Point]) -> [Int] {
            CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags.enumerated()
                .filter { $0.element & CleanPass.Flag.jump != 0 }.map(\.offset)
        }
        #expect(jumps(night(homeSpeed: 0, motion: "stationary", every: 300)) == [6])
        #expect(jumps(night(homeSpeed: nil, motion: "stationary", every: 300)) == [6])
        #expect(jumps(night(homeSpeed: nil, motion: "walking", every: 300)) == [])
        #expect(jumps(night(homeSpeed: 0, motion: "stationary", every: 600)) == [])
    }

    /// One accurate fix (10 m) 2 or 8 km off, no speed, `stationary` (iOS), between home fixes 14 min apart that report
    /// standing still: a car errand, not a wifi fallback (the fourteenth hostile round: flagged, the 4- and 16-km trip
    /// gone). The same fix reporting 165 m is still a jump.
    @Test func oneAccurateFixAtAnErrandIsKept() {
        func day(km: Double, accuracy: Double) -> [Point] {
            let far = Geo.destination(52.52, 13.40, bearing: 45, distance: km * 1000)
            var points = (0..<8).map { i in
                Point(deviceID: 1, timeMs: t0 + Int64(i) * 840_000, lat: 52.52 + Double(i % 3) * 2e-5, lon: 13.40, speedMps: 0, accuracyM: 10,
                      motion: "stationary")
            }
            points.insert(Point(deviceID: 1, timeMs: t0 + 3 * 840_000 + 420_000, lat: far.lat, lon: far.lon, accuracyM: accuracy, motion: "stationary"), at: 4)
            return points
        }
        func jumps(_ points: [Point]) -> [Int] {
            CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags.enumerated()
                .filter { $0.element & CleanPass.Flag.jump != 0 }.map(\.offset)
        }
        #expect(jumps(day(km: 2, accuracy: 10)) == [])
        #expect(jumps(day(km: 8, accuracy: 10)) == [])
        #expect(jumps(day(km: 2, accuracy: 165)) == [4])
    }

    /// A real errand by car seen by five `stationary` fixes without speed 5 km off, over 4 min, between home fixes
    /// 15 min apart (the thirteenth hostile round: all five flagged, the two drives gone): several fixes are a run, whose
    /// window is `still_run_s` (300 s), whether they lie at one position or scatter.
    @Test func anErrandSeenByFiveStationaryFixesIsKept() throws {
        func errand(scatter: Bool) -> [Point] {
            var points: [Point] = []
            var t = t0
            let far = Geo.destination(52.52, 13.40, bearing: 90, distance: 5000)
            for _ in 0..<30 { points.append(Point(deviceID: 1, timeMs: t, lat: 52.52, lon: 13.40, accuracyM: 10, motion: "stationary")); t += 60_000 }
            t += 300_000
            for q in 0..<5 {
                let lat = far.lat + (scatter ? Double(q) * 1e-4 : 0)
                points.append(Point(deviceID: 1, timeMs: t, lat: lat, lon: far.lon, accuracyM: 10, motion: "stationary"))
                t += 60_000
            }
            t += 240_000
            for _ in 0..<30 { points.append(Point(deviceID: 1, timeMs: t, lat: 52.52, lon: 13.40, accuracyM: 10, motion: "stationary")); t += 60_000 }
            return points
        }
        for scatter in [false, true] {
            let flags = CleanPass.clean(EarlyPassesWork.of(errand(scatter: scatter)), CleanPass.Input(), CleanPass.Parameters()).flags
            #expect(flags.allSatisfy { $0 & CleanPass.Flag.jump == 0 }, "scatter \(scatter): \(flags.enumerated().filter { $0.element != 0 }.map(\.offset))")
        }
    }

    /// The points as an app writes them without any reported speed (GPX, GeoLife, Overland's -1).
    func withoutSpeeds(_ points: [Point]) -> [Point] {
        points.map { p in
            var p = p
            p.speedMps = nil
            return p
        }
    }

    /// A phone that lies still and falls back to a wifi estimate 300 m off for one to four fixes at a time, a fix every
    /// 10 s, with no speed on any fix (the eighth hostile round: 307 km of `car` trips over eight hours at home): no
    /// traveller at rest goes 300 m in 10 s (half a g covers 250 m), so every run is a jump (algorithm version 86).
    /// A walk to the corner 300 m away and back, and a drive round the block that comes back past its start, are kept.
    @Test func aWifiFallbackWithoutAnySpeedIsAJump() {
        let wifi = Geo.destination(52.52, 13.40, bearing: 90, distance: 300)
        var points: [Point] = []
        var t = t0
        var expected: [Int] = []
        for (n, run) in [1, 3, 4, 2, 1, 3].enumerated() {
            for _ in 0..<3 {
                points.append(Point(deviceID: 1, timeMs: t, lat: 52.52, lon: 13.40 + Double(n) * 2e-5, accuracyM: 8))
                t += 10_000
            }
            for q in 0..<run {
                expected.append(points.count)
                points.append(Point(deviceID: 1, timeMs: t, lat: wifi.lat + Double(q) * 1e-4, lon: wifi.lon, accuracyM: 40))
                t += 10_000
            }
        }
        points.append(Point(deviceID: 1, timeMs: t, lat: 52.52, lon: 13.40, accuracyM: 8))
        let flags = CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(flags.enumerated().filter { $0.element != 0 }.map(\.offset) == expected)
        #expect(expected.allSatisfy { flags[$0] == CleanPass.Flag.jump })
        var off = CleanPass.Parameters()
        off.jumpAccelMps2 = 0
        #expect(CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), off).flags.allSatisfy { $0 == 0 })

        // A walk: 300 m out at 1.4 m/s, a minute at the corner, back; a fix every 10 s, no speeds.
        var walk = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.40)
        walk.still(300, every: 10)
        walk.move(300, bearing: 90, speed: 1.4, every: 10)
        walk.still(60, every: 10)
        walk.move(300, bearing: 270, speed: 1.4, every: 10)
        walk.still(300, every: 10)
        // (The builder writes each leg's first fix at the instant of the last one before: those are duplicates.)
        let walkFlags = CleanPass.clean(EarlyPassesWork.of(withoutSpeeds(walk.points)), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(walkFlags.allSatisfy { $0 & CleanPass.Flag.jump == 0 })
        // A drive from rest: 400 m at 20 m/s (200 m between fixes), round a roundabout, back past the start; a fix
        // every 10 s, no speeds.
        var drive = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.40)
        drive.still(300, every: 10)
        drive.move(400, bearing: 90, speed: 20, every: 10)
        drive.move(800, bearing: 270, speed: 20, every: 10)
        drive.still(300, every: 10)
        let driveFlags = CleanPass.clean(EarlyPassesWork.of(withoutSpeeds(drive.points)), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(driveFlags.allSatisfy { $0 & CleanPass.Flag.jump == 0 })
    }

    /// A GPS logger writing every 5 s, without speeds, on a walk: a glitch 285 m off the track, reached and left in
    /// 5 s (57 m/s, under the speed rule's 60): no walker's half a g covers that (62 m in 5 s), so it is a jump
    /// (algorithm version 86; docs/PASSES.md, "Slower glitches of loggers").
    @Test func aLoggersGlitchReachedInFiveSecondsIsAJump() {
        var b = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.40)
        b.move(600, bearing: 0, speed: 1.4, every: 5)
        var points = withoutSpeeds(b.points)
        let glitch = 40
        let off = Geo.destination(points[glitch].lat, points[glitch].lon, bearing: 90, distance: 285)
        (points[glitch].lat, points[glitch].lon) = (off.lat, off.lon)
        let flags = CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(flags.enumerated().filter { $0.element != 0 }.map(\.offset) == [glitch])
        var speedRuleAlone = CleanPass.Parameters()
        speedRuleAlone.jumpAccelMps2 = 0
        #expect(CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), speedRuleAlone).flags.allSatisfy { $0 == 0 })
    }

    /// A dense track over the 180th meridian draws its line the shorter way round: interpolated by plain longitudes,
    /// the fixes just across it lay half the Earth off their neighbours' line and were flagged as jumps.
    @Test func aDenseTrackOverTheAntimeridianHasNoJump() {
        var b = TrackBuilder(startMs: t0, lat: -16.8, lon: 179.995)
        b.move(1200, bearing: 90, speed: 15)
        let points = b.points
        #expect(points.contains { $0.lon < 0 } && points.contains { $0.lon > 0 })
        let flags = CleanPass.clean(EarlyPassesWork.of(points), CleanPass.Input(), CleanPass.Parameters()).flags
        #expect(flags.allSatisfy { $0 == 0 })
    }

    /// An iPhone carried to work and home again, and an iPad left at home all day writing a fix every 15 min, both as
    /// one device (Overland's default empty `device_id`, one folder; the sixteenth hostile round). The iPad's fixes
    /// while the phone is at work are out of the phone's reach and flagged; once the phone is home for the evening its
    /// fixes joined the iPad's source there, and the whole evening was flagged with it: a 3-h visit lost. The part of
    /// the smaller source that goes on after the main track's last fix is now kept, as a side that follows it.
    @Test func aPhoneHomeBesideATabletLeftThereKeepsItsEvening() throws {
        let home = (52.5200, 13.4050)
        var phone = TrackBuilder(startMs: t0 + 7 * 3_600_000, lat: home.0, lon: home.1)
        phone.still(3600, every: 60, drift: 2...8)
        phone.move(7000, bearing: 90, speed: 12, every: 5)
        phone.move(5000, bearing: 0, speed: 12, every: 5)
        phone.still(8 * 3600, every: 60, drift: 2...8)
        phone.move(5000, bearing: 180, speed: 12, every: 5)
        phone.move(7000, bearing: 270, speed: 12, every: 5)
        let evening = phone.points.count
        phone.still(3 * 3600, every: 60, drift: 2...8)
        var tablet: [Point] = []
        var rng = SplitMix64(seed: 3)
        for t in stride(from: t0 + 7 * 3_600_000 + 17_000, to: t0 + 22 * 3_600_000, by: 900_000) {
            let p = Geo.destination(home.0, home.1, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 6))
            tablet.append(Point(deviceID: 0, timeMs: t, lat: p.lat, lon: p.lon, speedMps: 0, accuracyM: 20))
        }
        let phoneTimes = Set(phone.points.map(\.timeMs))
        let phoneEvening = Set(phone.points[evening...].map(\.timeMs))
        let points = (phone.points + tablet).sorted { $0.timeMs < $1.timeMs }
        let w = EarlyPassesWork.of(points)
        let flags = CleanPass.clean(w, CleanPass.Input(), CleanPass.Parameters()).flags
        let flaggedEvening = points.indices.filter { phoneEvening.contains(points[$0].timeMs) && flags[$0] & CleanPass.Flag.impossible != 0 }
        #expect(flaggedEvening.isEmpty, "\(flaggedEvening.count) of the phone's \(phoneEvening.count) evening fixes flagged")
        // The tablet's fixes at home while the phone was at work are still left out (out-and-back jumps here: each lies
        // alone between the phone's).
        let atWork = (t0 + 8 * 3_600_000 + 1_200_000)...(t0 + 16 * 3_600_000)
        let tabletAtWork = points.indices.filter { !phoneTimes.contains(points[$0].timeMs) && atWork.contains(points[$0].timeMs) }
        #expect(!tabletAtWork.isEmpty && tabletAtWork.allSatisfy { flags[$0] != 0 })
    }
}
