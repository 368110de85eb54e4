import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineStore

/// The trips pass as a function (issue 24): ``TripsPass/assemble`` turns a day's fixes and stays into trips and the
/// rows to store them as (each record's row), with no database.
@Suite struct TripsFunctionTests {
    let t0: Int64 = 1_717_228_800_000  // 2024-06-01T08:00:00Z

    /// An hour at A, a 3-km ride east at 5 m/s (fixes every 5 s), an hour at B; the two stays as the stays pass gives them.
    func day() -> (DeviceWork, [StayRecord]) {
        var track = FixTrack()
        track.still(from: t0, count: 60, everyS: 60, at: (0, 0))
        let rideStart = t0 + 3_600_000
        track.east(from: rideStart, fromLon: 0, mps: 5, seconds: 600, everyS: 5)
        let b = (0.0, track.lon.last!)
        track.still(from: track.time.last! + 60_000, count: 60, everyS: 60, at: b)
        let w = track.work
        let arrive = lowerBound(w.time, rideStart + 601_000)
        let a = StayRecord(first: 0, last: 59, startMs: w.time[0], endMs: w.time[59], lat: 0, lon: 0, radiusM: 10, points: 60, gapS: 60, id: 101, placeID: 7)
        let s = StayRecord(first: arrive, last: w.count - 1, startMs: w.time[arrive], endMs: w.time[w.count - 1], lat: b.0, lon: b.1, radiusM: 10,
                           points: w.count - arrive, gapS: 60, id: 102, placeID: 0)
        return (w, [a, s])
    }

    @Test func oneTripBetweenTwoStaysWithItsRows() throws {
        let (w, stays) = day()
        let out = TripsPass.assemble(w, stays: stays, TripsPass.Parameters(), MetricsPass.Parameters())
        try #require(out.trips.count == 1)
        let trip = out.trips[0], row = trip.row, legs = trip.legs.map(\.row)
        // Between the two stays, over the ride.
        #expect(trip.startMs >= stays[0].endMs && trip.endMs <= stays[1].startMs)
        #expect(abs(trip.distanceM - 3000) < 150, "\(trip.distanceM)")
        // The row: its stable id, its visits and places (place 0 is none), its fixes, its speeds.
        #expect(row.id == StableID.make(.trip, deviceKey: testDeviceKey, startMs: trip.startMs) && trip.id == row.id)
        #expect(row.fromVisitID == 101 && row.toVisitID == 102 && row.fromPlaceID == 7 && row.toPlaceID == nil)
        #expect(row.startMs == trip.startMs && row.endMs == trip.endMs && row.distanceM == trip.distanceM && row.movingS == trip.movingS)
        #expect(row.points == trip.last - trip.first + 1 && row.startLon == w.lon[trip.first] && row.endLon == w.lon[trip.last])
        #expect(row.startUTCOffset == 0 && row.endUTCOffset == 0)
        #expect(row.avgSpeedMps.map { abs($0 - trip.distanceM / trip.movingS) < 1e-9 } == true)
        #expect(row.maxSpeedMps.map { $0 >= row.avgSpeedMps! } == true)
        #expect(row.legs == trip.legs.count && row.mode == trip.legs.max { $0.distanceM < $1.distanceM }!.mode)
        // One leg row per leg, numbered in order, under the trip's id.
        #expect(legs.count == trip.legs.count)
        for (n, leg) in legs.enumerated() {
            let record = trip.legs[n]
            #expect(leg.tripID == row.id && leg.leg == n && leg.mode == record.mode && leg.modeSource == record.modeSource)
            #expect(leg.startMs == record.startMs && leg.endMs == record.endMs && leg.distanceM == record.distanceM)
            #expect(leg.points == record.last - record.first + 1 && leg.durationS == Double(record.endMs - record.startMs) / 1000)
        }
    }

    /// A `--to` rebuild keeps the rows from `keepFromMs` on as stored: the function gives no trip starting there.
    @Test func keepsNoTripFromTheKeptEnd() {
        let (w, stays) = day()
        let all = TripsPass.assemble(w, stays: stays, TripsPass.Parameters(), MetricsPass.Parameters())
        #expect(all.trips.count == 1)
        w.keepFromMs = all.trips[0].startMs
        let kept = TripsPass.assemble(w, stays: stays, TripsPass.Parameters(), MetricsPass.Parameters())
        #expect(kept.trips.isEmpty)
    }

    /// A stored trip read back finds its own fixes from its times: the interior points, after the departure fix and
    /// before the arrival fix when it left and reached visits.
    @Test func storedTripFindsItsFixes() throws {
        let (w, stays) = day()
        let out = TripsPass.assemble(w, stays: stays, TripsPass.Parameters(), MetricsPass.Parameters())
        let row = try #require(out.trips.first?.row)
        let back = TripsPass.record(row, w)
        #expect(back.row == row && back.id == row.id && back.distanceM == row.distanceM && back.startMs == row.startMs)
        #expect(w.time[back.first] > row.startMs || (w.time[back.first] == row.startMs && row.fromVisitID == nil))
        #expect(w.time[back.last] < row.endMs && back.last >= back.first)
        var open = row
        open.fromVisitID = nil
        open.toVisitID = nil
        open.startMs = w.time[back.first]
        open.endMs = w.time[back.last]
        let loose = TripsPass.record(open, w)
        #expect(loose.first == back.first && loose.last == back.last)
    }

    /// A walk, 10 minutes without a fix in which the phone went 9 km (a car), then the car's 4 minutes: no leg is
    /// faster on average than the trip ever was (algorithm version 38; before, the car leg held 12.6 km in its 240 s,
    /// 52 m/s, with a maximum of 15). With `hop_split_s` off the hop is the walk leg's way (its time runs to the car's
    /// first fix); with it (version 69) the paces say the car drove the whole silence: 9 km in 10 min is the car's 15
    /// m/s, so the walk ends at its last fix and the car leg holds the hop.
    @Test func theHopBeforeALegIsTheLegBeforesWay() throws {
        var track = FixTrack()
        track.still(from: t0, count: 60, everyS: 60, at: (0, 0))
        let walkStart = t0 + 3_600_000
        track.east(from: walkStart, fromLon: 0, mps: 1.4, seconds: 600, everyS: 5)
        let carStart = track.time.last! + 600_000, carLon = track.lon.last! + 9_000 / FixTrack.metresPerDegree
        track.east(from: carStart, fromLon: carLon, mps: 15, seconds: 240, everyS: 5)
        let b = (0.0, track.lon.last!)
        track.still(from: track.time.last! + 60_000, count: 60, everyS: 60, at: b)
        let w = track.work
        let arrive = lowerBound(w.time, carStart + 241_000)
        let stays = [
            StayRecord(first: 0, last: 59, startMs: w.time[0], endMs: w.time[59], lat: 0, lon: 0, radiusM: 10, points: 60, gapS: 60, id: 101, placeID: 7),
            StayRecord(first: arrive, last: w.count - 1, startMs: w.time[arrive], endMs: w.time[w.count - 1], lat: b.0, lon: b.1, radiusM: 10,
                       points: w.count - arrive, gapS: 60, id: 102, placeID: 8),
        ]
        let walkEnd = carStart - 600_000
        var off = TripsPass.Parameters()
        off.hopSplitS = 0
        for (p, changeMs, carM) in [(TripsPass.Parameters(), walkEnd, 12_600.0), (off, carStart, 3_600)] {
            let out = TripsPass.assemble(w, stays: stays, p, MetricsPass.Parameters())
            try #require(out.trips.count == 1)
            let trip = out.trips[0], top = try #require(trip.row.maxSpeedMps)
            let legs = trip.legs.map { "\($0.mode) \(Int($0.distanceM)) m in \(($0.endMs - $0.startMs) / 1000) s" }
            try #require(trip.legs.count == 2, "\(legs)")
            #expect(abs(trip.legs[1].startMs - changeMs) <= 1_000, "\(legs)")
            #expect(abs(trip.legs[1].distanceM - carM) < 100, "\(legs)")
            for leg in trip.legs { #expect(leg.distanceM / (Double(leg.endMs - leg.startMs) / 1000) <= top, "\(legs), maximum \(top)") }
            #expect(abs(trip.legs.reduce(0) { $0 + $1.distanceM } - trip.distanceM) < 1, "\(legs), trip \(trip.distanceM)")
        }
    }

    /// A stop on the way no fix saw (an OwnTracks phone's, ``EvidencePass/wayStops``): an hour at A, a silence, one fix
    /// 800 m east (the time trigger's, minutes after the person set off), and the stay without fixes the evidence pass
    /// infers after it, which points at that fix. The fix is the trip's way there: a trip from A to the stop that holds
    /// it (the paths pass measures its 800 m from A's centre to the fix). Until algorithm version 78 the lone fix was
    /// left out, the trip measured nothing between the stays' edges, and there was no trip at all: a visit at A, then
    /// a visit 800 m away.
    @Test func theLoneFixBeforeAStopNoFixSawIsTheWayThere() throws {
        var track = FixTrack()
        track.still(from: t0, count: 60, everyS: 60, at: (0, 0))
        let fixMs = t0 + 3_600_000 + 1_200_000
        let eastLon = 800 / FixTrack.metresPerDegree
        track.add(fixMs, 0, eastLon)
        track.still(from: fixMs + 1_500_000, count: 30, everyS: 60, at: (0, 2 * eastLon))
        let w = track.work
        let a = StayRecord(first: 0, last: 59, startMs: w.time[0], endMs: w.time[59] + 600_000, lat: 0, lon: 0, radiusM: 10, points: 60, gapS: 60)
        let stop = StayRecord(first: 60, last: 60, startMs: fixMs + 240_000, endMs: fixMs + 900_000, lat: 0, lon: eastLon, radiusM: 0, points: 0,
                              gapS: 1500)
        let c = StayRecord(first: 61, last: w.count - 1, startMs: w.time[61], endMs: w.time[w.count - 1], lat: 0, lon: 2 * eastLon, radiusM: 10,
                           points: 30, gapS: 60)
        let trips = TripsPass.assemble(w, stays: [a, stop, c], TripsPass.Parameters(), MetricsPass.Parameters()).trips
        let there = trips.filter { $0.startMs >= a.endMs && $0.endMs <= stop.startMs }
        try #require(there.count == 1, "\(trips.map { ($0.startMs, $0.endMs) })")
        #expect(there[0].first == 60 && there[0].last == 60)
        #expect(abs(PathsPass.connectors(w, [60], from: a, to: stop) - 800) < 1)
    }

    /// One fix of a 2-km walk reporting 95 m/s (the tenth hostile round: the walk's maximum was 342 km/h in every
    /// export) while the fixes 5 s either side report 1.4 m/s and lie 14 m apart: no traveller gains and loses 90 m/s in
    /// 10 s, so the walk's highest speed is its own. A car accelerating 0 → 30 m/s at 3 m/s² keeps every reported speed,
    /// and so does a lone fix, or one whose neighbours report none but lie as far apart as its speed says.
    @Test func aReportedSpeedNoTravellerReachedIsNoMaximum() {
        var walk = FixTrack()
        walk.east(from: 0, fromLon: 0, mps: 1.4, seconds: 1400, everyS: 5)
        let w = walk.work
        for i in 0..<w.count { w.speed[i] = 1.4 }
        w.speed[100] = 95
        let all = Array(0..<w.count)
        #expect(TripsPass.maxSpeed(w, all).map { $0 < 2 } == true)
        #expect(!TripsPass.reportedSpeedHolds(100, all, w.time, w.lat, w.lon, w.speed))

        var drive = FixTrack()
        var ms: Int64 = 0, x = 0.0
        for k in 0...10 {
            drive.add(ms, 0, x / FixTrack.metresPerDegree)
            ms += 1000
            x += 3 * Double(k) + 1.5
        }
        let d = drive.work
        for k in 0...10 { d.speed[k] = 3 * Double(k) }
        #expect(TripsPass.maxSpeed(d, Array(0...10)) == 30)
        #expect(TripsPass.maxSpeed(d, [10]) == 30)
        // No neighbour reports a speed: the chord between them (30 m in 2 s) allows its 15 m/s, not 95.
        for k in 0...10 where k != 5 { d.speed[k] = .nan }
        d.speed[5] = 15
        #expect(TripsPass.reportedSpeedHolds(5, Array(0...10), d.time, d.lat, d.lon, d.speed))
        d.speed[5] = 95
        #expect(!TripsPass.reportedSpeedHolds(5, Array(0...10), d.time, d.lat, d.lon, d.speed))
    }
}
