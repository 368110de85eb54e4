import TriplineCore
import TriplineImport
import TriplinePasses
import TriplineStore

/// `tripline merge`: fold shard databases into one study database (docs/SCALING.md).
enum MergeCommand {
    static var spec: CommandSpec { CommandSpec(
        name: "merge",
        abstract: "Merge shard databases (import --plan … --shard K, then rebuild) into one study database.",
        discussion: """
            Copies each shard's devices, imports, rejects, app events, points and flags and every rebuilt table, keeping
            device, stay, visit, trip and place ids, so the merged devices are up to date and reports, exports and the
            map run across the study. One transaction per shard: a kill leaves the study as it was before that shard.
            A shard merged before is recognised and changes nothing. Refused before anything is written, naming the
            shard: a shard whose import --plan did not read every planned file, a device not rebuilt since its last
            import, shards of different plans, a device the study already has, another schema version, another
            --timezone. --plan checks the shards are the plan's and, after merging, that the study holds every shard
            of it (exit 1 naming the missing ones; run again with them to complete the study). --results-only leaves
            the points and their flags in the shards (for studies whose points do not fit one file).
            """,
        arguments: [ArgumentSpec("shard", variadic: true, help: "Shard databases, merged in the order given.")],
        options: [
            CommonOptions.db,
            OptionSpec("plan", value: "FILE", help: "The plan the shards were imported from: after merging, every shard of it must be in the study."),
            OptionSpec("results-only", help: "Leave out points and point flags; merge everything else."),
            CommonOptions.quiet,
        ],
        run: run)
    }

    static func run(_ parsed: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let path = CommonOptions.databasePath(parsed, context)
        // Every shard checked before the study is opened: opening it creates it, so `merge --db new.sqlite
        // new.sqlite` (or a missing shard) left an empty new.sqlite behind its refusal.
        for shard in parsed.positionals {
            if OutputFiles.sameFile(shard, path) { throw ShardError.sameFile(path: shard) }
            guard FileSystem.kind(shard) == .file else { throw FileError(path: shard, reason: FileSystem.statFailure(shard) ?? "not a file") }
        }
        // Each shard's plan record, import and rebuild checked before anything is written (docs/SCALING.md).
        let plan = try parsed.value("plan").map { try ShardPlan.read($0) }
        let expected = plan.map { ShardMerge.ExpectedPlan(digest: $0.digest, shards: $0.shards.count) }
        _ = try ShardMerge.check(shards: parsed.positionals, algorithmVersion: Rebuild.algorithmVersion, plan: expected)
        let store = try Store(path: path, requireWritable: true)
        let resultsOnly = parsed.flag("results-only")
        for shard in parsed.positionals {
            let s = try ShardMerge.merge(shard: shard, into: store, resultsOnly: resultsOnly)
            guard !parsed.flag("quiet") else { continue }
            let name = Terminal.escaped(shard)
            if s.alreadyMerged {
                context.stdout.write("\(name): merged before; nothing to do\n")
            } else {
                var line = "merged \(name): \(s.devices) devices, \(s.imports) imports, "
                line += resultsOnly ? "points left in the shard, " : "\(s.points) points, "
                line += "\(s.stays) stays, \(s.trips) trips, \(s.places) places"
                if s.movedIDs > 0 { line += "; \(s.movedIDs) stable ids taken by other devices moved to the next free id" }
                context.stdout.write(line + "\n")
            }
        }
        if let expected {
            let missing = try ShardMerge.missingShards(of: expected, in: store)
            if !missing.isEmpty {
                throw ShardError.missingShards(study: store.path, plan: expected.digest, shards: missing, total: expected.shards)
            }
            if !parsed.flag("quiet") { context.stdout.write("the study holds all \(expected.shards) shards of plan \(expected.digest)\n") }
        }
        return TriplineCLI.Exit.success
    }
}
