import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// Numbers written as text (GPX attributes and elements, GeoLife `.plt` fields, Google's `"geo:LAT,LON"` strings,
/// JSON numbers given as strings) are read whole or not at all: a malformed one is a reject naming its line, never
/// a prefix of it or 0 (`+48.1` was read as 0, `.` as 0, `1.2.3` as 1.2, so a fix landed in the Gulf of Guinea).
@Suite struct MalformedNumberTests {
    @Test func decimalTextIsReadWholeOrNotAtAll() {
        func read(_ s: String) -> Double? {
            var s = s
            return s.withUTF8 { JSONParser.parseDecimalText($0.baseAddress!, $0.count) }
        }
        #expect(read("48.1") == 48.1)
        #expect(read("+48.1") == 48.1)
        #expect(read("-48.1") == -48.1)
        #expect(read("48.") == 48)
        #expect(read(".5") == 0.5)
        #expect(read("4.81e1") == 48.1)
        #expect(read("481E-1") == 48.1)
        #expect(read("0") == 0)
        #expect(read("-0.0") == 0)
        for bad in [".", "-", "+", "+-1", "--1", "1.2.3", "1e", "1e+", "e5", "1-2", "48.1-", "1e5e5", "1..2", "-.", "+.e1", "1e400", "nan"] {
            #expect(read(bad) == nil, "\(bad)")
        }
    }

    @Test func gpxCoordinatesAreReadWholeOrRejected() {
        func trkpt(_ lat: String, _ lon: String, _ minute: Int, ele: String = "") -> String {
            "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><time>2024-05-01T10:\(minute < 10 ? "0" : "")\(minute):00Z</time>"
                + (ele.isEmpty ? "" : "<ele>\(ele)</ele>") + "</trkpt>"
        }
        let points = [
            trkpt("+48.1", "+11.5", 0), trkpt(" 48.1 ", "11.5", 1), trkpt("48.1", "11.5", 2, ele: "+500"),
            trkpt(".", ".", 3), trkpt("-", "11.5", 4), trkpt("48.1.2", "11.5", 5), trkpt("48.1", "1e", 6),
            trkpt("48.1", "11.5", 7, ele: "0x10"), trkpt("48.1", "11.5", 8, ele: "1.2.3"),
        ]
        let gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
            + points.joined(separator: "\n") + "</trkseg></trk></gpx>"
        let out = parse(gpx)
        #expect(out.format == "gpx/1.1")
        let fixes = out.points.map { "\($0.lat),\($0.lon),\($0.altitudeM.map { "\($0)" } ?? "-")" }
        #expect(fixes == ["48.1,11.5,-", "48.1,11.5,-", "48.1,11.5,500.0", "48.1,11.5,-", "48.1,11.5,-"])
        // An <ele> that is no number: the fix is kept without it, with a row (before, without one).
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidCoordinates, .invalidCoordinates, .invalidCoordinates, .invalidMeasure, .invalidMeasure])
        #expect(out.rejects.suffix(2).map(\.detail) == ["<ele>0x10</ele> is not a number; the point was kept without it",
                                                        "<ele>1.2.3</ele> is not a number; the point was kept without it"])
        #expect(!out.points.contains { $0.lat == 0 || $0.lon == 0 })
    }

    @Test func pltFieldsAreReadWholeOrRejected() {
        let text = geoLifeHeader
            + "+39.9,+116.3,0,+492,39744.1201851852,2008-10-23,02:53:04\r\n"
            + ".,116.3,0,492,39744.12,2008-10-23,02:53:10\r\n"
            + "39.9,116.3.1,0,492,39744.12,2008-10-23,02:53:16\r\n"
            + "-,-,0,492,39744.12,2008-10-23,02:53:22\r\n"
        let out = FormatDetector.parse(Array(text.utf8), context: .memory(device: "u"))
        #expect(out.format == "geolife-plt")
        #expect(out.points.map { "\($0.lat),\($0.lon)" } == ["39.9,116.3"])
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidCoordinates, .invalidCoordinates])
        #expect(out.rejects.map(\.line) == [8, 9, 10])
    }

    @Test func googlePositionStringsAreReadWholeOrNotAtAll() {
        func parsed(_ s: String) -> [Double]? {
            var s = s
            return s.withUTF8 { RecordBuilder.latLng($0).map { [$0.lat, $0.lon] } }
        }
        #expect(parsed("geo:+48.1,+11.5") == [48.1, 11.5])
        #expect(parsed("geo:.,.") == nil)
        #expect(parsed("geo:-,-") == nil)
        #expect(parsed("geo:48.1.1,11.5") == nil)
        #expect(parsed("+-48.1°, 11.5°") == nil)
    }

    @Test func numbersGivenAsJSONStringsAreReadWholeOrRejected() {
        let lines = [
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557600,\"lat\":\"48.1\",\"lon\":\"11.5\",\"acc\":10}",
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557660,\"lat\":\"48.1.5\",\"lon\":\"11.5\",\"acc\":10}",
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557720,\"lat\":\"-\",\"lon\":\"-\",\"acc\":10}",
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557780,\"lat\":\"48.1\",\"lon\":\"1e\",\"acc\":10}",
        ]
        let out = parse(lines.joined(separator: "\n") + "\n")
        #expect(out.points.map { "\($0.lat),\($0.lon)" } == ["48.1,11.5"])
        #expect(out.rejects.count == 3)
        #expect(!out.points.contains { $0.lat == 0 || $0.lon == 0 || $0.lat == 48.1 && $0.lon != 11.5 })
    }
}

/// A speed or an accuracy no phone reports (OwnTracks `vel` 1e308, `acc` 1e308, Overland accuracies 1e308) was stored
/// and exported as a 309-digit number in CSV, GPX and GeoJSON, as altitudes were before issue 21. Now the value is
/// dropped with a `measure_out_of_range` row and the fix is kept.
@Suite struct AbsurdMeasureTests {
    @Test func absurdSpeedsAndAccuraciesAreDroppedAndTheFixKept() {
        let lines = [
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557600,\"lat\":48.1,\"lon\":11.5,\"acc\":1e308,\"vel\":1e308}",
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557660,\"lat\":48.1,\"lon\":11.5,\"acc\":65000,\"vel\":900}",
            "{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":1714557720,\"lat\":48.1,\"lon\":11.5,\"acc\":3e7,\"vel\":4000}",
        ]
        let out = parse(lines.joined(separator: "\n") + "\n")
        #expect(out.points.count == 3)
        #expect(out.points.map(\.accuracyM) == [nil, 65000, nil])
        #expect(out.points.map { $0.speedMps.map { ($0 * 3.6).rounded() } } == [nil, 900, nil])
        #expect(out.rejects.map(\.reason) == [.measureOutOfRange, .measureOutOfRange, .measureOutOfRange, .measureOutOfRange])
        #expect(out.rejects.map(\.line) == [1, 1, 3, 3])

        let overland = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,48.1]},"
            + "\"properties\":{\"timestamp\":\"2024-05-01T10:00:00Z\",\"horizontal_accuracy\":1e308,\"vertical_accuracy\":1e308,\"device_id\":\"p\"}}]}"
        let o = parse(overland)
        #expect(o.points.count == 1 && o.points[0].accuracyM == nil && o.points[0].vAccuracyM == nil)
        #expect(o.rejects.map(\.reason) == [.measureOutOfRange, .measureOutOfRange])
    }

    /// Overland, OwnTracks and GPX measures that are no number, or out of range, leave a row each, and the fix is kept
    /// without them; the apps' "unknown" (-1, or the string "NaN") leaves none. Before, these readers dropped them without a word (as
    /// Google's did until the sixth hostile round), and every course above 360°, and Overland's speeds above 1,000 m/s.
    @Test func measuresThatAreNoNumberOrOutOfRangeLeaveARowInEveryFormat() {
        func feature(_ second: Int, _ properties: String) -> String {
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,50]},\"properties\":{\"timestamp\":"
                + "\"2024-01-01T00:00:0\(second)Z\",\(properties)}}"
        }
        let overland = parse("{\"locations\":[" + feature(0, "\"horizontal_accuracy\":\"abc\",\"speed\":5000,\"course\":400,\"altitude\":\"high\"")
                             + "," + feature(1, "\"speed\":-1,\"course\":-1,\"horizontal_accuracy\":-1") + ","
                             + feature(2, "\"speed\":\"NaN\",\"horizontal_accuracy\":\"nan\"") + "]}")
        #expect(overland.points.count == 3)
        #expect(overland.points.allSatisfy { $0.speedMps == nil && $0.courseDeg == nil && $0.accuracyM == nil && $0.altitudeM == nil })
        #expect(Set(overland.rejects.map(\.detail)) == [
            "altitude \"high\" is not a number; the point was kept without it",
            "horizontal_accuracy \"abc\" is not a number; the point was kept without it",
            "speed 5000.0 m/s is above 1000 m/s; the point was kept without it",
            "course 400.0° is above 360°; the point was kept without it",
        ])
        #expect(overland.rejects.allSatisfy { $0.line == 1 })
        let owntracks = parse("{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1700000000,\"cog\":400,\"alt\":\"x\",\"batt\":\"full\"}")
        #expect(owntracks.points.count == 1 && owntracks.points[0].courseDeg == nil && owntracks.points[0].altitudeM == nil)
        #expect(owntracks.rejects.map(\.reason).sorted { $0.rawValue < $1.rawValue } == [.invalidMeasure, .invalidMeasure, .measureOutOfRange])
        let gpx = parse("<?xml version=\"1.0\"?><gpx version=\"1.0\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/0\"><trk><trkseg>"
                        + "<trkpt lat=\"48.1\" lon=\"11.5\"><time>2024-05-01T10:00:00Z</time><speed>fast</speed><course>400</course></trkpt>"
                        + "<trkpt lat=\"48.1\" lon=\"11.5\"><time>2024-05-01T10:01:00Z</time><speed>5000</speed><course>-1</course></trkpt>"
                        + "<trkpt lat=\"48.1\" lon=\"11.5\"><time>2024-05-01T10:02:00Z</time><speed>NaN</speed></trkpt>"
                        + "</trkseg></trk></gpx>")
        #expect(gpx.points.count == 3 && gpx.points.allSatisfy { $0.speedMps == nil && $0.courseDeg == nil })
        #expect(gpx.rejects.map(\.detail) == [
            "<speed>fast</speed> is not a number; the point was kept without it", "course 400.0° is above 360°; the point was kept without it",
            "speed 5000.0 m/s is above 1000 m/s; the point was kept without it",
        ])
    }
}
