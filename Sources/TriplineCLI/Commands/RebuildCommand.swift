import TriplineCore
import TriplineEvaluation
import TriplineGeography
import TriplineImport
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// `tripline rebuild`: runs the passes and prints what each produced.
enum RebuildCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "rebuild",
            abstract: "Rebuild stays, visits, places, trips with legs and daily totals from the raw points.",
            discussion: """
                Runs the passes \(Rebuild.passOrder.joined(separator: ", ")) per device, in order. By default only
                the spans touched by points imported since the last rebuild, from a day before them, are recomputed
                (the result equals a full rebuild in every simulated archive measured imported a day at a time: 120
                of 120 development runs and 36 of 36 fresh ones of the standard world, 108 of 108 imported each evening
                in both worlds; what could still differ, and why, is in docs/PASSES.md, "Incremental"); --full
                recomputes everything. Parameters are documented in docs/PASSES.md; override them with
                --set pass.key=value (repeatable) or a --config file of such lines. Points without their own UTC offset
                (OwnTracks, GPX) are put on the local days of the zone where they were taken (an offline boundary
                table); --timezone gives one zone for all of them instead (remembered in the database). Each device's results record the parameters, zone and code version they were built with; a
                rebuild with different ones recomputes the device and says why.
                """ + "\n\n" + parameterHelp,
            options: [
                CommonOptions.db, CommonOptions.device, CommonOptions.from, CommonOptions.to,
                OptionSpec("pass", value: "NAME", help: "Run only this pass (\(Rebuild.passOrder.joined(separator: ", ")))."),
                OptionSpec("set", value: "PASS.KEY=VALUE", repeatable: true, help: "Override a pass parameter, e.g. stays.radius_m=80."),
                OptionSpec("config", value: "FILE", help: "A file of 'pass.key = value' lines (# comments)."),
                OptionSpec(
                    "timezone", value: "AREA/CITY",
                    help: "Time zone of points without their own offset (e.g. Europe/Berlin), kept for later runs; "
                        + "'position' goes back to each point's zone by where it was (the default)."),
                OptionSpec("full", help: "Recompute everything, not only what new points touched."),
                CommonOptions.quiet, CommonOptions.json,
            ],
            run: run)
    }

    /// The PASS PARAMETERS section of the help, from the passes' own parameter tables.
    static var parameterHelp: String {
        let defaults = Rebuild.parameterDefaults
        var ranges: [String: ParameterRange] = [:]
        for type in Rebuild.passes { for (key, range) in type.ranges { ranges[key] = range } }
        let width = defaults.map(\.0.count).max() ?? 0
        let valueWidth = defaults.map(\.1.count).max() ?? 0
        return "PASS PARAMETERS (--set KEY=VALUE; defaults and valid ranges shown, reasons in docs/PASSES.md):\n"
            + defaults.map {
                "  " + $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1
                    + String(repeating: " ", count: valueWidth - $0.1.count) + "  (" + (ranges[$0.0]?.description ?? "?") + ")"
            }.joined(separator: "\n")
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        var options = Rebuild.Options()
        options.filter = try CommonOptions.filter(parsed, command: "rebuild")
        if let pass = parsed.value("pass") {
            guard Rebuild.passOrder.contains(pass) else {
                throw UsageError("Unknown pass '\(pass)'; passes are \(Rebuild.passOrder.joined(separator: ", "))")
            }
            options.pass = pass
        }
        options.settings = try settings(parsed)
        if let zone = parsed.value("timezone") {
            // A misspelt zone is a bad argument, refused before the database is opened (exit 64).
            guard zone == Rebuild.positionZones || LocalZones(overrideName: zone) != nil else {
                throw UsageError(
                    "unknown time zone '\(zone)' for --timezone; use an IANA name such as Europe/Berlin, or 'position' for each point's zone by where it was")
            }
            options.timeZoneName = zone
        }
        options.full = parsed.flag("full")
        let path = CommonOptions.databasePath(parsed, context)
        let store = try Store(path: path, create: false)
        let started = Clock.monotonic()
        let outcome: Rebuild.Outcome
        do {
            outcome = try Rebuild(store: store, options: options).execute()
        } catch let error as RebuildError {
            throw CommandFailure(error.description)
        } catch let error as PassSettingsError {
            throw CommandFailure(error.description)
        }
        let reports = outcome.reports
        let elapsed = Clock.monotonic() - started
        for warning in outcome.warnings { context.stderr.write("Warning: \(Terminal.message(warning)).\n") }
        if parsed.flag("json") {
            let items = reports.map { r in
                "{\"device\":\(JSONText.quotedForTerminal(r.device)),\"pass\":\(r.pass.map(JSONText.quotedForTerminal) ?? "null"),\"stats\":\(r.stats.json),"
                    + "\"rebuilt_all_because\":\(JSONText.quotedForTerminal(r.reason))}"
            }
            context.stdout.write(
                "{\"seconds\":\(NumberText.fixed(elapsed, decimals: 2)),\"timezone\":\(JSONText.quotedForTerminal(outcome.timeZone)),"
                    + "\"timezone_from\":\(JSONText.quotedForTerminal(outcome.zoneSource.rawValue)),\"runs\":[\(items.joined(separator: ","))]}\n")
        } else if !parsed.flag("quiet") {
            if reports.isEmpty { context.stdout.write("No points to rebuild.\n") }
            var lastDevice = ""
            for r in reports {
                if r.device != lastDevice {
                    // Device names come from archives (Terminal.escaped).
                    let device = Terminal.escaped(r.device)
                    if let reason = r.reason { context.stdout.write("\(device): \(Terminal.escaped(reason)): rebuilding all\n") }
                    var span = "all points"
                    if r.span.0 != Int64.min && r.pass != nil { span = "from " + CivilTime.iso8601(ms: r.span.0) }
                    context.stdout.write("\(device) (\(r.pass == nil ? "up to date" : span))\n")
                    lastDevice = r.device
                }
                guard let pass = r.pass else { continue }
                let stats = Terminal.escaped(r.stats.text)
                context.stdout.write("  " + pass.padding(9) + stats + "\n")
                if r.pass == CleanPass.name { context.stdout.write(Self.impossibleNote(r.stats)) }
            }
            context.stdout.write("rebuilt in \(NumberText.fixed(elapsed, decimals: 2)) s\n")
        }
        return TriplineCLI.Exit.success
    }
}

extension RebuildCommand {
    /// A clear line under the clean pass's figures when it flagged fixes no vehicle could have reached: two sources
    /// interleaved in one device (the track went to another source of at least `interleavedMin` fixes and came back
    /// at least twice), or bad fixes.
    /// The pass parameters of `--set` and `--config`, checked against every pass (names and ranges): a bad one is a
    /// usage error (exit 64) naming it and where it was set, in every command that takes them. Each key is given
    /// once in the file and once among the `--set`s; a `--set` overrides the file's line (the command line wins).
    static func settings(_ parsed: ParsedArguments) throws -> PassSettings {
        var settings = PassSettings()
        do {
            if let file = parsed.value("config") { try settings.load(file: file) }
            var given: Set<String> = []
            for s in parsed.values("set") {
                if case .success(let assignment) = ParameterText.assignment(s), !given.insert(assignment.key).inserted {
                    throw PassSettingsError.repeatedKey(key: assignment.key, origin: "--set", first: "an earlier --set")
                }
                try settings.set(s, origin: "--set")
            }
            try settings.validate()
            for name in Rebuild.passOrder { _ = try Rebuild.makePass(name, settings: settings) }
        } catch let error as PassSettingsError {
            throw UsageError(error.located(settings.origins))
        }
        return settings
    }

    static func impossibleNote(_ stats: PassStats) -> String {
        func value(_ key: String) -> Int { if case .count(let n)? = stats[key] { n } else { 0 } }
        let impossible = value("impossible"), returns = value("returns")
        guard impossible > 0 else { return "" }
        if returns >= 2 && value("second_source") >= interleavedMin {
            return "           two sources interleave in this device: its fixes went \(returns) times to places no vehicle could "
                + "reach and back (two phones writing one file without a device tag?); the \(impossible) fixes of the smaller "
                + "source are flagged (point_flags 8), not deleted\n"
        }
        return "           \(impossible) fixes no vehicle could have reached from the rest of the track are flagged (point_flags 8), not deleted\n"
    }

    /// The fixes of a second source that make `rebuild` say two sources interleave (a few bad cell fixes are sources
    /// of one fix each).
    static let interleavedMin = 10
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}

/// `tripline simulate`: writes simulated archives and their exact truth.
enum SimulateCommand {
    /// Refuses simulated days whose fixes `import` would reject every one of: before 2000-01-01 UTC
    /// (``Timestamp/earliestMs``) or more than a day after the import. `--start 9999-12-31` wrote archives and a
    /// truth.json that nothing could use. The people live at UTC+1/+2, so a local day runs from 22:00 UTC the day
    /// before to 23:00 UTC: the first day may be 2000-01-02 at the earliest, the last today (UTC) at the latest.
    static func checkImportable(start: Int, days: Int, nowMs: Int64 = Clock.nowMs()) throws {
        let first = Int(Timestamp.earliestMs / 86_400_000) + 1
        let today = Int(CivilTime.floorDiv(nowMs, 86_400_000))
        let last = start + days - 1
        if start < first {
            throw UsageError("--start \(CivilTime.date(day: start)) is before \(CivilTime.date(day: first)), the first day whose fixes "
                + "'import' accepts (it rejects fixes before 2000-01-01 UTC); start later", command: "simulate")
        }
        if last > today {
            throw UsageError("--start \(CivilTime.date(day: start)) with --days \(days) ends on \(CivilTime.date(day: last)), after "
                + "\(CivilTime.date(day: today)), the last day whose fixes 'import' accepts today (it rejects fixes more than a day "
                + "after the import); start earlier", command: "simulate")
        }
    }

    static var spec: CommandSpec {
        CommandSpec(
            name: "simulate",
            abstract: "Write simulated Overland and OwnTracks archives with their exact truth (truth.json).",
            discussion: """
                Simulates --people people (even-numbered carry Overland, odd-numbered OwnTracks) for --days local days
                from --seed. Writes Overland POST bodies under overland/<device>/, OwnTracks Recorder files under
                rec/<user>/<device>/YYYY-MM.rec (with --profile logger: GPX tracks under gpx/<device>/ instead), and
                truth.json (places, stays, trips with legs and distances, gaps, daily distances). The same seed always
                gives the same files.
                """,
            options: [
                OptionSpec("out", short: "o", value: "DIR", help: "Directory to write (created if missing)."),
                SimulationOptions.days(default: 3),
                SimulationOptions.seed,
                SimulationOptions.people,
                SimulationOptions.movingInterval,
                OptionSpec("start", value: "DATE", help: "First local day (default 2024-03-29, the DST change on day 3; --world varied 2024-04-05, day 2)."),
                SimulationOptions.profile,
                SimulationOptions.world,
                OptionSpec("quirks", help: "Damage the archives as real ones are (truncated file, re-sends, junk records; see docs/SIMULATOR.md)."),
                OptionSpec("google", help: "Also write each device's history as Google exports it, under google/<device>/ (Takeout Records.json and Semantic Location History, Timeline.json, iOS location-history.json)."),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let out = parsed.value("out") else { throw UsageError("Missing '--out <DIR>'") }
        guard out != "-" else { throw UsageError("'--out -': simulate writes a folder of files, which standard output cannot hold; name a folder", command: "simulate") }
        // The simulation is held in memory before it is written: `--days 100000` is a clear error at once rather than
        // gigabytes of memory before the first file (``SimulationOptions/maxPersonDays``).
        let instead = "simulate fewer days, or several runs with --start and --seed"
        var config = try SimulationOptions.config(parsed, days: 3, command: "simulate", instead: instead)
        if let start = parsed.value("start") {
            guard let day = CivilTime.parseDate(start) else { throw UsageError("--start wants a date YYYY-MM-DD, not '\(start)'") }
            config.startDay = day
        }
        try checkImportable(start: config.startDay, days: config.days)
        let result = Simulator(config: config).run()
        try FileSystem.createDirectory(out)
        var files = try SimulationWriter.write(result, to: out, options: SimulationWriter.Options(quirks: parsed.flag("quirks")))
        if parsed.flag("google") {
            for device in result.devices {
                for layout in TakeoutWriter.Layout.allCases {
                    files += try TakeoutWriter.write(result, device: device, layout: layout, to: out + "/google/" + device.name, inside: out)
                }
            }
        }
        let points = result.devices.reduce(0) { $0 + $1.points.count }
        context.stdout.write(
            "Simulated \(config.days) days of \(config.people) people (seed \(config.seed)): \(points) points, "
                + "\(result.truth.trips.count) trips, \(result.truth.stays.count) stays; wrote \(files.count) files to \(out)\n")
        return TriplineCLI.Exit.success
    }
}
