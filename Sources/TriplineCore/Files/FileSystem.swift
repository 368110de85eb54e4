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
        let text = String(cString: strerror(errno))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// The size of the regular file at `path`, or nil.
    public static func size(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int(st.st_size)
    }

    /// Reads the whole file at `path`.
    public static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        defer { close(fd) }
        return try readAll(fd: fd, path: path)
    }

    /// Reads a descriptor to its end (used for standard input and pipes too).
    public static func readAll(fd: Int32, path: String) throws -> [UInt8] {
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
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Writes `bytes` to `path`, replacing it.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errno: errno)
            }
            offset += n
        }
    }

    public static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// Creates `path` and any missing parents.
    public static func createDirectory(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
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

    /// Removes a file if it exists.
    public static func remove(_ path: String) {
        unlink(path)
    }

    /// A fresh temporary directory under `$TMPDIR` or `/tmp`.
    public static func temporaryDirectory(prefix: String = "tripline") throws -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
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
