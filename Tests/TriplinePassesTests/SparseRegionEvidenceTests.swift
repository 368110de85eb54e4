import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Sparse phones (issue 23, item 4): what an OwnTracks region's `leave` and `enter` say about a trip that the
/// significant-changes mode saw with one or two fixes (`EvidencePass.leavePace`, the proven stops of
/// `EvidencePass.absentStops`). Hand-built tracks: home with its `Home` region (100 m), a silence, the fixes the
/// mode publishes, and the region events with their `t:"c"` fixes.
@Suite struct SparseRegionEvidenceTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    func event(_ store: Store, _ kind: String, at ms: Int64, lat: Double? = nil, lon: Double? = nil, raw: String) throws {
        try store.db.run(
            "INSERT INTO app_events(device_id, import_id, kind, time_ms, lat, lon, raw) VALUES (1, 1, ?, ?, ?, ?, ?)",
            [.text(kind), .integer(ms), lat.map { .real($0) } ?? .null, lon.map { .real($0) } ?? .null, .text(raw)])
    }

    /// The `Home` waypoint and a transition, as the importer stores OwnTracks' messages.
    func region(_ store: Store) throws {
        try event(store, "waypoint", at: t0 - 60_000, lat: home.lat, lon: home.lon,
                  raw: #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":100}"#)
    }

    func transition(_ store: Store, _ kind: String, at ms: Int64, _ lat: Double, _ lon: Double) throws {
        try event(store, "transition", at: ms, lat: lat, lon: lon,
                  raw: #"{"_type":"transition","desc":"Home","event":"\#(kind)","t":"c"}"#)
    }

    /// A fix without speed (the `t:"c"` fix of a region event, a wifi fix).
    func fix(_ b: inout TrackBuilder, accuracy: Double = 30, speed: Double? = nil) {
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: speed, accuracyM: accuracy))
    }

    /// `points` with the `Home` region left and entered at the given times and fixes, rebuilt with `sets`: the store,
    /// and its visits farther than `farther` metres from home.
    func visitsAway(
        _ points: [Point], leave: (Int64, (lat: Double, lon: Double)), enter: (Int64, (lat: Double, lon: Double)), farther: Double,
        sets: [String]
    ) throws -> (Store, [(start: Int64, end: Int64, lat: Double, lon: Double)]) {
        let store = try storeWith([("phone", points)])
        try region(store)
        try transition(store, "leave", at: leave.0, leave.1.lat, leave.1.lon)
        try transition(store, "enter", at: enter.0, enter.1.lat, enter.1.lon)
        try rebuild(store, sets: sets)
        let s = try store.db.prepare("SELECT start_ms, end_ms, lat, lon FROM visits ORDER BY start_ms")
        var away: [(start: Int64, end: Int64, lat: Double, lon: Double)] = []
        while try s.step() {
            if Geo.distance(s.double(2), s.double(3), home.lat, home.lon) > farther { away.append((s.int64(0), s.int64(1), s.double(2), s.double(3))) }
        }
        return (store, away)
    }

    /// A bicycle leaves home at 6 m/s. iOS reports the exit 90 s after the boundary (100 m out), so its fix lies 640 m
    /// out; the phone says nothing more until the destination's first still fix 15 minutes after the arrival. The
    /// trip has no pace of its own (one fix) and is 1 km long, so the device's pace for it was walking: the
    /// departure came 6 minutes early and the arrival 3 late. The exit's fix says 540 m in 90 s: the departure is
    /// within half a minute of the truth, and so is the arrival.
    @Test func aRegionLeaveGivesTheTripsPace() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 2400, drift: 10...30)  // fixes at 0, 40, 80 min
        b.gap(1200)  // the last home fix 20 min before the departure (the still timer)
        let departure = b.t
        b.gap(107, moving: 640, bearing: 90)
        let leave = b.t
        fix(&b)  // the exit's t:"c" fix, 640 m out
        let leaveAt = (lat: b.lat, lon: b.lon)
        b.gap(60, moving: 360, bearing: 90)
        let arrival = b.t
        b.gap(900)  // no fix just after arriving
        b.still(3600, every: 600, drift: 10...30)
        for (on, close) in [(1, true), (0, false)] {
            let store = try storeWith([("phone", b.points)])
            try region(store)
            try transition(store, "leave", at: leave, leaveAt.lat, leaveAt.lon)
            try rebuild(store, sets: ["evidence.leave_pace=\(on)"])
            #expect(try count(store, "SELECT count(*) FROM trips") == 1)
            let start = Int64(try double(store, "SELECT start_ms FROM trips")), end = Int64(try double(store, "SELECT end_ms FROM trips"))
            #expect((abs(start - departure) <= 30_000) == close, "leave_pace=\(on): departure \(start - departure) ms off")
            #expect((abs(end - arrival) <= 30_000) == close, "leave_pace=\(on): arrival \(end - arrival) ms off")
        }
    }

    /// A 15-minute errand 840 m from home: a moving fix (1.4 m/s) a minute before the shop, 18 minutes of silence,
    /// a moving fix two minutes after leaving it, then the region's `enter`. The silence between the two moving
    /// fixes is longer than the time trigger allows a moving phone (`still_gap_s`) by more than `min_stay_s`: the
    /// person stopped. The fixes lie near the shop, so the absence's estimate (each fix half way) left no time for a
    /// stop. With the proof it is a visit at the farther fix, from that fix to the other less the way between them.
    @Test func aSilenceBetweenMovingFixesInAnAbsenceIsAStop() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 2400, drift: 10...30)
        b.gap(1200)
        b.gap(161, moving: 225, bearing: 90)  // 71 s to the boundary, the exit reported 90 s later
        let leave = b.t, leaveAt = (lat: b.lat, lon: b.lon)
        fix(&b)
        b.gap(379, moving: 531, bearing: 90)
        fix(&b, accuracy: 8, speed: 1.4)  // 756 m out
        b.gap(60, moving: 84, bearing: 90)
        let arrived = b.t, shop = (lat: b.lat, lon: b.lon)
        b.gap(900)
        let left = b.t
        b.gap(120, moving: 168, bearing: 270)
        fix(&b, accuracy: 8, speed: 1.4)  // 672 m out, on the way back
        b.gap(439, moving: 612, bearing: 270)
        let enter = b.t
        fix(&b)
        let enterAt = (lat: b.lat, lon: b.lon)
        b.gap(600, moving: 60, bearing: 270)
        b.still(7200, every: 2400, drift: 10...30)
        for (on, stops) in [(1, 1), (0, 0)] {
            let (store, away) = try visitsAway(b.points, leave: (leave, leaveAt), enter: (enter, enterAt), farther: 300,
                                               sets: ["evidence.proven_stops=\(on)"])
            for v in away {
                #expect(Geo.distance(v.lat, v.lon, shop.lat, shop.lon) < 150)
                let overlap = min(v.end, left) - max(v.start, arrived)
                #expect(Double(overlap) >= 0.8 * Double(left - arrived), "proven_stops=\(on): the stop overlaps the errand")
            }
            #expect(away.count == stops, "proven_stops=\(on): \(away.count) stops away from home")
            if on == 1 { #expect(try count(store, "SELECT count(*) FROM trips") == 2, "out and back") }
        }
    }

    /// An 8-minute errand 330 m from home, walked at 1.4 m/s: the only fixes while away are the region's own, the
    /// `leave` 90 s after the boundary (226 m out) and the `enter` 40 s before the door. The absence (12.5 min) is too
    /// short for the estimate above (each fix half way, a stop of `lone_stay_s`), and the person was out of the region
    /// all that time: a stop at the `leave` fix, each way as long as the way to that fix took (`errand_stops`).
    @Test func aShortErrandSeenOnlyByTheRegionIsAStop() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 2400, drift: 10...30)
        b.gap(1200)
        b.gap(161, moving: 226, bearing: 90)  // 71 s to the boundary, the exit reported 90 s later
        let leave = b.t, leaveAt = (lat: b.lat, lon: b.lon)
        fix(&b)
        b.gap(75, moving: 104, bearing: 90)
        let arrived = b.t
        b.gap(480)
        let left = b.t
        b.gap(196, moving: 274, bearing: 270)
        let enter = b.t
        fix(&b)  // 56 m from home
        let enterAt = (lat: b.lat, lon: b.lon)
        b.gap(40, moving: 56, bearing: 270)
        b.gap(600)
        b.still(7200, every: 2400, drift: 10...30)
        for (on, stops) in [(1, 1), (0, 0)] {
            let (_, away) = try visitsAway(b.points, leave: (leave, leaveAt), enter: (enter, enterAt), farther: 150,
                                           sets: ["evidence.errand_stops=\(on)"])
            for v in away {
                let overlap = min(v.end, left) - max(v.start, arrived), union = max(v.end, left) - min(v.start, arrived)
                #expect(overlap * 10 >= union * 7, "errand_stops=\(on): the stop covers the errand")
            }
            #expect(away.count == stops, "errand_stops=\(on): \(away.count) stops away from home")
        }
    }

    /// Move mode at home: a wifi fix (no speed) every 3 minutes, 15–60 m from home, each saying `inregions: ["Home"]`,
    /// and among them one fix 450 m off (40 m accuracy) that still says so, as the simulator's and real phones' wifi
    /// positions do now and then.
    func homeFixes(_ b: inout TrackBuilder, hours: Double, offAfter: Double? = nil) {
        let inHome = #"{"inregions":["Home"]}"#
        var k = 0, n = Int(hours * 20)
        while k < n {
            let off = offAfter.map { k == Int($0 * 20) } ?? false
            let p = Geo.destination(home.lat, home.lon, bearing: Double(k * 137 % 360), distance: off ? 450 : Double(15 + k * 7 % 45))
            b.points.append(Point(deviceID: 0, timeMs: b.t, lat: p.lat, lon: p.lon, accuracyM: off ? 40 : 30, extra: inHome))
            b.t += 180_000
            k += 1
        }
        b.lat = home.lat
        b.lon = home.lon
    }

    /// The archive ends at home: the `enter` has no `leave` after it. The far-off wifi fix ends the stays pass's stay
    /// (450 m is more than a stay's excursion), and the region's presence, open at its end, stretched only the first
    /// of the two stays: an evening at home was two visits and a one-second trip to the wifi fix. The fixes between
    /// the two stays all say they are at home, so the presence joins them.
    @Test func aFarWifiFixInTheRegionDoesNotSplitAnOpenStay() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        let enter = b.t
        homeFixes(&b, hours: 4, offAfter: 2)
        let store = try storeWith([("phone", b.points)])
        try region(store)
        try transition(store, "enter", at: enter, home.lat, home.lon)
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM visits") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    /// `Store.regionFixes` reads the same names, in the same order, as a `json_each` of every fix's `inregions` array
    /// (the read before it was made cheaper): plain names (read without `json_each`), escapes, non-ASCII, names with
    /// commas and brackets, elements that are not strings, white space, an empty array, a string that looks like an
    /// array, an object, a nested `inregions`, a repeated key, `extra` that is not JSON, no `inregions` at all; two
    /// fixes in a row naming the same regions (read once).
    @Test func regionFixesReadWhatJsonEachReads() throws {
        let extras: [String?] = [
            #"{"m":2,"inregions":["Home"],"tid":"P1"}"#, #"{"inregions":["Home","Work"]}"#, #"{"inregions":[]}"#,
            #"{"inregions":["Caf\u00e9"]}"#, #"{"tid":"P1","inregions":["Caf\u00e9"]}"#, #"{"inregions":["A\"B","x"]}"#, #"{"inregions":["back\\slash"]}"#, #"{"inregions":["Café ☕","x"]}"#, #"{"inregions":["a,b]","[c"]}"#,
            #"{"inregions":["Home",1,null,true,{"a":"b"},["x"],"Work"]}"#, #"{"inregions":[ "home" , "work" ]}"#,
            #"{"inregions":"Home"}"#, #"{"inregions":"[\"Home\"]"}"#, #"{"inregions":{"0":"Home"}}"#, #"{"x":{"inregions":["No"]}}"#,
            #"{"inregions":["A"],"inregions":["B"]}"#, #"{"inregions":[""]}"#, #"{"inregions":[1,2]}"#, "not JSON { inregions",
            #"{"note":"inregions"}"#, #"{"inregions":null}"#, nil,
        ]
        let points = extras.enumerated().map { k, extra in
            Point(deviceID: 0, timeMs: t0 + Int64(k) * 60_000, lat: home.lat, lon: home.lon, accuracyM: 10, extra: extra)
        }
        let store = try storeWith([("phone", points)])
        let got = try store.regionFixes(device: 1, fromMs: t0, untilMs: t0 + Int64(extras.count) * 60_000)
        let keys = PointKey.range(device: 1, fromMs: t0, untilMs: t0 + Int64(extras.count) * 60_000)
        let q = try store.db.prepare(
            """
            WITH f AS (SELECT key, json_extract(cold, '$.extra') AS extra FROM points_hot
                       WHERE key BETWEEN ? AND ? AND cold GLOB '*inregions*')
            SELECT f.key, r.value FROM f,
              json_each(CASE WHEN json_valid(f.extra) THEN
                          CASE WHEN json_type(f.extra, '$.inregions') = 'array' THEN json_extract(f.extra, '$.inregions') END END) r
            WHERE r.type = 'text'
            ORDER BY f.key, r.id
            """)
        try q.bind([.integer(keys.lower), .integer(keys.upper)])
        var expected: [RegionFix] = []
        while try q.step() {
            let time = PointKey.time(q.int64(0)), name = q.text(1) ?? ""
            if expected.last?.timeMs == time { expected[expected.count - 1].regions.append(name) } else { expected.append(RegionFix(timeMs: time, regions: [name])) }
        }
        #expect(got == expected)
        #expect(got.map(\.regions) == [["Home"], ["Home", "Work"], ["Café"], ["Café"], ["A\"B", "x"], ["back\\slash"], ["Café ☕", "x"], ["a,b]", "[c"],
                                        ["Home", "Work"], ["home", "work"], ["A"], [""]])
    }
}
