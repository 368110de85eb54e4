#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

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
    /// Called on the calling thread when the writer takes a file's first message: the file is open and mapped, and
    /// its records are being read (the tests cut a file here, at a known point of its import).
    package var onBegin: ((String) -> Void)?
    /// The ids new devices take (a shard's import, `import --plan`); nil: the next free id.
    public var deviceIDPlan: DeviceIDPlan?

    public init(store: Store, options: ImportOptions = ImportOptions()) {
        self.store = store
        self.options = options
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
                onBegin?(path)
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
                    file.message = chunk.rejects.first?.detail == FormatDetector.emptyDetail(byteCount: 0)
                        ? "an empty file: nothing to import" : "a file of only white space: nothing to import"
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
