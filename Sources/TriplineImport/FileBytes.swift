#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Keeps a memory-mapped input from killing the process when the file shrinks under it.
///
/// Reading a mapped page beyond the end of a file that was truncated after `mmap` raises SIGBUS. The handler looks
/// the faulting address up among the live mappings; when it is inside one, it maps zero-filled pages over the rest
/// of that mapping (so the read returns zeros and the parser goes on) and marks the mapping faulted. The importer
/// then fails that file as "changed while being read" and rolls back everything of it. A SIGBUS anywhere else
/// restores the previous handler and happens again, as it would have without this guard.
enum MappingGuard {
    static let slots = 32
    /// Pairs (start, end) of live mappings; 0 = free. Written under `lock`, read by the handler.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<UInt> = {
        let p = UnsafeMutablePointer<UInt>.allocate(capacity: slots * 2)
        p.initialize(repeating: 0, count: slots * 2)
        return p
    }()
    /// 1 when the mapping in that slot took a fault.
    nonisolated(unsafe) static let faults: UnsafeMutablePointer<UInt> = {
        let p = UnsafeMutablePointer<UInt>.allocate(capacity: slots)
        p.initialize(repeating: 0, count: slots)
        return p
    }()
    nonisolated(unsafe) static var previous = sigaction()
    nonisolated(unsafe) static var lock = pthread_mutex_t()
    nonisolated(unsafe) static var pageSize: UInt = 4096

    /// Installs the handler (once).
    static let installed: Bool = {
        pthread_mutex_init(&lock, nil)
        pageSize = UInt(max(4096, sysconf(Int32(_SC_PAGESIZE))))
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            for i in 0..<MappingGuard.slots {
                let start = MappingGuard.table[2 * i], end = MappingGuard.table[2 * i + 1]
                if start != 0, address >= start, address < end {
                    let page = address & ~(MappingGuard.pageSize - 1)
                    _ = mmap(UnsafeMutableRawPointer(bitPattern: page), Int(end - page), PROT_READ,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
                    MappingGuard.faults[i] = 1
                    return
                }
            }
            // Not one of ours: put the previous handler back and let the access fault again.
            sigaction(SIGBUS, &MappingGuard.previous, nil)
        }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, &previous)
        return true
    }()

    /// Registers a mapping; returns its slot (or -1 when the table is full: the mapping is then unguarded).
    static func register(_ base: UnsafeMutableRawPointer, _ length: Int) -> Int {
        _ = installed
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<slots where table[2 * i] == 0 {
            faults[i] = 0
            table[2 * i + 1] = UInt(bitPattern: base) + UInt(length)
            table[2 * i] = UInt(bitPattern: base)
            return i
        }
        return -1
    }

    static func unregister(_ slot: Int) {
        guard slot >= 0 else { return }
        pthread_mutex_lock(&lock)
        table[2 * slot] = 0
        table[2 * slot + 1] = 0
        pthread_mutex_unlock(&lock)
    }
}

/// A file's bytes: memory-mapped for regular files (guarded by ``MappingGuard``), read into memory for pipes,
/// spooled to an unlinked temporary file and mapped for standard input and decompressed content, or a view into
/// another ``FileBytes`` (an entry of a tar or stored zip file).
final class FileBytes: @unchecked Sendable {
    let pointer: UnsafeRawPointer?
    let count: Int
    private let mapBase: UnsafeMutableRawPointer?
    private let mapSlot: Int
    private let parent: FileBytes?
    private let parentOffset: Int
    private let owned: [UInt8]
    private var released = 0
    /// The path and (size, modification time) when opened, to tell whether the file changed while it was read.
    private let identity: (path: [UInt8], size: Int, sec: Int, nsec: Int)?
    /// For content inflated from a compressed file (a `.gz`, a deflated zip entry): that file, with its name as
    /// shown. When it shrinks or changes while it is inflated or while its content is parsed, the content is not
    /// whole either (a `.gz` cut under the inflater reads as a stream that ends early).
    private(set) var origin: FileBytes?
    /// The path as shown, for a mapped file.
    private(set) var name = ""

    private init(pointer: UnsafeRawPointer?, count: Int, mapBase: UnsafeMutableRawPointer?, mapSlot: Int, parent: FileBytes?,
                 parentOffset: Int, owned: [UInt8], identity: (path: [UInt8], size: Int, sec: Int, nsec: Int)?) {
        self.pointer = pointer
        self.count = count
        self.mapBase = mapBase
        self.mapSlot = mapSlot
        self.parent = parent
        self.parentOffset = parentOffset
        self.owned = owned
        self.identity = identity
    }

    /// Bytes held in memory.
    convenience init(bytes: [UInt8]) {
        let pointer = bytes.withUnsafeBytes { $0.baseAddress }
        self.init(pointer: pointer, count: bytes.count, mapBase: nil, mapSlot: -1, parent: nil, parentOffset: 0, owned: bytes, identity: nil)
    }

    /// `count` bytes of `parent` from `offset` (kept alive by the view).
    convenience init(view parent: FileBytes, offset: Int, count: Int) {
        self.init(pointer: parent.pointer.map { $0 + offset }, count: count, mapBase: nil, mapSlot: -1, parent: parent,
                  parentOffset: offset, owned: [], identity: nil)
    }

    /// Maps the regular file open on `fd` (which the caller closes).
    convenience init(mapping fd: Int32, path: String, identity: Bool, statPath: [UInt8]? = nil) throws {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError(path: path, errno: errno) }
        let size = Int(st.st_size)
        let id = identity ? (path: statPath ?? (Array(path.utf8) + [0]), size: size, sec: Int(st.st_mtim.tv_sec), nsec: Int(st.st_mtim.tv_nsec)) : nil
        guard size > 0 else {
            // Some files report size 0 but have content (/proc, some network file systems): read them, bounded.
            let bytes = try FileSystem.readAll(fd: fd, path: path, limit: 64 << 20)
            let pointer = bytes.withUnsafeBytes { $0.baseAddress }
            self.init(pointer: pointer, count: bytes.count, mapBase: nil, mapSlot: -1, parent: nil, parentOffset: 0, owned: bytes, identity: nil)
            return
        }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else { throw FileError(path: path, errno: errno) }
        madvise(address, size, MADV_SEQUENTIAL)
        let slot = MappingGuard.register(address, size)
        self.init(pointer: UnsafeRawPointer(address), count: size, mapBase: address, mapSlot: slot, parent: nil, parentOffset: 0,
                  owned: [], identity: id)
        name = path
    }

    /// Opens `path` (`-` = standard input); `raw` is the path's bytes when they are not UTF-8 (`path` then is
    /// only what is shown).
    convenience init(path: String, raw: [UInt8]? = nil) throws {
        if path == "-" {
            // Standard input is spooled to an unlinked temporary file and mapped like any file, so its size does
            // not count against memory.
            let fd = try FileBytes.spoolStandardInput()
            defer { close(fd) }
            try self.init(mapping: fd, path: "standard input", identity: false)
            return
        }
        // O_NONBLOCK: opening a named pipe (FIFO) that no process writes to must not block forever.
        let cPath = (raw ?? Array(path.utf8)) + [0]
        let fd = cPath.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError(path: path, errno: errno) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: throw FileError(path: path, reason: "is a directory")
        case S_IFREG: try self.init(mapping: fd, path: path, identity: true, statPath: cPath)
        case S_IFIFO:
            PausePoint.reach("import.pipe.opened")  // process tests: the writer comes after the reader opened the pipe
            self.init(bytes: try FileBytes.readPipe(fd: fd, path: path, timeoutMs: FileBytes.pipeTimeoutMs()))
        default:
            throw FileError(path: path, reason: "is not a regular file (a device or socket); copy the data to a file or pipe it to 'tripline import -'")
        }
    }

    deinit {
        if let mapBase {
            MappingGuard.unregister(mapSlot)
            munmap(mapBase, count)
        }
    }

    /// Whether the mapped file shrank while it was read (pages past its new end read as zeros), or was changed
    /// (size or modification time) since it was opened — or, for inflated content, whether the compressed file it
    /// came from did. Nil when it is intact; else a sentence saying what happened. `container`: these bytes are a
    /// compressed file or archive whose inflating failed, so its change is told as the compressed file's, as when the
    /// change is found in what was inflated from it (which of the two sees it depends on when the file was cut).
    func changedWhileRead(container: Bool = false) -> String? {
        guard let found = rootChange() else { return nil }
        if found.inflated || container {
            // The inflated content may look whole (or end like a cut gzip file); it is not what the file holds.
            return "the compressed file \(found.name) \(found.what), so what was inflated from it is not its whole content; nothing of it was stored: import it again once it is complete"
        }
        return "the file \(found.what); nothing of it was stored: import it again once it is complete"
    }

    /// The file that changed (this one, the one it is a view into, or the compressed file it was inflated from,
    /// through any number of layers), with what happened to it.
    private func rootChange() -> (name: String, what: String, inflated: Bool)? {
        if let parent { return parent.rootChange() }
        if let what = change() { return (name, what, false) }
        if let origin, let found = origin.rootChange() { return (found.name, found.what, true) }
        return nil
    }

    /// What happened to the mapped file itself (``changedWhileRead()``): "shrank while …" or "was changed while …".
    private func change() -> String? {
        if mapSlot >= 0, MappingGuard.faults[mapSlot] != 0 {
            return "shrank while it was being read (it had \(count) bytes)"
        }
        guard let identity else { return nil }
        var st = stat()
        let found = identity.path.withUnsafeBufferPointer { stat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st) == 0 }
        guard found else { return nil }  // removed after being opened: the mapping still holds it
        if Int(st.st_size) != identity.size || Int(st.st_mtim.tv_sec) != identity.sec || Int(st.st_mtim.tv_nsec) != identity.nsec {
            return "was changed while it was being read (\(identity.size) bytes when opened, \(st.st_size) now)"
        }
        return nil
    }

    /// How long a named pipe may stay silent before the import gives up on it: ``FileSystem/pipeTimeoutMs()``, the
    /// rule every file Tripline reads follows (`TRIPLINE_PIPE_TIMEOUT` seconds, default 10).
    static func pipeTimeoutMs() -> Int32 { FileSystem.pipeTimeoutMs() }

    /// Reads a pipe opened with `O_NONBLOCK` to its end (``FileSystem/readPipe(fd:path:timeoutMs:limit:)``).
    static func readPipe(fd: Int32, path: String, timeoutMs: Int32) throws -> [UInt8] {
        try FileSystem.readPipe(fd: fd, path: path, timeoutMs: timeoutMs)
    }

    /// A new unlinked temporary file (so nothing is left behind, whatever ends the process); returns its descriptor.
    /// It is made in `$TMPDIR` (unset or empty: `/tmp`), taken as the bytes it holds: a name that is not UTF-8 is the
    /// folder it names (read into a String it would get U+FFFD and name no folder). When no file can be made there,
    /// the error names TMPDIR and the folder (it said only "-: cannot read: No such file or directory").
    static func unlinkedTemporaryFile(_ prefix: String) throws -> Int32 {
        var base: [UInt8] = Array("/tmp".utf8)
        if let value = getenv("TMPDIR"), value[0] != 0 {
            base = Array(UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: strlen(value)))
        }
        var template: [CChar] = (base + Array("/\(prefix).XXXXXX".utf8) + [0]).map { CChar(bitPattern: $0) }
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            let code = errno
            let shown = Terminal.escapedPathBytes(base)
            let why = "TMPDIR=\(shown): no temporary file can be made there (\(FileSystem.failure(errno: code)))"
            let what = "Tripline keeps standard input and unpacked files in one while it reads them"
            let fix = "set TMPDIR to a folder that exists and can be written, or unset it (/tmp)"
            throw FileError(path: shown, reason: "\(why), and \(what); \(fix)")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var written = 0
        while written < bytes.count {
            let w = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if w < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errno: errno)
            }
            written += w
        }
    }

    /// Spools what `produce` writes into an unlinked temporary file, then maps it. `origin` is the compressed file
    /// the content is inflated from: when it changes, the content is not whole either (``changedWhileRead()``).
    static func spooled(_ prefix: String, path: String, origin: FileBytes? = nil, _ produce: (Int32) throws -> Void) throws -> FileBytes {
        let fd = try unlinkedTemporaryFile(prefix)
        defer { close(fd) }
        try produce(fd)
        let bytes = try FileBytes(mapping: fd, path: path, identity: false)
        bytes.origin = origin
        return bytes
    }

    /// Copies standard input into an unlinked temporary file; returns its descriptor, positioned at the start.
    static func spoolStandardInput() throws -> Int32 {
        let fd = try unlinkedTemporaryFile("tripline-stdin")
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw FileError(path: "standard input", errno: code)
            }
            if n == 0 { break }
            do {
                try chunk.withUnsafeBytes { try writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n]), path: "temporary file (spooling standard input)") }
            } catch {
                close(fd)
                throw error
            }
        }
        lseek(fd, 0, SEEK_SET)
        return fd
    }

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    /// Lets the kernel drop the mapped pages before `offset` from memory (they are re-read from the file if
    /// touched again), so a huge file does not count against the process's memory.
    func release(before offset: Int) {
        if let parent {
            parent.release(before: parentOffset + offset)
            return
        }
        guard let mapBase else { return }
        let page = 1 << 16
        let end = (min(offset, count) / page) * page
        guard end > released + (8 << 20) else { return }
        madvise(mapBase + released, end - released, MADV_DONTNEED)
        released = end
    }

    /// Drops the mapped pages of `from..<to` (offsets into these bytes) from memory.
    func dropPages(from: Int, to: Int) {
        if let parent {
            parent.dropPages(from: parentOffset + from, to: parentOffset + to)
            return
        }
        guard let mapBase else { return }
        let page = 1 << 16
        let start = ((from + page - 1) / page) * page
        let end = (min(to, count) / page) * page
        if end > start { madvise(mapBase + start, end - start, MADV_DONTNEED) }
    }

    /// A content fingerprint: the size and a 64-bit hash of every byte (not cryptographic; it tells files apart).
    func fingerprint() -> String {
        // Four independent lanes over 32-byte blocks (so the multiplies overlap), then the tail, then a mix.
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15 ^ UInt64(count), 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5)
        var h: UInt64 = 0
        if let pointer {
            var i = 0
            @inline(__always) func mix(_ lane: inout UInt64, _ w: UInt64) {
                lane = (lane ^ w) &* 0xFF51_AFD7_ED55_8CCD
                lane ^= lane >> 29
            }
            // In windows of 8 MiB; a large mapped file's pages are let go behind the hash, so hashing a huge file
            // does not hold it all in memory (the parser reads them back from the page cache).
            let window = 8 << 20
            while i + 32 <= count {
                let stop = min(count - 32, i + window)
                let windowStart = i
                while i <= stop {
                    mix(&lanes.0, pointer.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    mix(&lanes.1, pointer.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                    mix(&lanes.2, pointer.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                    mix(&lanes.3, pointer.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
                    i += 32
                }
                if count > 4 * window { dropPages(from: windowStart, to: i) }
            }
            while i + 8 <= count {
                mix(&lanes.0, pointer.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(pointer.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift += 8
                i += 1
            }
            mix(&lanes.1, tail)
        }
        h = lanes.0 ^ (lanes.1 &* 0x9E37_79B9_7F4A_7C15) ^ (lanes.2 &* 0xC4CE_B9FE_1A85_EC53) ^ (lanes.3 &* 0xFF51_AFD7_ED55_8CCD)
        h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 32
        let hex = String(h, radix: 16)
        return "\(count)-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
