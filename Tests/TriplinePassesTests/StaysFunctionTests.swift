import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineTestSupport

/// The stays pass as a function (``StaysPass/stays(_:_:)``): a device's stays from its kept points alone.
@Suite struct StaysFunctionTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z

    /// An hour at home, a 3-km ride (12 min), an hour at work, a ride back, an hour at home.
    func day() -> TrackBuilder {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 60, drift: 10...30)
        b.move(3000, bearing: 80, speed: 4, every: 5)
        b.still(3600, every: 60, drift: 10...30)
        b.move(3000, bearing: 260, speed: 4, every: 5)
        b.still(3600, every: 60, drift: 10...30)
        return b
    }

    @Test func findsTheThreeStaysWithTheirPointRanges() {
        let b = day()
        let w = EarlyPassesWork.of(b.points)
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(stays.count == 3)
        guard stays.count == 3 else { return }
        let work = Geo.destination(52.5200, 13.4050, bearing: 80, distance: 3000)
        #expect(Geo.distance(stays[0].lat, stays[0].lon, 52.5200, 13.4050) < 30)
        #expect(Geo.distance(stays[1].lat, stays[1].lon, work.lat, work.lon) < 30)
        #expect(Geo.distance(stays[2].lat, stays[2].lon, 52.5200, 13.4050) < 30)
        // Each lasts about its hour (the rides take 750 s); none overlaps the next.
        for s in stays { #expect(abs(Double(s.endMs - s.startMs) / 1000 - 3540) < 120) }
        #expect(stays[0].startMs == t0 && stays[0].endMs < stays[1].startMs && stays[1].endMs < stays[2].startMs)
        // Point ranges from the times (``StayRecord/indexed(in:)``): every fix from its start to its end.
        for s in stays {
            #expect(w.time[s.first] >= s.startMs && (s.first == 0 || w.time[s.first - 1] < s.startMs))
            #expect(w.time[s.last] <= s.endMs && (s.last + 1 == w.count || w.time[s.last + 1] > s.endMs))
        }
    }

    /// A `--to` rebuild keeps the stays from `keepFromMs` on as stored: the function leaves them out.
    @Test func leavesOutTheStaysFromKeepFrom() {
        let b = day()
        let w = EarlyPassesWork.of(b.points)
        w.keepFromMs = t0 + 2 * 3_600_000
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(stays.count == 2)
        #expect(stays.allSatisfy { $0.startMs < w.keepFromMs })
    }

    /// Flagged points do not count: with the fixes of the hour at work flagged, the stay there holds only the two
    /// moving fixes around that hour (the arrival and the departure), and its centre and points are theirs.
    @Test func flaggedPointsDoNotCount() {
        let b = day()
        let w = EarlyPassesWork.of(b.points)
        let all = StaysPass.stays(w, StaysPass.Parameters())
        let workFrom = t0 + 3600_000 + 750_000, workTo = workFrom + 3600_000
        for i in 0..<w.count where w.time[i] >= workFrom && w.time[i] < workTo { w.flags[i] = CleanPass.Flag.lowAccuracy }
        let stays = StaysPass.stays(w, StaysPass.Parameters())
        #expect(all.count == 3 && stays.count == 3)
        guard all.count == 3, stays.count == 3 else { return }
        #expect(all[1].points >= 60)
        #expect(stays[1].points == 2)
        #expect(stays[1].points == (stays[1].first...stays[1].last).filter { w.flags[$0] == 0 }.count)
        #expect(stays[0] == all[0])
    }
}
