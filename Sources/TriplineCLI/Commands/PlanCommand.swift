#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import TriplineCore
import TriplineImport

/// `tripline plan`: split the input into N shards for a batch system (docs/SCALING.md).
enum PlanCommand {
    static var spec: CommandSpec { CommandSpec(
        name: "plan",
        abstract: "Split folders of archives into N shards, balanced by bytes, never splitting a device (for Slurm, Kubernetes, batch).",
        discussion: """
            Walks the paths as 'import' does and groups the files into units: one per device (--by device: the files
            whose device name, by import's folder rule, is the same) or one per entry directly under a folder given
            (--by folder: a participant's folder; entries that share a device name stay together). Units go to the
            shard with the fewest bytes so far, largest first. The plan is a JSON file (docs/SCALING.md): give it to
            'tripline import --plan plan.json --shard K --db shard-K.sqlite' on each machine, rebuild each shard, then
            'tripline merge'. The same paths and files give a byte-identical plan.
            """,
        arguments: [ArgumentSpec("path", variadic: true, help: "Folders or files to plan, as 'import' would be given them.")],
        options: [
            OptionSpec("shards", value: "N", help: "How many shards (1 … 100000)."),
            OptionSpec("by", value: "UNIT", help: "device (default) or folder."),
            OptionSpec("out", short: "o", value: "FILE", help: "Where to write the plan (default: standard output)."),
            CommonOptions.quiet,
        ],
        run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let text = parsed.value("shards") else { throw UsageError("Missing '--shards <N>'", command: "plan") }
        guard let shards = Int(text), (1...100_000).contains(shards) else {
            throw UsageError("--shards wants a whole number from 1 to 100000, not '\(text)'", command: "plan")
        }
        let byText = parsed.value("by") ?? "device"
        guard let by = ShardPlan.By(rawValue: byText) else {
            throw UsageError("--by wants device or folder, not '\(byText)'", command: "plan")
        }
        if parsed.positionals.contains("-") {
            throw UsageError("'-': standard input cannot be split into shards; name files or folders", command: "plan")
        }
        let result = try Importer.plan(paths: parsed.positionals, shards: shards, by: by)
        for problem in result.problems {
            let word = problem.status == .failed ? "Error" : "skipped"
            context.stderr.write("\(word): \(Terminal.escaped(problem.path)): \(Terminal.escaped(problem.message ?? ""))\n")
        }
        if let out = parsed.value("out"), out != "-", !out.isEmpty {
            do {
                let files = parsed.positionals + result.plan.units.flatMap(\.files)
                try OutputFiles.checkNotInput(out, inputs: files, role: "it plans")
            } catch let error as FileError {
                throw UsageError(Terminal.escaped(error.description), command: "plan")
            }
            // `plan -o tripline.sqlite` (or a shard's database) replaced the database with the plan's JSON: plan has
            // no database of its own, so it refuses the one the other commands would use and any SQLite file.
            try CommonOptions.checkOutput(out, database: CommonOptions.databasePath(parsed, context), command: "plan")
            if isSQLiteFile(out) {
                throw UsageError(
                    "\(Terminal.escaped(out)): is a SQLite database; refusing to replace it with a plan: choose another output path", command: "plan")
            }
        }
        let destination = try ExportDestination(path: parsed.value("out"), stdout: context.stdout)
        do {
            try destination.writer.append(raw: try result.plan.json())
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
        if !parsed.flag("quiet"), let out = parsed.value("out"), out != "-" {
            let files = result.plan.units.reduce(0) { $0 + $1.files.count }
            let sizes = result.plan.shards.map(\.bytes)
            context.stdout.write(
                "\(result.plan.units.count) units (\(files) files) in \(shards) shards, \(sizes.min() ?? 0)–\(sizes.max() ?? 0) bytes each; wrote \(Terminal.escaped(out))\n")
        }
        let failed = result.problems.contains { $0.status == .failed }
        return failed ? TriplineCLI.Exit.failure : TriplineCLI.Exit.success
    }

    /// Whether `path` is a regular file that starts with SQLite's header (`SQLite format 3` and a NUL).
    static func isSQLiteFile(_ path: String) -> Bool {
        guard FileSystem.kind(path) == .file else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        return n == 16 && head == Array("SQLite format 3\u{0}".utf8)
    }

    /// `import`'s `--plan FILE --shard K`: the plan and shard, or nil for a plain import (checked against paths).
    static func shardArgument(_ parsed: ParsedArguments) throws -> (plan: ShardPlan, shard: Int)? {
        guard let path = parsed.value("plan") else {
            if parsed.value("shard") != nil { throw UsageError("--shard needs --plan <FILE>", command: "import") }
            if parsed.positionals.isEmpty { throw UsageError("Missing expected argument '<path>'", command: "import") }
            return nil
        }
        guard parsed.positionals.isEmpty else {
            throw UsageError("--plan imports the plan's own paths; give no paths with it", command: "import")
        }
        if parsed.value("device") != nil {
            throw UsageError("--device cannot be given with --plan: the plan fixes every file's device", command: "import")
        }
        guard let text = parsed.value("shard") else { throw UsageError("--plan needs --shard <K>", command: "import") }
        let plan = try ShardPlan.read(path)
        guard let k = Int(text), (0..<plan.shards.count).contains(k) else {
            throw UsageError("--shard wants a shard of \(path), 0 to \(plan.shards.count - 1), not '\(text)'", command: "import")
        }
        return (plan, k)
    }
}
