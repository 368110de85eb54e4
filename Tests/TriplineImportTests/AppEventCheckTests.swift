import Testing
@testable import TriplineImport
import TriplineStore
import TriplineTestSupport

/// App events (Google's visits and activities, Overland's visits and trips, OwnTracks' transitions, GPX waypoints) are
/// checked as points are. Before, they were stored as read: a Google visit at latitude 569 (an E7 value out of
/// range), in 2094 or in 1994, one ending before it began, or an activity of 1e300 m became a visit, a trip and days of
/// 1e297 km in every export.
@Suite struct AppEventCheckTests {
    /// A Semantic Location History month.
    static func semantic(_ objects: [String]) -> String { "{\"timelineObjects\":[" + objects.joined(separator: ",") + "]}" }

    static func placeVisit(latE7: Int, start: String, end: String) -> String {
        "{\"placeVisit\":{\"location\":{\"latitudeE7\":\(latE7),\"longitudeE7\":115000000,\"name\":\"P\"},"
            + "\"duration\":{\"startTimestamp\":\"\(start)\",\"endTimestamp\":\"\(end)\"}}}"
    }

    static func segment(start: String, end: String, distance: String) -> String {
        "{\"activitySegment\":{\"startLocation\":{\"latitudeE7\":481000000,\"longitudeE7\":115000000},"
            + "\"endLocation\":{\"latitudeE7\":482000000,\"longitudeE7\":116000000},"
            + "\"duration\":{\"startTimestamp\":\"\(start)\",\"endTimestamp\":\"\(end)\"},\"distance\":\(distance),\"activityType\":\"CYCLING\"}}"
    }

    @Test func googleVisitsAPointCouldNotHaveAreRejectedWithTheirReason() {
        let out = parse(Self.semantic([
            Self.placeVisit(latE7: 481_000_000, start: "2024-03-01T08:00:00Z", end: "2024-03-01T09:00:00Z"),
            Self.placeVisit(latE7: 9_990_000_000, start: "2024-03-01T08:00:00Z", end: "2024-03-01T09:00:00Z"),
            Self.placeVisit(latE7: 481_000_000, start: "2094-03-01T08:00:00Z", end: "2094-03-01T09:00:00Z"),
            Self.placeVisit(latE7: 481_000_000, start: "1994-03-01T08:00:00Z", end: "1994-03-01T09:00:00Z"),
            Self.placeVisit(latE7: 481_000_000, start: "2024-03-02T10:00:00Z", end: "2024-03-02T09:00:00Z"),
        ]))
        #expect(out.events.map { $0.row.startMs } == [1_709_280_000_000])
        #expect(out.rejects.map(\.reason) == [.latOutOfRange, .timeInFuture, .timeTooEarly, .invalidTime])
        #expect(out.rejects.last?.detail == "the visit ends (2024-03-02T09:00:00Z) before it starts (2024-03-02T10:00:00Z)")
    }

    @Test func anEndOrADistanceNoJourneyHasIsDroppedAndTheEventKept() {
        let out = parse(Self.semantic([
            Self.placeVisit(latE7: 481_000_000, start: "2024-03-01T10:00:00Z", end: "2054-03-01T09:00:00Z"),
            Self.segment(start: "2024-03-01T12:00:00Z", end: "2024-03-01T13:00:00Z", distance: "1e300"),
            Self.segment(start: "2024-03-01T14:00:00Z", end: "2024-03-01T14:00:00Z", distance: "50000"),
            Self.segment(start: "2024-03-01T15:00:00Z", end: "2024-03-01T16:00:00Z", distance: "-5"),
            Self.segment(start: "2024-03-01T17:00:00Z", end: "2024-03-01T18:00:00Z", distance: "12000"),
        ]))
        #expect(out.events.count == 5)
        #expect(out.events[0].row.startMs == 1_709_287_200_000 && out.events[0].row.endMs == nil)
        #expect(out.events.map { $0.row.distanceM } == [nil, nil, nil, nil, 12000])
        #expect(out.rejects.map(\.reason) == [.timeInFuture, .measureOutOfRange, .measureOutOfRange, .measureOutOfRange])
        #expect(out.rejects[0].detail == "the end 2054-03-01T09:00:00Z is more than a day after the import; the visit was kept without it")
        #expect(out.rejects[1].detail == "distance 1e+300 m is more than 1000 m/s over 3600 s; the trip was kept without it")
    }

    @Test func theNewTimelineFormatIsCheckedToo() {
        let text = "{\"semanticSegments\":["
            + "{\"startTime\":\"2024-03-01T10:00:00.000+01:00\",\"endTime\":\"2024-03-01T09:00:00.000+01:00\","
            + "\"visit\":{\"topCandidate\":{\"placeLocation\":{\"latLng\":\"48.1°, 11.5°\"}}}},"
            + "{\"startTime\":\"2024-03-01T14:00:00.000+01:00\",\"endTime\":\"2024-03-05T13:00:00.000+01:00\","
            + "\"activity\":{\"start\":{\"latLng\":\"48.1°, 11.5°\"},\"end\":{\"latLng\":\"-48.3°, -168.7°\"},\"distanceMeters\":1e300,"
            + "\"topCandidate\":{\"type\":\"FLYING\"}}}]}"
        let out = parse(text)
        #expect(out.events.count == 1 && out.events[0].row.kind == .trip && out.events[0].row.distanceM == nil)
        #expect(out.rejects.map(\.reason) == [.invalidTime, .measureOutOfRange])
    }

    @Test func overlandOwnTracksAndGPXEventsAreCheckedAsPoints() {
        let overland = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,99.5]},"
            + "\"properties\":{\"action\":\"visit\",\"timestamp\":\"2024-05-01T10:00:00Z\",\"arrival_date\":\"2024-05-01T09:00:00Z\","
            + "\"departure_date\":null,\"device_id\":\"p\"}},"
            + "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,48.1]},"
            + "\"properties\":{\"action\":\"visit\",\"timestamp\":\"2024-05-01T10:00:00Z\",\"arrival_date\":\"0001-01-01T00:00:00Z\","
            + "\"departure_date\":\"4001-01-01T00:00:00Z\",\"device_id\":\"p\"}}]}"
        let o = parse(overland)
        #expect(o.events.count == 1 && o.events[0].row.startMs == nil && o.events[0].row.endMs == nil)
        #expect(o.rejects.map(\.reason) == [.latOutOfRange, .timeTooEarly, .timeInFuture])

        let transition = "{\"_type\":\"transition\",\"tid\":\"ot\",\"tst\":1714557600,\"lat\":48.1,\"lon\":181.5,"
            + "\"event\":\"enter\",\"desc\":\"Home\"}\n"
            + "{\"_type\":\"transition\",\"tid\":\"ot\",\"tst\":1714557600,\"lat\":48.1,\"lon\":11.5,\"event\":\"leave\",\"desc\":\"Home\"}\n"
        let t = parse(transition)
        #expect(t.events.count == 1 && t.rejects.map(\.reason) == [.lonOutOfRange])

        let gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
            + "<wpt lat=\"0\" lon=\"0\"><time>2024-05-01T10:00:00Z</time><name>nowhere</name></wpt>"
            + "<wpt lat=\"48.1\" lon=\"11.5\"><time>2094-05-01T10:00:00Z</time><name>later</name></wpt>"
            + "<wpt lat=\"48.1\" lon=\"11.5\"><time>2024-05-01T10:00:00Z</time><name>here</name></wpt></gpx>"
        let g = parse(gpx)
        #expect(g.events.count == 1 && g.rejects.map(\.reason) == [.nullIsland, .timeInFuture])
    }
}
