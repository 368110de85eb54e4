import Testing
import TriplineTestSupport

/// `tripline evaluate --geolife DIR...`: per-user rows, the pooled row, and trackintel's defaults beside.
@Suite struct EvaluateGeoLifeCLITests {
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func severalUsersArePooled() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let r = runCLI(["evaluate", "--geolife", corpus + "/geolife/080", "--geolife", corpus + "/geolife/086"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        let rows = lines.filter {
            $0.hasPrefix("   080 ") || $0.hasPrefix("   086 ") || ($0.hasPrefix("pooled ") && !$0.contains("confusion") && !$0.contains("labelled-time"))
        }
        #expect(rows.count == 6)  // 080, 086 and pooled, for Tripline and for trackintel
        // The pooled row sums the users' true trips (080: 8, 086: 6), in the strict columns after '|'.
        let pooled = try #require(rows.first { $0.hasPrefix("pooled") })
        let strict = pooled.split(separator: "|")[1].split(separator: " ", omittingEmptySubsequences: true)
        #expect(strict[1] == "14")
        // The headline: the labelled-time figures, pooled, with the oracle beside.
        let headline = try #require(lines.first { $0.hasPrefix("pooled labelled-time trips: truth ") })
        #expect(headline.contains("oracle F1") && headline.contains("3-class on observed time"))
        #expect(r.stdout.contains("trackintel 1.x defaults"))
        // The drift split by label file: neither file holds walk rows, so every true trip and every drift is the
        // second group's, as many as the headline counts.
        let split = try #require(lines.first { $0.hasPrefix("drift by label file") })
        let truth = try #require(headline.split(separator: "truth ")[1].split(separator: ",").first)
        let drift = try #require(headline.split(separator: "(")[1].split(separator: " ").first)
        #expect(split.hasSuffix("labels with walks (none): 0 drift beside 0 true trips; labels without (2 users): \(drift) drift beside \(truth) true trips"))
    }

    /// A label file with walk rows (010's) puts its user in the first group of the drift split.
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func theDriftSplitNamesTheFilesWithWalks() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let r = runCLI(["evaluate", "--geolife", corpus + "/geolife/010", "--geolife", corpus + "/geolife/080"])
        #expect(r.status == 0, "\(r.stderr)")
        let split = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("drift by label file") })
        #expect(split.contains("labels with walks (010): ") && split.contains("labels without (1 user): "))
    }

    /// Users of the lockbox are skipped, and named, unless --lockbox asks for them.
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func lockboxUsersAreKeptBack() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let r = runCLI(["evaluate", "--geolife", corpus + "/geolife-more/067"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("Kept back (the final test, scored once at the end with --lockbox): 067\n"))
        #expect(!r.stdout.contains("   067 "))
    }

    @Test func aFolderThatIsNoUserIsAnError() throws {
        let dir = try temporaryDirectory()
        let r = runCLI(["evaluate", "--geolife", dir])
        #expect(r.status != 0)
        #expect(r.stderr.contains("neither a GeoLife user folder"))
    }
}
