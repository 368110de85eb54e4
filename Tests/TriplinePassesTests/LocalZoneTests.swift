import Testing
@testable import TriplineStore
import TriplineCore
import TriplineTestSupport

/// Points without an offset take the zone of where they were, with no `--timezone`.
@Suite struct LocalZoneTests {
    @Test func aTripFromBerlinToNewYorkHasTheLocalDayOfEachEnd() throws {
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: nil)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT start_utc_offset_s FROM trips") == 3600)
        #expect(try count(store, "SELECT end_utc_offset_s FROM trips") == -18_000)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE start_utc_offset_s = 3600") == 1)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE start_utc_offset_s = -18000") == 1)
        // The arrival is on the 16th in UTC but on the 15th in New York: every day row is the 15th.
        #expect(try store.db.scalarText("SELECT group_concat(date) FROM days") == "2024-01-15")
        #expect(try store.setting("timezone") == nil, "no zone was chosen, none is stored")
    }

    /// Another zone moves the day rows: a rebuild with it leaves the same rows as a fresh store rebuilt with it, no row
    /// of a date that no longer holds anything (the twelfth hostile round: after `--timezone UTC` a drive kept its old
    /// day's row too, counted twice in `monthly-summary`).
    @Test func aRebuildInAnotherZoneLeavesNoDayOfTheOldOne() throws {
        let days = "SELECT group_concat(date || ' ' || trips || ' ' || round(distance_m), ', ') FROM (SELECT * FROM days ORDER BY date)"
        let fresh = try SampleTracks.berlinToNewYork()
        try rebuild(fresh, timezone: "Pacific/Kiritimati")
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: "Pacific/Pago_Pago")
        let before = try store.db.scalarText(days)
        try rebuild(store, timezone: "Pacific/Kiritimati")
        #expect(try store.db.scalarText(days) == fresh.db.scalarText(days))
        #expect(before != (try fresh.db.scalarText(days)), "the two zones put the trip on different dates")
        #expect(try count(store, "SELECT sum(trips) FROM days") == 1)
    }

    /// `--timezone position` takes back a zone chosen before (the twelfth hostile round: nothing could undo
    /// `--timezone UTC`; "position" was an unknown zone): no zone is stored and every row is as by position.
    @Test func aChosenZoneCanBeTakenBack() throws {
        let rows = "SELECT group_concat(date || ' ' || utc_offset_s, ', ') FROM (SELECT * FROM days ORDER BY date)"
        let fresh = try SampleTracks.berlinToNewYork()
        try rebuild(fresh, timezone: nil)
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: "UTC")
        #expect(try store.setting("timezone") == "UTC")
        try rebuild(store, timezone: "position")
        #expect(try store.setting("timezone") == nil)
        #expect(try store.db.scalarText(rows) == fresh.db.scalarText(rows))
        #expect(try count(store, "SELECT end_utc_offset_s FROM trips") == -18_000)
        try rebuild(store, timezone: nil)
        #expect(try store.db.scalarText(rows) == fresh.db.scalarText(rows), "a later rebuild keeps zones by position")
    }

    @Test func aChosenZoneStillOverridesThePosition() throws {
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: "Europe/Berlin")
        #expect(try count(store, "SELECT end_utc_offset_s FROM trips") == 3600)
        #expect(try store.setting("timezone") == "Europe/Berlin")
    }

    /// A sparse track near Granada without offsets (GPX): one fix every 10 minutes at two places, a ride between them
    /// with a fix every 5 minutes. The departure from the first place is estimated from the first fix on the way, so the
    /// visit ends at no fix. Every visit and trip time carries Madrid's summer offset (+02:00); before, the estimated
    /// end took UTC while the trip leaving there started at +02:00 (issue 22, item 1).
    @Test func estimatedVisitTimesCarryTheZoneOfThePlace() throws {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 7, day: 10)) * 86_400_000 + 6 * 3_600_000
        var points: [Point] = []
        var t = t0, lat = 37.1773, lon = -3.5986
        func fix() { points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, accuracyM: 10)) }
        for _ in 0..<13 { fix(); t += 600_000 }
        for _ in 0..<4 {
            let p = Geo.destination(lat, lon, bearing: 90, distance: 1500)
            (lat, lon) = (p.lat, p.lon)
            fix()
            t += 300_000
        }
        let p = Geo.destination(lat, lon, bearing: 90, distance: 1500)
        (lat, lon) = (p.lat, p.lon)
        t += 600_000
        for _ in 0..<13 { fix(); t += 600_000 }
        let store = try storeWith([("phone", points)])
        try rebuild(store, timezone: nil)
        try #require(try count(store, "SELECT count(*) FROM visits") >= 2)
        // Some visit times are estimates, between fixes.
        let times = Set(points.map(\.timeMs))
        let edges = try store.db.prepare("SELECT start_ms FROM visits UNION SELECT end_ms FROM visits")
        var estimated = 0
        while try edges.step() { if !times.contains(edges.int64(0)) { estimated += 1 } }
        try #require(estimated > 0, "a departure or an arrival is estimated, not a fix")
        #expect(try count(store, "SELECT count(*) FROM visits WHERE start_utc_offset_s IS NOT 7200 OR end_utc_offset_s IS NOT 7200") == 0)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE start_utc_offset_s IS NOT 7200 OR end_utc_offset_s IS NOT 7200") == 0)
        #expect(try count(store, "SELECT count(*) FROM trips t JOIN visits v ON v.id = t.to_visit_id WHERE v.start_ms = t.end_ms AND v.start_utc_offset_s IS NOT t.end_utc_offset_s") == 0)
        #expect(try count(store, "SELECT count(*) FROM trips t JOIN visits v ON v.id = t.from_visit_id WHERE v.end_ms = t.start_ms AND v.end_utc_offset_s IS NOT t.start_utc_offset_s") == 0)
    }
}
