#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import TriplineCore
import TriplineEvaluation
import TriplinePasses

/// `tune`: leave-one-user-out parameter choice on GeoLife users (see ``LeaveOneUserOut``).
///
/// Options: `--geolife DIR` (repeatable; a user folder or a folder of them, default `../shared/corpus/geolife`),
/// `--grid FILE` (lines `pass.key=v1,v2,…`; default `scripts/loo-grid.txt`).
/// Prints each user's held-out scores under the setting chosen on the other users, the pooled held-out scores, and
/// (for reference only) the fitted pooled scores of every setting.
enum TuneBenchmark {
    static func run(_ args: [String]) throws {
        var dirs: [String] = []
        var gridPath = "scripts/loo-grid.txt"
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--geolife": guard let dir = options.value() else { fallthrough }; dirs.append(dir)
            case "--grid": guard let path = options.value() else { fallthrough }; gridPath = path
            default: throw BenchmarkFailure("tune: unknown option '\(option)' (--geolife DIR, --grid FILE)")
            }
        }
        if dirs.isEmpty { dirs = ["../shared/corpus/geolife"] }
        let grid = try LeaveOneUserOut.grid(String(decoding: try FileSystem.read(gridPath), as: UTF8.self))
        let work = try FileSystem.temporaryDirectory(prefix: "tripline-tune")
        let users = try GeoLifeUser.userDirectories(dirs).map { try GeoLifeUser(directory: $0, workDirectory: work) }
        print("\(users.count) users, \(grid.count) settings from \(gridPath)")
        let started = Clock.monotonic()
        let r = try LeaveOneUserOut.run(users: users, grid: grid) { k, n in
            if k % 10 == 0 || k == n { print("  scored \(k)/\(n) settings (\(Int(Clock.monotonic() - started)) s)") }
        }
        typealias S = RealDataEvaluation.GeoLifeScores
        print("\nheld-out (each user scored with the setting chosen on the other \(users.count - 1)):")
        print(S.header)
        for (u, s) in r.heldOut.enumerated() { print(s.row + "  setting #\(r.chosen[u])") }
        print(S.pooled(r.heldOut).row)
        print("\nsettings:")
        for (k, g) in grid.enumerated() {
            let f = r.fitted[k]
            let uses = r.chosen.filter { $0 == k }.count
            if uses > 0 || grid.count <= 40 {
                print("  #\(k) \(g.joined(separator: " ")): fitted pooled F1 \(NumberText.fixed(f.tripF1, decimals: 2)), 3-class \(format3(f.modeAccuracy))\(uses > 0 ? "  (chosen for \(uses) users)" : "")")
            }
        }
        for u in users { u.discardFiles() }
        rmdir(work)
    }
}
