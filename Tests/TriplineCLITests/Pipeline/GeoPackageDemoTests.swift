import Foundation
import Testing
@testable import TriplineCore
import TriplineStore
import TriplineTestSupport

/// The GeoPackage of the demo (SampleData imported and rebuilt as a user would), checked with GDAL: every layer
/// with the count the CSV export gives, GDAL's validator passing, and the same bytes from a second export; then
/// the same under a privacy zone around the most visited place.
@Suite struct GeoPackageDemoTests {
    @Test(ClientTools.installed("ogrinfo"), ClientTools.gdalPythonInstalled) func demoGeoPackagePassesGDAL() throws {
        let out = try temporaryDirectory() + "/demo"
        let demo = runCLI(["demo", "--data", packageRoot() + "/SampleData", "--out", out])
        #expect(demo.status == 0, "\(demo.stderr)")
        let db = out + "/tripline.sqlite"
        let python = try #require(ClientTools.gdalPython)
        let validator = python.utilities + "/samples/validate_gpkg.py"
        let top = try #require(try Database(path: db, readOnly: true).scalarInt("SELECT id FROM places ORDER BY total_dwell_s DESC, id LIMIT 1"))
        for zone in [[], ["--privacy-zone", "\(top)"]] {
            let path = out + "/all\(zone.isEmpty ? "" : "-private").gpkg"
            let export = runCLI(["export", "--format", "gpkg", "--db", db, "-o", path] + zone)
            #expect(export.status == 0, "\(export.stderr)")
            var expected: [String: Int] = [:]
            for kind in ["trips", "legs", "visits", "places", "points", "days"] {
                let csv = runCLI(["export", "--format", "csv", "--what", kind, "--db", db] + zone)
                expected[kind] = csv.stdout.split(separator: "\r\n").count - 1
            }
            #expect(expected["trips"] ?? 0 > 5 && expected["points"] ?? 0 > 1000, "\(expected)")
            #expect(try ClientTools.ogrFeatureCounts(path) == expected)
            let result = try #require(try ClientTools.run(python.interpreter, [validator, "-k", "--extra", "--warning-as-error", path]))
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stdout) \(result.stderr)")
            let again = path + ".again.gpkg"
            #expect(runCLI(["export", "--format", "gpkg", "--db", db, "-o", again] + zone).status == 0)
            #expect(try FileSystem.read(again) == FileSystem.read(path))
        }
    }
}
