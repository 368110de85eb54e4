#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore


/// How an import runs. Defaults suit a command-line import.
public struct ImportOptions: Sendable {
    /// `--device NAME`: the device for records that carry none (Overland with an empty `device_id`, GPX, OwnTracks
    /// without topic or tid). Nil: the folder name given on the command line, else the file's name.
    public var device: String?
    /// "Now" for the "more than a day in the future" check (UTC ms).
    public var nowMs: Int64
    /// Points per batch handed from the parsing thread to the writing thread.
    public var batchSize: Int
    /// Batches that may wait in the queue (bounds memory: about `batchSize × queueDepth` points in flight).
    public var queueDepth: Int
    /// The most that may be inflated from one input, over all its layers together, in bytes; nil: the standard bound,
    /// ``InflateBudget/standard(inputSize:)`` (100 times the input's size plus 256 MiB). See docs/IMPORT.md.
    public var inflateLimit: Int?
    /// How many rejects of one file are kept one row each; the rest are counted, one row per reason
    /// (docs/IMPORT.md, "Bad input").
    public var rejectsKeptPerFile: Int

    /// The rejects a file keeps in full unless told otherwise.
    public static let defaultRejectsKeptPerFile = 10_000

    public init(device: String? = nil, nowMs: Int64 = Clock.nowMs(), batchSize: Int = 4096, queueDepth: Int = 8,
                inflateLimit: Int? = nil, rejectsKeptPerFile: Int = ImportOptions.defaultRejectsKeptPerFile) {
        self.device = device
        self.nowMs = nowMs
        self.batchSize = batchSize
        self.queueDepth = queueDepth
        self.inflateLimit = inflateLimit
        self.rejectsKeptPerFile = max(0, rejectsKeptPerFile)
    }
}

/// What happened to one file.
public struct FileSummary: Sendable {
    public enum Status: String, Sendable {
        /// Read and committed (its points, events and rejects are in the database).
        case imported
        /// Already imported with the same content fingerprint; nothing done.
        case skipped
        /// Could not be read at all (missing, unreadable, binary, not a location archive).
        case failed
    }
    public var path: String
    public var status: Status
    public var format: String?
    public var importID: Int64?
    public var pointsNew = 0
    /// The earliest time of the points it added (`imports.first_ms`).
    public var firstNewMs: Int64? = nil
    public var pointsDuplicate = 0
    public var rejected = 0
    public var events = 0
    /// Devices the file's records went to, with how each name was chosen.
    public var devices: [ParsedDevice] = []
    public var message: String?
    public var bytes = 0

    /// Forgets the counts of a file whose transaction was rolled back (nothing of it was stored).
    mutating func discardCounts() {
        pointsNew = 0
        pointsDuplicate = 0
        rejected = 0
        events = 0
        firstNewMs = nil
        devices = []
    }
}

/// What an import did, file by file.
public struct ImportSummary: Sendable {
    public var files: [FileSummary] = []
    public var seconds: Double = 0
    /// CPU seconds the parsing thread used (reading, fingerprinting, parsing).
    public var parseCPUSeconds: Double = 0
    /// CPU seconds the writing (calling) thread used during the import.
    public var writeCPUSeconds: Double = 0
    public var pointsNew: Int { files.reduce(0) { $0 + $1.pointsNew } }
    public var pointsDuplicate: Int { files.reduce(0) { $0 + $1.pointsDuplicate } }
    public var rejected: Int { files.reduce(0) { $0 + $1.rejected } }
    public var events: Int { files.reduce(0) { $0 + $1.events } }
    public var failed: Int { files.filter { $0.status == .failed }.count }
}

/// Progress of a running import, for a progress line.
public struct ImportProgress: Sendable {
    public var filesDone: Int
    public var filesTotal: Int
    public var points: Int
    public var bytesDone: Int
    public var bytesTotal: Int
    public var seconds: Double
}

/// Imports files and folders of location archives into the store.
///
/// One thread parses (format detection, readers) while the calling thread writes, with a bounded queue between
/// them. Each file is one transaction: its `imports` row turns `done` in the same transaction as its points,
/// events and rejects, so a kill at any moment leaves either the whole file or nothing of it, and re-running
/// completes the job. A file whose content fingerprint is already `done` is skipped.
///
/// Dedup: a point is identified by (device, time_ms). A second record with the same identity and the same
/// position is counted as a duplicate; with a different position it is kept out and recorded in `rejects` as
/// `conflicting_duplicate` (the first stored point wins). App events are deduplicated on
/// (device, kind, time, raw record).
public final class Importer {
    public let store: Store
    public var options: ImportOptions
    /// Called a few times a second on the calling thread while importing.
    public var onProgress: ((ImportProgress) -> Void)?
    /// Called on the calling thread after each file.
    public var onFile: ((FileSummary) -> Void)?
    /// Called once when the database is locked by another writer and the import waits for it.
    public var onWait: ((String) -> Void)?
    /// The ids new devices take (a shard's import, `import --plan`); nil: the next free id.
    public var deviceIDPlan: DeviceIDPlan?

    public init(store: Store, options: ImportOptions = ImportOptions()) {
        self.store = store
        self.options = options
    }

    /// A file to read: its path (as shown), the device name to fall back on, and its size.
    struct Job: Sendable {
        var path: String
        var fallback: (name: String, origin: DeviceOrigin)
        var size: Int
        /// The path's bytes when they are not the UTF-8 of `path` (a name that is not UTF-8, shown escaped).
        var raw: [UInt8]? = nil
        /// Found inside a folder: a file that is no location archive is skipped, not a failure.
        var inFolder = false
        /// For a file given on its own: the name of its folder (GPX devices take it).
        var folderDevice: String? = nil
    }

    enum Message: @unchecked Sendable {
        case begin(path: String, fingerprint: String, size: Int, bytes: FileBytes, skipNonArchive: Bool)
        case batch(ParseOutput)
        case end(ParseOutput)
        case failed(path: String, message: String, size: Int)
        case skipped(path: String, size: Int)
        /// Passed over on purpose (not a location archive inside a folder, a link loop, a Recorder store's other parts).
        case ignored(path: String, message: String, size: Int)
    }

    /// The nearest folder between `file` and the folder `root` given on the command line that is not part of
    /// Google Takeout's own layout, or nil when there is none.
    static func exportFolder(_ file: String, under root: String) -> String? {
        let base = root.hasSuffix("/") ? root : root + "/"
        guard file.hasPrefix(base) else { return nil }
        let folders = file.dropFirst(base.count).split(separator: "/").dropLast()
        for name in folders.reversed() {
            let lower = name.lowercased()
            let structural = lower == "takeout" || lower.hasPrefix("location history") || lower == "semantic location history"
                || lower == "timeline" || (name.count == 4 && name.allSatisfy(\.isNumber))
            if !structural { return String(name) }
        }
        return nil
    }

    /// A file name without the extensions that say how it is packed and what it holds (`f.json.gz` → `f`).
    static func stem(_ name: String) -> String {
        var stem = name
        for ext in [".gz", ".tgz", ".zip", ".tar"] where stem.count > ext.count && stem.lowercased().hasSuffix(ext) {
            stem = String(stem.dropLast(ext.count))
        }
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = String(stem[..<dot]) }
        return stem
    }

    /// Expands the arguments into files: directories recursively (sorted, hidden entries skipped), `-` as
    /// standard input. Paths that do not exist come back as failures.
    func jobs(_ paths: [String]) -> (jobs: [Job], failures: [FileSummary]) {
        var jobs: [Job] = []
        var failures: [FileSummary] = []
        func isOwnRaw(_ raw: [UInt8]) -> Bool {
            guard let real = Importer.realPath(raw) else { return false }
            return ownFiles.contains(real)
        }
        // The database itself (and its -wal, -shm, -journal files) is never an input, even inside a folder given.
        let database = Importer.realPath(store.path) ?? store.path
        let ownFiles: Set<String> = [database, database + "-wal", database + "-shm", database + "-journal"]
        func isOwn(_ path: String) -> Bool { ownFiles.contains(Importer.realPath(path) ?? path) }
        for path in paths {
            if path == "-" {
                jobs.append(Job(path: "-", fallback: fallback(name: "stdin", origin: .stdin), size: 0))
                continue
            }
            switch FileSystem.kind(path) {
            case .directory:
                let folder = FileSystem.baseName(path)
                let walk = FileSystem.walkEntries(path)
                for error in walk.errors {
                    failures.append(FileSummary(path: error.path, status: .failed, message: error.reason))
                }
                for (skipped, reason) in walk.skipped {
                    failures.append(FileSummary(path: skipped, status: .skipped, message: reason))
                }
                for file in walk.files where !isOwnRaw(file.raw) {
                    let size = FileSystem.statRaw(file.raw).map { Int($0.st_size) } ?? 0
                    let utf8 = String(validating: file.raw, as: UTF8.self)
                    // One rule for every format: a file that names no device belongs to the nearest folder holding
                    // it below the one given (Takeout's own folders and year folders passed over), else to the
                    // folder given: `tracks/bike/a.gpx` and `tracks/run/b.json` are devices `bike` and `run`.
                    let nearest = Importer.exportFolder(file.display, under: path)
                    let named = nearest.map { fallback(name: $0, origin: .subfolder) } ?? fallback(name: folder, origin: .folder)
                    jobs.append(Job(path: file.display, fallback: named,
                                    size: size, raw: utf8 == file.display ? nil : file.raw, inFolder: true))
                }
            case .none:
                failures.append(FileSummary(path: path, status: .failed, message: FileSystem.statFailure(path) ?? "no such file or directory"))
            default:
                if isOwn(path) {
                    failures.append(FileSummary(path: path, status: .failed, message: "this is the database being imported into"))
                    continue
                }
                let stem = Importer.stem(FileSystem.baseName(path))
                let folder = Importer.realPath(FileSystem.directoryName(path)).map { FileSystem.baseName($0) }
                jobs.append(Job(path: path, fallback: fallback(name: stem, origin: .file), size: FileSystem.size(path) ?? 0,
                                folderDevice: folder == "/" ? nil : folder))
            }
        }
        return (jobs, failures)
    }

    /// The canonical absolute path (symbolic links resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func realPath(_ raw: [UInt8]) -> String? {
        let resolved = (raw + [0]).withUnsafeBufferPointer { realpath(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), nil) }
        guard let resolved else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func fallback(name: String, origin: DeviceOrigin) -> (name: String, origin: DeviceOrigin) {
        if let device = options.device, !device.isEmpty { return (device, .deviceOption) }
        return (name.isEmpty ? "unnamed" : name, origin)
    }

    /// Imports every file under `paths`.
    /// - Throws: ``DatabaseError`` when the database itself fails (disk full, locked for too long); bad files never throw.
    // Long by design: the per-file loop keeps progress, summaries and the parser's reused buffers together; its steps share that state.
    public func importPaths(_ paths: [String]) throws -> ImportSummary {
        let (jobs, failures) = self.jobs(paths)
        return try importJobs(jobs, failures: failures)
    }

    /// Imports the files `jobs` found (``jobs(_:)``), after reporting `failures`.
    func importJobs(_ jobs: [Job], failures: [FileSummary]) throws -> ImportSummary {
        let started = Clock.monotonic()
        var summary = ImportSummary()
        for failure in failures {
            summary.files.append(failure)
            onFile?(failure)
        }
        let totalBytes = jobs.reduce(0) { $0 + $1.size }
        let queue = BoundedQueue<Message>(capacity: options.queueDepth)
        let recycle = BoundedQueue<[Point]>(capacity: options.queueDepth + 2)
        let options = self.options
        let dbPath = store.path
        let parseCPU = CPUTimeBox()
        let writeCPUStart = threadCPUSeconds()
        let parser = WorkerThread {
            Importer.parseAll(jobs, options: options, dbPath: dbPath, queue: queue, recycle: recycle)
            parseCPU.seconds = threadCPUSeconds()
        }
        var joined = false
        defer {
            if !joined {
                queue.close()
                recycle.close()
                parser.join()
            }
        }
        let writer = try Writer(store: store, onWait: onWait)
        writer.rejectsKept = options.rejectsKeptPerFile
        // Each file is one transaction, so the WAL holds a file's new pages until it commits (about what the file adds
        // to the database; rejects are bounded per file). After a checkpoint it is cut back to 64 MiB rather than
        // staying as large as the largest file's.
        store.limitJournalSize(bytes: 64 << 20)
        writer.deviceTable.plan = deviceIDPlan
        var current: FileSummary?
        var currentPoints = 0  // points of the current file handed to the writer, for the progress line
        var filesDone = 0
        var points = 0
        var bytesDone = 0
        var lastProgress = Clock.monotonic()
        var currentOffset = 0  // how far into the current file the parser is
        var currentSkipsNonArchive = false
        func progress(force: Bool = false) {
            guard let onProgress else { return }
            let now = Clock.monotonic()
            guard force || now - lastProgress >= 0.2 else { return }
            lastProgress = now
            onProgress(ImportProgress(filesDone: filesDone, filesTotal: jobs.count, points: points, bytesDone: bytesDone + currentOffset,
                                      bytesTotal: totalBytes, seconds: now - started))
        }
        func finish(_ file: FileSummary) {
            filesDone += 1
            bytesDone += file.bytes
            currentOffset = 0
            summary.files.append(file)
            onFile?(file)
            progress(force: true)
        }
        while let message = queue.pop() {
            switch message {
            case .begin(let path, let fingerprint, let size, let bytes, let skipNonArchive):
                writer.fileBytes = bytes
                currentSkipsNonArchive = skipNonArchive
                var file = FileSummary(path: path, status: .imported)
                file.bytes = size
                let id = try writer.begin(path: path, size: size, fingerprint: fingerprint)
                if let id {
                    file.importID = id
                } else {
                    file.status = .skipped
                    file.message = "already imported (same content)"
                }
                current = file
            case .batch(var chunk):
                if var file = current, file.status == .imported {
                    try writer.write(&chunk, file: &file)
                    points += chunk.points.count
                    currentPoints += chunk.points.count
                    current = file
                }
                if let last = chunk.positions.last { currentOffset = Int(last.byteOffset) }
                // Hand the points back without keeping a reference, so the parser frees them and reuses the array.
                var done: [Point] = []
                swap(&done, &chunk.points)
                recycle.offer(consume done)
                progress()
            case .end(var chunk):
                defer {
                    writer.fileBytes = nil
                    currentPoints = 0
                }
                guard var file = current else { break }
                current = nil
                if file.status == .skipped {
                    finish(file)
                    break
                }
                if chunk.fatal != nil {
                    // Rolled back: what its batches counted was never stored, so the summary must not count it either.
                    points -= currentPoints
                    file.discardCounts()
                }
                if chunk.format == "empty", chunk.points.isEmpty, chunk.fatal == nil, currentSkipsNonArchive {
                    // Inside a folder or an archive (a Takeout holds empty files): nothing to import and nothing wrong,
                    // so passed over like a file of another kind; an empty file named on its own is an `empty_file` reject.
                    try writer.rollback()
                    file.status = .skipped
                    file.message = "an empty file: nothing to import"
                    finish(file)
                    break
                }
                if let fatal = chunk.fatal, chunk.notArchive, currentSkipsNonArchive {
                    // Inside a folder or an archive: a file of another kind is passed over, not a failure.
                    try writer.rollback()
                    file.status = .skipped
                    file.message = fatal.contains("not a location archive") || fatal.contains("not GPX") ? fatal : "not a location archive: " + fatal
                    finish(file)
                    break
                }
                if let fatal = chunk.fatal {
                    try writer.rollback()
                    file.status = .failed
                    file.message = fatal
                    file.format = chunk.format
                    file.importID = try writer.recordFailure(path: file.path, size: file.bytes, message: fatal, format: chunk.format)
                    finish(file)
                    break
                }
                try writer.write(&chunk, file: &file)
                points += chunk.points.count
                file.format = chunk.format
                PausePoint.reach("import.file.\(filesDone + 1).written")
                try writer.commit(file: &file, devices: chunk.devices, creator: chunk.creator)
                PausePoint.reach("import.file.\(filesDone + 1).committed")
                finish(file)
            case .failed(let path, let message, let size):
                var file = FileSummary(path: path, status: .failed, message: message)
                file.bytes = size
                file.importID = try writer.recordFailure(path: path, size: size, message: message, format: nil)
                finish(file)
            case .skipped(let path, let size):
                var file = FileSummary(path: path, status: .skipped, message: "already imported (same content)")
                file.bytes = size
                finish(file)
            case .ignored(let path, let message, let size):
                var file = FileSummary(path: path, status: .skipped, message: message)
                file.bytes = size
                finish(file)
            }
        }
        summary.writeCPUSeconds = threadCPUSeconds() - writeCPUStart
        recycle.close()
        parser.join()
        joined = true
        summary.parseCPUSeconds = parseCPU.seconds
        summary.seconds = Clock.monotonic() - started
        return summary
    }

    /// The parsing thread: reads, fingerprints and parses each file, handing batches to the writer.
    static func parseAll(_ jobs: [Job], options: ImportOptions, dbPath: String, queue: BoundedQueue<Message>, recycle: BoundedQueue<[Point]>) {
        // A read-only look at the database to skip files already imported without parsing them.
        let check = ImportDoneProbe(path: dbPath)
        defer { queue.close() }
        for job in jobs {
            if queue.isClosed { return }
            let bytes: FileBytes
            do {
                bytes = try FileBytes(path: job.path, raw: job.raw)
            } catch {
                let reason = (error as? FileError)?.reason ?? "\(error)"
                guard queue.push(.failed(path: job.path, message: "cannot read: \(reason)", size: job.size)) else { return }
                continue
            }
            guard parseJob(job, bytes: bytes, options: options, check: check, queue: queue, recycle: recycle) else { return }
        }
    }

    /// Parses one opened input: the file itself, or each file inside it when it is a gzip, tar or zip container,
    /// everything inflated from it held to one ``InflateBudget``. Returns false once the queue is closed.
    static func parseJob(_ job: Job, bytes: FileBytes, options: ImportOptions, check: ImportDoneProbe?, queue: BoundedQueue<Message>,
                         recycle: BoundedQueue<[Point]>) -> Bool {
        let budget = options.inflateLimit.map { InflateBudget(limit: $0) } ?? InflateBudget.standard(inputSize: bytes.count)
        return Containers.expand(path: job.path, bytes: bytes, budget: budget) { entry in
            switch entry {
            case .file(let path, let inner, let via, let notes):
                return parseOne(job: job, path: path, bytes: inner, via: via, notes: notes, inContainer: path != job.path,
                                options: options, check: check, queue: queue, recycle: recycle)
            case .failed(let path, let message):
                if let changed = bytes.changedWhileRead() {
                    return queue.push(.failed(path: path, message: changed, size: job.size))
                }
                return queue.push(.failed(path: path, message: message, size: job.size))
            case .skipped(let path, let message):
                return queue.push(.ignored(path: path, message: message, size: 0))
            }
        }
    }

    /// Fingerprints and parses one file (or one file inside a container), handing its batches to the writer.
    /// Returns false once the queue is closed.
    static func parseOne(job: Job, path: String, bytes: FileBytes, via: String, notes: [RejectRecord], inContainer: Bool,
                         options: ImportOptions, check: ImportDoneProbe?, queue: BoundedQueue<Message>, recycle: BoundedQueue<[Point]>) -> Bool {
        let fingerprint = bytes.fingerprint()
        // A shortcut only: when this read fails the file is parsed, and the writer's own check inside the file's
        // transaction (`ImportTable.isDone`) still skips it, so no error is lost and nothing is imported twice.
        if let check, check.isDone(fingerprint: fingerprint) {
            return queue.push(.skipped(path: path, size: bytes.count))
        }
        // Already damaged (a compressed file that shrank while it was inflated): failed at once, without parsing.
        if let changed = bytes.changedWhileRead() {
            return queue.push(.failed(path: path, message: changed, size: bytes.count))
        }
        guard queue.push(.begin(path: path, fingerprint: fingerprint, size: bytes.count, bytes: bytes, skipNonArchive: job.inFolder || inContainer)) else { return false }
        var fallback = job.fallback
        if inContainer && fallback.origin == .file { fallback.origin = .archive }
        var context = ReadContext(path: path, fallbackDevice: fallback, nowMs: options.nowMs, batchSize: options.batchSize,
                                  folderDevice: job.folderDevice)
        context.encodeCold = true
        context.dropPages = { [bytes] in bytes.dropPages(from: $0, to: $1) }
        var open = true
        let batchSize = options.batchSize
        var output = FormatDetector.parse(bytes.buffer, context: context) { out in
            guard open else {
                out.points.removeAll(keepingCapacity: true)
                out.positions.removeAll(keepingCapacity: true)
                out.cold.removeAll(keepingCapacity: true)
                return
            }
            var chunk = ParseOutput()
            chunk.devices = out.devices
            chunk.points = out.points
            chunk.positions = out.positions
            chunk.cold = out.cold
            chunk.events = out.events
            chunk.rejects = out.rejects
            if let first = out.positions.first { bytes.release(before: Int(first.byteOffset)) }
            // Reuse an array the writer is done with (its old points are freed here, off the writer's thread).
            if var reused = recycle.poll() {
                reused.removeAll(keepingCapacity: true)
                out.points = reused
            } else {
                out.points = []
                out.points.reserveCapacity(batchSize)
            }
            out.positions.removeAll(keepingCapacity: true)
            out.cold = []
            out.cold.reserveCapacity(chunk.cold.capacity)
            out.events = []
            out.rejects = []
            open = queue.push(.batch(chunk))
        }
        // A file that shrank (or changed) while it was read is not stored at all: the next run reads it whole.
        if let changed = bytes.changedWhileRead() {
            output.fatal = changed
            output.notArchive = false
        }
        if output.fatal != nil {
            output.points.removeAll()
            output.positions.removeAll()
        } else {
            output.rejects += notes
        }
        if !via.isEmpty, let format = output.format { output.format = via + ":" + format }
        return open && queue.push(.end(output))
    }
}

/// CPU time (user + system) the calling thread has used, in seconds.
public func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

final class CPUTimeBox: @unchecked Sendable {
    var seconds: Double = 0
}

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

    /// A point whose (device, time) is already stored: a duplicate when the position is the same, else a
    /// `conflicting_duplicate` reject (the first stays).
    func duplicate(_ p: Point, deviceID: Int64, position: SourcePosition, file: inout FileSummary) throws {
        guard let (lat, lon, from) = try points.stored(deviceID: deviceID, timeMs: p.timeMs) else { return }
        if lat == p.lat && lon == p.lon {
            file.pointsDuplicate += 1
            return
        }
        let when = CivilTime.iso8601(ms: p.timeMs)
        let source = from == importID ? "earlier in this file" : "from import \(from)"
        try reject(
            RejectRecord(line: position.line > 0 ? Int(position.line) : nil, byteOffset: Int(position.byteOffset),
                         reason: .conflictingDuplicate,
                         detail: "same device and time (\(when)) as a point stored \(source) at \(lat), \(lon); this record says \(p.lat), \(p.lon); the first is kept",
                         excerpt: excerpt(position) ?? "lat \(p.lat), lon \(p.lon), time \(when)"),
            file: &file)
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
            message: file.devices.map { "device '\($0.name)' (from \($0.origin))" }.joined(separator: "; "), firstMs: file.firstNewMs))
        inTransaction = false
        try store.commit()
    }
}
