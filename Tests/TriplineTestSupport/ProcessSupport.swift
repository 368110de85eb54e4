import Foundation
import Testing
import TriplineCore
@testable import TriplineStore

/// Running the built `tripline` binary for the fault tests, optionally as an unprivileged user.
package enum Binary {
    /// `.build/debug/tripline` beside the package (built by `swift build` / `swift test`).
    package static var path: String { packageRoot() + "/.build/debug/tripline" }

    package static var exists: Bool { FileSystem.exists(path) }

    /// Whether this process runs as root (CI does): permission bits do not stop root, so tests that are about
    /// permissions run the binary as `nobody` through `setpriv`.
    package static var isRoot: Bool { getuid() == 0 }

    /// The unprivileged user the permission tests run as.
    package static let nobody: UInt32 = 65534

    /// A copy of the binary in a folder every user may enter (the checkout may sit in a 0700 home folder).
    package nonisolated(unsafe) static var copied: String?
    package static func sharedCopy() throws -> String {
        if let copied, FileSystem.exists(copied) { return copied }
        let dir = try sharedTemporaryDirectory()
        let target = dir + "/tripline"
        try FileSystem.write(try FileSystem.read(path), to: target)
        chmod(target, 0o755)
        copied = target
        return target
    }

    /// Fails the calling test with a clear message when the binary cannot run as the unprivileged user at all (its
    /// Swift runtime libraries unreadable for that user, say), rather than letting a permission test fail obscurely.
    package static func requireRunsUnprivileged() throws {
        let r = try run(["--version"], unprivileged: true, timeout: 30)
        try #require(r.status == 0, "tripline cannot run as user \(nobody): \(r.stderr)")
    }

    /// A finished run: status, output, and whether it had to be killed for taking too long.
    package struct Result {
        package var status: Int32
        package var stdout: String
        package var stderr: String
        package var timedOut: Bool
    }

    /// Starts the binary. With `unprivileged`, as user/group 65534 via `setpriv` when this process is root (else as
    /// the current, already unprivileged user).
    package static func start(_ arguments: [String], unprivileged: Bool = false, environment: [String: String] = [:],
                      stdout: Any? = nil, stderr: Any? = nil, stdin: Any? = nil, directory: String? = nil) throws -> Process {
        let p = Process()
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if unprivileged && isRoot {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", try sharedCopy()] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        p.standardOutput = stdout ?? FileHandle.nullDevice
        p.standardError = stderr ?? FileHandle.nullDevice
        if let stdin { p.standardInput = stdin }
        try p.run()
        return p
    }

    /// A run held at a ``PausePoint``: the process, and the pipe to its standard input that lets it go on.
    package struct Paused {
        package var process: Process
        package var input: FileHandle
        /// What it wrote on standard error up to the marker.
        package var stderr: String

        /// Lets the process go on from the pause.
        package func resume() throws { try input.write(contentsOf: Data("\n".utf8)) }
        /// Kills it where it is paused and waits for it.
        package func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Starts the binary with `TRIPLINE_PAUSE_AT=moment` and returns once it has written `paused at <moment>`
    /// (so the caller knows exactly where the process is), or nil when it ended without reaching that moment.
    package static func startPaused(_ arguments: [String], at moment: String, environment: [String: String] = [:]) throws -> Paused? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        env["TRIPLINE_PAUSE_AT"] = moment
        p.environment = env
        let input = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        var text = ""
        let marker = "paused at \(moment)\n"
        while !text.contains(marker) {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty {  // end of file: the process ended without pausing
                p.waitUntilExit()
                return nil
            }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return Paused(process: p, input: input.fileHandleForWriting, stderr: text)
    }

    /// Runs the binary to its end (killing it after `timeout` seconds) and collects its output.
    package static func run(_ arguments: [String], unprivileged: Bool = false, environment: [String: String] = [:],
                    timeout: Double = 60, directory: String? = nil) throws -> Result {
        let dir = try temporaryDirectory()
        let outPath = dir + "/stdout", errPath = dir + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let p = try start(arguments, unprivileged: unprivileged, environment: environment, stdout: out, stderr: err, directory: directory)
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while p.isRunning {
            if Date() > deadline {
                kill(p.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(10_000)
        }
        p.waitUntilExit()
        try out.close()
        try err.close()
        return Result(status: p.terminationStatus,
                      stdout: String(decoding: try FileSystem.read(outPath), as: UTF8.self),
                      stderr: String(decoding: try FileSystem.read(errPath), as: UTF8.self), timedOut: timedOut)
    }
}

/// A temporary directory every user may enter (mkdtemp makes it 0700), for tests that run the binary as `nobody`.
package func sharedTemporaryDirectory() throws -> String {
    let dir = try temporaryDirectory()
    chmod(dir, 0o755)
    return dir
}

/// A folder inside `dir` owned by the unprivileged user (when root), where it may create a database.
package func unprivilegedFolder(_ dir: String) throws -> String {
    let folder = dir + "/nobody"
    try FileSystem.createDirectory(folder)
    if Binary.isRoot { chown(folder, Binary.nobody, Binary.nobody) }
    return folder
}

/// Every stored point, every import's status and every reject: the whole observable result of imports.
package func databasePicture(_ path: String) throws -> [String] {
    let store = try Store(path: path, create: false)
    var rows = try pointSet(store.db)
    let st = try store.db.prepare("SELECT path, status FROM imports ORDER BY path, status")
    while try st.step() { rows.append("import|\(st.text(0) ?? "")|\(st.text(1) ?? "")") }
    return rows
}
