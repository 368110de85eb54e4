import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// The crash and security holes of issue 12, each closed and tested.
@Suite(.serialized) struct HoleTests {
    // MARK: A file that shrinks while it is read

    @Test func aMappedFileThatShrinksReadsAsZerosAndIsReported() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/big.json"
        try FileSystem.write([UInt8](repeating: UInt8(ascii: " "), count: 4 << 20), to: path)
        let bytes = try FileBytes(path: path)
        #expect(bytes.changedWhileRead() == nil)
        #expect(truncate(path, 100) == 0)
        // Without the guard, touching the pages past the new end raises SIGBUS and kills the process.
        let last = bytes.buffer[bytes.count - 1]
        #expect(last == 0)
        _ = bytes.fingerprint()
        #expect(bytes.changedWhileRead()?.contains("shrank") == true)
    }

    @Test func aFileCutWhileTheParserReadsItFailsAsAWhole() throws {
        let dir = try temporaryDirectory()
        let total = 20_000
        let features = (0..<total).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_300_000 + Int64($0) * 1000), lat: 50, lon: 8) }
        let big = dir + "/big.json"
        try FileSystem.write(features.joined(separator: "\n"), to: big)
        // The parsing thread alone, with a one-deep queue this test drains by hand: after the first batch it waits,
        // deep inside the file, when the file is cut.
        let queue = BoundedQueue<Importer.Message>(capacity: 1)
        let recycle = BoundedQueue<[Point]>(capacity: 4)
        let job = Importer.Job(path: big, fallback: ("d", .deviceOption), size: FileSystem.size(big) ?? 0)
        let options = ImportOptions(nowMs: testNow, batchSize: 64, queueDepth: 1)
        let parser = WorkerThread {
            Importer.parseAll([job], options: options, dbPath: dir + "/absent.sqlite", queue: queue, recycle: recycle)
        }
        guard case .begin = queue.pop() else {
            Issue.record("the parser did not begin the file")
            return
        }
        guard case .batch = queue.pop() else {
            Issue.record("the parser sent no batch")
            return
        }
        #expect(truncate(big, 4096) == 0)
        var batches = 1
        var fatal: String?
        while let message = queue.pop() {
            switch message {
            case .batch: batches += 1
            case .end(let output): fatal = output.fatal
            default: break
            }
        }
        parser.join()
        #expect(batches < total / 64)
        #expect(fatal?.contains("while it was being read") == true)
    }

    @Test func aFileChangedAfterItWasOpenedIsNoticedAndReadWholeNextTime() throws {
        let (store, dir) = try freshStore()
        let path = dir + "/f.json"
        try FileSystem.write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), to: path)
        let importer = Importer(store: store, options: ImportOptions(nowMs: testNow))
        // Rewritten after it was opened (same path, new content): its size and modification time tell.
        let bytes = try FileBytes(path: path)
        try FileSystem.write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8), overlandFeature("2024-01-01T00:00:01Z", lat: 50, lon: 8)]), to: path)
        #expect(bytes.changedWhileRead()?.contains("changed while it was being read") == true)
        let s = try importer.importPaths([path])
        #expect(s.files[0].status == .imported && s.pointsNew == 2)
    }

    // MARK: tripline query runs untrusted SQL

    @Test func queryRefusesWritesAttachVacuumAndPointerFunctions() throws {
        let (dir, db) = try smallDatabase()
        func query(_ sql: String) throws -> (status: Int32, stdout: String, stderr: String) {
            try FileSystem.write(sql, to: dir + "/q.sql")
            return runCLI(["query", "--db", db, "--format", "csv", dir + "/q.sql"])
        }
        let vacuum = try query("VACUUM INTO '\(dir)/copy.sqlite';")
        #expect(vacuum.status != 0 && vacuum.stderr.contains("not authorized"))
        #expect(!FileSystem.exists(dir + "/copy.sqlite"))
        let attach = try query("ATTACH '\(dir)/other.sqlite' AS other;")
        #expect(attach.status != 0 && !FileSystem.exists(dir + "/other.sqlite"))
        let tokenizer = try query("SELECT fts3_tokenizer('simple', x'4141414141414141');")
        #expect(tokenizer.status != 0 && tokenizer.stderr.contains("fts3_tokenizer"))
        let write = try query("DELETE FROM points;")
        #expect(write.status != 0)
        let pragma = try query("PRAGMA writable_schema = 1;")
        #expect(pragma.status != 0)
        // The query's own temporary tables (in memory) are allowed; a temporary trigger on a real table is not.
        let temp = try query("CREATE TEMP TABLE t(x); INSERT INTO t VALUES (1); SELECT x FROM t;")
        #expect(temp.status == 0 && temp.stdout == "x\r\n1\r\n")
        // A query file's own BEGIN … COMMIT (as sqlite3 scripts often have) is passed over: it already runs in one
        // read snapshot; a write inside it is still refused.
        let wrapped = try query("BEGIN;\nSELECT 1 AS one;\nSAVEPOINT s; RELEASE s;\nCOMMIT;\n")
        #expect(wrapped.status == 0 && wrapped.stdout == "one\r\n1\r\n", "\(wrapped.stderr)")
        let wrappedWrite = try query("BEGIN; DELETE FROM points; COMMIT;")
        #expect(wrappedWrite.status != 0)
        let trigger = try query("CREATE TEMP TRIGGER wipe AFTER INSERT ON temp.t BEGIN DELETE FROM main.points; END;")
        #expect(trigger.status != 0)
        #expect(try Store(path: db, readOnly: true).db.scalarInt("SELECT count(*) FROM points") == 50)
        // Reading still works, pragmas that describe too.
        let read = try query("SELECT count(*) AS n FROM points;\nPRAGMA table_info(points);")
        #expect(read.status == 0 && read.stdout.hasPrefix("n\r\n50\r\n") && read.stdout.contains("device_id"))
    }

    @Test func inputsThatAreNotRegularFilesAreBounded() {
        let q = runCLI(["query", "--db", "/nonexistent.sqlite", "/dev/zero"])
        #expect(q.status != 0 && q.stderr.contains("larger than 16 MiB"))
        let r = runCLI(["rebuild", "--db", "/nonexistent.sqlite", "--config", "/dev/zero"])
        #expect(r.status != 0)
        #expect(throws: FileError.self) { _ = try FileSystem.read("/dev/zero", limit: 1 << 20) }
    }

    // MARK: -o

    @Test func outputRefusesLinksFIFOsAndDevices() throws {
        let (dir, db) = try smallDatabase()
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        #expect(symlink(dir + "/elsewhere", dir + "/link") == 0)
        for target in [dir + "/fifo", dir + "/link", "/dev/null", dir] {
            let e = runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", target])
            #expect(e.status != 0 && e.stderr.contains("refusing to replace"), "\(target)")
            let m = runCLI(["map", "--db", db, "-o", target])
            #expect(m.status != 0 && m.stderr.contains("refusing to replace"), "\(target)")
        }
        #expect(!FileSystem.exists(dir + "/elsewhere"))
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && st.st_mode & S_IFMT == S_IFCHR)
        // A new path and a regular file are fine; '-' is standard output for export and map alike.
        #expect(runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", dir + "/new.csv"]).status == 0)
        #expect(runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", dir + "/new.csv"]).status == 0)
        let e = runCLI(["export", "--what", "points", "--format", "csv", "--db", db, "-o", "-"])
        #expect(e.status == 0 && e.stdout.hasPrefix("device,time"))
        let m = runCLI(["map", "--db", db, "-o", "-"])
        #expect(m.status == 0 && m.stdout.hasPrefix("<!DOCTYPE html>") && m.stderr.contains("Wrote standard output"))
        // Commands that write a folder say that standard output cannot hold one (and make no folder named '-').
        let sim = runCLI(["simulate", "-o", "-", "--days", "1"])
        #expect(sim.status == 64 && sim.stderr.contains("standard output cannot hold"))
        let demo = runCLI(["demo", "--out", "-"])
        #expect(demo.status == 64 && demo.stderr.contains("standard output cannot hold"))
        #expect(!FileSystem.exists("-"))
    }

    @Test func anInterruptedExportLeavesNoTemporaryFile() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let device = try store.deviceID(named: "d", source: "overland", origin: .deviceID)
        try store.transaction {
            try store.insertPoints((0..<1000).map {
                Point(deviceID: device, timeMs: 1_704_067_200_000 + Int64($0) * 1000, lat: 50 + Double($0) * 1e-6, lon: 8)
            })
        }
        let out = dir + "/out"
        try FileSystem.createDirectory(out)
        // Started with posix_spawn and a clean signal state: Foundation's Process (and a shell's background jobs)
        // may start children with SIGINT ignored or signals blocked, which would hide what a user's Ctrl-C does.
        // It stops at the PausePoint `export.temporary.created` (docs/RELIABILITY.md): its standard input and error
        // are pipes, the marker is read from one and the pause would be ended through the other.
        let arguments = [Binary.path, "export", "--what", "points", "--format", "geojson", "--db", dir + "/t.sqlite", "-o", out + "/points.geojson"]
        let paused = try spawnPaused(arguments, at: "export.temporary.created")
        defer { close(paused.input) }
        close(paused.errors)
        var status: Int32 = 0
        guard paused.reached else {
            waitpid(paused.pid, &status, 0)
            Issue.record("the export ended without reaching export.temporary.created: \(paused.said)")
            return
        }
        let pid = paused.pid
        #expect(try FileSystem.list(out).contains { $0.hasPrefix(".points.geojson.tripline-") }, "the temporary file exists at the pause")
        kill(pid, SIGINT)
        waitpid(pid, &status, 0)
        // Ended by SIGINT (as with Ctrl-C) before it wrote anything, and the hidden temporary file is gone: nothing is
        // left in the folder.
        #expect(status & 0x7F == SIGINT)
        #expect(try FileSystem.list(out) == [])
    }

    // MARK: Read-only databases

    @Test func readOnlyCommandsWorkInAFolderNobodyMayWrite() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (_, db) = try smallDatabase()
        let shared = try sharedTemporaryDirectory()
        let copy = shared + "/t.sqlite"
        try FileSystem.write(try FileSystem.read(db), to: copy)
        chmod(copy, 0o644)
        try FileSystem.write("SELECT count(*) AS n FROM points;\n", to: shared + "/q.sql")
        chmod(shared + "/q.sql", 0o644)
        chmod(shared, 0o555)
        defer { chmod(shared, 0o755) }
        guard Binary.isRoot else {
            print("skipped: the read-only folder test runs the binary as user 65534, which needs root")
            return
        }
        try Binary.requireRunsUnprivileged()
        let info = try Binary.run(["info", "--db", copy], unprivileged: true)
        #expect(info.status == 0 && info.stdout.contains("phone"), "\(info.stderr)")
        let query = try Binary.run(["query", "--db", copy, "--format", "csv", shared + "/q.sql"], unprivileged: true)
        #expect(query.status == 0 && query.stdout == "n\r\n50\r\n", "\(query.stderr)")
        let export = try Binary.run(["export", "--what", "points", "--format", "csv", "--db", copy, "-o", "-"], unprivileged: true)
        #expect(export.status == 0 && export.stdout.hasPrefix("device,time"), "\(export.stderr)")
        #expect(!FileSystem.exists(copy + "-shm") && !FileSystem.exists(copy + "-wal"))
    }

    // MARK: simulate

    @Test func simulateCapsItsMemory() {
        let r = runCLI(["simulate", "-o", "/nonexistent/out", "--days", "100000"])
        #expect(r.status == 64 && r.stderr.contains("person-days"))
        let r2 = runCLI(["simulate", "-o", "/nonexistent/out", "--days", "9223372036854775807", "--people", "9"])
        #expect(r2.status == 64)
    }

    /// `evaluate` simulates in memory too, but took any `--days` and `--people` (`--days 100000` grew until the
    /// machine ran out of memory, minutes later): the same cap, at once, before a database is made.
    @Test func evaluateCapsItsMemory() throws {
        let dir = try temporaryDirectory()
        for args in [["--days", "100000"], ["--seeds", "1-3", "--people", "100000"], ["--days", "9223372036854775807", "--people", "9"]] {
            let r = runCLI(["evaluate", "--db", dir + "/e.sqlite"] + args)
            #expect(r.status == 64 && r.stderr.contains("person-days") && r.stderr.contains("--seeds A-B"), "\(args): \(r.stderr)")
        }
        #expect(!FileSystem.exists(dir + "/e.sqlite"))
    }
}

/// A database of 50 Overland fixes of one device, in a fresh folder: (the folder, the database), for the hole suites
/// (``HoleTests``, ``OutputHoleTests``, ``ThirdRoundHoleTests``).
func smallDatabase() throws -> (dir: String, db: String) {
    let dir = try temporaryDirectory()
    let store = try Store(path: dir + "/t.sqlite")
    let features = (0..<50).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8 + Double($0) / 1e4) }
    try FileSystem.write(overlandBody(features), to: dir + "/in.json")
    _ = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/in.json"])
    return (dir, dir + "/t.sqlite")
}

/// A `tripline` process (`arguments`, the binary first) started with posix_spawn and a clean signal state (nothing
/// blocked, SIGINT and SIGTERM at their defaults: Foundation's Process and a shell's background jobs may start
/// children with SIGINT ignored or signals blocked, which would hide what a user's Ctrl-C does), held at the
/// ``PausePoint`` `pause` (docs/RELIABILITY.md). Returns once it said "paused at PAUSE" on its standard error, or
/// ended without: its pid, the write end of its standard input (a line there lets it go on), the read end of its
/// standard error, whether it reached the pause and what it said until then.
func spawnPaused(_ arguments: [String], at pause: String) throws -> (pid: pid_t, input: Int32, errors: Int32, reached: Bool, said: String) {
    var input: [Int32] = [0, 0], errors: [Int32] = [0, 0]
    try #require(pipe(&input) == 0 && pipe(&errors) == 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), defaults = sigset_t()
    sigemptyset(&none)
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGINT)
    sigaddset(&defaults, SIGTERM)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    for fd in input + errors { posix_spawn_file_actions_addclose(&actions, fd) }
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var environment: [UnsafeMutablePointer<CChar>?] = [strdup("TRIPLINE_PAUSE_AT=" + pause)]
    var e = environ
    while let variable = e.pointee {
        if !String(cString: variable).hasPrefix("TRIPLINE_PAUSE_AT=") { environment.append(strdup(variable)) }
        e += 1
    }
    environment.append(nil)
    defer { for v in environment { free(v) } }
    var pid: pid_t = 0
    try #require(posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &environment) == 0)
    close(input[0])
    close(errors[1])
    var said: [UInt8] = []
    var byte: UInt8 = 0
    let marker = "paused at \(pause)\n"
    while !String(decoding: said, as: UTF8.self).contains(marker), read(errors[0], &byte, 1) == 1 {
        said.append(byte)
    }
    let text = String(decoding: said, as: UTF8.self)
    return (pid, input[1], errors[0], text.contains(marker), text)
}
