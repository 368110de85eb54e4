import Testing
@testable import TriplineStore

@testable import TriplineCore
@testable import TriplineExport
import TriplineTestSupport

@Suite struct MapCommandTests {
    @Test func writesThePageAndReportsWhatItDrew() throws {
        let store = try MapFixture.synthetic(days: 2)
        let output = FileSystem.directoryName(store.path) + "/out.html"
        let result = runCLI(["map", "--db", store.path, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let trips = try #require(try store.db.scalarInt("SELECT count(*) FROM trips"))
        let visits = try #require(try store.db.scalarInt("SELECT count(*) FROM visits"))
        #expect(result.stdout.contains("\(trips) trips and \(visits) visits drawn"))
        let bytes = try FileSystem.read(output)
        #expect(result.stdout.contains("Wrote \(output) ("))
        #expect(bytes == (try MapRenderer(store: store).render().bytes))
        #expect(try FileSystem.list(FileSystem.directoryName(output)).allSatisfy { !$0.contains(".tmp-") }, "no temporary file left")

        let json = runCLI(["map", "--db", store.path, "-o", output, "--json", "--from", "2024-03-04", "--to", "2024-03-04"])
        #expect(json.status == 0)
        #expect(json.stdout.hasPrefix("{\"path\":") && json.stdout.contains("\"trips\":"))
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let store = try MapFixture.synthetic(days: 1)
        let bad = runCLI(["map", "--db", store.path, "--from", "2024-13-01"])
        #expect(bad.status == 64 && bad.stderr.contains("--from 2024-13-01 is not a date"))
        let reversed = runCLI(["map", "--db", store.path, "--from", "2024-03-05", "--to", "2024-03-01"])
        #expect(reversed.status == 64)
        let device = runCLI(["map", "--db", store.path, "--device", "nobody", "-o", FileSystem.directoryName(store.path) + "/x.html"])
        #expect(device.status == 1 && device.stderr.contains("no device named 'nobody'") && device.stderr.contains("sim-phone"))
        #expect(!FileSystem.exists(FileSystem.directoryName(store.path) + "/x.html"))
        let missing = runCLI(["map", "--db", "/nonexistent/dir/t.sqlite"])
        #expect(missing.status == 1)
        #expect(runCLI(["help", "map"]).stdout.contains("USAGE: tripline map"))
        // --tiles goes through MapTiles' checks (MapGeographyTests): a bad template is a usage error, a good one draws.
        let cli = runCLI(["map", "--db", store.path, "--tiles", "https://a.org/{z}/{x}.png", "-o", FileSystem.directoryName(store.path) + "/t.html"])
        #expect(cli.status == 64 && cli.stderr.contains("bad --tiles template"))
        let ok = runCLI(["map", "--db", store.path, "--tiles", "https://tile.example.org/{z}/{x}/{y}.png", "-o", FileSystem.directoryName(store.path) + "/t.html"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
