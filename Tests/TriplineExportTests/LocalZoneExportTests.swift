import Testing
import TriplineCore
@testable import TriplineExport
import TriplineTestSupport

/// Exports show each point at the zone of where it was (rebuilt without `--timezone`; LocalZoneTests in
/// TriplinePassesTests checks the trips and days of the same track).
@Suite struct LocalZoneExportTests {
    @Test func pointExportsShowEachPointAtItsZone() throws {
        let store = try SampleTracks.berlinToNewYork()
        try rebuild(store, timezone: nil)
        let out = ByteWriter.memory()
        _ = try Exporter(store: store).export(.points, as: .csv, to: out)
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.contains("2024-01-15T14:00:00+01:00"), "the first point, 13:00 UTC, in Berlin")
        #expect(text.contains("-05:00"), "the last points, in New York")
        #expect(!text.contains("Z,"), "no point falls back to UTC")
    }
}
