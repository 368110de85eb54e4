import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// A silence longer than `evidence.lone_max_s` (a day) is a gap, never part of a visit (issue 22, item 5): no rule of
/// the evidence pass stretches a stay into it, so no visit covers a stretch of more than a day that no fix and no app
/// record saw.
@Suite struct SilenceGapTests {
    static let day: Int64 = 86_400_000
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 3, day: 1)) * 86_400_000

    /// The longest stretch of any visit without a fix (no app records in these stores).
    static func longestSilenceInAVisit(_ store: Store) throws -> Int64 {
        let visits = try store.db.prepare("SELECT device_id, start_ms, end_ms FROM visits")
        let fixes = try store.db.prepare("SELECT \(PointKey.timeSQL) FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key")
        var longest: Int64 = 0
        while try visits.step() {
            let (start, end) = (visits.int64(1), visits.int64(2))
            let keys = PointKey.range(device: visits.int64(0), fromMs: start, throughMs: end)
            fixes.reset()
            try fixes.bind([.integer(keys.lower), .integer(keys.upper)])
            var last = start
            while try fixes.step() {
                longest = max(longest, fixes.int64(0) - last)
                last = fixes.int64(0)
            }
            longest = max(longest, end - last)
        }
        return longest
    }

    /// A drive in California, then nothing for 71 days, then one still fix in Copenhagen that starts a 1-Hz walk.
    /// Before, the fix in Copenhagen "arrived" at 5 m/s from California and stayed there for 51 days.
    @Test func anArrivalIsNotEstimatedAcrossWeeks() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 37.33, lon: -122.03)
        b.move(2000, bearing: 0, speed: 14)
        b.t += 71 * Self.day
        b.lat = 55.6761
        b.lon = 12.5683
        b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: 0, accuracyM: 5))
        b.move(1500, bearing: 90, speed: 1.4)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store, timezone: nil)
        #expect(try Self.longestSilenceInAVisit(store) <= Self.day)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE end_ms - start_ms > 86400000") == 0)
        // No day row between the two, and Denmark is a country of at most the day of its fixes.
        #expect(try count(store, "SELECT count(*) FROM days") <= 2)
    }

    /// GPX without speeds (GeoLife user 129): a quarter of an hour at one place, nine days of nothing, then a walk
    /// with a fix every 50 s (`walkEvery`) to another place. Before, the first visit reached over the nine days to the
    /// walk's first fix less the time to walk there (with fixes 2 minutes apart, the walk's first fix claimed the last
    /// day of the silence as a one-fix visit instead).
    @Test(arguments: [50, 120])
    func aSparseEdgeDoesNotReachAcrossDays(walkEvery: Int) throws {
        var points: [Point] = []
        var t = Self.t0, lat = 39.98, lon = 116.32
        func fix() { points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, accuracyM: 10)) }
        for _ in 0..<16 { fix(); t += 60_000 }
        t += 9 * Self.day
        let walk = t
        for _ in 0..<12 {
            let p = Geo.destination(lat, lon, bearing: 45, distance: 1.3 * Double(walkEvery))
            (lat, lon) = (p.lat, p.lon)
            fix()
            t += Int64(walkEvery) * 1000
        }
        for _ in 0..<16 { fix(); t += 60_000 }
        let store = try storeWith([("phone", points)])
        try rebuild(store, timezone: nil)
        try #require(try count(store, "SELECT count(*) FROM visits") >= 2)
        #expect(try Self.longestSilenceInAVisit(store) <= Self.day)
        // Nothing is known of the nine days: no visit covers them.
        let silence = (Self.t0 + 3_600_000, walk - 3_600_000)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE start_ms < \(silence.1) AND end_ms > \(silence.0)") == 0)
    }

    /// Significant-changes sampling: two stays, and between them one still fix with three days of nothing on either
    /// side. Before, the lone fix claimed a day on each side: a two-day visit that one fix saw.
    @Test func aLoneFixBetweenLongSilencesIsNoVisit() throws {
        var points: [Point] = []
        var t = Self.t0, lat = 48.0, lon = 11.0
        func fix(_ speed: Double? = nil) { points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, speedMps: speed, accuracyM: 10)) }
        for _ in 0..<7 { fix(); t += 600_000 }
        func go(_ km: Double) {
            for _ in 0..<3 {
                let p = Geo.destination(lat, lon, bearing: 90, distance: km * 1000 / 3)
                (lat, lon) = (p.lat, p.lon)
                t += 300_000
                fix(10)
            }
        }
        go(6)
        t += 3 * Self.day
        let p = Geo.destination(lat, lon, bearing: 90, distance: 5000)
        (lat, lon) = (p.lat, p.lon)
        fix()
        t += 3 * Self.day
        go(6)
        for _ in 0..<7 { t += 600_000; fix() }
        let store = try storeWith([("phone", points)])
        try rebuild(store, timezone: nil)
        #expect(try Self.longestSilenceInAVisit(store) <= Self.day)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE points = 1") == 0)
    }
}
