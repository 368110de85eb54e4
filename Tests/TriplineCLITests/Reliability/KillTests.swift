import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// `kill -9` at twenty named moments (``PausePoint``: inside and after each file's transaction): the database is never corrupt, holds whole files only, and a rerun always ends
/// with exactly the result of an uninterrupted run.
@Suite(.serialized) struct KillTests {
    @Test func importKilledAtTwentyMomentsResumesToTheUninterruptedResult() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        // 10 files × 20 bodies × 200 points, two devices, each file re-sending 50 points of the previous one.
        try makeArchive(dir + "/archive", files: 10, bodies: 20)
        let reference = dir + "/reference.sqlite"
        let r = try Binary.run(["import", "--db", reference, "--quiet", dir + "/archive"])
        #expect(r.status == 0, "\(r.stderr)")
        let expected = try databasePicture(reference)
        #expect(expected.filter { !$0.hasPrefix("import|") }.count == 10 * 20 * 200 - 9 * 50)

        // Twenty moments, each reached for sure (the process says so before it is killed): inside each file's
        // open transaction, all its rows written, and right after each file's commit.
        let moments = (1...10).flatMap { ["import.file.\($0).written", "import.file.\($0).committed"] }
        for (n, moment) in moments.enumerated() {
            let db = dir + "/killed\(n).sqlite"
            let paused = try #require(try Binary.startPaused(["import", "--db", db, "--quiet", dir + "/archive"], at: moment),
                                      "the import never reached \(moment)")
            paused.kill()
            let label = "killed at \(moment)"
            if FileSystem.exists(db) {
                let store = try Store(path: db)
                #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok", "\(label)")
                // Whole files only: no point, event or reject belongs to an import that is not done.
                for table in ["points", "app_events", "rejects"] {
                    #expect(try store.db.scalarInt("SELECT count(*) FROM \(table) WHERE import_id NOT IN (SELECT id FROM imports WHERE status = 'done')") == 0,
                            "\(table), \(label)")
                }
                #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'running'") == 0, "\(label)")
                let done = try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") ?? 0
                let file = Int(moment.split(separator: ".")[2])!
                #expect(done == (moment.hasSuffix("committed") ? file : file - 1), "\(label): \(done) files done")
            }
            let again = try Binary.run(["import", "--db", db, "--quiet", dir + "/archive"])
            #expect(again.status == 0, "\(label): \(again.stderr)")
            #expect(try databasePicture(db) == expected, "\(label)")
        }
    }
}
