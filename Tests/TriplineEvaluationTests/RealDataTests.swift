import Testing
@testable import TriplineEvaluation
import TriplineTestSupport

/// Scores on real labelled data. Reference: trackintel 1.4.2 with its defaults scores trip F1 0.165 (010) and
/// 0.913 (020), and 3-class mode accuracy 0.52 and 0.20. Trip F1 is over labelled time (rebuilt trips that overlap no
/// label are left out, as in trackintel's 0.913; with them trackintel scores 0.857 on 020).
@Suite(.enabled(if: Corpus.available, Corpus.absent)) struct RealDataTests {
    @Test func geolife010() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let s = try RealDataEvaluation.geolife(userDirectory: corpus + "/geolife/010", workDirectory: try temporaryDirectory())
        print("GeoLife 010: " + s.report)
        #expect(s.points == 42_588)
        #expect(s.labelledFoundTrips == s.foundTrips)  // every point of 010 lies inside a label
        #expect(s.tripF1 >= 0.92 && s.tripF1 > 0.165)
        // Held out (leave-one-user-out, docs/PASSES.md): 0.94 trip F1, 0.956 3-class over observed labelled time.
        #expect(s.modeAccuracy >= 0.93 && s.modeAccuracy > 0.52)
        // Bus / car / train: the intercity train (p95 62 m/s) is a train though not entered on foot
        // (trips.rail_min_mps), and taxi → train → subway are separate legs at the silences between them (trips.leg_gap_s).
        #expect(s.exactModeAccuracy >= 0.63)  // held out 0.655
    }

    @Test func geolife020() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let s = try RealDataEvaluation.geolife(userDirectory: corpus + "/geolife/020", workDirectory: try temporaryDirectory())
        print("GeoLife 020: " + s.report)
        #expect(s.points == 20_638)
        // Three files of 020 have no labels at all; trips rebuilt there count against the raw F1 only.
        #expect(s.foundTrips - s.labelledFoundTrips == 3)
        // 0.93 (raw 0.88) before the drift-or-walk model (issue 23, docs/PASSES.md "Learned: drift or walk"): it drops two
        // of 020's short walks back to where they started, which 020 (with 010 the only users whose walks are labelled)
        // labels and the other users' labels cannot tell from drift. trackintel's 0.913 on 020 is no longer beaten here;
        // pooled over the 22 development users, held out, the model lifts labelled-time trip F1 0.738 → 0.784.
        #expect(s.tripF1 >= 0.87)
        #expect(s.rawTripF1 >= 0.82)
        // Held out 0.845 (3-class and exact alike: 020 only rides bikes and buses and walks); 0.852 with the defaults.
        #expect(s.modeAccuracy >= 0.82 && s.modeAccuracy > 0.20)
        #expect(s.exactModeAccuracy >= 0.82)
    }

    /// All GeoLife users of the development set, pooled, with the defaults. Leave-one-user-out (`tripline-bench tune`,
    /// docs/PASSES.md, grid `scripts/loo-grid.txt`) gives 0.71 trip F1 and 0.880 3-class held out; the defaults score 0.67 and 0.864 here, and
    /// trackintel's defaults (re-implemented) 0.55 and 0.734.
    @Test func geolifeAllUsersPooled() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let dirs = try GeoLifeUser.userDirectories([corpus + "/geolife"])
        #expect(dirs.count == 15)
        let work = try temporaryDirectory()
        let loaded = try dirs.map { try GeoLifeUser(directory: $0, workDirectory: work) }
        defer { for u in loaded { u.discardFiles() } }
        let users = try loaded.map { try $0.score(details: false) }
        let pool = RealDataEvaluation.GeoLifeScores.pooled(users)
        print(RealDataEvaluation.GeoLifeScores.header)
        for u in users { print(u.row) }
        print(pool.row)
        #expect(pool.tripF1 >= 0.64)
        #expect(pool.modeAccuracy >= 0.84)
        let reference = RealDataEvaluation.GeoLifeScores.pooled(try loaded.map { try $0.scoreTrackintel() })
        #expect(pool.tripF1 > reference.tripF1 && pool.modeAccuracy > reference.modeAccuracy)
    }

    @Test(arguments: [("20250617.gpx", ["20250617.gpx"]), ("20250618.gpx", ["20250618.gpx"]), ("20250617.gpx+20250618.gpx", ["20250617.gpx", "20250618.gpx"])])
    func reittiVisits(scenario: String, files: [String]) throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found") + "/reitti"
        let s = try RealDataEvaluation.reitti(
            gpxFiles: files.map { corpus + "/gpx/" + $0 }, scenario: scenario, corpus: corpus, workDirectory: try temporaryDirectory())
        print("reitti \(scenario): " + s.report)
        // Every visit of 10 min or more is found at the right place; of the 5–8 min stops at ST_THOMAS only those
        // that are errands from home and back are kept (stays.errand_min_duration_s), so the one on the way to GARTEN
        // is missed. The 06-18 05:55 errand's jittery network fixes stay "at" the place (stays.scatter_factor).
        #expect(s.precision == 1.0)
        #expect(s.recall >= (scenario == "20250617.gpx" ? 1.0 : scenario == "20250618.gpx" ? 0.83 : 0.9))
    }
}
