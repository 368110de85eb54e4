import Foundation
import Testing
@testable import TriplineCore
import TriplineTestSupport

/// `tripline privacy` and `--privacy-zone` (in-process): zones remembered in the database apply to every export
/// and map until removed; one-off zones apply to one run. The fixture's Home (place 1) is where trip 1 starts:
/// with a 200 m zone, the trip starts at its 08:02Z fix (09:02 local).
@Suite struct PrivacyCommandTests {
    func firstTripStart(_ db: String, _ extra: [String] = []) -> String {
        let result = runCLI(["export", "--format", "csv", "--what", "trips", "--db", db] + extra)
        let row = result.stdout.split(separator: "\r\n").dropFirst().first ?? ""
        return String(row.split(separator: ",", omittingEmptySubsequences: false).dropFirst(2).first ?? "")
    }

    @Test func rememberedZonesApplyUntilRemoved() throws {
        let fixture = try ExportFixture.temporary()
        let db = fixture.path
        let empty = runCLI(["privacy", "--db", db])
        #expect(empty.status == 0 && empty.stdout.hasPrefix("No privacy zones."))
        #expect(firstTripStart(db) == "2024-03-01T09:00:00+01:00")
        let add = runCLI(["privacy", "add", "Home", "--db", db])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout == "Added privacy zone 1: 200 m around Home.\n")
        let list = runCLI(["privacy", "--db", db])
        #expect(list.stdout.hasPrefix("1\tHome\t200 m\t52.52, 13.405"), "\(list.stdout)")
        #expect(firstTripStart(db) == "2024-03-01T09:02:00+01:00")
        let map = fixture.directory + "/map.html"
        #expect(runCLI(["map", "--db", db, "-o", map, "--quiet"]).status == 0)
        #expect(!String(decoding: try FileSystem.read(map), as: UTF8.self).contains("Home"))
        let gpkg = fixture.directory + "/all.gpkg"
        #expect(runCLI(["export", "--format", "gpkg", "--db", db, "-o", gpkg, "--quiet"]).status == 0)
        #expect(!String(decoding: try FileSystem.read(gpkg), as: UTF8.self).contains("Home"))
        let remove = runCLI(["privacy", "remove", "1", "--db", db])
        #expect(remove.status == 0 && remove.stdout == "Removed privacy zone 1.\n")
        #expect(firstTripStart(db) == "2024-03-01T09:00:00+01:00")
        #expect(runCLI(["map", "--db", db, "-o", map, "--quiet"]).status == 0)
        #expect(String(decoding: try FileSystem.read(map), as: UTF8.self).contains("Home"))
    }

    @Test func oneOffZonesOnExportAndMap() throws {
        let fixture = try ExportFixture.temporary()
        #expect(firstTripStart(fixture.path, ["--privacy-zone", "Home"]) == "2024-03-01T09:02:00+01:00")
        #expect(firstTripStart(fixture.path, ["--privacy-zone", "1:500"]) == "2024-03-01T09:04:00+01:00")
        // Repeatable: a second zone around Work hides visit 2 too.
        let visits = runCLI(["export", "--format", "csv", "--what", "visits", "--db", fixture.path, "--privacy-zone", "Home", "--privacy-zone", "Work:100"])
        #expect(visits.stdout.split(separator: "\r\n").dropFirst().map { $0.prefix { $0 != "," } } == ["4"])
        let map = fixture.directory + "/map.html"
        #expect(runCLI(["map", "--db", fixture.path, "--privacy-zone", "Home", "-o", map, "--quiet"]).status == 0)
        #expect(!String(decoding: try FileSystem.read(map), as: UTF8.self).contains("Home"))
    }

    /// The SQL reports read the tables as they are (the eleventh hostile round: `report visits --privacy-zone Home`
    /// listed Home's visits, the option accepted and passed over): the option is refused there, and a remembered zone
    /// is named on standard error, the rows as they are.
    @Test func sqlReportsSayTheyLeaveNoPlaceOut() throws {
        let fixture = try ExportFixture.temporary()
        let refused = runCLI(["report", "visits", "--db", fixture.path, "--privacy-zone", "Home"])
        #expect(refused.status == 64 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("--privacy-zone is for 'report day', 'export' and 'map'"), "\(refused.stderr)")
        let quiet = runCLI(["report", "visits", "--db", fixture.path])
        #expect(quiet.status == 0 && !quiet.stderr.contains("privacy"))
        #expect(runCLI(["privacy", "add", "Home", "--db", fixture.path]).status == 0)
        let noted = runCLI(["report", "visits", "--db", fixture.path])
        #expect(noted.status == 0 && noted.stdout == quiet.stdout)
        #expect(noted.stderr.contains("the 1 remembered privacy zone does not apply to SQL reports"), "\(noted.stderr)")
        #expect(runCLI(["report", "day", "--date", "2024-03-01", "--db", fixture.path, "--privacy-zone", "Work"]).status == 0)
    }

    @Test func errors() throws {
        let fixture = try ExportFixture.temporary()
        let unknown = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path, "--privacy-zone", "Nowhere"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no place with the id or name 'Nowhere'"), "\(unknown.stderr)")
        #expect(runCLI(["map", "--db", fixture.path, "--privacy-zone", "Home:0", "-o", fixture.directory + "/m.html"]).status == 64)
        #expect(!FileSystem.exists(fixture.directory + "/m.html"))
        #expect(runCLI(["privacy", "add", "Nowhere", "--db", fixture.path]).status == 64)
        #expect(runCLI(["privacy", "add", "--db", fixture.path]).status == 64)
        #expect(runCLI(["privacy", "remove", "7", "--db", fixture.path]).status == 1)
        #expect(runCLI(["privacy", "forget", "1", "--db", fixture.path]).status == 64)
    }
}
