import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

@Suite struct TimestampTests {
    static let valid: [(String, Int64, Int32?)] = [
        ("2015-10-01T08:00:00-0700", 1_443_711_600_000, -25200),
        ("2015-10-01T15:00:00Z", 1_443_711_600_000, nil),
        ("2024-07-07T17:46:39Z", 1_720_374_399_000, nil),
        ("2025-06-16T22:00:09.154Z", 1_750_111_209_154, nil),
        ("2025-06-16T22:00:09.1Z", 1_750_111_209_100, nil),
        ("2025-06-16T22:00:09.123456789Z", 1_750_111_209_123, nil),
        ("2024-12-18T08:44:09+07:00", 1_734_486_249_000, 25200),
        ("2024-12-18T08:44:09+0700", 1_734_486_249_000, 25200),
        ("2024-12-18T08:44:09+07", 1_734_486_249_000, 25200),
        ("2024-12-18T01:44:09+00:00", 1_734_486_249_000, 0),
        ("2024-12-18 01:44:09", 1_734_486_249_000, nil),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000, nil),
        ("2000-01-01T00:00:00Z", 946_684_800_000, nil),
        ("2024-03-01T05:30:00+05:30", 1_709_251_200_000, 19800),
        ("2016-12-31T23:59:60Z", 1_483_228_799_999, nil),  // a leap second: the minute's last millisecond, not the next minute
        ("2016-12-31T23:59:60.5Z", 1_483_228_799_999, nil),
        ("2025-03-24 20:25:02 +0100", 1_742_844_302_000, 3600),  // a space before the zone (seen in Google data)
        ("2025-03-24T19:25:02 Z", 1_742_844_302_000, nil),
    ]

    @Test(arguments: valid)
    func parsesISO8601(_ item: (String, Int64, Int32?)) {
        let parsed = Timestamp.parseISO8601(item.0)
        #expect(parsed == ParsedTime(ms: item.1, offsetSeconds: item.2), "\(item.0)")
    }

    @Test(arguments: ["", "2024", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z",
                      "2024-01-01T12:60:00Z", "2024-01-01T12:00:00+19:00", "2024-01-01T12:00:00Q", "2024-01-01T12:00:00.Z",
                      "24-01-01T12:00:00Z", "2024-01-01T12:00:00Zjunk", "1440363922", "2024-01-01", "2024-01-01T1:00:00Z",
                      "2024-01-01T12:00:00  +0100", "2024-01-01T12:00:00 junk"])
    func rejectsMalformed(_ text: String) {
        #expect(Timestamp.parseISO8601(text) == nil, "\(text)")
    }

    @Test func agreesWithCivilTimeFormatting() {
        // Round trip across a range of instants and offsets.
        var ms: Int64 = 946_684_800_123
        for offset: Int32 in [-36000, -25200, 0, 3600, 19800, 50400] {
            for _ in 0..<50 {
                ms += 86_400_000 * 37 + 3_599_001
                let text = CivilTime.iso8601(ms: ms, offset: UTCOffset(seconds: offset), alwaysMilliseconds: true)
                #expect(Timestamp.parseISO8601(text) == ParsedTime(ms: ms, offsetSeconds: offset), "\(text)")
            }
        }
    }

    @Test func epochSecondsNumbersAndStrings() {
        #expect(Timestamp.parseEpoch("1440363922") == 1_440_363_922_000)
        #expect(Timestamp.parseEpoch("1440363922.5") == 1_440_363_922_500)
        #expect(Timestamp.parseEpoch("1709318411000") == 1_709_318_411_000)  // milliseconds
        #expect(Timestamp.parseEpoch("-5") == nil)
        #expect(Timestamp.parseEpoch("12a") == nil)
        #expect(Timestamp.parseEpoch("") == nil)
    }

    /// Java's `Double.toString` writes a number of seconds above 10^7 with an exponent (`1.440363922E9`); a tool
    /// that converts OwnTracks messages through doubles writes `tst` that way.
    @Test func epochSecondsWithAnExponent() {
        #expect(Timestamp.parseEpoch("1.440363922E9") == 1_440_363_922_000)
        #expect(Timestamp.parseEpoch("1.4403639225e+9") == 1_440_363_922_500)
        #expect(Timestamp.parseEpoch("1.709318411E12") == 1_709_318_411_000)  // milliseconds
        #expect(Timestamp.parseEpoch("14403639225e-1") == 1_440_363_922_500)
        #expect(Timestamp.parseEpoch("1.440363922123456789e9") == 1_440_363_922_123)
        #expect(Timestamp.parseEpoch("1e300") == nil)
        #expect(Timestamp.parseEpoch("1.5e") == nil)
        #expect(Timestamp.parseEpoch("1.5e+") == nil)
        #expect(Timestamp.parseEpoch("-1.4e9") == nil)
    }
}
