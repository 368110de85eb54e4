import TriplineSimulator

/// The simulator options `evaluate` and `simulate` share.
enum SimulationOptions {
    /// A positive whole number option, or `def` when it is absent.
    static func positive(_ parsed: ParsedArguments, _ name: String, _ def: Int) throws -> Int {
        guard let text = parsed.value(name) else { return def }
        guard let v = Int(text), v > 0 else { throw UsageError("--\(name) wants a positive whole number, not '\(text)'") }
        return v
    }

    // The options `config` reads, described once for `simulate` and `evaluate`.
    static let seed = OptionSpec("seed", value: "N", help: "Simulation seed (default 1).")
    static func days(default days: Int) -> OptionSpec { OptionSpec("days", value: "N", help: "Days to simulate (default \(days)).") }
    static let people = OptionSpec("people", value: "N", help: "People, one device each (default 2).")
    static let movingInterval = OptionSpec("moving-interval", value: "S", help: "Seconds between fixes while moving (default 1 = 1 Hz).")
    static let profile = OptionSpec(
        "profile", value: "NAME", help: "How the phones sample: classic (default), sparse-owntracks, dense-overland, mixed or logger (GPS loggers writing GPX without speeds; docs/SIMULATOR.md).")

    static let world = OptionSpec(
        "world", value: "NAME",
        help: "The world and routines: standard (default) or varied (errand chains with short stops, short trips, scattered places, "
            + "suburban drives, Melbourne's zone; docs/SIMULATOR.md).")

    /// The most person-days (`--days` × `--people`) one simulation may hold: it is built in memory before anything is
    /// written or rebuilt (about 5 MB a person-day at 1 Hz): two people for a year and a margin, about 4 GB at most.
    static let maxPersonDays = 800

    /// `--seed` (default 1), `--days` (default `days`), `--people` (2), `--moving-interval` (1 s), `--profile` and `--world`.
    /// `--days` × `--people` above ``maxPersonDays`` is refused at once, naming `command` and what to do instead
    /// (`evaluate --days 100000` ran out of memory after minutes where `simulate` refused it).
    static func config(_ parsed: ParsedArguments, days: Int, command: String, instead: String) throws -> SimulatorConfig {
        var config = SimulatorConfig()
        config.seed = UInt64(try positive(parsed, "seed", 1))
        config.days = try positive(parsed, "days", days)
        config.people = try positive(parsed, "people", 2)
        let personDays = config.days.multipliedReportingOverflow(by: config.people)
        if personDays.overflow || personDays.partialValue > maxPersonDays {
            throw UsageError("--days × --people is at most \(maxPersonDays) person-days (the simulation is held in memory, "
                + "about 5 MB a person-day); \(instead)", command: command)
        }
        config.movingIntervalS = try positive(parsed, "moving-interval", 1)
        if let name = parsed.value("profile") {
            guard let profile = SimulationProfile(rawValue: name) else {
                throw UsageError("--profile wants one of \(SimulationProfile.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            config.profile = profile
        }
        if let name = parsed.value("world") {
            guard let world = SimulatedWorldKind(rawValue: name) else {
                throw UsageError("--world wants one of \(SimulatedWorldKind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            config.useWorld(world)
        }
        return config
    }
}
