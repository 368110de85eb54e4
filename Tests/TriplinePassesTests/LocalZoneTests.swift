import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineExport

/// Points without an offset take the zone of where they were, with no `--timezone`.
@Suite struct LocalZoneTests {
    /// 2024-01-15 Berlin, a flight, New York: leaving at 17:00 Berlin time (16:00 UTC) and landing at 21:00 New York
    /// time (02:00 UTC on the 16th). No point carries an offset, as in an OwnTracks archive.
    func berlinToNewYork() throws -> Store {
        let departure: Int64 = 1_705_334_400_000  // 2024-01-15T16:00:00Z
        let berlin = (lat: 52.5200, lon: 13.4050), newYork = (lat: 40.7128, lon: -74.0060)
        var b = TrackBuilder(startMs: departure - 3 * 3_600_000, lat: berlin.lat, lon: berlin.lon)
        b.still(3 * 3600, every: 120, drift: 0...15)
        // Ten hours in the air, a fix every 5 minutes, at ~190 m/s along a straight line in degrees.
        let steps = 120
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            b.t += 300_000
            b.lat = berlin.lat + (newYork.lat - berlin.lat) * f
            b.lon = berlin.lon + (newYork.lon - berlin.lon) * f
            b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: 190, accuracyM: 10))
        }
        b.still(2 * 3600, every: 120, drift: 0...15)
        return try storeWith([("phone", b.points)])
    }

    @Test func aTripFromBerlinToNewYorkHasTheLocalDayOfEachEnd() throws {
        let store = try berlinToNewYork()
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

    @Test func aChosenZoneStillOverridesThePosition() throws {
        let store = try berlinToNewYork()
        try rebuild(store, timezone: "Europe/Berlin")
        #expect(try count(store, "SELECT end_utc_offset_s FROM trips") == 3600)
        #expect(try store.setting("timezone") == "Europe/Berlin")
    }

    @Test func pointExportsShowEachPointAtItsZone() throws {
        let store = try berlinToNewYork()
        try rebuild(store, timezone: nil)
        let out = ByteWriter.memory()
        _ = try Exporter(store: store).export(.points, as: .csv, to: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.contains("2024-01-15T14:00:00+01:00"), "the first point, 13:00 UTC, in Berlin")
        #expect(text.contains("-05:00"), "the last points, in New York")
        #expect(!text.contains("Z,"), "no point falls back to UTC")
    }
}
