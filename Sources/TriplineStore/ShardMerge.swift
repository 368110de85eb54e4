@preconcurrency import Glibc
import TriplineCore

/// `tripline merge`: folds shard databases (`import --plan … --shard K`, then `rebuild`) into one study database
/// (docs/SCALING.md). Every SQL statement of the merge is here.
///
/// Per shard, one transaction: its devices, imports, rejects, app events, points and flags (not with
/// `resultsOnly`), settings, and every rebuilt table (`stays`, `visits`, `places`, `trips`, `legs`, `days`,
/// `app_trip_matches`, `pass_runs`, `place_edits`, `rebuild_state`), and the remembered `privacy_zones`. A kill leaves the study as it was before that
/// shard; merging again completes it.
///
/// Ids:
/// - Device ids are kept: the plan gave every shard its own (``DeviceIDPlan``). A device already in the study
///   (by name) or an id naming another device there stops the merge, before anything is written.
/// - Stay, visit, trip and place ids are kept: ``StableID`` mixes the device's name (unique in the study) and the
///   start, so two shards' ids differ unless their 53-bit mixes collide; a colliding row takes the next free id, as a rebuild on one
///   machine does, and the rows referring to it follow (``MergeSummary/movedIDs``).
/// - Import, reject, app event, pass run and place edit ids are numbered on after the study's own (the shard's
///   order kept), so `rebuild_state.last_import_id` still marks what each device's results have seen: a merged
///   device is up to date.
///
/// Checked first, every shard before the study is opened (``check(shards:algorithmVersion:plan:)``): a shard whose
/// `import --plan` did not read every planned file (``ShardPlanRecord``), a device not up to date, shards of two plans.
///
/// Idempotent: a digest of the shard (devices, imports, rebuild state, row counts) is kept in `settings` as
/// `merge.shard.<digest>`; merging the same shard again does nothing.
public enum ShardMerge {
    /// The tables a merge copies, in order (docs/SCALING.md). A test keeps it equal to the schema's tables.
    public static let tables = [
        "devices", "settings", "imports", "rejects", "app_events", "points_hot", "point_flags", "places", "stays", "visits",
        "trips", "legs", "days", "app_trip_matches", "pass_runs", "place_edits", "rebuild_state", "privacy_zones",
    ]

    /// What merging one shard did.
    public struct MergeSummary: Sendable, Equatable {
        public var shard: String
        /// Merged before (same digest): nothing done.
        public var alreadyMerged = false
        public var devices = 0
        public var imports = 0
        public var points = 0
        public var stays = 0
        public var trips = 0
        public var places = 0
        /// Stays, trips and places whose stable id was taken in the study by another device (a 53-bit collision)
        /// and that took the next free id.
        public var movedIDs = 0
    }

    /// Merges the shard database at `shard` into `store`.
    /// - Parameter resultsOnly: leave out `points_hot` and `point_flags` (studies whose points do not fit one file).
    /// - Throws: ``ShardError`` (another schema version, a device already in the study, clashing device ids or
    ///   settings, the study itself); ``DatabaseError`` naming the file when it is no SQLite database.
    public static func merge(shard: String, into store: Store, resultsOnly: Bool) throws -> MergeSummary {
        // The checks of ``check(shards:algorithmVersion:plan:)`` come first (`tripline merge` runs them on every shard
        // before opening the study); this merges one shard.
        let db = store.db
        if let a = realPath(shard), let b = realPath(store.path), a == b { throw ShardError.sameFile(path: shard) }
        guard FileSystem.kind(shard) == .file else { throw FileError(path: shard, reason: FileSystem.statFailure(shard) ?? "not a file") }
        try attach(db, shard, expected: Int(try db.scalarInt("PRAGMA main.user_version") ?? 0))
        defer { try? db.execute("DETACH DATABASE shard") }
        let plan = try ShardPlanRecord.read(db, schema: "shard")

        var summary = MergeSummary(shard: shard)
        let digest = try self.digest(db, resultsOnly: resultsOnly)
        return try db.transaction {
            if try db.scalarText("SELECT value FROM main.settings WHERE key = ?", [.text("merge.shard." + digest)]) != nil {
                summary.alreadyMerged = true
                return summary
            }
            try checkStudyPlan(db, shard: shard, plan: plan)
            try checkDevices(db, shard: shard)
            try checkRules(db, shard: shard)
            if let clash = try row(db, """
                SELECT s.value, m.value FROM shard.settings s JOIN main.settings m ON m.key = s.key
                WHERE s.key = 'timezone' AND s.value != m.value
                """) {
                throw ShardError.settingConflict(shard: shard, key: "timezone", value: clash[0], study: clash[1])
            }
            try mapCollisions(db, &summary)
            func next(_ table: String) throws -> Int64 { try db.scalarInt("SELECT coalesce(max(id), 0) FROM main.\(table)") ?? 0 }
            let (io, ro, eo, po, edo) = (try next("imports"), try next("rejects"), try next("app_events"), try next("pass_runs"), try next("place_edits"))
            let zo = try next("privacy_zones")
            let stay = mapped("stay"), trip = mapped("trip"), place = mapped("place")
            summary.devices = try copy(db, "devices", [:])
            // Not the shard's merge records nor its plan record (``ShardPlanRecord``): the study's own say what it merged.
            try db.execute("""
                INSERT OR IGNORE INTO main.settings(key, value) SELECT key, value FROM shard.settings
                WHERE key NOT LIKE 'merge.%' AND key NOT LIKE 'plan.%'
                """)
            summary.imports = try copy(db, "imports", ["id": "s.id + \(io)"])
            _ = try copy(db, "rejects", ["id": "s.id + \(ro)", "import_id": "s.import_id + \(io)"])
            _ = try copy(db, "app_events", ["id": "s.id + \(eo)", "import_id": "s.import_id + \(io)"])
            if !resultsOnly {
                summary.points = try copy(db, "points_hot", ["import_id": "s.import_id + \(io)"], order: "s.key")
                _ = try copy(db, "point_flags", [:])
            } else {
                // The study holds no points to recompute from: `rebuild` and place edits refuse (``Store/holdsResultsOnly()``).
                try db.run("INSERT OR REPLACE INTO main.settings(key, value) VALUES ('results_only', '1')")
            }
            summary.places = try copy(db, "places", ["id": place("s.id")])
            summary.stays = try copy(db, "stays", ["id": stay("s.id")])
            _ = try copy(db, "visits", ["id": stay("s.id"), "place_id": place("s.place_id")])
            summary.trips = try copy(db, "trips", [
                "id": trip("s.id"), "from_visit_id": stay("s.from_visit_id"), "to_visit_id": stay("s.to_visit_id"),
                "from_place_id": place("s.from_place_id"), "to_place_id": place("s.to_place_id"),
            ])
            _ = try copy(db, "legs", ["trip_id": trip("s.trip_id")])
            _ = try copy(db, "days", [:])
            _ = try copy(db, "app_trip_matches", ["event_id": "s.event_id + \(eo)", "trip_id": trip("s.trip_id")])
            _ = try copy(db, "pass_runs", ["id": "s.id + \(po)"])
            _ = try copy(db, "place_edits", ["id": "s.id + \(edo)"])
            _ = try copy(db, "rebuild_state", ["last_import_id": "s.last_import_id + \(io)"])
            // A shard's remembered privacy zones hold for the study too (their centres are copied, not looked up).
            _ = try copy(db, "privacy_zones", ["id": "s.id + \(zo)", "place_id": place("s.place_id")])
            let ids = try column(db, "SELECT id FROM shard.devices ORDER BY id").joined(separator: ",")
            // The shard's path, its device ids and, for a shard of a plan, "<plan digest> <K> <N>" (`merge --plan`).
            let planLine = plan.map { "\n\($0.digest) \($0.shard) \($0.shards)" } ?? ""
            try db.run("INSERT INTO main.settings(key, value) VALUES (?, ?)", [.text("merge.shard." + digest), .text(shard + "\n" + ids + planLine)])
            for kind in ["stay", "trip", "place"] { try db.execute("DROP TABLE temp.merge_\(kind)") }
            PausePoint.reach("merge.\(FileSystem.baseName(shard)).written")
            return summary
        }
    }

    /// Attaches `shard` as schema `shard` of `db` (read only by the merge), refusing a file that is no SQLite
    /// database or is of another schema version than `expected`; detached again when refused.
    static func attach(_ db: Database, _ shard: String, expected: Int) throws {
        let found: Int
        do {
            // The file's own name as a URI of Tripline's making (``Database/fileURI(_:)``): SQLite built with
            // SQLITE_USE_URI reads a name starting `file:` as a URI, so `file:x.sqlite?mode=ro` attached `x.sqlite`.
            try db.run("ATTACH DATABASE ? AS shard", [.text(Database.fileURI(shard))])
            found = Int(try db.scalarInt("PRAGMA shard.user_version") ?? 0)
        } catch let error as DatabaseError {
            try? db.execute("DETACH DATABASE shard")
            throw FileError(path: shard, reason: "not a Tripline database: \(error.message)")
        }
        guard found == expected else {
            try? db.execute("DETACH DATABASE shard")
            throw ShardError.schemaMismatch(shard: shard, found: found, expected: expected)
        }
    }

    /// What a plan says of the shards a merge is given (`merge --plan`): its digest and shard count.
    public struct ExpectedPlan: Sendable {
        public var digest: String
        public var shards: Int
        public init(digest: String, shards: Int) {
            self.digest = digest
            self.shards = shards
        }
    }

    /// Checks every shard before anything is written (`tripline merge` runs it before opening the study), in the
    /// order given, and refuses, naming the shard file:
    /// - a file that is no Tripline database or of another schema version;
    /// - a shard whose `import --plan` did not go through every planned file (its ``ShardPlanRecord`` not complete);
    /// - a device whose results are not up to date: never rebuilt, points or app events imported since its last
    ///   rebuild (as `tripline info` counts them waiting), or rebuilt by another `algorithmVersion`;
    /// - a shard of another plan than the shards before it, or than `plan` when given (a shard with no plan record
    ///   too, then).
    /// Returns each shard's plan record (nil: the database was not imported with `--plan`).
    public static func check(shards: [String], algorithmVersion: Int, plan: ExpectedPlan?) throws -> [ShardPlanRecord?] {
        let db = try Database(path: ":memory:")
        var records: [ShardPlanRecord?] = []
        var first: (shard: String, record: ShardPlanRecord)? = nil
        var seen: (shard: String, parameters: String?, zone: String?)? = nil
        for shard in shards {
            try attach(db, shard, expected: Schema.currentVersion)
            defer { try? db.execute("DETACH DATABASE shard") }
            let record = try ShardPlanRecord.read(db, schema: "shard")
            if let plan {
                guard let record else {
                    throw ShardError.planMismatch(shard: shard, found: "it was not imported with `import --plan`",
                                                  expected: "the merge was given plan \(plan.digest)")
                }
                guard record.digest == plan.digest, record.shards == plan.shards else {
                    let given = "the merge was given plan \(plan.digest) (\(plan.shards) shards)"
                    throw ShardError.planMismatch(shard: shard, found: "it holds \(record.described)", expected: given)
                }
            }
            if let record {
                if let first, first.record.digest != record.digest {
                    throw ShardError.planMismatch(shard: shard, found: "it holds \(record.described)",
                                                  expected: "\(first.shard) holds \(first.record.described)")
                }
                if first == nil { first = (shard, record) }
                if !record.complete { throw try incomplete(db, shard: shard, record: record) }
            }
            try checkRebuilt(db, shard: shard, algorithmVersion: algorithmVersion)
            // One rule set: every device of every shard rebuilt with the same pass parameters and zone rule (the twelfth
            // and thirteenth hostile rounds: shards of different `--set`s, or by position beside `--timezone UTC`,
            // merged without a word).
            let theirs = try rules(db, "shard")
            let reference = seen ?? (shard, theirs.parameters.first, theirs.zones.first)
            try checkSameRules(theirs, shard: shard, as: (reference.parameters, reference.zone), of: reference.shard,
                               quoted: "'\(reference.zone ?? "")' in \(reference.shard)")
            seen = (reference.shard, reference.parameters ?? theirs.parameters.first, reference.zone ?? theirs.zones.first)
            records.append(record)
        }
        return records
    }

    /// The refusal of a shard whose import did not finish: the planned files not reached, in the order the import
    /// reads them (after the last planned file that has a row in `imports`: files passed over, such as a README or a
    /// copy of another file, leave none, so those just before a kill count as not reached; re-running is harmless).
    static func incomplete(_ db: Database, shard: String, record: ShardPlanRecord) throws -> ShardError {
        let imported = Set(try column(db, "SELECT path FROM shard.imports"))
        let reached = (record.files.lastIndex { imported.contains($0) } ?? -1) + 1
        let first = reached < record.files.count ? "'" + Terminal.escaped(record.files[reached]) + "'" : "unknown"
        return ShardError.incompleteImport(shard: shard, record: record.described, missing: record.files.count - reached,
                                           planned: record.files.count, first: first)
    }

    /// Refuses a shard with a device that is not up to date (``check(shards:algorithmVersion:plan:)``). Reads
    /// `imports` after each device's last rebuilt import, and its points only after a file of several devices.
    static func checkRebuilt(_ db: Database, shard: String, algorithmVersion: Int) throws {
        var stale: [(name: String, why: String)] = []
        let devices = try db.prepare("""
            SELECT d.id, d.name, r.device_id IS NOT NULL, coalesce(r.last_import_id, -1), r.algorithm_version
            FROM shard.devices d LEFT JOIN shard.rebuild_state r ON r.device_id = d.id ORDER BY d.name
            """)
        while try devices.step() {
            let (id, name, rebuilt, last) = (devices.int64(0), devices.text(1) ?? "", devices.int(2) != 0, devices.int64(3))
            if rebuilt, let version = devices.optionalInt64(4), version != Int64(algorithmVersion) {
                stale.append((name, "was rebuilt by algorithm version \(version), this Tripline's is \(algorithmVersion)"))
                continue
            }
            // Files after its last rebuilt import that added points: one of this device alone means waiting; files of
            // several devices (no `imports.device_id`) need one look at its points from the earliest one's first on.
            let imports = try db.prepare("""
                SELECT coalesce(max(device_id IS NOT NULL), 0), min(CASE WHEN device_id IS NULL THEN coalesce(first_ms, 0) END)
                FROM shard.imports WHERE id > ? AND status = 'done' AND points_new > 0 AND (device_id = ? OR device_id IS NULL)
                """)
            try imports.bind([.integer(last), .integer(id)])
            var waiting = false
            if try imports.step() {
                if imports.int(0) != 0 {
                    waiting = true
                } else if let from = imports.optionalInt64(1) {
                    let keys = PointKey.range(device: id, fromMs: from, throughMs: PointKey.maxTimeMs)
                    let sql = "SELECT 1 FROM shard.points_hot WHERE key BETWEEN ? AND ? AND import_id > ? LIMIT 1"
                    waiting = try db.scalarInt(sql, [.integer(keys.lower), .integer(keys.upper), .integer(last)]) != nil
                }
            }
            // App events a rebuild reads, as `tripline info` counts them waiting.
            waiting = try waiting || db.scalarInt("""
                SELECT 1 FROM shard.app_events e WHERE e.device_id = ? AND e.import_id > ? AND e.kind != 'waypoint'
                  AND coalesce(e.time_ms, e.start_ms) IS NOT NULL LIMIT 1
                """, [.integer(id), .integer(last)]) != nil
            if waiting {
                stale.append((name, rebuilt ? "has points or app events imported since its last rebuild" : "was never rebuilt"))
            }
        }
        if let firstStale = stale.first {
            throw ShardError.notRebuilt(shard: shard, device: Terminal.escaped(firstStale.name), why: firstStale.why, others: stale.count - 1)
        }
    }

    /// Refuses a shard of a plan other than the one the study's earlier merges came from.
    static func checkStudyPlan(_ db: Database, shard: String, plan: ShardPlanRecord?) throws {
        guard let plan else { return }
        for (path, digest, _, _) in try mergedShards(db) where digest != plan.digest {
            throw ShardError.planMismatch(shard: shard, found: "it holds \(plan.described)",
                                          expected: "the study holds shards of plan \(digest) (\(path) was merged)")
        }
    }

    /// The study's merged shards of a plan (`merge.shard.*` records): path, plan digest, shard and shard count.
    static func mergedShards(_ db: Database) throws -> [(path: String, digest: String, shard: Int, shards: Int)] {
        var out: [(String, String, Int, Int)] = []
        for value in try column(db, "SELECT value FROM main.settings WHERE key LIKE 'merge.shard.%' ORDER BY key") {
            let parts = value.split(separator: "\n", omittingEmptySubsequences: false)
            guard parts.count >= 3 else { continue }
            let plan = parts[2].split(separator: " ")
            guard plan.count == 3, let k = Int(plan[1]), let n = Int(plan[2]) else { continue }
            out.append((String(parts[0]), String(plan[0]), k, n))
        }
        return out
    }

    /// The shards 0 … N−1 of `plan` not merged into `store` (now or by an earlier merge), in order.
    public static func missingShards(of plan: ExpectedPlan, in store: Store) throws -> [Int] {
        let merged = Set(try mergedShards(store.db).filter { $0.digest == plan.digest }.map(\.shard))
        return (0..<plan.shards).filter { !merged.contains($0) }
    }

    /// Refuses a shard holding a device the study has (by name), or a device id the study gives another device.
    static func checkDevices(_ db: Database, shard: String) throws {
        if let dup = try row(db, "SELECT s.name, m.id FROM shard.devices s JOIN main.devices m ON m.name = s.name ORDER BY s.id LIMIT 1") {
            // Which earlier merge brought it: the same shard file changed since, or another shard.
            var from = "an import into the study itself"
            let q = try db.prepare("SELECT value FROM main.settings WHERE key LIKE 'merge.shard.%' ORDER BY key")
            while try q.step() {
                let parts = (q.text(0) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
                if parts.count >= 2, parts[1].split(separator: ",").contains(Substring(dup[1])) {
                    if parts[0] == shard { throw ShardError.changedShard(shard: shard, mergedFrom: String(parts[0])) }
                    from = String(parts[0])
                }
            }
            throw ShardError.duplicateDevice(name: dup[0], shard: shard, mergedFrom: from)
        }
        if let clash = try row(db, "SELECT s.id, s.name, m.name FROM shard.devices s JOIN main.devices m ON m.id = s.id ORDER BY s.id LIMIT 1") {
            throw ShardError.deviceIDClash(id: Int64(clash[0]) ?? 0, name: clash[1], other: clash[2], shard: shard)
        }
    }

    /// Fills `temp.merge_stay`, `merge_trip` and `merge_place` with the shard's ids already taken in the study and
    /// the next free id each takes instead.
    static func mapCollisions(_ db: Database, _ summary: inout MergeSummary) throws {
        for (kind, tables) in [("stay", ["stays", "visits"]), ("trip", ["trips"]), ("place", ["places"])] {
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS merge_\(kind)(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
            try db.execute("DELETE FROM temp.merge_\(kind)")
            // One primary-key lookup per shard row (not a scan of the study's ids for every shard).
            let taken = tables.map { "EXISTS (SELECT 1 FROM main.\($0) m WHERE m.id = s.id)" }.joined(separator: " OR ")
            let colliding = try column(db, "SELECT s.id FROM shard.\(tables[0]) s WHERE \(taken) ORDER BY s.id").compactMap { Int64($0) }
            let everywhere = tables.flatMap { ["main.\($0)", "shard.\($0)"] }
            for old in colliding {
                var id = old
                while true {
                    id = id == (1 << 53) - 1 ? 1 : id + 1
                    let used = try everywhere.contains { try db.scalarInt("SELECT 1 FROM \($0) WHERE id = ?", [.integer(id)]) != nil }
                        || db.scalarInt("SELECT 1 FROM temp.merge_\(kind) WHERE new = ?", [.integer(id)]) != nil
                    if !used { break }
                }
                try db.run("INSERT INTO temp.merge_\(kind)(old, new) VALUES (?, ?)", [.integer(old), .integer(id)])
                summary.movedIDs += 1
            }
        }
    }

    /// An SQL expression: `column`'s id, moved when it collided (``mapCollisions(_:_:)``).
    static func mapped(_ kind: String) -> (String) -> String {
        { column in "coalesce((SELECT new FROM temp.merge_\(kind) WHERE old = \(column)), \(column))" }
    }

    /// Copies every row of `shard.table` into `main.table`, column by column (the study's columns, by name), with
    /// `overrides` giving an expression over the shard's row `s` for some columns. Returns the rows copied.
    static func copy(_ db: Database, _ table: String, _ overrides: [String: String], order: String? = nil) throws -> Int {
        let columns = try column(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
        let select = columns.map { overrides[$0] ?? "s.\($0)" }.joined(separator: ", ")
        try db.execute("INSERT INTO main.\(table)(\(columns.joined(separator: ", "))) SELECT \(select) FROM shard.\(table) AS s"
            + (order.map { " ORDER BY \($0)" } ?? ""))
        return db.changes
    }

    /// A digest of what the shard holds (its devices, imports, rebuild state and row counts; for a shard without devices
    /// its plan and number in it) and of the mode, so that the same shard merged again is recognised. The plan's shard
    /// number tells empty shards apart: a plan with more shards than devices has several that hold nothing, and the second was taken for the
    /// first ("merged before"), so `merge --plan` never found the study whole (the twelfth hostile round).
    static func digest(_ db: Database, resultsOnly: Bool) throws -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func add(_ text: String) {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            hash ^= 0x1F
            hash = hash &* 0x0000_0100_0000_01B3
        }
        add(resultsOnly ? "results" : "all")
        // Only a shard without devices: the digests of the others stay those earlier merges recorded.
        if try db.scalarInt("SELECT count(*) FROM shard.devices") == 0, let plan = try ShardPlanRecord.read(db, schema: "shard") {
            add("plan \(plan.digest) \(plan.shard) of \(plan.shards)")
        }
        for sql in [
            "SELECT id || ' ' || name FROM shard.devices ORDER BY id",
            "SELECT fingerprint || ' ' || status || ' ' || points_new FROM shard.imports ORDER BY id",
            "SELECT device_id || ' ' || parameters || ' ' || timezone || ' ' || algorithm_version || ' ' || ifnull(last_import_id, '') FROM shard.rebuild_state ORDER BY device_id",
        ] {
            for line in try column(db, sql) { add(line) }
        }
        for table in tables where table != "settings" && table != "devices" {
            add(table + " " + String(try db.scalarInt("SELECT count(*) FROM shard.\(table)") ?? 0))
        }
        add(String(try db.scalarInt("SELECT coalesce(max(key), 0) FROM shard.points_hot") ?? 0))
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Refuses a shard rebuilt with other pass parameters than the devices merged into the study before (by an earlier
    /// `merge` run; ``check(shards:algorithmVersion:plan:)`` compares the shards given together).
    static func checkRules(_ db: Database, shard: String) throws {
        let ours = try rules(db, "main")
        try checkSameRules(try rules(db, "shard"), shard: shard, as: (ours.parameters.first, ours.zones.first), of: "the study's devices",
                           quoted: "'\(ours.zones.first ?? "")' in the study")
    }

    /// The distinct pass parameters and zone rules (`position` or a zone's name) the devices of `schema` were rebuilt
    /// with (`rebuild_state`; rows of no record left out).
    static func rules(_ db: Database, _ schema: String) throws -> (parameters: [String], zones: [String]) {
        (try column(db, "SELECT DISTINCT parameters FROM \(schema).rebuild_state WHERE parameters NOT IN ('', '{}') ORDER BY 1"),
         try column(db, "SELECT DISTINCT timezone FROM \(schema).rebuild_state WHERE timezone != '' ORDER BY 1"))
    }

    /// Refuses `shard`'s rules when they differ from `reference` (parameters, zone; nil: nothing to compare), naming
    /// `other` for the parameters and `quoted` for the zone.
    static func checkSameRules(_ theirs: (parameters: [String], zones: [String]), shard: String, as reference: (String?, String?),
                               of other: String, quoted: String) throws {
        if let zone = reference.1, let differing = theirs.zones.first(where: { $0 != zone }) {
            throw ShardError.settingConflict(shard: shard, key: "timezone", value: differing, study: quoted)
        }
        guard let text = reference.0 else { return }
        let ours = parameters(text)
        for mine in theirs.parameters.map(parameters) {
            let keys = Set(mine.keys).union(ours.keys).filter { mine[$0] != ours[$0] }.sorted()
            if !keys.isEmpty { throw ShardError.parametersDiffer(shard: shard, other: other, keys: keys) }
        }
    }

    /// The pass parameters a rebuild recorded (`rebuild_state.parameters`, a flat JSON object of numbers), by key.
    static func parameters(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.trimmingCharacters(in: "{}").split(separator: ",") {
            guard let colon = pair.lastIndex(of: ":") else { continue }
            out[String(pair[..<colon]).trimmingCharacters(in: "\" ")] = String(pair[pair.index(after: colon)...])
        }
        return out
    }

    static func column(_ db: Database, _ sql: String, _ values: [SQLValue] = []) throws -> [String] {
        let q = try db.prepare(sql)
        if !values.isEmpty { try q.bind(values) }
        var out: [String] = []
        while try q.step() { out.append(q.text(0) ?? "") }
        return out
    }

    static func row(_ db: Database, _ sql: String) throws -> [String]? {
        let q = try db.prepare(sql)
        guard try q.step() else { return nil }
        return (0..<q.columnCount).map { q.text($0) ?? "" }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
