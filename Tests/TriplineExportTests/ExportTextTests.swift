import Testing
@testable import TriplineCore
@testable import TriplineExport
import TriplineTestSupport

/// The byte-level formatting every writer relies on.
@Suite struct ExportTextTests {
    func text(_ body: (ByteWriter) throws -> Void) rethrows -> String {
        let w = ByteWriter.memory(capacity: 8)  // tiny, so growth is exercised too
        try body(w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func numbers() throws {
        #expect(try text { try $0.append(fixed: 0.1 + 0.2, decimals: 7) } == "0.3")
        #expect(try text { try $0.append(fixed: 1e-5, decimals: 7) } == "0.00001")
        #expect(try text { try $0.append(fixed: -0.00000004, decimals: 7) } == "0")
        #expect(try text { try $0.append(fixed: -12.5, decimals: 3) } == "-12.5")
        #expect(try text { try $0.append(fixed: 13.4050000001, decimals: 7) } == "13.405")
        #expect(try text { try $0.append(fixed: -179.99999999, decimals: 7) } == "-180")
        #expect(try text { try $0.append(fixed: 123_456_789.123_456, decimals: 3) } == "123456789.123")
        #expect(try text { try $0.append(fixed: 1e20, decimals: 3) } == "100000000000000000000.000")
        #expect(try text { try $0.append(fixed: 2.5, decimals: 0) } == "3")
        #expect(try text { try $0.append(json: .nan, decimals: 3) } == "null")
        #expect(try text { try $0.append(int: Int64.min) } == "-9223372036854775808")
        #expect(try text { try $0.append(int: 0) } == "0")
    }

    /// The 7-decimal fast path (coordinates) writes exactly what the general fixed-point path writes.
    @Test func sevenDecimalFastPathMatchesTheGeneralPath() throws {
        var values: [Double] = [0, -0.0, 5e-8, -5e-8, 4.9e-8, 1e-7, 0.5, 9.99999995, 9.99999994, 10, 99.99999996, 100,
                                -100, 180, -180, 999.99999994, 999.99999995, 1000, -1000.5, 13.4050001, 52.5000001,
                                -0.1000000, 123.4567891, .nan, .infinity, -.infinity]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(x >> 11) / Double(1 << 53)
            values.append((unit - 0.5) * [2e-6, 2, 360, 2000][Int(x & 3)])
        }
        for v in values {
            let fast = try text { try $0.append(fixed: v, decimals: 7) }
            let general = try text { try $0.appendFixed(v, 7, 1e7, 10_000_000) }
            #expect(fast == general, "\(v)")
        }
    }

    @Test func times() throws {
        let ms = ExportFixture.ms(2024, 3, 1, 8, 0)
        #expect(try text { try $0.append(time: ms, offset: 3600) } == "2024-03-01T09:00:00+01:00")
        #expect(try text { try $0.append(time: ms + 5, offset: nil) } == "2024-03-01T08:00:00.005Z")
        #expect(try text { try $0.append(time: ms, offset: -12600) } == "2024-03-01T04:30:00-03:30")
        #expect(try text { try $0.append(time: -1, offset: .utc) } == "1969-12-31T23:59:59.999+00:00")
        #expect(try text { try $0.append(time: ms, offset: 75) } == "2024-03-01T08:00:00Z")  // not whole minutes
        // Agrees with CivilTime's String version on a spread of times and offsets.
        for step in stride(from: Int64(-2_000_000_000_000), to: 4_000_000_000_000, by: 77_777_777_777) {
            for offset: UTCOffset in [-43200, -3600, 0, 19800, 50400] {
                #expect(try text { try $0.append(time: step, offset: offset) } == CivilTime.iso8601(ms: step, offset: offset))
            }
        }
    }

    @Test func jsonEscaping() throws {
        #expect(try text { try $0.append(jsonString: "a\"b\\c\n\t\u{0}\u{1F}\u{7F}é\u{2028}😀") } == "\"a\\\"b\\\\c\\n\\t\\u0000\\u001f\u{7F}é\\u2028😀\"")
        let invalid: [UInt8] = [0x61, 0xED, 0xA0, 0x80, 0xC0, 0xAF, 0xF4, 0x90, 0x80, 0x80, 0xE2, 0x82, 0x62]
        let escaped = try text { w in try invalid.withUnsafeBytes { try w.append(escaped: $0, .json) } }
        #expect(escaped == "a" + String(repeating: "\u{FFFD}", count: 11) + "b")
    }

    @Test func xmlEscaping() throws {
        #expect(try text { try $0.append(escaped: "<a & \"b\" 'c'>\r\n\t\u{1}\u{FFFE}", .xmlText) } == "&lt;a &amp; \"b\" 'c'&gt;&#13;\n\t\u{FFFD}\u{FFFD}")
        #expect(try text { try $0.append(escaped: "\"'\t\n", .xmlAttribute) } == "&quot;&apos;&#9;&#10;")
    }

    @Test func csvFields() throws {
        #expect(try text { try $0.append(csv: "plain") } == "plain")
        #expect(try text { try $0.append(csv: "a,b") } == "\"a,b\"")
        #expect(try text { try $0.append(csv: "say \"hi\"") } == "\"say \"\"hi\"\"\"")
        #expect(try text { try $0.append(csv: "two\nlines") } == "\"two\nlines\"")
        #expect(try text { try $0.append(csv: " padded") } == "\" padded\"")
        for formula in ["=1+2", "+1", "-1", "@SUM(A1)", "\tx"] {
            #expect(try text { try $0.append(csv: formula) } == "'" + formula)
        }
        #expect(try text { try $0.append(csv: "=a,b") } == "\"'=a,b\"")
        #expect(try text { try $0.append(csvNumber: -12.5, decimals: 3) } == "-12.5")
        #expect(try text { try $0.append(csv: "bell\u{7}") } == "bell\u{FFFD}")
    }

    @Test func zoneOffsets() throws {
        let berlin = try #require(TimeZoneTable.named("Europe/Berlin"))
        let change = ExportFixture.ms(2024, 3, 31, 1, 0)
        #expect(berlin.offset(at: change - 1) == 3600)
        #expect(berlin.offset(at: change) == 7200)
        #expect(berlin.offset(at: ExportFixture.ms(2024, 10, 27, 0, 59)) == 7200)
        #expect(berlin.offset(at: ExportFixture.ms(2024, 10, 27, 1, 0)) == 3600)
        #expect(TimeZoneTable.named("Asia/Kolkata")?.offset(at: change) == 19800)
        #expect(TimeZoneTable.named("Not/AZone") == nil)
        var local = LocalTime(zone: berlin)
        #expect(local.offset(nil, atMs: change) == 7200)
        #expect(local.offset(-18000, atMs: change) == -18000)
        #expect(local.offset(nil, atMs: change - 1) == 3600)
        // Offset changes that are not daylight saving time are in the table too (Moscow: +04:00 in 2013, +03:00 since 2014-10-26).
        let moscow = try #require(TimeZoneTable.named("Europe/Moscow"))
        #expect(moscow.offset(at: ExportFixture.ms(2013, 6, 1, 0, 0)) == 14400)
        #expect(moscow.offset(at: ExportFixture.ms(2015, 6, 1, 0, 0)) == 10800)
        var utc = LocalTime(zone: nil)
        #expect(utc.offset(nil, atMs: change) == nil)
    }
}
