import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
@testable import TriplineSimulator
@testable import TriplineEvaluation
import TriplineTestSupport

/// `rebuild --pass paths` after a change of a `paths.*` setting gives what a full rebuild with that setting gives: every
/// column of `trips` and `legs`, and of `days` once `--pass metrics` has run after it (docs/PASSES.md, "paths").
/// Before, the pass started from its own earlier output: a trip's maximum speed, raised to the longer path's average
/// and to its legs' averages, stayed raised when a setting shortened the path (sparse seed 3: 134.766 m/s against the
/// full rebuild's 134.679), and legs shared a `track` or `history` distance by the shares an earlier `circuity`
/// estimate had given them instead of by their straight lines.
@Suite struct PathsRerunTests {
    /// Shortening (`circuity` 1, long connectors ignored, no sparse trips at all) and lengthening (`circuity` 1.3)
    /// settings, each from the defaults; and the way back, from a full rebuild with the setting to `--pass paths` with
    /// the defaults.
    @Test(arguments: [
        (SimulationProfile.sparseOwnTracks, UInt64(3), "paths.circuity=1"),
        (.sparseOwnTracks, 3, "paths.circuity=1.3"),
        (.sparseOwnTracks, 3, "paths.connector_min_m=5000"),
        (.sparseOwnTracks, 3, "paths.sparse_interval_s=100000"),
        (.mixed, 5, "paths.circuity=1.3"),
        (.mixed, 5, "paths.history_min_ratio=0"),
    ])
    func passPathsEqualsFull(profile: SimulationProfile, seed: UInt64, setting: String) throws {
        var config = SimulatorConfig(seed: seed, days: 4, people: 2)
        config.profile = profile
        let result = Simulator(config: config).run()
        for (first, then) in [([], [setting]), ([setting], [])] {
            let rerun = try Store(path: try temporaryDirectory() + "/rerun.sqlite")
            try SimulationEvaluation.load(result, into: rerun)
            _ = try Rebuild(store: rerun, options: Self.options(first, full: true)).run()
            _ = try Rebuild(store: rerun, options: Self.options(then, pass: "paths")).run()
            let afterPaths = try Self.tables.prefix(2).map { try Self.rows(rerun, $0.0) }
            _ = try Rebuild(store: rerun, options: Self.options([], pass: "metrics")).run()
            let full = try Store(path: try temporaryDirectory() + "/full.sqlite")
            try SimulationEvaluation.load(result, into: full)
            _ = try Rebuild(store: full, options: Self.options(then, full: true)).run()
            for (k, (sql, what)) in Self.tables.enumerated() {
                let a = k < 2 ? afterPaths[k] : try Self.rows(rerun, sql), b = try Self.rows(full, sql)
                #expect(!b.isEmpty, "\(what) empty")
                let differing = zip(a, b).filter { $0 != $1 }
                #expect(a.count == b.count && differing.isEmpty,
                        "\(setting) \(first.isEmpty ? "after" : "before") the defaults: \(what) differ (\(differing.count) of \(b.count)), first: \(differing.first.map { "\($0.0)\n  full: \($0.1)" } ?? "-")")
            }
        }
    }

    /// Every column, unrounded.
    static let tables: [(String, String)] = [
        ("SELECT * FROM trips ORDER BY device_id, start_ms, id", "trips"),
        ("SELECT * FROM legs ORDER BY device_id, trip_id, leg", "legs"),
        ("SELECT * FROM days ORDER BY device_id, date", "days"),
    ]

    static func options(_ settings: [String], full: Bool = false, pass: String? = nil) throws -> Rebuild.Options {
        var options = Rebuild.Options()
        options.timeZoneName = "Europe/Berlin"
        options.full = full
        options.pass = pass
        for s in settings { try options.settings.set(s, origin: "--set") }
        return options
    }

    static func rows(_ store: Store, _ sql: String) throws -> [String] {
        let s = try store.db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append((0..<s.columnCount).map { "\(s.value($0))" }.joined(separator: "|")) }
        return out
    }
}
