import Foundation
import Testing
@testable import TriplineCore
import TriplineTestSupport

/// `tripline export` end to end (in-process): destinations, filters by local day and device, empty selections,
/// errors, and atomic files.
@Suite struct ExportCommandTests {
    static func golden(_ name: String) throws -> String {
        String(decoding: try FileSystem.read(ExportFixture.goldenDirectory + "/" + name), as: UTF8.self)
    }

    @Test func writesToStandardOutputAndToAFile() throws {
        let fixture = try ExportFixture.temporary()
        let stdout = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path])
        #expect(stdout.status == 0)
        #expect(stdout.stdout == (try ExportCommandTests.golden("trips.csv")))
        #expect(stdout.stderr.hasPrefix("Exported 3 trips as csv to standard output"))
        let dash = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path, "-o", "-"])
        #expect(dash.stdout == stdout.stdout)

        let file = fixture.directory + "/out/trips.geojson"
        try FileSystem.createDirectory(fixture.directory + "/out")
        let toFile = runCLI(["export", "--format", "geojson", "--what", "trips", "--db", fixture.path, "--output", file, "--quiet"])
        #expect(toFile.status == 0)
        #expect(toFile.stdout.isEmpty && toFile.stderr.isEmpty)
        #expect(String(decoding: try FileSystem.read(file), as: UTF8.self) == (try ExportCommandTests.golden("trips.geojson")))
        // Nothing else is left in the folder: the temporary file was renamed into place.
        #expect(try FileSystem.list(fixture.directory + "/out") == ["trips.geojson"])
    }

    /// `--from`/`--to` are local days: trip 3 starts 2024-03-31T22:00Z, which is 2024-04-01 in Berlin (the
    /// fixture's zone, used because the tablet records no offset).
    @Test func datesAreLocalDaysInclusive() throws {
        let fixture = try ExportFixture.temporary()
        func trips(_ extra: [String]) -> [String] {
            let result = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path] + extra)
            return result.stdout.split(separator: "\r\n").dropFirst().map { String($0.prefix(while: { $0 != "," })) }
        }
        #expect(trips(["--from", "2024-04-01"]) == ["3"])
        #expect(trips(["--to", "2024-03-31"]) == ["1", "2"])
        #expect(trips(["--from", "2024-03-01", "--to", "2024-03-01"]) == ["1", "2"])
        #expect(trips(["--device", "tablet"]) == ["3"])
        // Points: the tablet's 13 points fall on 2024-03-31 (2) and 2024-04-01 (11) local time.
        let points = runCLI(["export", "--format", "csv", "--what", "points", "--db", fixture.path, "--device", "tablet", "--from", "2024-04-01"])
        #expect(points.stdout.split(separator: "\r\n").count == 12)
        #expect(points.stdout.contains("tablet,2024-04-01T00:00:00+02:00,48.137,11.575,,4,,10,,0,\r\n"))
        let legs = runCLI(["export", "--format", "csv", "--what", "legs", "--db", fixture.path, "--to", "2024-03-01"])
        #expect(legs.stdout.split(separator: "\r\n").count == 4)
        let places = runCLI(["export", "--format", "csv", "--what", "places", "--db", fixture.path, "--from", "2024-03-31"])
        #expect(places.stdout == "place_id,device,name,lat,lon,radius_m,visits,total_dwell_s,first_visit,last_visit,ssid,country_code,country,locality,source\r\n")
        let days = runCLI(["export", "--format", "geojson", "--what", "days", "--db", fixture.path, "--from", "2024-03-31"])
        #expect(days.stdout.components(separatedBy: "\"type\":\"Feature\"").count == 3)
    }

    @Test func emptySelectionWritesAValidEmptyFile() throws {
        let fixture = try ExportFixture.temporary()
        let geojson = runCLI(["export", "--format", "geojson", "--what", "trips", "--db", fixture.path, "--from", "2030-01-01"])
        #expect(geojson.status == 0)
        #expect(geojson.stdout == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
        #expect(geojson.stderr.contains("No trips match the selection; wrote an empty geojson file"))
        let file = fixture.directory + "/empty.gpx"
        let gpx = runCLI(["export", "--format", "gpx", "--what", "visits", "--db", fixture.path, "--from", "2030-01-01", "-o", file])
        #expect(gpx.status == 0)
        #expect(String(decoding: try FileSystem.read(file), as: UTF8.self).hasSuffix("</gpx>\n"))
        let csv = runCLI(["export", "--format", "csv", "--what", "points", "--db", fixture.path, "--from", "2030-01-01"])
        #expect(csv.stdout == "device,time,lat,lon,altitude_m,speed_mps,course_deg,accuracy_m,motion,flags,ssid\r\n")
    }

    /// The empty selection's GPX is valid GPX 1.1, by the schema.
    @Test(ClientTools.installed("xmllint")) func emptyGPXIsValidGPX() throws {
        let fixture = try ExportFixture.temporary()
        let file = fixture.directory + "/empty.gpx"
        let gpx = runCLI(["export", "--format", "gpx", "--what", "visits", "--db", fixture.path, "--from", "2030-01-01", "-o", file])
        #expect(gpx.status == 0)
        let result = try #require(try ClientTools.run("xmllint", ["--noout", "--schema", ClientTools.gpxSchema, file]))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func errorsLeaveExistingFilesAlone() throws {
        let fixture = try ExportFixture.temporary()
        let file = fixture.directory + "/keep.csv"
        try FileSystem.write("old\n", to: file)
        let device = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path, "--device", "watch", "-o", file])
        #expect(device.status == 1)
        #expect(device.stderr == "Error: no device named 'watch' (known devices: phone, tablet)\n")
        #expect(String(decoding: try FileSystem.read(file), as: UTF8.self) == "old\n")
        #expect(try FileSystem.list(fixture.directory).sorted() == ["fixture.sqlite", "fixture.sqlite-shm", "fixture.sqlite-wal", "keep.csv"].filter { FileSystem.exists(fixture.directory + "/" + $0) })

        let days = runCLI(["export", "--format", "gpx", "--what", "days", "--db", fixture.path])
        #expect(days.status == 64)
        #expect(days.stderr.contains("days have no location"))
        #expect(runCLI(["export", "--format", "kml", "--what", "trips", "--db", fixture.path]).status == 64)
        #expect(runCLI(["export", "--format", "csv", "--what", "tracks", "--db", fixture.path]).status == 64)
        #expect(runCLI(["export", "--what", "trips", "--db", fixture.path]).status == 64)
        #expect(runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path, "--from", "2024-03-02", "--to", "2024-03-01"]).status == 64)
        let missing = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.directory + "/none.sqlite"])
        #expect(missing.status == 1)
        #expect(!FileSystem.exists(fixture.directory + "/none.sqlite"))
        let noDir = runCLI(["export", "--format", "csv", "--what", "trips", "--db", fixture.path, "-o", fixture.directory + "/no/such/dir/x.csv"])
        #expect(noDir.status == 1)
        #expect(noDir.stderr.contains("cannot create a temporary file"))
    }
}

/// A failure after the temporary file exists removes it and leaves the target as it was.
/// Standard output that cannot be written (a full disk behind it) is an error, not a silent success.
@Suite struct StandardOutputErrorTests {
    @Test(arguments: [
        ["export", "--format", "csv", "--what", "points"],
        ["report", "trips", "--format", "csv"],
    ])
    func writingToAFullStandardOutputFails(_ command: [String]) throws {
        let binary = packageRoot() + "/.build/debug/tripline"
        try #require(FileSystem.exists(binary), "build the tripline binary first (swift build)")
        try #require(FileSystem.exists("/dev/full"), "this test needs /dev/full")
        let db = try ExportFixture.temporary().path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = [command[0], "--db", db] + command.dropFirst()
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let err = Pipe()
        p.standardError = err
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(text.contains("standard output"), "\(text)")
    }
}
