#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

/// The writing side: the Store's table writers and the per-file transaction.
final class Writer {
    let store: Store
    let points: PointWriter
    let deviceTable: DeviceTable
    let imports: ImportTable
    let rejects: RejectTable
    let events: AppEventTable
    let onWait: ((String) -> Void)?
    var waited = false
    /// Database ids of the current file's devices, by index in its ``ParseOutput/devices``; nil until the device
    /// needs a row (a device row is made for a device that gets a point, not for one that only had rejects).
    var deviceIDs: [Int64?] = []
    /// The file's devices as parsed so far.
    var devices: [ParsedDevice] = []
    /// App events of a device named by no record (the file's fallback) that has no row yet: written at commit,
    /// to the file's one point device when there is exactly one, else to their own device.
    var pendingEvents: [ParsedEvent] = []
    var deviceCache: [String: Int64] = [:]
    var importID: Int64 = 0
    var inTransaction = false
    /// The current file's bytes (for excerpts of `conflicting_duplicate` rejects).
    var fileBytes: FileBytes?
    /// Rejects a file keeps one row each (``ImportOptions/rejectsKeptPerFile``), and how many the current file kept.
    var rejectsKept = ImportOptions.defaultRejectsKeptPerFile
    var keptRejects = 0
    /// The current file's rejects past those kept, by reason in the order first seen: the first of them, and how many.
    var uncounted: [(first: RejectRecord, count: Int)] = []
    var uncountedIndex: [RejectReason: Int] = [:]
    /// The current file's path, and the `done` imports of every path before this run (read at the first reject of
    /// the run): a file read again, a Recorder `.rec` that grew, holds the bad records an earlier import stored.
    var path = ""
    var donePaths: [String: [Int64]]?
    /// The rejects earlier imports of the current file's path stored (nil until its first reject): each kept row by
    /// where it is, why and its excerpt; and, by reason, the rejects a counted row stood for past its first (``RecordedPast``).
    var recorded: (rows: Set<RecordedKey>, past: [String: RecordedPast])?
    struct RecordedKey: Hashable {
        var offset: Int64, reason: String, excerpt: String?
    }
    /// Rejects of one reason an earlier import counted in one row past its first: those after `from` are skipped until
    /// `left` are (the file grew at its end, so they come first).
    struct RecordedPast {
        var from: Int64, left: Int64
    }

    init(store: Store, onWait: ((String) -> Void)?) throws {
        self.store = store
        self.onWait = onWait
        points = try PointWriter(store)
        deviceTable = try DeviceTable(store)
        imports = ImportTable(store)
        rejects = try RejectTable(store)
        events = try AppEventTable(store)
    }

    deinit {
        if inTransaction { try? store.rollback() }
    }

    /// `BEGIN IMMEDIATE`, waiting (and saying so once per import) while another process writes.
    func beginImmediate() throws {
        try store.beginWrite {
            if !waited {
                waited = true
                onWait?("waiting for another process writing to \(store.path) to finish")
            }
        }
        inTransaction = true
    }

    /// Starts a file's transaction. Returns the new import id, or nil (and no transaction) when a file with this
    /// fingerprint is already done.
    func begin(path: String, size: Int, fingerprint: String) throws -> Int64? {
        try beginImmediate()
        if try imports.isDone(fingerprint: fingerprint) {
            try rollback()
            return nil
        }
        importID = try imports.begin(path: path, size: size, fingerprint: fingerprint)
        self.path = path
        recorded = nil
        deviceIDs.removeAll()
        devices.removeAll()
        pendingEvents.removeAll()
        keptRejects = 0
        uncounted.removeAll()
        uncountedIndex.removeAll()
        return importID
    }

    func rollback() throws {
        if inTransaction {
            inTransaction = false
            try store.rollback()
        }
    }

    /// Records a file that could not be read, in its own transaction (so a re-run retries it).
    func recordFailure(path: String, size: Int, message: String, format: String?) throws -> Int64 {
        try beginImmediate()
        do {
            let id = try imports.insertFailure(path: path, size: size, format: format, message: message)
            inTransaction = false
            try store.commit()
            return id
        } catch {
            try? rollback()
            throw error
        }
    }

    /// The database id of the file's device `index`, making its row when it has none yet.
    func deviceID(_ index: Int) throws -> Int64 {
        if let id = deviceIDs[index] { return id }
        let d = devices[index]
        let id: Int64
        if let cached = deviceCache[d.name] {
            id = cached
        } else {
            id = try deviceTable.id(named: d.name, source: d.source, origin: d.origin, tid: d.tid)
            deviceCache[d.name] = id
        }
        deviceIDs[index] = id
        return id
    }

    func insertEvent(_ e: ParsedEvent, deviceID: Int64?, file: inout FileSummary) throws {
        var row = e.row
        row.deviceID = deviceID
        row.importID = importID
        if try events.insert(row) { file.events += 1 }
    }

    /// Writes a chunk's points, events and rejects inside the file's transaction.
    func write(_ chunk: inout ParseOutput, file: inout FileSummary) throws {
        if devices.count < chunk.devices.count {
            devices = chunk.devices
            while deviceIDs.count < devices.count { deviceIDs.append(nil) }
        }
        let writer = points
        let importID = self.importID
        var new = 0
        var firstNew = file.firstNewMs ?? Int64.max
        try chunk.cold.withUnsafeBytes { cold in
            for i in chunk.points.indices {
                let index = Int(chunk.points[i].deviceID)
                let deviceID = try deviceIDs[index] ?? self.deviceID(index)
                let position = chunk.positions[i]
                // The cold object was encoded on the parsing thread when the position says where it is.
                let inserted = position.coldOffset >= 0
                    ? try writer.insert(chunk.points[i], cold: UnsafeRawBufferPointer(rebasing: cold[Int(position.coldOffset)..<Int(position.coldOffset) + Int(position.coldLength)]),
                                        deviceID: deviceID, importID: importID)
                    : try writer.insert(chunk.points[i], deviceID: deviceID, importID: importID)
                if inserted {
                    new += 1
                    firstNew = min(firstNew, chunk.points[i].timeMs)
                } else {
                    try duplicate(chunk.points[i], deviceID: deviceID, position: position, file: &file)
                }
            }
        }
        file.pointsNew += new
        if firstNew != Int64.max { file.firstNewMs = firstNew }
        for e in chunk.events {
            if let id = deviceIDs[e.device] {
                try insertEvent(e, deviceID: id, file: &file)
            } else {
                pendingEvents.append(e)
            }
        }
        for r in chunk.rejects { try reject(r, file: &file) }
    }

    /// Stores a reject: one row each for the file's first ``rejectsKept``, then only counted by reason (a file of
    /// millions of bad records must not make millions of rows and a WAL as large; ``writeUncounted()``).
    func reject(_ r: RejectRecord, file: inout FileSummary) throws {
        if try alreadyRecorded(r) { return }
        file.rejected += 1
        if keptRejects < rejectsKept {
            keptRejects += 1
            try rejects.insert(importID: importID, line: r.line, byteOffset: r.byteOffset, reason: r.reason.rawValue, detail: r.detail, excerpt: r.excerpt)
        } else if let i = uncountedIndex[r.reason] {
            uncounted[i].count += 1
        } else {
            uncountedIndex[r.reason] = uncounted.count
            uncounted.append((r, 1))
        }
    }

    /// Whether an earlier import of this path stored `r` already (the same bad record read again when the file grew or
    /// was given again after its import row was forgotten): it is not stored or counted twice. Earlier imports are read
    /// at the file's first reject only, and `imports` once a run.
    func alreadyRecorded(_ r: RejectRecord) throws -> Bool {
        if recorded == nil {
            if donePaths == nil { donePaths = try store.doneImportIDsByPath() }
            let earlier = (donePaths?[path] ?? []).filter { $0 != importID }
            var rows = Set<RecordedKey>(), past: [String: RecordedPast] = [:]
            for e in try store.recordedRejects(importIDs: earlier) {
                rows.insert(RecordedKey(offset: e.byteOffset, reason: e.reason, excerpt: e.excerpt))
                if e.records > 1 {
                    let p = past[e.reason] ?? RecordedPast(from: e.byteOffset, left: 0)
                    past[e.reason] = RecordedPast(from: min(p.from, e.byteOffset), left: p.left + e.records - 1)
                }
            }
            recorded = (rows, past)
        }
        guard let known = recorded else { return false }
        if known.rows.contains(RecordedKey(offset: Int64(r.byteOffset), reason: r.reason.rawValue, excerpt: r.excerpt)) { return true }
        if var p = known.past[r.reason.rawValue], p.left > 0, Int64(r.byteOffset) > p.from {
            p.left -= 1
            recorded?.past[r.reason.rawValue] = p
            return true
        }
        return false
    }

    /// One row per reason for the rejects past those kept: `records` says how many it stands for, so
    /// `sum(records)` (what `tripline info` shows) is the true count; the row points at the first of them.
    func writeUncounted() throws {
        for (first, count) in uncounted {
            let place = first.line.map { "line \($0), byte \(first.byteOffset)" } ?? "byte \(first.byteOffset)"
            let detail = "\(count) more \(first.reason.rawValue) reject\(count == 1 ? "" : "s") in this file from \(place) on, counted but not "
                + "kept one by one (a file keeps its first \(rejectsKept) rejects in full); the first of them: \(first.detail)"
            try rejects.insert(importID: importID, line: first.line, byteOffset: first.byteOffset, reason: first.reason.rawValue,
                               detail: detail, excerpt: first.excerpt, records: count)
        }
        uncounted.removeAll()
        uncountedIndex.removeAll()
    }

    /// A point whose (device, time) is already stored: a duplicate when the position is the same (within
    /// ``duplicateM``: the same fix written by another tool with fewer decimals), else a `conflicting_duplicate`
    /// reject (the first stays).
    func duplicate(_ p: Point, deviceID: Int64, position: SourcePosition, file: inout FileSummary) throws {
        guard let (lat, lon, from) = try points.stored(deviceID: deviceID, timeMs: p.timeMs) else { return }
        if (lat == p.lat && lon == p.lon) || Geo.distance(lat, lon, p.lat, p.lon) <= Self.duplicateM {
            file.pointsDuplicate += 1
            return
        }
        let when = CivilTime.iso8601(ms: p.timeMs)
        let source = from == importID ? "earlier in this file" : "from import \(from)"
        let stored = "\(Self.degrees(lat)), \(Self.degrees(lon))", says = "\(Self.degrees(p.lat)), \(Self.degrees(p.lon))"
        let detail = "same device and time (\(when)) as a point stored \(source) at \(stored); this record says \(says); the first is kept"
        try reject(
            RejectRecord(line: position.line > 0 ? Int(position.line) : nil, byteOffset: Int(position.byteOffset),
                         reason: .conflictingDuplicate, detail: detail,
                         excerpt: excerpt(position) ?? "lat \(p.lat), lon \(p.lon), time \(when)"),
            file: &file)
    }

    /// How far apart (metres) two fixes of one device at one time may lie and still be one fix: 6 decimals of a
    /// degree round a position by up to 8 cm (the fifteenth hostile round: the same walk saved by another tool with 6
    /// decimals instead of 7 was 251 conflicting duplicates), while two fixes a phone took at one instant lie metres
    /// apart.
    static let duplicateM = 0.1

    /// A coordinate for a message: at most 7 decimals (1 cm), no binary noise (`13.402000000000001`).
    static func degrees(_ value: Double) -> String {
        var text = NumberText.fixed(value, decimals: 7)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Up to 200 bytes of the record at `position` in the current file.
    func excerpt(_ position: SourcePosition) -> String? {
        guard let fileBytes, let base = fileBytes.pointer, position.byteOffset >= 0, Int(position.byteOffset) < fileBytes.count else { return nil }
        let start = Int(position.byteOffset)
        let length = min(Int(position.length), fileBytes.count - start)
        return Validate.excerpt(base.assumingMemoryBound(to: UInt8.self) + start, length)
    }

    /// Marks the file's import `done` and commits everything of it at once.
    func commit(file: inout FileSummary, devices parsed: [ParsedDevice], creator: String?) throws {
        if devices.count < parsed.count {
            devices = parsed
            while deviceIDs.count < devices.count { deviceIDs.append(nil) }
        }
        // App events whose device got no point in this file (see docs/IMPORT.md, "Device rows"): the row of that
        // name when one exists; for a device no record names, the file's one device with points; a Google or app
        // trip/visit record (evidence to compare with) gets its device's row; anything else is kept without a
        // device, so a file of events or rejects makes no empty device.
        let withRows = deviceIDs.indices.filter { deviceIDs[$0] != nil }
        var homeless = 0
        for e in pendingEvents {
            if let id = deviceIDs[e.device] {
                try insertEvent(e, deviceID: id, file: &file)
            } else if let existing = try deviceTable.id(named: devices[e.device].name) {
                deviceIDs[e.device] = existing
                try insertEvent(e, deviceID: existing, file: &file)
            } else if devices[e.device].origin.isFallback, withRows.count == 1 {
                try insertEvent(e, deviceID: deviceIDs[withRows[0]]!, file: &file)
            } else if e.kind == .trip || e.kind == .visit {
                try insertEvent(e, deviceID: try deviceID(e.device), file: &file)
            } else {
                homeless += 1
                try insertEvent(e, deviceID: nil, file: &file)
            }
        }
        pendingEvents.removeAll()
        try writeUncounted()
        if homeless > 0 {
            file.message = "\(homeless) app event\(homeless == 1 ? "" : "s") kept without a device (no point names one)"
        }
        file.devices = deviceIDs.indices.filter { deviceIDs[$0] != nil }.map { devices[$0] }
        let ids = deviceIDs.compactMap { $0 }
        try imports.finish(ImportTable.Finished(
            id: importID, format: file.format, creator: creator, deviceID: Set(ids).count == 1 ? ids[0] : nil,
            pointsNew: file.pointsNew, pointsDuplicate: file.pointsDuplicate, rejected: file.rejected, events: file.events,
            message: devicesMessage(file.devices), firstMs: file.firstNewMs))
        inTransaction = false
        try store.commit()
    }

    /// The `imports.message` naming a file's devices: the first ten, then how many more (a file can name thousands).
    func devicesMessage(_ devices: [ParsedDevice]) -> String {
        var text = devices.prefix(10).map { "device '\($0.name)' (from \($0.origin))" }.joined(separator: "; ")
        if devices.count > 10 { text += "; and \(devices.count - 10) more devices" }
        return text
    }
}
