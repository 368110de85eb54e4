import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineSimulator
import TriplineTestSupport

/// Races between `tripline` processes, replayed in a chosen order with pause points (`TRIPLINE_PAUSE_AT`, see
/// ``PausePoint``): a process stops at a named point and prints a marker; the test starts the other process once it has
/// read the marker (and, for an import, its "waiting" line), then releases the first. No sleeps, no timing.
@Suite(.serialized) struct RebuildRaceTests {
    /// A process started with pipes, paused at `point`.
    struct Paused {
        var process: Process
        var stdin: Pipe
        var stderr: Pipe

        func release() throws {
            try stdin.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
            try stdin.fileHandleForWriting.close()
        }
    }

    /// Reads `pipe` until its text contains `marker` (false at end of file without it).
    static func read(_ pipe: Pipe, until marker: String) -> (Bool, String) {
        var text = ""
        while true {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return (false, text) }
            text += String(decoding: data, as: UTF8.self)
            if text.contains(marker) { return (true, text) }
        }
    }

    static func startPausedWithPipes(_ arguments: [String], at point: String) throws -> Paused {
        let stdin = Pipe(), stderr = Pipe()
        let p = try Binary.start(arguments, environment: ["TRIPLINE_PAUSE_AT": point], stderr: stderr, stdin: stdin)
        let (seen, text) = read(stderr, until: "paused at \(point)\n")
        #expect(seen, "no pause marker from \(arguments): \(text)")
        return Paused(process: p, stdin: stdin, stderr: stderr)
    }

    /// Simulated archives (Overland bodies and OwnTracks .rec files), split by file into a first and a second import.
    static func archives() throws -> (dir: String, first: [String], second: [String]) {
        let dir = try temporaryDirectory()
        let result = Simulator(config: SimulatorConfig(seed: 4242, days: 3, people: 2)).run()
        let files = try SimulationWriter.write(result, to: dir + "/sim", options: SimulationWriter.Options(quirks: false))
            .filter { !$0.hasSuffix("truth.json") }.sorted()
        let overland = files.filter { $0.contains("/overland/") }, rec = files.filter { !$0.contains("/overland/") }
        // The second import holds the later half of the Overland bodies and the second month's .rec file.
        let first = Array(overland.prefix(overland.count / 2)) + rec.prefix(1)
        let second = Array(overland.dropFirst(overland.count / 2)) + rec.dropFirst(1)
        return (dir, first, second)
    }

    @Test func importRacingARebuildGivesTheSequentialResult() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, first, second) = try Self.archives()
        #expect(!second.isEmpty)
        // The reference: everything imported, then rebuilt.
        let reference = dir + "/reference.sqlite"
        #expect(try Binary.run(["import", "--db", reference, "-q"] + first + second).status == 0)
        #expect(try Binary.run(["rebuild", "--db", reference, "--timezone", "Europe/Berlin", "-q"]).status == 0)
        // The race: the rebuild holds its lock (paused before it decides what to recompute) while the second import
        // starts; the import must wait, and the rebuild must not skip its points.
        let db = dir + "/raced.sqlite"
        #expect(try Binary.run(["import", "--db", db, "-q"] + first).status == 0)
        #expect(try Binary.run(["rebuild", "--db", db, "--timezone", "Europe/Berlin", "-q"]).status == 0)
        #expect(try Binary.run(["rebuild", "--db", db, "--full", "-q"]).status == 0)
        let rebuild = try Self.startPausedWithPipes(["rebuild", "--db", db, "--full", "-q"], at: "rebuild.locked")
        let importErr = Pipe()
        let importer = try Binary.start(["import", "--db", db] + second, stderr: importErr)
        let (waited, text) = Self.read(importErr, until: "waiting for another process")
        #expect(waited, "the import did not wait for the rebuild's lock: \(text)")
        try rebuild.release()
        rebuild.process.waitUntilExit()
        importer.waitUntilExit()
        #expect(rebuild.process.terminationStatus == 0 && importer.terminationStatus == 0)
        // The second import's points wait for the next rebuild, which takes them all.
        let info = try Binary.run(["info", "--db", db])
        #expect(!info.stdout.contains("points waiting to be rebuilt: 0"), "\(info.stdout)")
        #expect(try Binary.run(["rebuild", "--db", db, "-q"]).status == 0)
        #expect(try RebuildKillTests.picture(db) == RebuildKillTests.picture(reference))
        let ids: [String] = try strings(db, "SELECT id, start_ms FROM trips ORDER BY id")
        let referenceIDs: [String] = try strings(reference, "SELECT id, start_ms FROM trips ORDER BY id")
        #expect(ids == referenceIDs)
    }

    /// The import of the report: it commits just before the rebuild takes its lock. A rebuild that worked
    /// out its restart point before the lock skipped those points for good; this one decides under the lock.
    @Test func importCommittedJustBeforeTheLockIsRebuilt() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, first, second) = try Self.archives()
        let reference = dir + "/reference.sqlite"
        #expect(try Binary.run(["import", "--db", reference, "-q"] + first + second).status == 0)
        #expect(try Binary.run(["rebuild", "--db", reference, "--timezone", "Europe/Berlin", "-q"]).status == 0)
        let db = dir + "/raced.sqlite"
        #expect(try Binary.run(["import", "--db", db, "-q"] + first).status == 0)
        #expect(try Binary.run(["rebuild", "--db", db, "--timezone", "Europe/Berlin", "-q"]).status == 0)
        let rebuild = try Self.startPausedWithPipes(["rebuild", "--db", db, "-q"], at: "rebuild.before-lock")
        #expect(try Binary.run(["import", "--db", db, "-q"] + second).status == 0, "nothing holds the lock yet")
        try rebuild.release()
        rebuild.process.waitUntilExit()
        #expect(rebuild.process.terminationStatus == 0)
        // Nothing waits, and the result is the sequential one, without another rebuild to mend it.
        #expect(try Binary.run(["info", "--db", db]).stdout.contains("points waiting to be rebuilt: 0"))
        #expect(try RebuildKillTests.picture(db) == RebuildKillTests.picture(reference))
    }

    @Test func mapRacingARebuildReadsOneSnapshot() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, first, second) = try Self.archives()
        let db = dir + "/t.sqlite"
        #expect(try Binary.run(["import", "--db", db, "-q"] + first + second).status == 0)
        #expect(try Binary.run(["rebuild", "--db", db, "--timezone", "Europe/Berlin", "-q"]).status == 0)
        #expect(try Binary.run(["map", "--db", db, "-o", dir + "/before.html", "-q"]).status == 0)
        // The map has read the trips; a rebuild with other parameters commits before it reads visits and places.
        let map = try Self.startPausedWithPipes(["map", "--db", db, "-o", dir + "/raced.html", "-q"], at: "map.read")
        let changed = try Binary.run(["rebuild", "--db", db, "--set", "stays.radius_m=60", "--set", "places.radius_m=40", "-q"])
        #expect(changed.status == 0, "\(changed.stderr)")
        try map.release()
        map.process.waitUntilExit()
        #expect(map.process.terminationStatus == 0)
        #expect(try Binary.run(["map", "--db", db, "-o", dir + "/after.html", "-q"]).status == 0)
        let before: [UInt8] = try FileSystem.read(dir + "/before.html")
        let raced: [UInt8] = try FileSystem.read(dir + "/raced.html")
        let after: [UInt8] = try FileSystem.read(dir + "/after.html")
        #expect(before != after, "the rebuild changed what the map shows")
        #expect(raced == before, "the raced map is the map of the snapshot it started with")
    }
}
