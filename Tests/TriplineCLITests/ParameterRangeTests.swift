import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// Every pass parameter has a documented range; `--set` and `--config` refuse anything outside it (exit 64, naming
/// the key, the value and the range) before the rebuild starts, and a rebuild at either end of every range finishes.
/// Run in-process: a trap in a pass (a zero speed divided by, 1e19 s converted to milliseconds) ends this test
/// runner, so the test passing is the proof that none happens.
@Suite struct ParameterRangeTests {
    /// A day of everything the passes handle: a home with wifi and drift, a walk, a drive with a stop at a light, a
    /// far-off cell fix, a tunnel, a sparse stretch, a bicycle ride, a silence.
    static func database() throws -> String {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 5, day: 6)) * 86_400_000
        var b = TrackBuilder(startMs: t0, lat: SampleTracks.berlin.lat, lon: SampleTracks.berlin.lon, offset: 7200)
        b.still(3 * 3600, every: 300, drift: 5...40, ssid: "HomeNet")
        b.move(900, bearing: 80, speed: 1.4, every: 5, motion: "walking")
        b.still(900, every: 60, drift: 0...10)
        b.move(6000, bearing: 120, speed: 13, every: 2, motion: "driving")
        b.still(60, every: 5)
        b.farOff(km: 3)
        b.move(4000, bearing: 120, speed: 14, every: 2)
        b.gap(120, moving: 1500, bearing: 120)
        b.move(3000, bearing: 200, speed: 12, every: 60)
        b.still(2 * 3600, every: 600, drift: 5...30, ssid: "Office")
        b.move(5000, bearing: 300, speed: 5, every: 3, motion: "cycling")
        b.still(1800, every: 120, drift: 0...20)
        b.gap(5 * 3600)
        b.still(3600, every: 900, drift: 0...30, ssid: "HomeNet")
        let store = try storeWith([("phone", b.points)])
        return store.path
    }

    @Test func everyParameterDeclaresARange() {
        for type in Rebuild.passes {
            for (key, range) in type.ranges {
                #expect(range.upper > range.lower, "\(key) has an empty range")
            }
            #expect(type.ranges.count == type.defaults.count, "\(type.name): every key has a range")
            for (key, value) in type.defaults {
                let range = type.ranges.first { $0.0 == key }?.1
                #expect(range?.contains(Double(value)!) == true, "\(key)'s default \(value) is outside its range \(String(describing: range))")
            }
        }
    }

    @Test func outOfRangeValuesAreRefusedAndBoundariesRebuild() throws {
        let db = try Self.database()
        // The fixture gives every pass work: stays, visits at places, trips with legs.
        #expect(runCLI(["rebuild", "--db", db, "--full", "--quiet", "--timezone", "UTC"]).status == 0)
        let store = try Store(path: db, create: false)
        #expect(try count(store, "SELECT count(*) FROM visits") >= 3 && count(store, "SELECT count(*) FROM trips") >= 2
                    && count(store, "SELECT count(*) FROM legs") >= 3, "the fixture exercises the passes")
        let all = Rebuild.passes.flatMap { $0.ranges }
        for (key, range) in all {
            var refused = ["nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e400", "1e19", "-1", "0x10", "", " 1 2", "1_0",
                           ParameterText.format(range.upper * 2 + 1), ParameterText.format(range.lower - 1)]
            if range.lower > 0 { refused += ["0", ParameterText.format(range.lower / 2)] }
            if range.whole { refused.append(ParameterText.format(range.lower + 0.5)) }
            for value in refused {
                let run = runCLI(["rebuild", "--db", db, "--full", "--quiet", "--set", "\(key)=\(value)"])
                #expect(run.status == 64, "\(key)=\(value) was not refused: \(run.stderr)")
                #expect(run.stderr.contains("'\(key)'") && run.stderr.contains(range.description), "\(key)=\(value): \(run.stderr)")
            }
            for value in [range.lower, range.upper] {
                let run = runCLI(["rebuild", "--db", db, "--full", "--quiet", "--timezone", "UTC", "--set", "\(key)=\(ParameterText.format(value))"])
                #expect(run.status == 0, "\(key)=\(value): \(run.stderr)")
            }
        }
        // Every parameter at its lower end at once, then at its upper end, from a config file.
        for end in [\ParameterRange.lower, \ParameterRange.upper] {
            let config = try temporaryDirectory() + "/ends.conf"
            try FileSystem.write(all.map { "\($0.0) = \(ParameterText.format($0.1[keyPath: end]))" }.joined(separator: "\n") + "\n", to: config)
            let run = runCLI(["rebuild", "--db", db, "--full", "--quiet", "--timezone", "UTC", "--config", config])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    /// The ends of the trips pass's ranges on simulated phones, whose tracks the fixture above does not reach: a sparse
    /// OwnTracks phone, with `trips.min_leg_s` = 0, ends a trip with a leg of one fix (a range from after its first
    /// fix to its last trapped until 2026-12-06; docs/RELIABILITY.md). Each rebuild finishes and its legs tile their trips.
    @Test func tripsRangeEndsOnSimulatedPhones() throws {
        let ranges = TripsPass.Parameters.ranges
        for profile in ["sparse-owntracks", "dense-overland"] {
            for (key, range) in ranges where ["min_leg_s", "leg_gap_s", "window_s", "sustain_s", "still_mps"].contains(key) {
                for value in [range.lower, range.upper] {
                    let db = try temporaryDirectory() + "/eval.sqlite"
                    let run = runCLI(["evaluate", "--world", "varied", "--profile", profile, "--seed", "3", "--days", "2", "--people", "1",
                                      "--db", db, "--set", "trips.\(key)=\(ParameterText.format(value))"])
                    #expect(run.status == 0, "\(profile) trips.\(key)=\(value): \(run.stderr)")
                    let r = try RealAnswerInvariantTests.check(db)
                    #expect((r.more["legs tile trip"]?[0] ?? 0) == 0 && !r.legsOff, "\(profile) trips.\(key)=\(value): \(r)")
                }
            }
        }
    }

    @Test func refusalsNameTheOriginKeyValueAndRange() throws {
        let db = try Self.database()
        let set = runCLI(["rebuild", "--db", db, "--set", "stays.moving_mps=0"])
        #expect(set.status == 64)
        #expect(set.stderr.contains("--set: parameter 'stays.moving_mps': '0' is out of range: allowed 0.1 … 350"), "\(set.stderr)")
        let config = try temporaryDirectory() + "/p.conf"
        try FileSystem.write("# tuned\nstays.radius_m = 80\n\ntrips.window_s = nan\n", to: config)
        let file = runCLI(["rebuild", "--db", db, "--config", config])
        #expect(file.status == 64)
        #expect(file.stderr.contains("\(config):4: parameter 'trips.window_s': 'nan' is not a number (allowed: 0 … 3600)"), "\(file.stderr)")
        let zone = runCLI(["rebuild", "--db", db, "--timezone", "Mars/Base"])
        #expect(zone.status == 64 && zone.stderr.contains("unknown time zone 'Mars/Base' for --timezone"), "\(zone.stderr)")
        let hostile = runCLI(["rebuild", "--db", db, "--set", "stays.radius_m=\u{1B}[2J"])
        #expect(hostile.status == 64 && !hostile.stderr.contains("\u{1B}"), "\(hostile.stderr)")
        // `evaluate` takes the same parameters and refuses them the same way, before simulating anything.
        for bad in ["stays.radius_m=abc", "trips.nope=3", "stays.moving_mps=0"] {
            let evaluate = runCLI(["evaluate", "--people", "1", "--days", "1", "--set", bad])
            let key = String(bad.prefix { $0 != "=" })
            #expect(evaluate.status == 64 && evaluate.stderr.contains("'\(key)'"), "\(bad): \(evaluate.status) \(evaluate.stderr)")
        }
        // Nothing was rebuilt by the refused runs.
        #expect(try Store(path: db, create: false).db.scalarInt("SELECT count(*) FROM pass_runs") == 0)
    }

    @Test func docsListEveryRange() throws {
        let docs = String(decoding: try FileSystem.read(packageRoot() + "/docs/PASSES.md"), as: UTF8.self)
        for (key, range) in Rebuild.passes.flatMap({ $0.ranges }) {
            #expect(docs.contains("| `\(key)` | \(range) |"), "docs/PASSES.md, Valid ranges: no row '| `\(key)` | \(range) |'")
        }
        let help = runCLI(["rebuild", "--help"]).stdout
        for (key, range) in Rebuild.passes.flatMap({ $0.ranges }) {
            #expect(help.split(separator: "\n").contains { $0.contains(key + " ") && $0.contains(range.description) },
                    "rebuild --help: \(key) without its range")
        }
    }

    /// The fuzz target's seeds (`Fuzz/seeds/parameters`, hostile config files) as `--config` files: refused with
    /// exit 64 or rebuilt, never a crash.
    @Test func fuzzSeedsAsConfigFiles() throws {
        let db = try Self.database()
        let dir = packageRoot() + "/Fuzz/seeds/parameters"
        let files = FileSystem.walk(dir, onError: { _ in })
        #expect(!files.isEmpty, "no seeds in \(dir)")
        for file in files {
            let run = runCLI(["rebuild", "--db", db, "--full", "--quiet", "--timezone", "UTC", "--config", file])
            #expect(run.status == 0 || run.status == 64, "\(file): \(run.status) \(run.stderr)")
        }
    }

    /// The value parser alone, on text no command line would send.
    @Test func valueParsingIsStrict() {
        let r = ParameterRange(0.1, 350)
        for text in ["nan", "+nan", "inf", "Infinity", "1e309", "0x1p3", "", " ", "1 ", "٣", "1e", "--1", "0.09999", "350.0000001"] {
            if case .success(let v) = ParameterText.number(text, key: "k.k", range: r) { Issue.record("'\(text)' accepted as \(v)") }
        }
        for (text, value) in [("0.1", 0.1), ("350", 350.0), ("+7", 7.0), ("1e2", 100.0), ("5.", 5.0)] {
            #expect((try? ParameterText.number(text, key: "k.k", range: r).get()) == value, "\(text)")
        }
        #expect((try? ParameterText.number("-0", key: "k.k", range: ParameterRange(0, 1)).get())?.sign == .plus)
        #expect(ParameterRange(0, 1, whole: true).description == "0 or 1")
        #expect(ParameterRange(1, 10, whole: true).description == "whole 1 … 10")
        #expect(!ParameterRange(1, 10, whole: true).contains(2.5))
        // Fuzz findings: a key or value with a tab or a control character is named escaped.
        for (key, value) in [("a\tb.c", "0"), ("stays.r\u{1}", "55\u{0F}"), ("x.\u{9B}", "\u{202E}")] {
            guard case .failure(let error) = ParameterText.number(value, key: key, range: r) else {
                Issue.record("\(value) accepted")
                continue
            }
            #expect(!error.message.unicodeScalars.contains { Terminal.isControl($0) }, "\(error.message)")
        }
    }
}
