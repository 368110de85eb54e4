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

/// `kill -9` at random moments: the database is never corrupt, holds whole files only, and a rerun always ends
/// with exactly the result of an uninterrupted run.
@Suite(.serialized) struct KillTests {
    @Test func importKilledAtTwentyRandomMomentsResumesToTheUninterruptedResult() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        // 10 files × 20 bodies × 200 points, two devices, each file re-sending 50 points of the previous one.
        try ImporterProcessTests().makeArchive(dir + "/archive", files: 10, bodies: 20)
        let reference = dir + "/reference.sqlite"
        let started = Date()
        let r = try Binary.run(["import", "--db", reference, "--quiet", dir + "/archive"])
        let duration = Date().timeIntervalSince(started)
        #expect(r.status == 0, "\(r.stderr)")
        let expected = try databasePicture(reference)
        #expect(expected.filter { !$0.hasPrefix("import|") }.count == 10 * 20 * 200 - 9 * 50)

        var generator = SystemRandomNumberGenerator()
        // Moments are drawn from a window that starts at 90 % of the reference run and shrinks whenever a run
        // finishes before its kill (the reference may have been slowed by other load on the machine).
        var window = duration * 0.9
        var interrupted = 0
        for n in 0..<20 {
            let moment = Double.random(in: 0.0...window, using: &generator)
            let db = dir + "/killed\(n).sqlite"
            let p = try Binary.start(["import", "--db", db, "--quiet", dir + "/archive"])
            usleep(UInt32(moment * 1_000_000))
            if p.isRunning { interrupted += 1 } else { window = max(0.01, moment * 0.7) }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let label = "killed after \(Int(moment * 1000)) ms (a full import takes \(Int(duration * 1000)) ms)"
            if FileSystem.exists(db) {
                let store = try Store(path: db)
                #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok", "\(label)")
                // Whole files only: no point, event or reject belongs to an import that is not done.
                for table in ["points", "app_events", "rejects"] {
                    #expect(try store.db.scalarInt("SELECT count(*) FROM \(table) WHERE import_id NOT IN (SELECT id FROM imports WHERE status = 'done')") == 0,
                            "\(table), \(label)")
                }
                #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'running'") == 0, "\(label)")
            }
            let again = try Binary.run(["import", "--db", db, "--quiet", dir + "/archive"])
            #expect(again.status == 0, "\(label): \(again.stderr)")
            #expect(try databasePicture(db) == expected, "\(label)")
        }
        // Most moments must really have interrupted the import, or this test proves little (a loaded machine can
        // make one run faster than the reference, hence not all 20).
        #expect(interrupted >= 12, "only \(interrupted) of 20 kills hit a running import")
    }
}
