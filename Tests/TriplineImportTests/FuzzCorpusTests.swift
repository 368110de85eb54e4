import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// Replays the committed, minimised fuzz corpus (`Fuzz/corpus/`, and the seeds in `Fuzz/seeds/`): every input the fuzzer kept must pass the same
/// reader invariants as under the fuzzer, and the JSON parser must agree with Foundation's `JSONSerialization`.
/// Set `TRIPLINE_FUZZ_CORPUS=dir1:dir2` to replay a larger corpus too (e.g. `fuzz-output/corpus/overland`).
@Suite struct FuzzCorpusTests {
    static func inputs(_ targets: [String]) -> [(name: String, bytes: [UInt8])] {
        var dirs = targets.flatMap { [packageRoot() + "/Fuzz/corpus/" + $0, packageRoot() + "/Fuzz/seeds/" + $0] }
        if let extra = ProcessInfo.processInfo.environment["TRIPLINE_FUZZ_CORPUS"] {
            dirs += extra.split(separator: ":").map(String.init)
        }
        var result: [(String, [UInt8])] = []
        for dir in dirs where FileSystem.kind(dir) == .directory {
            for path in FileSystem.walk(dir, onError: { _ in }) {
                if let bytes = try? FileSystem.read(path) { result.append((path, bytes)) }
            }
        }
        return result
    }

    /// What Foundation makes of `bytes`: a value, or nil when it refuses them.
    static func foundation(_ bytes: [UInt8]) -> JSONValue?? {
        guard let any = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return .some(nil) }
        guard let value = foundationValue(any) else { return nil }  // a Foundation type we cannot compare
        return .some(value)
    }

    /// Inputs whose meaning the two parsers define differently on purpose (documented in docs/RELIABILITY.md):
    /// Foundation guesses UTF-16/UTF-32 from NUL bytes in the first four bytes, and skips a UTF-8 byte order mark;
    /// Tripline reads UTF-8 only and its strict tree parser refuses a BOM (the archive reader skips it).
    static func comparable(_ bytes: [UInt8]) -> Bool {
        if bytes.prefix(4).contains(0) { return false }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        return true
    }

    /// `doc` without commas that directly precede `]` or `}` (outside strings). Foundation on Linux accepts such
    /// trailing commas; RFC 8259 and Tripline do not. (A difference the fuzz corpus showed.)
    static func withoutTrailingCommas(_ doc: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, escaped = false
        var pendingComma: Int? = nil
        for b in doc {
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: out.append(b)
            case 0x5D, 0x7D:
                if let c = pendingComma { out.remove(at: c) }
                pendingComma = nil
                out.append(b)
            case 0x2C:
                pendingComma = out.count
                out.append(b)
            default:
                pendingComma = nil
                if b == 0x22 { inString = true }
                out.append(b)
            }
        }
        return out
    }

    /// The whole input and each of its lines (JSON lines archives), as separate documents.
    static func documents(_ bytes: [UInt8]) -> [[UInt8]] {
        var docs = [bytes]
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        if lines.count > 1 { docs += lines.map(Array.init) }
        return docs
    }

    @Test func committedCorpusExists() {
        for target in ["overland", "owntracks", "rec", "gpx", "timestamp"] {
            #expect(!FuzzCorpusTests.inputs([target]).isEmpty, "Fuzz/corpus/\(target) is empty")
        }
    }

    @Test func jsonParserAgreesWithFoundationOnTheFuzzCorpus() throws {
        var compared = 0, accepted = 0
        for (name, bytes) in FuzzCorpusTests.inputs(["overland", "owntracks"]) {
            for doc in FuzzCorpusTests.documents(bytes) where FuzzCorpusTests.comparable(doc) {
                var ours: JSONValue?
                var why = ""
                do { ours = try JSONValue.parse(doc) } catch { why = error.description }
                guard let theirs = FuzzCorpusTests.foundation(doc) else { continue }
                compared += 1
                switch (ours, theirs) {
                case (nil, nil): break
                case (let a?, let b?):
                    accepted += 1
                    #expect(sameAllowingFoundationRounding(a, b), "\(name): values differ: \(String(decoding: doc.prefix(200), as: UTF8.self))")
                case (nil, let b?) where (try? JSONValue.parse(FuzzCorpusTests.withoutTrailingCommas(doc))).map { sameAllowingFoundationRounding($0, b) } == true:
                    break  // Foundation's trailing-comma leniency, documented
                case (nil, _?):
                    Issue.record("\(name): Foundation accepts, Tripline refuses (\(why)): \(String(decoding: doc.prefix(200), as: UTF8.self))")
                case (_?, nil):
                    Issue.record("\(name): Tripline accepts, Foundation refuses: \(String(decoding: doc.prefix(200), as: UTF8.self))")
                }
            }
        }
        #expect(compared > 0 && accepted > 0, "nothing was compared")
        print("JSON differential: \(compared) documents compared, \(accepted) accepted by both")
    }

    /// The reader invariants the fuzz targets check (Fuzz/Targets.swift), on every committed input.
    @Test func readersKeepTheirInvariantsOnTheFuzzCorpus() {
        let context = ReadContext(path: "fuzz/rec/user/device/2024-01.json", fallbackDevice: ("fuzz", .deviceOption), nowMs: testNow)
        for (name, bytes) in FuzzCorpusTests.inputs(["overland", "owntracks", "rec", "gpx"]) {
            let outputs = [FormatDetector.parse(bytes, context: context), JSONArchiveReader.parse(bytes, context: context),
                           RecReader.parse(bytes, context: context), GPXReader.parse(bytes, context: context)]
            for out in outputs {
                #expect(out.points.count == out.positions.count, "\(name)")
                for p in out.points {
                    #expect(p.deviceID >= 0 && Int(p.deviceID) < out.devices.count, "\(name)")
                    #expect(p.lat.isFinite && abs(p.lat) <= 90 && p.lon.isFinite && abs(p.lon) <= 180, "\(name)")
                    #expect(p.timeMs >= 946_684_800_000 && p.timeMs <= testNow + 86_400_000, "\(name)")
                }
                for r in out.rejects { #expect(r.byteOffset >= 0 && r.byteOffset <= bytes.count, "\(name)") }
            }
        }
    }

    @Test func timestampsRoundTripOnTheFuzzCorpus() {
        for (name, bytes) in FuzzCorpusTests.inputs(["timestamp"]) {
            guard let t = bytes.withUnsafeBufferPointer({ b in b.baseAddress.flatMap { Timestamp.parseISO8601($0, b.count) } }) else { continue }
            let text = CivilTime.iso8601(ms: t.ms, offset: UTCOffset(seconds: t.offsetSeconds ?? 0))
            #expect(Timestamp.parseISO8601(text)?.ms == t.ms, "\(name): \(text)")
        }
    }
}
