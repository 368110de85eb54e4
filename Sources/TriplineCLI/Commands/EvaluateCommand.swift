#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineEvaluation
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// `tripline evaluate`: simulate with a seed, rebuild, and print the scores against the simulation's truth.
enum EvaluateCommand {
    static var spec: CommandSpec { CommandSpec(
        name: "evaluate",
        abstract: "Simulate days with a seed, rebuild them, and print the scores against the exact truth.",
        discussion: """
            Simulates --people people (even: Overland, odd: OwnTracks) for --days days from --seed into a fresh
            database (--db, else a temporary file, kept and named in the output), runs every pass (with any
            --set/--config overrides), then prints trip and visit precision/recall/F1 (one-to-one matching by
            temporal IoU ≥ 0.5), start/end errors, distance errors per trip and per day, mode accuracy, and what no
            rebuild could see (true trips and visits during which nothing was recorded, and the trips no guess
            across their silence matches: shorter than half of it).

            With --geolife (repeatable): imports each GeoLife user (through the importer's .plt reader), rebuilds, and
            prints per-user and pooled trip precision/recall/F1 and 3-class and exact mode accuracy: first the figures on
            labelled time (docs/PASSES.md, "Scoring on labelled time"), then the strict ones. Users kept back as the
            final test (GeoLifeLockbox) are skipped unless --lockbox is given.
            """,
        options: [
            SimulationOptions.seed,
            OptionSpec("seeds", value: "A-B", help: "Instead of --seed: every seed from A to B, each in its own database, with one line per seed and the pooled scores."),
            SimulationOptions.days(default: 7),
            SimulationOptions.people,
            SimulationOptions.movingInterval,
            SimulationOptions.profile,
            SimulationOptions.world,
            OptionSpec("set", value: "PASS.KEY=VALUE", repeatable: true, help: "Override a pass parameter."),
            OptionSpec("config", value: "FILE", help: "A file of pass.key = value lines."),
            OptionSpec("geolife", value: "DIR", repeatable: true,
                       help: "Instead: score GeoLife users (a user folder with Trajectory/*.plt + labels.txt, or a folder of them): per user and pooled."),
            OptionSpec("trip-cut-model", value: "PATH", help: "Development: the drift-or-walk model from PATH (as scripts/train-trip-cuts.py writes it) instead of the shipped one; with --geolife, PATH may be a folder of one file per user, USER.txt, each trained without that user (held-out scoring)."),
            OptionSpec("dump-trip-cuts", value: "FILE", help: "With --geolife (development): rebuild with trips.cut_model=0 and write every drift candidate's features and its labelled-time outcome to FILE (CSV), the training data of scripts/train-trip-cuts.py."),
            OptionSpec("pause-model", value: "PATH", help: "Development: the stop-or-traffic model from PATH (as scripts/train-pause-cuts.py writes it) instead of the shipped one; with --geolife, PATH may be a folder of one file per user, USER.txt, each trained without that user (held-out scoring)."),
            OptionSpec("dump-pauses", value: "FILE", help: "With --geolife (development): rebuild with stays.pause_model=0 and write every candidate pause's features and where it lies in labelled time to FILE (CSV), the training data of scripts/train-pause-cuts.py."),
            OptionSpec("dump-false-positives", value: "FILE", help: "With --geolife (development): write each rebuilt trip the labelled-time rule counts as a false positive (drift, piece, merge, IoU < 0.5), with its duration, extent, sampling and stays, to FILE (CSV)."),
            OptionSpec("dump-pieces", value: "FILE", help: "With --geolife (development): write each rebuilt trip the labelled-time rule calls a piece of a truth trip, and what separates it from its sibling (a visit: its length and kind; a silence), to FILE (CSV)."),
            OptionSpec("mode-model", value: "PATH",
                       help: "Development: the learned mode model's coefficients from PATH (scripts/train-modes.py's "
                           + "text form) instead of the shipped ones; with --geolife, a folder holds one file per user, "
                           + "USER.txt, each user scored with its own (a leave-one-user-out fold that never saw it)."),
            OptionSpec("dump-leg-features", value: "FILE",
                       help: "With --geolife (development): write each rebuilt leg's features and the observed labelled seconds inside it per class to FILE (CSV; the training data of scripts/train-modes.py). With --seeds: the same CSV for the simulated runs, each leg's seconds per class from the true legs inside it, user sim-SEED."),
            OptionSpec("lockbox", help: "With --geolife: also score the users kept back as the final test (GeoLifeLockbox; skipped otherwise, and named)."),
            OptionSpec("reitti", value: "DIR", help: "Instead: score the reitti GPX days in DIR (gpx/ + EXPECTED_*.csv)."),
            OptionSpec("archives", help: "Simulator forms: write the simulation as the apps' archives (Overland bodies, OwnTracks .rec) and import them, as a user's data goes, instead of loading the simulated fixes exactly (one seed: into PATH.archives/ next to --db)."),
            OptionSpec("details", help: "Also list unmatched trips and visits and trips off by more than 5 % in distance."),
            OptionSpec("db", value: "PATH", help: "One seed: the database to simulate into, a new or empty one (default: a new temporary file). --seeds, --geolife and --reitti use scratch databases, removed at the end."),
        ],
        run: run) }

    /// Per-user rows, the pooled row, and the pooled class confusion.
    static func geolifeTable(_ users: [RealDataEvaluation.GeoLifeScores]) -> String {
        typealias S = RealDataEvaluation.GeoLifeScores
        var out = "GeoLife, headline (docs/PASSES.md, \"Scoring on labelled time\"): ltF1 = trip F1 with rebuilt trips clipped to the labelled\n"
            + "trips (labels as written, < 30 min apart joined, clipped to their fixes), trips outside labelled time ignored unless they stayed\n"
            + "within 300 m (drift), one-to-one IoU ≥ 0.5; oracle = the same for the labels' own fixes cut at silences ≥ 30 min slower than\n"
            + "5 m/s; obs3 = foot / bicycle / motorized accuracy over spans between fixes ≤ 5 min apart inside labels.\n"
            + "Strict figures after '|': labels shifted ±8 h where that fits, trips = labelled legs < 30 min apart, rebuilt trips overlapping\n"
            + "a label counted whole; modes = share of observed labelled time (3-cls; exact: walk, cycle, bus, car = taxi/car, train = train/subway)\n"
        out += S.header + "\n"
        for u in users { out += u.row + "\n" }
        let pool = S.pooled(users)
        out += pool.row + "\n"
        out += "pooled " + pool.labelledTime.line + "\n"
        out += "misses by kind, pooled:" + pool.breakdown.sorted(by: { $0.key < $1.key }).map { " \($0.key) \($0.value);" }.joined() + "\n"
        out += driftByLabelFile(users) + "\n"
        out += "where observed labelled minutes go (label class/outcome; mixed = wrong inside a leg holding ≥ 1 min of another class):\n"
        for u in users { out += "  \(u.user) " + u.labelledTime.lossLine + "\n" }
        out += "  pooled " + pool.labelledTime.lossLine + "\n"
        out += "pooled confusion (label class → rebuilt class, minutes):"
        for (k, v) in pool.confusion.sorted(by: { $0.key < $1.key }) where v >= 60 { out += " \(k) \(Int(v / 60));" }
        return out + "\n"
    }

    /// The labelled-time rule's drift split by whether each user's label file holds walk rows: a walk that a file does
    /// not label, outside labelled time and within 300 m of its first fix, counts as drift (docs/PASSES.md, "Scoring on
    /// labelled time"), so the split shows how much of the drift is that.
    static func driftByLabelFile(_ users: [RealDataEvaluation.GeoLifeScores]) -> String {
        func part(_ group: [RealDataEvaluation.GeoLifeScores]) -> String {
            let drift = group.reduce(0) { $0 + $1.labelledTime.driftFound }, truth = group.reduce(0) { $0 + $1.labelledTime.truthTrips }
            return "\(drift) drift beside \(truth) true trips"
        }
        let walks = users.filter(\.labelsHoldWalks), others = users.filter { !$0.labelsHoldWalks }
        return "drift by label file (most lost their walk rows): labels with walks ("
            + (walks.isEmpty ? "none" : walks.map(\.user).joined(separator: " ")) + "): " + part(walks)
            + "; labels without (\(others.count) user\(others.count == 1 ? "" : "s")): " + part(others)
    }

    /// The `--dump-…` files of a GeoLife run are written at its end, each over whatever its path held: none may lie
    /// inside a `--geolife` folder (a `.plt` it reads, or a new file in the corpus), be a model file it reads, or be
    /// another dump's file. Checked before any user is read.
    static func checkDumps(_ parsed: ParsedArguments, geolife: [String]) throws {
        let dumps = ["dump-trip-cuts", "dump-pauses", "dump-pieces", "dump-false-positives", "dump-leg-features"]
        let models = ["trip-cut-model", "pause-model", "mode-model"].compactMap { parsed.value($0) }
        var earlier: [(option: String, path: String)] = []
        do {
            for option in dumps {
                guard let path = parsed.value(option) else { continue }
                try OutputFiles.checkNotInside(path, folders: geolife, role: "the GeoLife corpus --geolife reads")
                for model in models {
                    if FileSystem.kind(model) == .directory {
                        try OutputFiles.checkNotInside(path, folders: [model], role: "a folder of models evaluate reads")
                    } else if OutputFiles.sameFile(path, model) {
                        throw FileError(path: path, reason: "is the model file \(model) evaluate reads; choose another output path")
                    }
                }
                if let other = earlier.first(where: { OutputFiles.sameFile($0.path, path) }) {
                    throw FileError(path: path, reason: "is also the file of --\(other.option); give each dump its own file")
                }
                earlier.append((option, path))
            }
        } catch let error as FileError {
            throw UsageError("--dump-…: " + Terminal.escaped(error.description), command: "evaluate")
        }
    }

    /// One seed simulates into `--db`, rebuilds it whole with its own zone and scores every trip in it: a file that
    /// already holds devices (the user's own database, or an earlier seed's) would get the simulated device and a
    /// new remembered zone, and its trips would be scored against this seed's truth. Refused before anything is
    /// written; a new file or an empty database is fine.
    static func refuseDatabaseWithData(_ path: String) throws {
        // An empty file (`touch eval.sqlite`, `mktemp`) is a new database too.
        guard FileSystem.exists(path), FileSystem.size(path) != 0 || (FileSystem.size(path + "-wal") ?? 0) != 0 else { return }
        let devices = try Store(path: path, readOnly: true).devices()
        guard !devices.isEmpty else { return }
        let names = devices.prefix(3).map { "'" + Terminal.escaped($0.name) + "'" }.joined(separator: ", ")
            + (devices.count > 3 ? " and \(devices.count - 3) more" : "")
        throw UsageError("\(Terminal.escaped(path)) already holds devices (\(names)); evaluate simulates into a new or empty "
            + "database, and would add its device to these and score them all against its truth: give another --db", command: "evaluate")
    }

    // Long: one branch per mode (--geolife, --reitti, --seeds, one seed), each short, sharing the parsed options.
    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let instead = "evaluate fewer days or people, and more seeds (--seeds A-B)"
        var config = try SimulationOptions.config(parsed, days: 7, command: "evaluate", instead: instead)
        var options = Rebuild.Options()
        options.settings = try RebuildCommand.settings(parsed)
        // One model file for every run (a folder of per-user files is read per GeoLife user below).
        if let path = parsed.value("trip-cut-model"), FileSystem.kind(path) != .directory {
            let text = String(decoding: try FileSystem.read(path, limit: 1 << 20), as: UTF8.self)
            options.settings.tripCutModel = try TripCutModel(text: text, origin: path)
        }
        if let path = parsed.value("pause-model"), FileSystem.kind(path) != .directory {
            let text = String(decoding: try FileSystem.read(path, limit: 1 << 20), as: UTF8.self)
            options.settings.pauseModel = try PauseModel(text: text, origin: path)
        }
        let geolife = parsed.values("geolife")
        if let path = parsed.value("mode-model"), FileSystem.kind(path) != .directory {
            options.settings.modeModel = try ModeModel.load(path)
        }
        for option in ["dump-pauses", "dump-pieces", "dump-false-positives"] where geolife.isEmpty && parsed.value(option) != nil {
            throw UsageError("--\(option) goes with --geolife")
        }
        if parsed.value("dump-leg-features") != nil && geolife.isEmpty && parsed.value("seeds") == nil {
            throw UsageError("--dump-leg-features goes with --geolife or --seeds")
        }
        if let path = parsed.value("mode-model"), geolife.isEmpty, FileSystem.kind(path) == .directory {
            throw UsageError("--mode-model: a folder of per-user models goes with --geolife; give one file")
        }
        if !geolife.isEmpty {
            try Self.checkDumps(parsed, geolife: geolife)
            let work = try FileSystem.temporaryDirectory(prefix: "tripline-geolife")
            defer { FileSystem.removeTree(work) }
            var all: [RealDataEvaluation.GeoLifeScores] = [], reference: [RealDataEvaluation.GeoLifeScores] = []
            let details = parsed.flag("details")
            let directories = try GeoLifeUser.userDirectories(geolife)
            let keptBack = directories.filter { GeoLifeLockbox.contains(userDirectory: $0) }
            if !keptBack.isEmpty && !parsed.flag("lockbox") {
                context.stdout.write("Kept back (the final test, scored once at the end with --lockbox): "
                    + keptBack.map { FileSystem.baseName($0) }.joined(separator: " ") + "\n")
            }
            let dump = parsed.value("dump-trip-cuts")
            var dumpRows = [GeoLifeUser.tripCutHeader]
            if dump != nil { options.settings.values["trips.cut_model"] = "0" }
            let modelPath = parsed.value("trip-cut-model")
            let pauseDump = parsed.value("dump-pauses")
            var pauseRows = [GeoLifeUser.pauseHeader]
            if pauseDump != nil { options.settings.values["stays.pause_model"] = "0" }
            let pausePath = parsed.value("pause-model")
            let legDump = parsed.value("dump-leg-features")
            var legRows = [GeoLifeUser.legFeatureHeader]
            let pieceDump = parsed.value("dump-pieces")
            var pieceRows = [GeoLifeUser.pieceHeader]
            let falsePositiveDump = parsed.value("dump-false-positives")
            var falsePositiveRows = [GeoLifeUser.falsePositiveHeader]
            for dir in directories where parsed.flag("lockbox") || !GeoLifeLockbox.contains(userDirectory: dir) {
                let user = try GeoLifeUser(directory: dir, workDirectory: work)
                var settings = options.settings
                if let modelPath, FileSystem.kind(modelPath) == .directory {
                    let file = modelPath + "/" + user.name + ".txt"
                    let text = String(decoding: try FileSystem.read(file, limit: 1 << 20), as: UTF8.self)
                    settings.tripCutModel = try TripCutModel(text: text, origin: file)
                }
                if let pausePath, FileSystem.kind(pausePath) == .directory {
                    let file = pausePath + "/" + user.name + ".txt"
                    let text = String(decoding: try FileSystem.read(file, limit: 1 << 20), as: UTF8.self)
                    settings.pauseModel = try PauseModel(text: text, origin: file)
                }
                let pauseLog = pauseDump != nil || pieceDump != nil ? PauseLog() : nil
                settings.pauseLog = pauseLog
                let log = dump != nil ? TripCutLog() : nil
                settings.tripCutLog = log
                var model: ModeModel? = nil
                if let path = parsed.value("mode-model") {
                    model = try ModeModel.load(FileSystem.kind(path) == .directory ? path + "/" + user.name + ".txt" : path)
                }
                let legLog = legDump != nil ? LegFeatureLog() : nil
                let s = try user.score(settings: settings, details: details, modeModel: model, featureLog: legLog)
                if let log { dumpRows += try user.tripCutRows(log.take()) }
                if let pauseLog {
                    let candidates = pauseLog.take()
                    if pauseDump != nil { pauseRows += user.pauseRows(candidates) }
                    if pieceDump != nil { pieceRows += try user.pieceRows(candidates: candidates) }
                }
                if let legLog { legRows += user.legFeatureRows(legLog) }
                if falsePositiveDump != nil { falsePositiveRows += try user.falsePositiveRows() }
                if details {
                    context.stdout.write("GeoLife \(dir): " + s.report + "\n")
                    for line in s.details { context.stdout.write("  " + line + "\n") }
                }
                all.append(s)
                reference.append(try user.scoreTrackintel())
                user.discardFiles()
            }
            if let dump {
                try FileSystem.write(dumpRows.joined(separator: "\n") + "\n", to: dump)
                context.stdout.write("Wrote \(dumpRows.count - 1) drift candidates to \(dump)\n")
            }
            if let pauseDump {
                try FileSystem.write(pauseRows.joined(separator: "\n") + "\n", to: pauseDump)
                context.stdout.write("Wrote \(pauseRows.count - 1) candidate pauses to \(pauseDump)\n")
            }
            if let pieceDump {
                try FileSystem.write(pieceRows.joined(separator: "\n") + "\n", to: pieceDump)
                context.stdout.write("Wrote \(pieceRows.count - 1) pieces to \(pieceDump)\n")
            }
            if let falsePositiveDump {
                try FileSystem.write(falsePositiveRows.joined(separator: "\n") + "\n", to: falsePositiveDump)
                context.stdout.write("Wrote \(falsePositiveRows.count - 1) false positives to \(falsePositiveDump)\n")
            }
            if let legDump {
                try FileSystem.write(legRows.joined(separator: "\n") + "\n", to: legDump)
                context.stdout.write("Leg features: \(legRows.count - 1) legs with observed labelled time written to \(legDump)\n")
            }
            context.stdout.write(Self.geolifeTable(all))
            context.stdout.write("\ntrackintel 1.x defaults on the same fixes (re-implemented: staypoints sliding 100 m / 5 min / gap 15 min, "
                + "activities ≥ 15 min, trips gap 15 min, modes simple-coarse: < 15 km/h foot, else motorized):\n")
            context.stdout.write(Self.geolifeTable(reference))
            return TriplineCLI.Exit.success
        }
        if let dir = parsed.value("reitti") {
            let work = try FileSystem.temporaryDirectory(prefix: "tripline-reitti")
            defer { FileSystem.removeTree(work) }
            for (n, (scenario, files)) in [("20250617.gpx", ["20250617.gpx"]), ("20250618.gpx", ["20250618.gpx"]), ("20250617.gpx+20250618.gpx", ["20250617.gpx", "20250618.gpx"])].enumerated() {
                let scenarioWork = work + "/\(n)"
                try FileSystem.createDirectory(scenarioWork)
                let s = try RealDataEvaluation.reitti(
                    gpxFiles: files.map { dir + "/gpx/" + $0 }, scenario: scenario, corpus: dir,
                    workDirectory: scenarioWork, settings: options.settings)
                context.stdout.write("reitti \(scenario): " + s.report + "\n")
                if parsed.flag("details") { for line in s.details { context.stdout.write("  " + line + "\n") } }
            }
            return TriplineCLI.Exit.success
        }
        if let range = parsed.value("seeds") {
            let parts = range.split(separator: "-").map { UInt64($0) }
            guard parts.count == 2, let a = parts[0], let b = parts[1], a <= b, b - a < 10_000 else {
                throw UsageError("--seeds wants a range A-B of seeds, not '\(range)'")
            }
            var pooled = PooledScores()
            let legDump = parsed.value("dump-leg-features")
            var legRows = [GeoLifeUser.legFeatureHeader]
            // Each seed's database is scratch: removed once scored (the single-seed form keeps its database, or --db).
            let dir = try FileSystem.temporaryDirectory(prefix: "tripline-evaluate")
            defer { FileSystem.removeTree(dir) }
            for seed in a...b {
                config.seed = seed
                let path = dir + "/seed-\(seed).sqlite"
                let archives = parsed.flag("archives") ? dir + "/seed-\(seed)-archives" : nil
                let (s, rows) = try PooledScores.run(config, path: path, settings: options.settings, archives: archives,
                                                     legFeatures: legDump != nil ? "sim-\(seed)" : nil)
                legRows += rows
                if let archives { FileSystem.removeTree(archives) }
                for suffix in ["", "-wal", "-shm"] { FileSystem.remove(path + suffix) }
                pooled.add(s)
                context.stdout.write("seed \(seed): trip F1 \(NumberText.fixed(s.tripF1, decimals: 2)), visit F1 \(NumberText.fixed(s.visitF1, decimals: 2)), trip distance median \(NumberText.fixed(s.medianTripDistanceError * 100, decimals: 2)) %, daily median \(NumberText.fixed(s.medianDailyDistanceError * 100, decimals: 2)) %\n")
                if parsed.flag("details") { for line in s.details { context.stdout.write("  " + line + "\n") } }
            }
            if let legDump {
                try FileSystem.write(legRows.joined(separator: "\n") + "\n", to: legDump)
                context.stdout.write("Leg features: \(legRows.count - 1) legs with true leg time written to \(legDump)\n")
            }
            context.stdout.write("\(config.profile.rawValue), seeds \(a)-\(b), \(config.days) days, \(config.people) people, pooled: " + pooled.line + "\n")
            context.stdout.write("  " + pooled.hiddenLine + "\n")
            context.stdout.write("  " + pooled.modeLine + "\n")
            return TriplineCLI.Exit.success
        }
        options.full = true
        let path = try parsed.value("db") ?? (FileSystem.temporaryDirectory(prefix: "tripline-evaluate") + "/evaluate.sqlite")
        try Self.refuseDatabaseWithData(path)
        let result = Simulator(config: config).run()
        options.timeZoneName = result.truth.timeZoneName
        let store = try Store(path: path)
        if parsed.flag("archives") {
            FileSystem.removeTree(path + ".archives")
            try SimulationEvaluation.importArchives(result, into: store, folder: path + ".archives")
        } else {
            try SimulationEvaluation.load(result, into: store)
        }
        let started = Clock.monotonic()
        _ = try Rebuild(store: store, options: options).run()
        let elapsed = Clock.monotonic() - started
        let scores = try SimulationEvaluation.score(result.truth, store: store)
        let points = result.devices.reduce(0) { $0 + $1.points.count }
        context.stdout.write("seed \(config.seed), \(config.days) days, \(config.people) people, \(points) points; rebuilt in \(NumberText.fixed(elapsed, decimals: 2)) s (\(path))\n")
        context.stdout.write(scores.report)
        if parsed.flag("details") { for line in scores.details { context.stdout.write(line + "\n") } }
        return TriplineCLI.Exit.success
    }
}
