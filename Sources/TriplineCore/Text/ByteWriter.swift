#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A buffered writer of bytes to a file descriptor, an ``OutputStream`` or memory.
///
/// Exports write through one of these: records are formatted straight into a large buffer (1 MiB by default) that
/// is handed to the sink in big chunks. No Foundation, no `String` building per record: numbers, times and escaped
/// text are written as bytes by the `append…` methods here and in `ExportText.swift`.
///
/// A write error on the sink is remembered and thrown by the next ``flush()`` (and by every later append that
/// needs to flush), so a full disk stops the export instead of producing a silently truncated file.
public final class ByteWriter {
    enum Sink {
        case fd(Int32, path: String)
        case stream(OutputStream)
        case memory
    }

    /// The writer's mutable state, kept behind a pointer: stored properties of a class are checked for exclusive
    /// access at run time on every `+=`, which cost ~10 % of an export; a pointee is not.
    @usableFromInline
    struct State {
        @usableFromInline var buffer: UnsafeMutablePointer<UInt8>
        @usableFromInline var capacity: Int
        @usableFromInline var count: Int
        @usableFromInline var flushedBytes: Int
        /// The last day ``append(time:offset:)`` wrote, and its `YYYY-MM-DDT` (11 bytes) — exports write
        /// times in order, so most times reuse the day's text.
        var cachedDay: Int64 = .min
        var cachedDate: (UInt64, UInt64) = (0, 0)
    }

    let sink: Sink
    @usableFromInline let state: UnsafeMutablePointer<State>

    // The hot appends are @inlinable so that the writers in TriplineExport inline them across the module boundary.
    @inlinable @inline(__always) var buffer: UnsafeMutablePointer<UInt8> {
        get { state.pointee.buffer }
        set { state.pointee.buffer = newValue }
    }
    @inlinable @inline(__always) var capacity: Int {
        get { state.pointee.capacity }
        set { state.pointee.capacity = newValue }
    }
    @inlinable @inline(__always) var count: Int {
        get { state.pointee.count }
        set { state.pointee.count = newValue }
    }
    /// Bytes handed to the sink so far (not counting what is still buffered).
    public private(set) var flushedBytes: Int {
        get { state.pointee.flushedBytes }
        set { state.pointee.flushedBytes = newValue }
    }

    /// Bytes written so far, buffered or not.
    public var bytesWritten: Int { flushedBytes + count }

    init(sink: Sink, capacity: Int = 1 << 20) {
        self.sink = sink
        let size = max(capacity, 64)
        state = .allocate(capacity: 1)
        state.initialize(to: State(buffer: .allocate(capacity: size), capacity: size, count: 0, flushedBytes: 0))
    }

    /// A writer to an open file descriptor (1 for standard output). `path` names it in errors.
    public convenience init(fd: Int32, path: String) { self.init(sink: .fd(fd, path: path)) }

    /// A writer to an ``OutputStream`` (what in-process CLI runs and tests capture).
    public convenience init(stream: OutputStream) { self.init(sink: .stream(stream)) }

    /// A writer that keeps everything in memory; read it back with ``withBytes(_:)`` or ``bytes``.
    public static func memory(capacity: Int = 1 << 16) -> ByteWriter { ByteWriter(sink: .memory, capacity: capacity) }

    deinit {
        state.pointee.buffer.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The buffered bytes of a memory writer.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer, count: count)) }

    /// Calls `body` with the buffered bytes (for a memory writer: everything written since the last ``clear()``).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: buffer, count: count))
    }

    /// Forgets the buffered bytes of a memory writer.
    public func clear() { count = 0 }

    /// Drops buffered bytes after `length` (a memory writer undoing a partial record).
    package func truncate(to length: Int) { count = min(count, length) }

    /// Hands the buffered bytes to the sink.
    /// - Throws: ``FileError`` when the file descriptor refuses the bytes (disk full, closed pipe, …).
    public func flush() throws {
        switch sink {
        case .memory:
            return
        case .stream(let stream):
            stream.write(bytes: UnsafeRawBufferPointer(start: buffer, count: count))
        case .fd(let fd, let path):
            var offset = 0
            while offset < count {
                let n = Glibc.write(fd, buffer + offset, count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError(path: path, errno: errno)
                }
                offset += n
            }
        }
        flushedBytes += count
        count = 0
    }

    /// Makes room for `n` more bytes: flushes, or for a memory writer grows the buffer.
    @inlinable @inline(__always)
    func reserve(_ n: Int) throws {
        if count + n > capacity { try makeRoom(n) }
    }

    @usableFromInline @inline(never)
    func makeRoom(_ n: Int) throws {
        if case .memory = sink {
            grow(count + n)
            return
        }
        try flush()
        if n > capacity { grow(n) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBuffer.update(from: buffer, count: count)
        buffer.deallocate()
        buffer = newBuffer
        capacity = newCapacity
    }

    // MARK: Raw appends

    /// One byte. The caller has reserved room.
    @inlinable @inline(__always)
    func put(_ byte: UInt8) {
        buffer[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    public func append(_ byte: UInt8) throws {
        try reserve(1)
        put(byte)
    }

    /// A literal, written as its UTF-8 bytes.
    @inlinable @inline(__always)
    public func append(_ literal: StaticString) throws {
        let n = literal.utf8CodeUnitCount
        try reserve(n)
        (buffer + count).update(from: literal.utf8Start, count: n)
        count += n
    }

    /// Raw bytes, unescaped.
    @inlinable
    public func append(bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        try reserve(bytes.count)
        (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Raw bytes, unescaped.
    public func append(bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append(bytes: $0) }
    }

    /// The string's UTF-8 bytes, unescaped (for text Tripline itself composed).
    public func append(raw string: String) throws {
        var string = string
        try string.withUTF8 { try append(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The file an export writes: a temporary file beside the target, renamed over it when complete, so readers never
/// see half a file and a failed export leaves the old file untouched. `-` or nil means standard output.
public final class ExportDestination {
    /// Where the result goes (`-` for standard output).
    public let path: String
    let temporaryPath: String?
    /// The temporary file's registration for removal on SIGINT/SIGTERM (``OutputFiles/register(_:)``).
    private var cleanupToken = -1
    let fd: Int32
    public let writer: ByteWriter
    private var finished = false
    /// Standard output, when that is the destination (its write errors are checked on commit).
    private let stdoutStream: OutputStream?

    /// Opens the destination.
    /// - Parameters:
    ///   - path: the file to write, or nil / `-` for `stdout`.
    ///   - stdout: where standard output goes (the CLI's stream, so in-process runs can capture it).
    /// - Throws: ``FileError`` when the temporary file cannot be created (missing directory, no permission).
    public init(path: String?, stdout: OutputStream) throws {
        guard let path, path != "-" else {
            self.path = "-"
            temporaryPath = nil
            fd = -1
            writer = ByteWriter(stream: stdout)
            stdoutStream = stdout
            return
        }
        self.path = path
        stdoutStream = nil
        try OutputFiles.checkReplaceable(path)
        let directory = FileSystem.directoryName(path)
        let base = FileSystem.baseName(path)
        // Created and registered for removal with the interrupting signals held off in between (a Ctrl-C right after
        // the file appeared left it behind).
        guard let temporary = OutputFiles.createTemporary(template: "\(directory)/.\(base).tripline-XXXXXX") else {
            throw FileError(path: path, reason: "cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        let descriptor = temporary.descriptor
        temporaryPath = temporary.path
        cleanupToken = temporary.token
        // New files honour the umask; a file replaced keeps its mode (a map of someone's nights stays 0600).
        OutputFiles.keepMode(of: path, on: descriptor)
        fd = descriptor
        writer = ByteWriter(fd: descriptor, path: path)
        PausePoint.reach("export.temporary.created")  // process tests: interrupted here, no file may be left
    }

    /// Flushes, and for a file: syncs, closes and renames the temporary file over `path`.
    public func commit() throws {
        guard !finished else { return }
        finished = true
        do {
            try writer.flush()
        } catch {
            discardFile()
            throw error
        }
        guard let temporaryPath else {
            if let code = stdoutStream?.writeError {
                throw FileError(path: "standard output", errno: code)
            }
            return
        }
        if fsync(fd) != 0 {
            let code = errno
            discardFile()
            throw FileError(path: path, errno: code)
        }
        close(fd)
        // Checked again just before the rename: something may have appeared at the path meanwhile.
        do { try OutputFiles.checkReplaceable(path) } catch {
            unlink(temporaryPath)
            OutputFiles.unregister(cleanupToken)
            throw error
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            unlink(temporaryPath)
            OutputFiles.unregister(cleanupToken)
            throw FileError(path: path, errno: code)
        }
        OutputFiles.unregister(cleanupToken)
    }

    /// Abandons a file export: the temporary file is removed and `path` keeps what it had.
    public func discard() {
        guard !finished else { return }
        finished = true
        discardFile()
    }

    private func discardFile() {
        guard let temporaryPath else { return }
        close(fd)
        unlink(temporaryPath)
        OutputFiles.unregister(cleanupToken)
    }

    deinit { discard() }
}
