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

@Suite struct ImporterTests {
    func write(_ text: String, _ path: String) throws {
        try FileSystem.createDirectory(FileSystem.directoryName(path))
        try FileSystem.write(text, to: path)
    }

    @Test func reimportAndOverlappingBatchesAddNoDuplicates() throws {
        let (store, dir) = try freshStore()
        let features = (0..<30).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50 + Double($0) / 1000, lon: 8) }
        try write(overlandBody(Array(features[0..<20])), dir + "/a/batch1.json")
        try write(overlandBody(Array(features[10..<30])), dir + "/a/batch2.json")  // re-sent overlap of 10
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        let first = try importer.importPaths([dir + "/a"])
        #expect(first.pointsNew == 30 && first.pointsDuplicate == 10 && first.rejected == 0)
        let again = try importer.importPaths([dir + "/a"])
        #expect(again.files.map(\.status) == [.skipped, .skipped])
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 30)
        #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") == 2)
        // The same content under another name is skipped too (content fingerprint).
        try write(overlandBody(Array(features[0..<20])), dir + "/copy.json")
        #expect(try importer.importPaths([dir + "/copy.json"]).files[0].status == .skipped)
    }

    @Test func conflictingDuplicateKeepsTheFirstAndRejectsTheSecond() throws {
        let (store, dir) = try freshStore()
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8), overlandFeature("2024-01-01T00:00:00Z", lat: 51, lon: 9),
                                overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), dir + "/x.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/x.json"])
        #expect(s.pointsNew == 1 && s.pointsDuplicate == 1 && s.rejected == 1)
        #expect(try store.db.scalarText("SELECT reason FROM rejects") == "conflicting_duplicate")
        #expect(try store.db.scalarInt("SELECT line FROM rejects") == 1)
        #expect(try store.db.scalarText("SELECT excerpt FROM rejects")?.contains("[9.0,51.0]") == true)
        #expect(try pointSet(store.db) == ["phone|1704067200000|50.0|8.0"])
    }

    @Test func smallBatchesCarryPointsEventsAndRejectsAcrossTheQueue() throws {
        let (store, dir) = try freshStore()
        var features: [String] = []
        for i in 0..<150 {
            let time = CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(i) * 1000)
            if i % 3 == 0 {
                features.append(overlandFeature(time, lat: 0, lon: 0))  // rejected: (0, 0)
            } else if i % 3 == 1 {
                features.append("{\"type\":\"Feature\",\"properties\":{\"action\":\"paused_location_updates\",\"timestamp\":\"\(time)\",\"device_id\":\"phone\"}}")
            } else {
                features.append(overlandFeature(time, lat: 50, lon: 8))
            }
        }
        try write(overlandBody(features), dir + "/mixed.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow, batchSize: 16, queueDepth: 2)).importPaths([dir + "/mixed.json"])
        #expect(s.pointsNew == 50 && s.rejected == 50 && s.events == 50)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects WHERE reason = 'null_island'") == 50)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events") == 50)
        #expect(try store.db.scalarInt("SELECT rejected FROM imports") == 50)
    }

    @Test func devicesNeverMix() throws {
        let (store, dir) = try freshStore()
        let t = "2024-01-01T00:00:00Z"
        try write(overlandBody([overlandFeature(t, lat: 50, lon: 8, device: "alice"), overlandFeature(t, lat: 40, lon: 2, device: "bob")]), dir + "/in/x.json")
        try write(overlandBody([overlandFeature(t, lat: 30, lon: 3, device: "")]), dir + "/carol-phone/y.json")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        let s = try importer.importPaths([dir + "/in/x.json", dir + "/carol-phone"])
        #expect(s.pointsNew == 3 && s.rejected == 0)
        #expect(try pointSet(store.db) == ["alice|1704067200000|50.0|8.0", "bob|1704067200000|40.0|2.0", "carol-phone|1704067200000|30.0|3.0"])
        #expect(try store.db.scalarText("SELECT name_origin FROM devices WHERE name = 'carol-phone'") == "folder")
        // --device names data without a device.
        try write(overlandBody([overlandFeature(t, lat: 31, lon: 3, device: "")]), dir + "/z.json")
        let named = Importer(store: store, options: ImportOptions(device: "dave", nowMs: testNow))
        let d = try named.importPaths([dir + "/z.json"])
        #expect(d.files[0].devices == [ParsedDevice(name: "dave", source: "overland", origin: "--device")])
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func corpusImportsAndEventsAreDeduplicated() throws {
        let (store, _) = try freshStore()
        let importer = Importer(store: store)
        let s = try importer.importPaths([corpusPath("dawarich/owntracks"), corpusPath("owntracks-recorder"), corpusPath("dawarich/overland")])
        #expect(s.failed == 0)
        // 2024-03.rec: 9 fixes, one exact duplicate line, one conflicting fix at the same tst.
        #expect(try store.db.scalarInt("SELECT count(*) FROM points p JOIN devices d ON d.id = p.device_id WHERE d.name = 'test/iPhone 12 Pro'") == 7)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects WHERE reason = 'conflicting_duplicate'") == 2)
        let events = try store.db.scalarInt("SELECT count(*) FROM app_events")
        #expect(events == 7)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'will_terminate' AND time_ms = 1720374399000") == 1)
        #expect(try store.db.scalarText("SELECT creator FROM imports WHERE format LIKE 'gpx%'") == nil)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points WHERE speed_mps < 0 OR accuracy_m < 0") == 0)
    }

    @Test func cliExitStatusSummaryAndInfo() throws {
        let dir = try temporaryDirectory()
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), dir + "/ok.json")
        try FileSystem.write([0x00, 0x01, 0x02, 0xFF, 0xFE], to: dir + "/junk.bin")
        let db = dir + "/t.sqlite"
        let good = runCLI(["import", "--db", db, dir + "/ok.json"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("1 new, 0 duplicate, 0 rejected"))
        #expect(good.stdout.contains("device 'phone' (from device_id)"))
        #expect(good.stderr.isEmpty)  // not a terminal: no progress line
        let bad = runCLI(["import", "--db", db, "--json", dir + "/junk.bin", dir + "/missing.json"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("junk.bin: binary data"))
        #expect(bad.stderr.contains("missing.json: no such file"))
        let json = try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any]
        #expect(json?["failed"] as? Int == 2)
        let info = runCLI(["info", "--db", db])
        #expect(info.status == 0)
        #expect(info.stdout.contains("phone") && info.stdout.contains("2024-01-01T00:00:00Z"))
        let infoJSON = runCLI(["info", "--db", db, "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(infoJSON.stdout.utf8)) as? [String: Any]
        #expect((parsed?["devices"] as? [[String: Any]])?.first?["points"] as? Int == 1)
        #expect(runCLI(["import", "--db", db]).status == 64)
    }

    @Test func theDatabaseInsideAnImportedFolderIsNotAnInput() throws {
        let dir = try temporaryDirectory()
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), dir + "/a.json")
        let store = try Store(path: dir + "/t.sqlite")
        let s = try Importer(store: store).importPaths([dir])
        #expect(s.files.map { FileSystem.baseName($0.path) } == ["a.json"])
        #expect(s.failed == 0)
    }

    @Test func standardInputIsRead() throws {
        // '-' is read through FileBytes(path: "-"); here we check the job expansion names it and falls back on --device.
        let (store, _) = try freshStore()
        let importer = Importer(store: store, options: ImportOptions(device: "piped"))
        let (jobs, failures) = importer.jobs(["-"])
        #expect(failures.isEmpty && jobs.count == 1 && jobs[0].fallback.name == "piped")
    }
}

/// Tests that run the built `tripline` binary.
@Suite(.serialized) struct ImporterProcessTests {
    var binary: String { packageRoot() + "/.build/debug/tripline" }

    /// An archive of `files` JSON-lines files, each with `bodies` Overland bodies of 200 points, for 2 devices.
    func makeArchive(_ dir: String, files: Int, bodies: Int) throws {
        try FileSystem.createDirectory(dir)
        var i = 0
        for f in 0..<files {
            var text = ""
            for _ in 0..<bodies {
                var features: [String] = []
                for _ in 0..<200 {
                    features.append(overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(i) * 1000, offsetSeconds: 3600),
                                                    lat: 50 + Double(i % 997) / 10_000, lon: 8, device: i % 2 == 0 ? "even" : "odd"))
                    i += 1
                }
                text += overlandBody(features) + "\n"
            }
            // Each file re-sends the last 50 points of the previous one (Overland retries).
            try FileSystem.write(text, to: dir + "/f\(f).json")
            i -= 50
        }
    }

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
