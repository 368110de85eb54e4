import TriplineCore
import TriplineImport
import TriplineStore

/// `tripline import`: read archives into the database.
enum ImportCommand {
    static var spec: CommandSpec { CommandSpec(
        name: "import",
        abstract: "Import Overland, OwnTracks, GPX, GeoLife and Google location archives (files, folders, or - for standard input).",
        discussion: """
            Formats are detected by content: Overland POST bodies (one per file, JSON lines, arrays, FeatureCollections),
            OwnTracks Recorder .rec files and JSON messages, GPX 1.0/1.1, GeoLife .plt, Google Takeout Records.json and Semantic
            Location History, the phone's Timeline.json and location-history.json. .gz, .tar, .tar.gz and .zip files
            are read as the files they contain. Folders are read recursively; files in them that are no location
            archive are listed as skipped, and an OwnTracks Recorder store is read through its rec/ folder. A file
            already imported with the same content is skipped. Bad records are kept in the 'rejects' table with their
            position and reason; the exit status is 1 when a file could not be read at all.
            """,
        arguments: [ArgumentSpec("path", optional: true, variadic: true, help: "Files or folders to import; - reads standard input.")],
        options: [
            CommonOptions.db,
            OptionSpec("device", value: "NAME", help: "Device name for records that carry none (default: the folder or file name; at most 255 bytes)."),
            OptionSpec("plan", value: "FILE", help: "Import one shard of a plan written by 'tripline plan' (with --shard; no paths)."),
            OptionSpec("shard", value: "K", help: "The shard of --plan to import, from 0 (docs/SCALING.md)."),
            CommonOptions.quiet, CommonOptions.json,
        ],
        run: run)
    }

    /// The longest `--device` taken, in UTF-8 bytes: a folder's name (`NAME_MAX`, 255 bytes), the name a device gets
    /// when `--device` is not given, so every device name a user chooses could also have come from a folder. It is
    /// stored in `devices.name` and written on every line of a CSV export, every GeoJSON feature and the map's legend;
    /// 100,000 characters were taken and shown before.
    static let maxDeviceNameBytes = ParsedDevice.maxNameBytes

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let quiet = parsed.flag("quiet")
        let json = parsed.flag("json")
        let shard = try PlanCommand.shardArgument(parsed)
        if let device = parsed.value("device"), device.utf8.count > maxDeviceNameBytes {
            throw UsageError("--device is \(device.utf8.count) bytes long; a device name is at most \(maxDeviceNameBytes) bytes "
                + "(as long as a folder's name, which names a device when --device is not given)", command: "import")
        }
        let store = try Store(path: CommonOptions.databasePath(parsed, context), requireWritable: true)
        // Points imported into a results-only study could never be rebuilt there (the thirteenth hostile round: 7,079
        // points waiting for good): import into the shards, or a new database.
        if try store.holdsResultsOnly() {
            throw CommandFailure(
                "\(Terminal.escaped(store.path)) was merged with --results-only: its points stay in the shards and nothing is "
                    + "recomputed here; import into a shard (or a new database) and merge again into a new study")
        }
        let importer = Importer(store: store, options: ImportOptions(device: parsed.value("device")))
        let showProgress = context.stderr.isTerminal && !quiet && !json
        var progressShown = false
        if showProgress {
            importer.onProgress = { p in
                let rate = p.seconds > 0 ? Double(p.points) / p.seconds : 0
                var line = "\r\u{1B}[2K[\(p.filesDone)/\(p.filesTotal) files] \(p.points) points, \(Int(rate)) points/s"
                if p.bytesDone > 0, p.bytesTotal > p.bytesDone, p.seconds > 0.5 {
                    let eta = p.seconds * Double(p.bytesTotal - p.bytesDone) / Double(p.bytesDone)
                    line += ", ETA \(Int(eta) / 60):\(pad2(Int(eta) % 60))"
                }
                context.stderr.write(line)
                progressShown = true
            }
        }
        func clearProgress() {
            if progressShown {
                context.stderr.write("\r\u{1B}[2K")
                progressShown = false
            }
        }
        importer.onWait = { message in
            if !quiet {
                clearProgress()
                context.stderr.write("tripline: \(message)…\n")
            }
        }
        importer.onFile = { file in
            if file.status == .failed {
                clearProgress()
                context.stderr.write("Error: \(Terminal.escaped(file.path)): \(Terminal.escaped(file.message ?? "could not be read"))\n")
            } else if !quiet && !json {
                clearProgress()
                context.stdout.write(describe(file) + "\n")
                if file.status == .imported, file.rejected > 0, let id = file.importID {
                    context.stdout.write(rejectLines(store: store, importID: id, count: file.rejected))
                }
            }
        }
        let summary = try shard.map { try importer.importShard($0.plan, shard: $0.shard) } ?? importer.importPaths(parsed.positionals)
        clearProgress()
        if json {
            context.stdout.write(jsonSummary(summary) + "\n")
        } else if !quiet {
            let rate = summary.seconds > 0 ? Int(Double(summary.pointsNew + summary.pointsDuplicate) / summary.seconds) : 0
            context.stdout.write(
                summaryCounts(summary) + ": \(summary.pointsNew) new points, \(summary.pointsDuplicate) duplicate, "
                    + "\(summary.rejected) rejected, \(summary.events) app events "
                    + "(\(formatSeconds(summary.seconds)), \(rate) points/s) into \(Terminal.escaped(store.path))\n")
            if summary.rejected > 0 {
                context.stdout.write("See the rejects: tripline info --db \(store.path), or SELECT * FROM rejects.\n")  // not a read: a hint
            }
            if shard == nil, summary.imported + summary.skipped + summary.failed == 0 {
                // A folder with no file in it (or only folders) said nothing but "0 files imported" (the twelfth hostile round).
                context.stderr.write("Note: no file was found in what was given (\(parsed.positionals.map(Terminal.escaped).joined(separator: ", "))).\n")
            }
        }
        return summary.failed > 0 ? TriplineCLI.Exit.failure : TriplineCLI.Exit.success
    }

    /// The summary line's count of what was given: files imported, entries skipped and failed, each named for what it
    /// is ("4 files imported, 3 skipped, 0 failed"); a skipped entry (a link not followed, a file already imported) is
    /// neither a file imported nor a failure.
    static func summaryCounts(_ s: ImportSummary) -> String {
        "\(s.imported) file\(s.imported == 1 ? "" : "s") imported, \(s.skipped) skipped, \(s.failed) failed"
    }

    /// How many of a file's devices its line names (a file can name thousands).
    static let listedDevices = 10

    static func describe(_ file: FileSummary) -> String {
        switch file.status {
        // Paths, device names and messages come from files: control characters are shown, never sent raw.
        case .skipped: return "skipped   \(Terminal.escaped(file.path)): \(Terminal.escaped(file.message ?? "already imported"))"
        case .failed: return "failed    \(Terminal.escaped(file.path)): \(Terminal.escaped(file.message ?? ""))"
        case .imported:
            var text = "imported  \(Terminal.escaped(file.path)) [\(file.format ?? "?")]: \(file.pointsNew) new, \(file.pointsDuplicate) duplicate, \(file.rejected) rejected"
            if file.events > 0 { text += ", \(file.events) app events" }
            if !file.devices.isEmpty {
                text += "; " + file.devices.prefix(listedDevices).map { "device '\(Terminal.escaped($0.name))' (\(originText($0.origin)))" }
                    .joined(separator: ", ")
                if file.devices.count > listedDevices { text += " and \(file.devices.count - listedDevices) more devices (`tripline info`)" }
            }
            if let message = file.message { text += "; " + Terminal.escaped(message) }
            return text
        }
    }

    /// The first rejects of one import, one indented line each (where in the file, reason, why), and how to see
    /// the rest. The file's records are committed when this runs, so this is a courtesy listing: if reading it back
    /// fails, the summary line's count and `tripline info` still say how many were rejected, and nothing is lost.
    static func rejectLines(store: Store, importID: Int64, count: Int, limit: Int = 5) -> String {
        var text = ""
        var shown = 0
        let rejects = (try? store.rejects(importID: importID, limit: limit)) ?? []
        // Rejects that share a line (an Overland body posted on one line) are told apart by their byte.
        var perLine: [Int64: Int] = [:]
        for reject in rejects { if let line = reject.line { perLine[line, default: 0] += 1 } }
        for reject in rejects {
            let place = reject.line.map { perLine[$0, default: 0] > 1 ? "line \($0), byte \(reject.byteOffset)" : "line \($0)" }
                ?? "byte \(reject.byteOffset)"
            text += "          rejected \(place): \(reject.reason): \(Terminal.escaped(reject.detail))\n"
            shown += 1
        }
        if count > shown {
            text += "          … and \(count - shown) more: SELECT * FROM rejects WHERE import_id = \(importID)\n"  // not a read: a hint
        }
        return text
    }

    static func originText(_ origin: DeviceOrigin) -> String {
        switch origin {
        case .deviceID: return "from device_id"
        case .deviceOption: return "from --device"
        case .folder: return "from the folder name; the data carries no device"
        case .subfolder: return "from the name of the folder holding the file; the data carries no device"
        case .file: return "from the file name; the data carries no device"
        case .stdin: return "named 'stdin'; pass --device"
        case .path: return "from the rec/<user>/<device> path"
        case .archive: return "from the archive's name; the data carries no device"
        case .folderOfTheFile: return "from the name of the file's folder; GPX carries no device"
        case .geoLifeUserFolder: return "from the GeoLife user folder (<user>/Trajectory/)"
        case .topic: return "from the topic"
        case .tid: return "from the tracker id (tid)"
        case .usernameDevice: return "from username/device"
        case .googleDefault, .googleDeviceTag, .simulator, .synthetic, .benchmark, .other: return "from \(origin)"
        }
    }

    static func jsonSummary(_ s: ImportSummary) -> String {
        let files = s.files.map { f -> String in
            var fields = [
                "\"path\":\(JSONText.quotedForTerminal(f.path))", "\"status\":\(JSONText.quotedForTerminal(f.status.rawValue))",
                "\"format\":\(f.format.map(JSONText.quoted) ?? "null")", "\"import_id\":\(f.importID.map { String($0) } ?? "null")",
                "\"points_new\":\(f.pointsNew)", "\"points_duplicate\":\(f.pointsDuplicate)", "\"rejected\":\(f.rejected)",
                "\"events\":\(f.events)",
            ]
            let devices = f.devices.map {
                "{\"name\":\(JSONText.quotedForTerminal($0.name)),\"origin\":\(JSONText.quotedForTerminal($0.origin.rawValue))}"
            }
            fields.append("\"devices\":[" + devices.joined(separator: ",") + "]")
            fields.append("\"message\":\(f.message.map(JSONText.quoted) ?? "null")")
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{\"files\":[" + files.joined(separator: ",") + "],\"points_new\":\(s.pointsNew),\"points_duplicate\":\(s.pointsDuplicate),"
            + "\"rejected\":\(s.rejected),\"events\":\(s.events),\"imported\":\(s.imported),\"skipped\":\(s.skipped),\"failed\":\(s.failed),\"seconds\":\(Double(Int(s.seconds * 1000)) / 1000)}"
    }
}

func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

func formatSeconds(_ s: Double) -> String {
    let tenths = Int(s * 10)
    return "\(tenths / 10).\(tenths % 10) s"
}
