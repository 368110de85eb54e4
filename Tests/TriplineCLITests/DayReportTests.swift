import Foundation
import Testing
@testable import TriplineCore
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
}
