import CZlib
import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplineSimulator
import TriplineTestSupport

/// Compressing helpers (the system zlib) and archive builders for the tests.
enum Pack {
    /// `bytes` deflated: gzip-wrapped (`gzip`), or raw deflate (a zip entry).
    static func deflate(_ bytes: [UInt8], gzip: Bool) -> [UInt8] {
        var stream = z_stream()
        precondition(tripline_deflate_init2(&stream, 6, gzip ? 15 + 16 : -15) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        var input = bytes
        let produced: Int = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = UInt32(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<produced])
    }

    static func gzip(_ text: String) -> [UInt8] { deflate(Array(text.utf8), gzip: true) }

    static func octal(_ v: Int, _ width: Int) -> [UInt8] {
        let digits = String(v, radix: 8)
        return Array((String(repeating: "0", count: width - 1 - digits.count) + digits).utf8) + [0]
    }

    /// A POSIX ustar archive of `entries` (name, content; a name ending in `/` is a folder).
    static func tar(_ entries: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (name, content) in entries {
            var h = [UInt8](repeating: 0, count: 512)
            let n = Array(name.utf8)
            h.replaceSubrange(0..<n.count, with: n)
            h.replaceSubrange(100..<108, with: octal(0o644, 8))
            h.replaceSubrange(108..<116, with: octal(0, 8))
            h.replaceSubrange(116..<124, with: octal(0, 8))
            h.replaceSubrange(124..<136, with: octal(content.count, 12))
            h.replaceSubrange(136..<148, with: octal(1_700_000_000, 12))
            h[156] = name.hasSuffix("/") ? UInt8(ascii: "5") : UInt8(ascii: "0")
            h.replaceSubrange(257..<263, with: Array("ustar\0".utf8))
            h.replaceSubrange(263..<265, with: Array("00".utf8))
            for i in 148..<156 { h[i] = 0x20 }
            let sum = h.reduce(0) { $0 + Int($1) }
            h.replaceSubrange(148..<155, with: octal(sum, 7))
            out += h + content
            out += [UInt8](repeating: 0, count: (512 - content.count % 512) % 512)
        }
        return out + [UInt8](repeating: 0, count: 1024)
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }

    static func crc(_ bytes: [UInt8]) -> Int {
        Int(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }

    /// A zip archive; `method` 0 = stored, 8 = deflate, anything else is written as-is (to test refusals);
    /// `encrypted` sets the encryption flag.
    static func le64(_ v: Int) -> [UInt8] { le32(v & 0xFFFF_FFFF) + le32(v >> 32) }

    /// With `zip64`, written as zip64 tools write it: sizes and offsets 0xFFFFFFFF with the values in a zip64
    /// extra field, and a zip64 end record with its locator before the classic end record.
    static func zip(_ entries: [(name: String, content: [UInt8], method: Int, encrypted: Bool)], zip64: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for e in entries {
            let data = e.method == 8 ? deflate(e.content, gzip: false) : e.content
            let name = Array(e.name.utf8)
            let offset = out.count
            let flags = e.encrypted ? 1 : 0
            let head = le16(20) + le16(flags) + le16(e.method) + le16(0) + le16(0x5821) + le32(crc(e.content))
            out += le32(0x0403_4B50) + head + le32(data.count) + le32(e.content.count) + le16(name.count) + le16(0) + name + data
            if zip64 {
                let extra = le16(1) + le16(24) + le64(e.content.count) + le64(data.count) + le64(offset)
                central += le32(0x0201_4B50) + le16(45) + head + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(name.count) + le16(extra.count)
                    + le16(0) + le16(0) + le16(0) + le32(0) + le32(0xFFFF_FFFF) + name + extra
            } else {
                central += le32(0x0201_4B50) + le16(20) + head + le32(data.count) + le32(e.content.count) + le16(name.count) + le16(0)
                    + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name
            }
        }
        let cdOffset = out.count
        out += central
        if zip64 {
            let record = out.count
            out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0) + le64(entries.count) + le64(entries.count)
                + le64(central.count) + le64(cdOffset)
            out += le32(0x0706_4B50) + le32(0) + le64(record) + le32(1)
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(0)
            return out
        }
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count) + le32(central.count) + le32(cdOffset) + le16(0)
        return out
    }
}

@Suite struct CompressedInputTests {
    let features = (0..<40).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50 + Double($0) / 1000, lon: 8) }
    var body: String { overlandBody(features) }

    func importer(_ store: Store) -> Importer { Importer(store: store, options: ImportOptions(nowMs: testNow)) }

    @Test func gzipIsReadAsTheFileItHoldsWithItsFingerprint() throws {
        let (store, dir) = try freshStore()
        try FileSystem.write(Pack.gzip(body), to: dir + "/batch.json.gz")
        let s = try importer(store).importPaths([dir + "/batch.json.gz"])
        #expect(s.failed == 0 && s.pointsNew == 40)
        #expect(s.files.map(\.format) == ["gzip:overland/body"])
        #expect(s.files[0].bytes == body.utf8.count)  // the inner file's size
        // The same content uncompressed is the same import (the fingerprint is the inner file's).
        try FileSystem.write(body, to: dir + "/batch.json")
        #expect(try importer(store).importPaths([dir + "/batch.json"]).files.map(\.status) == [.skipped])
        // Positions are those of the inner file: a conflicting duplicate names the inner line and byte.
        let conflict = overlandBody([overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000), lat: 51, lon: 9)])
        try FileSystem.write(Pack.gzip("\n\n" + conflict), to: dir + "/late.json.gz")
        let late = try importer(store).importPaths([dir + "/late.json.gz"])
        #expect(late.rejected == 1)
        #expect(try store.db.scalarInt("SELECT line FROM rejects") == 3)
        #expect(try store.db.scalarInt("SELECT byte_offset FROM rejects") == 16)
    }

    @Test func concatenatedAndCutGzipStreams() throws {
        let first = overlandBody(Array(features[0..<20])) + "\n", second = overlandBody(Array(features[20..<40])) + "\n"
        let (store, dir) = try freshStore()
        try FileSystem.write(Pack.gzip(first) + Pack.gzip(second), to: dir + "/two.gz")
        #expect(try importer(store).importPaths([dir + "/two.gz"]).pointsNew == 40)
        // A gzip file cut mid-write: what was inflated before the cut is read, and the cut is a reject.
        let whole = Pack.gzip(body)
        try FileSystem.write(Array(whole.prefix(whole.count * 2 / 3)), to: dir + "/cut.json.gz")
        let (store2, _) = try freshStore()
        let s = try importer(store2).importPaths([dir + "/cut.json.gz"])
        #expect(s.failed == 0 && s.pointsNew > 0 && s.pointsNew < 40)
        #expect(try store2.db.scalarInt("SELECT count(*) FROM rejects WHERE reason = 'truncated'") ?? 0 >= 1)
        // Garbage after the gzip header is a clear failure, not a crash.
        try FileSystem.write([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0xFF, count: 64), to: dir + "/bad.gz")
        let bad = try importer(store2).importPaths([dir + "/bad.gz"])
        #expect(bad.failed == 1 && bad.files[0].message?.contains("damaged gzip data") == true)
    }

    @Test func tarAndTarGzOfARecorderStore() throws {
        let rec = "2024-01-01T00:00:05Z\t*                 \t{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1704067205,\"tid\":\"ph\"}\n"
        let tar = Pack.tar([
            ("store/", []), ("store/rec/alice/phone/2024-01.rec", Array(rec.utf8)),
            ("store/README.txt", Array("notes about my data\n".utf8)), ("store/photos/a.png", [0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 13, 1, 2]),
        ])
        for (name, bytes) in [("backup.tar", tar), ("backup.tar.gz", Pack.deflate(tar, gzip: true))] {
            let (store, dir) = try freshStore()
            try FileSystem.write(bytes, to: dir + "/" + name)
            let s = try importer(store).importPaths([dir + "/" + name])
            #expect(s.failed == 0 && s.pointsNew == 1, "\(name)")
            let imported = s.files.filter { $0.status == .imported }
            #expect(imported.map(\.path) == [dir + "/" + name + "/store/rec/alice/phone/2024-01.rec"])
            #expect(imported.first?.format == (name.hasSuffix(".gz") ? "gzip+tar:owntracks-rec" : "tar:owntracks-rec"))
            // The device comes from the rec/<user>/<device> path inside the archive.
            #expect(try store.db.scalarText("SELECT group_concat(name) FROM devices") == "alice/phone")
            // The other entries are listed as skipped with their reason, not as failures.
            let skipped = s.files.filter { $0.status == .skipped }
            #expect(skipped.count == 2 && skipped.allSatisfy { $0.message?.contains("not a location archive") == true })
        }
    }

    @Test func zipStoredAndDeflatedEntriesAndWhatIsRefused() throws {
        let (store, dir) = try freshStore()
        let half = overlandBody(Array(features[0..<20])), other = overlandBody(Array(features[20..<40]))
        try FileSystem.write(Pack.zip([
            (name: "export/", content: [], method: 0, encrypted: false),
            (name: "export/a.json", content: Array(half.utf8), method: 0, encrypted: false),
            (name: "export/b.json", content: Array(other.utf8), method: 8, encrypted: false),
            (name: "export/secret.json", content: Array(half.utf8), method: 0, encrypted: true),
            (name: "export/c.json.bz2", content: Array(half.utf8), method: 12, encrypted: false),
        ]), to: dir + "/export.zip")
        let s = try importer(store).importPaths([dir + "/export.zip"])
        #expect(s.pointsNew == 40)
        #expect(s.files.filter { $0.status == .imported }.map(\.format) == ["zip:overland/body", "zip:overland/body"])
        #expect(s.files.contains { $0.status == .skipped && $0.message?.contains("encrypted") == true })
        #expect(s.files.contains { $0.status == .failed && $0.message?.contains("bzip2 is not supported") == true })
        // A zip whose central directory is gone (cut mid-write) is one clear failure.
        let whole = try FileSystem.read(dir + "/export.zip")
        try FileSystem.write(Array(whole.prefix(whole.count - 40)), to: dir + "/cut.zip")
        let cut = try importer(store).importPaths([dir + "/cut.zip"])
        #expect(cut.failed == 1 && cut.files[0].message?.contains("central directory") == true)
    }

    @Test func zip64ArchivesAreRead() throws {
        let (store, dir) = try freshStore()
        try FileSystem.write(Pack.zip([
            (name: "Takeout/Location History/Records.json", content: Array("{\"locations\":[{\"latitudeE7\":523000000,\"longitudeE7\":134000000,\"timestamp\":\"2024-01-01T10:00:00Z\"}]}".utf8), method: 8, encrypted: false),
            (name: "Takeout/archive_browser.html", content: Array("<html><body>Google</body></html>".utf8), method: 0, encrypted: false),
        ], zip64: true), to: dir + "/takeout-001.zip")
        let s = try importer(store).importPaths([dir + "/takeout-001.zip"])
        #expect(s.failed == 0 && s.pointsNew == 1)
        #expect(s.files.map(\.status) == [.imported, .skipped])
        #expect(s.files[0].format == "zip:google/records" && s.files[0].path.hasSuffix("takeout-001.zip/Takeout/Location History/Records.json"))
        // The device of a Google file inside an archive is the archive's name.
        #expect(try store.db.scalarText("SELECT name FROM devices") == "takeout-001")
    }

    @Test func inflatingPastTheLimitStopsWithAMessage() throws {
        // The importer's bound is 100 times the input's size plus 256 MiB over all layers (ImportBoundsTests); the
        // rule itself is tested with 1 MiB.
        let packed = Pack.deflate([UInt8](repeating: 0x20, count: 4 << 20), gzip: true)
        let fd = try FileBytes.unlinkedTemporaryFile("tripline-test")
        defer { close(fd) }
        do {
            _ = try packed.withUnsafeBytes { try Containers.inflate($0, raw: false, into: fd, budget: InflateBudget(limit: 1 << 20), path: "bomb.gz") }
            Issue.record("inflating 4 MiB with a 1 MiB limit did not stop")
        } catch {
            #expect("\(error)".contains("decompression bomb"))
        }
    }

    @Test func standardInputNamesTheDeviceFromTheContent() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        // An Overland body with its device_id and a `current` batch object (which names no device).
        let text = "{\"locations\":[" + features.joined(separator: ",") + "],\"current\":{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,50]},\"properties\":{\"timestamp\":\"2024-01-01T00:10:00Z\"}}}"
        try FileSystem.write(Pack.gzip(text), to: dir + "/in.json.gz")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "'\(Binary.path)' import --db '\(dir)/t.sqlite' - < '\(dir)/in.json.gz'"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let store = try Store(path: dir + "/t.sqlite", create: false)
        #expect(try store.db.scalarText("SELECT group_concat(name) FROM devices") == "phone")
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'current' AND device_id = (SELECT id FROM devices WHERE name = 'phone')") == 1)
    }
}

@Suite struct FolderInputTests {
    func importer(_ store: Store, device: String? = nil) -> Importer { Importer(store: store, options: ImportOptions(device: device, nowMs: testNow)) }

    func write(_ text: String, _ path: String) throws {
        try FileSystem.createDirectory(FileSystem.directoryName(path))
        try FileSystem.write(text, to: path)
    }

    func devices(_ store: Store) throws -> [String] {
        let st = try store.db.prepare("SELECT name FROM devices ORDER BY name")
        var names: [String] = []
        while try st.step() { names.append(st.text(0) ?? "") }
        return names
    }

    let rec = "2024-01-01T00:00:05Z\t*                 \t{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1704067205,\"tid\":\"ph\"}\n"

    @Test func simulateOutputImportsWithTruthJSONSkipped() throws {
        let (store, dir) = try freshStore()
        let result = Simulator(config: SimulatorConfig(seed: 3, days: 1, people: 2)).run()
        try SimulationWriter.write(result, to: dir + "/sim")
        let s = try importer(store).importPaths([dir + "/sim"])
        #expect(s.failed == 0)
        let truth = s.files.first { $0.path.hasSuffix("/truth.json") }
        #expect(truth?.status == .skipped && truth?.message?.contains("not a location archive") == true)
        // One device a person, none for the folder or for truth.json.
        let names = try devices(store)
        #expect(names.count == result.devices.count && !names.contains("sim") && !names.contains("truth"))
    }

    @Test func aRecorderStoreIsReadThroughItsRecFolder() throws {
        let (store, dir) = try freshStore()
        let root = dir + "/store"
        try write(rec, root + "/rec/alice/phone/2024-01.rec")
        try FileSystem.createDirectory(root + "/ghash")
        try FileSystem.write([0x00, 0x01, 0x02, 0xFF, 0x00], to: root + "/ghash/data.mdb")
        try FileSystem.createDirectory(root + "/photos")
        try FileSystem.write([0x89, 0x50, 0x4E, 0x47, 0x00], to: root + "/photos/alice.png")
        try write("{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1704067205,\"tid\":\"ph\",\"username\":\"p2\",\"device\":\"store\"}", root + "/last/alice/phone/alice-phone.json")
        try write("1704067205 owntracks/alice/phone\n", root + "/monitor")
        let s = try importer(store).importPaths([root])
        #expect(s.failed == 0 && s.pointsNew == 1)
        #expect(s.files.filter { $0.status == .imported }.map { FileSystem.baseName($0.path) } == ["2024-01.rec"])
        let note = s.files.first { $0.status == .skipped }
        #expect(note?.message?.contains("OwnTracks Recorder store") == true && note?.message?.contains("ghash") == true)
        #expect(try devices(store) == ["alice/phone"])
    }

    @Test func gpxFilesGivenOneByOneShareTheirFoldersDevice() throws {
        let (store, dir) = try freshStore()
        var paths: [String] = []
        for i in 0..<3 {
            let gpx = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"50.\(i)\" lon=\"8\"><time>2024-01-0\(i + 1)T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
            try write(gpx, dir + "/walks/day\(i).gpx")
            paths.append(dir + "/walks/day\(i).gpx")
        }
        #expect(try importer(store).importPaths(paths).pointsNew == 3)
        #expect(try devices(store) == ["walks"])
        // --device still wins.
        let (other, _) = try freshStore()
        _ = try importer(other, device: "hike").importPaths(paths)
        #expect(try devices(other) == ["hike"])
    }

    /// One device rule for every format in a folder: a file that names no device goes to the nearest folder holding
    /// it (year folders passed over), so unrelated apps' tracks kept apart in folders are never one device.
    @Test func filesWithoutADeviceTakeTheirNearestFolder() throws {
        let (store, dir) = try freshStore()
        func gpx(_ day: Int) -> String {
            "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"50.\(day)\" lon=\"8\"><time>2024-01-0\(day)T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
        }
        try write(gpx(1), dir + "/tracks/bike/a.gpx")
        try write(overlandBody([overlandFeature("2024-01-02T00:00:00Z", lat: 51, lon: 9, device: "")]), dir + "/tracks/run/2024/b.json")
        try write(gpx(3), dir + "/tracks/c.gpx")
        let s = try importer(store).importPaths([dir + "/tracks"])
        #expect(s.failed == 0 && s.pointsNew == 3)
        #expect(try devices(store) == ["bike", "run", "tracks"])
        #expect(try store.db.scalarText("SELECT name_origin FROM devices WHERE name = 'run'") == "subfolder")
        #expect(try store.db.scalarText("SELECT name_origin FROM devices WHERE name = 'tracks'") == "folder")
        // --device still wins over every folder.
        let (other, _) = try freshStore()
        _ = try importer(other, device: "mine").importPaths([dir + "/tracks"])
        #expect(try devices(other) == ["mine"])
    }

    /// An empty file inside a folder (a Takeout holds some) is passed over, not a reject; named on its own it is one.
    @Test func emptyFilesInAFolderAreSkippedNotRejected() throws {
        let (store, dir) = try freshStore()
        try write("", dir + "/takeout/Location History/empty.json")
        try write(overlandBody([overlandFeature("2024-01-02T00:00:00Z", lat: 51, lon: 9)]), dir + "/takeout/ok.json")
        let s = try importer(store).importPaths([dir + "/takeout"])
        #expect(s.failed == 0 && s.rejected == 0 && s.pointsNew == 1)
        let empty = try #require(s.files.first { $0.path.hasSuffix("empty.json") })
        #expect(empty.status == .skipped && empty.message == "an empty file: nothing to import")
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 0)
        let (alone, _) = try freshStore()
        let one = try importer(alone).importPaths([dir + "/takeout/Location History/empty.json"])
        #expect(one.rejected == 1 && one.files.first?.status == .imported)
    }

    @Test func filesWithOnlyEventsOrRejectsMakeNoDevice() throws {
        let (store, dir) = try freshStore()
        // Overland actions without device_id, OwnTracks lwt/transition messages, and a file of rejects only.
        try write("{\"locations\":[{\"type\":\"Feature\",\"properties\":{\"action\":\"paused_location_updates\",\"timestamp\":\"2024-01-01T00:00:00Z\"}}]}",
                  dir + "/in/overland/actions.json")
        try write("{\"_type\":\"lwt\",\"tst\":1704067200,\"tid\":\"BN\"}\n{\"_type\":\"transition\",\"tst\":1704067300,\"tid\":\"C1\",\"event\":\"enter\"}\n",
                  dir + "/in/owntracks/events.json")
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 0, lon: 0, device: "ghost")]), dir + "/in/rejects.json")
        let s = try importer(store).importPaths([dir + "/in"])
        #expect(s.failed == 0 && s.pointsNew == 0 && s.events == 3 && s.rejected == 1)
        #expect(try devices(store) == [])
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE device_id IS NULL") == 3)
        // Once a device has points, its later events attach to it.
        try write("{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1704067400,\"tid\":\"BN\"}\n", dir + "/more/bn.json")
        try write("{\"_type\":\"lwt\",\"tst\":1704067500,\"tid\":\"BN\"}\n", dir + "/more/bn-lwt.json")
        _ = try importer(store).importPaths([dir + "/more/bn.json"])
        _ = try importer(store).importPaths([dir + "/more/bn-lwt.json"])
        #expect(try devices(store) == ["BN"])
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE device_id = (SELECT id FROM devices WHERE name = 'BN')") == 1)
    }

    @Test func aFamilysGoogleExportsInOneFolderStayApart() throws {
        let (store, dir) = try freshStore()
        let simulation = Simulator(config: SimulatorConfig(seed: 4, days: 1, people: 2)).run()
        for (name, device) in zip(["alice", "bob"], simulation.devices) {
            try TakeoutWriter.write(simulation, device: device, layout: .records, to: dir + "/family/" + name)
            try TakeoutWriter.write(simulation, device: device, layout: .semantic, to: dir + "/family/" + name)
        }
        let s = try importer(store).importPaths([dir + "/family"])
        #expect(s.failed == 0 && s.rejected == 0)
        #expect(try devices(store) == ["alice", "bob"])
        #expect(try store.db.scalarText("SELECT group_concat(DISTINCT name_origin) FROM devices") == "subfolder")
        // Each person's semantic trips are on the same device as their fixes.
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events e JOIN devices d ON d.id = e.device_id WHERE e.kind = 'trip' AND d.name = 'bob'") ==
                Int64(simulation.truth.trips.filter { $0.device == simulation.devices[1].name }.flatMap(TakeoutWriter.activities).count))
        #expect(Importer.exportFolder("/x/family/alice/Takeout/Location History/Semantic Location History/2024/2024_MARCH.json", under: "/x/family") == "alice")
        #expect(Importer.exportFolder("/x/Takeout/Location History (Timeline)/Records.json", under: "/x/Takeout") == nil)
    }

    @Test func symbolicLinkLoopsAreReadOnce() throws {
        let (store, dir) = try freshStore()
        try write(rec, dir + "/data/rec/alice/phone/2024-01.rec")
        #expect(symlink(dir + "/data", dir + "/data/rec/alice/loop") == 0)
        #expect(symlink("..", dir + "/data/rec/up") == 0)
        #expect(symlink(dir + "/data/rec/alice/phone", dir + "/data/again") == 0)
        let s = try importer(store).importPaths([dir + "/data"])
        #expect(s.failed == 0 && s.pointsNew == 1)
        #expect(s.files.filter { $0.status == .imported }.count == 1)
        #expect(s.files.filter { $0.status == .skipped && $0.message?.contains("already read") == true }.count == 3)
    }

    @Test func namesThatAreNotUTF8AreImportedAndShownEscaped() throws {
        let (store, dir) = try freshStore()
        try FileSystem.createDirectory(dir + "/in")
        // "caf\xE9.json": Latin-1, not UTF-8.
        let raw = Array((dir + "/in/caf").utf8) + [0xE9] + Array(".json".utf8)
        let fd = (raw + [0]).withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
        #expect(fd >= 0)
        let text = overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)])
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
        let s = try importer(store).importPaths([dir + "/in"])
        #expect(s.failed == 0 && s.pointsNew == 1)
        #expect(s.files.map(\.path) == [dir + "/in/caf\\xE9.json"])
    }
}

/// Random damage to gzip, tar and zip files: expanding them must always return (no crash, no hang, no read past
/// the end), with files, failures or skips, never an entry outside the container's bytes.
@Suite struct ContainerMutationTests {
    @Test func damagedContainersNeverBreakTheExpander() throws {
        let body = Array(overlandBody((0..<30).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8) }).utf8)
        let tar = Pack.tar([("a/", []), ("a/one.json", body), ("a/two.rec", Array("2024-01-01T00:00:05Z\t*\t{}\n".utf8))])
        let seeds: [[UInt8]] = [
            Pack.deflate(body, gzip: true), tar, Pack.deflate(tar, gzip: true),
            Pack.zip([(name: "x.json", content: body, method: 8, encrypted: false), (name: "y.json", content: body, method: 0, encrypted: false)]),
            Pack.zip([(name: "x.json", content: body, method: 8, encrypted: false)], zip64: true),
        ]
        var state: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
        var outcomes = [0, 0, 0]
        for seed in seeds {
            for _ in 0..<150 {
                var data = seed
                for _ in 0..<(1 + next(3)) {
                    guard !data.isEmpty else { break }
                    let at = next(data.count)
                    switch next(3) {
                    case 0: data[at] = UInt8(truncatingIfNeeded: next(256))
                    case 1: data.removeSubrange(at..<min(data.count, at + 1 + next(64)))
                    default: data.removeSubrange(at...)
                    }
                }
                let bytes = FileBytes(bytes: data)
                Containers.expand(path: "m", bytes: bytes) { entry in
                    switch entry {
                    case .file(_, let inner, _, _):
                        outcomes[0] += 1
                        // A view must lie inside the container; inflated content is its own buffer.
                        if let p = inner.pointer, let base = bytes.pointer, p >= base, p < base + max(bytes.count, 1) {
                            #expect(p + inner.count <= base + bytes.count)
                        }
                        _ = FormatDetector.parse(inner.buffer, context: context())
                    case .failed: outcomes[1] += 1
                    case .skipped: outcomes[2] += 1
                    }
                    return true
                }
            }
        }
        // The damage is varied enough to reach every outcome.
        #expect(outcomes[0] > 0 && outcomes[1] > 0)
    }
}

extension ContainerMutationTests {
    @Test func paxRecordsThatLieAboutTheirLength() {
        for text in ["1 ", "3 x", "2 path=a\n", "10 path=\n", "", "5 pa", "99999999999999999999 path=x\n"] {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Containers.paxValue($0, key: "path") }
        }
        let good = Array("12 path=a/b\n".utf8)  // the length counts itself, the space and the newline
        #expect(good.withUnsafeBytes { Containers.paxValue($0, key: "path") } == Array("a/b".utf8))
    }
}

extension ContainerMutationTests {
    /// The `containers` fuzz target's seeds (and anything the fuzzer kept, when `Fuzz/corpus/containers` exists)
    /// expand and parse; the seeds hold real files of each kind.
    @Test func fuzzSeedsOfTheContainersTargetExpand() {
        let inputs = FuzzCorpusTests.inputs(["containers"])
        #expect(inputs.count >= 4)
        var files = 0
        for input in inputs {
            Containers.expand(path: input.name, bytes: FileBytes(bytes: input.bytes)) { entry in
                if case .file(_, let inner, _, _) = entry {
                    files += 1
                    _ = FormatDetector.parse(inner.buffer, context: context())
                }
                return true
            }
        }
        #expect(files >= 5)
    }
}
