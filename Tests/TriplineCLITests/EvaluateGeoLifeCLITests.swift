import Testing
import TriplineTestSupport

/// `tripline evaluate --geolife DIR...`: per-user rows, the pooled row, and trackintel's defaults beside.
@Suite struct EvaluateGeoLifeCLITests {
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func severalUsersArePooled() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let r = runCLI(["evaluate", "--geolife", corpus + "/geolife/080", "--geolife", corpus + "/geolife/086"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let rows = lines.filter { $0.hasPrefix("   080 ") || $0.hasPrefix("   086 ") || ($0.hasPrefix("pooled ") && !$0.contains("confusion")) }
        #expect(rows.count == 6)  // 080, 086 and pooled, for Tripline and for trackintel
        // The pooled row sums the users' true trips (080: 8, 086: 6).
        let pooled = try #require(rows.first { $0.hasPrefix("pooled") })
        #expect(pooled.split(separator: " ", omittingEmptySubsequences: true)[2] == "14")
        #expect(r.stdout.contains("trackintel 1.x defaults"))
    }

    @Test func aFolderThatIsNoUserIsAnError() throws {
        let dir = try temporaryDirectory()
        let r = runCLI(["evaluate", "--geolife", dir])
        #expect(r.status != 0)
        #expect(r.stderr.contains("neither a GeoLife user folder"))
    }
}
