#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// A blocking FIFO of bounded capacity between the parsing thread and the writing thread.
/// `push` waits while full, `pop` waits while empty; `close` wakes both sides for good.
final class BoundedQueue<Element>: @unchecked Sendable {
    private var items: [Element?] = []
    private var head = 0
    private let capacity: Int
    private var closed = false
    private var mutex = pthread_mutex_t()
    private var notEmpty = pthread_cond_t()
    private var notFull = pthread_cond_t()

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&notEmpty, nil)
        pthread_cond_init(&notFull, nil)
    }

    deinit {
        pthread_mutex_destroy(&mutex)
        pthread_cond_destroy(&notEmpty)
        pthread_cond_destroy(&notFull)
    }

    /// Adds an element, waiting while the queue is full. Returns false (dropping it) once the queue is closed.
    @discardableResult
    func push(_ element: Element) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.count - head >= capacity && !closed { pthread_cond_wait(&notFull, &mutex) }
        if closed { return false }
        items.append(element)
        pthread_cond_signal(&notEmpty)
        return true
    }

    /// Adds an element only when there is room (never waits).
    func offer(_ element: Element) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if items.count - head < capacity && !closed { items.append(element) }
    }

    /// Takes the oldest element, waiting while empty; nil once closed and drained.
    func pop() -> Element? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.count == head && !closed { pthread_cond_wait(&notEmpty, &mutex) }
        return takeLocked()
    }

    /// Takes the oldest element without waiting.
    func poll() -> Element? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return takeLocked()
    }

    private func takeLocked() -> Element? {
        guard items.count > head else { return nil }
        let element = items[head]
        items[head] = nil  // do not keep a taken batch alive
        head += 1
        if head >= 16 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        pthread_cond_signal(&notFull)
        return element
    }

    /// Ends the queue: pending pushes return false, pops drain what is left then return nil.
    func close() {
        pthread_mutex_lock(&mutex)
        closed = true
        pthread_cond_broadcast(&notEmpty)
        pthread_cond_broadcast(&notFull)
        pthread_mutex_unlock(&mutex)
    }

    var isClosed: Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return closed
    }
}

/// A thread that runs a closure once (pthreads; no Foundation).
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let box = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 8 << 20)
        pthread_create(&thread, &attributes, { raw in
            let me = Unmanaged<WorkerThread>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
    }

    func join() {
        pthread_join(thread, nil)
    }
}

/// A file's bytes: memory-mapped for regular files, read into memory for pipes and standard input.
final class FileBytes: @unchecked Sendable {
    let pointer: UnsafeRawPointer?
    let count: Int
    private let mapped: Bool
    private var owned: [UInt8]
    private var released = 0

    init(path: String) throws {
        let fd: Int32
        if path == "-" {
            // Standard input is spooled to an unlinked temporary file and mapped like any file, so its size does
            // not count against memory.
            fd = try FileBytes.spoolStandardInput()
        } else {
            // O_NONBLOCK: opening a named pipe (FIFO) that no process writes to must not block forever.
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError(path: path, errno: errno) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: throw FileError(path: path, reason: "is a directory")
        case S_IFREG: break
        case S_IFIFO:
            owned = try FileBytes.readPipe(fd: fd, path: path, timeoutMs: FileBytes.pipeTimeoutMs())
            mapped = false
            count = owned.count
            pointer = owned.withUnsafeBytes { $0.baseAddress }
            return
        default:
            throw FileError(path: path, reason: "is not a regular file (a device or socket); copy the data to a file or pipe it to 'tripline import -'")
        }
        if (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 {
            let size = Int(st.st_size)
            let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let address, address != MAP_FAILED else { throw FileError(path: path, errno: errno) }
            madvise(address, size, MADV_SEQUENTIAL)
            owned = []
            mapped = true
            count = size
            pointer = UnsafeRawPointer(address)
            return
        }
        owned = try FileSystem.readAll(fd: fd, path: path)
        mapped = false
        count = owned.count
        pointer = owned.withUnsafeBytes { $0.baseAddress }
    }

    deinit {
        if mapped, let pointer { munmap(UnsafeMutableRawPointer(mutating: pointer), count) }
    }

    /// How long a named pipe may stay silent (no writer, or a writer that sends nothing) before the import gives
    /// up on it: `TRIPLINE_PIPE_TIMEOUT` seconds, default 10.
    static func pipeTimeoutMs() -> Int32 {
        if let raw = getenv("TRIPLINE_PIPE_TIMEOUT"), let seconds = Double(String(cString: raw)), seconds >= 0 {
            return Int32(min(seconds, 86_400) * 1000)
        }
        return 10_000
    }

    /// Reads a pipe opened with `O_NONBLOCK` to its end, waiting at most `timeoutMs` for each piece of data.
    /// - Throws: ``FileError`` when nothing arrives in time (a FIFO nobody writes to) or reading fails.
    static func readPipe(fd: Int32, path: String, timeoutMs: Int32) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var sawWriter = false
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errno: errno)
            }
            if ready == 0 {
                let seconds = Double(timeoutMs) / 1000
                throw FileError(path: path, reason: sawWriter
                    ? "is a pipe whose writer sent nothing for \(seconds) s; gave up"
                    : "is a named pipe (FIFO) that no process wrote to within \(seconds) s; gave up")
            }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw FileError(path: path, errno: errno)
            }
            if n == 0 { return result }  // the writer closed its end
            sawWriter = true
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Copies standard input into an unlinked temporary file; returns its descriptor, positioned at the start.
    static func spoolStandardInput() throws -> Int32 {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/tripline-stdin.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileError(path: base, errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
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
            var written = 0
            while written < n {
                let w = chunk.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, n - written) }
                if w < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    close(fd)
                    throw FileError(path: "\(base) (spooling standard input)", errno: code)
                }
                written += w
            }
        }
        lseek(fd, 0, SEEK_SET)
        return fd
    }

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    /// Lets the kernel drop the mapped pages before `offset` from memory (they are re-read from the file if
    /// touched again), so a huge file does not count against the process's memory.
    func release(before offset: Int) {
        guard mapped, let pointer else { return }
        let page = 1 << 16
        let end = (offset / page) * page
        guard end > released + (8 << 20) else { return }
        madvise(UnsafeMutableRawPointer(mutating: pointer) + released, end - released, MADV_DONTNEED)
        released = end
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
                if mapped && count > 4 * window {
                    let page = 1 << 16
                    let from = (windowStart / page) * page
                    let to = (i / page) * page
                    if to > from { madvise(UnsafeMutableRawPointer(mutating: pointer) + from, to - from, MADV_DONTNEED) }
                }
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
