import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Several `tripline import`s started at once into a database that does not exist yet (a cron job's first run and a
/// manual one): creating the file, switching it to WAL and migrating it wait for the concurrent creator as every
/// other write waits. Before, one of two failed in 5 of 14 tries with "SQLite error 5: database is locked (while
/// running: PRAGMA journal_mode=WAL)" (issue 28).
@Suite(.serialized) struct CreationRaceTests {
    @Test func simultaneousFirstImportsIntoANewDatabaseAllSucceed() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        defer { FileSystem.removeTree(dir) }
        // Tiny inputs, so that the processes spend their time opening the database: three devices, 2 fixes each.
        let names = ["a", "b", "c"]
        for name in names {
            let body = overlandBody([
                overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8, device: name),
                overlandFeature("2024-01-01T00:01:00Z", lat: 50.001, lon: 8, device: name),
            ])
            try FileSystem.write(Array(body.utf8), to: dir + "/\(name).json")
        }
        var failures: [String] = []
        for round in 0..<50 {
            let db = dir + "/r\(round).sqlite"
            let starters = names.prefix(round % 2 == 0 ? 2 : 3)
            var running: [(Process, String)] = []
            for name in starters {
                let errPath = dir + "/r\(round)-\(name).err"
                _ = FileManager.default.createFile(atPath: errPath, contents: nil)
                let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
                running.append((try Binary.start(["import", "--db", db, "--quiet", dir + "/\(name).json"], stderr: err), errPath))
                try err.close()
            }
            for (p, errPath) in running {
                p.waitUntilExit()
                if p.terminationStatus != 0 {
                    failures.append("round \(round): exit \(p.terminationStatus): " + String(decoding: try FileSystem.read(errPath), as: UTF8.self))
                }
            }
            let store = try Store(path: db, create: false)
            let points = try store.db.scalarInt("SELECT count(*) FROM points")
            if points != Int64(2 * starters.count) { failures.append("round \(round): \(points ?? -1) points, not \(2 * starters.count)") }
        }
        #expect(failures.isEmpty, "\(failures.count) of 50 rounds failed: \(failures.prefix(5))")
    }
}
