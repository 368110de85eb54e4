import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
import TriplineTestSupport

/// The third hostile round (docs/RELIABILITY.md, "Third hostile round"): the release binary attacked again after
/// issue 21's holes were closed. Each test failed before its fix.
@Suite struct ThirdRoundHoleTests {
    /// `demo --out D` where `D/sample-data` is a link to a folder elsewhere: the demo removed that folder's
    /// `overland/`, `rec/` and `truth.json` and wrote the sample there (simulate refuses such a link; the demo gave the
    /// linked folder as simulate's own output, whose links are the user's).
    @Test func demoDoesNotDeleteOrWriteThroughALinkedSampleFolder() throws {
        let dir = try temporaryDirectory()
        let out = dir + "/out", elsewhere = dir + "/elsewhere"
        try FileSystem.createDirectory(out)
        try FileSystem.createDirectory(elsewhere + "/overland")
        try FileSystem.write("precious\n", to: elsewhere + "/overland/mine.json")
        try FileSystem.write("precious\n", to: elsewhere + "/truth.json")
        #expect(symlink(elsewhere, out + "/sample-data") == 0)
        let r = runCLI(["demo", "--out", out])
        #expect(r.status != 0 && r.stderr.contains("sample-data") && r.stderr.contains("symbolic link"), "\(r.status) \(r.stderr)")
        #expect(try FileSystem.list(elsewhere) == ["overland", "truth.json"], "written through the link")
        #expect(try FileSystem.read(elsewhere + "/overland/mine.json") == Array("precious\n".utf8))
        #expect(try FileSystem.read(elsewhere + "/truth.json") == Array("precious\n".utf8))
    }

    /// `--db` naming a device or a FIFO: SQLite opened `/dev/null` as an empty database and, run as root, created
    /// `/dev/null-journal` beside it before failing with "disk I/O error" (naming no file). Now refused before SQLite
    /// opens it, naming the file and what it is.
    @Test func aDatabasePathThatIsADeviceOrAPipeIsRefusedBeforeSQLiteOpensIt() throws {
        let dir = try temporaryDirectory()
        let fifo = dir + "/pipe.sqlite"
        try #require(mkfifo(fifo, 0o644) == 0)
        for (path, what) in [("/dev/null", "a device"), (fifo, "a named pipe (FIFO)")] {
            for command in [["info"], ["rebuild"], ["export", "--what", "points", "--format", "csv", "-o", "-"]] {
                let r = runCLI(command + ["--db", path])
                #expect(r.status == 1, "\(command[0]) \(path): \(r.status) \(r.stderr)")
                #expect(r.stderr.contains(path) && r.stderr.contains("is \(what), not a database file"), "\(command[0]) \(path): \(r.stderr)")
            }
            #expect(!FileSystem.exists(path + "-journal") && !FileSystem.exists(path + "-wal"))
        }
        #expect(throws: StoreError.self) { _ = try Store(path: "/dev/zero") }
        #expect(!FileSystem.exists("/dev/zero-journal"))
    }

    /// A database cut short (a copy stopped mid-way, a full disk while copying) or overwritten in its middle said
    /// "SQLite error 11: database disk image is malformed (while running: PRAGMA user_version)", naming no file.
    @Test func aDamagedDatabaseIsNamedAndCalledDamaged() throws {
        let (dir, db) = try smallDatabase()
        let bytes = try FileSystem.read(db)
        try #require(bytes.count > 3 * Store.pageSize)
        try FileSystem.write(Array(bytes.prefix(Store.pageSize + 100)), to: dir + "/cut.sqlite")
        for command in [["info"], ["rebuild"], ["export", "--what", "points", "--format", "csv", "-o", "-"]] {
            let r = runCLI(command + ["--db", dir + "/cut.sqlite"])
            #expect(r.status == 1, "\(command[0]): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(dir + "/cut.sqlite") && r.stderr.contains("damaged"), "\(command[0]): \(r.stderr)")
        }
    }

    /// The `-wal` of the database is a symbolic link (planted in a shared folder): SQLite refuses it, and the
    /// command said only "SQLite error 14: unable to open database file (while running: PRAGMA user_version)".
    @Test func aLinkedWALFileIsNamed() throws {
        let (dir, db) = try smallDatabase()
        try FileSystem.write("precious\n", to: dir + "/victim")
        #expect(symlink(dir + "/victim", db + "-wal") == 0)
        let r = runCLI(["rebuild", "--db", db])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains(db + "-wal") && r.stderr.contains("symbolic link"), "\(r.stderr)")
        #expect(try FileSystem.read(dir + "/victim") == Array("precious\n".utf8))
    }

    /// A command that only reads (`info`, `export`, `map`, `report`, `places`, `score`) given an empty file wrote a whole
    /// Tripline schema into it (0 → 512 KiB): `info --db notes.txt` changed the user's file. A missing file was
    /// already refused ("no database at …"); an empty one now is too, and stays empty.
    @Test func readingCommandsLeaveAnEmptyFileEmpty() throws {
        let dir = try temporaryDirectory()
        let empty = dir + "/empty.sqlite"
        // `score` shares the path (``Store/forReading(path:)``) once its truth file is read: a real one.
        #expect(runCLI(["simulate", "--out", dir + "/sim", "--days", "1", "--people", "1"]).status == 0)
        let commands: [[String]] = [
            ["info"], ["export", "--what", "points", "--format", "csv", "-o", "-"], ["map", "-o", dir + "/m.html"],
            ["report", "daily-summary", "--format", "csv"], ["places"], ["score", "--truth", dir + "/sim/truth.json"],
        ]
        for command in commands {
            try FileSystem.write([UInt8](), to: empty)
            let r = runCLI(command + ["--db", empty])
            #expect(r.status == 1, "\(command[0]): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(empty) && r.stderr.contains("empty"), "\(command[0]): \(r.stderr)")
            #expect(FileSystem.size(empty) == 0, "\(command[0]) wrote into the empty file")
            #expect(!FileSystem.exists(empty + "-wal"), "\(command[0])")
        }
        // A command that writes makes the empty file a database, as before.
        let features = (0..<5).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8) }
        try FileSystem.write(overlandBody(features), to: dir + "/in.json")
        let r = runCLI(["import", dir + "/in.json", "--db", empty])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Store(path: empty).schemaVersion() == Schema.currentVersion)
    }

    /// `evaluate --seed S --db FILE` with an empty FILE (`mktemp`): refused as "schema version 0 is older than 10;
    /// open it once without read-only access to upgrade", though a new file is what evaluate asks for.
    @Test func evaluateTakesAnEmptyFileAsANewDatabase() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write([UInt8](), to: dir + "/eval.sqlite")
        let r = runCLI(["evaluate", "--seed", "1", "--days", "1", "--people", "1", "--db", dir + "/eval.sqlite"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Store(path: dir + "/eval.sqlite").devices().count == 1)
    }

    /// `plan -o tripline.sqlite` (the database every other command would use) or `-o shard-0.sqlite` replaced the
    /// database with the plan's JSON, exit 0: export, map and demo refuse the database as an output; plan did not.
    @Test func planRefusesToWriteOverADatabase() throws {
        let (dir, db) = try smallDatabase()
        let before = try FileSystem.read(db)
        try FileSystem.createDirectory(dir + "/in/phone")
        try FileSystem.write(try FileSystem.read(dir + "/in.json"), to: dir + "/in/phone/a.json")
        let shard = dir + "/shard-0.sqlite"
        try FileSystem.write(before, to: shard)
        for (out, env) in [(db, ["TRIPLINE_DB": db]), (db + "-wal", ["TRIPLINE_DB": db]), (shard, [:])] {
            let r = runCLI(["plan", dir + "/in", "--shards", "2", "-o", out], environment: env)
            #expect(r.status == 64, "\(out): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(out) && (r.stderr.contains("is the database") || r.stderr.contains("is a SQLite database")), "\(r.stderr)")
        }
        #expect(try FileSystem.read(db) == before)
        #expect(try FileSystem.read(shard) == before)
        let fine = runCLI(["plan", dir + "/in", "--shards", "2", "-o", dir + "/plan.json"], environment: ["TRIPLINE_DB": db])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// `score --truth /dev/zero` read for ever: memory grew until, after a minute, the process died trying to
    /// allocate 35 GB.
    @Test func scoreRefusesAnEndlessTruthFile() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (_, db) = try smallDatabase()
        let endless = try Binary.run(["score", "--db", db, "--truth", "/dev/zero"], timeout: 60)
        #expect(!endless.timedOut, "score read /dev/zero for ever")
        #expect(endless.status == 1 && endless.stderr.contains("/dev/zero") && endless.stderr.contains("endless"), "\(endless.stderr)")
    }

    /// A truth file that is not JSON (the database given by mistake) said "Error Domain=NSCocoaErrorDomain Code=3840
    /// "The data is not in the correct format."", naming no file and no place.
    @Test func scoreNamesATruthFileThatIsNotJSON() throws {
        let (dir, db) = try smallDatabase()
        try FileSystem.write("SQLite format 3\u{0}\u{1}\u{2}", to: dir + "/truth.json")
        let r = runCLI(["score", "--db", db, "--truth", dir + "/truth.json"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains(dir + "/truth.json") && r.stderr.contains("not valid JSON") && !r.stderr.contains("NSCocoaErrorDomain"), "\(r.stderr)")
        #expect(r.stderr.contains("character 0"), "\(r.stderr)")
    }

    /// `merge --db new.sqlite new.sqlite` created an empty new.sqlite (opening the study creates it) before refusing
    /// the study as its own shard; a missing shard did the same. Now every shard is checked first.
    @Test func mergeRefusesBeforeCreatingTheStudy() throws {
        let dir = try temporaryDirectory()
        let study = dir + "/new.sqlite"
        for shards in [[study], [dir + "/./new.sqlite"], [dir + "/missing.sqlite"]] {
            let r = runCLI(["merge", "--db", study] + shards)
            #expect(r.status == 1, "\(shards): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(shards[0]), "\(r.stderr)")
            #expect(!FileSystem.exists(study) && !FileSystem.exists(study + "-wal"), "\(shards): the study was created")
        }
    }

    /// `import --plan /dev/zero` read up to 2 GiB before refusing the plan; a FIFO waited for a writer, a folder
    /// failed reading. A plan that is not a regular file is now refused at once, naming what it is, and a file
    /// larger than ``ShardPlan/sizeLimit`` (512 MiB) is not read.
    @Test func importRefusesAPlanThatIsNotAFileOrTooLarge() throws {
        let dir = try temporaryDirectory()
        let fifo = dir + "/plan.fifo"
        try #require(mkfifo(fifo, 0o644) == 0)
        for (path, what) in [("/dev/zero", "a device"), (fifo, "a named pipe (FIFO)"), (dir, "a folder")] {
            let r = runCLI(["import", "--plan", path, "--shard", "0", "--db", dir + "/t.sqlite"])
            #expect(r.status == 1, "\(path): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(path) && r.stderr.contains("is \(what), not a shard plan"), "\(path): \(r.stderr)")
        }
        // A sparse file one byte over the limit: refused by its size, before a byte is read.
        let big = dir + "/big.json"
        try FileSystem.write("{", to: big)
        #expect(truncate(big, off_t(ShardPlan.sizeLimit + 1)) == 0)
        let r = runCLI(["import", "--plan", big, "--shard", "0", "--db", dir + "/t.sqlite"])
        #expect(r.status == 1 && r.stderr.contains(big) && r.stderr.contains("larger than any shard plan"), "\(r.stderr)")
    }

    /// `simulate --start 9999-12-31` (or `1970-01-01`) wrote archives whose every fix `import` rejects (more than a day
    /// after the import, before 2000) and a truth.json `score` refuses. Now refused, naming both days.
    @Test func simulateRefusesDaysImportWouldReject() throws {
        let dir = try temporaryDirectory()
        let today = CivilTime.date(day: Int(CivilTime.floorDiv(Clock.nowMs(), 86_400_000)))
        for (start, days, names) in [
            ("9999-12-31", "3", ["10000-01-02", today]), ("1970-01-01", "1", ["1970-01-01", "2000-01-02"]),
            ("2000-01-01", "1", ["2000-01-01", "2000-01-02"]), (today, "2", [today]),
        ] {
            let r = runCLI(["simulate", "--out", dir + "/sim", "--start", start, "--days", days, "--people", "1"])
            #expect(r.status == 64, "\(start): \(r.status) \(r.stderr)")
            #expect(names.allSatisfy { r.stderr.contains($0) } && r.stderr.contains("'import' accepts"), "\(start): \(r.stderr)")
            #expect(!FileSystem.exists(dir + "/sim"), "\(start): written")
        }
        // The first and the last day import takes whole are simulated.
        #expect(runCLI(["simulate", "--out", dir + "/first", "--start", "2000-01-02", "--days", "1", "--people", "1"]).status == 0)
        #expect(runCLI(["simulate", "--out", dir + "/last", "--start", today, "--days", "1", "--people", "1"]).status == 0)
    }

    /// `import --device` took a name of any length (100,000 characters were stored, exported on every line and shown).
    /// Now at most 255 bytes, a folder name's length; longer is a usage error naming the length, before the database
    /// is opened.
    @Test func importRefusesAnOverlongDeviceName() throws {
        let dir = try temporaryDirectory()
        let features = (0..<5).map { overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64($0) * 1000), lat: 50, lon: 8, device: "") }
        try FileSystem.write(overlandBody(features), to: dir + "/in.json")
        for name in [String(repeating: "x", count: 256), String(repeating: "é", count: 128), String(repeating: "y", count: 100_000)] {
            let r = runCLI(["import", dir + "/in.json", "--device", name, "--db", dir + "/t.sqlite"])
            #expect(r.status == 64, "\(r.status) \(r.stderr.prefix(200))")
            #expect(r.stderr.contains("--device is \(name.utf8.count) bytes long") && r.stderr.contains("at most 255 bytes"), "\(r.stderr.prefix(200))")
            #expect(!FileSystem.exists(dir + "/t.sqlite"))
        }
        let longest = String(repeating: "x", count: 255)
        let r = runCLI(["import", dir + "/in.json", "--device", longest, "--db", dir + "/t.sqlite"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Store(path: dir + "/t.sqlite").devices().map(\.name) == [longest])
    }

    /// `query` with `WITH RECURSIVE` without an end ran until SIGINT's default action killed it: no message, and the
    /// rows already computed were lost. Now Ctrl-C stops the SQL through SQLite's interrupt: a message naming the file,
    /// exit 130, the database unchanged. The process is held (``PausePoint`` `query.running`) inside the endless
    /// statement, so the signal arrives at a known moment; let go, the statement stops at once.
    @Test func ctrlCStopsAnEndlessQuery() throws {
        try #require(Binary.exists, "build the tripline binary first (swift build)")
        let (dir, db) = try smallDatabase()
        let before = try databasePicture(db)
        let sql = dir + "/endless.sql"
        try FileSystem.write("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c; SELECT 1;\n", to: sql)
        // Started with a clean signal state (``spawnPaused(_:at:)``): Foundation's Process may start children with SIGINT
        // ignored, which would hide what a user's Ctrl-C does.
        let arguments = [Binary.path, "query", sql, "--db", db, "--format", "csv"]
        let paused = try spawnPaused(arguments, at: "query.running")
        let pid = paused.pid
        defer { close(paused.errors) }
        var status: Int32 = 0
        guard paused.reached else {
            close(paused.input)
            waitpid(pid, &status, 0)
            Issue.record("the query ended without reaching query.running: \(paused.said)")
            return
        }
        // Ctrl-C at the pause, inside the running statement, then let it go on: SQLite stops it.
        kill(pid, SIGINT)
        _ = write(paused.input, "\n", 1)
        close(paused.input)
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }  // a guard against a hang, not a timing
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        var said: [UInt8] = []
        var byte: UInt8 = 0
        while read(paused.errors, &byte, 1) == 1 { said.append(byte) }
        waitpid(pid, &status, 0)
        watchdog.cancel()
        let stderr = String(decoding: said, as: UTF8.self)
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 130, "status \(status): \(stderr)")
        #expect(stderr.contains(sql) && stderr.contains("interrupted (Ctrl-C)") && stderr.contains("nothing was changed"), "\(stderr)")
        #expect(try databasePicture(db) == before)
    }
}
