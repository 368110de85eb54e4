import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplinePasses
@testable import TriplineExport
@testable import TriplineSimulator
@testable import TriplineEvaluation
@testable import TriplineCLI

/// `tripline export` end to end (in-process): destinations, filters by local day and device, empty selections,
/// errors, and atomic files.
@Suite struct ExportCommandTests {
    static func golden(_ name: String) throws -> String {
        String(decoding: try FileSystem.read(ExportGoldenTests.goldenDirectory + "/" + name), as: UTF8.self)
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
        #expect(places.stdout == "place_id,device,name,lat,lon,radius_m,visits,total_dwell_s,first_visit,last_visit,ssid,country_code,country,locality\r\n")
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
        if let result = try ClientTools.run("xmllint", ["--noout", "--schema", ClientTools.gpxSchema, file]) {
            #expect(result.status == 0, "\(result.stderr)")
        }
        let csv = runCLI(["export", "--format", "csv", "--what", "points", "--db", fixture.path, "--from", "2030-01-01"])
        #expect(csv.stdout == "device,time,lat,lon,altitude_m,speed_mps,course_deg,accuracy_m,motion,flags,ssid\r\n")
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
@Suite struct AtomicFileTests {
    @Test func failedExportLeavesNoTemporaryFile() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let target = fixture.directory + "/out/days.gpx"
        try FileSystem.createDirectory(fixture.directory + "/out")
        try FileSystem.write("previous\n", to: target)
        #expect(throws: ExportError.noGeometry(kind: .days, format: .gpx)) {
            try Exporter(store: store).export(.days, as: .gpx, toFile: target, stdout: OutputStream { _ in })
        }
        #expect(try FileSystem.list(fixture.directory + "/out") == ["days.gpx"])
        #expect(String(decoding: try FileSystem.read(target), as: UTF8.self) == "previous\n")
    }
}

/// The byte-level formatting every writer relies on.
@Suite struct ExportTextTests {
    func text(_ body: (ByteWriter) throws -> Void) rethrows -> String {
        let w = ByteWriter.memory(capacity: 8)  // tiny, so growth is exercised too
        try body(w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func numbers() throws {
        #expect(try text { try $0.append(fixed: 0.1 + 0.2, decimals: 7) } == "0.3")
        #expect(try text { try $0.append(fixed: 1e-5, decimals: 7) } == "0.00001")
        #expect(try text { try $0.append(fixed: -0.00000004, decimals: 7) } == "0")
        #expect(try text { try $0.append(fixed: -12.5, decimals: 3) } == "-12.5")
        #expect(try text { try $0.append(fixed: 13.4050000001, decimals: 7) } == "13.405")
        #expect(try text { try $0.append(fixed: -179.99999999, decimals: 7) } == "-180")
        #expect(try text { try $0.append(fixed: 123_456_789.123_456, decimals: 3) } == "123456789.123")
        #expect(try text { try $0.append(fixed: 1e20, decimals: 3) } == "100000000000000000000.000")
        #expect(try text { try $0.append(fixed: 2.5, decimals: 0) } == "3")
        #expect(try text { try $0.append(json: .nan, decimals: 3) } == "null")
        #expect(try text { try $0.append(int: Int64.min) } == "-9223372036854775808")
        #expect(try text { try $0.append(int: 0) } == "0")
    }

    /// The 7-decimal fast path (coordinates) writes exactly what the general fixed-point path writes.
    @Test func sevenDecimalFastPathMatchesTheGeneralPath() throws {
        var values: [Double] = [0, -0.0, 5e-8, -5e-8, 4.9e-8, 1e-7, 0.5, 9.99999995, 9.99999994, 10, 99.99999996, 100,
                                -100, 180, -180, 999.99999994, 999.99999995, 1000, -1000.5, 13.4050001, 52.5000001,
                                -0.1000000, 123.4567891, .nan, .infinity, -.infinity]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(x >> 11) / Double(1 << 53)
            values.append((unit - 0.5) * [2e-6, 2, 360, 2000][Int(x & 3)])
        }
        for v in values {
            let fast = try text { try $0.append(fixed: v, decimals: 7) }
            let general = try text { try $0.appendFixed(v, 7, 1e7, 10_000_000) }
            #expect(fast == general, "\(v)")
        }
    }

    @Test func times() throws {
        let ms = ExportFixture.ms(2024, 3, 1, 8, 0)
        #expect(try text { try $0.append(time: ms, offsetSeconds: 3600) } == "2024-03-01T09:00:00+01:00")
        #expect(try text { try $0.append(time: ms + 5, offsetSeconds: nil) } == "2024-03-01T08:00:00.005Z")
        #expect(try text { try $0.append(time: ms, offsetSeconds: -12600) } == "2024-03-01T04:30:00-03:30")
        #expect(try text { try $0.append(time: -1, offsetSeconds: 0) } == "1969-12-31T23:59:59.999+00:00")
        #expect(try text { try $0.append(time: ms, offsetSeconds: 75) } == "2024-03-01T08:00:00Z")  // not whole minutes
        // Agrees with CivilTime's String version on a spread of times and offsets.
        for step in stride(from: Int64(-2_000_000_000_000), to: 4_000_000_000_000, by: 77_777_777_777) {
            for offset: Int32 in [-43200, -3600, 0, 19800, 50400] {
                #expect(try text { try $0.append(time: step, offsetSeconds: offset) } == CivilTime.iso8601(ms: step, offsetSeconds: Int(offset)))
            }
        }
    }

    @Test func jsonEscaping() throws {
        #expect(try text { try $0.append(jsonString: "a\"b\\c\n\t\u{0}\u{1F}\u{7F}é\u{2028}😀") } == "\"a\\\"b\\\\c\\n\\t\\u0000\\u001f\u{7F}é\\u2028😀\"")
        let invalid: [UInt8] = [0x61, 0xED, 0xA0, 0x80, 0xC0, 0xAF, 0xF4, 0x90, 0x80, 0x80, 0xE2, 0x82, 0x62]
        let escaped = try text { w in try invalid.withUnsafeBytes { try w.append(escaped: $0, .json) } }
        #expect(escaped == "a" + String(repeating: "\u{FFFD}", count: 11) + "b")
    }

    @Test func xmlEscaping() throws {
        #expect(try text { try $0.append(escaped: "<a & \"b\" 'c'>\r\n\t\u{1}\u{FFFE}", .xmlText) } == "&lt;a &amp; \"b\" 'c'&gt;&#13;\n\t\u{FFFD}\u{FFFD}")
        #expect(try text { try $0.append(escaped: "\"'\t\n", .xmlAttribute) } == "&quot;&apos;&#9;&#10;")
    }

    @Test func csvFields() throws {
        #expect(try text { try $0.append(csv: "plain") } == "plain")
        #expect(try text { try $0.append(csv: "a,b") } == "\"a,b\"")
        #expect(try text { try $0.append(csv: "say \"hi\"") } == "\"say \"\"hi\"\"\"")
        #expect(try text { try $0.append(csv: "two\nlines") } == "\"two\nlines\"")
        #expect(try text { try $0.append(csv: " padded") } == "\" padded\"")
        for formula in ["=1+2", "+1", "-1", "@SUM(A1)", "\tx"] {
            #expect(try text { try $0.append(csv: formula) } == "'" + formula)
        }
        #expect(try text { try $0.append(csv: "=a,b") } == "\"'=a,b\"")
        #expect(try text { try $0.append(csvNumber: -12.5, decimals: 3) } == "-12.5")
        #expect(try text { try $0.append(csv: "bell\u{7}") } == "bell\u{FFFD}")
    }

    @Test func zoneOffsets() throws {
        let berlin = try #require(TimeZoneTable.named("Europe/Berlin"))
        let change = ExportFixture.ms(2024, 3, 31, 1, 0)
        #expect(berlin.offset(at: change - 1) == 3600)
        #expect(berlin.offset(at: change) == 7200)
        #expect(berlin.offset(at: ExportFixture.ms(2024, 10, 27, 0, 59)) == 7200)
        #expect(berlin.offset(at: ExportFixture.ms(2024, 10, 27, 1, 0)) == 3600)
        #expect(TimeZoneTable.named("Asia/Kolkata")?.offset(at: change) == 19800)
        #expect(TimeZoneTable.named("Not/AZone") == nil)
        var local = LocalTime(zone: berlin)
        #expect(local.offset(nil, atMs: change) == 7200)
        #expect(local.offset(-18000, atMs: change) == -18000)
        #expect(local.offset(nil, atMs: change - 1) == 3600)
        // Offset changes that are not daylight saving time are in the table too (Moscow: +04:00 in 2013, +03:00 since 2014-10-26).
        let moscow = try #require(TimeZoneTable.named("Europe/Moscow"))
        #expect(moscow.offset(at: ExportFixture.ms(2013, 6, 1, 0, 0)) == 14400)
        #expect(moscow.offset(at: ExportFixture.ms(2015, 6, 1, 0, 0)) == 10800)
        var utc = LocalTime(zone: nil)
        #expect(utc.offset(nil, atMs: change) == nil)
    }
}

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
