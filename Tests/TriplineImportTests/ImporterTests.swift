import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

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

    /// A folder given as `.` or `..` (`cd phone && tripline import .`) named its device `.` or `..`: two phones each
    /// imported from inside its own folder became one device `.`, their fixes interleaved. The folder's own name is
    /// used, as for any other spelling of it.
    @Test func aFolderGivenAsDotIsNamedByItsRealName() throws {
        let (store, dir) = try freshStore()
        try write("x", dir + "/phone-a/batch.json")
        try FileSystem.createDirectory(dir + "/phone-b/sub")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        for (given, name) in [(dir + "/phone-a/.", "phone-a"), (dir + "/phone-b/sub/..", "phone-b"), (dir + "/phone-a/./", "phone-a")] {
            if given.contains("phone-b") { try write("x", dir + "/phone-b/batch.json") }
            let (jobs, failures) = importer.jobs([given])
            #expect(failures.isEmpty && jobs.count == 1, "\(given): \(failures)")
            #expect(jobs.first?.fallback.name == name, "\(given): \(jobs.first?.fallback.name ?? "-")")
        }
    }

    /// An event whose file holds no point (so no device row names it) is kept without a device; the same event in a
    /// second file (another export of the same messages) is not stored twice.
    @Test func eventsWithoutADeviceAreStoredOnce() throws {
        let (store, dir) = try freshStore()
        let transition = #"{"_type":"transition","acc":5,"desc":"Home","event":"enter","lat":52.232,"lon":13.4,"tst":1709318410,"t":"c"}"#
        try write(transition + "\n", dir + "/one.json")
        try write(transition + "\n" + #"{"_type":"lwt","tst":1709318400}"# + "\n", dir + "/two.json")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        let summary = try importer.importPaths([dir + "/one.json", dir + "/two.json"])
        #expect(summary.files.map(\.status) == [.imported, .imported])
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE device_id IS NULL AND kind = 'transition'") == 1)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events") == 2)
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

    /// The same fix written with 6 decimals instead of 7 (up to 8 cm apart) is a duplicate, not a conflict; a fix a
    /// metre away at the same time is one, and its message prints coordinates without binary noise.
    @Test func aFixRoundedDifferentlyIsADuplicate() throws {
        let (store, dir) = try freshStore()
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 52.5200521, lon: 13.4000762)]), dir + "/seven.json")
        let six = [overlandFeature("2024-01-01T00:00:00Z", lat: 52.520052, lon: 13.400076),
                   overlandFeature("2024-01-01T00:00:00Z", lat: 52.52, lon: 13.402000000000001)]
        try write(overlandBody(six), dir + "/six.json")
        let importer = try Importer(store: store, options: ImportOptions(nowMs: testNow))
        let s = try importer.importPaths([dir + "/seven.json", dir + "/six.json"])
        #expect(s.pointsNew == 1 && s.pointsDuplicate == 1 && s.rejected == 1)
        let detail = try #require(try store.db.scalarText("SELECT detail FROM rejects"))
        #expect(detail.contains("at 52.5200521, 13.4000762; this record says 52.52, 13.402;"), "\(detail)")
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
        #expect(d.files[0].devices == [ParsedDevice(name: "dave", source: "overland", origin: .deviceOption)])
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
