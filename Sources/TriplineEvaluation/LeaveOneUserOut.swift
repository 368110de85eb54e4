import TriplineCore
import TriplinePasses

/// Honest tuning on the GeoLife users: for each held-out user, the parameter setting that scores best on the other
/// users (pooled trip F1 + pooled 3-class mode accuracy) is chosen, and the held-out user is scored with it. Every
/// setting is rebuilt once per user; the choice for a held-out user never sees that user's scores.
public enum LeaveOneUserOut {
    /// A grid: each line `pass.key=v1,v2,…`; the settings are the cartesian product (first line varies slowest).
    /// `#` starts a comment.
    public static func grid(_ text: String) throws -> [[String]] {
        var axes: [[String]] = []
        for (n, raw) in TextLines.split(text).enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let t = line.trimmingCharacters(in: " \t\r")
            if t.isEmpty { continue }
            guard let eq = t.firstIndex(of: "=") else { throw EvaluationError.gridLine(n + 1, String(t)) }
            let key = t[..<eq]
            axes.append(t[t.index(after: eq)...].split(separator: ",").map { key + "=" + $0.trimmingCharacters(in: " ") })
        }
        var out: [[String]] = [[]]
        for axis in axes { out = out.flatMap { prefix in axis.map { prefix + [$0] } } }
        return out
    }

    public struct Result {
        /// Held-out scores, one per user, each under the setting chosen on the others.
        public var heldOut: [RealDataEvaluation.GeoLifeScores]
        /// The setting chosen for each held-out user (index into the grid).
        public var chosen: [Int]
        /// Pooled scores over all users of each setting (fitted: for reference only).
        public var fitted: [RealDataEvaluation.GeoLifeScores]
    }

    /// Scores every setting on every user, then picks per held-out user.
    public static func run(users: [GeoLifeUser], grid: [[String]], progress: ((Int, Int) -> Void)? = nil) throws -> Result {
        var table: [[RealDataEvaluation.GeoLifeScores]] = []  // [setting][user]
        for (k, assignments) in grid.enumerated() {
            var settings = PassSettings()
            for a in assignments { try settings.set(a, origin: "grid") }
            try settings.validate()
            table.append(try users.map { try $0.score(settings: settings, details: false) })
            progress?(k + 1, grid.count)
        }
        var heldOut: [RealDataEvaluation.GeoLifeScores] = []
        var chosen: [Int] = []
        for u in users.indices {
            var best = 0, bestValue = -Double.infinity
            for k in grid.indices {
                var others = table[k]
                others.remove(at: u)
                let pool = RealDataEvaluation.GeoLifeScores.pooled(others)
                let value = pool.tripF1 + pool.modeAccuracy
                if value > bestValue + 1e-12 { best = k; bestValue = value }
            }
            chosen.append(best)
            heldOut.append(table[best][u])
        }
        return Result(heldOut: heldOut, chosen: chosen, fitted: table.map { RealDataEvaluation.GeoLifeScores.pooled($0) })
    }
}
