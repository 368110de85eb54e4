import Testing
@testable import TriplineCore
@testable import TriplineImport
@testable import TriplineEvaluation
import TriplineTestSupport

/// The trackintel re-implementation reproduces trackintel's own regression output (`geolife_long/trips.csv`, made with
/// staypoints sliding 25 m / 5 min / gap 1e6 min, activities ≥ 15 min, trips gap 15 min).
@Suite struct TrackintelReferenceTests {
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func reproducesTrackintelTrips() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found") + "/trackintel/geolife_long"
        var expected: [Int: [(Int64, Int64)]] = [:]
        let csv = String(decoding: try FileSystem.read(corpus + "/trips.csv"), as: UTF8.self)
        for line in csv.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", maxSplits: 6, omittingEmptySubsequences: false)
            func time(_ s: Substring) -> Int64? { Timestamp.parseISO8601(String(s.replacing(" ", with: "T").replacing("+00:00", with: "Z")))?.ms }
            guard f.count >= 4, let user = Int(f[1]), let a = time(f[2]), let b = time(f[3]) else { continue }
            expected[user, default: []].append((a, b))
        }
        #expect(expected.values.map(\.count).reduce(0, +) == 14)
        var p = TrackintelReference.Parameters()
        p.distThresholdM = 25
        p.gapThresholdMin = 1e6
        for (user, folder) in [(0, "000"), (1, "001")] {
            var t: [Int64] = [], lat: [Double] = [], lon: [Double] = []
            for name in try FileSystem.list(corpus + "/" + folder + "/Trajectory").sorted() {
                let out = FormatDetector.parse(try FileSystem.read(corpus + "/" + folder + "/Trajectory/" + name), context: .memory())
                #expect(out.format == "geolife-plt")
                for pt in out.points {
                    t.append(pt.timeMs)
                    lat.append(pt.lat)
                    lon.append(pt.lon)
                }
            }
            let trips = TrackintelReference.run(time: t, lat: lat, lon: lon, p).trips
            #expect(trips.map(\.0) == expected[user]!.map(\.0), "user \(user) starts")
            #expect(trips.map(\.1) == expected[user]!.map(\.1), "user \(user) ends")
        }
    }
}
