import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineStore

/// The paths pass as a function (issue 24): ``PathsPass/measure`` estimates each trip's path from its fixes and the
/// history of its two places, with no database.
@Suite struct PathsFunctionTests {
    let t0: Int64 = 1_717_228_800_000  // 2024-06-01T08:00:00Z

    /// A dense ride east (fixes every 5 s, 3 km) from place 1 to place 2, and a sparse ride back west (a fix every
    /// 2 min, 600 m apart) from place 2 to place 1.
    func rides() -> (DeviceWork, [TripEnds]) {
        var track = FixTrack()
        track.east(from: t0, fromLon: 0, mps: 5, seconds: 600, everyS: 5)
        let end = track.lon.last!
        let back = t0 + 3_600_000
        for k in 0...5 { track.add(back + Int64(k) * 120_000, 0, end - Double(k) * 600 / FixTrack.metresPerDegree) }
        let w = track.work
        let there = TripEnds(id: 1, startMs: t0, endMs: t0 + 600_000, lineDistanceM: 3000, fromLat: 0, fromLon: 0, toLat: 0, toLon: end,
                             fromPlaceID: 1, toPlaceID: 2, hasFromVisit: false, hasToVisit: false)
        let home = TripEnds(id: 2, startMs: back, endMs: back + 600_000, lineDistanceM: 2990, fromLat: 0, fromLon: end, toLat: 0,
                            toLon: end - 3000 / FixTrack.metresPerDegree, fromPlaceID: 2, toPlaceID: 1, hasFromVisit: false, hasToVisit: false)
        return (w, [there, home])
    }

    @Test func denseIsTrackSparseTakesTheHistoryOfItsPlaces() throws {
        let (w, trips) = rides()
        var asked: [(Int64, Int64)] = []
        let out = PathsPass.measure(w, trips, storedHistory: { asked.append(($0, $1)); return [] }, PathsPass.Parameters(), MetricsPass.Parameters())
        try #require(out.count == 2)
        #expect(out[0].id == 1 && out[0].distanceM == 3000 && out[0].lineDistanceM == 3000 && out[0].method == "track")
        // The ride back is sparse: the ride there, measured in this run between the same two places, is its history.
        #expect(out[1].id == 2 && out[1].distanceM == 3000 && out[1].lineDistanceM == 2990 && out[1].method == "history")
        // A history distance has no place: its pieces are the straight lines alone.
        #expect(out[1].pieces.allSatisfy { $0.kind != .extra })
        #expect(asked.count == 1 && asked[0] == (2, 1))
    }

    /// The stored history (trips before the span) joins what this run measured, latest first; the median wins.
    @Test func storedHistoryJoinsTheMeasured() throws {
        let (w, trips) = rides()
        let out = PathsPass.measure(w, trips, storedHistory: { _, _ in [4000, 4100] }, PathsPass.Parameters(), MetricsPass.Parameters())
        #expect(out.map(\.method) == ["track", "history"])
        #expect(out[1].distanceM == 4000)  // the median of 3000, 4000, 4100
        // A history shorter than 0.95 × the straight lines is another route: circuity (5 chords of 600 m, × 1.09).
        let only = PathsPass.measure(w, [trips[1]], storedHistory: { _, _ in [2000] }, PathsPass.Parameters(), MetricsPass.Parameters())
        #expect(only[0].method == "circuity")
        #expect(only[0].distanceM > 2990 * 1.05 && only[0].distanceM < 2990 * 1.12)
    }

    /// An earlier trip between the same places that this one could not have driven (the tenth hostile round: a 10-km
    /// drive seen every 500 m at 50 km/h took the 29.9 km of a scenic detour, 150 km/h on average): longer than
    /// `history_max_pace` × the highest speed the trip's fixes show × its time, it took another route and is no
    /// history; the others still are. Both ways of measuring (this run, and `firstStale` on the stored trips) agree.
    @Test func aHistoryTheTripCouldNotHaveDrivenIsAnotherRoute() throws {
        let (w, trips) = rides()
        var back = trips[1]
        back.maxSpeedMps = 5  // 600 s at 5 m/s: at most 3 km, × 1.5 = 4.5 km
        let p = PathsPass.Parameters()
        let out = PathsPass.measure(w, [trips[0], back], storedHistory: { _, _ in [9000, 9100] }, p, MetricsPass.Parameters())
        #expect(out.map(\.method) == ["track", "history"])
        #expect(out[1].distanceM == 3000)  // the ride there; the stored 9-km detours could not have been driven
        let detours = PathsPass.measure(w, [back], storedHistory: { _, _ in [9000, 9100] }, p, MetricsPass.Parameters())
        #expect(detours[0].method == "circuity")
        var off = p
        off.historyMaxPace = 0
        #expect(PathsPass.measure(w, [back], storedHistory: { _, _ in [9000, 9100] }, off, MetricsPass.Parameters())[0].distanceM == 9100)
        // The stored trips say the same: the ride back measured by history from the ride there stands; stored as the
        // detour's history, it is stale.
        let there = MeasuredTrip(startMs: trips[0].startMs, method: "track", distanceM: 9000, lineDistanceM: 9000, fromPlaceID: 1, toPlaceID: 2,
                                 endMs: trips[0].endMs, maxSpeedMps: 15)
        let stored = MeasuredTrip(startMs: back.startMs, method: "circuity", distanceM: detours[0].distanceM, lineDistanceM: 2990,
                                  fromPlaceID: 2, toPlaceID: 1, endMs: back.endMs, maxSpeedMps: 5)
        #expect(PathsPass.firstStale([there, stored], p) == nil)
        #expect(PathsPass.firstStale([there, stored], off) == back.startMs)
    }

    /// A stored measure is stale once the places stand otherwise (``PathsPass/firstStale(_:_:)``): the ride back took
    /// the ride there as its history; moved to another place, the ride there is no longer its history, and a ride back
    /// measured by circuity while the ride there was elsewhere has a history once it is not.
    @Test func aMeasureThePlacesNowGiveOtherwiseIsStale() throws {
        let (w, trips) = rides()
        let p = PathsPass.Parameters()
        func stored(_ out: [PathsPass.Measured], there: (Int64, Int64)) -> [MeasuredTrip] {
            zip(trips, out).enumerated().map { k, pair in
                MeasuredTrip(startMs: pair.0.startMs, method: pair.1.method, distanceM: pair.1.distanceM, lineDistanceM: pair.1.lineDistanceM,
                             fromPlaceID: k == 0 ? there.0 : pair.0.fromPlaceID, toPlaceID: k == 0 ? there.1 : pair.0.toPlaceID)
            }
        }
        let out = PathsPass.measure(w, trips, storedHistory: { _, _ in [] }, p, MetricsPass.Parameters())
        try #require(out.map(\.method) == ["track", "history"])
        #expect(PathsPass.firstStale(stored(out, there: (1, 2)), p) == nil, "as measured")
        #expect(PathsPass.firstStale(stored(out, there: (1, 3)), p) == trips[1].startMs, "the history is gone")
        var elsewhere = trips
        elsewhere[0].toPlaceID = 3
        let apart = PathsPass.measure(w, elsewhere, storedHistory: { _, _ in [] }, p, MetricsPass.Parameters())
        try #require(apart.map(\.method) == ["track", "circuity"])
        #expect(PathsPass.firstStale(stored(apart, there: (1, 3)), p) == nil, "as measured")
        #expect(PathsPass.firstStale(stored(apart, there: (1, 2)), p) == trips[1].startMs, "a history now")
    }

    /// A trip without places (or between one place and itself) is measured by circuity alone.
    @Test func withoutPlacesCircuity() {
        let (w, trips) = rides()
        var home = trips[1]
        home.toPlaceID = nil
        let out = PathsPass.measure(w, [home], storedHistory: { _, _ in Issue.record("no history without places"); return [] },
                                    PathsPass.Parameters(), MetricsPass.Parameters())
        #expect(out[0].method == "circuity" && out[0].distanceM > home.lineDistanceM)
    }

    /// The trips the trips pass left in memory, read as the table would give them: those of the span, by start, with
    /// their stays' centres and their visits' places (a visit without a place has none).
    @Test func inMemoryTripsAsTheTableReadsThem() {
        let a = StayRecord(first: 0, last: 0, startMs: 0, endMs: 100, lat: 1, lon: 2, radiusM: 10, points: 1, gapS: 0, id: 11, placeID: 5)
        let b = StayRecord(first: 1, last: 1, startMs: 500, endMs: 600, lat: 3, lon: 4, radiusM: 10, points: 1, gapS: 0, id: 12, placeID: 6)
        var late = TripRecord(first: 0, last: 1, startMs: 100, endMs: 500, fromStay: 0, toStay: 1)
        late.id = 2
        late.distanceM = 1234
        var early = TripRecord(first: 0, last: 0, startMs: 50, endMs: 90, fromStay: nil, toStay: nil)
        early.id = 1
        var before = early
        before.startMs = 10
        let ends = PathsPass.ends([late, before, early], stays: [a, b], places: [11: 5], from: 50, to: 1000)
        #expect(ends.map(\.ends.id) == [1, 2] && ends.map(\.index) == [2, 0])
        #expect(ends[0].ends == TripEnds(id: 1, startMs: 50, endMs: 90, lineDistanceM: 0, fromLat: nil, fromLon: nil, toLat: nil, toLon: nil,
                                    fromPlaceID: nil, toPlaceID: nil, hasFromVisit: false, hasToVisit: false))
        #expect(ends[1].ends == TripEnds(id: 2, startMs: 100, endMs: 500, lineDistanceM: 1234, fromLat: 1, fromLon: 2, toLat: 3, toLon: 4,
                                    fromPlaceID: 5, toPlaceID: nil, hasFromVisit: true, hasToVisit: true))
        #expect(PathsPass.ends([late], stays: [a, b], places: [:], from: 0, to: 100).isEmpty)  // starts at the span's end
    }

    /// One distance: the measured distance goes to the trip's row (with its speeds) and its legs add up to it, each
    /// its share of the legs' straight lines, by duration when they have none, else all on the first leg.
    @Test func measuredDistanceReachesTheRowAndItsLegs() {
        var trip = TripRow(
            id: 1, deviceID: 1, startMs: 0, endMs: 600_000, startUTCOffset: 0, endUTCOffset: 0, durationS: 600, movingS: 500, distanceM: 1000,
            avgSpeedMps: 2, maxSpeedMps: 2.5, mode: "walk", legs: 2, fromVisitID: nil, toVisitID: nil, fromPlaceID: nil, toPlaceID: nil, startLat: 0,
            startLon: 0, endLat: 0, endLon: 0, points: 10, gaps: 0)
        func leg(_ n: Int, _ metres: Double, _ seconds: Double) -> LegRow {
            LegRow(tripID: 1, leg: n, deviceID: 1, mode: "walk", modeSource: "speed", startMs: 0, endMs: 0, distanceM: metres, durationS: seconds, points: 2)
        }
        let measured = PathsPass.Measured(id: 1, distanceM: 1500, lineDistanceM: 1000, method: "circuity")
        var legs = [leg(0, 250, 100), leg(1, 750, 500)]
        PathsPass.apply(measured, to: &trip, legs: &legs)
        #expect(trip.distanceM == 1500 && trip.lineDistanceM == 1000 && trip.distanceMethod == "circuity")
        #expect(trip.avgSpeedMps == 3)
        #expect(legs.map(\.distanceM) == [375, 1125])
        #expect(trip.maxSpeedMps == 3.75)  // the maximum is never below the trip's average, nor a leg's (375 m in 100 s)
        var again = legs
        PathsPass.apply(measured, to: &trip, legs: &again)
        #expect(again == legs)  // applied again it changes nothing
        var silent = [leg(0, 0, 100), leg(1, 0, 300)]
        PathsPass.apply(measured, to: &trip, legs: &silent)
        #expect(silent.map(\.distanceM) == [375, 1125])  // by duration
        var instant = [leg(0, 0, 0), leg(1, 0, 0)]
        PathsPass.apply(measured, to: &trip, legs: &instant)
        #expect(instant.map(\.distanceM) == [1500, 0])
        var still = trip
        still.movingS = 0
        PathsPass.apply(measured, to: &still, legs: &instant)
        #expect(still.avgSpeedMps == nil && still.maxSpeedMps == 3.75)
    }

    /// A leg of trip 1 for ``PathsPass/apply(_:to:legs:)``.
    func leg(_ n: Int, _ startMs: Int64, _ endMs: Int64, _ metres: Double, mode: String = "walk") -> LegRow {
        LegRow(tripID: 1, leg: n, deviceID: 1, mode: mode, modeSource: "speed", startMs: startMs, endMs: endMs, distanceM: metres,
               durationS: Double(endMs - startMs) / 1000, points: 2)
    }

    func row(_ startMs: Int64, _ endMs: Int64, line: Double, max: Double) -> TripRow {
        TripRow(
            id: 1, deviceID: 1, startMs: startMs, endMs: endMs, startUTCOffset: 0, endUTCOffset: 0, durationS: Double(endMs - startMs) / 1000,
            movingS: Double(endMs - startMs) / 1000, distanceM: line, avgSpeedMps: 1, maxSpeedMps: max, mode: "car", legs: 2, fromVisitID: nil,
            toVisitID: nil, fromPlaceID: nil, toPlaceID: nil, startLat: 0, startLon: 0, endLat: 0, endLon: 0, points: 10, gaps: 0)
    }

    /// A trip that left its place 20 km before its first fix (a connector, 20 min of silence): the connector and its
    /// circuity are the first leg's, not shared with a walk at the end by the legs' straight lines (GeoLife 112: an
    /// 1,180-km connector spread over three legs put the first at 32.3 m/s in a trip whose maximum was 30.6); the
    /// trip's maximum is raised to the first leg's average.
    @Test func aConnectorIsTheFirstLegs() throws {
        let m = FixTrack.metresPerDegree
        var track = FixTrack()
        let first = t0 + 1_200_000
        for k in 0...4 { track.add(first + Int64(k) * 120_000, 0, (20_000 + 600 * Double(k)) / m) }  // leg 0: 600-m chords
        let walk = first + 600_000
        for k in 0...5 { track.add(walk + Int64(k) * 120_000, 0, (22_500 + 100 * Double(k)) / m) }  // leg 1: 100-m steps
        let end = walk + 600_001  // the trip ends a millisecond after its last fix (``TripsPass/holdFixes``)
        let trip = TripEnds(id: 1, startMs: t0, endMs: end, lineDistanceM: 3000, fromLat: 0, fromLon: 0, toLat: 0, toLon: 23_000 / m,
                            fromPlaceID: nil, toPlaceID: nil, hasFromVisit: true, hasToVisit: true)
        let out = PathsPass.measure(track.work, [trip], storedHistory: { _, _ in [] }, PathsPass.Parameters(), MetricsPass.Parameters())
        try #require(out.count == 1 && out[0].method == "circuity")
        // 3,000 m of straight lines, four 600-m chords × 1.09, the 20-km connector × 1.12.
        #expect(abs(out[0].distanceM - (3000 + 4 * 54 + 22_400)) < 1)
        var row = row(t0, end, line: 3000, max: 10)
        var legs = [leg(0, t0, walk, 2500, mode: "car"), leg(1, walk, end, 500)]
        PathsPass.apply(out[0], to: &row, legs: &legs)
        #expect(abs(legs[1].distanceM - 500) < 0.5)  // the walk keeps its own way (proportionally: 4,269 m)
        #expect(abs(legs[0].distanceM - (2500 + 216 + 22_400)) < 0.5)
        #expect(abs(legs[0].distanceM + legs[1].distanceM - out[0].distanceM) < 1e-9)
        #expect(row.maxSpeedMps == legs[0].distanceM / legs[0].durationS)  // 13.95 m/s, above the fixes' 10
        var again = legs
        PathsPass.apply(out[0], to: &row, legs: &again)
        #expect(again == legs)
    }

    /// A trip of three legs whose middle one alone has long chords: the circuity of those chords is that leg's; the
    /// walks before and after keep their straight lines.
    @Test func aSegmentsExtraIsItsLegs() throws {
        let m = FixTrack.metresPerDegree
        var track = FixTrack()
        for k in 0...5 { track.add(t0 + Int64(k) * 60_000, 0, 100 * Double(k) / m) }  // leg 0: walk to 500 m
        let ride = t0 + 360_000
        for k in 0...4 { track.add(ride + Int64(k) * 60_000, 0, (600 + 600 * Double(k)) / m) }  // leg 1: 600-m chords
        let walk = ride + 300_000
        for k in 0...5 { track.add(walk + Int64(k) * 60_000, 0, (3100 + 100 * Double(k)) / m) }  // leg 2: walk to 3,600 m
        let end = walk + 300_000
        let trip = TripEnds(id: 1, startMs: t0, endMs: end, lineDistanceM: 3600, fromLat: 0, fromLon: 0, toLat: 0, toLon: 3600 / m,
                            fromPlaceID: nil, toPlaceID: nil, hasFromVisit: false, hasToVisit: false)
        let out = PathsPass.measure(track.work, [trip], storedHistory: { _, _ in [] }, PathsPass.Parameters(), MetricsPass.Parameters())
        try #require(out.count == 1 && out[0].method == "circuity")
        #expect(abs(out[0].distanceM - (3600 + 4 * 54)) < 0.5)
        var row = row(t0, end, line: 3600, max: 10)
        var legs = [leg(0, t0, ride, 600), leg(1, ride, walk, 2500, mode: "car"), leg(2, walk, end, 500)]
        PathsPass.apply(out[0], to: &row, legs: &legs)
        #expect(abs(legs[0].distanceM - 600) < 0.5 && abs(legs[2].distanceM - 500) < 0.5)  // proportionally 636 and 530
        #expect(abs(legs[1].distanceM - 2716) < 0.5)
        #expect(abs(legs.reduce(0) { $0 + $1.distanceM } - out[0].distanceM) < 1e-9)
        // A history distance (no place) is shared by the straight lines.
        var history = out[0]
        history.method = "history"
        history.distanceM = 7200
        history.pieces.removeAll { $0.kind == .extra }
        var shared = [leg(0, t0, ride, 600), leg(1, ride, walk, 2500, mode: "car"), leg(2, walk, end, 500)]
        PathsPass.apply(history, to: &row, legs: &shared)
        #expect(abs(shared[0].distanceM - 1200) < 1 && abs(shared[1].distanceM - 5000) < 1 && abs(shared[2].distanceM - 1000) < 1)
    }
}
