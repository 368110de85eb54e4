import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
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
                  Gap (8 h 50 min)            09:10–18:00
                  car 4.2 km                  18:00–18:30
                  Home                        18:30–00:00

                """, "\(day.stdout)")
        // The visit at work has no time left, so nothing known covers 09:10–18:00: a gap. The walk's impossible
        // distance hides it, but its time (09:00–09:10) is known.
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
            let date = CivilTime.localDate(ms: Int64(try #require(day[0] as? Int)) * 86_400_000, offset: .utc)
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

/// Gaps (issue 22): a span of a device's history that no visit and no trip covers, an hour or longer, is shown as
/// such in `report day`, the map's timeline and `report gaps`, with the same rule; time hidden by a privacy zone is
/// known, so it is no gap.
@Suite struct GapTests {
    /// The fixture with the phone's stay at work cut short at 15:00: three hours until the car trip at 18:00.
    static func fixtureWithAGap() throws -> (directory: String, path: String) {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let end = try #require(try store.db.scalarInt("SELECT end_ms FROM visits v JOIN places p ON p.id = v.place_id WHERE p.name = 'Work'"))
        try store.db.run("UPDATE visits SET end_ms = ? WHERE end_ms = ?", [.integer(end - 3 * 3_600_000), .integer(end)])
        return fixture
    }

    @Test func aDayShowsItsGap() throws {
        let fixture = try Self.fixtureWithAGap()
        let day = runCLI(["report", "day", "--date", "2024-03-01", "--device", "phone", "--db", fixture.path])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(
            day.stdout == """
                2024-03-01 · phone
                  Home                        01:00–09:00
                  walk 1.5 km                 09:00–09:10
                  Work                        09:10–15:00
                  Gap (3 h)                   15:00–18:00
                  car 4.2 km                  18:00–18:30   walk 400 m · car 3.8 km
                  Home                        18:30–00:00

                """, "\(day.stdout)")
        // Under a zone over home the home visits are hidden, not turned into gaps.
        let hidden = runCLI(["report", "day", "--date", "2024-03-01", "--device", "phone", "--privacy-zone", "Home", "--db", fixture.path])
        #expect(!hidden.stdout.contains("Home") && hidden.stdout.components(separatedBy: "Gap (").count == 2, "\(hidden.stdout)")
    }

    @Test func theGapsReportHasTheSameGap() throws {
        let fixture = try Self.fixtureWithAGap()
        let report = runCLI(["report", "gaps", "--device", "phone", "--db", fixture.path])
        #expect(report.status == 0, "\(report.stderr)")
        let rows = report.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(rows.first == "device,start,end,hours,before,after,km,points")
        #expect(rows.dropFirst().contains { $0.hasPrefix("phone,2024-03-01T15:00:00+01:00,2024-03-01T18:00:00+01:00,3,Work,trip (car),0,0") }, "\(report.stdout)")
        let store = try Store(path: fixture.path, create: false)
        let gaps = try DayTimeline.gaps(store: store, device: "phone")
        #expect(gaps.count == rows.count - 1, "the report and the timeline apply one rule")
    }

    /// The night summer time ends in Berlin (2024-10-27, 03:00 CEST → 02:00 CET): a drive home at 02:39 CEST, 26 min
    /// there, a drive back at 02:19 CET. Each time shows its offset that day, or the second drive reads as before the
    /// first (the fifteenth hostile round: "02:39–02:53" then "02:19–02:33").
    @Test func theNightTheClockGoesBackShowsOffsets() throws {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 10, day: 26)) * 86_400_000 + 22 * 3_600_000  // 00:00 CEST
        var b = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.40, offset: 7200)
        b.still(159 * 60, every: 60)  // at work until 02:39 CEST (00:39Z)
        b.move(8000, bearing: 90, speed: 10, every: 5)  // home at about 02:52 CEST
        b.still(7 * 60, every: 60)
        b.offset = 3600  // 01:00Z: the clock goes back
        b.still(19 * 60, every: 60)
        b.move(8000, bearing: 270, speed: 10, every: 5)
        b.still(3 * 3600, every: 60)
        let store = try storeWith([("night", b.points)])
        try rebuild(store, timezone: "Europe/Berlin")
        let entries = try DayTimeline.entries(exporter: try Exporter(store: store), day: CivilTime.daysFromCivil(year: 2024, month: 10, day: 27))
        let drives = entries.filter { $0.kind == .trip }
        try #require(drives.count == 2, "\(entries.map(\.line))")
        #expect(drives[0].when.hasPrefix("02:3") && drives[0].when.hasSuffix(" +02:00"), "\(entries.map(\.line))")
        #expect(drives[1].when.hasPrefix("02:1") && drives[1].when.hasSuffix(" +01:00"), "\(entries.map(\.line))")
        #expect(entries.allSatisfy { ($0.start ?? " ").contains(" ") && ($0.end ?? " ").contains(" ") }, "\(entries.map(\.line))")
    }

    @Test func durationsReadAsPeopleSayThem() {
        #expect(DayTimeline.duration(45 * 60_000) == "45 min")
        #expect(DayTimeline.duration(200 * 60_000) == "3 h 20 min")
        #expect(DayTimeline.duration(26 * 3_600_000) == "1 day 2 h")
        #expect(DayTimeline.duration(71 * 86_400_000 + 5 * 3_600_000) == "71 days")
    }
}
