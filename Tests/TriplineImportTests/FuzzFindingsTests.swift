import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// Each finding of fuzzing (docs/RELIABILITY.md), kept as a regression test.
@Suite struct FuzzFindingsTests {
    /// Differential finding: `17040e67300` (a mutated `tst`) overflows a Double. The strict parser accepted it as
    /// +Infinity while Foundation refuses it; now it is refused when strict and flagged non-finite when lenient.
    @Test func numberBeyondDoubleRangeIsRefusedWhenStrict() throws {
        for text in ["17040e67300", "-1e309", "[1.5e99999]", "{\"a\":" + String(repeating: "9", count: 400) + "}"] {
            #expect(throws: JSONError.self, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        }
        // Still numbers: large but finite, and underflow to zero.
        #expect(try JSONValue.parse(Array("1.7976931348623157e308".utf8)) == .number(1.7976931348623157e308))
        #expect(try JSONValue.parse(Array("1e-400".utf8)) == .number(0))
        #expect(try JSONValue.parse(Array(("1" + String(repeating: "0", count: 301)).utf8)) == .number(1e301))
        Array("{\"tst\":17040e67300}".utf8).withUnsafeBytes { raw in
            var p = JSONParser(raw)
            var tape = JSONTape()
            #expect(throws: Never.self) { try p.parseValue(into: &tape) }
            #expect(tape.problems & JSONNode.Flags.nonFinite != 0)
            #expect(p.double(tape.nodes[2]) == .infinity)
        }
    }

    /// The record with the overflowing `tst` is rejected on its own; its neighbours import.
    @Test func overflowingTimestampRejectsOnlyItsRecord() {
        let text = """
            {"_type":"location","tst":1704067200,"lat":50.1,"lon":8.5,"tid":"ab"}
            {"_type":"location","tst":17040e67300,"lat":50.2,"lon":8.6,"tid":"ab"}
            {"_type":"lwt","tst":17040e67300}
            {"_type":"location","tst":1704067300,"lat":50.3,"lon":8.7,"tid":"ab"}
            """
        let out = parse(text)
        #expect(out.points.map(\.timeMs) == [1_704_067_200_000, 1_704_067_300_000])
        #expect(out.rejects.count >= 1)
        #expect(out.rejects.allSatisfy { $0.line == 2 || $0.line == 3 })
    }
}

/// Findings of the timestamp target.
@Suite struct TimestampFuzzFindingsTests {
    /// `2024-12-18 04:09,2-1807`: an offset of −18:07 was accepted although the parser promises at most ±18 hours
    /// (the round trip through `CivilTime.iso8601` then broke), and `04:09,2` was read as 04:09:00.200 although in
    /// ISO 8601 a fraction after the minutes is a fraction of the minute.
    @Test func offsetsBeyondEighteenHoursAndMinuteFractionsAreRefused() {
        #expect(Timestamp.parseISO8601("2024-12-18 04:09,2-1807") == nil)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09:00-18:07") == nil)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09:00+1801") == nil)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09.5Z") == nil)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09,2Z") == nil)
        // The limits themselves, and what stays valid.
        #expect(Timestamp.parseISO8601("2024-12-18T04:09:00-18:00")?.offsetSeconds == -64_800)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09:00+17:59")?.offsetSeconds == 64_740)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09Z")?.ms == 1_734_494_940_000)
        #expect(Timestamp.parseISO8601("2024-12-18T04:09:00,25Z")?.ms == 1_734_494_940_250)
    }
}
