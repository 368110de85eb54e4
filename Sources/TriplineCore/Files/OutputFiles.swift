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

    /// Refuses `output` when it is the database `database` or one of the files SQLite keeps beside it (`-wal`,
    /// `-shm`, `-journal`): compared by the canonical name (the folder's symbolic links and `.`/`..` resolved, the
    /// database's own link followed too, as SQLite does) and, for files that exist, by device and inode (a hard
    /// link, a symbolic link to the database). Commands that write a file the user names call this before they
    /// open the database, so `-o tripline.sqlite` can never leave an export where the database was.
    /// - Throws: ``FileError`` naming the output and the database.
    public static func checkNotDatabase(_ output: String, database: String) throws {
        var names = Set<String>()
        for base in [canonicalName(database), canonicalPath(database)].compactMap({ $0 }) {
            for suffix in ["", "-wal", "-shm", "-journal"] { names.insert(base + suffix) }
        }
        var identities = Set<[UInt64]>()
        for name in names {
            var st = stat()
            if stat(name, &st) == 0 { identities.insert([UInt64(st.st_dev), UInt64(st.st_ino)]) }
        }
        var clash = canonicalName(output).map { names.contains($0) } ?? false
        var st = stat()
        if !clash, stat(output, &st) == 0, identities.contains([UInt64(st.st_dev), UInt64(st.st_ino)]) { clash = true }
        if clash {
            throw FileError(
                path: output,
                reason: "is the database \(database) (or its -wal, -shm or -journal file); refusing to write over it: choose another output path")
        }
    }

    /// Refuses an output that is one of the files a command reads (the same file however it is spelled: device and
    /// inode, so symbolic and hard links too): `plan -o` naming an archive it plans would replace the archive with
    /// the plan. An output that does not exist yet is none of them.
    /// - Throws: ``FileError`` naming the output and the input it is.
    public static func checkNotInput(_ output: String, inputs: [String], role: String) throws {
        var st = stat()
        guard stat(output, &st) == 0 else { return }
        let identity = [UInt64(st.st_dev), UInt64(st.st_ino)]
        for input in inputs {
            var other = stat()
            if stat(input, &other) == 0, [UInt64(other.st_dev), UInt64(other.st_ino)] == identity {
                throw FileError(path: output, reason: "is \(input), one of the files \(role); refusing to write over it: choose another output path")
            }
        }
    }

    /// Refuses an output inside one of `folders` (compared with links resolved): a command that reads a whole folder
    /// (`evaluate --geolife DIR`) never writes into it, where the file would damage or join what it reads.
    /// - Throws: ``FileError`` naming the output and the folder.
    public static func checkNotInside(_ output: String, folders: [String], role: String) throws {
        guard let name = canonicalName(output) else { return }
        for folder in folders {
            guard let root = canonicalPath(folder) else { continue }
            if name == root || name.hasPrefix(root == "/" ? "/" : root + "/") {
                throw FileError(path: output, reason: "is inside \(folder), \(role); refusing to write there: choose another output path")
            }
        }
    }

    /// Whether two paths name one file, however spelled: the same name with the folder's links resolved (a file that
    /// does not exist yet), or the same device and inode.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        if let x = canonicalName(a), let y = canonicalName(b), x == y { return true }
        var sa = stat(), sb = stat()
        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// `path` with every symbolic link resolved, or nil when it does not exist.
    static func canonicalPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path`'s folder resolved (``canonicalPath(_:)``) followed by its last component as given, so that a file that
    /// does not exist yet (a `-wal` after a clean close) still has one name however it is spelled; nil when the
    /// folder does not exist.
    static func canonicalName(_ path: String) -> String? {
        let base = FileSystem.baseName(path)
        guard !base.isEmpty, base != ".", base != "..", !path.hasSuffix("/") else { return canonicalPath(path) }
        guard let folder = canonicalPath(FileSystem.directoryName(path)) else { return nil }
        return (folder == "/" ? "" : folder) + "/" + base
    }

    // MARK: Modes

    /// Gives a new file that will replace `path` the mode of the regular file at `path` (its permission bits;
    /// set-user-ID, set-group-ID and sticky bits are not carried over), and, when run as root, its owner and group
    /// too (root replacing a user's export must not leave the user a file they cannot rewrite; others cannot give a
    /// file away, so theirs stays theirs). When nothing is there the file keeps the mode it was created with, which
    /// honours the umask (``createTemporary(template:)``).
    public static func keepMode(of path: String, on descriptor: Int32) {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        if geteuid() == 0 { _ = fchown(descriptor, st.st_uid, st.st_gid) }
        fchmod(descriptor, st.st_mode & 0o777)
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

    /// Creates a temporary file from `template` (its last six characters `XXXXXX` are replaced by random letters)
    /// and registers it (``register(_:)``) with SIGINT, SIGTERM and SIGHUP blocked in between, so that no signal can
    /// end the process after the file exists and before it is registered: such a signal waits until the file can be
    /// removed. The file is created with `O_EXCL | O_NOFOLLOW` and mode 0666 less the umask, as any new file
    /// (`mkstemp` would make it 0600, and a fixed mode would ignore the umask). Returns nil, with `errno` set, when
    /// the file cannot be created.
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
        guard template.hasSuffix("XXXXXX") else {
            errno = EINVAL
            return nil
        }
        let stem = String(template.dropLast(6))
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        for _ in 0..<100 {
            var random = SystemRandomNumberGenerator()
            let suffix = String(decoding: (0..<6).map { _ in letters[Int(random.next() % UInt64(letters.count))] }, as: UTF8.self)
            let path = stem + suffix
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return (descriptor, path, register(path)) }
            if errno != EEXIST { return nil }
        }
        return nil
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
