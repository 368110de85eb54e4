import Foundation
import Testing
@testable import TriplineCore
import TriplineStore
import TriplineTestSupport

/// `tripline report day --date`: the day's visits and trips, one after another, at local times; under a privacy
/// zone, as the exports show them.
@Suite struct DayReportTests {
    @Test func theFixturesDay() throws {
        let fixture = try ExportFixture.temporary()
        let day = runCLI(["report", "day", "--date", "2024-03-01", "--db", fixture.path])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(
            day.stdout == """
                2024-03-01 · phone
                  Home                        01:00–09:00
                  walk 1.5 km                 09:00–09:10
                  Work                        09:10–18:00
                  car 4.2 km                  18:00–18:30   walk 400 m · car 3.8 km
                  Home                        18:30–00:00

                """, "\(day.stdout)")
        // The tablet's trip starts at 00:00 local on April 1st; its visit of March 31st is on that day alone.
        let april = runCLI(["report", "day", "--date", "2024-04-01", "--device", "tablet", "--db", fixture.path])
        #expect(april.stdout == "2024-04-01 · tablet\n  bike 2.2 km                 00:00–00:20\n", "\(april.stdout)")
        #expect(runCLI(["report", "day", "--date", "2024-05-01", "--db", fixture.path]).stdout == "2024-05-01: no visits or trips.\n")
        let hidden = runCLI(["report", "day", "--date", "2024-03-01", "--privacy-zone", "Home", "--db", fixture.path])
        #expect(!hidden.stdout.contains("Home"))
        #expect(hidden.stdout.contains("09:02–09:10") && hidden.stdout.contains("18:00–18:27"), "\(hidden.stdout)")
        #expect(runCLI(["report", "day", "--db", fixture.path]).status == 64)
        #expect(runCLI(["report", "day", "--date", "2024-02-30x", "--db", fixture.path]).status == 64)
    }

    /// An edited database's impossible values (an infinite or 1e300 distance, a time of Int64.min) are left out of
    /// the day, as the map leaves them out, instead of stopping the report.
    @Test func impossibleStoredValuesAreLeftOut() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        try store.db.run("UPDATE trips SET distance_m = 1e300 WHERE id = 1")
        try store.db.run("UPDATE legs SET distance_m = 1e300 WHERE trip_id = 2 AND mode = 'walk'")
        try store.db.run("UPDATE visits SET end_ms = -9223372036854775808 WHERE id = 2")
        let day = runCLI(["report", "day", "--date", "2024-03-01", "--device", "phone", "--db", fixture.path])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(
            day.stdout == """
                2024-03-01 · phone
                  Home                        01:00–09:00
                  car 4.2 km                  18:00–18:30
                  Home                        18:30–00:00

                """, "\(day.stdout)")
    }

    /// The map's timeline of each day, written as the terminal writes it, is `report day`'s output for that day.
    @Test func theMapsTimelineIsTheReportOnTheTerminal() throws {
        let fixture = try ExportFixture.temporary()
        let html = fixture.directory + "/map.html"
        let map = runCLI(["map", "--db", fixture.path, "-o", html])
        #expect(map.status == 0, "\(map.stderr)")
        let page = PageInspector(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: html))))
        let data = try #require(page.data)
        let devices = try #require(data["tld"] as? [String])
        let days = try #require(data["tl"] as? [[Any]])
        #expect(days.count >= 3)
        for day in days {
            let date = CivilTime.localDate(ms: Int64(try #require(day[0] as? Int)) * 86_400_000, offsetSeconds: 0)
            var text = ""
            var device: String?
            for entry in try #require(day[1] as? [[Any]]) {
                let name = devices[try #require(entry[2] as? Int)]
                if name != device {
                    text += (device == nil ? "" : "\n") + "\(date) · \(name)\n"
                    device = name
                }
                let what = try #require(entry[3] as? String)
                text += "  " + what.padding(toLength: max(28, what.count + 2), withPad: " ", startingAt: 0) + (try #require(entry[4] as? String))
                let legs = try #require(entry[5] as? [String])
                text += (legs.isEmpty ? "" : "   " + legs.joined(separator: " · ")) + "\n"
            }
            let report = runCLI(["report", "day", "--date", date, "--db", fixture.path])
            #expect(report.stdout == text, "\(date)")
        }
    }
}
