import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineStore

/// The metrics pass as functions (issue 24): ``MetricsPass/tally`` spreads trips over local days and
/// ``MetricsPass/days`` makes the day rows, with no database.
@Suite struct MetricsFunctionTests {
    let midnight: Int64 = 1_717_286_400_000  // 2024-06-02T00:00:00Z

    /// A ride east from 23:50 to 00:10 (UTC, offset 0) at 5 m/s, a fix every 10 s: 3 km before midnight, 3 km after.
    func ride() -> (DeviceWork, MetricsPass.Trip) {
        var track = FixTrack()
        track.east(from: midnight - 600_000, fromLon: 0, mps: 5, seconds: 1200, everyS: 10)
        let w = track.work
        let trip = TripRecord(first: 0, last: w.count - 1, startMs: w.time[0], endMs: w.time[w.count - 1], fromStay: nil, toStay: nil)
        // The paths pass made the ride 7 km (its estimate of the path), its one leg too.
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "cycle", modeSource: "speed", startMs: trip.startMs, endMs: trip.endMs,
                         distanceM: 7000, durationS: 1200, points: w.count)
        return (w, MetricsPass.Trip(trip: trip, legs: [leg]))
    }

    @Test func aRideAcrossMidnightSplitsAtMidnight() throws {
        let (w, trip) = ride()
        let tally = MetricsPass.tally(w, [trip], MetricsPass.Parameters())
        let first = MetricsPass.localDay(midnight - 1, 0), second = first + 1
        #expect(tally.firstDate == "" && Set(tally.offsets.keys) == [first, second])
        let line1 = try #require(tally.line[first]), line2 = try #require(tally.line[second])
        // Ten minutes at 5 m/s on each side: 60 steps of 50 m before midnight (the step that ends at 00:00:00 was
        // taken before it), 60 after.
        #expect(abs(line1 - 3000) < 5 && abs(line2 - 3000) < 5)
        // The leg's 7 km in proportion to the straight lines of each day: the days add up to the trip.
        let d1 = try #require(tally.distance[first]), d2 = try #require(tally.distance[second])
        #expect(abs(d1 + d2 - 7000) < 1e-6)
        #expect(abs(d1 - 7000 * line1 / (line1 + line2)) < 1e-6)
        // Ten minutes under way on each side of midnight (the step that ends at 00:00:00 was taken before it).
        #expect(tally.moving[first] == 600 && tally.moving[second] == 600)
        #expect(tally.trips[first] == 1 && tally.trips[second] == nil)  // counted on the day it starts
    }

    /// A drive of 31 hours without a stop (the ninth hostile round), a fix every 30 s at 10 s past each half minute:
    /// the step across each midnight is spread over the two days by its time, so no day moves longer than the 86,400
    /// s it lasts (before, the day after the first midnight counted 86,401 s), and the days add up to the drive.
    @Test func noDayMovesLongerThanItLasts() throws {
        var track = FixTrack()
        let start = midnight - 3 * 3_600_000 + 10_000
        track.east(from: start, fromLon: 0, mps: 10, seconds: 31 * 3600, everyS: 30)
        let w = track.work
        let trip = TripRecord(first: 0, last: w.count - 1, startMs: w.time[0], endMs: w.time[w.count - 1], fromStay: nil, toStay: nil)
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "car", modeSource: "speed", startMs: trip.startMs, endMs: trip.endMs,
                         distanceM: 1_116_000, durationS: 31 * 3600, points: w.count)
        let tally = MetricsPass.tally(w, [MetricsPass.Trip(trip: trip, legs: [leg])], MetricsPass.Parameters())
        let first = MetricsPass.localDay(midnight - 1, 0)
        #expect(tally.moving.keys.sorted() == [first, first + 1, first + 2])
        #expect(tally.moving[first] == 3 * 3600 - 10 && tally.moving[first + 1] == 86_400 && tally.moving[first + 2] == 4 * 3600 + 10)
        #expect(tally.moving.values.reduce(0, +) == Double(w.time[w.count - 1] - w.time[0]) / 1000)
    }

    /// A flight with the phone off (the tenth hostile round): Auckland's last fix at 20:24 +13:00, Honolulu's first at
    /// 06:04 −10:00, both on 2024-01-10. The trip has no fix before it lands; it counts on the day it left, at its
    /// start's offset. At the arrival's offset its start fell on the day before, a day without a row: the trip was
    /// counted on no day (three trips on the days, four in the table). Its 7,092 km, no fix between, are all on that
    /// date, the local clock going from Auckland's to Honolulu's (at Auckland's alone, 4,149 km fell on the next).
    /// Flown the other way, the clock runs forward 33 hours in 9.7 and the flight spreads over the two dates.
    @Test func aFlightWithThePhoneOffCountsOnTheDayItLeft() {
        var track = FixTrack()
        let departure: Int64 = 1_704_871_454_000  // 2024-01-10T07:24:14Z
        track.add(departure, -37.0, 174.78)
        track.add(departure + (9 * 60 + 40) * 60_000, 21.33, -157.92)
        let w = track.work
        (w.offset[0], w.offset[1]) = (46_800, -36_000)  // NZDT, HST
        var trip = TripRecord(first: 1, last: 1, startMs: w.time[0], endMs: w.time[1], fromStay: nil, toStay: nil)
        trip.row.startUTCOffset = UTCOffset(seconds: 46_800)
        trip.row.endUTCOffset = UTCOffset(seconds: -36_000)
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "plane", modeSource: "pace", startMs: w.time[0], endMs: w.time[1],
                         distanceM: 7_091_800, durationS: 34_800, points: 2)
        let tally = MetricsPass.tally(w, [MetricsPass.Trip(trip: trip, legs: [leg])], MetricsPass.Parameters())
        let day = MetricsPass.localDay(departure, 46_800)
        #expect(MetricsPass.dateText(day) == "2024-01-10")
        #expect(tally.trips == [day: 1])
        #expect(tally.distance == [day: 7_091_800])
        // Honolulu 06:04 −10:00 → Auckland 20:24 +13:00 the next day (16:04Z → 07:24Z + 1 day, 15 h 20 later).
        let shares = UTCOffset.dayShares(startMs: 57_840_000, endMs: 113_040_000, start: UTCOffset(seconds: -36_000), end: UTCOffset(seconds: 46_800))
        #expect(shares.map(\.day) == [0, 1])
        #expect(abs(shares.map(\.share).reduce(0, +) - 1) < 1e-12)
    }

    /// A leg no fix saw (a crossed silence) is spread by time, local midnights at its start's offset.
    @Test func aSilentLegSpreadsByTime() throws {
        var track = FixTrack()
        track.add(midnight - 3_600_000, 0, 0)
        track.add(midnight + 3_600_000, 0, 0.5)
        let w = track.work
        let trip = TripRecord(first: 0, last: 1, startMs: w.time[0], endMs: w.time[1], fromStay: nil, toStay: nil)
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "unknown", modeSource: "none", startMs: trip.startMs, endMs: trip.endMs,
                         distanceM: 60_000, durationS: 7200, points: 2)
        let tally = MetricsPass.tally(w, [MetricsPass.Trip(trip: trip, legs: [leg])], MetricsPass.Parameters())
        let first = MetricsPass.localDay(midnight - 1, 0)
        #expect(tally.distance[first] == 30_000 && tally.distance[first + 1] == 30_000)
        // No increment (one silence longer than `bridge_max_s`), but crossed (longer than `split_gap_s` inside a
        // trip): its straight line, as the trip counts it, by time too.
        let line = Geo.distance(0, 0, 0, 0.5)
        #expect(abs((tally.line[first] ?? 0) - line / 2) < 1e-6 && abs((tally.line[first + 1] ?? 0) - line / 2) < 1e-6)
    }

    /// Fixes reporting a speed of 0 (an app that writes 0 on every fix; OwnTracks' whole km/h) while their positions
    /// move 50 m every 10 s: the time between them is moving time (fifth hostile round: a 26-km drive of such fixes
    /// had 30 s of moving time and an average speed of 888 m/s). Fixes at 0 that stay within their accuracy of each
    /// other are still standing.
    @Test func aReportedSpeedOfZeroOnAMovingTrackIsMovingTime() {
        var track = FixTrack()
        track.east(from: midnight, fromLon: 0, mps: 5, seconds: 600, everyS: 10)
        let w = track.work
        for i in 0..<w.count { w.speed[i] = 0; w.accuracy[i] = 8 }
        let (_, moving, _) = MetricsPass.increments(w, Array(0..<w.count), MetricsPass.Parameters())
        #expect(moving.reduce(0, +) == Double(w.time[w.count - 1] - w.time[0]) / 1000)
        var still = FixTrack()
        for k in 0..<30 { still.add(midnight + Int64(k) * 10_000, 0, k % 2 == 0 ? 0 : 0.000_13) }  // 14.5 m apart
        let s = still.work
        for i in 0..<s.count { s.speed[i] = 0; s.accuracy[i] = 8 }
        #expect(MetricsPass.increments(s, Array(0..<s.count), MetricsPass.Parameters()).moving.allSatisfy { $0 == 0 })
    }

    /// A trip's moving time (``TripsPass/movingTime``) of the fixes of `w`, all kept, between stays at `from` and `to`.
    func tripMoving(_ trip: TripRecord, _ w: DeviceWork, from: MetricsPass.Coordinate?, to: MetricsPass.Coordinate?, unseen: Bool = false) -> Double {
        let pts = Array(trip.first...trip.last)
        let (_, moving, _) = MetricsPass.increments(w, pts, MetricsPass.Parameters())
        return TripsPass.movingTime(trip, w, pts, moving, unseen: unseen, ends: (from.map { ($0.lat, $0.lon) }, to.map { ($0.lat, $0.lon) }),
                                    TripsPass.Parameters(), MetricsPass.Parameters())
    }

    /// A silence the trip crosses (an hour without a fix, longer than `trips.split_gap_s`) is moving time of the trip,
    /// and so of its day (algorithm version 39; before, the day had the 1,200 s between fixes only).
    @Test func aCrossedSilenceIsMovingTimeOfItsDay() throws {
        var track = FixTrack()
        let ten = midnight + 10 * 3_600_000
        track.east(from: ten, fromLon: 0, mps: 5, seconds: 600, everyS: 10)
        track.east(from: ten + 4_200_000, fromLon: 0.3, mps: 5, seconds: 600, everyS: 10)
        let w = track.work
        let trip = TripRecord(first: 0, last: w.count - 1, startMs: w.time[0], endMs: w.time[w.count - 1], fromStay: nil, toStay: nil)
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "car", modeSource: "speed", startMs: trip.startMs, endMs: trip.endMs,
                         distanceM: 40_000, durationS: 4800, points: w.count)
        let tally = MetricsPass.tally(w, [MetricsPass.Trip(trip: trip, legs: [leg])], MetricsPass.Parameters())
        let day = MetricsPass.localDay(ten, 0)
        #expect(tripMoving(trip, w, from: nil, to: nil) == 4800)
        #expect(tally.moving == [day: 4800])
    }

    /// The metrics pass takes the trips pass's `split_gap_s` (a silence counts for the days as for the trip).
    @Test func theDaysTakeTheTripsSplitGap() throws {
        var settings = PassSettings()
        try settings.set("trips.split_gap_s=2400", origin: "test")
        #expect(try MetricsPass(settings: settings).splitGapS == 2400)
        #expect(try MetricsPass(settings: PassSettings()).splitGapS == TripsPass.Parameters().splitGapS)
    }

    /// A trip across midnight inside a silence: the stretch from the stay left to its first fix (2 km: it counts), the
    /// fixes, the silence, and no stretch to the stay reached (as far as the last fix): split at midnight, and the days
    /// add up to the trip. A trip no fix saw is under way all along, split at midnight too.
    @Test func aSilenceAcrossMidnightSplitsAtMidnight() throws {
        var track = FixTrack()
        let eleven = midnight - 3_600_000
        track.east(from: eleven, fromLon: 0, mps: 5, seconds: 1800, everyS: 10)
        track.east(from: midnight + 1_800_000, fromLon: 0.4, mps: 5, seconds: 1800, everyS: 10)
        let w = track.work
        var trip = TripRecord(first: 0, last: w.count - 1, startMs: eleven - 600_000, endMs: w.time[w.count - 1] + 600_000, fromStay: nil, toStay: nil)
        (trip.row.fromVisitID, trip.row.toVisitID) = (1, 2)
        let from = MetricsPass.Coordinate(0, -2000 / FixTrack.metresPerDegree), to = MetricsPass.Coordinate(0, w.lon[w.count - 1])
        let leg = LegRow(tripID: 9, leg: 0, deviceID: 1, mode: "car", modeSource: "speed", startMs: trip.startMs, endMs: trip.endMs,
                         distanceM: 50_000, durationS: 9000, points: w.count)
        let item = MetricsPass.Trip(trip: trip, legs: [leg], fromStay: from, toStay: to)
        let tally = MetricsPass.tally(w, [item], MetricsPass.Parameters())
        let first = MetricsPass.localDay(midnight - 1, 0)
        #expect(tripMoving(trip, w, from: from, to: to) == 7800)
        #expect(tally.moving == [first: 600 + 1800 + 1800, first + 1: 1800 + 1800])
        #expect(!MetricsPass.unseen(w, item))

        // Two stays' edge fixes at 23:00 and 01:00 and nothing in between: the trip ran from the one to the other.
        var edges = FixTrack()
        edges.add(eleven, 0, 0)
        edges.add(midnight + 3_600_000, 0, 0.5)
        let e = edges.work
        var unseen = TripRecord(first: 1, last: 1, startMs: eleven, endMs: midnight + 3_600_000, fromStay: nil, toStay: nil)
        (unseen.row.fromVisitID, unseen.row.toVisitID) = (1, 2)
        let silent = MetricsPass.Trip(trip: unseen, legs: [], fromStay: MetricsPass.Coordinate(0, 0), toStay: MetricsPass.Coordinate(0, 0.5))
        #expect(MetricsPass.unseen(e, silent))
        #expect(MetricsPass.tally(e, [silent], MetricsPass.Parameters()).moving == [first: 3600, first + 1: 3600])
    }

    @Test func dayRowsCountVisitsAndPlaces() throws {
        let (w, trip) = ride()
        let tally = MetricsPass.tally(w, [trip], MetricsPass.Parameters())
        let visit = VisitRow(deviceID: 1, placeID: 5, startMs: midnight + 610_000, endMs: midnight + 4_000_000, startUTCOffset: 0, endUTCOffset: 0,
                             lat: 0, lon: 0.05, radiusM: 20, points: 10)
        let rows = MetricsPass.days(w, tally, visits: [visit])
        try #require(rows.map(\.date) == ["2024-06-01", "2024-06-02"])
        #expect(rows[0].trips == 1 && rows[0].visits == 0 && rows[0].places == 0 && rows[0].utcOffset == 0)
        #expect(rows[1].trips == 0 && rows[1].visits == 1 && rows[1].places == 1)
        #expect(abs(rows[0].distanceM + rows[1].distanceM - 7000) < 1e-6 && rows[0].movingS == 600)
        #expect(rows[0].lineDistanceM == tally.line[MetricsPass.localDay(midnight - 1, 0)])
        // A stored day whose place count the visits no longer give is corrected; one that agrees is left alone.
        let changed = MetricsPass.changedPlaceCounts(w, stored: ["2024-06-01": 0, "2024-06-02": 0, "2024-06-03": 2], visits: [visit])
        #expect(changed.map(\.0) == ["2024-06-02", "2024-06-03"] && changed.map(\.1) == [1, 0])
    }
}
