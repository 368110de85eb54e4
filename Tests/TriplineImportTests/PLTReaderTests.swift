import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// GeoLife `.plt` through format detection and the importer's reader.
@Suite struct PLTReaderTests {
    static let header = geoLifeHeader

    @Test func readsFixesBadLinesAndAltitude() {
        let text = Self.header
            + "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n"
            + "39.984683,116.31845,0,-777,39744.1202546296,2008-10-23,02:53:10\r\n"
            + "39.98,abc,0,492,39744.12,2008-10-23,02:53:16\r\n"
            + "39.98,116.31,0,492,39744.12,2008-13-23,02:53:22\r\n"
            + "39.98,116.31,0\r\n"
        let out = FormatDetector.parse(Array(text.utf8), context: .memory(device: "u"))
        #expect(out.format == "geolife-plt")
        #expect(out.points.count == 2)
        #expect(out.points[0].timeMs == 1_224_730_384_000)  // 2008-10-23T02:53:04Z
        #expect(out.points[0].lat == 39.984702 && out.points[0].lon == 116.318417)
        #expect(abs((out.points[0].altitudeM ?? 0) - 492 * 0.3048) < 1e-9)
        #expect(out.points[1].altitudeM == nil)  // -777 = unknown
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidTime, .invalidLine])
        #expect(out.rejects.map(\.line) == [9, 10, 11])
        #expect(out.devices[Int(out.points[0].deviceID)].source == "geolife")
    }

    /// A leap second is the minute's last millisecond (the fix at `00:00:00` after it stays a point), and a date the
    /// calendar does not have (`2008-02-30`) is an invalid time, not March 1st.
    @Test func leapSecondsAndImpossibleDates() {
        let text = Self.header
            + "39.98,116.31,0,492,0,2016-12-31,23:59:60\r\n"
            + "39.99,116.31,0,492,0,2017-01-01,00:00:00\r\n"
            + "39.98,116.31,0,492,0,2008-02-30,02:53:22\r\n"
            + "39.98,116.31,0,492,0,2008-02-29,02:53:22\r\n"
        let out = FormatDetector.parse(Array(text.utf8), context: .memory(device: "u"))
        #expect(out.points.map(\.timeMs) == [1_483_228_799_999, 1_483_228_800_000, 1_204_253_602_000])
        #expect(out.rejects.map(\.reason) == [.invalidTime] && out.rejects.map(\.line) == [9])
    }

    /// A file whose writer kept fewer than six header lines: its fixes among the first six lines were skipped as
    /// header (and a file of two such fixes was called "empty"); the header's own lines are still skipped unremarked.
    @Test func fixesAmongTheFirstSixLinesAreRead() {
        let short = "Geolife trajectory\r\nWGS 84\r\n"
            + "39.9,116.3,0,492,39744.1,2008-10-23,02:53:04\r\n"
            + "39.91,116.3,0,492,39744.2,2008-10-23,02:53:10\r\n"
        let out = FormatDetector.parse(Array(short.utf8), context: .memory(device: "u"))
        #expect(out.points.map(\.timeMs) == [1_224_730_384_000, 1_224_730_390_000])
        #expect(out.rejects.isEmpty)
        // The standard header, then a fix: one point, no reject (line 5 has eight fields, line 6 one).
        let whole = FormatDetector.parse(Array((Self.header + "39.9,116.3,0,492,39744.1,2008-10-23,02:53:04\r\n").utf8),
                                         context: .memory(device: "u"))
        #expect(whole.points.count == 1 && whole.rejects.isEmpty)
    }

    /// Files saved with classic Mac line ends (CR alone) read as with LF (the fifteenth hostile round: none of 200
    /// fixes was read, the `.plt` "holds no fix after its header", the `.rec` "unexpected data after the JSON object").
    @Test func carriageReturnsAloneEndLines() {
        let fixes = (0..<5).map { "39.98\($0),116.31,0,492,39744.12,2008-10-23,02:53:1\($0)" }
        let lf = FormatDetector.parse(Array((Self.header + fixes.joined(separator: "\n") + "\n").utf8), context: .memory(device: "u"))
        let cr = FormatDetector.parse(Array((Self.header + fixes.joined(separator: "\n") + "\n").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r").utf8), context: .memory(device: "u"))
        #expect(lf.points.count == 5 && cr.points.map(\.timeMs) == lf.points.map(\.timeMs) && cr.rejects.isEmpty)
        let rec = (0..<4).map {
            "2024-06-03T10:0\($0):00Z\t*                 \t{\"_type\":\"location\",\"lat\":52.5\($0),\"lon\":13.4,\"tst\":\(1_717_408_800 + 60 * $0),\"tid\":\"ph\"}"
        }
        let recLF = FormatDetector.parse(Array((rec.joined(separator: "\n") + "\n").utf8), context: .memory(device: "u"))
        let recCR = FormatDetector.parse(Array((rec.joined(separator: "\r") + "\r").utf8), context: .memory(device: "u"))
        #expect(recLF.format == "owntracks-rec" && recCR.format == "owntracks-rec")
        #expect(recLF.points.count == 4 && recCR.points.map(\.timeMs) == recLF.points.map(\.timeMs) && recCR.rejects.isEmpty)
    }

    @Test func headerOnlyIsEmpty() {
        let out = FormatDetector.parse(Array(Self.header.utf8), context: .memory())
        #expect(out.format == "geolife-plt")
        #expect(out.points.isEmpty)
        #expect(out.rejects.map(\.reason) == [.emptyFile])
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func corpusFileMatchesItsPointCount() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let out = FormatDetector.parse(try FileSystem.read(corpus + "/geolife/010/Trajectory/20081006110114.plt"), context: .memory())
        #expect(out.points.count == 2485)  // PROVENANCE.md
        #expect(out.rejects.isEmpty)
    }
}
