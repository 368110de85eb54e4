import TriplineSimulator

/// The simulator options `evaluate` and `simulate` share.
enum SimulationOptions {
    /// A positive whole number option, or `def` when it is absent.
    static func positive(_ parsed: ParsedArguments, _ name: String, _ def: Int) throws -> Int {
        guard let text = parsed.value(name) else { return def }
        guard let v = Int(text), v > 0 else { throw UsageError("--\(name) wants a positive whole number, not '\(text)'") }
        return v
    }

    /// `--seed` (default 1), `--days` (default `days`), `--people` (2), `--moving-interval` (1 s) and `--profile`.
    static func config(_ parsed: ParsedArguments, days: Int) throws -> SimulatorConfig {
        var config = SimulatorConfig()
        config.seed = UInt64(try positive(parsed, "seed", 1))
        config.days = try positive(parsed, "days", days)
        config.people = try positive(parsed, "people", 2)
        config.movingIntervalS = try positive(parsed, "moving-interval", 1)
        if let name = parsed.value("profile") {
            guard let profile = SimulationProfile(rawValue: name) else {
                throw UsageError("--profile wants one of \(SimulationProfile.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            config.profile = profile
        }
        return config
    }
}
