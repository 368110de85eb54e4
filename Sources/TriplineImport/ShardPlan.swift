import Foundation  // JSONEncoder/JSONDecoder for the plan file only (read and written once per run, not a hot path)
import TriplineCore
import TriplineStore

/// A shard plan (`tripline plan`, docs/SCALING.md): the input split into device units, each unit given to one of N
/// shards, balanced by bytes. `tripline import --plan plan.json --shard K` imports exactly shard K's units.
///
/// Deterministic: the same paths and files give a byte-identical plan. A device is never split: a unit holds every
/// file whose device by path (the Recorder's `rec/<user>/<device>/`, else the importer's fallback: the nearest folder
/// below the one given, else that folder, else the file's name) is the same.
public struct ShardPlan: Codable, Sendable, Equatable {
    /// How units are formed.
    public enum By: String, Codable, Sendable, CaseIterable {
        /// One unit per fallback device name.
        case device
        /// One unit per entry directly under a folder given (a participant's folder); entries sharing a device
        /// name are one unit.
        case folder
    }

    /// One unit: files that go to one shard together.
    public struct Unit: Codable, Sendable, Equatable {
        /// The unit's name: the device name (`--by device`) or the top-level entry (`--by folder`).
        public var name: String
        public var shard: Int
        public var bytes: Int
        /// The ids its devices take, in the order a single-machine import meets them (docs/SCALING.md).
        public var deviceIDs: [Int64]
        /// Its files, as the importer names them, in walk order.
        public var files: [String]

        enum CodingKeys: String, CodingKey {
            case name, shard, bytes, files
            case deviceIDs = "device_ids"
        }
    }

    /// One shard's totals and its own range of overflow device ids.
    public struct Shard: Codable, Sendable, Equatable {
        public var shard: Int
        public var units: Int
        public var files: Int
        public var bytes: Int
        /// Ids `[first, end)` for devices beyond the planned ones (a folder holding two phones).
        public var overflowFirst: Int64
        public var overflowEnd: Int64

        enum CodingKeys: String, CodingKey {
            case shard, units, files, bytes
            case overflowFirst = "overflow_first_device_id"
            case overflowEnd = "overflow_end_device_id"
        }
    }

    /// The plan file's version (`tripline_plan`).
    public static let formatVersion = 1

    public var version: Int
    public var by: By
    /// The paths given to `tripline plan`, as given: `import --plan` walks them again.
    public var paths: [String]
    public var shards: [Shard]
    public var units: [Unit]
    /// The digest of the plan file's bytes (``ShardPlanRecord/digest(_:)``), set by ``read(_:)``: a shard's import
    /// records it, and `merge` tells plans apart by it. Not part of the file.
    public var digest = ""

    enum CodingKeys: String, CodingKey {
        case version = "tripline_plan"
        case by, paths, shards, units
    }

    /// The largest device id (`points_hot.key` holds 21 bits of it).
    static let maxDeviceID: Int64 = (1 << 21) - 1

    /// The plan as JSON text: keys sorted, two-space indentation, one trailing newline.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The largest plan file read: 512 MiB (as ``TruthFile``'s). Measured: a plan of 100,000 files, each its own
    /// device, is 23 MB (230 bytes a file; 100,000 files of 100 devices, 5.5 MB), so the most devices a database
    /// holds (2^21, ``PointKey/maxDeviceID``) plan in about 480 MB; anything larger is not a plan and is not read.
    public static let sizeLimit = 512 << 20

    /// Reads a plan file.
    /// - Throws: ``FileError`` naming the file when it cannot be read or is not a plan of this version.
    public static func read(_ path: String) throws -> ShardPlan {
        // A plan is a regular file `tripline plan` wrote: a device, a FIFO or a folder is refused before it is read
        // (`--plan /dev/zero` read 2 GiB before refusing), and a file larger than any plan is not read at all.
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileError(path: path, errno: errno) }
        let what: String?
        switch st.st_mode & S_IFMT {
        case S_IFREG: what = nil
        case S_IFDIR: what = "a folder"
        case S_IFIFO: what = "a named pipe (FIFO)"
        case S_IFSOCK: what = "a socket"
        default: what = "a device"
        }
        if let what { throw FileError(path: path, reason: "is \(what), not a shard plan (a file written by `tripline plan`); not read") }
        guard Int(st.st_size) <= sizeLimit else {
            throw FileError(path: path, reason: "is \(st.st_size) bytes, larger than any shard plan (at most \(sizeLimit >> 20) MiB); not read")
        }
        let bytes = try FileSystem.read(path, limit: sizeLimit)
        var plan: ShardPlan
        do {
            plan = try JSONDecoder().decode(ShardPlan.self, from: Data(bytes))
        } catch {
            throw FileError(path: path, reason: "not a Tripline shard plan (write one with `tripline plan`): \(Self.describe(error))")
        }
        guard plan.version == formatVersion else {
            throw FileError(path: path, reason: "a shard plan of version \(plan.version); this Tripline reads version \(formatVersion)")
        }
        plan.digest = ShardPlanRecord.digest(bytes)
        guard plan.units.allSatisfy({ (0..<plan.shards.count).contains($0.shard) }) else {
            throw FileError(path: path, reason: "a unit names a shard the plan does not have")
        }
        // Device ids as `plan` gives them: each within what `points_hot` can hold (0 … maxDeviceID), each shard's
        // overflow ids a forward range of them. A plan edited by hand or damaged is refused here, naming the file,
        // instead of crashing on a backward range or failing point by point.
        for shard in plan.shards {
            guard 0 <= shard.overflowFirst, shard.overflowFirst <= shard.overflowEnd, shard.overflowEnd <= maxDeviceID + 1 else {
                throw FileError(path: path, reason: "shard \(shard.shard)'s overflow device ids \(shard.overflowFirst) … \(shard.overflowEnd) "
                    + "are not a range of device ids 0 … \(maxDeviceID + 1); write the plan again with `tripline plan`")
            }
        }
        for unit in plan.units {
            if let bad = unit.deviceIDs.first(where: { !(1...maxDeviceID).contains($0) }) {
                throw FileError(path: path, reason: "unit '\(Terminal.escaped(unit.name))' has device id \(bad), outside 1 … \(maxDeviceID); "
                    + "write the plan again with `tripline plan`")
            }
        }
        return plan
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case DecodingError.dataCorrupted: return "not valid JSON"
        default: return "\(error)"
        }
    }

    /// The files of shard `k`.
    public func files(ofShard k: Int) -> Set<String> {
        Set(units.lazy.filter { $0.shard == k }.flatMap(\.files))
    }

    /// The files of shard `k` in the order `import --plan` reads them: its units in plan order, each unit's files
    /// in walk order.
    public func orderedFiles(ofShard k: Int) -> [String] {
        units.filter { $0.shard == k }.flatMap(\.files)
    }

    /// Plans `jobs` (in the importer's walk order) into `count` shards.
    ///
    /// Units are formed (`by`), then given out largest first to the shard with the fewest bytes so far (ties: the
    /// lower shard, the earlier unit): the longest-processing-time rule, within 4/3 of the best balance.
    /// - Complexity: O(f + u log u + u·n) for f files, u units and n shards.
    static func make(jobs: [Importer.Job], paths: [String], shards count: Int, by: By) -> ShardPlan {
        // Device groups, numbered in the order the walk first meets them: the ids a single-machine import gives
        // when each group is one device (docs/SCALING.md, "Device ids"). A file's group is its device as the path
        // says: the Recorder's `rec/<user>/<device>/` when it has that layout (the reader names the device so), else
        // the fallback the importer gives a file that names no device.
        func device(_ job: Importer.Job) -> String { RecReader.deviceFromPath(job.path)?.name ?? job.fallback.name }
        var groupID: [String: Int64] = [:]
        for job in jobs where groupID[device(job)] == nil { groupID[device(job)] = Int64(groupID.count + 1) }
        // Each job's unit key, then groups sharing a key or a device name joined (union-find over group ids).
        var parent = Array(0...groupID.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        var firstGroupOfKey: [String: Int] = [:]
        for job in jobs {
            let g = Int(groupID[device(job)]!)
            let key = by == .device ? device(job) : topLevel(job.path, paths: paths)
            if let other = firstGroupOfKey[key] {
                let (a, b) = (find(other), find(g))
                if a != b { parent[max(a, b)] = min(a, b) }
            } else {
                firstGroupOfKey[key] = g
            }
        }
        // Units in walk order of their first file.
        var unitOfRoot: [Int: Int] = [:]
        var units: [Unit] = []
        for job in jobs {
            let g = Int(groupID[device(job)]!)
            let root = find(g)
            let u: Int
            if let known = unitOfRoot[root] {
                u = known
            } else {
                u = units.count
                unitOfRoot[root] = u
                let name = by == .device ? device(job) : topLevel(job.path, paths: paths)
                units.append(Unit(name: name, shard: 0, bytes: 0, deviceIDs: [], files: []))
            }
            units[u].bytes += job.size
            units[u].files.append(job.path)
            if !units[u].deviceIDs.contains(Int64(g)) { units[u].deviceIDs.append(Int64(g)) }
        }
        // Largest first, to the lightest shard.
        var load = [Int](repeating: 0, count: count)
        let order = units.indices.sorted { units[$0].bytes != units[$1].bytes ? units[$0].bytes > units[$1].bytes : $0 < $1 }
        for u in order {
            let k = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 }!
            units[u].shard = k
            load[k] += units[u].bytes
        }
        let first = Int64(groupID.count) + 1
        let per = max(0, (maxDeviceID + 1 - first) / Int64(count))
        let shards = (0..<count).map { k in
            let mine = units.filter { $0.shard == k }
            return Shard(shard: k, units: mine.count, files: mine.reduce(0) { $0 + $1.files.count }, bytes: load[k],
                         overflowFirst: first + Int64(k) * per, overflowEnd: first + Int64(k + 1) * per)
        }
        return ShardPlan(version: formatVersion, by: by, paths: paths, shards: shards, units: units)
    }

    /// The entry directly under the folder given that holds `path` (the file itself when it lies there, or was
    /// given on its own).
    static func topLevel(_ path: String, paths: [String]) -> String {
        for root in paths {
            let base = root.hasSuffix("/") ? root : root + "/"
            if path.hasPrefix(base) {
                let rest = path.dropFirst(base.count)
                return base + String(rest.prefix { $0 != "/" })
            }
        }
        return path
    }
}

/// What a plan found besides its units.
public struct PlanResult: Sendable {
    public var plan: ShardPlan
    /// Paths that could not be read or were passed over, with why.
    public var problems: [FileSummary]
}

extension Importer {
    /// Plans `paths` into `shards` shards (`tripline plan`): walks them as `import` would and forms units.
    public static func plan(paths: [String], shards: Int, by: ShardPlan.By, options: ImportOptions = ImportOptions()) throws -> PlanResult {
        let importer = Importer(store: try Store(path: ":memory:"), options: options)
        let (all, failures) = importer.jobs(paths)
        // A file reached twice (a folder given twice, as `data` and `./data`, through a link, or inside another given)
        // is planned once, by its real path: the import of its shard reads it once (the twelfth and thirteenth hostile
        // rounds: `plan s1 s1` listed every file of s1 twice, and so did `plan data ./data`).
        var seen = Set<String>()
        let jobs = all.filter { seen.insert(Self.realPath($0.path) ?? $0.path).inserted }
        return PlanResult(plan: ShardPlan.make(jobs: jobs, paths: paths, shards: shards, by: by), problems: failures)
    }

    /// Imports shard `shard` of `plan`: walks the plan's paths as `import` does (so every file keeps the device name
    /// a single-machine import gives it) and imports the shard's files unit by unit, its new devices taking the
    /// plan's ids. Files of the shard no longer there are failures; files the plan does not list are left alone.
    ///
    /// The database records the plan's digest, the shard and the shard's files before the first file
    /// (``ShardPlanRecord``), and that the import is complete once every planned file was read (imported, skipped as
    /// imported before or as no location archive, or recorded `failed`); `merge` refuses a shard without that mark.
    /// - Throws: ``DatabaseError`` as ``importPaths(_:)``; ``ShardError/deviceIDsExhausted(end:)``;
    ///   ``ShardError/otherPlan(database:recorded:given:)`` when the database holds another plan's or shard's record.
    public func importShard(_ plan: ShardPlan, shard: Int) throws -> ImportSummary {
        let record = ShardPlanRecord(digest: plan.digest, shard: shard, shards: plan.shards.count, files: plan.orderedFiles(ofShard: shard))
        try record.begin(in: store)
        var missing = 0
        let (all, walkFailures) = jobs(plan.paths)
        var byPath: [String: Job] = [:]
        for job in all { byPath[job.path] = job }
        let info = plan.shards[shard]
        let ids = DeviceIDPlan(overflow: info.overflowFirst..<info.overflowEnd)
        deviceIDPlan = ids
        defer { deviceIDPlan = nil }
        var total = ImportSummary()
        var failures = walkFailures
        for unit in plan.units where unit.shard == shard {
            var jobs: [Job] = []
            for file in unit.files {
                if let job = byPath[file] {
                    jobs.append(job)
                } else {
                    missing += 1
                    failures.append(FileSummary(path: file, status: .failed, message: "listed in the plan but no longer found under \(plan.paths.joined(separator: ", "))"))
                }
            }
            ids.planned = unit.deviceIDs
            let summary = try importJobs(jobs, failures: failures)
            failures = []
            total.files += summary.files
            total.seconds += summary.seconds
            total.parseCPUSeconds += summary.parseCPUSeconds
            total.writeCPUSeconds += summary.writeCPUSeconds
        }
        if !failures.isEmpty {
            let summary = try importJobs([], failures: failures)
            total.files += summary.files
        }
        if missing == 0 { try record.markComplete(in: store) }
        return total
    }
}
