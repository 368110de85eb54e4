import Testing
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

    @Test func aChosenZoneStillOverridesThePosition() throws {
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: "Europe/Berlin")
        #expect(try count(store, "SELECT end_utc_offset_s FROM trips") == 3600)
        #expect(try store.setting("timezone") == "Europe/Berlin")
    }
}
