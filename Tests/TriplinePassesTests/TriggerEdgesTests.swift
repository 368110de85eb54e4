import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// Sparse phones (issue 23, item 4): what the triggers of an OwnTracks phone in significant-changes mode say about the
/// edges of a trip it saw with two or three fixes (`EvidencePass.triggerEdges`). Still, the mode publishes only with
/// the still timer (25–75 min after the last fix); moving, once the phone is 400–1200 m from the last fix or by the
/// time trigger 4–10 min after the person set off. Hand-built tracks: fixes as the mode publishes them (`m:1`, no `t`).
@Suite struct TriggerEdgesTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    func event(_ store: Store, _ kind: String, at ms: Int64, lat: Double, lon: Double, raw: String) throws {
        try store.db.run(
            "INSERT INTO app_events(device_id, import_id, kind, time_ms, lat, lon, raw) VALUES (1, 1, ?, ?, ?, ?, ?)",
            [.text(kind), .integer(ms), .real(lat), .real(lon), .text(raw)])
    }

    /// An automatic significant-changes update (`m:1`, no `t`): a wifi fix without speed, or a GPS fix with one.
    func fix(_ b: inout TrackBuilder, speed: Double? = nil) {
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: speed, accuracyM: speed == nil ? 65 : 8,
                              extra: #"{"m":1}"#))
    }

    /// Walks `metres` east in `seconds`, then publishes a GPS fix with `speed` (the time trigger's or the distance
    /// trigger's); returns its time.
    @discardableResult
    func walk(_ b: inout TrackBuilder, _ seconds: Int, _ metres: Double, speed: Double = 1.4) -> Int64 {
        b.gap(seconds, moving: metres, bearing: 90)
        fix(&b, speed: speed)
        return b.t
    }

    /// Two hours at home seen by the still timer (a fix every 40 min), then 20 min of silence before the departure.
    func leavingHome() -> TrackBuilder {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 2400, drift: 10...30)
        b.gap(1200)
        return b
    }

    /// The last 280 m of a walk unseen, then three hours at its end seen by the still timer, half an hour on.
    func arriving(_ b: inout TrackBuilder) {
        b.gap(200, moving: 280, bearing: 90)
        b.gap(1800)
        b.still(10800, every: 2400, drift: 10...30)
    }

    /// Every fix of the track as the mode publishes it (the still timer's fixes too).
    func significant(_ points: [Point]) -> [Point] {
        points.map { var p = $0; p.extra = p.extra ?? #"{"m":1}"#; return p }
    }

    /// A walk of 11 minutes to a shop 1 km from home, seen by two fixes: the one published with the `Home` region's
    /// `leave` (`t:"c"`, 341 m out: 241 m beyond the boundary in the exit's 90-second lag, 2.7 m/s) and a wifi fix
    /// 232 m further 4.5 minutes later (the time trigger: nearer than the distance trigger), then nothing until the
    /// still timer at the shop half an hour after the arrival. The wifi fix is the last before a silence: a lone-fix
    /// stay, which the trip reached at the `leave`'s pace 86 s after the exit, three minutes before the fix. But the
    /// fix came 4.5 minutes after the one before it, so the phone published it while the person moved: the stay
    /// starts at it.
    @Test func aLoneFixAMovingPhonePublishedIsNoArrival() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 2400, drift: 10...30)  // fixes at 0, 40, 80 min
        b.gap(1200)  // the last home fix an hour before the departure
        b.gap(216, moving: 341, bearing: 90)
        let leave = b.t, leaveAt = (lat: b.lat, lon: b.lon)
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, accuracyM: 40, trigger: "c", extra: #"{"m":1}"#))
        b.gap(270, moving: 232, bearing: 90)
        let second = b.t
        fix(&b)
        b.gap(192, moving: 415, bearing: 90)  // arrival at the shop, 988 m out
        b.gap(1800)
        b.still(10800, every: 2400, drift: 10...30)
        for on in [1, 0] {
            let store = try storeWith([("phone", significant(b.points))])
            try event(store, "waypoint", at: t0 - 60_000, lat: home.lat, lon: home.lon,
                      raw: #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":100}"#)
            try event(store, "transition", at: leave, lat: leaveAt.lat, lon: leaveAt.lon,
                      raw: #"{"_type":"transition","desc":"Home","event":"leave","t":"c"}"#)
            try rebuild(store, sets: ["evidence.trigger_edges=\(on)"])
            let end = Int64(try double(store, "SELECT end_ms FROM trips ORDER BY start_ms LIMIT 1"))
            #expect((end >= second) == (on == 1), "trigger_edges=\(on): the walk ends \(end - second) ms after its last fix")
            #expect(try count(store, "SELECT count(*) FROM stays WHERE points = 1 AND start_ms = \(second)") == on)
        }
    }

    /// A walk from home whose first fix is a GPS fix 300 m out six minutes after the departure: nearer than the
    /// distance trigger's 400 m to the last home fix (the still timer's, an hour earlier), so the time trigger
    /// published it, at least four minutes after the person set off. The trip's pace (the next fix 600 m further five
    /// minutes later: 2 m/s) put the departure only 150 s before it.
    @Test func aDepartureTheTimeTriggerSawIsMinutesBeforeItsFix() throws {
        var b = leavingHome()
        let departure = b.t
        let first = walk(&b, 360, 300)
        walk(&b, 300, 600, speed: 1.6)
        arriving(&b)
        for on in [1, 0] {
            let store = try storeWith([("phone", significant(b.points))])
            try rebuild(store, sets: ["evidence.trigger_edges=\(on)"])
            let start = Int64(try double(store, "SELECT start_ms FROM trips ORDER BY start_ms LIMIT 1"))
            #expect((start <= first - 240_000) == (on == 1), "trigger_edges=\(on): the walk starts \(first - start) ms before its first fix")
            if on == 1 { #expect(abs(start - departure) <= 150_000) }
        }
    }

    /// An errand on the way that no fix saw: a walk from home to a café 2.2 km off, with a quarter of an hour at a shop
    /// half way. The time trigger published the walk every five minutes; the last fix before the shop came 3 minutes
    /// before it, the next 5 minutes after leaving it: a silence of 23 minutes between two automatic updates of one
    /// trip, which a moving phone never leaves (at most `still_gap_s`, 10 min). The shop is a stay without fixes at
    /// the fix before the silence, the walk two trips. In move mode (`m:2`) the phone publishes by its own interval,
    /// which tells nothing of this: one trip, as before.
    @Test func aSilenceTheTimeTriggerNeverLeavesHoldsAStop() throws {
        for mode in [1, 2] {
            var b = leavingHome()
            walk(&b, 300, 420)
            let before = walk(&b, 300, 420)
            b.gap(180, moving: 250, bearing: 90)
            let arrival = b.t
            b.gap(900)
            let departure = b.t
            let after = walk(&b, 300, 420)
            walk(&b, 300, 420)
            arriving(&b)
            let points = significant(b.points).map { var p = $0; if mode == 2 { p.extra = #"{"m":2}"# }; return p }
            for on in [1, 0] {
                let store = try storeWith([("phone", points)])
                try rebuild(store, sets: ["evidence.way_stops=\(on)"])
                let proven = on == 1 && mode == 1
                let shop = "FROM stays WHERE points = 0 AND start_ms > \(before) AND end_ms < \(after)"
                #expect(try count(store, "SELECT count(*) \(shop)") == (proven ? 1 : 0), "m:\(mode), way_stops=\(on)")
                #expect(try count(store, "SELECT count(*) FROM trips") == (proven ? 2 : 1), "m:\(mode), way_stops=\(on)")
                if proven {
                    let start = Int64(try double(store, "SELECT start_ms \(shop)")), end = Int64(try double(store, "SELECT end_ms \(shop)"))
                    // Each way takes the time trigger's 4 minutes: the stop overlaps the true one by more than half.
                    let overlap = min(end, departure) - max(start, arrival), union = max(end, departure) - min(start, arrival)
                    #expect(overlap * 2 > union, "the stop \(start - before)…\(end - before) ms, the shop \(arrival - before)…\(departure - before)")
                }
            }
        }
    }

    /// Which fixes the phone published as automatic updates is looked up by time, fix by fix
    /// (``Store/significantChanges(device:fromMs:untilMs:)``): `m` = 1 in `extra` and no `trigger`, inside the span.
    @Test func theLookUpFindsTheAutomaticUpdatesOfTheSpan() throws {
        let extras: [(String?, String?)] = [
            (#"{"m":1}"#, nil),  // 0: an automatic update
            (#"{"m":1}"#, "c"),  // 1: published with a region event
            (#"{"m":2}"#, nil),  // 2: move mode
            (nil, nil),  // 3: nothing in extra
            (#"{"mode":"m"}"#, nil),  // 4: names "m" but not as a key
            (#"{"tid":"x","m":1,"inregions":["Home"]}"#, nil),  // 5: an automatic update inside a region
            (#"{"m":1}"#, nil),  // 6: an automatic update, after the span
        ]
        let points = extras.enumerated().map { k, e in
            Point(deviceID: 0, timeMs: t0 + Int64(k) * 60_000, lat: home.lat, lon: home.lon, accuracyM: 10, trigger: e.1, extra: e.0)
        }
        let store = try storeWith([("phone", points)])
        let lookup = try store.significantChanges(device: 1, fromMs: t0, untilMs: t0 + 6 * 60_000)
        let found = (0...7).filter { lookup.contains(timeMs: t0 + Int64($0) * 60_000) }
        #expect(found == [0, 5])
        #expect(!lookup.contains(timeMs: t0 + 30_000))  // no fix then
        #expect(try !store.significantChanges(device: 2, fromMs: t0, untilMs: t0 + 6 * 60_000).contains(timeMs: t0))  // another device
        #expect(lookup.error == nil)
    }

    /// The rule asks about the fixes it weighs (the first kept fix after a stay, the fix of a one-fix stay), never about
    /// every fix: reading every fix's record to find the automatic updates cost 9–14 % of a rebuild, which a dense
    /// phone with no `m` at all paid for nothing (docs/PERFORMANCE.md).
    @Test func theRuleAsksOnlyAboutTheFixesItWeighs() {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 10)
        b.move(1500, bearing: 90, speed: 1.4)
        b.still(3600, every: 10)
        b.gap(3600, moving: 150, bearing: 0)  // the first fix of the walk an hour after the last one, 150 m off
        b.move(800, bearing: 0, speed: 1.4)
        b.still(3600, every: 10)
        let w = EarlyPassesWork.of(b.points)
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(stays.count == 3)
        var asked = Set<Int64>()
        let input = EvidencePass.Input(stays: stays, significantChange: { asked.insert($0); return true })
        _ = EvidencePass.amendStays(w, input, EvidencePass.Parameters())
        #expect(asked.count >= 1 && asked.count <= 2 * stays.count, "asked about \(asked.count) of \(w.count) fixes")
    }
}
