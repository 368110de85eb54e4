import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// Hostile environments: full disks, read-only databases, unreadable inputs, FIFOs, newer schemas.
@Suite(.serialized) struct FaultTests {
    /// Three JSON-lines files of 3000 points each (device `p`), ~1 MB together.
    func threeFiles(_ dir: String) throws -> [String] {
        try FileSystem.createDirectory(dir)
        return try (0..<3).map { f in
            var text = ""
            for b in 0..<10 {
                var features: [String] = []
                for i in 0..<300 {
                    let ms: Int64 = 1_704_067_200_000 + Int64(f) * 86_400_000 + Int64(b) * 3_600_000 + Int64(i) * 1000
                    let lat: Double = 50 + Double(i) / 10_000
                    features.append(overlandFeature(CivilTime.iso8601(ms: ms), lat: lat, lon: 8, device: "p"))
                }
                text += overlandBody(features) + "\n"
            }
            let path = dir + "/f\(f).json"
            try FileSystem.write(text, to: path)
            return path
        }
    }

    // MARK: Full disk

    /// Whether a tmpfs can be mounted here (root with CAP_SYS_ADMIN); decided once by trying.
    static let canMount: Bool = {
        guard getuid() == 0, FileSystem.exists("/usr/bin/mount") || FileSystem.exists("/bin/mount"),
              let dir = try? temporaryDirectory() else { return false }
        let ok = shell("mount -t tmpfs -o size=64k tmpfs '\(dir)'") == 0
        if ok { _ = shell("umount '\(dir)'") }
        return ok
    }()

    static func shell(_ command: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// The database on a real, tiny file system (a 600 KiB tmpfs) that fills up during the third file.
    @Test(.enabled(if: FaultTests.canMount, "needs root and permission to mount a tmpfs"))
    func fullDiskGivesAClearErrorAndCommitsWholeFilesOnly() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let files = try threeFiles(dir + "/in")
        let mountPoint = dir + "/small"
        try FileSystem.createDirectory(mountPoint)
        try #require(FaultTests.shell("mount -t tmpfs -o size=600k tmpfs '\(mountPoint)'") == 0)
        defer { _ = FaultTests.shell("umount -l '\(mountPoint)'") }
        let db = mountPoint + "/t.sqlite"
        let r = try Binary.run(["import", "--db", db] + files)
        #expect(r.status == 1)
        #expect(r.stderr.contains("disk is full") && r.stderr.contains("free some space"), "\(r.stderr)")
        let store = try Store(path: db, create: false)
        #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok")
        let done = try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") ?? -1
        #expect(done < 3, "the disk never filled up; the test proves nothing")
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == done * 3000)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points WHERE import_id NOT IN (SELECT id FROM imports WHERE status = 'done')") == 0)
        #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status <> 'done'") == 0)
    }

    /// Without a mountable file system: SQLite's `max_page_count` caps the database the same way a full disk does
    /// (SQLITE_FULL from the same write paths), in-process. It does not cover a full disk under the WAL file or a
    /// checkpoint, which the tmpfs test above does.
    @Test func databaseSizeLimitRollsBackTheFileThatDoesNotFit() throws {
        let dir = try temporaryDirectory()
        let files = try threeFiles(dir + "/in")
        let db = dir + "/t.sqlite"
        let store = try Store(path: db)
        let pages = try #require(try store.db.scalarInt("PRAGMA page_count"))
        let pageSize = try #require(try store.db.scalarInt("PRAGMA page_size"))
        // Room for one file (~160 KB of b-tree pages), not three, whatever the page size.
        try store.db.execute("PRAGMA max_page_count=\(pages + 240_000 / pageSize)")
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        var thrown: Error?
        do { _ = try importer.importPaths(files) } catch { thrown = error }
        let error = try #require(thrown as? DatabaseError)
        #expect(error.isFull)
        #expect(error.description.contains("free some space"))
        #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok")
        let done = try store.db.scalarInt("SELECT count(*) FROM imports WHERE status = 'done'") ?? -1
        #expect(done >= 1 && done < 3)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == done * 3000)
        #expect(try store.db.scalarInt("SELECT count(*) FROM imports WHERE status <> 'done'") == 0)
        // The database still opens and, with room again, the rest imports.
        try store.db.execute("PRAGMA max_page_count=1073741823")
        let rest = try Importer(store: Store(path: db), options: ImportOptions(nowMs: testNow)).importPaths(files)
        #expect(rest.pointsNew == (3 - done) * 3000)
    }

    // MARK: Permissions (as an unprivileged user: root ignores permission bits)

    @Test func readOnlyDatabaseIsRefusedBeforeAnythingIsWritten() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        try Binary.requireRunsUnprivileged()
        let dir = try sharedTemporaryDirectory()
        let files = try threeFiles(dir + "/in")
        let folder = try unprivilegedFolder(dir)
        let db = folder + "/t.sqlite"
        #expect(try Binary.run(["import", "--db", db, files[0]], unprivileged: true).status == 0)
        chmod(db, 0o444)
        let before = try FileSystem.read(db)
        let r = try Binary.run(["import", "--db", db, files[1]], unprivileged: true)
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot write to \(db): the file is not writable"), "\(r.stderr)")
        #expect(try FileSystem.read(db) == before)
        // Reading it still works.
        let info = try Binary.run(["info", "--db", db], unprivileged: true)
        #expect(info.status == 0 && info.stdout.contains("3000"), "\(info.stderr)")
    }

    @Test func databaseInAFolderThatIsNotWritableIsRefusedClearly() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        try Binary.requireRunsUnprivileged()
        let dir = try sharedTemporaryDirectory()
        let files = try threeFiles(dir + "/in")
        let db = dir + "/t.sqlite"  // the folder belongs to root (or is not writable), the file is writable by all
        #expect(try Binary.run(["import", "--db", db, files[0]]).status == 0)
        chmod(db, 0o666)
        FileSystem.remove(db + "-wal")
        FileSystem.remove(db + "-shm")
        if !Binary.isRoot { chmod(dir, 0o555) }
        defer { chmod(dir, 0o755) }
        let r = try Binary.run(["import", "--db", db, files[1]], unprivileged: true)
        #expect(r.status == 1)
        #expect(r.stderr.contains("its folder is not writable"), "\(r.stderr)")
    }

    @Test func unreadableMissingAndUnsearchableInputsFailClearlyAndTheRestImports() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        try Binary.requireRunsUnprivileged()
        let dir = try sharedTemporaryDirectory()
        let files = try threeFiles(dir + "/in")
        chmod(dir + "/in", 0o755)
        chmod(files[0], 0o600)  // owned by the test's user: unreadable for nobody
        // A folder that may not be listed, one that may not be searched, and a good one beside them.
        try FileSystem.createDirectory(dir + "/tree/closed")
        try FileSystem.createDirectory(dir + "/tree/open")
        try FileSystem.write(try FileSystem.read(files[1]), to: dir + "/tree/closed/x.json")
        try FileSystem.write(try FileSystem.read(files[2]), to: dir + "/tree/open/y.json")
        chmod(dir + "/tree", 0o755)
        chmod(dir + "/tree/open", 0o755)
        chmod(dir + "/tree/closed", 0o700)
        let db = try unprivilegedFolder(dir) + "/t.sqlite"
        let r = try Binary.run(["import", "--db", db, files[0], dir + "/missing.json", dir + "/tree", dir + "/tree/closed/x.json"],
                               unprivileged: true)
        #expect(r.status == 1)
        #expect(r.stderr.contains("f0.json: cannot read: Permission denied"), "\(r.stderr)")
        #expect(r.stderr.contains("missing.json: no such file or directory"), "\(r.stderr)")
        #expect(r.stderr.contains("tree/closed: Permission denied"), "\(r.stderr)")
        #expect(r.stderr.contains("closed/x.json: permission denied"), "\(r.stderr)")  // not "no such file"
        let store = try Store(path: db, create: false)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 3000)  // tree/open/y.json
        #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok")
    }

    // MARK: Special files

    @Test func namedPipeWithoutAWriterFailsInsteadOfHanging() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let fifo = dir + "/pipe.json"
        try #require(mkfifo(fifo, 0o644) == 0)
        let files = try threeFiles(dir + "/in")
        let r = try Binary.run(["import", "--db", dir + "/t.sqlite", fifo, files[0]], environment: ["TRIPLINE_PIPE_TIMEOUT": "1"], timeout: 30)
        #expect(!r.timedOut, "the import hung on a FIFO")
        #expect(r.status == 1)
        #expect(r.stderr.contains("pipe.json: cannot read: is a named pipe (FIFO) that no process wrote to within 1.0 s"), "\(r.stderr)")
        #expect(try Store(path: dir + "/t.sqlite").db.scalarInt("SELECT count(*) FROM points") == 3000)
    }

    @Test func namedPipeWithAWriterIsRead() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let fifo = dir + "/pipe.json"
        try #require(mkfifo(fifo, 0o644) == 0)
        let files = try threeFiles(dir + "/in")
        // A slow writer: the import has opened the pipe, which no process writes to yet (PausePoint
        // `import.pipe.opened`); only then does a writer open it and write the file.
        let paused = try #require(
            try Binary.startPaused(["import", "--db", dir + "/t.sqlite", fifo], at: "import.pipe.opened", environment: ["TRIPLINE_PIPE_TIMEOUT": "20"]),
            "the import ended without opening the pipe")
        try paused.resume()
        let fd = open(fifo, O_WRONLY)
        try #require(fd >= 0)
        // A reader that gave up must fail this test, not kill the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let bytes = try FileSystem.read(files[0])
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(written == bytes.count, "the import stopped reading the pipe (errno \(errno))")
        paused.process.waitUntilExit()
        #expect(paused.process.terminationStatus == 0)
        #expect(try Store(path: dir + "/t.sqlite").db.scalarInt("SELECT count(*) FROM points") == 3000)
    }

    @Test func deviceFileIsRefused() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let r = try Binary.run(["import", "--db", dir + "/t.sqlite", "/dev/zero"], timeout: 30)
        #expect(!r.timedOut)
        #expect(r.status == 1)
        #expect(r.stderr.contains("/dev/zero: cannot read: is not a regular file"), "\(r.stderr)")
    }

    // MARK: Schema

    @Test func newerSchemaIsRefusedAndTheFileIsUntouched() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let files = try threeFiles(dir + "/in")
        let db = dir + "/t.sqlite"
        #expect(try Binary.run(["import", "--db", db, files[0]]).status == 0)
        do {
            let store = try Store(path: db)
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = \(Schema.currentVersion + 1)")
        }
        let before = try FileSystem.read(db)
        for command in [["import", "--db", db, files[1]], ["info", "--db", db]] {
            let r = try Binary.run(command)
            #expect(r.status == 1, "\(command[0])")
            #expect(r.stderr.contains("has schema version \(Schema.currentVersion + 1)") && r.stderr.contains("newer Tripline"), "\(r.stderr)")
            #expect(try FileSystem.read(db) == before, "\(command[0]) changed the file")
        }
    }

    // MARK: Concurrency

    /// Two imports of different but overlapping archives at once (the import tests cover the same archive twice):
    /// points shared by both are stored once whichever process gets them first.
    @Test func twoImportsOfOverlappingArchivesAtOnce() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let all = try threeFiles(dir + "/in")
        // Archive B: a copy of f1 with a different name and a re-sent half of f0 appended (so no fingerprint match).
        try FileSystem.createDirectory(dir + "/b")
        let f0 = String(decoding: try FileSystem.read(all[0]), as: UTF8.self).split(separator: "\n")
        try FileSystem.write(String(decoding: try FileSystem.read(all[1]), as: UTF8.self) + f0.prefix(5).joined(separator: "\n") + "\n",
                             to: dir + "/b/mixed.json")
        try FileSystem.write(try FileSystem.read(all[2]), to: dir + "/b/f2-copy.json")
        let db = dir + "/t.sqlite"
        _ = try Store(path: db)
        let errA = Pipe(), errB = Pipe()
        let a = try Binary.start(["import", "--db", db, dir + "/in"], stderr: errA)
        let b = try Binary.start(["import", "--db", db, dir + "/b"], stderr: errB)
        let textA = String(decoding: errA.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let textB = String(decoding: errB.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0, "\(textA)\(textB)")
        // Whether one of them had to wait long enough to say so depends on timing; the message itself is tested
        // deterministically (a held lock) in ImporterProcessTests.twoImportsAtOnceBothFinishWithoutDuplicates.
        let store = try Store(path: db)
        #expect(try store.db.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 9000)
        #expect(try store.db.scalarInt("SELECT count(*) FROM (SELECT device_id, time_ms FROM points GROUP BY 1, 2 HAVING count(*) > 1)") == 0)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 0)
    }
}
