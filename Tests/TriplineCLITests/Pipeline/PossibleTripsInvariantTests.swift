import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineSimulator
@testable import TriplineEvaluation
@testable import TriplineCLI
import TriplineTestSupport

/// Every trip, leg and visit the rebuild writes could have happened (issue 28), on every real corpus in
/// `../shared/corpus` and on every simulator profile: no trip holds two consecutive fixes no vehicle could join (the
/// clean pass flags such fixes), nothing ends before it starts, `duration_s` is end − start, moving time is at most
/// the duration, the average is distance / moving time and at most the maximum, and a trip with two fixes or more has a
/// maximum speed.
@Suite struct PossibleTripsInvariantTests {
    /// What one rebuilt database breaks, one line each (empty: nothing).
    static func violations(_ store: Store, _ label: String) throws -> [String] {
        var out: [String] = []
        let db = store.db
        let maxMps = CleanPass.Parameters().maxMps, unknownM = CleanPass.Parameters().unknownAccuracyM
        // Kept fixes per device, for the trips' fixes.
        var kept: [Int64: (time: [Int64], lat: [Double], lon: [Double], acc: [Double])] = [:]
        let points = try db.prepare(
            """
            SELECT p.device_id, p.time_ms, p.lat, p.lon, coalesce(p.accuracy_m, -1) FROM points p
            LEFT JOIN point_flags f ON f.device_id = p.device_id AND f.time_ms = p.time_ms
            WHERE coalesce(f.flags, 0) = 0 ORDER BY p.device_id, p.time_ms
            """)
        while try points.step() {
            let d = points.int64(0)
            var k = kept[d] ?? ([], [], [], [])
            k.time.append(points.int64(1))
            k.lat.append(points.double(2))
            k.lon.append(points.double(3))
            let a = points.double(4)
            k.acc.append(a < 0 ? unknownM : a)
            kept[d] = k
        }
        func lowerBound(_ a: [Int64], _ x: Int64) -> Int {
            var lo = 0, hi = a.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if a[mid] < x { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        let trips = try db.prepare(
            "SELECT id, device_id, start_ms, end_ms, duration_s, moving_s, distance_m, avg_speed_mps, max_speed_mps, mode FROM trips ORDER BY device_id, start_ms")
        while try trips.step() {
            let id = trips.int64(0), device = trips.int64(1), start = trips.int64(2), end = trips.int64(3)
            let duration = trips.double(4), moving = trips.double(5), distance = trips.double(6)
            let avg: Double? = trips.isNull(7) ? nil : trips.double(7), top: Double? = trips.isNull(8) ? nil : trips.double(8)
            let what = "\(label): trip \(id) (\(trips.text(9) ?? ""), \(CivilTime.iso8601(ms: start)))"
            if end < start { out.append("\(what) ends \(start - end) ms before it starts") }
            if abs(duration - Double(end - start) / 1000) > 0.001 { out.append("\(what): duration_s \(duration) is not end − start \(Double(end - start) / 1000)") }
            if moving < 0 || moving > duration + 0.001 { out.append("\(what): moving_s \(moving) outside 0…\(duration)") }
            if moving > 0 {
                if let avg {
                    if abs(avg - distance / moving) > 1e-6 * max(1, avg) { out.append("\(what): avg \(avg) is not distance / moving \(distance / moving)") }
                } else if distance > 0 {
                    out.append("\(what): no average with \(distance) m in \(moving) s")
                }
            }
            if let avg {
                if let top {
                    if avg > top * (1 + 1e-9) + 1e-9 { out.append("\(what): average \(avg) above maximum \(top)") }
                } else {
                    out.append("\(what): an average \(avg) and no maximum")
                }
            }
            guard let k = kept[device] else { continue }
            // The kept fixes strictly inside the trip (its first and last may be the stays' own).
            let lo = lowerBound(k.time, start + 1), hi = lowerBound(k.time, end)
            if hi - lo >= 2 && top == nil { out.append("\(what): \(hi - lo) fixes and no maximum speed") }
            if hi - lo >= 2 {
                for q in (lo + 1)..<hi {
                    let seconds = Double(k.time[q] - k.time[q - 1]) / 1000
                    let d = Geo.distance(k.lat[q - 1], k.lon[q - 1], k.lat[q], k.lon[q])
                    if d > maxMps * seconds + k.acc[q - 1] + k.acc[q] {
                        out.append("\(what) runs through an impossible hop: \(Int(d)) m in \(seconds) s at \(CivilTime.iso8601(ms: k.time[q]))")
                        break
                    }
                }
            }
        }
        let legs = try db.prepare("SELECT trip_id, leg, start_ms, end_ms, duration_s FROM legs")
        while try legs.step() {
            let start = legs.int64(2), end = legs.int64(3)
            let what = "\(label): leg \(legs.int64(1)) of trip \(legs.int64(0))"
            if end < start { out.append("\(what) ends \(start - end) ms before it starts") }
            if abs(legs.double(4) - Double(end - start) / 1000) > 0.001 { out.append("\(what): duration_s \(legs.double(4)) is not end − start") }
        }
        let visits = try db.prepare("SELECT id, start_ms, end_ms FROM visits WHERE end_ms < start_ms")
        while try visits.step() { out.append("\(label): visit \(visits.int64(0)) ends \(visits.int64(1) - visits.int64(2)) ms before it starts") }
        return out
    }

    /// The units of the corpus, each imported alone into a fresh database: every file (not the labels, provenance and
    /// expected-results files), and every GeoLife user but the lockbox's (``GeoLifeLockbox``, never read) (a folder with `Trajectory/`) as a sample of up to
    /// `pltSample` of its `.plt` files, evenly spread over its sorted names: all of GeoLife (1,478 files, 500,000+
    /// points in 37 users) would take minutes in a debug build.
    static let pltSample = 3

    static func units(_ root: String) -> [(String, [String])] {
        var units: [(String, [String])] = []
        var users: [String: [String]] = [:]
        for file in FileSystem.walk(root, onError: { _ in }) {
            let rel = String(file.dropFirst(root.count + 1))
            if file.hasSuffix(".plt"), let range = file.range(of: "/Trajectory/") {
                if GeoLifeLockbox.contains(userDirectory: String(file[..<range.lowerBound])) { continue }  // never read
                users[String(file[..<range.lowerBound]), default: []].append(file)
                continue
            }
            if rel.hasSuffix(".md") || rel.hasSuffix(".csv") || rel.hasSuffix("labels.txt") { continue }
            units.append((rel, [file]))
        }
        for (user, files) in users.sorted(by: { $0.key < $1.key }) {
            let sorted = files.sorted()
            let n = min(pltSample, sorted.count)
            let picked = (0..<n).map { sorted[n == 1 ? 0 : $0 * (sorted.count - 1) / (n - 1)] }
            units.append((String(user.dropFirst(root.count + 1)) + " (\(n) of \(sorted.count) files)", picked))
        }
        return units
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent))
    func everyCorpusFileGivesPossibleTrips() throws {
        let root = try #require(corpusDirectory())
        let units = Self.units(root)
        #expect(units.count >= 40, "\(units.count) corpus units")
        var problems: [String] = []
        var trips = 0
        for (label, files) in units {
            let db = try temporaryDirectory() + "/t.sqlite"
            _ = runCLI(["import", "--db", db, "--quiet"] + files)  // some fixtures are meant to be refused
            guard FileSystem.exists(db) else { continue }
            let r = runCLI(["rebuild", "--db", db, "--quiet"])
            if r.status != 0 {
                if !r.stderr.contains("No points") && !r.stdout.contains("No points") { problems.append("\(label): rebuild failed: \(r.stderr)") }
                continue
            }
            let store = try Store(path: db, create: false)
            trips += try count(store, "SELECT count(*) FROM trips")
            problems += try Self.violations(store, label)
        }
        #expect(trips > 100, "the corpus gives \(trips) trips")
        #expect(problems.isEmpty, "\(problems.count) impossible records:\n\(problems.prefix(30).joined(separator: "\n"))")
    }

    /// Two phones in one file (``InterleavedPhones``: a second person's phone, 6,000 km away, every third fix): the
    /// clean pass flags exactly the second phone's fixes out of reach, `rebuild` says that two sources interleave,
    /// and the trips and visits score as the first phone's alone do.
    @Test func interleavedPhonesScoreAsTheSinglePhone() throws {
        for profile in [SimulationProfile.classic, .mixed] {
            var config = SimulatorConfig(seed: 501, days: 2, people: 2)
            config.profile = profile
            let simulation = Simulator(config: config).run()
            let (merged, foreign) = InterleavedPhones.apply(simulation)
            let single = InterleavedPhones.single(simulation)
            func rebuilt(_ result: SimulationResult) throws -> (Store, String, SimulationScores) {
                let db = try temporaryDirectory() + "/t.sqlite"
                let store = try Store(path: db)
                try SimulationEvaluation.load(result, into: store)
                let r = runCLI(["rebuild", "--db", db])
                #expect(r.status == 0, "\(r.stderr)")
                return (store, r.stdout, try SimulationEvaluation.score(result.truth, store: store))
            }
            let (store, output, scores) = try rebuilt(merged)
            let (_, aloneOutput, alone) = try rebuilt(single)
            #expect(foreign.count > 20, "\(foreign.count) fixes of the second phone")
            // Every fix of the second phone is flagged (out of reach; a few of its cell fixes are inaccurate before
            // that), and none of the first phone's is out of reach.
            var outOfReach = Set<Int64>(), flagged = Set<Int64>()
            let s = try store.db.prepare("SELECT time_ms, flags FROM point_flags")
            while try s.step() {
                flagged.insert(s.int64(0))
                if s.int64(1) & 8 != 0 { outOfReach.insert(s.int64(0)) }
            }
            let own = outOfReach.subtracting(foreign).sorted(), missed = foreign.subtracting(flagged).sorted()
            #expect(own.isEmpty && missed.isEmpty, "\(profile.rawValue), \(foreign.count) foreign fixes: \(own.count) own fixes flagged (\(own.prefix(5))), \(missed.count) foreign not (\(missed.prefix(5)))")
            #expect(output.contains("two sources interleave in this device"), "\(output)")
            #expect(!aloneOutput.contains("two sources interleave"))
            #expect(scores.truthTrips == alone.truthTrips && scores.foundTrips == alone.foundTrips && scores.matchedTrips == alone.matchedTrips,
                    "\(profile.rawValue): trips \(scores.matchedTrips)/\(scores.foundTrips) against \(alone.matchedTrips)/\(alone.foundTrips)")
            #expect(scores.foundVisits == alone.foundVisits && scores.matchedVisits == alone.matchedVisits)
            #expect(scores.medianTripDistanceError == alone.medianTripDistanceError)
            #expect(try Self.violations(store, "interleaved \(profile.rawValue)").isEmpty)
        }
    }

    /// `rebuild` says what the clean pass flagged out of reach: two sources when the track came back twice or more
    /// from another source of 10 fixes or more, else bad fixes (three lone ones are no second phone); nothing when
    /// none was.
    @Test func rebuildSaysWhatIsOutOfReach() {
        #expect(RebuildCommand.impossibleNote(["impossible": .count(0), "returns": .count(0)]).isEmpty)
        #expect(RebuildCommand.impossibleNote(["impossible": .count(1), "returns": .count(1)]).contains("1 fixes no vehicle could have reached"))
        #expect(RebuildCommand.impossibleNote(["impossible": .count(3), "returns": .count(3), "second_source": .count(1)]).contains("3 fixes no vehicle could have reached"))
        #expect(RebuildCommand.impossibleNote(["impossible": .count(40), "returns": .count(12), "second_source": .count(40)])
            .contains("two sources interleave in this device: its fixes went 12 times"))
    }

    @Test func everySimulatorProfileGivesPossibleTrips() throws {
        var problems: [String] = []
        for profile in SimulationProfile.allCases {
            for seed: UInt64 in [401, 402] {
                var config = SimulatorConfig(seed: seed, days: 2, people: 2)
                config.profile = profile
                let result = Simulator(config: config).run()
                let store = try Store(path: try temporaryDirectory() + "/t.sqlite")
                try SimulationEvaluation.load(result, into: store)
                try rebuild(store, timezone: nil)
                #expect(try count(store, "SELECT count(*) FROM trips") > 0)
                problems += try Self.violations(store, "\(profile.rawValue) seed \(seed)")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) impossible records:\n\(problems.prefix(30).joined(separator: "\n"))")
    }
}
