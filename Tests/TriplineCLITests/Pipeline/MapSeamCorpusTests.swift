import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineEvaluation
import TriplineTestSupport

/// No map of any corpus archive has a seam (issue 29, item 3): every archive of `../shared/corpus/` (as
/// ``RealAnswerInvariantTests/corpusUnits()`` lists them: GeoLife users by their first files; the lockbox users left
/// out) imported, rebuilt and drawn; no drawn segment — base layer or track — spans more than half the world.
@Suite(.serialized) struct MapSeamCorpusTests {
    @Test(.enabled(if: Corpus.available, Corpus.absent))
    func noCorpusMapHasASeam() throws {
        var maps = 0, segments = 0
        var seams: [String] = []
        for unit in RealAnswerInvariantTests.corpusUnits() {
            // The lockbox users are the final test of the rebuild: not looked at here either.
            if unit[0].contains("/Trajectory/"),
                GeoLifeLockbox.contains(userDirectory: FileSystem.directoryName(FileSystem.directoryName(unit[0]))) { continue }
            let db = try temporaryDirectory() + "/t.sqlite"
            guard runCLI(["import", "--db", db, "--quiet"] + unit).status == 0 else { continue }  // not a location archive
            let rebuilt = runCLI(["rebuild", "--db", db, "--quiet"])
            try #require(rebuilt.status == 0, "\(unit[0]): \(rebuilt.stderr)")
            let document = try MapRenderer(store: try Store(path: db, create: false)).render()
            guard document.tripsDrawn + document.visitsDrawn > 0 else { continue }
            let lines = try #require(DrawnLines(PageInspector(document)))
            maps += 1
            segments += lines.segments.count
            let across = lines.acrossHalfTheWorld
            if !across.isEmpty {
                seams.append("\(unit[0].dropFirst(corpusDirectory()!.count + 1)): \(across.count), e.g. \(across[0])")
            }
        }
        print("map seams: \(maps) corpus maps, \(segments) segments drawn, \(seams.count) maps with a seam")
        #expect(maps > 20, "the corpus holds dozens of archives")
        #expect(seams.isEmpty, "\(seams.count) of \(maps) maps draw a segment across half the world:\n\(seams.joined(separator: "\n"))")
    }
}
