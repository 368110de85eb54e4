#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where commands write files (`export -o`, `map -o`): what may be replaced, and the temporary files to remove
/// when the process is interrupted.
public enum OutputFiles {
    /// Refuses an output path that is not a new path or a regular file: a symbolic link (which could point anywhere),
    /// a FIFO, a device node (as root, `-o /dev/null` would otherwise replace `/dev/null` with a regular file), a
    /// socket or a folder. `-` (standard output) is not a path and is not checked here.
    /// - Throws: ``FileError`` naming the path and what is there.
    public static func checkReplaceable(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw FileError(path: path, errno: errno)
        }
        let what: String
        switch st.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFLNK: what = "a symbolic link"
        case S_IFIFO: what = "a named pipe (FIFO)"
        case S_IFCHR, S_IFBLK: what = "a device"
        case S_IFSOCK: what = "a socket"
        case S_IFDIR: what = "a folder"
        default: what = "not a regular file"
        }
        throw FileError(path: path, reason: "is \(what); refusing to replace it (write to a new path or a regular file, or '-' for standard output)")
    }

    // MARK: Temporary files removed on SIGINT / SIGTERM / SIGHUP

    static let slots = 16
    /// C strings of the temporary files to remove when a signal ends the process; nil = free. Written under
    /// `lock`, read by the signal handler (which only calls `unlink`, `signal` and `raise`).
    nonisolated(unsafe) static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        p.initialize(repeating: nil, count: slots)
        return p
    }()
    nonisolated(unsafe) static var lock = pthread_mutex_t()

    static let installed: Bool = {
        pthread_mutex_init(&lock, nil)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            var old = sigaction()
            sigaction(sig, nil, &old)
            // A signal the parent set to be ignored (nohup) stays ignored.
            if let handler = old.__sigaction_handler.sa_handler,
               unsafeBitCast(handler, to: Int.self) == 1 /* SIG_IGN */ { continue }
            action.__sigaction_handler.sa_handler = { sig in
                for i in 0..<OutputFiles.slots {
                    if let p = OutputFiles.paths[i] { unlink(p) }
                }
                signal(sig, SIG_DFL)
                raise(sig)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
        return true
    }()

    /// Creates a temporary file from `template` (`mkstemp`: its last six characters `XXXXXX`) and registers it
    /// (``register(_:)``) with SIGINT, SIGTERM and SIGHUP blocked in between, so that no signal can end the process
    /// after the file exists and before it is registered: such a signal waits until the file can be removed. Returns
    /// nil, with `errno` set, when the file cannot be created.
    public static func createTemporary(template: String) -> (descriptor: Int32, path: String, token: Int)? {
        _ = installed
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, sig) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer {
            let code = errno
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            errno = code
        }
        var bytes = Array(template.utf8CString)
        let descriptor = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (descriptor, path, register(path))
    }

    /// Registers a temporary file to remove if SIGINT, SIGTERM or SIGHUP ends the process; returns a token for
    /// ``unregister(_:)`` (call it once the file is renamed into place or removed).
    public static func register(_ path: String) -> Int {
        _ = installed
        let copy = strdup(path)
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<slots where paths[i] == nil {
            paths[i] = copy
            return i
        }
        free(copy)
        return -1
    }

    public static func unregister(_ token: Int) {
        guard token >= 0 else { return }
        pthread_mutex_lock(&lock)
        let p = paths[token]
        paths[token] = nil
        pthread_mutex_unlock(&lock)
        free(p)
    }
}
