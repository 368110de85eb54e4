#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error opening, reading or writing a file, naming the path and the system's reason.
public struct FileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }

    package init(path: String, errno code: Int32) {
        self.path = path
        self.reason = String(cString: strerror(code))
    }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// Small, Foundation-free file-system helpers used at the pipeline's edges.
public enum FileSystem {
    public enum Kind: Sendable { case file, directory, fifo, other }

    /// Whether anything exists at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// The kind of file at `path`, or nil when nothing is there.
    public static func kind(_ path: String) -> Kind? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        default: return .other
        }
    }

    /// Why `stat` fails on `path` ("no such file or directory", "permission denied" for a folder on the way that may
    /// not be searched, …), or nil when it succeeds.
    public static func statFailure(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) != 0 else { return nil }
        return failure(errno: errno)
    }

    /// Why a path could not be reached, as a phrase: the system's words, except where they would mislead.
    public static func failure(errno code: Int32) -> String {
        if code == ENAMETOOLONG {
            return "the path is longer than the system allows (\(PATH_MAX) bytes in all, \(NAME_MAX) a name), so it cannot be opened: "
                + "move the folder higher up, or import it from inside (cd into it)"
        }
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// The size of the regular file at `path`, or nil.
    public static func size(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int(st.st_size)
    }

    /// Reads the whole file at `path`.
    /// At most `limit` bytes: a larger (or endless) input, such as `/dev/zero`, is an error, not a full memory.
    /// A named pipe (FIFO) is read as `import` reads one: opened without blocking, and given up on when no data
    /// arrives for `pipeTimeoutMs` (`query FIFO` or `rebuild --config FIFO` with no writer must not hang).
    public static func read(_ path: String, limit: Int = Int.max, pipeTimeoutMs: Int32 = FileSystem.pipeTimeoutMs()) throws -> [UInt8] {
        // O_NONBLOCK: opening a FIFO that no process writes to would otherwise block in `open` for ever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFIFO {
            return try readPipe(fd: fd, path: path, timeoutMs: pipeTimeoutMs, limit: limit)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return try readAll(fd: fd, path: path, limit: limit)
    }

    /// How long a named pipe may stay silent (no writer, or a writer that sends nothing) before a read gives up on
    /// it: `TRIPLINE_PIPE_TIMEOUT` seconds, default 10. The one rule for every file Tripline reads.
    public static func pipeTimeoutMs() -> Int32 {
        if let raw = getenv("TRIPLINE_PIPE_TIMEOUT"), let seconds = Double(String(cString: raw)), seconds >= 0 {
            return Int32(min(seconds, 86_400) * 1000)
        }
        return 10_000
    }

    /// Reads a pipe opened with `O_NONBLOCK` to its end, waiting at most `timeoutMs` for each piece of data, at most
    /// `limit` bytes.
    /// - Throws: ``FileError`` when nothing arrives in time (a FIFO nobody writes to), there is more than `limit`, or
    ///   reading fails.
    public static func readPipe(fd: Int32, path: String, timeoutMs: Int32, limit: Int = Int.max) throws -> [UInt8] {
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
            if result.count + n > limit {
                throw FileError(path: path, reason: "is larger than \(limit >> 20) MiB (or endless); not read")
            }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads a descriptor to its end (used for standard input and pipes too), at most `limit` bytes: more is an
    /// error naming the limit (so `/dev/zero` or an endless pipe cannot fill memory).
    public static func readAll(fd: Int32, path: String, limit: Int = Int.max) throws -> [UInt8] {
        var result: [UInt8] = []
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw FileError(path: path, reason: "is a directory")
        }
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 {
            result.reserveCapacity(Int(st.st_size))
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errno: errno)
            }
            if n == 0 { break }
            if result.count + n > limit {
                throw FileError(path: path, reason: "is larger than \(limit >> 20) MiB (or endless, like a device); not read")
            }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Writes `bytes` to `path`, replacing it atomically: a new hidden file beside it (mode 0666 less the umask, or
    /// the mode of the regular file it replaces) is renamed over `path`. Whatever was at `path` is replaced, never
    /// written through: a symbolic link planted there (`simulate --out D` with `D/truth.json` a link to another
    /// file) is replaced by the file and its target left alone, and so is the other name of a hard link.
    /// Not synced to disk (the simulator's archives and test fixtures: a crash may leave an empty file, never a
    /// changed foreign one). A folder at `path` is an error.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let directory = directoryName(path)
        guard let temporary = OutputFiles.createTemporary(template: "\(directory)/.\(baseName(path)).tripline-XXXXXX") else {
            throw FileError(path: path, errno: errno)
        }
        var done = false
        defer {
            if !done { unlink(temporary.path) }
            OutputFiles.unregister(temporary.token)
        }
        do {
            defer { close(temporary.descriptor) }
            OutputFiles.keepMode(of: path, on: temporary.descriptor)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(temporary.descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError(path: path, errno: errno)
                }
                offset += n
            }
        }
        guard rename(temporary.path, path) == 0 else { throw FileError(path: path, errno: errno) }
        done = true
    }

    public static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// Creates `path` and any missing parents. With `root` (a leading part of `path`, as the user gave it), every
    /// component below `root` that already exists must not be a symbolic link: a link planted there would carry what
    /// is written outside the directory the user named (links in `root` itself are the user's own and followed).
    public static func createDirectory(_ path: String, inside root: String? = nil) throws {
        var current = path.hasPrefix("/") ? "" : "."
        let rootDepth = root.map { ($0.hasPrefix("/") ? 0 : 1) + $0.split(separator: "/").count } ?? Int.max
        for (depth, component) in path.split(separator: "/").enumerated() {
            current += "/" + component
            var st = stat()
            if depth + (path.hasPrefix("/") ? 0 : 1) >= rootDepth, lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK {
                throw FileError(path: current, reason: "is a symbolic link; nothing is written through it, only inside \(root!)")
            }
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw FileError(path: current, errno: errno)
            }
        }
    }

    /// The entries of a directory, sorted by name, without `.` and `..`.
    public static func list(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw FileError(path: path, errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Every regular file under `path`, depth first, sorted by path; hidden entries (starting with `.`) are skipped.
    /// Directories that cannot be read are reported through `onError` and skipped.
    public static func walk(_ path: String, onError: (FileError) -> Void) -> [String] {
        var result: [String] = []
        func visit(_ dir: String) {
            let names: [String]
            do { names = try list(dir) } catch let error as FileError {
                onError(error)
                return
            } catch { return }
            for name in names where !name.hasPrefix(".") {
                let child = dir.hasSuffix("/") ? dir + name : dir + "/" + name
                switch kind(child) {
                case .directory: visit(child)
                case .file: result.append(child)
                default: break
                }
            }
        }
        visit(path)
        return result
    }

    /// A file found by ``walkEntries(_:)``: its path as the bytes the file system holds (not always UTF-8) and as
    /// text to show (``Terminal/escapedPathBytes(_:)``).
    public struct WalkEntry: Sendable {
        public var raw: [UInt8]
        public var display: String
    }

    /// What ``walkEntries(_:)`` found.
    public struct WalkResult: Sendable {
        public var files: [WalkEntry] = []
        /// Entries passed over on purpose, with the reason (shown to the user, not failures).
        public var skipped: [(path: String, reason: String)] = []
        /// Folders that could not be read.
        public var errors: [FileError] = []
    }

    /// The entries of a directory given as raw path bytes, sorted bytewise, without `.` and `..`.
    static func listRaw(_ dir: [UInt8]) throws -> [[UInt8]] {
        guard let handle = (dir + [0]).withUnsafeBufferPointer({ opendir(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }) else {
            let code = errno
            if code == ENAMETOOLONG { throw FileError(path: Terminal.escapedPathBytes(dir), reason: failure(errno: code)) }
            throw FileError(path: Terminal.escapedPathBytes(dir), errno: code)
        }
        defer { closedir(handle) }
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// `stat` (following links) of a raw path.
    package static func statRaw(_ path: [UInt8]) -> stat? {
        var st = stat()
        let ok = (path + [0]).withUnsafeBufferPointer { stat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st) == 0 }
        return ok ? st : nil
    }

    /// Names that, next to a `rec/` folder, mark an OwnTracks Recorder store (`ot-recorder --storage`).
    static let recorderStoreNames: Set<[UInt8]> = Set(["ghash", "last", "monitor", "photos", "msg", "htdocs", "cards", "flags", "waypoints"].map { Array($0.utf8) })

    /// Every regular file under `path`, depth first, sorted by name; hidden entries (starting with `.`) skipped.
    ///
    /// - Symbolic links are followed, but each real folder (device and inode) is read once: a link to a parent
    ///   or a folder reached twice is listed as skipped, so link loops cannot make the walk explode.
    /// - `/proc`, `/sys` and `/dev` (or a folder in them) reached through a link below the folder given are skipped:
    ///   `/proc` holds every process's working folder (`/proc/PID/cwd`) and files without end. A folder given that
    ///   lies in one of them (`/dev/shm/archives`) is read with its subfolders.
    /// - A link to a folder that holds the folder given (`root -> /`, `up -> ../..`, a link to the home folder) is
    ///   listed as skipped, not followed: it would read everything beside the folder given, the whole file system
    ///   for a link to `/` (`/proc` and every other user's files included).
    /// - Names that are not UTF-8 are kept as bytes (``WalkEntry/raw``) and shown escaped.
    /// - An OwnTracks Recorder store (a folder with `rec/` next to `ghash/`, `last/`, `monitor`, `photos/`, …) is read
    ///   through its `rec/` only; the rest is listed as skipped once.
    /// - FIFOs, devices, sockets and broken links are listed as skipped.
    public static func walkEntries(_ path: String) -> WalkResult {
        var result = WalkResult()
        var seen = Set<[UInt64]>()
        let above = enclosingFolders(of: path)
        let root = Array(path.utf8)
        // A folder given inside the kernel's folders (`/dev/shm/archives`) is read whole: only a link out of the
        // folder given into them is skipped.
        let rootKernel = kernelFileSystem(root)
        func join(_ dir: [UInt8], _ name: [UInt8]) -> [UInt8] { dir.last == 0x2F ? dir + name : dir + [0x2F] + name }
        func visit(_ dir: [UInt8]) {
            let display = Terminal.escapedPathBytes(dir)
            guard let st = statRaw(dir) else { return }
            let identity = [UInt64(st.st_dev), UInt64(st.st_ino)]
            if dir != root, let kernel = kernelFileSystem(dir), kernel != rootKernel {
                result.skipped.append((display, "\(kernel), the kernel's folder (reached through a symbolic link), which holds no archives but "
                                       + "other processes' folders and files without end; not read"))
                return
            }
            if above.contains(identity) {
                let given = Terminal.escapedPathBytes(Array(path.utf8))
                result.skipped.append((display, "a symbolic link to a folder that holds \(given) (following it would read everything "
                                       + "beside it, the whole file system for a link to /); not read"))
                return
            }
            guard seen.insert(identity).inserted else {
                result.skipped.append((display, "a folder already read through another path (a symbolic link); read once"))
                return
            }
            var names: [[UInt8]]
            do { names = try listRaw(dir) } catch let error as FileError {
                result.errors.append(error)
                return
            } catch { return }
            names.removeAll { $0.first == 0x2E }
            let rec = Array("rec".utf8)
            if names.contains(rec), let recStat = statRaw(join(dir, rec)), recStat.st_mode & S_IFMT == S_IFDIR,
               names.contains(where: { recorderStoreNames.contains($0) })
            {
                let others = names.filter { $0 != rec }.map { Terminal.escapedPathBytes($0) }
                result.skipped.append((display, "an OwnTracks Recorder store: only rec/ holds locations; not read: \(others.joined(separator: ", "))"))
                names = [rec]
            }
            for name in names {
                let child = join(dir, name)
                guard let cst = statRaw(child) else {
                    // Only a link to nothing (or a file removed meanwhile) is passed over; a path too long to open, a
                    // folder that may not be searched and the like are errors, so the import does not end as if it had
                    // read everything.
                    let code = errno
                    if code == ENOENT || code == ELOOP {
                        result.skipped.append((Terminal.escapedPathBytes(child), "a broken symbolic link (or it vanished)"))
                    } else {
                        result.errors.append(FileError(path: Terminal.escapedPathBytes(child), reason: failure(errno: code)))
                    }
                    continue
                }
                switch cst.st_mode & S_IFMT {
                case S_IFDIR: visit(child)
                case S_IFREG: result.files.append(WalkEntry(raw: child, display: Terminal.escapedPathBytes(child)))
                case S_IFIFO: result.skipped.append((Terminal.escapedPathBytes(child), "a named pipe (FIFO) inside a folder is not read; give it on its own"))
                default: result.skipped.append((Terminal.escapedPathBytes(child), "not a regular file (a device or socket)"))
                }
            }
        }
        visit(root)
        return result
    }

    /// The kernel's folder (`/proc`, `/sys` or `/dev`) that `path` really is or lies in, else nil.
    static func kernelFileSystem(_ path: [UInt8]) -> String? {
        let resolved = (path + [0]).withUnsafeBufferPointer { realpath(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), nil) }
        guard let resolved else { return nil }
        defer { free(resolved) }
        let real = String(cString: resolved)
        return ["/proc", "/sys", "/dev"].first { real == $0 || real.hasPrefix($0 + "/") }
    }

    /// The identities (device, inode) of the folders that hold `path`, from its real parent up to `/`, `path`
    /// itself left out (its own identity is the walk's first).
    static func enclosingFolders(of path: String) -> Set<[UInt64]> {
        var folders = Set<[UInt64]>()
        guard let resolved = realpath(path, nil) else { return folders }
        var current = String(cString: resolved)
        free(resolved)
        while current != "/" {
            current = directoryName(current)
            var st = stat()
            if stat(current, &st) == 0 { folders.insert([UInt64(st.st_dev), UInt64(st.st_ino)]) }
        }
        return folders
    }

    /// Removes a file if it exists.
    public static func remove(_ path: String) {
        unlink(path)
    }

    /// Removes `path` and, when it is a directory, everything below it. Links are removed, never followed (a link to a
    /// folder elsewhere leaves that folder alone). Errors are ignored: this cleans up scratch space.
    public static func removeTree(_ path: String) { removeTree(raw: Array(path.utf8)) }

    /// ``removeTree(_:)`` on raw path bytes (names need not be UTF-8: a test writes `caf\xE9.json`).
    static func removeTree(raw path: [UInt8]) {
        (path + [0]).withUnsafeBufferPointer { buffer in
            let c = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var st = stat()
            guard lstat(c, &st) == 0 else { return }
            if st.st_mode & S_IFMT == S_IFDIR {
                for name in (try? listRaw(path)) ?? [] { removeTree(raw: path + [0x2F] + name) }
                rmdir(c)
            } else {
                unlink(c)
            }
        }
    }

    /// A fresh temporary directory under `directory`, else `$TMPDIR`, else `/tmp`.
    public static func temporaryDirectory(prefix: String = "tripline", in directory: String? = nil) throws -> String {
        let base = directory ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw FileError(path: base, errno: errno)
        }
        return String(cString: result)
    }

    /// Whether the descriptor is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) != 0 }

    /// The last path component.
    public static func baseName(_ path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }

    /// The path without its last component ("." when there is none).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
