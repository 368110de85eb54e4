import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Values from the command line and from files are bound as SQL parameters, never pasted into SQL. Runs the built
/// binary (as a user would).
@Suite struct SecurityTests {
    init() throws { try #require(Binary.exists, "build the tripline binary first (swift build)") }

    static let injection = "x' OR 1=1 --"

    /// A database with a device literally named like an injection (3 points) and an ordinary one (5 points).
    func database() throws -> (db: String, dir: String) {
        let dir = try temporaryDirectory()
        let db = dir + "/t.sqlite"
        let mine = (0..<3).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8 + Double($0) / 1000, device: "") }
        let other = (0..<5).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 40, lon: 2, device: "p") }
        try FileSystem.write(overlandBody(mine), to: dir + "/a.json")
        try FileSystem.write(overlandBody(other), to: dir + "/b.json")
        #expect(runCLI(["import", "--db", db, "--quiet", "--device", SecurityTests.injection, dir + "/a.json"]).status == 0)
        #expect(runCLI(["import", "--db", db, "--quiet", dir + "/b.json"]).status == 0)
        return (db, dir)
    }

    /// The data rows of CSV output (RFC 4180 CRLF line ends: "\r\n" is one Character in Swift).
    func dataRows(_ csv: String) -> [Substring] { Array(csv.split(whereSeparator: \.isNewline).dropFirst()) }

    @Test func exportSelectsExactlyTheNamedDevice() throws {
        let (db, dir) = try database()
        let r = try Binary.run(["export", "--db", db, "--what", "points", "--format", "csv", "-o", dir + "/out.csv", "--device", SecurityTests.injection])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = dataRows(String(decoding: try FileSystem.read(dir + "/out.csv"), as: UTF8.self))
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.hasPrefix(SecurityTests.injection + ",") })  // none of device p's points
    }

    @Test func injectionShapedUnknownDevicesReturnNothingAndNoSQLError() throws {
        let (db, dir) = try database()
        for name in ["y' OR '1'='1", "p' --", "p\"; DROP TABLE points; --", "%", "_"] {
            let r = try Binary.run(["export", "--db", db, "--what", "points", "--format", "csv", "-o", dir + "/x.csv", "--device", name])
            #expect(!r.stderr.contains("SQLite error") && !r.stderr.contains("syntax"), "\(name): \(r.stderr)")
            if r.status == 0 {
                #expect(dataRows(String(decoding: try FileSystem.read(dir + "/x.csv"), as: UTF8.self)).isEmpty, "\(name)")
            } else {
                #expect(r.stderr.contains("no device named"), "\(name): \(r.stderr)")
            }
            let report = try Binary.run(["report", "devices-overview", "--db", db, "--format", "csv", "--device", name])
            #expect(!report.stderr.contains("SQLite error"), "\(name): \(report.stderr)")
            #expect(report.status != 0 ? report.stderr.contains("no device named") : dataRows(report.stdout).isEmpty, "\(name)")
        }
        // Nothing was dropped.
        #expect(try Store(path: db).db.scalarInt("SELECT count(*) FROM points") == 8)
    }

    @Test func reportsAndQueriesBindTheDevice() throws {
        let (db, dir) = try database()
        let report = try Binary.run(["report", "devices-overview", "--db", db, "--format", "csv", "--device", SecurityTests.injection])
        #expect(report.status == 0, "\(report.stderr)")
        let rows = dataRows(report.stdout)
        #expect(rows.count == 1 && rows[0].contains(",3,"), "\(report.stdout)")
        // A user's query with :device.
        try FileSystem.write("SELECT count(*) AS n FROM points p JOIN devices d ON d.id = p.device_id WHERE d.name = :device", to: dir + "/q.sql")
        let query = try Binary.run(["query", dir + "/q.sql", "--db", db, "--format", "csv", "--device", SecurityTests.injection])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(dataRows(query.stdout) == ["3"], "\(query.stdout)")
    }
}
