import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// Each report in `Queries/` on the fixture, with results worked out by hand from `ExportFixture`'s rows
/// (CSV output: reals with at most 7 decimals, so SQL's `round(x, 1)` of 300.0 prints as `300`).
@Suite struct ReportTests {
    static func report(_ name: String, _ extra: [String] = [], path: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let db = try path ?? ExportFixture.temporary().path
        return runCLI(["report", name, "--db", db, "--format", "csv"] + extra)
    }

    static func rows(_ lines: [String]) -> String { lines.map { $0 + "\r\n" }.joined() }

    @Test func dailySummary() throws {
        let all = try ReportTests.report("daily-summary")
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stdout
                == ReportTests.rows([
                    "date,device,distance_km,moving_h,trips,visits,places",
                    "2024-03-01,phone,5.7,0.48,2,3,2",  // 5700.5 m, 1740 s
                    "2024-03-31,tablet,0,0,0,1,0",
                    "2024-04-01,tablet,2.22,0.31,1,0,0",  // 2222.25 m, 1100 s
                ]))
        let some = try ReportTests.report("daily-summary", ["--from", "2024-03-31", "--to", "2024-03-31", "--device", "tablet"])
        #expect(some.stdout == ReportTests.rows(["date,device,distance_km,moving_h,trips,visits,places", "2024-03-31,tablet,0,0,0,1,0"]))
    }

    @Test func monthlySummary() throws {
        let result = try ReportTests.report("monthly-summary")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "month,device,days,distance_km,moving_h,trips,visits,distinct_places",
                    "2024-03,phone,1,5.7,0.5,2,3,2",  // Home and Work
                    "2024-03,tablet,1,0,0,0,1,0",  // the tablet's visit has no place
                    "2024-04,tablet,1,2.2,0.3,1,0,0",
                ]))
    }

    @Test func topPlaces() throws {
        let result = try ReportTests.report("top-places")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "place_id,place,device,visits,dwell_h,avg_visit_min,first_visit,last_visit",
                    "1,Home,phone,2,13.5,405,2024-03-01,2024-03-01",  // 8 h + 5 h 30
                    "2,Work,phone,1,8.83,530,2024-03-01,2024-03-01",  // 8 h 50
                ]))
        let none = try ReportTests.report("top-places", ["--from", "2024-03-02"])
        #expect(none.stdout == ReportTests.rows(["place_id,place,device,visits,dwell_h,avg_visit_min,first_visit,last_visit"]))
    }

    @Test func travelByMode() throws {
        let result = try ReportTests.report("travel-by-mode")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "month,device,mode,legs,trips,distance_km,hours,avg_kmh",
                    "2024-03,phone,car,1,1,3.8,0.42,9.1",  // 3800.5 m in 1500 s
                    "2024-03,phone,walk,2,2,1.9,0.25,7.6",  // 1500 + 400 m in 600 + 300 s
                    "2024-04,tablet,bike,1,1,2.22,0.33,6.7",  // trip 3 starts 2024-04-01 in Berlin, not UTC's 03-31
                ]))
    }

    @Test func trackingQuality() throws {
        let result = try ReportTests.report("tracking-quality")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "date,device,points,flagged,gaps,longest_gap_min,covered_share,rejected",
                    // 11 + 1 + 22 points; gaps 08:10→12:00, 12:00→17:00, 17:10→17:20; 30 one-minute steps covered.
                    "2024-03-01,phone,34,1,3,300,0.021,",
                    "total,phone,34,1,3,300,0.021,2",
                    // 00:30Z and 01:30Z: one gap of an hour.
                    "2024-03-31,tablet,2,0,1,60,0,",
                    // 22:00Z–22:20Z (2024-04-01 local) every 2 min, after a gap of 20 h 30.
                    "2024-04-01,tablet,11,0,1,1230,0.014,",
                    "total,tablet,13,0,2,1230,0.007,1",
                ]))
        let one = try ReportTests.report("tracking-quality", ["--device", "tablet", "--from", "2024-04-01"])
        #expect(
            one.stdout
                == ReportTests.rows([
                    "date,device,points,flagged,gaps,longest_gap_min,covered_share,rejected",
                    "2024-04-01,tablet,11,0,1,1230,0.014,", "total,tablet,11,0,1,1230,0.014,1",
                ]))
    }

    /// A day of OwnTracks fixes in Auckland (no offset of their own, no `--timezone`): one local day in the reports
    /// of points, as in the exports and `days`; before, `tracking-quality` split it into two UTC days of 360 fixes and
    /// `devices-overview` gave UTC times (the ninth hostile round).
    @Test func pointsWithoutAnOffsetAreOnTheirZonesDay() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/rec/u/ph", withIntermediateDirectories: true)
        var lines = ""
        let t0 = 1_717_416_000  // 2024-06-03T12:00:00Z, 00:00 on 2024-06-04 in Auckland (+12:00)
        for i in 0..<720 {
            let t = t0 + i * 120
            let stamp = CivilTime.iso8601(ms: Int64(t) * 1000)
            lines += "\(stamp)\t*                 \t{\"_type\":\"location\",\"lat\":-36.8485,\"lon\":174.7633,\"tst\":\(t),\"acc\":10,\"tid\":\"ph\"}\n"
        }
        try lines.write(toFile: dir + "/rec/u/ph/2024-06.rec", atomically: true, encoding: .utf8)
        let db = dir + "/t.sqlite"
        #expect(runCLI(["import", "--db", db, "--quiet", dir + "/rec"]).status == 0)
        let quality = try ReportTests.report("tracking-quality", path: db)
        #expect(quality.stdout.split(separator: "\r\n").dropFirst().map { $0.split(separator: ",").prefix(3).joined(separator: ",") }
                == ["2024-06-04,u/ph,720", "total,u/ph,720"], "\(quality.stdout)")
        let day = try ReportTests.report("tracking-quality", ["--from", "2024-06-04", "--to", "2024-06-04"], path: db)
        #expect(day.stdout.contains("2024-06-04,u/ph,720,"))
        let overview = try ReportTests.report("devices-overview", path: db)
        #expect(overview.stdout.contains(",2024-06-04T00:00:00+12:00,2024-06-04T23:58:00+12:00,"), "\(overview.stdout)")
    }

    /// A `Records.json` of two device tags is one import of two devices (the eleventh hostile round: both had 0
    /// imports and 0 rejects, where `info` showed 1 and 1): each counts it, and its reject.
    @Test func aFileOfTwoDevicesIsAnImportOfEach() throws {
        let dir = try temporaryDirectory()
        var records: [String] = []
        for i in 0..<20 {
            for tag in [111, 222] {
                records.append("{\"latitudeE7\":525000000,\"longitudeE7\":\(133_000_000 + i),\"accuracy\":10,\"deviceTag\":\(tag),"
                               + "\"timestamp\":\"2024-06-10T10:\(i < 10 ? "0" : "")\(i):\(tag == 111 ? "00" : "30").000Z\"}")
            }
        }
        records.append("{\"latitudeE7\":525000000,\"longitudeE7\":133000000,\"deviceTag\":111,\"timestamp\":\"2024-06-31T10:00:00.000Z\"}")
        try FileSystem.write("{\"locations\":[" + records.joined(separator: ",") + "]}", to: dir + "/Records.json")
        let db = dir + "/t.sqlite"
        #expect(runCLI(["import", "--db", db, "--device", "alice", "--quiet", dir + "/Records.json"]).status == 0)
        let overview = try ReportTests.report("devices-overview", path: db)
        let rows = overview.stdout.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 3, "\(overview.stdout)")
        let imports = rows[0].firstIndex(of: "imports")!, rejected = rows[0].firstIndex(of: "rejected")!
        #expect(rows.dropFirst().map { [$0[imports], $0[rejected]] } == [["1", "1"], ["1", "1"]], "\(overview.stdout)")
        // `tracking-quality`'s total rows count the reject for each too (the twelfth hostile round: 0 and 0).
        let quality = try ReportTests.report("tracking-quality", path: db)
        let lines = quality.stdout.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let qualityRejected = try #require(lines.first?.firstIndex(of: "rejected"))
        #expect(lines.filter { $0.first == "total" }.map { $0[qualityRejected] } == ["1", "1"], "\(quality.stdout)")
    }

    @Test func devicesOverview() throws {
        let result = try ReportTests.report("devices-overview")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "device,source,points,first_point,last_point,days,imports,rejected,flagged,trips,distance_km,visits,places",
                    "phone,overland,34,2024-03-01T09:00:00+01:00,2024-03-01T18:30:00+01:00,1,1,2,1,2,5.7,3,2",
                    "tablet,owntracks,13,2024-03-31T01:30:00+01:00,2024-04-01T00:20:00+02:00,2,1,1,0,1,2.2,1,0",
                ]))
    }

    @Test func appAgreement() throws {
        let result = try ReportTests.report("app-agreement")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == ReportTests.rows([
                    "month,device,app_trips,matched,matched_pct,same_mode_pct,same_class_pct,mean_overlap,mean_start_diff_s,mean_end_diff_s,mean_distance_diff_m",
                    // The app visit event is not a trip; the app's 'hike' is Tripline's 'walk' (and on foot).
                    "2024-03,phone,2,1,50,100,100,0.8,60,60,50",
                ]))
    }

    /// `--list` honours `--format`: JSON objects and CSV rows carry the same names and descriptions as the table.
    @Test func listInJSONAndCSV() throws {
        let table = runCLI(["report", "--list"]).stdout.split(separator: "\n")
        let json = runCLI(["report", "--list", "--format", "json"])
        #expect(json.status == 0)
        #expect(json.stdout.hasPrefix("[{\"name\":\"app-agreement\",\"description\":\"Agreement with the app's own trip records"))
        #expect(json.stdout.components(separatedBy: "{\"name\":").count - 1 == table.count)
        let csv = runCLI(["report", "--list", "--format", "csv"])
        #expect(csv.stdout.hasPrefix("name,description\r\napp-agreement,"))
        #expect(csv.stdout.components(separatedBy: "\r\n").count - 2 == table.count)
        #expect(runCLI(["report", "--list", "--format", "xml"]).status == 64)
    }

    /// Reports and exports of a database that was imported but never rebuilt say why they are empty.
    @Test func neverRebuiltSaysWhyItIsEmpty() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), to: dir + "/ok.json")
        let db = dir + "/t.sqlite"
        #expect(runCLI(["import", "--db", db, "--quiet", dir + "/ok.json"]).status == 0)
        let report = runCLI(["report", "trips", "--db", db, "--format", "csv"])
        #expect(report.status == 0)
        #expect(report.stderr.contains("'phone' was imported but never rebuilt") && report.stderr.contains("run 'tripline rebuild' first"), "\(report.stderr)")
        let export = runCLI(["export", "--db", db, "--format", "csv", "--what", "visits"])
        #expect(export.stderr.contains("never rebuilt"), "\(export.stderr)")
        let points = runCLI(["export", "--db", db, "--format", "csv", "--what", "points"])
        #expect(!points.stderr.contains("never rebuilt"), "points need no rebuild")
        #expect(runCLI(["rebuild", "--db", db, "--quiet"]).status == 0)
        #expect(!runCLI(["report", "trips", "--db", db, "--format", "csv"]).stderr.contains("never rebuilt"))
    }

    @Test func listShowsEveryReportWithItsDescription() throws {
        let result = runCLI(["report", "--list"])
        #expect(result.status == 0)
        let names = [
            "app-agreement", "cities-visited", "countries-visited", "daily-summary", "devices-overview", "gaps",
            "monthly-by-country", "monthly-summary", "top-places", "tracking-quality", "travel-by-mode", "trips", "visits", "year-in-review",
        ]
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == names.count)
        for (line, name) in zip(lines, names) {
            #expect(line.hasPrefix(name + " "))
        }
        #expect(result.stdout.contains("daily-summary       Daily summary: distance, moving time, trips, visits and places per local day and device."))
    }

    @Test func tableAndJSONFormats() throws {
        let db = try ExportFixture.temporary().path
        let table = runCLI(["report", "daily-summary", "--db", db, "--format", "table"])
        #expect(
            table.stdout == """
                date        device  distance_km  moving_h  trips  visits  places
                ----------  ------  -----------  --------  -----  ------  ------
                2024-03-01  phone           5.7      0.48      2       3       2
                2024-03-31  tablet            0         0      0       1       0
                2024-04-01  tablet         2.22      0.31      1       0       0
                (3 rows)

                """)
        let json = runCLI(["report", "daily-summary", "--db", db, "--format", "json", "--to", "2024-03-01"])
        #expect(json.stdout == "[\n{\"date\":\"2024-03-01\",\"device\":\"phone\",\"distance_km\":5.7,\"moving_h\":0.48,\"trips\":2,\"visits\":3,\"places\":2}\n]\n")
        let empty = runCLI(["report", "daily-summary", "--db", db, "--format", "json", "--from", "2030-01-01"])
        #expect(empty.stdout == "[]\n")
    }

    @Test func badArgumentsAreReported() throws {
        let db = try ExportFixture.temporary().path
        let unknown = runCLI(["report", "daily-sumary", "--db", db])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Did you mean 'daily-summary'?"))
        let device = runCLI(["report", "daily-summary", "--db", db, "--device", "watch"])
        #expect(device.status == 1)
        #expect(device.stderr.contains("no device named 'watch' (known devices: phone, tablet)"))
        let date = runCLI(["report", "daily-summary", "--db", db, "--from", "2024-02-30"])
        #expect(date.status == 64)
        // SQL text where the query file goes (as sqlite3 takes it): the error says how to give it.
        let text = runCLI(["query", "SELECT count(*) FROM trips", "--db", db])
        #expect(text.status == 1)
        #expect(text.stderr.contains("echo 'SELECT count(*) FROM trips' | tripline query -"), "\(text.stderr)")
        let quoted = runCLI(["query", "SELECT name FROM devices WHERE name = 'x'", "--db", db])
        #expect(quoted.stderr.contains("echo '<your SQL>' | tripline query -"), "\(quoted.stderr)")
        let missing = runCLI(["query", "nosuch.sql", "--db", db])
        #expect(missing.status == 1 && !missing.stderr.contains("echo"), "a missing file is named, no SQL hint")
    }
}

/// `tripline query FILE.sql`: multi-statement files, bound parameters, the local-time functions, read-only access.
@Suite struct QueryTests {
    @Test func runsEveryStatementAndBindsParameters() throws {
        let fixture = try ExportFixture.temporary()
        let file = fixture.directory + "/mine.sql"
        let dst = ExportFixture.ms(2024, 3, 31, 1, 30)
        try FileSystem.write(
            """
            -- My query: devices matching :device, then a time in the rebuild's zone.
            CREATE TEMP TABLE chosen AS SELECT name FROM devices WHERE :device IS NULL OR name = :device;

            SELECT count(*) AS n, :timezone AS zone FROM chosen;
            SELECT tripline_local_time(\(dst), NULL) AS t, tripline_local_date(\(dst), -7200) AS d, :from AS f;
            SELECT tripline_local_time(\(dst + 999), 7200) AS ms, tripline_local_time(\(dst - 1), 7200) AS before;
            """, to: file)
        let result = runCLI(["query", file, "--db", fixture.path, "--format", "csv", "--device", "tablet", "--from", "2024-01-01"])
        #expect(result.status == 0, "\(result.stderr)")
        // Times are to the second (milliseconds dropped, never rounded up into the next second).
        #expect(result.stdout == "n,zone\r\n1,Europe/Berlin\r\n\r\nt,d,f\r\n2024-03-31T03:30:00+02:00,2024-03-30,2024-01-01\r\n"
            + "\r\nms,before\r\n2024-03-31T03:30:00+02:00,2024-03-31T03:29:59+02:00\r\n")
        // A value that looks like SQL stays a value: it is bound, not pasted in.
        let hostile = runCLI(["query", file, "--db", fixture.path, "--format", "csv", "--device", "x' OR '1'='1"])
        #expect(hostile.status == 1)
        #expect(hostile.stderr.contains("no device named"))
    }

    /// Extreme arguments to Tripline's SQL functions give NULL, never an overflow trap (which would end the process,
    /// and this test runner with it).
    @Test func localTimeFunctionsAreTotalOnExtremeArguments() throws {
        let fixture = try ExportFixture.temporary()
        let file = fixture.directory + "/extreme.sql"
        let times = ["-9223372036854775808", "9223372036854775807", "-9.3e18", "1e308", "-1e308", "9e999", "-9e999", "'x'", "NULL",
                     "8640000000000001", "-8640000000000000", "0"]
        let offsets = ["-9223372036854775808", "9223372036854775807", "1e300", "-2147483649", "64801", "-64800", "0", "NULL", "0.5"]
        var selects: [String] = []
        for (i, ms) in times.enumerated() {
            for (j, offset) in offsets.enumerated() {
                selects.append("SELECT \(i * 100 + j) AS k, tripline_local_time(\(ms), \(offset)) AS t, tripline_local_date(\(ms), \(offset)) AS d;")
            }
        }
        try FileSystem.write(selects.joined(separator: "\n"), to: file)
        let result = runCLI(["query", file, "--db", fixture.path, "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        var rows: [Int: String] = [:]
        for line in result.stdout.split(separator: "\r\n") where !line.hasPrefix("k,") {
            let comma = try #require(line.firstIndex(of: ","))
            rows[Int(line[..<comma])!] = String(line[line.index(after: comma)...])
        }
        #expect(rows.count == times.count * offsets.count)
        #expect(rows[0 * 100 + 6] == ",", "an Int64.min time gives NULL")
        #expect(rows[1 * 100 + 6] == ",", "an Int64.max time gives NULL")
        #expect(rows[11 * 100 + 1] == ",", "an Int64.max offset gives NULL")
        #expect(rows[11 * 100 + 4] == ",", "an offset beyond 18 h gives NULL")
        #expect(rows[11 * 100 + 5] == "1969-12-31T06:00:00-18:00,1969-12-31")
        #expect(rows[11 * 100 + 7] == "1970-01-01T01:00:00+01:00,1970-01-01", "no offset: the fixture's zone, Europe/Berlin")
        #expect(rows[9 * 100 + 6] == ",", "one millisecond past the limit gives NULL")
        #expect(rows[10 * 100 + 6]?.hasPrefix("-") == true || rows[10 * 100 + 6]?.hasPrefix("\"") == true || rows[10 * 100 + 6]?.hasPrefix("'") == true,
                "the limit itself is a time: \(rows[10 * 100 + 6] ?? "nil")")
    }

    @Test func unknownParametersAndWritesAreRefused() throws {
        let fixture = try ExportFixture.temporary()
        let file = fixture.directory + "/bad.sql"
        try FileSystem.write("SELECT 1;\n\nSELECT :foo;\n", to: file)
        let unknown = runCLI(["query", file, "--db", fixture.path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("line 3: unknown parameter ':foo'"))
        try FileSystem.write("DELETE FROM trips;\n", to: file)
        let write = runCLI(["query", file, "--db", fixture.path])
        #expect(write.status == 1)
        #expect(write.stderr.contains("not authorized"))  // the authorizer refuses it (issue 12), before SQLite's read-only mode would
        let store = try Store(path: fixture.path, create: false)
        #expect(try store.db.scalarInt("SELECT count(*) FROM trips") == 3)
        try FileSystem.write("SELEC nonsense;\n", to: file)
        let syntax = runCLI(["query", file, "--db", fixture.path])
        #expect(syntax.status == 1)
        #expect(syntax.stderr.contains("line 1"))
        #expect(syntax.stderr.contains(file))
    }
}

/// `EmbeddedQueries.swift` must hold exactly the files of `Queries/`: rerun `scripts/embed-queries.sh` after editing.
@Suite struct EmbeddedQueriesTests {
    @Test func embeddedTextsMatchTheFiles() throws {
        let directory = packageRoot() + "/Queries"
        let files = try FileSystem.list(directory).filter { $0.hasSuffix(".sql") }
        let embedded = Dictionary(uniqueKeysWithValues: embeddedQueries.map { ($0.name, $0.sql) })
        #expect(Set(files.map { String($0.dropLast(4)) }) == Set(embedded.keys), "Queries/ and EmbeddedQueries.swift differ: run scripts/embed-queries.sh")
        for file in files {
            let text = String(decoding: try FileSystem.read(directory + "/" + file), as: UTF8.self)
            #expect(embedded[String(file.dropLast(4))] == text, "\(file) changed since EmbeddedQueries.swift was generated: run scripts/embed-queries.sh")
        }
    }

    /// With a resource root holding `Queries/`, the files there are used (and they equal the built-in ones).
    @Test func resourceRootFilesAreUsedWhenPresent() throws {
        let fromFiles = try ReportCatalog.all(resourceRoot: packageRoot())
        let builtIn = try ReportCatalog.all()
        #expect(fromFiles.map(\.name) == builtIn.map(\.name))
        #expect(fromFiles.map(\.sql) == builtIn.map(\.sql))
        #expect(fromFiles.allSatisfy { $0.source.hasSuffix(".sql") && !$0.source.contains("built in") })
        #expect(builtIn.allSatisfy { $0.source.contains("built in") })
    }

    @Test func everyReportHasADescriptionAndRunsOnAnEmptyDatabase() throws {
        let directory = try temporaryDirectory()
        _ = try Store(path: directory + "/empty.sqlite")
        for query in try ReportCatalog.all() {
            #expect(!query.description.isEmpty, "\(query.name) has no first comment line")
            let result = runCLI(["report", query.name, "--db", directory + "/empty.sqlite", "--format", "csv"])
            #expect(result.status == 0, "\(query.name): \(result.stderr)")
        }
    }
}

/// The built `tripline` binary, copied somewhere else and run from yet another directory, still finds its reports
/// (they are compiled in, not looked up beside the sources).
@Suite struct InstalledBinaryTests {
    @Test func reportsWorkFromAnInstalledBinaryInAnyDirectory() throws {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var built = testBinary.deletingLastPathComponent().appendingPathComponent("tripline").path
        if !FileManager.default.fileExists(atPath: built) {
            built = packageRoot() + "/.build/debug/tripline"
        }
        guard FileManager.default.isExecutableFile(atPath: built) else {
            Issue.record("the tripline executable was not found next to the tests (\(built)); build it with 'swift build'")
            return
        }
        let fixture = try ExportFixture.temporary()
        let installed = fixture.directory + "/bin/tripline"
        try FileSystem.createDirectory(fixture.directory + "/bin")
        try FileManager.default.copyItem(atPath: built, toPath: installed)
        let elsewhere = fixture.directory + "/elsewhere"
        try FileSystem.createDirectory(elsewhere)
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: installed)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: elsewhere)
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let list = try run(["report", "--list"])
        #expect(list.0 == 0)
        #expect(list.1 == runCLI(["report", "--list"]).stdout)
        let daily = try run(["report", "daily-summary", "--db", fixture.path, "--format", "csv"])
        #expect(daily.0 == 0)
        #expect(daily.1.hasPrefix("date,device,distance_km,moving_h,trips,visits,places\r\n2024-03-01,phone,5.7,0.48,2,3,2\r\n"))
    }
}

/// The listing reports `trips` and `visits` on the fixture.
@Suite struct ListingReportTests {
    @Test func trips() throws {
        let all = try ReportTests.report("trips")
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stdout
                == ReportTests.rows([
                    "trip,device,start,end,distance_km,moving_min,mode,legs,from_place,to_place,source",
                    "1,phone,2024-03-01T09:00:00+01:00,2024-03-01T09:10:00+01:00,1.5,9,walk,walk,Home,Work,points",
                    "2,phone,2024-03-01T18:00:00+01:00,2024-03-01T18:30:00+01:00,4.2,20,car,walk→car,Work,Home,points",
                    // no offset of its own: Europe/Berlin from settings, already April 1st there
                    "3,tablet,2024-04-01T00:00:00+02:00,2024-04-01T00:20:00+02:00,2.22,18.3,bike,bike,,,points",
                ]))
        let april = try ReportTests.report("trips", ["--from", "2024-04-01"])
        #expect(april.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2)
        let phone = try ReportTests.report("trips", ["--device", "phone", "--to", "2024-03-01"])
        #expect(phone.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3)
    }

    @Test func visits() throws {
        let all = try ReportTests.report("visits")
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.stdout
                == ReportTests.rows([
                    "visit,device,place,arrival,departure,hours,points,source",
                    "1,phone,Home,2024-03-01T01:00:00+01:00,2024-03-01T09:00:00+01:00,8,20,points",
                    "2,phone,Work,2024-03-01T09:10:00+01:00,2024-03-01T18:00:00+01:00,8.83,30,points",
                    "3,phone,Home,2024-03-01T18:30:00+01:00,2024-03-02T00:00:00+01:00,5.5,15,points",
                    "4,tablet,,2024-03-31T01:30:00+01:00,2024-03-31T03:30:00+02:00,1,2,points",
                ]))
        let tablet = try ReportTests.report("visits", ["--device", "tablet"])
        #expect(tablet.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2)
        let unknown = try ReportTests.report("visits", ["--device", "nobody"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("nobody"))
    }
}
