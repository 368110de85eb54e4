import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// The evidence pass as a function (``EvidencePass/amendStays(_:_:_:)``): the stays pass's stays amended by the app's
/// records, given as rows, with no database.
@Suite struct EvidenceFunctionTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)
    let hour: Int64 = 3_600_000

    /// Two hours at home (a fix every 5 min), two hours without a fix, two more at home; and the one stay the stays
    /// pass makes of them (a silence with the same place on both sides stays inside a stay).
    func homeDay() -> (DeviceWork, [StayRecord]) {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 300)
        b.gap(7200)
        b.still(7200, every: 300)
        let w = EarlyPassesWork.of(b.points)
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        return (w, stays)
    }

    /// OwnTracks: the `Home` region (a `waypoint`), left at 2 h and entered again at 4 h.
    func regionEvents() -> [EvidenceEvent] {
        [
            EvidenceEvent(kind: "waypoint", timeMs: t0 - 86_400_000, lat: home.lat, lon: home.lon, desc: "Home", radiusM: 100),
            EvidenceEvent(kind: "transition", timeMs: t0 + 2 * hour, lat: home.lat, lon: home.lon, desc: "Home", event: "leave"),
            EvidenceEvent(kind: "transition", timeMs: t0 + 4 * hour, lat: home.lat, lon: home.lon, desc: "Home", event: "enter"),
        ]
    }

    @Test func withoutRecordsTheStaysAreKept() {
        let (w, stays) = homeDay()
        #expect(stays.count == 1)
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays), EvidencePass.Parameters())
        #expect(out.stays == stays)
        #expect(out.presences == 0)
    }

    /// A stay across a region's `leave` → `enter` is two stays: the first ends `leave_lag_s` before the leave, the
    /// second starts at the enter (`enter_lag_s` = 0); each counts its own fixes.
    @Test func aRegionAbsenceSplitsTheStay() {
        let (w, stays) = homeDay()
        let p = EvidencePass.Parameters()
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: regionEvents()), p)
        #expect(out.presences == 2)  // at home until the leave, and from the enter on
        #expect(out.stays.count == 2)
        guard out.stays.count == 2 else { return }
        #expect(out.stays[0].startMs == t0 && out.stays[0].endMs == t0 + 2 * hour - Int64(p.leaveLagS * 1000))
        #expect(out.stays[1].startMs == t0 + 4 * hour && out.stays[1].endMs == stays[0].endMs)
        #expect(out.stays[0].points == 24 && out.stays[1].points == 24)
        // A `--to` rebuild that keeps what starts from 3 h on as stored leaves the second out.
        w.keepFromMs = t0 + 3 * hour
        #expect(EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: regionEvents()), p).stays.count == 1)
    }

    /// Missed transitions (algorithm version 36): the `Home` region entered at the start and left only at the end,
    /// with an hour 3 km east between (kept fixes far outside the region). The phone missed a `leave` and an `enter`:
    /// that is two presences, the `enter`'s up to the last fix at home before the trip and the `leave`'s from the first
    /// one after it, not one presence over the trip; the stay away keeps its own times.
    @Test func aFarFixBetweenAnEnterAndItsLeaveEndsThePresence() {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 300)
        let left = b.t
        b.move(3000, bearing: 90, speed: 10, every: 10)
        b.still(3600, every: 300)
        b.move(3000, bearing: 270, speed: 10, every: 10)
        let back = b.t
        b.still(7200, every: 300)
        let w = EarlyPassesWork.of(b.points)
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(stays.count == 3)
        let events = [
            EvidenceEvent(kind: "waypoint", timeMs: t0 - 86_400_000, lat: home.lat, lon: home.lon, desc: "Home", radiusM: 100),
            EvidenceEvent(kind: "transition", timeMs: t0, lat: home.lat, lon: home.lon, desc: "Home", event: "enter"),
            EvidenceEvent(kind: "transition", timeMs: b.t, lat: home.lat, lon: home.lon, desc: "Home", event: "leave"),
        ]
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: events), EvidencePass.Parameters())
        #expect(out.presences == 2)
        #expect(out.stays.count == 3)
        guard out.stays.count == 3, stays.count == 3 else { return }
        #expect(out.stays[0].endMs <= left && out.stays[2].startMs >= back)
        #expect(out.stays[1] == stays[1])
    }

    /// An iOS visit 3 km east of home while the phone was dead (no fix from 2 h, at home, to 4 h, at work 3 km north):
    /// a stay without fixes from the visit's arrival until the first fix at work less the way there at the fix's pace
    /// (none reported: `default_speed_mps`; iOS reports departures late); the stays around it keep their fixes.
    @Test func aVisitWithoutFixesIsAStayOfItsOwn() {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(7200, every: 300)
        b.gap(7200, moving: 3000, bearing: 0)
        b.still(7200, every: 300)
        let w = EarlyPassesWork.of(b.points)
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(stays.count == 2)
        let there = Geo.destination(home.lat, home.lon, bearing: 90, distance: 3000)
        let visit = EvidenceEvent(kind: "visit", timeMs: t0 + 4 * hour, lat: there.lat, lon: there.lon,
                                     startMs: t0 + 2 * hour + 1_800_000, endMs: t0 + 3 * hour + 1_800_000)
        let p = EvidencePass.Parameters()
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: [visit]), p)
        #expect(out.presences == 1)
        #expect(out.stays.count == 3)
        guard out.stays.count == 3, stays.count == 2 else { return }
        #expect(out.stays[0] == stays[0] && out.stays[2] == stays[1])
        let unseen = out.stays[1]
        #expect(unseen.points == 0 && unseen.startMs == visit.startMs)
        #expect(Geo.distance(unseen.lat, unseen.lon, there.lat, there.lon) < 1)
        let atWork = stays[1].first
        let way = Geo.distance(there.lat, there.lon, w.lat[atWork], w.lon[atWork]) / p.defaultSpeedMps * 1000
        #expect(unseen.endMs == w.time[atWork] - Int64(way))
        // Its point indices are those of the fix before it.
        #expect(unseen.first == atWork - 1 && unseen.last == atWork - 1)
        // Without the record, the two stays are kept.
        #expect(EvidencePass.amendStays(w, EvidencePass.Input(stays: stays), p).stays == stays)
    }

    /// A lunch out (algorithm version 28, `absence_starts`): two hours at home (a fix every 5 min), the `Home` region's
    /// `leave` at 2 h with its fix 200 m east, nothing until the `enter` at 4 h, then two hours at home; with the
    /// indices of the `leave` and `enter` fixes.
    func lunchOut(enterFixEast: Double?) -> (DeviceWork, [EvidenceEvent], leave: Int, enter: Int) {
        var points: [Point] = []
        for k in 0..<24 { points.append(Point(deviceID: 0, timeMs: t0 + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        let out = Geo.destination(home.lat, home.lon, bearing: 90, distance: 200)
        points.append(Point(deviceID: 0, timeMs: t0 + 2 * hour, lat: out.lat, lon: out.lon, accuracyM: 30))
        let leave = points.count - 1
        // The fix the `enter` publishes: at home, or (`enterFixEast`) that far east, inside the 100-m region.
        let back = Geo.destination(home.lat, home.lon, bearing: 90, distance: enterFixEast ?? 0)
        points.append(Point(deviceID: 0, timeMs: t0 + 4 * hour, lat: back.lat, lon: back.lon, accuracyM: 30))
        let enter = points.count - 1
        for k in 1..<24 { points.append(Point(deviceID: 0, timeMs: t0 + 4 * hour + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        let w = EarlyPassesWork.of(points)
        let events = [
            EvidenceEvent(kind: "waypoint", timeMs: t0 - 86_400_000, lat: home.lat, lon: home.lon, desc: "Home", radiusM: 100),
            EvidenceEvent(kind: "transition", timeMs: t0 + 2 * hour, lat: out.lat, lon: out.lon, desc: "Home", event: "leave"),
            EvidenceEvent(kind: "transition", timeMs: t0 + 4 * hour, lat: back.lat, lon: back.lon, desc: "Home", event: "enter"),
        ]
        return (w, events, leave, enter)
    }

    /// The stay `s` made of fixes `first...last` of `w`, at `lat`, `lon`.
    func stay(_ w: DeviceWork, _ first: Int, _ last: Int, at lat: Double, _ lon: Double) -> StayRecord {
        StayRecord(first: first, last: last, startMs: w.time[first], endMs: w.time[last], lat: lat, lon: lon, radiusM: 20,
                   points: last - first + 1, gapS: 0)
    }

    /// A stay at the region that begins at the `leave` fix (the stays pass took it for the afternoon at home, 200 m
    /// off) and runs past the `enter` begins at the `enter`: the phone said the person was out until then. Without the
    /// rule it begins at the `leave` fix and holds the two hours out.
    @Test func aStayBeginningInsideAnAbsenceBeginsAtTheEnter() {
        let (w, events, leave, enter) = lunchOut(enterFixEast: nil)
        let stays = [stay(w, 0, leave - 1, at: home.lat, home.lon), stay(w, leave, w.count - 1, at: home.lat, home.lon)]
        var p = EvidencePass.Parameters()
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: events), p).stays
        let atHome = out.filter { Geo.distance($0.lat, $0.lon, home.lat, home.lon) <= 100 }
        #expect(!atHome.contains { $0.startMs < t0 + 3 * hour && $0.endMs > t0 + 3 * hour })
        #expect(atHome.last?.startMs == w.time[enter] && atHome.last?.endMs == w.time[w.count - 1])
        p.absenceStarts = 0
        let before = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: events), p).stays
        #expect(before.last?.startMs == w.time[leave])
    }

    /// A stay wholly between the `leave` and the `enter` (the stays pass's stay of the `leave` fix 200 m east and the
    /// `enter` fix 80 m east) joins no stay of the region's presence after the `enter`: it stays a stay of its own, out
    /// of home. Without the rule the presence joins it to the afternoon at home, which then begins at the `leave` fix.
    @Test func aStayInsideAnAbsenceJoinsNoPresenceOfTheRegion() {
        let (w, events, leave, enter) = lunchOut(enterFixEast: 80)
        let mid = Geo.destination(home.lat, home.lon, bearing: 90, distance: 140)
        let stays = [stay(w, 0, leave - 1, at: home.lat, home.lon), stay(w, leave, enter, at: mid.lat, mid.lon),
                     stay(w, enter + 1, w.count - 1, at: home.lat, home.lon)]
        var p = EvidencePass.Parameters()
        let out = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: events), p).stays
        #expect(out.count == 3)
        #expect(out.contains { $0.startMs == w.time[leave] && $0.endMs == w.time[enter] && $0.points == 2 })
        #expect(out.last.map { $0.startMs > w.time[enter] && $0.endMs == w.time[w.count - 1] } == true)
        p.absenceStarts = 0
        let before = EvidencePass.amendStays(w, EvidencePass.Input(stays: stays, events: events), p).stays
        #expect(before.count == 2)
        #expect(before.last?.startMs == w.time[leave])
    }

    /// A lunch in a region's absence (algorithm version 32, `absent_pace`): two hours at home, the exit reported with
    /// a fix 150 m out (50 m beyond the 100-m edge, 59 m accuracy), a moving fix 350 m out (1.5 m/s) 143 s later, 1,720
    /// silent seconds (the walk on, the lunch, the walk back), then the `enter` fix 90 m out and two hours at home. The
    /// exit's fix lies within its own accuracy of the edge, so it tells no pace and the trips take the device's (1.4
    /// m/s): 554 s each way leave a stop of 916 s at the moving fix. Taken at its floor (0.7 m/s) each way took 804 s
    /// and left 416 s, less than `lone_stay_s`: no stop.
    @Test func aLeaveFixWithinItsAccuracyOfTheEdgeGivesTheAbsentStopNoPace() {
        var points: [Point] = []
        for k in 0..<24 { points.append(Point(deviceID: 0, timeMs: t0 + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        let depart = t0 + 2 * hour
        let out = [(161_000, 150.0, 59.0, nil), (304_000, 350, 13, 1.5), (2_024_000, 90, 18, nil)] as [(Int64, Double, Double, Double?)]
        for (at, east, accuracy, speed) in out {
            let q = Geo.destination(home.lat, home.lon, bearing: 90, distance: east)
            points.append(Point(deviceID: 0, timeMs: depart + at, lat: q.lat, lon: q.lon, speedMps: speed, accuracyM: accuracy))
        }
        let leave = 24, enter = 26
        for k in 1...24 { points.append(Point(deviceID: 0, timeMs: depart + 2_024_000 + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        let w = EarlyPassesWork.of(points)
        var before = stay(w, 0, 23, at: home.lat, home.lon)
        before.endMs = depart
        let stays = [before, stay(w, enter, w.count - 1, at: home.lat, home.lon)]
        let absence = EvidencePass.Presence(startMs: w.time[leave] - 90_000, endMs: w.time[enter], lat: home.lat, lon: home.lon,
                                            reachM: 100 + 75, region: "Home", source: "absence")
        var p = EvidencePass.Parameters()
        let stops = {
            EvidencePass.absentStops(w, stays, absences: [absence], keepFirst: 0, leaves: [leave: (home.lat, home.lon, 100)],
                                     speed: { _, _, _, _, _ in 1.4 }, p)
        }
        let on = stops()
        #expect(on.count == 3)
        if on.count == 3 {
            #expect(on[1].first == leave + 1)
            #expect(abs(on[1].startMs - (depart + 554_000)) <= 1000 && abs(on[1].endMs - (w.time[enter] - 554_000)) <= 1000)
        }
        p.absentPace = 0
        #expect(stops().count == 2)
    }

    /// A stay at a region that began at the region's `enter` (algorithm version 32, `enter_bound`): two hours at
    /// home, a walk out seen by two fixes 300 and 600 m east (5 min apart: 1 m/s), nothing for 115 min, then the `enter`
    /// fix at home and two hours there; the absence ends a minute before the `enter` fix. The sparse trip's arrival
    /// estimate (the last moving fix plus 600 m at 1 m/s, 2 h 15) lies inside the absence, so the afternoon keeps its
    /// start at the absence's end; without the rule it begins at 2 h 15, over the time the phone said the person was out.
    @Test func aSparseArrivalStopsAtTheEnterOfTheStaysRegion() {
        var points: [Point] = []
        for k in 0..<24 { points.append(Point(deviceID: 0, timeMs: t0 + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        for (k, east) in [300.0, 600].enumerated() {
            let q = Geo.destination(home.lat, home.lon, bearing: 90, distance: east)
            points.append(Point(deviceID: 0, timeMs: t0 + 2 * hour + Int64(k) * 300_000, lat: q.lat, lon: q.lon, accuracyM: 30))
        }
        let lastMoving = points.count - 1
        for k in 0..<24 { points.append(Point(deviceID: 0, timeMs: t0 + 4 * hour + Int64(k) * 300_000, lat: home.lat, lon: home.lon, speedMps: 0, accuracyM: 10)) }
        let w = EarlyPassesWork.of(points)
        let stays = [stay(w, 0, 23, at: home.lat, home.lon), stay(w, lastMoving + 1, w.count - 1, at: home.lat, home.lon)]
        let absence = EvidencePass.Presence(startMs: t0 + 2 * hour - 90_000, endMs: t0 + 4 * hour - 60_000, lat: home.lat, lon: home.lon,
                                            reachM: 100 + 75, region: "Home", source: "absence")
        var p = EvidencePass.Parameters()
        let edges = { (absences: [EvidencePass.Presence]) in
            EvidencePass.sparseTripEdges(w, stays, keepFirst: 0, absences: absences, speed: { _, _, _, _, _ in 1 }, p)
        }
        let estimate = w.time[lastMoving] + 600_000  // (to the second: 600 m at the fixes' pace)
        #expect(edges([absence])[1].startMs == absence.endMs)
        // An absence of another region (1 km off) bounds nothing; nor does the rule when it is off.
        var elsewhere = absence
        (elsewhere.lat, elsewhere.lon) = Geo.destination(home.lat, home.lon, bearing: 0, distance: 1000)
        #expect(abs(edges([elsewhere])[1].startMs - estimate) < 1000)
        p.enterBound = 0
        #expect(abs(edges([absence])[1].startMs - estimate) < 1000)
    }
}

/// The typed reads that hand the evidence pass the app's records (``Store/evidenceEvents(device:fromMs:toMs:)``) and
/// the fixes that name their regions (``Store/regionFixes(device:fromMs:untilMs:)``): the members of `raw` and `extra`
/// it uses, read by SQLite's JSON functions.
@Suite struct EvidenceReadsTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z

    func event(_ store: Store, _ kind: String, at ms: Int64, lat: Double? = nil, lon: Double? = nil, raw: String) throws {
        try store.db.run(
            "INSERT INTO app_events(device_id, import_id, kind, time_ms, lat, lon, raw) VALUES (1, 1, ?, ?, ?, ?, ?)",
            [.text(kind), .integer(ms), lat.map { .real($0) } ?? .null, lon.map { .real($0) } ?? .null, .text(raw)])
    }

    @Test func readsTheRecordsAndTheRegionsOfTheFixes() throws {
        var points: [Point] = []
        for (k, extra) in [#"{"tid":"ph","inregions":["Home","Work"]}"#, #"{"tid":"ph"}"#, nil, #"{"inregions":"Home"}"#, #"{"inregions":["Ho\"me"]}"#].enumerated() {
            var p = Point(deviceID: 0, timeMs: t0 + Int64(k) * 60_000, lat: 52.52, lon: 13.405, accuracyM: 10)
            p.extra = extra
            points.append(p)
        }
        let store = try storeWith([("phone", points)])
        try event(store, "waypoint", at: t0 - 86_400_000 * 30, lat: 52.52, lon: 13.405, raw: #"{"_type":"waypoint","desc":"Home","lat":52.52,"lon":13.405,"rad":80}"#)
        // As an OwnTracks `.rec` line stores it: time and topic before the JSON.
        try event(store, "transition", at: t0 + 120_000, lat: 52.52, lon: 13.405,
                  raw: "2024-06-01T00:02:00Z\tevent             \t" + #"{"_type":"transition","desc":"Home","event":"leave","t":"c"}"#)
        try event(store, "visit", at: t0 + 180_000, lat: 52.53, lon: 13.41, raw: "not JSON")
        try event(store, "transition", at: t0 + 86_400_000, raw: #"{"_type":"transition","desc":"Home","event":"enter"}"#)  // after the span
        let events = try store.evidenceEvents(device: 1, fromMs: t0, toMs: t0 + 3_600_000)
        #expect(events.map(\.kind) == ["waypoint", "transition", "visit"])
        #expect(events[0].desc == "Home" && events[0].radiusM == 80 && events[0].event == nil && events[0].lat == 52.52)
        #expect(events[1].desc == "Home" && events[1].event == "leave" && events[1].radiusM == nil && events[1].timeMs == t0 + 120_000)
        #expect(events[2].desc == nil && events[2].lon == 13.41 && events[2].startMs == nil)
        let fixes = try store.regionFixes(device: 1, fromMs: t0, untilMs: t0 + 3_600_000)
        #expect(fixes == [RegionFix(timeMs: t0, regions: ["Home", "Work"]), RegionFix(timeMs: t0 + 240_000, regions: [#"Ho"me"#])])
        #expect(try store.regionFixes(device: 1, fromMs: t0 + 60_000, untilMs: t0 + 240_000).isEmpty)
    }
}
