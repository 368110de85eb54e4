import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// Converts Foundation's parse result into a ``JSONValue`` to compare with ours.
func foundationValue(_ any: Any) -> JSONValue? {
    if any is NSNull { return .null }
    if let s = any as? String { return .string(s) }
    if let a = any as? [Any] {
        var items: [JSONValue] = []
        for x in a {
            guard let v = foundationValue(x) else { return nil }
            items.append(v)
        }
        return .array(items)
    }
    if let d = any as? [String: Any] {
        var members: [(String, JSONValue)] = []
        for (k, x) in d {
            guard let v = foundationValue(x) else { return nil }
            members.append((k, v))
        }
        return .object(members)
    }
    if type(of: any) == Bool.self, let b = any as? Bool { return .bool(b) }
    if let n = any as? NSNumber {
        if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
        return .number(n.doubleValue)
    }
    return nil
}

/// Equality where numbers may differ by a couple of ulps: Foundation on Linux rounds some 17-digit decimals
/// imprecisely (our parser is checked for exact rounding against `Double(String)` separately).
func sameAllowingFoundationRounding(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x == y || abs(x - y) <= 4 * max(x.ulp, y.ulp)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameAllowingFoundationRounding($0, $1) }
    case (.object(let x), .object(let y)):
        guard x.count == y.count else { return false }
        let sx = x.sorted { $0.0 < $1.0 }
        let sy = y.sorted { $0.0 < $1.0 }
        return zip(sx, sy).allSatisfy { $0.0 == $1.0 && sameAllowingFoundationRounding($0.1, $1.1) }
    default: return a == b
    }
}

@Suite struct JSONParserTests {
    /// Inputs both parsers must accept, with the same result.
    static let accepted: [String] = [
        "{}", "[]", "0", "-0", "1", "-1", "3.25", "1e3", "1E-3", "-2.5e+10", "123456789012345678", "0.1", "2.2250738585072014e-308",
        "1.7976931348623157e308", "37.331800", "-122.030581", "\"\"", "\"a\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\n\\t\\\"\\\\\\/\"",
        "\"héllo — 日本\"", "true", "false", "null", "[1,[2,[3,[4]]]]", "{\"a\":{\"b\":[true,false,null]}}",
        " \n\t{ \"k\" : [ 1 , 2 ] } \r\n", "{\"locations\":[{\"type\":\"Feature\",\"properties\":{\"timestamp\":\"2015-10-01T08:00:00-0700\"}}]}",
        "[0.000001, 100000000000000000000, 1.5e300, -0.0]", "\"\\u0000\"", "{\"a\":1,\"b\":2,\"c\":3}",
    ]

    /// Inputs both parsers must refuse.
    static let refused: [String] = [
        "", "{", "[", "{'a':1}", "01", "1.", ".5", "+1", "-", "1e", "[1 2]", "{\"a\" 1}", "tru", "nul", "NaN",
        "Infinity", "\"abc", "\"\\x\"", "\"\\u12\"", "\"a\nb\"", "{\"a\":1}}", "[1]x", "{1:2}", "\"\\ud800\"",
    ]

    @Test(arguments: accepted)
    func matchesFoundationOnValidInput(_ text: String) throws {
        let ours = try JSONValue.parse(Array(text.utf8))
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        let expected = try #require(foundationValue(theirs))
        #expect(ours == expected, "\(text)")
    }

    @Test(arguments: refused)
    func refusesWhatFoundationRefuses(_ text: String) {
        #expect(throws: JSONError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil, "\(text)")
    }

    /// Trailing commas: Foundation on Linux tolerates them; RFC 8259 does not, and neither do we.
    @Test(arguments: ["[1,]", "{\"a\":1,}"])
    func trailingCommasAreRefused(_ text: String) {
        #expect(throws: JSONError.self) { try JSONValue.parse(Array(text.utf8)) }
    }

    @Test func invalidUTF8IsAnErrorWhenStrictAndFlaggedWhenLenient() throws {
        let input: [UInt8] = Array("{\"a\":\"x".utf8) + [0xFF, 0xFE] + Array("\"}".utf8)
        #expect(throws: JSONError.self) { try JSONValue.parse(input) }
        #expect((try? JSONSerialization.jsonObject(with: Data(input))) == nil)
        input.withUnsafeBytes { raw in
            var p = JSONParser(raw, lenient: true)
            var tape = JSONTape()
            #expect(throws: Never.self) { try p.parseValue(into: &tape) }
            #expect(tape.problems & JSONNode.Flags.badUnicode != 0)
        }
        // Overlong encodings and encoded surrogates are not UTF-8 either.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            #expect(throws: JSONError.self) { try JSONValue.parse([0x22] + bad + [0x22]) }
        }
    }

    @Test func duplicateKeysAreFlaggedAndResolveLastWins() throws {
        let text = "{\"a\":1,\"b\":2,\"a\":3}"
        #expect(try JSONValue.parse(Array(text.utf8)) == .object([("b", .number(2)), ("a", .number(3))]))
        // Escaped spellings of the same key are the same key.
        Array("{\"a\":1,\"\\u0061\":2}".utf8).withUnsafeBytes { raw in
            var p = JSONParser(raw)
            var tape = JSONTape()
            try? p.parseValue(into: &tape)
            #expect(tape.problems & JSONNode.Flags.duplicateKey != 0)
        }
        // Large objects use hashing; still found.
        let many = "{" + (0..<200).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}"
        Array(many.utf8).withUnsafeBytes { raw in
            var p = JSONParser(raw)
            var tape = JSONTape()
            try? p.parseValue(into: &tape)
            #expect(tape.problems & JSONNode.Flags.duplicateKey != 0)
        }
    }

    /// The duplicate-key flag, found while the keys are scanned, agrees with a plain pairwise comparison on objects
    /// of 1–90 keys (short and long, some shared with a nested object, some escaped).
    @Test func duplicateKeyFlagAgreesWithPairwiseComparison() {
        var rng = SplitMix64(seed: 14)
        let names = ["a", "b", "ab", "ba", "type", "wifi", "speed", "course", "motion", "timestamp", "trip_mode", "battery_level",
                     "battery_state", "horizontal_accuracy", "vertical_accuracy", "k1", "k2", "k3", "k10", "k11", "longer_key_0001",
                     "longer_key_0002", "x"]
        for round in 0..<3000 {
            let n = 1 + Int(rng.next() % UInt64(round % 3 == 0 ? 90 : 20))
            var keys: [String] = []
            var members: [String] = []
            for _ in 0..<n {
                let name = rng.next() % 4 == 0 ? "u\(rng.next() % 1000)" : names[Int(rng.next() % UInt64(names.count))]
                keys.append(name)
                // Sometimes the key is written with its first letter escaped (the same key once decoded).
                let written = rng.next() % 25 == 0 ? "\\u00" + String(name.utf8.first!, radix: 16) + name.dropFirst() : name
                let value = rng.next() % 6 == 0 ? "{\"\(name)\":1,\"\(name)x\":2}" : "\(rng.next() % 100)"
                members.append("\"\(written)\":\(value)")
            }
            let text = "{" + members.joined(separator: ",") + "}"
            let expected = Set(keys).count != keys.count
            Array(text.utf8).withUnsafeBytes { raw in
                var p = JSONParser(raw)
                var tape = JSONTape()
                #expect(throws: Never.self) { try p.parseValue(into: &tape) }
                #expect((tape.nodes[0].flags & JSONNode.Flags.duplicateKey != 0) == expected, "\(text)")
            }
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(Array(deep.utf8)) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONValue.parse(Array(ok.utf8)) }
    }

    @Test func truncationIsReportedAsEndOfInput() {
        do {
            _ = try JSONValue.parse(Array("{\"a\":[1,2,{\"b\":\"cut".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.atEnd)
        }
    }

    /// Random documents (strings of every length with escapes, multi-byte text and control escapes; numbers;
    /// nesting) compared with Foundation.
    @Test func randomDocumentsMatchFoundation() throws {
        let pieces = ["a", "Z", " ", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "é", "日本", "😀", "/", "\\/", "\\t", "\\u0001", "x1234567"]
        var seed: UInt64 = 7
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        func value(_ depth: Int) -> String {
            switch next(depth > 3 ? 3 : 6) {
            case 0: return "\"" + (0..<next(24)).map { _ in pieces[next(pieces.count)] }.joined() + "\""
            case 1: return String(Double(next(2_000_000) - 1_000_000) / Double([1, 10, 1000, 7][next(4)]))
            case 2: return ["true", "false", "null"][next(3)]
            case 3, 4: return "[" + (0..<next(5)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return "{" + (0..<next(5)).map { i in "\"k\(i)\(pieces[next(3)])\":" + value(depth + 1) }.joined(separator: ",") + "}"
            }
        }
        for _ in 0..<400 {
            let text = value(0)
            let ours = try JSONValue.parse(Array(text.utf8))
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let expected = try #require(foundationValue(theirs))
            #expect(sameAllowingFoundationRounding(ours, expected), "\(text)")
        }
    }

    @Test func numbersAreCorrectlyRounded() {
        // Compare with Swift's own correctly rounded parser on many digit strings (fast and slow paths).
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let digits = String(seed % 1_000_000_000_000_000)
            let exponent = Int(seed >> 60) - 8
            let text = "\(digits.prefix(1)).\(digits.dropFirst())e\(exponent)"
            let ours = Array(text.utf8).withUnsafeBufferPointer { JSONParser.parseDouble($0.baseAddress!, $0.count) }
            #expect(ours == Double(text)!, "\(text)")
        }
    }
}
