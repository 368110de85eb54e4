import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplineEvaluation
import TriplinePasses
import TriplineSimulator
import TriplineTestSupport

/// The second hostile round (docs/RELIABILITY.md, "Second hostile round"): what a careless or hostile user found in
/// the options added since issue 21. Each test failed before its fix.
@Suite struct SecondRoundHoleTests {
    func simulatedDatabase(_ dir: String, seed: UInt64 = 31) throws -> String {
        let result = Simulator(config: SimulatorConfig(seed: seed, days: 1, people: 1)).run()
        let store = try Store(path: dir + "/t.sqlite")
        try SimulationEvaluation.load(result, into: store)
        return dir + "/t.sqlite"
    }

    func storedRadius(_ db: String) throws -> String? {
        let store = try Store(path: db)
        let p = try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'stays' ORDER BY id DESC LIMIT 1") ?? ""
        return p.split(separator: ",").first { $0.contains("\"radius_m\"") }.map(String.init)
    }

    /// A key twice in one `--config` file was taken from its last line, silently; `--set` lost to the file; an
    /// unknown key in a file did not say which line.
    @Test func configKeysAreGivenOnceAndTheCommandLineWins() throws {
        let dir = try temporaryDirectory()
        let db = try simulatedDatabase(dir)
        let config = dir + "/passes.conf"
        try FileSystem.write("stays.radius_m = 80\n# again, further down\nstays.radius_m = 100\n", to: config)
        let twice = runCLI(["rebuild", "--db", db, "--config", config])
        #expect(twice.status == 64, "\(twice.stderr)")
        #expect(twice.stderr.contains("passes.conf:3") && twice.stderr.contains("passes.conf:1"), "\(twice.stderr)")
        #expect(try Store(path: db).db.scalarInt("SELECT count(*) FROM pass_runs") == 0)

        let setTwice = runCLI(["rebuild", "--db", db, "--set", "stays.radius_m=80", "--set", "stays.radius_m=90"])
        #expect(setTwice.status == 64 && setTwice.stderr.contains("stays.radius_m"), "\(setTwice.stderr)")

        try FileSystem.write("stays.radius_m = 80\n", to: config)
        let both = runCLI(["rebuild", "--db", db, "--timezone", "UTC", "--set", "stays.radius_m=90", "--config", config])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(try storedRadius(db) == "\"radius_m\":90")

        try FileSystem.write("# tuning\n\nstays.radius = 80\n", to: config)
        let unknown = runCLI(["rebuild", "--db", db, "--config", config])
        #expect(unknown.status == 64 && unknown.stderr.contains("passes.conf:3"), "\(unknown.stderr)")
        try FileSystem.write("# tuning\nstay.radius_m = 80\n", to: config)
        let unknownPass = runCLI(["rebuild", "--db", db, "--config", config])
        #expect(unknownPass.status == 64 && unknownPass.stderr.contains("passes.conf:2"), "\(unknownPass.stderr)")
    }

    /// `plan -o` wrote the plan over one of the archives it had just planned (the archive lost, the plan naming a
    /// file that is now the plan).
    @Test func planRefusesToWriteOverAFileItPlans() throws {
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/in/phone")
        let body = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,48.1]},\"properties\":{\"timestamp\":\"2024-05-01T10:00:00Z\",\"device_id\":\"p\"}}]}"
        try FileSystem.write(body, to: dir + "/in/phone/a.json")
        try FileSystem.write(body.replacingOccurrences(of: "10:00", with: "11:00"), to: dir + "/in/phone/b.json")
        for out in [dir + "/in/phone/a.json", dir + "/in/phone/../phone/b.json"] {
            let r = runCLI(["plan", dir + "/in", "--shards", "2", "-o", out])
            #expect(r.status == 64, "\(out): \(r.stderr)")
            #expect(r.stderr.contains("plans"), "\(r.stderr)")
        }
        #expect(String(decoding: try FileSystem.read(dir + "/in/phone/a.json"), as: UTF8.self) == body)
        // A new file beside the archives is fine (the plan is not planned: it is written after the walk).
        let fine = runCLI(["plan", dir + "/in", "--shards", "2", "-o", dir + "/in/plan.json"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// `evaluate --seed S --db PATH` simulated into whatever database PATH was: a user's own database got a
    /// simulated device and its remembered time zone replaced; a second seed into the same file scored against
    /// both seeds' fixes (F1 0.00 on seed 2).
    @Test func evaluateRefusesADatabaseThatAlreadyHoldsData() throws {
        let dir = try temporaryDirectory()
        let db = dir + "/mine.sqlite"
        let first = runCLI(["evaluate", "--seed", "1", "--days", "1", "--people", "1", "--db", db])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try FileSystem.read(db)
        let second = runCLI(["evaluate", "--seed", "2", "--days", "1", "--people", "1", "--db", db])
        #expect(second.status == 64, "\(second.stdout) \(second.stderr)")
        #expect(second.stderr.contains("mine.sqlite") && second.stderr.contains("already holds"), "\(second.stderr)")
        #expect(try FileSystem.read(db) == before)
        // An empty database (made by another command) is fine.
        let empty = dir + "/empty.sqlite"
        _ = try Store(path: empty)
        #expect(runCLI(["evaluate", "--seed", "2", "--days", "1", "--people", "1", "--db", empty]).status == 0)
    }

    /// `merge` handed a shard's path to `ATTACH` as it was, and Debian's SQLite reads `file:` names as URIs: a shard
    /// file named `file:other.sqlite` merged `other.sqlite` instead, and `file:new.sqlite` created `new.sqlite`.
    @Test(.enabled(if: Binary.exists, "needs the built tripline")) func mergeReadsTheShardFileItIsGiven() throws {
        let dir = try temporaryDirectory()
        let shard = try simulatedDatabase(try temporaryDirectory(), seed: 32)
        // Rebuilt: the merge refuses a shard whose devices are not (docs/SCALING.md).
        #expect(runCLI(["rebuild", "--quiet", "--db", shard]).status == 0)
        // `other.sqlite` is a valid shard; the file literally named `file:other.sqlite` is not a database.
        try FileSystem.write(try FileSystem.read(shard), to: dir + "/other.sqlite")
        try FileSystem.write("not a database", to: dir + "/file:other.sqlite")
        let r = try Binary.run(["merge", "--db", "study.sqlite", "file:other.sqlite"], directory: dir)
        #expect(r.status != 0, "\(r.stdout)")
        #expect(try Store(path: dir + "/study.sqlite").db.scalarInt("SELECT count(*) FROM devices") == 0)
        try FileSystem.write("", to: dir + "/file:new.sqlite")
        _ = try Binary.run(["merge", "--db", "study.sqlite", "file:new.sqlite"], directory: dir)
        #expect(!FileSystem.exists(dir + "/new.sqlite"))
        // A shard that is named `file:…` merges.
        try FileSystem.write(try FileSystem.read(shard), to: dir + "/file:shard.sqlite")
        let ok = try Binary.run(["merge", "--db", "study.sqlite", "file:shard.sqlite"], directory: dir)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try Store(path: dir + "/study.sqlite").db.scalarInt("SELECT count(*) FROM devices") == 1)
    }

    /// `export --format gpkg` (issue 25) came after issue 21's output rules and missed two of them: `-o` naming the
    /// database replaced the whole database with a GeoPackage, and the file was always mode 0644 (the umask and a
    /// replaced file's mode ignored).
    @Test func geoPackageRefusesTheDatabase() throws {
        let dir = try temporaryDirectory()
        let db = try simulatedDatabase(dir)
        #expect(link(db, dir + "/hard.gpkg") == 0)
        let before = try FileSystem.read(db)
        for output in [db, dir + "/./t.sqlite", db + "-wal", db + "-shm", dir + "/hard.gpkg"] {
            let r = runCLI(["export", "--format", "gpkg", "--db", db, "-o", output])
            #expect(r.status == 64 && r.stderr.contains("is the database"), "\(output): \(r.stderr)")
        }
        #expect(try FileSystem.read(db) == before)
        #expect(runCLI(["info", "--db", db]).status == 0)
    }

    @Test(.enabled(if: Binary.exists, "needs the built tripline")) func geoPackageKeepsTheModeAndHonoursTheUmask() throws {
        let dir = try temporaryDirectory()
        let db = try simulatedDatabase(dir)
        func mode(_ path: String) -> mode_t? {
            var st = stat()
            return lstat(path, &st) == 0 ? st.st_mode & 0o777 : nil
        }
        let replaced = dir + "/old.gpkg"
        try FileSystem.write("old", to: replaced)
        chmod(replaced, 0o600)
        let r = runCLI(["export", "--format", "gpkg", "--db", db, "-o", replaced])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(mode(replaced) == 0o600, "\(String(mode(replaced) ?? 0, radix: 8))")
        // A new file under umask 077: the umask is the process's own, so the built binary runs through a shell.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "umask 077 && exec \"$0\" \"$@\"", Binary.path, "export", "--format", "gpkg", "--db", db, "-o", dir + "/new.gpkg", "-q"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(mode(dir + "/new.gpkg") == 0o600, "\(String(mode(dir + "/new.gpkg") ?? 0, radix: 8))")
    }

    /// A `--config` file saved on Windows (CRLF line ends, often a byte-order mark) was one line to the reader:
    /// Swift keeps "\r\n" as one Character, so splitting at "\n" never split it ("'80\x0D\x0Astays.edge_s = 200' is
    /// not a number"), and the mark made the first key "unknown pass 'stays'". The model files of `evaluate` too.
    @Test func windowsLineEndsAndAByteOrderMarkAreRead() throws {
        let dir = try temporaryDirectory()
        let db = try simulatedDatabase(dir)
        let config = dir + "/windows.conf"
        try FileSystem.write("\u{FEFF}# saved by Notepad\r\nstays.radius_m = 80\r\nstays.edge_s = 200\r\n", to: config)
        let r = runCLI(["rebuild", "--db", db, "--timezone", "UTC", "--config", config])
        #expect(r.status == 0, "\(r.stderr)")
        let store = try Store(path: db)
        let p = try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'stays' ORDER BY id DESC LIMIT 1") ?? ""
        #expect(p.contains("\"radius_m\":80") && p.contains("\"edge_s\":200"), "\(p)")

        let unix = "# a model\nbase -1.5\nthreshold 0.6\nstump log_fixes 2.5 0.25 -0.5\nend 3\n"
        let windows = "\u{FEFF}" + unix.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try TripCutModel(text: windows, origin: "m.txt") == TripCutModel(text: unix, origin: "m.txt"))
        #expect(try LeaveOneUserOut.grid("stays.radius_m=80,90\r\nstays.edge_s=100\r\n").count == 2)
    }

    /// `evaluate --geolife DIR --dump-… FILE` wrote its CSV over FILE whatever it was: a `.plt` of the corpus it had just
    /// read (the corpus damaged for every later run), the model file given with `--trip-cut-model`, or another
    /// dump's file. Refused before any user is read.
    @Test func evaluateDumpsAreNeverAnInput() throws {
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/geolife/010/Trajectory")
        let plt = dir + "/geolife/010/Trajectory/20081023020000.plt"
        // Half an hour still, a walk north of 16 minutes, half an hour still; 5 s apart.
        let text = geoLifeHeader + (0..<600).map { k in
            let lat = 39.9 + 0.00001 * Double(min(max(k - 200, 0), 200))
            let s = k * 5
            return "\(lat),116.3,0,492,39744.1,2008-10-23,02:\(s / 60 < 10 ? "0" : "")\(s / 60):\(s % 60 < 10 ? "0" : "")\(s % 60)\r\n"
        }.joined()
        try FileSystem.write(text, to: plt)
        try FileSystem.write("Start Time\tEnd Time\tTransportation Mode\r\n2008/10/23 02:16:40\t2008/10/23 02:33:20\twalk\r\n",
                             to: dir + "/geolife/010/labels.txt")
        try FileSystem.write("base 0\nthreshold 0.5\nend 2\n", to: dir + "/model.txt")
        let refused: [[String]] = [
            ["--dump-trip-cuts", plt],
            ["--dump-pauses", dir + "/geolife/010/new.csv"],
            ["--trip-cut-model", dir + "/model.txt", "--dump-trip-cuts", dir + "/model.txt"],
            ["--dump-pauses", dir + "/d.csv", "--dump-pieces", dir + "/./d.csv"],
        ]
        for extra in refused {
            let r = runCLI(["evaluate", "--geolife", dir + "/geolife"] + extra)
            #expect(r.status == 64, "\(extra): \(r.stderr)")
        }
        #expect(String(decoding: try FileSystem.read(plt), as: UTF8.self) == text)
        #expect(String(decoding: try FileSystem.read(dir + "/model.txt"), as: UTF8.self) == "base 0\nthreshold 0.5\nend 2\n")
        #expect(!FileSystem.exists(dir + "/geolife/010/new.csv") && !FileSystem.exists(dir + "/d.csv"))
    }

    /// A plan file edited by hand (or cut and mended) whose overflow device ids run backwards crashed `import
    /// --plan` ("Range requires lowerBound <= upperBound"); ids beyond what `points_hot` can hold were only refused
    /// point by point. A plan is now checked when it is read, naming the file.
    @Test(.enabled(if: Binary.exists, "needs the built tripline")) func aDamagedPlanIsRefusedNotACrash() throws {
        let dir = try temporaryDirectory()
        try FileSystem.createDirectory(dir + "/in/phone")
        let body = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,48.1]},\"properties\":{\"timestamp\":\"2024-05-01T10:00:00Z\",\"device_id\":\"p\"}}]}"
        try FileSystem.write(body, to: dir + "/in/phone/a.json")
        #expect(runCLI(["plan", dir + "/in", "--shards", "1", "-o", dir + "/plan.json"]).status == 0)
        let plan = String(decoding: try FileSystem.read(dir + "/plan.json"), as: UTF8.self)
        var count = 0
        func edited(_ from: String, _ to: String) throws -> String {
            let text = plan.replacingOccurrences(of: from, with: to)
            #expect(text != plan, "\(from)")
            count += 1
            let path = dir + "/edited-\(count).json"
            try FileSystem.write(text, to: path)
            return path
        }
        let damaged = [
            try edited("\"overflow_first_device_id\" : 2", "\"overflow_first_device_id\" : 9223372036854775807"),
            try edited("\"overflow_end_device_id\" : 2097152", "\"overflow_end_device_id\" : -5"),
            try edited("\"device_ids\" : [\n        1\n      ]", "\"device_ids\" : [\n        4194304\n      ]"),
        ]
        for path in damaged {
            let r = try Binary.run(["import", "--db", dir + "/s.sqlite", "--plan", path, "--shard", "0"])
            #expect(r.status == 1, "\(path): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(path) && r.stderr.contains("device id"), "\(r.stderr)")
        }
        #expect(try Binary.run(["import", "--db", dir + "/s.sqlite", "--plan", dir + "/plan.json", "--shard", "0"]).status == 0)
    }

    /// `score --truth FILE` with a damaged or hand-edited truth.json: a distance of 1e308 or a time near Int64's
    /// ends crashed it (Double to Int conversion, overflow), a trip ending before it starts or without its times was
    /// scored as if true (F1 0.00). The file is now checked when read: each record's times and distances, naming the
    /// file, the array and the record.
    @Test(.enabled(if: Binary.exists, "needs the built tripline")) func aDamagedTruthFileIsRefusedNotACrash() throws {
        let dir = try temporaryDirectory()
        let result = Simulator(config: SimulatorConfig(seed: 33, days: 1, people: 1)).run()
        let store = try Store(path: dir + "/t.sqlite")
        try SimulationEvaluation.load(result, into: store)
        let truth = SimulationWriter.truthJSON(result)
        try FileSystem.write(truth, to: dir + "/truth.json")
        #expect(runCLI(["rebuild", "--db", dir + "/t.sqlite", "--timezone", "Europe/Berlin", "-q"]).status == 0)
        #expect(try Binary.run(["score", "--db", dir + "/t.sqlite", "--truth", dir + "/truth.json"]).status == 0)
        // Damage the first trip's record in four ways.
        let trip = try #require(truth.range(of: "\"trips\""))
        func damaged(_ key: String, _ value: String, _ n: Int) throws -> String {
            var text = truth
            let k = try #require(text.range(of: "\"\(key)\"", range: trip.upperBound..<text.endIndex))
            if value.isEmpty {
                text.replaceSubrange(k, with: "\"no_\(key)\"")  // the key missing
            } else {
                let valueEnd = try #require(text[k.upperBound...].firstIndex(where: { $0 == "," || $0 == "}" }))
                text.replaceSubrange(k.upperBound..<valueEnd, with: ":" + value)
            }
            let path = dir + "/truth-\(n).json"
            try FileSystem.write(text, to: path)
            return path
        }
        let files = [
            try damaged("distance_m", "1e308", 1), try damaged("start_ms", "-9223372036854775808", 2),
            try damaged("start_ms", "99999999999999", 3), try damaged("end_ms", "", 4),
        ]
        for path in files {
            let r = try Binary.run(["score", "--db", dir + "/t.sqlite", "--truth", path])
            #expect(r.status == 1, "\(path): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(path) && r.stderr.contains("trips[0]"), "\(r.stderr)")
        }
    }

    /// An option given an empty value (a script's unset variable: `--db "$DB"`, `-o "$OUT"`) was taken as absent
    /// or as a path: `import --db ""` imported into ./tripline.sqlite, and `simulate -o ""` wrote overland/, rec/
    /// and truth.json at the root of the file system. Every option's value must now be non-empty (exit 64).
    @Test(.enabled(if: Binary.exists, "needs the built tripline")) func emptyOptionValuesAreRefused() throws {
        let dir = try temporaryDirectory()
        let body = "{\"locations\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[11.5,48.1]},\"properties\":{\"timestamp\":\"2024-05-01T10:00:00Z\",\"device_id\":\"p\"}}]}"
        try FileSystem.write(body, to: dir + "/a.json")
        let r = try Binary.run(["import", "--db", "", "a.json"], directory: dir)
        #expect(r.status == 64 && r.stderr.contains("--db"), "\(r.stderr)")
        #expect(!FileSystem.exists(dir + "/tripline.sqlite"))
        let db = dir + "/t.sqlite"
        #expect(runCLI(["import", "--db", db, dir + "/a.json"]).status == 0)
        for arguments in [["export", "--db", db, "--format", "csv", "-o", ""], ["rebuild", "--db", db, "--config", ""],
                          ["plan", dir + "/a.json", "--shards", "1", "--out="], ["report", "--db", db, "--device", "", "devices-overview"]] {
            let e = runCLI(arguments)
            #expect(e.status == 64 && e.stderr.contains("empty"), "\(arguments): \(e.stderr)")
        }
    }

    /// A GeoPackage that fills its disk said "the disk holding the database is full" (SQLite's hint for the database),
    /// naming neither the output nor the right disk. Now the output is named; the old file stays and no temporary
    /// file is left.
    @Test(.enabled(if: FaultTests.canMount, "needs root and permission to mount a tmpfs"))
    func aGeoPackageThatFillsItsDiskSaysSo() throws {
        let dir = try temporaryDirectory()
        let db = try simulatedDatabase(dir)
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "UTC", "-q"]).status == 0)
        let mountPoint = dir + "/small"
        try FileSystem.createDirectory(mountPoint)
        try #require(FaultTests.shell("mount -t tmpfs -o size=64k tmpfs '\(mountPoint)'") == 0)
        defer { _ = FaultTests.shell("umount -l '\(mountPoint)'") }
        let output = mountPoint + "/all.gpkg"
        try FileSystem.write("old", to: output)
        let r = runCLI(["export", "--format", "gpkg", "--db", db, "-o", output])
        #expect(r.status == 1)
        #expect(r.stderr.contains(output) && r.stderr.contains("full") && !r.stderr.contains("holding the database"), "\(r.stderr)")
        #expect(try FileSystem.list(mountPoint) == ["all.gpkg"])
        #expect(try FileSystem.read(output) == Array("old".utf8))
    }
}
