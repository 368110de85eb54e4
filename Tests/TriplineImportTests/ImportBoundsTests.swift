import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// The import-side holes of issue 21, each with a test that fails without its fix: a `.gz` that shrinks while it is
/// imported, one bound on everything an import may inflate, bounded rejects, and the small ones (a failed file's
/// points in the summary, damaged JSON called valid, a path longer than PATH_MAX, a duplicate `locations` key, absurd
/// altitudes). Hostile archives are built small, in memory, with small bounds.
@Suite(.serialized) struct ImportBoundsTests {
    /// A Recorder `.rec` file of `count` fixes, one a second (deterministic).
    static func rec(_ count: Int, from: Int = 0) -> String {
        var text = ""
        for i in from..<(from + count) {
            let lat = 50 + Double(i % 977) / 1e4, lon = 8 + Double(i % 1013) / 1e4
            text += "2024-01-01T00:00:00Z\t*                 \t{\"_type\":\"location\",\"lat\":\(lat),\"lon\":\(lon),\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n"
        }
        return text
    }

    func body(_ count: Int, from: Int = 0, device: String = "phone") -> String {
        overlandBody((from..<(from + count)).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8, device: device) })
    }

    /// Runs the parsing side of an import on one opened input and returns what it handed to the writer.
    func parse(_ path: String, bytes: FileBytes, options: ImportOptions = ImportOptions(nowMs: testNow)) -> [Importer.Message] {
        let queue = BoundedQueue<Importer.Message>(capacity: 1 << 20)
        let recycle = BoundedQueue<[Point]>(capacity: 4)
        let job = Importer.Job(path: path, fallback: ("d", .deviceOption), size: bytes.count)
        _ = Importer.parseJob(job, bytes: bytes, options: options, check: nil, queue: queue, recycle: recycle)
        queue.close()
        var messages: [Importer.Message] = []
        while let m = queue.pop() { messages.append(m) }
        return messages
    }

    // MARK: 1. A .gz that shrinks while it is imported

    @Test func aGzipCutWhileItIsInflatedIsNotStored() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/big.rec.gz"
        try FileSystem.write(Pack.gzip(Self.rec(20_000)), to: path)
        #expect(FileSystem.size(path)! > 64 << 10)
        // Opened (mapped) whole, then cut, as `truncate -s 4096` does under a running import: the inflater reads zeros
        // past the cut, which zlib takes for a stream that just ends early — a "cut gzip file" with 1 MB of garbage.
        let bytes = try FileBytes(path: path)
        #expect(truncate(path, 4096) == 0)
        let messages = parse(path, bytes: bytes)
        var failure: String?
        for message in messages {
            switch message {
            case .failed(_, let text, _): failure = text
            case .end(let output):
                #expect(output.fatal != nil, "a file inflated from a gzip file that shrank must not be committable")
                failure = failure ?? output.fatal
            default: break
            }
        }
        #expect(failure?.contains("the compressed file \(path) shrank while it was being read") == true, "\(failure ?? "nothing failed")")
    }

    /// A compressed file cut while it is inflated may make the inflating fail (a container failure) rather than end
    /// early: the change is then found on the compressed file itself, and told the same way as when it is found in
    /// what was inflated from it, naming the compressed file (which of the two happens depends on when the cut lands;
    /// under load `aFileCutWhileItIsImportedFailsAndTheOthersStay` met both).
    @Test func aContainerCutWhileItIsInflatedIsNamedAsCompressed() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/big.rec.gz"
        try FileSystem.write(Pack.gzip(Self.rec(20_000)), to: path)
        let bytes = try FileBytes(path: path)
        #expect(truncate(path, 4096) == 0)
        let asContainer = try #require(bytes.changedWhileRead(container: true))
        #expect(asContainer.hasPrefix("the compressed file \(path) was changed while it was being read"), "\(asContainer)")
        #expect(bytes.changedWhileRead()?.hasPrefix("the file was changed while it was being read") == true)
    }

    /// Cut after it was inflated, while its content is parsed (the writer holds the parser back: a one-deep queue),
    /// and, for comparison, a plain file cut the same way. The other files still import, the summary counts only
    /// their points, and the cut file fails naming itself.
    @Test(arguments: [true, false])
    func aFileCutWhileItIsImportedFailsAndTheOthersStay(compressed: Bool) throws {
        let (store, dir) = try freshStore()
        let big = dir + (compressed ? "/b.rec.gz" : "/b.rec")
        try FileSystem.write(body(20), to: dir + "/a.json")
        if compressed {
            try FileSystem.write(Pack.gzip(Self.rec(20_000)), to: big)
        } else {
            try FileSystem.write(Self.rec(20_000), to: big)
        }
        try FileSystem.write(body(20, from: 100), to: dir + "/c.json")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow, batchSize: 64, queueDepth: 1))
        // Cut when the writer takes the big file's first message: it is open and mapped then, and far from read
        // (a one-deep queue of 64-point batches), so the cut always lands inside its import. (Cutting it when
        // `a.json` was done raced the parser's opening of it: opened after the cut, it was a whole 4 KiB file.)
        importer.onBegin = { path in
            if path.hasPrefix(big) { _ = truncate(big, 4096) }
        }
        let s = try importer.importPaths([dir + "/a.json", big, dir + "/c.json"])
        #expect(s.files.map(\.status) == [.imported, .failed, .imported])
        let failed = s.files[1]
        #expect(failed.message?.contains(compressed ? "the compressed file \(big)" : "the file") == true, "\(failed.message ?? "")")
        #expect(failed.message?.contains("while it was being read") == true)
        // Its batches reached the writer before it failed; they were rolled back and are not counted (issue 21, 15).
        #expect(failed.pointsNew == 0 && failed.rejected == 0)
        #expect(s.pointsNew == 40)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 40)
        #expect(try store.db.scalarText("SELECT group_concat(status) FROM (SELECT status FROM imports ORDER BY id)") == "done,failed,done")
    }

    // MARK: 3. One bound on everything an import inflates

    /// `{"locations":[` + `n` spaces + `]}`: valid, empty, and as compressible as deflate allows.
    static func spaces(_ n: Int) -> [UInt8] { Array("{\"locations\":[".utf8) + [UInt8](repeating: 0x20, count: n) + Array("]}".utf8) }

    func expand(_ data: [UInt8], limit: Int) -> (files: [(String, Int)], failures: [String], used: Int) {
        let budget = InflateBudget(limit: limit)
        var files: [(String, Int)] = []
        var failures: [String] = []
        Containers.expand(path: "in", bytes: FileBytes(bytes: data), budget: budget) { entry in
            switch entry {
            case .file(let path, let bytes, _, _): files.append((path, bytes.count))
            case .failed(let path, let message): failures.append(path + ": " + message)
            case .skipped: break
            }
            return true
        }
        return (files, failures, budget.used)
    }

    @Test func nestedGzipIsBoundOverAllItsLayers() {
        let limit = 1 << 20
        // 4 MiB in two gzip layers: each layer alone is small against its input's 1000× (the old per-layer cap);
        // together they pass the 1 MiB bound and stop there.
        let twice = Pack.deflate(Pack.deflate(Self.spaces(4 << 20), gzip: true), gzip: true)
        #expect(twice.count < 16 << 10)
        let r = expand(twice, limit: limit)
        #expect(r.files.isEmpty)
        #expect(r.failures.count == 1 && r.failures[0].contains("in: it inflates to more than the 1 MiB") && r.failures[0].contains("decompression bomb"),
                "\(r.failures)")
        #expect(r.used <= limit)
        // The same content within the bound is read whole, through both layers.
        let small = Pack.deflate(Pack.deflate(Self.spaces(600 << 10), gzip: true), gzip: true)
        let ok = expand(small, limit: limit)
        #expect(ok.failures.isEmpty && ok.files.map(\.1) == [Self.spaces(600 << 10).count])
    }

    @Test func aLayerIsNotStartedOnceTheBudgetIsSpent() {
        // The outer layer inflates to exactly the inner gzip file, which uses the whole budget: the inner layer is
        // refused before it writes a byte.
        let inner = Pack.deflate(Self.spaces(1 << 20), gzip: true)
        let r = expand(Pack.deflate(inner, gzip: true), limit: inner.count)
        #expect(r.used == inner.count)
        #expect(r.failures.count == 1 && r.failures[0].contains("decompression bomb"))
    }

    @Test func theBudgetSpansEveryEntryOfATarInAGzip() {
        // Three .gz entries of 600 KiB each inside a .tar.gz: every inner layer draws on the same 1.5 MiB.
        let entry = Pack.deflate(Self.spaces(600 << 10), gzip: true)
        let tar = Pack.tar([("a.json.gz", entry), ("b.json.gz", entry), ("c.json.gz", entry)])
        let r = expand(Pack.deflate(tar, gzip: true), limit: 3 << 19)
        #expect(r.files.map(\.0) == ["in/a.json.gz", "in/b.json.gz"])
        #expect(r.failures.count == 1 && r.failures[0].hasPrefix("in/c.json.gz: it inflates to more than"), "\(r.failures)")
        #expect(r.used <= 3 << 19)
    }

    /// A zip whose central directory lists `copies` entries that all point at one deflated local entry.
    static func overlappingZip(_ content: [UInt8], copies: Int) -> [UInt8] {
        let data = Pack.deflate(content, gzip: false)
        let name = Array("a.json".utf8)
        let head = Pack.le16(20) + Pack.le16(0) + Pack.le16(8) + Pack.le16(0) + Pack.le16(0x5821) + Pack.le32(Pack.crc(content))
        var out = Pack.le32(0x0403_4B50) + head + Pack.le32(data.count) + Pack.le32(content.count) + Pack.le16(name.count) + Pack.le16(0) + name + data
        var central: [UInt8] = []
        for i in 0..<copies {
            let entryName = Array("e\(i).json".utf8)
            central += Pack.le32(0x0201_4B50) + Pack.le16(20) + head + Pack.le32(data.count) + Pack.le32(content.count) + Pack.le16(entryName.count)
                + Pack.le16(0) + Pack.le16(0) + Pack.le16(0) + Pack.le16(0) + Pack.le32(0) + Pack.le32(0) + entryName
        }
        let cdOffset = out.count
        out += central
        out += Pack.le32(0x0605_4B50) + Pack.le16(0) + Pack.le16(0) + Pack.le16(copies) + Pack.le16(copies) + Pack.le32(central.count) + Pack.le32(cdOffset) + Pack.le16(0)
        return out
    }

    @Test func zipEntriesThatShareTheirDataAreRefused() {
        // 20 entries over one deflated 512 KiB entry: 10 MiB from a few KiB if each were inflated.
        let zip = Self.overlappingZip(Self.spaces(512 << 10), copies: 20)
        #expect(zip.count < 8 << 10)
        let r = expand(zip, limit: 64 << 20)
        #expect(r.files.isEmpty && r.used == 0)
        #expect(r.failures.count == 20 && r.failures.allSatisfy { $0.contains("overlaps another entry's") }, "\(r.failures.prefix(2))")
        // One entry alone is an ordinary zip.
        let single = expand(Self.overlappingZip(Self.spaces(512 << 10), copies: 1), limit: 64 << 20)
        #expect(single.failures.isEmpty && single.files.count == 1)
    }

    @Test func aZipEntryIsCheckedAgainstTheBudgetBeforeItIsInflated() {
        let content = Self.spaces(2 << 20)
        let zip = Pack.zip([(name: "big.json", content: content, method: 8, encrypted: false)])
        let r = expand(zip, limit: 1 << 20)
        #expect(r.used == 0, "refused on its declared size, before inflating")
        #expect(r.failures.count == 1 && r.failures[0].contains("declares 2 MiB inflated, more than the 1 MiB left"), "\(r.failures)")
        // An entry that declares less than it inflates to stops at what it declared, not at the bound.
        var lying = Pack.zip([(name: "lie.json", content: content, method: 8, encrypted: false)])
        let cd = lying.count - 22 - (46 + 8)
        lying.replaceSubrange((cd + 24)..<(cd + 28), with: Pack.le32(1000))  // central directory: uncompressed size 1000
        let l = expand(lying, limit: 64 << 20)
        #expect(l.failures.count == 1 && l.failures[0].contains("more than the 1000 bytes it declares"), "\(l.failures)")
        #expect(l.used <= 1 << 20)
    }

    @Test func contentThatIsNoArchiveIsNotInflatedPastItsFirstBytes() {
        // 8 MiB of zeros in two layers: the inner layer's first bytes are binary, so it stops there.
        let zeros = Pack.deflate(Pack.deflate([UInt8](repeating: 0, count: 8 << 20), gzip: true), gzip: true)
        let r = expand(zeros, limit: 64 << 20)
        #expect(r.used < 2 << 20 + 64 << 10, "\(r.used)")
        #expect(r.files.count == 1 && r.files[0].1 < 2 << 20)
        // A real archive's content is not stopped: whitespace, JSON, a tar.
        #expect(Containers.worthInflating(UnsafeRawBufferPointer(start: nil, count: 0)))
        for prefix in ["   \n", "{\"locations\":[", "<?xml", "2024-01-01T00:00:00Z\t", "Geolife trajectory\r\n"] {
            #expect(Array(prefix.utf8).withUnsafeBytes { Containers.worthInflating($0) }, "\(prefix)")
        }
        #expect(![UInt8](repeating: 0, count: 600).withUnsafeBytes { Containers.worthInflating($0) })
    }

    @Test func theImporterAppliesTheBoundAndNamesTheFile() throws {
        let (store, dir) = try freshStore()
        try FileSystem.write(Pack.deflate(Pack.deflate(Self.spaces(4 << 20), gzip: true), gzip: true), to: dir + "/bomb.json.gz.gz")
        try FileSystem.write(Pack.gzip(body(10)), to: dir + "/fine.json.gz")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow, inflateLimit: 1 << 20))
        let s = try importer.importPaths([dir + "/bomb.json.gz.gz", dir + "/fine.json.gz"])
        #expect(s.files.map(\.status) == [.failed, .imported])
        #expect(s.files[0].path == dir + "/bomb.json.gz.gz" && s.files[0].message?.contains("decompression bomb") == true)
        #expect(s.pointsNew == 10)
        // The standard bound: 100 times the input plus 256 MiB, so a 200 MB .gz of a 3 GB Records.json fits.
        #expect(InflateBudget.standard(inputSize: 200_000_000).limit > 3_000_000_000)
        #expect(InflateBudget.standard(inputSize: 5_000).limit < 257 << 20)
        #expect(InflateBudget.standard(inputSize: Int.max / 2).limit == Int.max)
    }

    // MARK: 14. Rejects are bounded per file

    @Test func aFileKeepsItsFirstRejectsAndCountsTheRest() throws {
        let (store, dir) = try freshStore()
        var lines = ""
        for i in 0..<600 { lines += "{\"_type\":\"location\",\"lat\":0,\"lon\":0,\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n" }
        for i in 0..<400 { lines += "{\"_type\":\"location\",\"lat\":50,\"lon\":8,\"tst\":\(900_000_000 + i),\"tid\":\"ph\"}\n" }
        for i in 0..<5 { lines += "{\"_type\":\"location\",\"lat\":50,\"lon\":8,\"tst\":\(1_704_167_200 + i),\"tid\":\"ph\"}\n" }
        try FileSystem.write(lines, to: dir + "/bad.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow, rejectsKeptPerFile: 10)).importPaths([dir + "/bad.json"])
        #expect(s.pointsNew == 5 && s.rejected == 1000)
        // Ten rows in full, then one row per reason standing for the rest.
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects WHERE records = 1") == 10)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 12)
        #expect(try store.db.scalarInt("SELECT sum(records) FROM rejects WHERE reason = 'null_island'") == 600)
        #expect(try store.db.scalarInt("SELECT sum(records) FROM rejects WHERE reason = 'time_too_early'") == 400)
        #expect(try store.db.scalarInt("SELECT rejected FROM imports") == 1000)
        let summary = try store.db.scalarText("SELECT detail FROM rejects WHERE reason = 'time_too_early' AND records > 1") ?? ""
        #expect(summary.hasPrefix("400 more time_too_early rejects in this file from line 601, byte ") && summary.contains("first 10 rejects"), "\(summary)")
        #expect(try store.db.scalarInt("SELECT line FROM rejects WHERE reason = 'null_island' AND records > 1") == 11)
    }

    /// A Recorder `.rec` that grew since its import (the Recorder appends to the month's file; a nightly import reads
    /// it whole again, its fingerprint changed): the bad record an earlier import stored is not stored or counted a
    /// second time; the new one is. Before, every import of the growing file logged its old bad records again.
    @Test func aFileThatGrewDoesNotLogItsOldRejectsAgain() throws {
        let (store, dir) = try freshStore()
        let path = dir + "/2024-01.rec"
        let bad = "2024-01-01T00:00:00Z\t*                 \t{\"_type\":\"location\",\"lat\":\n"
        try FileSystem.write(Self.rec(5) + bad + Self.rec(5, from: 5), to: path)
        let first = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([path])
        #expect(first.pointsNew == 10 && first.rejected == 1)
        try FileSystem.write(Self.rec(5) + bad + Self.rec(5, from: 5) + Self.rec(3, from: 10) + "not a Recorder line\n", to: path)
        let second = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([path])
        #expect(second.pointsNew == 3 && second.pointsDuplicate == 10 && second.rejected == 1)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 2)
        #expect(try store.rejectCountsByReason().reduce(0) { $0 + $1.1 } == 2)
        // The same file under another path is another file: its rejects are its own.
        let grown = Self.rec(5) + bad + Self.rec(5, from: 5) + Self.rec(3, from: 10) + "not a Recorder line\n"
        try FileSystem.write(grown + Self.rec(1, from: 13), to: dir + "/copy.rec")
        let copy = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/copy.rec"])
        #expect(copy.rejected == 2)
    }

    /// The same for rejects an earlier import counted in one row past those it kept: those it counted are skipped
    /// (they come first: the file grew at its end), the new ones counted.
    @Test func aFileThatGrewCountsOnlyItsNewRejectsPastThoseKept() throws {
        let (store, dir) = try freshStore()
        var lines = ""
        for i in 0..<30 { lines += "{\"_type\":\"location\",\"lat\":0,\"lon\":0,\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n" }
        try FileSystem.write(lines, to: dir + "/bad.json")
        let options = ImportOptions(nowMs: testNow, rejectsKeptPerFile: 10)
        #expect(try Importer(store: store, options: options).importPaths([dir + "/bad.json"]).rejected == 30)
        for i in 30..<37 { lines += "{\"_type\":\"location\",\"lat\":0,\"lon\":0,\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n" }
        try FileSystem.write(lines, to: dir + "/bad.json")
        #expect(try Importer(store: store, options: options).importPaths([dir + "/bad.json"]).rejected == 7)
        #expect(try store.db.scalarInt("SELECT sum(records) FROM rejects WHERE reason = 'null_island'") == 37)
    }

    @Test func millionsOfBadRecordsDoNotGrowTheDatabaseOrTheWAL() throws {
        let (store, dir) = try freshStore()
        var lines = ""
        lines.reserveCapacity(60 * 50_000)
        for i in 0..<50_000 { lines += "{\"_type\":\"location\",\"lat\":0,\"lon\":0,\"tst\":\(1_704_067_200 + i),\"tid\":\"ph\"}\n" }
        try FileSystem.write(lines, to: dir + "/bad.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow, rejectsKeptPerFile: 100)).importPaths([dir + "/bad.json"])
        #expect(s.rejected == 50_000)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 101)
        // The file's transaction wrote about a hundred rows, not 50,000 (about 8 MB of WAL before the bound).
        let wal = FileSystem.size(store.path + "-wal") ?? 0
        #expect(wal < 2 << 20, "WAL \(wal) bytes")
        #expect(ImportOptions().rejectsKeptPerFile == 10_000)
    }

    // MARK: Device names a file gives

    /// A file may name any device: a name over 255 bytes (the `--device` bound) is stored cut to 255 bytes of whole
    /// characters with a hash of the whole name, so two names that differ only past the cut stay two devices, the same
    /// name is the same device in every file, and every point is kept. Before, a 100,000-byte `device_id` was stored as
    /// it came (the `info` table and every export's device column carried it).
    @Test func longDeviceNamesAreCutAndStayApart() throws {
        let (store, dir) = try freshStore()
        let long = String(repeating: "ü", count: 200)  // 400 bytes: the cut must fall between whole characters
        let a = long + "-a", b = long + "-b", short = String(repeating: "x", count: 255)
        var features: [String] = []
        for (k, device) in [a, b, short].enumerated() {
            features.append(overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(k) * 1000), lat: 50, lon: 8, device: device))
        }
        try FileSystem.write(overlandBody(features), to: dir + "/one.json")
        try FileSystem.write(overlandBody([overlandFeature(CivilTime.iso8601(ms: 1_704_067_300_000), lat: 50, lon: 8, device: a)]), to: dir + "/two.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/one.json", dir + "/two.json"])
        #expect(s.pointsNew == 4 && s.rejected == 0)
        let q = try store.db.prepare("SELECT name FROM devices ORDER BY name")
        var names: [String] = []
        while try q.step() { names.append(q.text(0) ?? "") }
        #expect(names.count == 3, "\(names.map(\.utf8.count))")
        #expect(names.allSatisfy { $0.utf8.count <= 255 })
        #expect(names.contains(short), "a name of exactly 255 bytes is kept as it is")
        let cut = names.filter { $0 != short }
        #expect(cut.allSatisfy { $0.hasPrefix(String(repeating: "ü", count: 10)) && $0.contains("…") })
        #expect(ParsedDevice.storedName(a) == ParsedDevice.storedName(a) && ParsedDevice.storedName(a) != ParsedDevice.storedName(b))
        let sql = "SELECT count(*) FROM points p JOIN devices d ON d.id = p.device_id WHERE d.name = ?"
        #expect(try store.db.scalarInt(sql, [.text(ParsedDevice.storedName(a))]) == 2, "both files' points of the long name are one device")
    }

    /// A file naming many devices: each a device (found by a hash of the names, not a scan of those seen), and the
    /// import's message names the first ten and counts the rest.
    @Test func aFileNamingManyDevicesIsSummarised() throws {
        let (store, dir) = try freshStore()
        let features = (0..<3000).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8, device: "d\($0)") }
        try FileSystem.write(overlandBody(features), to: dir + "/many.json")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/many.json"])
        #expect(s.pointsNew == 3000)
        #expect(try store.db.scalarInt("SELECT count(*) FROM devices") == 3000)
        let message = try store.db.scalarText("SELECT message FROM imports") ?? ""
        #expect(message.hasPrefix("device 'd0' (from ") && message.hasSuffix("; and 2990 more devices"), "\(message.prefix(300))")
        var out = ParseOutput()
        #expect(out.deviceIndex(ParsedDevice(name: "a", source: "overland", origin: .deviceID)) == 0)
        out.devices.append(ParsedDevice(name: "b", source: "overland", origin: .deviceID))  // set from outside: found too
        #expect(out.deviceIndex(ParsedDevice(name: "b", source: "overland", origin: .deviceID)) == 1)
        #expect(out.deviceIndex(ParsedDevice(name: "c", source: "overland", origin: .deviceID)) == 2 && out.devices.count == 3)
    }

    /// A GPS logger's track over the leap second of 2016: the fix at `23:59:60` and the one at `00:00:00` are two
    /// points. Before, `:60` was read as the next second and the `00:00:00` fix was rejected as a conflicting duplicate.
    @Test func aLeapSecondIsNotTheNextMinute() throws {
        let (store, dir) = try freshStore()
        let times = ["2016-12-31T23:59:59Z", "2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z", "2017-01-01T00:00:01Z"]
        let points = times.enumerated().map { "<trkpt lat=\"52.50\($0.offset)\" lon=\"13.4\"><time>\($0.element)</time></trkpt>" }
        try FileSystem.write("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>" + points.joined() + "</trkseg></trk></gpx>", to: dir + "/leap.gpx")
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/leap.gpx"])
        #expect(s.pointsNew == 4 && s.rejected == 0)
        #expect(try store.db.scalarInt("SELECT time_ms FROM points WHERE lat = 52.501") == 1_483_228_799_999)
    }

    // MARK: 15. Small ones

    @Test func randomBytesAfterTheLocationsKeyAreDamagedNotValidJSON() {
        var state: UInt64 = 21
        var junk = Array("{\"locations\":[7,".utf8)
        for _ in 0..<(64 << 10) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            junk.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        let out = FormatDetector.parse(junk, context: context())
        let fatal = out.fatal ?? ""
        #expect(!fatal.contains("valid JSON"), "\(fatal)")
        #expect(fatal.hasPrefix("not a location archive (no record in it could be read): ") && fatal.contains("at byte 16") && fatal.contains("(line 1, byte 16); 2 damaged or unknown records in all"), "\(fatal)")
        #expect(!out.notArchive, "damage is a failure even inside a folder, not a file of another kind")
    }

    @Test func aSecondLocationsArrayIsRejectedNotImported() throws {
        let first = overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8), second = overlandFeature("2024-01-01T00:00:01Z", lat: 51, lon: 9)
        let text = "{\"locations\":[\(first)],\"locations\":[\(second),\(second)]}"
        let out = FormatDetector.parse(Array(text.utf8), context: context())
        #expect(out.points.count == 1 && out.points.first?.lat == 50)
        #expect(out.rejects.map(\.reason) == [.duplicateKey, .duplicateKey])
        #expect(out.rejects.first?.detail.contains("second 'locations' array") == true)
        // Another key twice beside the records: the records stand, the batch objects are not read, and it is said.
        let current = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,50]},\"properties\":{\"timestamp\":\"2024-01-01T00:10:00Z\"}}"
        let twice = "{\"locations\":[\(first)],\"current\":\(current),\"current\":\(current)}"
        let out2 = FormatDetector.parse(Array(twice.utf8), context: context())
        #expect(out2.points.count == 1 && out2.events.isEmpty && out2.rejects.map(\.reason) == [.duplicateKey])
        // A single body is untouched.
        let once = FormatDetector.parse(Array("{\"locations\":[\(first),\(second)],\"current\":\(current)}".utf8), context: context())
        #expect(once.points.count == 2 && once.rejects.isEmpty && once.events.count == 1)
    }

    @Test func absurdAltitudesAreDroppedAndThePointKept() {
        func altitude(_ value: String) -> (Double?, [RejectReason]) {
            let text = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,50]},\"properties\":{\"timestamp\":\"2024-01-01T00:00:00Z\",\"altitude\":\(value)}}]}"
            let out = FormatDetector.parse(Array(text.utf8), context: context())
            #expect(out.points.count == 1, "\(value)")
            return (out.points.first?.altitudeM, out.rejects.map(\.reason))
        }
        #expect(altitude("-1e308") == (nil, [.altitudeOutOfRange]))
        #expect(altitude("1e7") == (nil, [.altitudeOutOfRange]))
        #expect(altitude("8848.9") == (8848.9, []))
        #expect(altitude("-430") == (-430, []))
        #expect(altitude("39000") == (39000, []))
        // GPX <ele> and OwnTracks alt go through the same check.
        let gpx = "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"50\" lon=\"8\"><ele>-1e308</ele><time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
        let g = FormatDetector.parse(Array(gpx.utf8), context: context())
        #expect(g.points.count == 1 && g.points.first?.altitudeM == nil && g.rejects.map(\.reason) == [.altitudeOutOfRange])
        let o = FormatDetector.parse(Array("{\"_type\":\"location\",\"lat\":50,\"lon\":8,\"tst\":1704067200,\"alt\":-1e308,\"tid\":\"ph\"}".utf8), context: context())
        #expect(o.points.count == 1 && o.points.first?.altitudeM == nil && o.rejects.map(\.reason) == [.altitudeOutOfRange])
        let rejected = o.rejects.first?.detail ?? ""
        #expect(rejected.contains("-1e+308") && rejected.contains("kept without it"), "\(rejected)")
    }

    /// A folder whose files lie deeper than PATH_MAX (made with `mkdirat`/`openat`, as `mkdir -p` cannot), removed
    /// the same way afterwards.
    @Test func aPathLongerThanPathMaxIsAnErrorNotABrokenLink() throws {
        let (store, dir) = try freshStore()
        let root = dir + "/deep"
        try FileSystem.createDirectory(root)
        let name = String(repeating: "d", count: 200)
        var fds = [open(root, O_RDONLY | O_DIRECTORY)]
        defer {
            // Remove from the bottom up, through the descriptors.
            unlinkat(fds.last!, "f.json", 0)
            for level in stride(from: fds.count - 1, through: 1, by: -1) {
                close(fds[level])
                unlinkat(fds[level - 1], name, AT_REMOVEDIR)
            }
            close(fds[0])
        }
        for _ in 0..<(Int(PATH_MAX) / 200 + 2) {
            #expect(mkdirat(fds.last!, name, 0o755) == 0)
            fds.append(openat(fds.last!, name, O_RDONLY | O_DIRECTORY))
        }
        let fd = openat(fds.last!, "f.json", O_WRONLY | O_CREAT, 0o644)
        let text = body(1)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let walk = FileSystem.walkEntries(root)
        #expect(walk.skipped.isEmpty, "\(walk.skipped.map(\.1))")
        #expect(walk.errors.count == 1 && walk.errors[0].reason.contains("longer than the system allows"))
        let s = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([root])
        #expect(s.failed == 1 && s.files.allSatisfy { $0.status != .skipped })
        #expect(s.files.first?.message?.contains("\(PATH_MAX) bytes in all") == true, "\(s.files.first?.message ?? "")")
    }
}
