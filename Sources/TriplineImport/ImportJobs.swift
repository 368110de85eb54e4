#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

extension Importer {
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
                var folder = FileSystem.baseName(path)
                if folder == "." || folder == ".." {
                    // `cd phone && tripline import .`: the folder's own name, not `.` (two phones each imported from
                    // inside its folder became one device `.`).
                    folder = Importer.realPath(path).map { FileSystem.baseName($0) } ?? folder
                }
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
}
