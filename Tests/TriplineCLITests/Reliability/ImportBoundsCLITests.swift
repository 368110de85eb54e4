import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplineCLI
import TriplineTestSupport

/// The import holes of issue 21 as a user meets them on the command line (the rules themselves are tested in
/// `Tests/TriplineImportTests/ImportBoundsTests.swift`): `info` still tells the true number of rejects when a file's
/// rejects are bounded, and a folder with a path longer than PATH_MAX fails the run instead of being passed over.
@Suite struct ImportBoundsCLITests {
    @Test func infoCountsTheRejectsThatAreOnlyCounted() throws {
        let dir = try temporaryDirectory()
        let db = dir + "/t.sqlite"
        let bad = ImportOptions.defaultRejectsKeptPerFile + 2_000
        var lines = ""
        for i in 0..<bad { lines += "{\"_type\":\"location\",\"lat\":0,\"lon\":0,\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n" }
        lines += "{\"_type\":\"location\",\"lat\":50,\"lon\":8,\"tst\":1704167200,\"tid\":\"ph\"}\n"
        try FileSystem.write(lines, to: dir + "/bad.json")
        let r = runCLI(["import", "--db", db, dir + "/bad.json"])
        #expect(r.status == 0 && r.stdout.contains("1 new, 0 duplicate, \(bad) rejected"), "\(r.stdout)")
        #expect(try Store(path: db).db.scalarInt("SELECT count(*) FROM rejects") == Int64(ImportOptions.defaultRejectsKeptPerFile + 1))
        let info = runCLI(["info", "--db", db])
        #expect(info.stdout.contains("Rejects: \(bad) null_island"), "\(info.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(runCLI(["info", "--db", db, "--json"]).stdout.utf8)) as? [String: Any]
        #expect((json?["rejects"] as? [String: Any])?["null_island"] as? Int == bad)
    }

    @Test func aFolderDeeperThanPathMaxFailsTheRun() throws {
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/deep")
        let name = String(repeating: "d", count: 250)
        var fds = [open(dir + "/deep", O_RDONLY | O_DIRECTORY)]
        defer {
            for level in stride(from: fds.count - 1, through: 1, by: -1) {
                close(fds[level])
                unlinkat(fds[level - 1], name, AT_REMOVEDIR)
            }
            close(fds[0])
        }
        for _ in 0..<(Int(PATH_MAX) / 250 + 1) {
            #expect(mkdirat(fds.last!, name, 0o755) == 0)
            fds.append(openat(fds.last!, name, O_RDONLY | O_DIRECTORY))
        }
        let r = runCLI(["import", "--db", dir + "/t.sqlite", dir + "/deep"])
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.stderr.contains("the path is longer than the system allows") && !r.stdout.contains("broken symbolic link"), "\(r.stderr)")
    }
}
