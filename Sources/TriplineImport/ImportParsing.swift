#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

extension Importer {
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
                if let changed = bytes.changedWhileRead(container: true) {  // only containers fail here
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
