import Testing
import TriplineTestSupport

/// Early OwnTracks apps wrote every value as a string: `"lat":"52.19","lon":"7.68","tst":"1376715317"`.
@Suite struct OwnTracksStringTests {
    @Test func stringCoordinatesAndTimesAreAccepted() {
        let out = parse("""
            {"_type":"location","lat":"52.19","lon":"7.68","tst":"1376715317","acc":"65","tid":"BN"}
            {"_type":"location","lat":52.2,"lon":7.7,"tst":1376715400,"tid":"BN"}
            {"_type":"location","lat":"52.19x","lon":"7.68","tst":"1376715500","tid":"BN"}
            {"_type":"location","lat":"","lon":"7.68","tst":"1376715600","tid":"BN"}
            {"_type":"location","lat":"NaN","lon":"7.68","tst":"1376715700","tid":"BN"}
            {"_type":"location","lat":"95","lon":"7.68","tst":"1376715800","tid":"BN"}
            {"_type":"location","lat":true,"lon":"7.68","tst":"1376715900","tid":"BN"}
            """)
        #expect(out.points.map(\.timeMs) == [1_376_715_317_000, 1_376_715_400_000])
        #expect(out.points[0].lat == 52.19 && out.points[0].lon == 7.68 && out.points[0].accuracyM == 65)
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidCoordinates, .invalidCoordinates, .latOutOfRange, .invalidCoordinates])
        #expect(out.rejects.map(\.line) == [3, 4, 5, 6, 7])
    }

    /// A converter that read OwnTracks messages into doubles and wrote them back with Java's `Double.toString`
    /// writes `tst` with an exponent: the same second.
    @Test func timesWithAnExponentAreAccepted() {
        let out = parse("""
            {"_type":"location","lat":52.2,"lon":7.7,"tst":1.3767154E9,"tid":"BN"}
            {"_type":"location","lat":52.2,"lon":7.7,"tst":"1.3767155E9","tid":"BN"}
            {"_type":"location","lat":52.2,"lon":7.7,"tst":1.3767156E,"tid":"BN"}
            """)
        #expect(out.points.map(\.timeMs) == [1_376_715_400_000, 1_376_715_500_000])
        #expect(out.rejects.map(\.line) == [3])
    }
}
