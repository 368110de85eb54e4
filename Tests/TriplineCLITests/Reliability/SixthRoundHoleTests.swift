import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineImport
@testable import TriplineCLI
import TriplineTestSupport

/// The sixth hostile round (docs/RELIABILITY.md, "Sixth hostile round"): odd folders, empty and odd Google files,
/// compressed files Tripline does not unpack. Each test failed before its fix.
@Suite struct SixthRoundHoleTests {
    func body(device: String, minute: Int) -> String {
        overlandBody([overlandFeature("2024-06-01T10:\(minute < 10 ? "0" : "")\(minute):00Z", lat: 52.52, lon: 13.4, device: device)])
    }

    func identity(_ path: String) -> [UInt64] {
        var st = stat()
        _ = stat(path, &st)
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// `import given/` where `given/up` is a symbolic link to the folder holding `given` (`up -> ..`, `top -> ../..`; a
    /// link to `/` or to the home folder is the same case): the walk followed it and read everything beside `given` (a link to `/`
    /// read the whole file system, `/proc` included, hundreds of thousands of lines of errors). Such a link is now
    /// skipped with the reason, and only the folder given is read.
    @Test func aLinkToAFolderHoldingTheOneGivenIsNotFollowed() throws {
        let dir = try temporaryDirectory()
        let given = dir + "/outer/given"
        try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
        try FileSystem.write(body(device: "mine", minute: 1), to: given + "/a.json")
        try FileSystem.write(body(device: "beside", minute: 2), to: dir + "/outer/beside.json")
        #expect(symlink("..", given + "/up") == 0)
        #expect(symlink("../..", given + "/top") == 0)
        let db = dir + "/t.sqlite"
        let run = runCLI(["import", given, "--db", db])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("beside.json"), "\(run.stdout)")
        #expect(run.stdout.contains("given/up: a symbolic link to a folder that holds"), "\(run.stdout)")
        #expect(run.stdout.contains("given/top: a symbolic link to a folder that holds"), "\(run.stdout)")
        #expect(run.stdout.contains("1 file imported, 2 skipped, 0 failed: 1 new points"), "\(run.stdout)")
        // A link to a folder beside (not above) the one given is still followed.
        let walk = FileSystem.walkEntries(dir + "/outer")
        #expect(walk.files.map(\.display).sorted() == [dir + "/outer/beside.json", dir + "/outer/given/a.json"])
        // `/` holds every folder, so a link to it is one of these (a test that followed it would read the whole disk).
        var root = stat()
        #expect(stat("/", &root) == 0)
        #expect(FileSystem.enclosingFolders(of: given).contains([UInt64(root.st_dev), UInt64(root.st_ino)]))
        #expect(!FileSystem.enclosingFolders(of: given).contains { $0 == identity(given) })
    }

    /// A link into `/proc` (or `/sys`, `/dev/fd`) inside a folder: the walk read `/proc/PID/cwd` of every process (the
    /// working folder of other users' programs: their archives were imported) and `/proc`'s files without end, until
    /// stopped (a link to `/proc` ran for 30 s when `timeout` ended it). Such a folder is now skipped, named.
    @Test func aLinkIntoTheKernelsFoldersIsNotFollowed() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write(body(device: "mine", minute: 1), to: dir + "/a.json")
        #expect(symlink("/sys/kernel/mm", dir + "/mm") == 0)
        // Small folders of each, so the test without the fix ends (a link to `/proc` itself walks every process).
        #expect(symlink("/proc/sys/kernel/random", dir + "/p") == 0)
        let walk = FileSystem.walkEntries(dir)
        #expect(walk.files.map(\.display) == [dir + "/a.json"])
        #expect(walk.skipped.contains { $0.0 == dir + "/p" && $0.1.hasPrefix("/proc, the kernel's folder") }, "\(walk.skipped)")
        if FileSystem.kind("/sys/kernel/mm") == .directory {
            #expect(walk.skipped.contains { $0.0 == dir + "/mm" && $0.1.hasPrefix("/sys, the kernel's folder") }, "\(walk.skipped)")
        }
        // `/proc/self` lies in `/proc`; the folder given (asked for by name) is read wherever it is.
        #expect(FileSystem.kernelFileSystem(Array("/proc/self".utf8)) == "/proc")
        #expect(FileSystem.kernelFileSystem(Array(dir.utf8)) == nil)
    }

    /// A folder the user names inside `/dev` (`/dev/shm`, a RAM disk some people unpack archives into) is read with its
    /// subfolders: the rule above skipped every subfolder of it as "the kernel's folder, reached through a symbolic link".
    @Test(.enabled(if: FileSystem.kind("/dev/shm") == .directory && access("/dev/shm", W_OK) == 0, "needs a writable /dev/shm"))
    func aFolderGivenInsideDevIsReadWhole() throws {
        let dir = "/dev/shm/tripline-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { FileSystem.removeTree(dir) }
        try FileSystem.createDirectory(dir + "/phone/2024", inside: "/dev/shm")
        try FileSystem.write(body(device: "mine", minute: 1), to: dir + "/phone/2024/a.json")
        let walk = FileSystem.walkEntries(dir)
        #expect(walk.files.map(\.display) == [dir + "/phone/2024/a.json"], "\(walk.skipped)")
        #expect(walk.skipped.isEmpty, "\(walk.skipped)")
    }

    /// `tripline import caf\xE9.json` (a Latin-1 file name, as old zips and Windows copies leave them), `--db` or `-o`
    /// such a name: Swift's `CommandLine.arguments` put U+FFFD in place of the byte, so the import said "no such file
    /// or directory" of a file that is there, and `--db`/`-o` wrote `caf\u{FFFD}.sqlite`, another file than the one
    /// named; `TRIPLINE_DB` the same. Such an argument or variable is now refused (exit 64) before anything is opened;
    /// the binary passes its raw bytes.
    @Test func anArgumentThatIsNotUTF8IsRefusedNotRepaired() throws {
        let dir = try temporaryDirectory()
        let latin1: [UInt8] = Array((dir + "/caf").utf8) + [0xE9] + Array(".json".utf8)
        let text = Array(body(device: "p", minute: 1).utf8)
        let fd = (latin1 + [0]).withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
        }
        try #require(fd >= 0)
        #expect(write(fd, text, text.count) == text.count)
        close(fd)
        // In process, on the bytes the process is given.
        let out = CaptureBuffer(), err = CaptureBuffer()
        let context = CommandContext(stdout: .capturing(out), stderr: .capturing(err), environment: [:])
        let status = TriplineCLI.main(rawArguments: [Array("import".utf8), latin1, Array("--db".utf8), Array((dir + "/t.sqlite").utf8)],
                                      context: context)
        #expect(status == 64)
        #expect(err.text.contains("caf\\xE9.json' is not UTF-8 text"), "\(err.text)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/t.sqlite"))
        // The binary itself: a shell hands it the byte (Foundation's Process takes only Strings).
        let script = "exec \"$0\" import --db \"$1/caf$(printf '\\351').sqlite\" \"$1/a.json\""
        try FileSystem.write(body(device: "p", minute: 2), to: dir + "/a.json")
        try #require(Binary.exists, "the built tripline binary is missing: \(Binary.path)")
        let shell = Process(), errors = Pipe()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script, Binary.path, dir]
        shell.standardError = errors
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 64, "\(said)")
        #expect(said.contains("caf\\xE9.sqlite' is not UTF-8 text"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".sqlite") }.isEmpty)
        // The same through `TRIPLINE_DB`, the one variable that names a file.
        let viaEnvironment = Process(), complaints = Pipe()
        viaEnvironment.executableURL = URL(fileURLWithPath: "/bin/sh")
        viaEnvironment.arguments = ["-c", "TRIPLINE_DB=\"$1/env$(printf '\\377').sqlite\" exec \"$0\" import \"$1/a.json\"", Binary.path, dir]
        viaEnvironment.standardError = complaints
        viaEnvironment.standardOutput = FileHandle.nullDevice
        try viaEnvironment.run()
        let told = String(decoding: complaints.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        viaEnvironment.waitUntilExit()
        #expect(viaEnvironment.terminationStatus == 64, "\(told)")
        #expect(told.contains("TRIPLINE_DB=\(dir)/env\\xFF.sqlite is not UTF-8 text"), "\(told)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".sqlite") }.isEmpty)
    }

    /// The Timeline.json of a phone that kept no history (`{"semanticSegments":[],"rawSignals":[]}`) and a Semantic
    /// Location History month with nothing in it: "valid JSON, but not a location archive", exit 1. Now Google's files,
    /// empty: imported with 0 points and their layout named, as an empty Overland body is.
    @Test func anEmptyGoogleTimelineIsImportedNotRefused() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write("{\"semanticSegments\":[],\"rawSignals\":[],\"userLocationProfile\":{}}", to: dir + "/Timeline.json")
        try FileSystem.write("{\"timelineObjects\":[]}", to: dir + "/2024_MAY.json")
        let run = runCLI(["import", dir + "/Timeline.json", dir + "/2024_MAY.json", "--db", dir + "/t.sqlite"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("Timeline.json [google/timeline]: 0 new"), "\(run.stdout)")
        #expect(run.stdout.contains("2024_MAY.json [google/semantic]: 0 new"), "\(run.stdout)")
        // Not a Google array, or not empty of what it should hold: still not an archive.
        #expect(FormatDetector.parse(Array("{\"semanticSegments\":null}".utf8)).fatal != nil)
    }

    /// A Timeline.json segment whose `visit` is `null` (or an `activity` that is not an object) was dropped without a
    /// word; the reject of a segment with no body said "neither an Overland feature … nor an OwnTracks message".
    @Test func aGoogleSegmentWithNothingReadableIsRejectedInGooglesWords() throws {
        let text = """
            {"semanticSegments":[
            {"startTime":"2024-06-01T10:00:00+02:00","endTime":"2024-06-01T11:00:00+02:00","visit":{"topCandidate":{"placeLocation":{"latLng":"52.52°, 13.4°"}}}},
            {"startTime":"2024-06-01T11:00:00+02:00","endTime":"2024-06-01T12:00:00+02:00","visit":null},
            {"startTime":"2024-06-01T12:00:00+02:00","endTime":"2024-06-01T13:00:00+02:00"}
            ]}
            """
        let out = FormatDetector.parse(Array(text.utf8))
        #expect(out.format == "google/timeline")
        #expect(out.events.count == 1)
        #expect(out.rejects.map(\.line) == [3, 4])
        #expect(out.rejects.first?.detail.contains("visit or activity is not an object") == true, "\(out.rejects)")
        #expect(out.rejects.last?.detail.contains("not a Google segment") == true, "\(out.rejects)")
        #expect(!out.rejects.contains { $0.detail.contains("Overland") })
    }

    /// A `.bz2`, `.xz`, `.zst`, `.7z` or `.rar` (and a SQLite database) was "binary data, not a location archive",
    /// which does not say that the file is fine but packed in a way Tripline does not unpack.
    @Test func compressedFilesTriplineDoesNotUnpackSaySo() throws {
        let dir = try temporaryDirectory()
        let files: [(String, [UInt8], String)] = [
            ("a.json.bz2", Array("BZh91AY&SY".utf8) + [0, 1, 2, 3], "bzip2-compressed data, not a location archive as it is"),
            ("a.json.xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0, 4, 0xE6], "xz-compressed data"),
            ("a.json.zst", [0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x05], "zstd-compressed data"),
            ("a.7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4], "7z-compressed data"),
            ("a.rar", Array("Rar!".utf8) + [0x1A, 0x07, 0x01, 0x00], "rar-compressed data"),
            ("other.sqlite", Array("SQLite format 3".utf8) + [0, 0x10, 0], "an SQLite database, not a location archive"),
        ]
        for (name, bytes, said) in files {
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
            let run = runCLI(["import", dir + "/" + name, "--db", dir + "/t.sqlite"])
            #expect(run.status == 1)
            #expect(run.stderr.contains(said), "\(name): \(run.stderr)")
        }
        // Inside a folder they are skipped with the same reason, as binary data was.
        let run = runCLI(["import", dir, "--db", dir + "/u.sqlite"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("a.json.bz2: bzip2-compressed data"), "\(run.stdout)")
    }

    // MARK: Noticed in the sixth round, fixed after it

    /// A Google measure that is there but is no number (`"altitude":"x"`, `"accuracy":"abc"`, `"velocity":"fast"`,
    /// `rawSignals`' `accuracyMeters`, an activity's `distanceMeters`) was dropped without a word; a number as a string
    /// (`"accuracy":"10"`) was and is read. Now the value is dropped with an `invalid_measure` row naming the field,
    /// its value and the line, and the fix or event is kept, as an out-of-range measure is. A velocity above 1,000 m/s,
    /// also dropped without a word in Google's files, now gets the `measure_out_of_range` row other formats give it.
    @Test func aGoogleMeasureThatIsNoNumberLeavesARow() throws {
        func location(_ minute: Int, _ fields: String) -> String {
            "{\"latitudeE7\":525200000,\"longitudeE7\":134000000,\"timestamp\":\"2024-06-01T10:\(minute < 10 ? "0" : "")\(minute):00Z\"\(fields)}"
        }
        let records = "{\"locations\":[\n" + [
            location(1, ",\"altitude\":\"x\",\"accuracy\":\"10\""),
            location(2, ",\"accuracy\":\"abc\",\"velocity\":\"fast\""),
            location(3, ",\"heading\":{},\"verticalAccuracy\":true,\"altitude\":null,\"accuracy\":-1"),
            location(4, ",\"velocity\":5000"),
            "{\"latitudeE7\":525200000,\"longitudeE7\":134000000,\"altitude\":\"x\"}",
        ].joined(separator: ",\n") + "\n]}"
        let out = FormatDetector.parse(Array(records.utf8))
        #expect(out.format == "google/records")
        #expect(out.points.count == 4)
        #expect(out.points.map(\.accuracyM) == [10, nil, nil, nil])
        #expect(out.points.allSatisfy { $0.altitudeM == nil && $0.speedMps == nil && $0.courseDeg == nil && $0.vAccuracyM == nil })
        let rows = out.rejects.map { "\($0.line ?? 0) \($0.reason.rawValue) \($0.detail)" }
        #expect(rows == [
            "2 invalid_measure altitude \"x\" is not a number; the point was kept without it",
            "3 invalid_measure velocity \"fast\" is not a number; the point was kept without it",
            "3 invalid_measure accuracy \"abc\" is not a number; the point was kept without it",
            "4 invalid_measure heading {} is not a number but JSON of another kind; the point was kept without it",
            "4 invalid_measure verticalAccuracy true is not a number but JSON of another kind; the point was kept without it",
            "5 measure_out_of_range speed 5000.0 m/s is above 1000 m/s; the point was kept without it",
            "6 missing_time the location has no 'timestamp' or 'timestampMs'",
        ], "\(rows)")

        // Timeline.json: a raw signal's measures and an activity's distance.
        let timeline = """
            {"semanticSegments":[
            {"startTime":"2024-06-01T10:00:00+02:00","endTime":"2024-06-01T11:00:00+02:00","activity":{"distanceMeters":"far","topCandidate":{"type":"walking"}}},
            {"startTime":"2024-06-01T11:00:00+02:00","endTime":"2024-06-01T12:00:00+02:00","activity":{"distanceMeters":1200.5}}
            ],"rawSignals":[
            {"position":{"LatLng":"52.52°, 13.4°","timestamp":"2024-06-01T10:05:00+02:00","accuracyMeters":"abc","altitudeMeters":"x","speedMetersPerSecond":"fast"}},
            {"position":{"LatLng":"52.52°, 13.4°","timestamp":"2024-06-01T10:06:00+02:00","accuracyMeters":"12","altitudeMeters":40}}
            ]}
            """
        let t = FormatDetector.parse(Array(timeline.utf8))
        #expect(t.format == "google/timeline")
        #expect(t.events.map(\.row.distanceM) == [nil, 1200.5])
        #expect(t.points.map(\.accuracyM) == [nil, 12] && t.points.map(\.altitudeM) == [nil, 40])
        #expect(t.rejects.map { "\($0.line ?? 0) \($0.reason.rawValue) \($0.detail)" } == [
            "2 invalid_measure distanceMeters \"far\" is not a number; the trip was kept without it",
            "5 invalid_measure speedMetersPerSecond \"fast\" is not a number; the point was kept without it",
            "5 invalid_measure altitudeMeters \"x\" is not a number; the point was kept without it",
            "5 invalid_measure accuracyMeters \"abc\" is not a number; the point was kept without it",
        ], "\(t.rejects)")

        // iOS location-history.json (numbers as strings) and a Semantic Location History month.
        let ios = """
            [{"startTime":"2024-06-01T10:00:00.000+02:00","endTime":"2024-06-01T11:00:00.000+02:00","activity":{"end":"geo:52.5,13.4","distanceMeters":"983.5"}},
            {"startTime":"2024-06-01T11:00:00.000+02:00","endTime":"2024-06-01T12:00:00.000+02:00","activity":{"end":"geo:52.5,13.4","distanceMeters":"n/a"}}]
            """
        let i = FormatDetector.parse(Array(ios.utf8))
        #expect(i.events.map(\.row.distanceM) == [983.5, nil])
        #expect(i.rejects.map(\.reason) == [.invalidMeasure] && i.rejects.first?.line == 2)
        let semantic = """
            {"timelineObjects":[
            {"activitySegment":{"duration":{"startTimestamp":"2024-06-01T10:00:00Z","endTimestamp":"2024-06-01T11:00:00Z"},"distance":"far"}}
            ]}
            """
        let m = FormatDetector.parse(Array(semantic.utf8))
        #expect(m.events.count == 1 && m.events.first?.row.distanceM == nil)
        #expect(m.rejects.map(\.detail) == ["distance \"far\" is not a number; the trip was kept without it"])
        // An event that is itself rejected gets its own row only, not one saying it was kept.
        let early = """
            {"timelineObjects":[
            {"activitySegment":{"duration":{"startTimestamp":"1990-06-01T10:00:00Z","endTimestamp":"1990-06-01T11:00:00Z"},"distance":"far"}}
            ]}
            """
        #expect(FormatDetector.parse(Array(early.utf8)).rejects.map(\.reason) == [.timeTooEarly])

        // Through the command: the rows are stored and listed with their line.
        let dir = try temporaryDirectory()
        try FileSystem.write(records, to: dir + "/Records.json")
        let run = runCLI(["import", dir + "/Records.json", "--db", dir + "/t.sqlite"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("4 new, 0 duplicate, 7 rejected"), "\(run.stdout)")
        #expect(run.stdout.contains("rejected line 2: invalid_measure: altitude \"x\" is not a number"), "\(run.stdout)")
    }

    /// The summary counted every entry of a folder as a file: "7 files: 20 new points, …" for 4 files read and 3 links
    /// not followed. Now it says how many files were imported and how many entries were skipped or failed, and
    /// `--json` has `imported` and `skipped` beside `failed`.
    @Test func theSummaryCountsSkippedEntriesAsSkippedNotAsFiles() throws {
        let dir = try temporaryDirectory()
        let given = dir + "/given"
        try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
        try FileSystem.write(body(device: "mine", minute: 1), to: given + "/a.json")
        try FileSystem.write(body(device: "mine", minute: 2), to: given + "/b.json")
        #expect(symlink("..", given + "/up") == 0)
        #expect(symlink("/proc/sys/kernel/random", given + "/p") == 0)
        try FileSystem.write("not a location archive", to: given + "/notes.txt")
        let db = dir + "/t.sqlite"
        let run = runCLI(["import", given, "--db", db])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\n2 files imported, 3 skipped, 0 failed: 2 new points, 0 duplicate, 0 rejected, 0 app events ("),
                "\(run.stdout)")
        #expect(!run.stdout.contains("5 files"), "\(run.stdout)")
        // Again: the two files are skipped as already imported, and nothing is called imported.
        let again = runCLI(["import", given, "--db", db, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(json["imported"] as? Int == 0 && json["skipped"] as? Int == 5 && json["failed"] as? Int == 0, "\(json)")
        #expect((json["files"] as? [[String: Any]])?.count == 5)
        let one = runCLI(["import", given + "/a.json", "--db", dir + "/u.sqlite"])
        #expect(one.stdout.contains("\n1 file imported, 0 skipped, 0 failed: 1 new points"), "\(one.stdout)")
    }

    /// A file of only white space (300 MB of line ends) was an `empty_file` reject saying "the file is empty"; now it
    /// says that the file holds only white space (a file of no byte is still "empty"), inside a folder too.
    @Test func aFileOfOnlyWhiteSpaceIsCalledSo() throws {
        #expect(FormatDetector.parse(Array(" \n\r\n\t ".utf8)).rejects.map(\.detail) == ["the file holds only white space (6 bytes), no record"])
        #expect(FormatDetector.parse([]).rejects.map(\.detail) == ["the file is empty"])
        let dir = try temporaryDirectory()
        try FileSystem.write(body(device: "mine", minute: 1), to: dir + "/a.json")
        try FileSystem.write("\n\n\n", to: dir + "/blank.json")
        try FileSystem.write("", to: dir + "/empty.json")
        let run = runCLI(["import", dir, "--db", dir + "/t.sqlite"])
        #expect(run.stdout.contains("blank.json: a file of only white space: nothing to import"), "\(run.stdout)")
        #expect(run.stdout.contains("empty.json: an empty file: nothing to import"), "\(run.stdout)")
        let alone = runCLI(["import", dir + "/blank.json", "--db", dir + "/u.sqlite"])
        #expect(alone.stdout.contains("empty_file: the file holds only white space (3 bytes), no record"), "\(alone.stdout)")
    }

    /// `import -` under a `TMPDIR` that does not exist, or is not UTF-8 (Swift read it with U+FFFD, another folder),
    /// said "-: cannot read: No such file or directory", naming neither TMPDIR nor the folder. Now TMPDIR is taken as
    /// its bytes (a folder whose name is not UTF-8 is used), and a folder where no file can be made is named with it.
    @Test func aTMPDIRWhereNoFileCanBeMadeIsNamed() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write(body(device: "mine", minute: 1), to: dir + "/a.json")
        try #require(Binary.exists, "the built tripline binary is missing: \(Binary.path)")
        func run(_ tmpdir: String, db: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let shell = Process(), out = Pipe(), errors = Pipe()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            // The shell makes the bytes (Foundation's Process takes only Strings).
            shell.arguments = ["-c", "TMPDIR=\(tmpdir) exec \"$0\" import --db \"$1/\(db)\" - < \"$1/a.json\"", Binary.path, dir]
            shell.standardOutput = out
            shell.standardError = errors
            try shell.run()
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let told = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            return (shell.terminationStatus, said, told)
        }
        let missing = try run("\"$1/gone\"", db: "t.sqlite")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("-: cannot read: TMPDIR=\(dir)/gone: no temporary file can be made there (no such file or directory)"),
                "\(missing.stderr)")
        let latin1 = try run("\"$1/gone$(printf '\\351')\"", db: "u.sqlite")
        #expect(latin1.status == 1)
        #expect(latin1.stderr.contains("TMPDIR=\(dir)/gone\\xE9: no temporary file can be made there"), "\(latin1.stderr)")
        // A folder of that name that exists is used: the import reads standard input.
        let made = Process()
        made.executableURL = URL(fileURLWithPath: "/bin/sh")
        made.arguments = ["-c", "mkdir \"$0/tmp$(printf '\\351')\"", dir]
        try made.run()
        made.waitUntilExit()
        let works = try run("\"$1/tmp$(printf '\\351')\"", db: "v.sqlite")
        #expect(works.status == 0, "\(works.stderr)")
        #expect(works.stdout.contains("1 new, 0 duplicate, 0 rejected"), "\(works.stdout)")
    }
}
