import Foundation
import Testing
@testable import TriplineCore
import TriplineStore
import TriplineTestSupport

/// `tripline export --format gpkg` (in-process): the layers chosen with --what, the selection options, and the
/// usage errors of a format that cannot go to standard output.
@Suite struct ExportGeoPackageCommandTests {
    func tables(_ path: String) throws -> [String] {
        let db = try Database(path: path, readOnly: true)
        let statement = try db.prepare("SELECT table_name FROM gpkg_contents ORDER BY table_name")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0) ?? "") }
        return names
    }

    @Test func writesEveryLayerByDefaultOrTheOneAsked() throws {
        let fixture = try ExportFixture.temporary()
        let all = fixture.directory + "/all.gpkg"
        let result = runCLI(["export", "--format", "gpkg", "--db", fixture.path, "-o", all])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Exported 3 trips, 4 legs, 4 visits, 2 places, 47 points, 3 days as a GeoPackage to \(all)"), "\(result.stderr)")
        #expect(try tables(all) == ["days", "legs", "places", "points", "trips", "visits"])
        let explicit = fixture.directory + "/explicit.gpkg"
        #expect(runCLI(["export", "--format", "GPKG", "--what", "all", "--db", fixture.path, "-o", explicit, "--quiet"]).status == 0)
        #expect(try FileSystem.read(explicit) == FileSystem.read(all))
        let visits = fixture.directory + "/visits.gpkg"
        let one = runCLI(["export", "--format", "gpkg", "--what", "visits", "--device", "phone", "--to", "2024-03-01", "--db", fixture.path, "-o", visits])
        #expect(one.status == 0)
        #expect(one.stderr.hasPrefix("Exported 3 visits as a GeoPackage"), "\(one.stderr)")
        #expect(try tables(visits) == ["visits"])
        #expect(try FileSystem.list(fixture.directory).filter { $0.contains("tripline-") }.isEmpty)
    }

    @Test func usageErrors() throws {
        let fixture = try ExportFixture.temporary()
        let noFile = runCLI(["export", "--format", "gpkg", "--db", fixture.path])
        #expect(noFile.status == 64)
        #expect(noFile.stderr.contains("--output FILE.gpkg"))
        #expect(runCLI(["export", "--format", "gpkg", "--db", fixture.path, "-o", "-"]).status == 64)
        let badKind = runCLI(["export", "--format", "gpkg", "--what", "stays", "--db", fixture.path, "-o", fixture.directory + "/x.gpkg"])
        #expect(badKind.status == 64)
        #expect(badKind.stderr.contains("use all, trips"))
        // 'all' is the GeoPackage's alone.
        #expect(runCLI(["export", "--format", "csv", "--what", "all", "--db", fixture.path]).status == 64)
        let device = runCLI(["export", "--format", "gpkg", "--device", "nobody", "--db", fixture.path, "-o", fixture.directory + "/x.gpkg"])
        #expect(device.status == 1)
        #expect(device.stderr.contains("no device named 'nobody'"))
        #expect(!FileSystem.exists(fixture.directory + "/x.gpkg"))
    }
}
