import TriplineCore

// What `import --plan plan.json --shard K` records in the shard's `settings` (docs/SCALING.md, "The merge"): the plan
// and shard it came from and whether its import went through every planned file. `merge` reads it to refuse a
// shard that is incomplete or of another plan. No schema change: `settings` is the database's key/value table.

/// A shard database's record of its plan (`settings` keys `plan.*`).
public struct ShardPlanRecord: Sendable, Equatable {
    /// The plan file's digest (``ShardPlanRecord/digest(_:)`` of its bytes).
    public var digest: String
    /// This shard's number, from 0, and the plan's shard count.
    public var shard: Int
    public var shards: Int
    /// The shard's planned files, in the order the import reads them (its units in plan order, each unit's files
    /// in walk order).
    public var files: [String]
    /// The import went through every planned file (each imported, skipped or recorded `failed`); written when an
    /// `import --plan` run ends with no planned file missing, and never taken back.
    public var complete: Bool

    public init(digest: String, shard: Int, shards: Int, files: [String], complete: Bool = false) {
        self.digest = digest
        self.shard = shard
        self.shards = shards
        self.files = files
        self.complete = complete
    }

    /// The `settings` keys of the record. `merge` copies none of them into the study (its `merge.shard.*` records
    /// say which plan and shard each merged database was).
    public static let keys = ["plan.digest", "plan.shard", "plan.shards", "plan.files", "plan.complete"]

    /// The digest of a plan file's bytes: 64-bit FNV-1a, 16 hex digits (it tells plans apart; not cryptographic).
    public static func digest(_ bytes: [UInt8]) -> String { FNV1a.hex(bytes) }

    /// "shard K of plan D (N shards)", for messages.
    public var described: String { "shard \(shard) of plan \(digest) (\(shards) shards)" }

    /// The record in `schema`'s `settings` (`main`, or an attached shard); nil when it has none (a database not
    /// imported with `--plan`, or by a Tripline before the record).
    public static func read(_ db: Database, schema: String = "main") throws -> ShardPlanRecord? {
        func value(_ key: String) throws -> String? {
            try db.scalarText("SELECT value FROM \(schema).settings WHERE key = ?", [.text(key)])
        }
        guard let digest = try value("plan.digest"), let shard = try value("plan.shard").flatMap({ Int($0) }),
              let shards = try value("plan.shards").flatMap({ Int($0) }) else { return nil }
        var files: [String] = []
        if let list = try value("plan.files") {
            let q = try db.prepare("SELECT value FROM json_each(?) ORDER BY key")
            try q.bind([.text(list)])
            while try q.step() { files.append(q.text(0) ?? "") }
        }
        return ShardPlanRecord(digest: digest, shard: shard, shards: shards, files: files, complete: try value("plan.complete") == digest)
    }

    /// Records `self` (not yet complete) in `store`, in one transaction; a database holding another plan's or
    /// another shard's record is refused (``ShardError/otherPlan(database:recorded:given:)``). A record of the same
    /// shard keeps its `complete`.
    public func begin(in store: Store) throws {
        try store.db.transaction {
            if let old = try Self.read(store.db), old.digest != digest || old.shard != shard || old.shards != shards {
                throw ShardError.otherPlan(database: store.path, recorded: old.described, given: described)
            }
            try store.setSetting("plan.digest", digest)
            try store.setSetting("plan.shard", String(shard))
            try store.setSetting("plan.shards", String(shards))
            try store.setSetting("plan.files", "[" + files.map(JSONText.quoted).joined(separator: ",") + "]")
        }
    }

    /// Marks the import complete: every planned file was read.
    public func markComplete(in store: Store) throws {
        try store.setSetting("plan.complete", digest)
    }
}
