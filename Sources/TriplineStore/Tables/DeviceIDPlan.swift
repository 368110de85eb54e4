import TriplineCore

/// The ids a shard's import gives the devices it creates (docs/SCALING.md, "Device ids").
///
/// A single-machine import numbers devices 1, 2, 3, … in the order it first meets them. A shard imports only part
/// of the input, so its own numbering would start at 1 again: ids would collide between shards (and the point keys,
/// `device_id << 42 | time_ms`, with them; the stable ids of stays, visits, trips and places, ``StableID``, mix the
/// device's name, not its id, and do not depend on it). The plan
/// (`tripline plan`) therefore fixes the ids: each device unit gets the id a single-machine import of the same paths
/// gives it when every unit is one device (its rank in the walk), and a device beyond that (a folder holding two
/// phones) takes an id from the shard's own overflow range, which no other shard uses.
public final class DeviceIDPlan {
    /// Ids for the next new devices, in order (consumed one per new device).
    public var planned: [Int64]
    /// The next id of the overflow range, and its end (exclusive).
    public private(set) var overflowNext: Int64
    public let overflowEnd: Int64

    public init(planned: [Int64] = [], overflow: Range<Int64>) {
        self.planned = planned
        overflowNext = overflow.lowerBound
        overflowEnd = overflow.upperBound
    }

    /// The id for the next new device: the first planned id not yet taken, else the next free overflow id.
    /// - Throws: ``ShardError/deviceIDsExhausted(first:end:)`` when the overflow range is used up.
    func next(taken: (Int64) throws -> Bool) throws -> Int64 {
        while !planned.isEmpty {
            let id = planned.removeFirst()
            if try !taken(id) { return id }
        }
        while overflowNext < overflowEnd {
            let id = overflowNext
            overflowNext += 1
            if try !taken(id) { return id }
        }
        throw ShardError.deviceIDsExhausted(end: overflowEnd)
    }
}

/// What stops a plan, a shard import or a merge (docs/SCALING.md).
public enum ShardError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A shard created more devices than the plan reserved ids for.
    case deviceIDsExhausted(end: Int64)
    /// A shard database that is no Tripline database of this schema version.
    case schemaMismatch(shard: String, found: Int, expected: Int)
    /// Two shards hold the same device.
    case duplicateDevice(name: String, shard: String, mergedFrom: String)
    /// One device id names two different devices (shards not made from one plan).
    case deviceIDClash(id: Int64, name: String, other: String, shard: String)
    /// A shard merged before whose content has changed since.
    case changedShard(shard: String, mergedFrom: String)
    /// The study database given as a shard.
    case sameFile(path: String)
    /// The shard's setting (the `--timezone` of its rebuild) differs from the study's.
    case settingConflict(shard: String, key: String, value: String, study: String)
    /// `import --plan` into a database that records another plan or another shard.
    case otherPlan(database: String, recorded: String, given: String)
    /// A shard whose `import --plan` did not go through every planned file: how many were not reached, the first.
    case incompleteImport(shard: String, record: String, missing: Int, planned: Int, first: String)
    /// A shard device whose results are not up to date (points or app events imported since its last rebuild, or
    /// results of another algorithm version).
    case notRebuilt(shard: String, device: String, why: String, others: Int)
    /// Two shards (or a shard and the study's earlier merges) of different plans, or a shard not of the `--plan`
    /// given.
    case planMismatch(shard: String, found: String, expected: String)
    /// `merge --plan`: shards of the plan that are not in the study after the merge.
    case missingShards(study: String, plan: String, shards: [Int], total: Int)
    /// Two shards rebuilt with different pass parameters (`--set`, `--config`): the keys that differ.
    case parametersDiffer(shard: String, other: String, keys: [String])

    public var description: String {
        switch self {
        case .deviceIDsExhausted(let end):
            return "this shard made more devices than the plan reserved ids for (ids up to \(end - 1)); plan with more shards, or import these files on one machine"
        case .schemaMismatch(let shard, let found, let expected):
            return "\(shard): schema version \(found), but this Tripline writes version \(expected); import and rebuild every shard with the same Tripline"
        case .duplicateDevice(let name, let shard, let from):
            return "\(shard): device '\(name)' is already in the study, merged from \(from); a device must be in one shard only (plan again: `tripline plan` never splits a device, but a device named inside its files in two folders is two units)"
        case .deviceIDClash(let id, let name, let other, let shard):
            return "\(shard): device id \(id) is '\(name)' there but '\(other)' in the study; merge only shards imported with `--plan` from one plan"
        case .changedShard(let shard, let from):
            return "\(shard): its devices were merged before from \(from), and the shard has changed since; merge every shard into a new study database"
        case .sameFile(let path):
            return "\(path) is the study database itself, not a shard"
        case .settingConflict(let shard, let key, let value, let study):
            // `study` is the study's value, or (quoted, with where it is) another shard's or the study's devices'.
            let other = study.hasPrefix("'") ? study : "'\(study)' in the study"
            return "\(shard): setting '\(key)' is '\(value)' there but \(other); rebuild every shard with the same --timezone "
                + "('position': zones by position)"
        case .otherPlan(let database, let recorded, let given):
            return "\(database) holds \(recorded), not \(given); import each shard of a plan into its own database"
        case .incompleteImport(let shard, let record, let missing, let planned, let first):
            return "\(shard): its import of \(record) did not finish: \(missing) of its \(planned) planned files not read, the first "
                + "\(first); run `tripline import --plan PLAN --shard K --db \(shard)` again (it completes the shard), then `rebuild` it"
        case .notRebuilt(let shard, let device, let why, let others):
            return "\(shard): device '\(device)' \(why)" + (others > 0 ? " (and \(others) more devices)" : "")
                + "; run `tripline rebuild --db \(shard)` (with the study's --timezone) before merging it"
        case .planMismatch(let shard, let found, let expected):
            return "\(shard): \(found), but \(expected); merge the shards of one plan into one study"
        case .parametersDiffer(let shard, let other, let keys):
            let shown = keys.prefix(5).joined(separator: ", ") + (keys.count > 5 ? " and \(keys.count - 5) more" : "")
            return "\(shard): rebuilt with other pass parameters than \(other) (\(shown)); a study is one rule set: rebuild "
                + "every shard with the same --set and --config, then merge"
        case .missingShards(let study, let plan, let shards, let total):
            return "\(study) lacks \(shards.count) of the \(total) shards of plan \(plan): shard"
                + (shards.count == 1 ? " " : "s ") + shards.map(String.init).joined(separator: ", ")
                + "; merge them into it (the shards merged stay merged)"
        }
    }
}
