import Testing
@testable import TriplineCore
import TriplineTestSupport

@Suite struct CivilTimeTests {
    @Test(arguments: [
        (Int64(0), nil as UTCOffset?, "1970-01-01T00:00:00Z"),
        (Int64(1_443_711_600_000), -25200, "2015-10-01T08:00:00-07:00"),
        (Int64(1_709_318_411_123), 3600, "2024-03-01T19:40:11.123+01:00"),
        (Int64(951_782_400_000), nil, "2000-02-29T00:00:00Z"),
        (Int64(-1), nil, "1969-12-31T23:59:59.999Z"),
        (Int64(1_700_000_000_000), 19800, "2023-11-15T03:43:20+05:30"),
    ])
    func formatsISO8601(ms: Int64, offset: UTCOffset?, expected: String) {
        #expect(CivilTime.iso8601(ms: ms, offset: offset) == expected)
    }

    @Test func roundTripsDays() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let (y, m, d) = CivilTime.civilFromDays(days)
            #expect(CivilTime.daysFromCivil(year: y, month: m, day: d) == days)
        }
    }

    @Test func localDateUsesOffset() {
        // 2024-03-31T23:30Z is already April 1st in Berlin (+02:00 after the DST change).
        #expect(CivilTime.localDate(ms: 1_711_927_800_000, offset: 7200) == "2024-04-01")
        #expect(CivilTime.localDate(ms: 1_711_927_800_000, offset: .utc) == "2024-03-31")
    }

    @Test func parsesDates() {
        #expect(CivilTime.parseDate("2024-02-29") == CivilTime.daysFromCivil(year: 2024, month: 2, day: 29))
        #expect(CivilTime.parseDate("2023-02-29") == nil)
        #expect(CivilTime.parseDate("2024-13-01") == nil)
        #expect(CivilTime.parseDate("24-01-01") == nil)
    }
}
