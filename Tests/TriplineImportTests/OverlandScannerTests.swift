import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// The direct Overland scanner (`JSONParser.scanOverlandFeature`) is a shortcut: whatever it reads must come out
/// exactly as the tape path reads it (points, cold bytes, rejects with their positions, events, devices), and
/// whatever it gives up on is read by the tape path. These tests parse the same bytes both ways and compare.
@Suite struct OverlandScannerTests {
    /// Parses `bytes` as the importer does (cold objects encoded, batches off), with or without the scanner.
    static func read(_ bytes: [UInt8], scanner: Bool) -> (ParseOutput, scanned: Int) {
        var ctx = context("dev")
        ctx.encodeCold = true
        return bytes.withUnsafeBytes { raw in
            var reader = JSONArchiveReader(bytes: raw, context: ctx)
            reader.useScanner = scanner
            let out = reader.read()
            return (out, reader.scannedRecords)
        }
    }

    static func expectSame(_ bytes: [UInt8], _ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let (fast, scanned) = read(bytes, scanner: true)
        let (tape, none) = read(bytes, scanner: false)
        #expect(none == 0)
        #expect(fast.points == tape.points, "points differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.positions == tape.positions, "positions differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.cold == tape.cold, "cold bytes differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.rejects == tape.rejects, "rejects differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.events == tape.events, "events differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.devices == tape.devices, "devices differ: \(name)", sourceLocation: sourceLocation)
        #expect(fast.format == tape.format && fast.fatal == tape.fatal, "format or fatal differ: \(name)", sourceLocation: sourceLocation)
        return scanned
    }

    static let plain = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.0300123,37.3300456]},"properties":{"timestamp":"2020-09-13T12:26:47-0700","altitude":20,"speed":12.34,"course":90,"horizontal_accuracy":5,"vertical_accuracy":-1,"speed_accuracy":1.5,"course_accuracy":-1,"motion":["driving"],"pauses":false,"activity":"other_navigation","desired_accuracy":100,"deferred":0,"significant_change":"disabled","locations_in_payload":200,"battery_state":"unplugged","battery_level":0.87,"device_id":"bench-phone","wifi":""}}"#

    /// Features that the scanner reads, and variants it must give up on (each still read right by the tape path).
    static let variants: [String] = [
        plain,
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""sp\u0065ed":12.34"#),  // escaped key
        plain.replacingOccurrences(of: #""unplugged""#, with: #""un\"plugged""#),  // escaped value
        plain.replacingOccurrences(of: #""unplugged""#, with: #""caf\#u{E9} \#u{1F600}""#),  // non-ASCII value
        plain.replacingOccurrences(of: #""pauses":false"#, with: #""pauses":false,"pauses":true"#),  // duplicate unread key
        plain.replacingOccurrences(of: #""altitude":20"#, with: #""altitude":20,"altitude":21"#),  // duplicate read key
        plain.replacingOccurrences(of: #""type":"Feature""#, with: #""type":"Feature","type":"Feature""#),
        plain.replacingOccurrences(of: #""course":90"#, with: #""course":NaN"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":-Infinity"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":1e400"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":1.234e1"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":"12.34""#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":{"x":[1,2,{"y":null}]}"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":null"#),
        plain.replacingOccurrences(of: #""speed":12.34"#, with: #""speed":true"#),
        plain.replacingOccurrences(of: #"-122.0300123"#, with: #"-122.03001234567891234"#),
        plain.replacingOccurrences(of: #"-122.0300123"#, with: #"-0.000000000000000000000000123"#),
        plain.replacingOccurrences(of: #"-122.0300123"#, with: #"-0.0"#),
        plain.replacingOccurrences(of: #"37.3300456"#, with: #"0.00000000000000000000"#),
        plain.replacingOccurrences(of: #"37.3300456"#, with: #"123456789012345.5"#),
        plain.replacingOccurrences(of: #"37.3300456"#, with: #"37.3300456,812.5"#),
        plain.replacingOccurrences(of: #"37.3300456"#, with: #"37.3300456,"high",4"#),
        plain.replacingOccurrences(of: #"37.3300456"#, with: #""37.33""#),
        plain.replacingOccurrences(of: #"[-122.0300123,37.3300456]"#, with: #"[-122.0300123]"#),
        plain.replacingOccurrences(of: #"[-122.0300123,37.3300456]"#, with: #"[]"#),
        plain.replacingOccurrences(of: #"[-122.0300123,37.3300456]"#, with: #"[0,0]"#),
        plain.replacingOccurrences(of: #"[-122.0300123,37.3300456]"#, with: #"[-122.03,97.5]"#),
        plain.replacingOccurrences(of: #""geometry":{"type":"Point","coordinates":[-122.0300123,37.3300456]},"#, with: ""),
        plain.replacingOccurrences(of: #"{"type":"Point","coordinates""#, with: #"{"type":"Point","bbox":[1,2],"coordinates""#),
        plain.replacingOccurrences(of: #""geometry":{"type":"Point","coordinates":[-122.0300123,37.3300456]}"#, with: #""geometry":null"#),
        plain.replacingOccurrences(of: #""motion":["driving"]"#, with: #""motion":["walking","stationary"]"#),
        plain.replacingOccurrences(of: #""motion":["driving"]"#, with: #""motion":[]"#),
        plain.replacingOccurrences(of: #""motion":["driving"]"#, with: #""motion":[""]"#),
        plain.replacingOccurrences(of: #""motion":["driving"]"#, with: #""motion":"driving""#),
        plain.replacingOccurrences(of: #""motion":["driving"]"#, with: #""motion":["driving",7]"#),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700""#, with: #""timestamp":"2020-09-13T12:26:47.5+07:00""#),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700""#, with: #""timestamp":"2020-02-30T12:26:47Z""#),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700""#, with: #""timestamp":"2020-09-13 12:26Z""#),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700""#, with: #""timestamp":1600000000"#),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700","#, with: ""),
        plain.replacingOccurrences(of: #""timestamp":"2020-09-13T12:26:47-0700""#, with: #""timestamp":"2035-09-13T12:26:47Z""#),
        plain.replacingOccurrences(of: #""device_id":"bench-phone""#, with: #""device_id":"other""#),
        plain.replacingOccurrences(of: #""device_id":"bench-phone""#, with: #""device_id":"""#),
        plain.replacingOccurrences(of: #""wifi":"""#, with: #""wifi":"Home","wifi_bssid":"aa:bb","trip_id":"t1","trip_mode":"car","unique_id":"u""#),
        plain.replacingOccurrences(of: #""speed_accuracy":1.5"#, with: #""speed_accuracy":null"#),
        plain.replacingOccurrences(of: #""pauses":false"#, with: #""action":"visit","arrival_date":"2020-09-13T12:00:00Z""#),
        plain.replacingOccurrences(of: #""pauses":false"#, with: #""type":"trip","start":"2020-09-13T12:00:00Z","end":"2020-09-13T12:26:47Z""#),
        plain.replacingOccurrences(of: #""pauses":false"#, with: #""type":"tr\u0069p""#),
        plain.replacingOccurrences(of: #""pauses":false"#, with: #""type":"walk""#),
        plain.replacingOccurrences(of: #"{"type":"Feature","#, with: #"{"_type":"location","type":"Feature","#),
        plain.replacingOccurrences(of: #"{"type":"Feature","#, with: #"{"id":7,"type":"Feature","#),
        plain.replacingOccurrences(of: #""properties":{"#, with: #""properties":{"bad":"\#u{FF}","#),
        plain.replacingOccurrences(of: #""properties":{"#, with: #""properties" : { "#).replacingOccurrences(of: ",", with: " ,\n "),
        plain.replacingOccurrences(of: #""properties":{"timestamp""#, with: #""properties":{"timestamp"#),  // broken
        String(plain.dropLast(7)),  // cut
        // Found by the differential fuzz target: an empty `properties` object must be closed by its own brace.
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{}}"#,
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{\#t\#t}"timestamp":"2024-03-30T09:42:16+0100"}"#,
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{ },"x":1}"#,
    ]

    @Test func variantsReadAlikeBothWays() {
        var scanned = 0
        for (i, feature) in Self.variants.enumerated() {
            let body = #"{"locations":["# + feature + "," + Self.plain + "]}\n"
            scanned += Self.expectSame(Array(body.utf8), "variant \(i)")
        }
        // The shortcut was taken (at least the plain features after each variant), so this compared something.
        #expect(scanned >= Self.variants.count)
    }

    @Test func aBodyOfManyVariantsReadsAlike() {
        // All variants in one array, twice, with a body-level `current` and JSON lines: the scanner's give-ups and
        // the tape path interleave within one stream.
        let body = #"{"locations":["# + (Self.variants + Self.variants).joined(separator: ",") + #"],"current":"# + Self.plain + "}"
        let scanned = Self.expectSame(Array((body + "\n" + body + "\n").utf8), "many variants")
        #expect(scanned > 0)
    }

    @Test func sampleDataAndFuzzCorpusReadAlike() throws {
        let root = packageRoot()
        var files: [String] = []
        for dir in ["SampleData/overland", "Fuzz/corpus/overland", "Fuzz/seeds/overland"] {
            files += Self.files(under: root + "/" + dir).filter { !$0.hasSuffix(".md") }
        }
        #expect(files.count > 20)
        var scanned = 0
        for file in files {
            scanned += Self.expectSame(try FileSystem.read(file), file)
        }
        #expect(scanned > 1000)  // SampleData's points went through the scanner
    }

    /// The files under `dir`, recursively.
    static func files(under dir: String) -> [String] {
        guard let names = try? FileSystem.list(dir) else { return [dir] }
        return names.flatMap { files(under: dir + "/" + $0) }
    }

    /// The scanner parses numbers in its scan; the value must be bit for bit `parseDouble`'s.
    @Test func numbersAreParseDoublesBitForBit() {
        var rng = SplitMix64(seed: 14)
        var texts = ["0", "-0", "0.0", "-0.0", "1", "9", "10", "0.5", "0.05", "0.000001", "123456789012345", "1234567890123456",
                     "0.1234567890123456", "999999999999999.9", "-122.0300123", "37.3300456", "0.00000000000000000000001",
                     "100000000000000000000000", "4.35", "1.15", "0.87"]
        for _ in 0..<20_000 {
            let whole = rng.next() % 4 == 0 ? 0 : rng.next() % 1_000_000
            let decimals = Int(rng.next() % 12)
            var text = (rng.next() % 2 == 0 ? "-" : "") + String(whole)
            if decimals > 0 {
                text += "." + String(repeating: "0", count: Int(rng.next() % 3))
                for _ in 0..<decimals { text += String(rng.next() % 10) }
            }
            texts.append(text)
        }
        for text in texts {
            let input = Array((text + ",").utf8)
            input.withUnsafeBytes { raw in
                var p = JSONParser(raw)
                let node = p.plainNumber()
                let expected = JSONParser.parseDouble(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), text.utf8.count)
                #expect(node != nil && p.pos == text.utf8.count, "\(text)")
                if let node { #expect(p.double(node).bitPattern == expected.bitPattern, "\(text)") }
            }
        }
    }
}
