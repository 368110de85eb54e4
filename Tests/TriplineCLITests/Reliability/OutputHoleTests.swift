import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// Holes 2, 6, 7, 8, 9, 12 and 13 of issue 21: what commands write (never the database, with the umask and a replaced
/// file's mode, never through a link), how `--db` is read, read-only commands on a read-only database, negative
/// schema versions, and FIFOs given where a file is read.
@Suite(.serialized) struct OutputHoleTests {
    func mode(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o7777 : nil
    }

    /// Runs the built binary through `/bin/sh` in `directory`, with `umask` set first when given (the umask and the
    /// working directory are the process's own: an in-process run would change them for every test running beside).
    func runShell(_ arguments: [String], in directory: String, umask: String? = nil, environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", (umask.map { "umask \($0) && " } ?? "") + "exec \"$0\" \"$@\"", Binary.path] + arguments
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let files = try temporaryDirectory()
        _ = FileManager.default.createFile(atPath: files + "/stdout", contents: nil)
        _ = FileManager.default.createFile(atPath: files + "/stderr", contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: files + "/stdout"))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: files + "/stderr"))
        p.standardOutput = out
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        try out.close()
        try err.close()
        return (p.terminationStatus, String(decoding: try FileSystem.read(files + "/stdout"), as: UTF8.self),
                String(decoding: try FileSystem.read(files + "/stderr"), as: UTF8.self))
    }

    // MARK: 2. An output is never the database

    @Test func exportAndMapRefuseTheDatabaseHoweverItIsSpelled() throws {
        let (dir, db) = try smallDatabase()
        try FileSystem.createDirectory(dir + "/sub")
        #expect(symlink(dir, dir + "/alias") == 0)
        #expect(link(db, dir + "/hard.csv") == 0)
        #expect(symlink(db, dir + "/link.sqlite") == 0)
        let before = try FileSystem.read(db)
        let spellings = [db, dir + "/./t.sqlite", dir + "/sub/../t.sqlite", dir + "/alias/t.sqlite", dir + "/hard.csv",
                         db + "-wal", db + "-shm", db + "-journal", dir + "/alias/t.sqlite-wal"]
        for output in spellings {
            let e = runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", output])
            #expect(e.status == 64 && e.stderr.contains("is the database \(db)") && e.stderr.contains("refusing to write over it"),
                    "\(output): \(e.stderr)")
            let m = runCLI(["map", "--db", db, "-o", output])
            #expect(m.status == 64 && m.stderr.contains("is the database"), "\(output): \(m.stderr)")
        }
        // The database named through a symbolic link: its target (where SQLite keeps -wal and -shm) is refused too.
        let viaLink = runCLI(["export", "--what", "points", "--format", "csv", "--db", dir + "/link.sqlite", "-o", db + "-wal"])
        #expect(viaLink.status == 64 && viaLink.stderr.contains("is the database"), "\(viaLink.stderr)")
        let mapViaLink = runCLI(["map", "--db", dir + "/link.sqlite", "-o", db])
        #expect(mapViaLink.status == 64, "\(mapViaLink.stderr)")
        #expect(try FileSystem.read(db) == before)
        #expect(!FileSystem.exists(db + "-journal"))
        // $TRIPLINE_DB is the database too; other paths beside it are fine.
        let env = runCLI(["map", "-o", db], environment: ["TRIPLINE_DB": db])
        #expect(env.status == 64, "\(env.stderr)")
        #expect(runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", dir + "/t.csv"]).status == 0)
        #expect(runCLI(["map", "--db", db, "-o", dir + "/t.sqlite.html"]).status == 0)
        #expect(try Store(path: db, readOnly: true).db.scalarInt("SELECT count(*) FROM points") == 50)
    }

    @Test func demoRefusesToReplaceTheUsersDatabase() throws {
        let (dir, db) = try smallDatabase()
        let before = try FileSystem.read(db)
        // `demo --out DIR` makes DIR/tripline.sqlite: here that is the database $TRIPLINE_DB names.
        try FileSystem.write(try FileSystem.read(db), to: dir + "/tripline.sqlite")
        let r = runCLI(["demo", "--out", dir], environment: ["TRIPLINE_DB": dir + "/tripline.sqlite"])
        #expect(r.status == 64 && r.stderr.contains("is the database"), "\(r.stderr)")
        #expect(try FileSystem.read(dir + "/tripline.sqlite") == before)
    }

    @Test func theDatabaseCheckComparesNamesAndInodes() throws {
        let dir = try temporaryDirectory()
        let db = dir + "/d.sqlite"
        try FileSystem.write("x", to: db)
        // Not there yet: compared by name with the folder resolved.
        #expect(throws: FileError.self) { try OutputFiles.checkNotDatabase(dir + "/../" + FileSystem.baseName(dir) + "/d.sqlite-shm", database: db) }
        #expect(throws: FileError.self) { try OutputFiles.checkNotDatabase(dir + "//d.sqlite", database: db) }
        #expect(throws: Never.self) { try OutputFiles.checkNotDatabase(dir + "/d.sqlite.csv", database: db) }
        #expect(throws: Never.self) { try OutputFiles.checkNotDatabase(dir + "/d.sqlite-walrus", database: db) }
        #expect(throws: Never.self) { try OutputFiles.checkNotDatabase(dir + "/missing/d.sqlite", database: db) }
    }

    // MARK: 6. Modes: the umask for new files, the old mode for replaced ones

    @Test func aReplacedExportOrMapKeepsItsMode() throws {
        let (dir, db) = try smallDatabase()
        for (name, arguments) in [("p.csv", ["export", "--what", "points", "--format", "csv"]), ("m.html", ["map"])] {
            let path = dir + "/" + name
            try FileSystem.write("old", to: path)
            chmod(path, 0o600)
            let r = runCLI(arguments + ["--db", db, "-o", path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try FileSystem.read(path) != Array("old".utf8))
            #expect(mode(path) == 0o600, "\(name): \(String(mode(path) ?? 0, radix: 8))")
            chmod(path, 0o640)
            #expect(runCLI(arguments + ["--db", db, "-o", path]).status == 0)
            #expect(mode(path) == 0o640, "\(name): \(String(mode(path) ?? 0, radix: 8))")
        }
        // FileSystem.write (the simulator's files) keeps it too.
        try FileSystem.write("again", to: dir + "/p.csv")
        #expect(mode(dir + "/p.csv") == 0o640)
    }

    /// Root replacing a user's file gives the new file that user's owner and group, as it gives the mode; only
    /// root can give a file away, so elsewhere there is nothing to check.
    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func rootReplacingAUsersFileKeepsItsOwner() throws {
        let (dir, db) = try smallDatabase()
        for (name, arguments) in [("p.csv", ["export", "--what", "points", "--format", "csv"]), ("m.html", ["map"])] {
            let path = dir + "/" + name
            try FileSystem.write("old", to: path)
            #expect(chown(path, 4321, 8765) == 0)
            let r = runCLI(arguments + ["--db", db, "-o", path])
            #expect(r.status == 0, "\(r.stderr)")
            var st = stat()
            #expect(stat(path, &st) == 0 && st.st_uid == 4321 && st.st_gid == 8765, "\(name): \(st.st_uid):\(st.st_gid)")
        }
        try FileSystem.write("again", to: dir + "/p.csv")
        var st = stat()
        #expect(stat(dir + "/p.csv", &st) == 0 && st.st_uid == 4321, "FileSystem.write keeps it too")
    }

    @Test func newOutputsHonourTheUmask() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, db) = try smallDatabase()
        let export = try runShell(["export", "--what", "points", "--format", "csv", "--db", db, "-o", "p.csv"], in: dir, umask: "077")
        #expect(export.status == 0, "\(export.stderr)")
        #expect(mode(dir + "/p.csv") == 0o600)
        let map = try runShell(["map", "--db", db, "-o", "m.html"], in: dir, umask: "027")
        #expect(map.status == 0, "\(map.stderr)")
        #expect(mode(dir + "/m.html") == 0o640)
        let sim = try runShell(["simulate", "--out", "sim", "--days", "1", "--people", "1"], in: dir, umask: "077")
        #expect(sim.status == 0, "\(sim.stderr)")
        #expect(mode(dir + "/sim/truth.json") == 0o600)
    }

    // MARK: 7. --db is a file name, never an SQLite URI

    @Test func databasePathsAreFileNamesNotURIs() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, _) = try smallDatabase()
        for name in ["file:m.sqlite?mode=memory", "file:v.sqlite?vfs=unix-none", "file:x.sqlite", ":memory:", "file:p%41.sqlite#f"] {
            let r = try runShell(["import", "--db", name, "in.json"], in: dir)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(FileSystem.kind(dir + "/" + name) == .file, "\(name): no file of that literal name")
            let store = try Store(path: dir + "/" + name, readOnly: true)
            #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 50, "\(name)")
            let info = try runShell(["info", "--db", name], in: dir)
            #expect(info.status == 0 && info.stdout.contains("phone"), "\(name): \(info.stderr)")
        }
        // Nothing was made of the names as URIs would read them.
        for other in ["m.sqlite", "v.sqlite", "x.sqlite", "pA.sqlite"] { #expect(!FileSystem.exists(dir + "/" + other), "\(other)") }
        // An absolute path that starts with '//' is still a path, not a URI authority.
        let abs = try runShell(["info", "--db", "/" + dir + "/file:x.sqlite"], in: "/")
        #expect(abs.status == 0, "\(abs.stderr)")
    }

    @Test func fileURIsEscapeEverythingSQLiteWouldRead() {
        #expect(Database.fileURI("/a/b c?d#e%f") == "file:///a/b%20c%3Fd%23e%25f")
        #expect(Database.fileURI("file:x?mode=memory") == "file:./file:x%3Fmode=memory")
        #expect(Database.fileURI(":memory:") == "file:./:memory:")
        #expect(Database.fileURI("//x/caf\u{E9}") == "file:////x/caf%C3%A9")
    }

    // MARK: 8. Read-only commands on a database nobody may write

    @Test func placesAndScoreWorkOnAReadOnlyDatabase() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let db = dir + "/t.sqlite"
        #expect(runCLI(["simulate", "--out", dir + "/sim", "--days", "1", "--people", "1"]).status == 0)
        #expect(runCLI(["import", "--db", db, "-q", dir + "/sim"]).status == 0)
        let rebuild = runCLI(["rebuild", "--db", db, "-q", "--timezone", "Europe/Berlin"])
        #expect(rebuild.status == 0, "\(rebuild.stderr)")
        let shared = try sharedTemporaryDirectory()
        let copy = shared + "/t.sqlite"
        try FileSystem.write(try FileSystem.read(db), to: copy)
        try FileSystem.write(try FileSystem.read(dir + "/sim/truth.json"), to: shared + "/truth.json")
        chmod(copy, 0o444)
        chmod(shared + "/truth.json", 0o644)
        chmod(shared, 0o555)
        defer { chmod(shared, 0o755) }
        guard Binary.isRoot else {
            print("skipped: the read-only database test runs the binary as user 65534, which needs root")
            return
        }
        try Binary.requireRunsUnprivileged()
        let places = try Binary.run(["places", "--db", copy], unprivileged: true)
        #expect(places.status == 0 && places.stdout.contains("NAME"), "\(places.stderr)")
        let json = try Binary.run(["places", "--db", copy, "--json"], unprivileged: true)
        #expect(json.status == 0 && json.stdout.hasPrefix("{\"places\":[{"), "\(json.stderr)")
        let score = try Binary.run(["score", "--db", copy, "--truth", shared + "/truth.json"], unprivileged: true)
        #expect(score.status == 0 && !score.stdout.isEmpty, "\(score.stderr)")
        // Editing places still needs a database it may write, and says so.
        let rename = try Binary.run(["places", "rename", "1", "x", "--db", copy], unprivileged: true)
        #expect(rename.status == 1, "\(rename.stderr)")
        #expect(!FileSystem.exists(copy + "-shm") && !FileSystem.exists(copy + "-wal"))
    }

    // MARK: 9. A negative schema version

    @Test func aNegativeSchemaVersionIsRefusedByEveryCommand() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, db) = try smallDatabase()
        do {
            let connection = try Database(path: db)
            try connection.execute("PRAGMA user_version = -1")
        }
        let before = try FileSystem.read(db)
        let commands: [[String]] = [
            ["info"], ["import", dir + "/in.json"], ["rebuild"], ["places"], ["export", "--what", "points", "--format", "csv", "-o", "-"],
            ["map", "-o", dir + "/m.html"], ["report", "daily-summary", "--format", "csv"],
        ]
        for command in commands {
            let r = try Binary.run(command + ["--db", db], timeout: 60)
            #expect(r.status == 1, "\(command[0]): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("schema version (PRAGMA user_version) is -1"), "\(command[0]): \(r.stderr)")
        }
        #expect(try FileSystem.read(db) == before)
    }

    // MARK: 12. FIFOs given where a file is read

    @Test func aFIFOWithoutAWriterIsGivenUpOnByEveryCommand() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, db) = try smallDatabase()
        let fifo = dir + "/pipe"
        try #require(mkfifo(fifo, 0o644) == 0)
        let commands: [[String]] = [["query", fifo], ["rebuild", "--config", fifo], ["score", "--truth", fifo]]
        for command in commands {
            let r = try Binary.run(command + ["--db", db], environment: ["TRIPLINE_PIPE_TIMEOUT": "1"], timeout: 30)
            #expect(!r.timedOut, "\(command[0]) hung on a FIFO")
            #expect(r.status == 1, "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains("is a named pipe (FIFO) that no process wrote to within 1.0 s"), "\(command[0]): \(r.stderr)")
        }
    }

    @Test func aFIFOWithAWriterIsRead() throws {
        let dir = try temporaryDirectory()
        let fifo = dir + "/pipe"
        try #require(mkfifo(fifo, 0o644) == 0)
        // The writer's open waits for the reader's: no sleep needed to meet.
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            _ = "SELECT 1;\n".withCString { write(fd, $0, 10) }
            close(fd)
        }
        writer.start()
        let bytes = try FileSystem.read(fifo, limit: 1 << 20, pipeTimeoutMs: 60_000)
        #expect(bytes == Array("SELECT 1;\n".utf8))
        #expect(throws: FileError.self) { _ = try FileSystem.read(fifo, pipeTimeoutMs: 50) }
    }

    // MARK: 13. simulate never writes through a link

    @Test func simulateReplacesLinksInsteadOfWritingThroughThem() throws {
        let dir = try temporaryDirectory()
        let out = dir + "/out"
        try FileSystem.createDirectory(out)
        try FileSystem.write("precious\n", to: dir + "/victim")
        try FileSystem.write("also precious\n", to: dir + "/other")
        #expect(symlink(dir + "/victim", out + "/truth.json") == 0)
        try FileSystem.createDirectory(out + "/overland/overland-1")
        #expect(link(dir + "/other", out + "/overland/overland-1/batch-00001.json") == 0)
        let r = runCLI(["simulate", "--out", out, "--days", "1", "--people", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileSystem.read(dir + "/victim") == Array("precious\n".utf8))
        #expect(try FileSystem.read(dir + "/other") == Array("also precious\n".utf8))
        var st = stat()
        #expect(lstat(out + "/truth.json", &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
        #expect(try FileSystem.read(out + "/truth.json").first == UInt8(ascii: "{"))
        #expect(try FileSystem.list(out).allSatisfy { !$0.hasPrefix(".") }, "no temporary file left")
    }

    /// A link planted as one of the folders simulate writes (`overland/`, `rec/<user>/`, `google/<device>/`) is not
    /// followed: the run stops naming it and nothing lands where it points. The output folder itself may be a link:
    /// that is the user's own path.
    @Test func simulateDoesNotWriteThroughALinkedFolder() throws {
        for (planted, flags) in [("overland", [String]()), ("rec/person2", []), ("google", ["--google"])] {
            let dir = try temporaryDirectory()
            let out = dir + "/out", elsewhere = dir + "/elsewhere"
            try FileSystem.createDirectory(elsewhere)
            let parent = (out + "/" + planted).split(separator: "/").dropLast().joined(separator: "/")
            try FileSystem.createDirectory("/" + parent)
            #expect(symlink(elsewhere, out + "/" + planted) == 0)
            let r = runCLI(["simulate", "--out", out, "--days", "1", "--people", "2"] + flags)
            #expect(r.status != 0 && r.stderr.contains(planted) && r.stderr.contains("symbolic link"), "\(planted): \(r.status) \(r.stderr)")
            #expect(try FileSystem.list(elsewhere).isEmpty, "\(planted): written through the link")
        }
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/real")
        #expect(symlink(dir + "/real", dir + "/out") == 0)
        let r = runCLI(["simulate", "--out", dir + "/out", "--days", "1", "--people", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileSystem.exists(dir + "/real/truth.json") && FileSystem.exists(dir + "/real/overland"))
    }
}
