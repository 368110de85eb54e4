import Testing
import TriplineCore

@Suite struct UTCOffsetTests {
    @Test func writesTheISOSuffix() {
        #expect(UTCOffset(seconds: 3600).isoSuffix == "+01:00")
        #expect(UTCOffset(seconds: -25_200).isoSuffix == "-07:00")
        #expect(UTCOffset(seconds: 19_800).isoSuffix == "+05:30")
        #expect(UTCOffset(seconds: -12_600).isoSuffix == "-03:30")
        #expect(UTCOffset.utc.isoSuffix == "+00:00")
        #expect(UTCOffset.isoSuffix(nil) == "Z")
        #expect(UTCOffset.isoSuffix(UTCOffset(seconds: 50_400)) == "+14:00")
    }

    @Test func givesTheLocalDayAndDate() {
        // 2024-03-31T23:30Z: already April 1st at +02:00, still March 31st at UTC and at -07:00.
        let ms: Int64 = 1_711_927_800_000
        #expect(UTCOffset(seconds: 7200).localDate(ms: ms) == "2024-04-01")
        #expect(UTCOffset.utc.localDate(ms: ms) == "2024-03-31")
        #expect(UTCOffset(seconds: -25_200).localDate(ms: ms) == "2024-03-31")
        #expect(UTCOffset(seconds: 7200).localDay(ms: ms) == UTCOffset.utc.localDay(ms: ms) + 1)
        #expect(UTCOffset(seconds: 3600).localSeconds(ms: 1_500) == 3601)
        // Before 1970: days round down, not towards zero.
        #expect(UTCOffset.utc.localDay(ms: -1) == -1)
        #expect(UTCOffset(seconds: 3600).localDay(ms: -1) == 0)
    }

    @Test func knowsItsBounds() {
        #expect(UTCOffset(seconds: 18 * 3600).isValid && UTCOffset(seconds: -18 * 3600).isValid)
        #expect(!UTCOffset(seconds: 18 * 3600 + 1).isValid && !UTCOffset(seconds: -18 * 3600 - 1).isValid)
        #expect(UTCOffset(validating: 64_800) == UTCOffset(seconds: 64_800))
        #expect(UTCOffset(validating: 64_801) == nil && UTCOffset(validating: Int64.min) == nil)
        // A stored value beyond 32 bits stays invalid instead of wrapping round to a plausible offset.
        #expect(!UTCOffset(stored: Int64.max).isValid && !UTCOffset(stored: Int64.min).isValid)
        #expect(!UTCOffset(stored: 4_294_967_296 + 3600).isValid)
        #expect(UTCOffset(stored: -3600) == UTCOffset(seconds: -3600))
    }
}
