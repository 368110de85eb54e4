import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Tests that run the built `tripline` binary.
@Suite(.serialized) struct ImporterProcessTests {
    var binary: String { packageRoot() + "/.build/debug/tripline" }

    func run(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = Pipe()
        try p.run()
        return p
    }

    @Test func killAndRerunGivesTheUninterruptedResult() throws {
        try #require(FileSystem.exists(binary), "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try makeArchive(dir + "/archive", files: 12, bodies: 25)
        let reference = dir + "/ref.sqlite"
        let r = try run(["import", "--db", reference, "--quiet", dir + "/archive"])
        r.waitUntilExit()
        #expect(r.terminationStatus == 0)
        let expected = try pointSet(Store(path: reference).db)
        #expect(expected.count == 12 * 25 * 200 - 11 * 50)
        for (n, moment) in ["import.file.1.written", "import.file.4.committed", "import.file.8.written", "import.file.12.written"].enumerated() {
            let db = dir + "/killed\(n).sqlite"
            let paused = try #require(try Binary.startPaused(["import", "--db", db, "--quiet", dir + "/archive"], at: moment))
            paused.kill()
            do {
                let store = try Store(path: db)
                #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok")
            }
            let again = try run(["import", "--db", db, "--quiet", dir + "/archive"])
            again.waitUntilExit()
            #expect(again.terminationStatus == 0)
            let store = try Store(path: db)
            #expect(try pointSet(store.db) == expected, "after a kill at \(moment)")
            #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") == 12)
        }
    }

    @Test func standardInputWithDevice() throws {
        try #require(FileSystem.exists(binary), "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["import", "--db", dir + "/t.sqlite", "--device", "piped", "--json", "-"]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8, device: "")]).utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("\"points_new\":1"))
        #expect(try pointSet(Store(path: dir + "/t.sqlite").db) == ["piped|1704067200000|50.0|8.0"])
    }

    @Test func twoImportsAtOnceBothFinishWithoutDuplicates() throws {
        try #require(FileSystem.exists(binary), "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try makeArchive(dir + "/archive", files: 6, bodies: 25)
        let db = dir + "/t.sqlite"
        _ = try Store(path: db)  // create the schema first
        let a = try run(["import", "--db", db, dir + "/archive"])
        let b = try run(["import", "--db", db, dir + "/archive"])
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        let store = try Store(path: db)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 6 * 25 * 200 - 5 * 50)
        #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") == 6)

        // While another writer holds the lock, an import says it waits, then finishes.
        let other = dir + "/other.sqlite"
        let holder = try Store(path: other)
        try holder.db.execute("BEGIN IMMEDIATE")
        let waiting = try run(["import", "--db", other, dir + "/archive/f0.json"])
        // Hold the lock until the import has said that it waits (read from its standard error, no sleeping).
        let errors = (waiting.standardError as! Pipe).fileHandleForReading
        var err = ""
        while !err.contains("waiting for another process") {
            let chunk = errors.availableData
            if chunk.isEmpty { break }  // it ended without saying so: the expectation below fails
            err += String(decoding: chunk, as: UTF8.self)
        }
        try holder.db.execute("COMMIT")
        err += String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0)
        #expect(err.contains("waiting for another process"))
        #expect(try holder.db.scalarInt("SELECT count(*) FROM points") == 25 * 200)
    }
}
