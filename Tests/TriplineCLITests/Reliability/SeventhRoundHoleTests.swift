import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplinePasses
@testable import TriplineCLI
import TriplineTestSupport

/// The seventh hostile round (docs/RELIABILITY.md, "Seventh hostile round"): other programs' SQLite files, options a
/// command passed over, a place renamed to a name another place has. Each test failed before its fix.
@Suite struct SeventhRoundHoleTests {
    func bytes(_ path: String) throws -> [UInt8] { try FileSystem.read(path) }

    /// A small archive to import.
    func archive(in dir: String) throws -> String {
        let path = dir + "/a.json"
        try FileSystem.write(overlandBody([overlandFeature("2024-06-01T10:00:00Z", lat: 52.52, lon: 13.4)]), to: path)
        return path
    }

    /// `import --db` another program's SQLite file (a browser's history, an app's database from a phone backup): it
    /// was refused ("holds tables but no Tripline schema version"), but only after it had been switched to WAL (its
    /// header's bytes 18–19 changed: a program that reads it without WAL support then fails). One whose own
    /// `user_version` is between 1 and Tripline's had Tripline's migrations run on it: "SQLite error 1: no such table:
    /// rejects (while running: ALTER TABLE …)". Both are now refused with the reason before anything is written, by
    /// every command.
    @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
        let dir = try temporaryDirectory()
        let input = try archive(in: dir)
        for version in [0, 1, 7, Schema.currentVersion] {
            let path = dir + "/other-\(version).db"
            do {
                let other = try Database(path: path)
                try other.execute("CREATE TABLE moz_places(id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places(url) VALUES ('https://example.org')")
                try other.execute("PRAGMA user_version=\(version)")
            }
            let before = try bytes(path)
            for command in [["import", input], ["rebuild"], ["info"], ["places"], ["report", "trips"]] {
                let run = runCLI(command + ["--db", path])
                #expect(run.status == 1, "\(command) \(version): \(run.stdout) \(run.stderr)")
                #expect(run.stderr.contains("is not a Tripline database"), "\(command) \(version): \(run.stderr)")
                #expect(run.stderr.contains("another program's database?"), "\(command) \(version): \(run.stderr)")
                #expect(!run.stderr.contains("SQLite error"), "\(command) \(version): \(run.stderr)")
                #expect(try bytes(path) == before, "\(command) \(version): the file was written")
                #expect(!FileSystem.exists(path + "-wal"), "\(command) \(version): a -wal was made")
            }
        }
        // Tripline's own files still open: a new one, and one an import made.
        let mine = dir + "/mine.sqlite"
        #expect(runCLI(["import", input, "--db", mine]).status == 0)
        #expect(runCLI(["info", "--db", mine]).status == 0)
    }

    /// Two places of one device, 8 km apart, two hours each (place ids from the rebuild).
    func twoPlaces() throws -> (path: String, ids: [Int64]) {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 3)) * 86_400_000 + 6 * 3_600_000
        var b = TrackBuilder(startMs: t0, lat: 52.52, lon: 13.405, offset: 7200)
        b.still(2 * 3600, every: 60, drift: 0...10)
        b.move(8000, bearing: 250, speed: 8, every: 10)
        b.still(2 * 3600 - 60, every: 60, drift: 0...10)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        var ids: [Int64] = []
        let s = try store.db.prepare("SELECT id FROM places ORDER BY first_visit_ms")
        while try s.step() { ids.append(s.int64(0)) }
        return (store.path, ids)
    }

    func names(_ path: String) throws -> [String] {
        let store = try Store(path: path, create: false)
        var out: [String] = []
        let s = try store.db.prepare("SELECT name FROM places ORDER BY first_visit_ms")
        while try s.step() { out.append(s.text(0) ?? "") }
        return out
    }

    /// `places rename B Cafe` where place A of the same device is already `Cafe`: it said "Renamed place B … to Cafe."
    /// and left B with its automatic name (`near Berlin (…)`), while `rebuild --full` then named it `Cafe (2)`: the
    /// naming took a place bearing the user's name qualified for a place the user never named, and `places rename`
    /// names twice. Now the place is `Cafe (2)` at once, through any later rename or rebuild, and the message says why.
    @Test func aPlaceRenamedToAnotherPlacesNameKeepsItQualified() throws {
        let (path, ids) = try twoPlaces()
        try #require(ids.count == 2)
        #expect(runCLI(["places", "rename", String(ids[0]), "Cafe", "--db", path]).status == 0)
        let second = runCLI(["places", "rename", String(ids[1]), "Cafe", "--db", path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("to Cafe (2): another place of phone is named Cafe"), "\(second.stdout)")
        #expect(try names(path) == ["Cafe", "Cafe (2)"])
        // Naming again (another rename, a pass alone, a full rebuild) keeps it.
        #expect(runCLI(["places", "rename", String(ids[0]), "Cafe", "--db", path]).status == 0)
        #expect(try names(path) == ["Cafe", "Cafe (2)"])
        #expect(runCLI(["rebuild", "--pass", "timeline", "--db", path]).status == 0)
        #expect(try names(path) == ["Cafe", "Cafe (2)"])
        #expect(runCLI(["rebuild", "--full", "--db", path]).status == 0)
        #expect(try names(path) == ["Cafe", "Cafe (2)"])
        // Forgetting the first gives the second the name whole.
        #expect(runCLI(["places", "forget", String(ids[0]), "--db", path]).status == 0)
        #expect(try names(path) == ["Cafe"])
    }

    /// The other way round: the place renamed takes the name and the place that bore it is qualified. The message
    /// said only "Renamed place A … to Cafe", and B's name changed without a word; now it names B and its new name.
    @Test func aRenameThatQualifiesAnotherPlaceSaysSo() throws {
        let (path, ids) = try twoPlaces()
        try #require(ids.count == 2)
        #expect(runCLI(["places", "rename", String(ids[1]), "Cafe", "--db", path]).status == 0)
        #expect(try names(path)[1] == "Cafe")
        let first = runCLI(["places", "rename", String(ids[0]), "Cafe", "--db", path])
        #expect(first.status == 0, "\(first.stderr)")
        // The place with more time spent (then the lower id) keeps the plain name (docs/PASSES.md, "Place names").
        #expect(try names(path) == ["Cafe", "Cafe (2)"])
        #expect(first.stdout.contains("to Cafe; place \(ids[1]), also named Cafe, is now Cafe (2)."), "\(first.stdout)")
    }

    /// `report trips --date 2024-06-03` printed the trips of every day (`--date` is read by `report day` only), and
    /// `report day --date D --from … --to …` or `--format json` printed the day's text as if nothing were given. An
    /// option the chosen report does not read is now refused (exit 64), naming the one it takes.
    @Test func reportOptionsTheChosenReportDoesNotReadAreRefused() throws {
        let (path, _) = try twoPlaces()
        let trips = runCLI(["report", "trips", "--date", "2024-06-04", "--db", path])
        #expect(trips.status == 64, "\(trips.stdout)")
        #expect(trips.stderr.contains("--date is for 'report day'"), "\(trips.stderr)")
        for extra in [["--from", "2024-06-01"], ["--to", "2024-06-09"], ["--format", "json"]] {
            let day = runCLI(["report", "day", "--date", "2024-06-03", "--db", path] + extra)
            #expect(day.status == 64, "\(extra): \(day.stdout)")
            #expect(day.stderr.contains("is for the SQL reports"), "\(extra): \(day.stderr)")
        }
        // What they do read still works.
        #expect(runCLI(["report", "trips", "--from", "2024-06-03", "--to", "2024-06-03", "--db", path]).status == 0)
        #expect(runCLI(["report", "day", "--date", "2024-06-03", "--device", "phone", "--db", path]).status == 0)
    }

    /// A phone that reports one speed on every fix whatever it does (15 m/s here: a stuck Doppler value, a logger that
    /// repeats its last speed), two hours still at home (a fix every 10 s, up to 5 m of jitter), a 20-minute ride of
    /// 7.3 km (6.1 m/s), two hours still at the office: the ride was a `car` at a top speed of 15 m/s, the speed the
    /// phone repeated. A run of reported speeds that the path over a minute does not cover at half their value is now
    /// not trusted (algorithm version 52), as a run of zeros on a moving track is not: the ride is what its fixes show.
    @Test func aPhoneRepeatingOneSpeedIsNotBelieved() throws {
        let home = (52.52, 13.405), office = (52.50, 13.30)
        let leave: Int64 = 1_717_228_800_000  // 2024-06-01T08:00:00Z
        var rng = SplitMix64(seed: 11)
        func feature(_ ms: Int64, _ lat: Double, _ lon: Double) -> String {
            let time = CivilTime.iso8601(ms: ms, offset: UTCOffset(seconds: 7200))
            return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"properties\":"
                + "{\"timestamp\":\"\(time)\",\"device_id\":\"phone\",\"speed\":15,\"horizontal_accuracy\":10}}"
        }
        func still(_ from: Int64, _ at: (Double, Double)) -> [String] {
            stride(from: 0, to: 7200, by: 10).map { s in
                let p = Geo.destination(at.0, at.1, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 5))
                return feature(from + Int64(s) * 1000, p.lat, p.lon)
            }
        }
        let metres = Geo.distance(home.0, home.1, office.0, office.1), bearing = Geo.bearing(home.0, home.1, office.0, office.1)
        var features = still(leave - 7_200_000, home)
        features += stride(from: 10, to: 1200, by: 10).map { s in
            let p = Geo.destination(home.0, home.1, bearing: bearing, distance: metres * Double(s) / 1200)
            return feature(leave + Int64(s) * 1000, p.lat, p.lon)
        }
        features += still(leave + 1_200_000, office)
        let dir = try temporaryDirectory()
        try FileSystem.write(overlandBody(features), to: dir + "/batch.json")
        let db = dir + "/t.sqlite"
        try #require(runCLI(["import", dir + "/batch.json", "--db", db]).status == 0)
        try #require(runCLI(["rebuild", "--db", db]).status == 0)
        let csv = runCLI(["export", "--what", "trips", "--format", "csv", "--db", db])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 2, "\(csv.stdout)")
        let trip = Dictionary(uniqueKeysWithValues: zip(rows[0], rows[1]))
        // The ride: 10:00:00–10:20:00 local; within a fix or two of it, and its moving time that of the ride.
        #expect(trip["start_time"]?.hasPrefix("2024-06-01T09:59") == true || trip["start_time"]?.hasPrefix("2024-06-01T10:00") == true, "\(trip)")
        #expect(trip["end_time"]?.hasPrefix("2024-06-01T10:20") == true, "\(trip)")
        let moving = Double(trip["moving_s"] ?? "") ?? 0
        #expect(moving > 1100 && moving <= 1260, "\(trip)")
        #expect(trip["mode"] == "cycle", "\(trip)")
        let top = Double(trip["max_speed_mps"] ?? "") ?? 0
        #expect(top > 5 && top < 8, "\(trip)")
    }

    /// `rebuild --config tripline.sqlite` (the database given for the config file, a tab-completion away) printed its
    /// first "line", 200 bytes of SQLite's header escaped, as "… is not of the form pass.key=value"; a config file saved
    /// in Latin-1 (`stays.radius_m = 5\xFF0`, a comment `café`) was read with U+FFFD in place of the bytes: the value's
    /// error showed a character that is not in the file, and a comment passed. Now a file with NUL bytes is "binary
    /// data" (an SQLite database named so) and text that is not UTF-8 is refused naming its line.
    @Test func aConfigFileThatIsNoUTF8TextIsNamedSo() throws {
        let (path, _) = try twoPlaces()
        let dir = FileSystem.directoryName(path)
        let database = runCLI(["rebuild", "--db", path, "--config", path])
        #expect(database.status == 64, "\(database.stderr)")
        #expect(database.stderr.contains("binary data (an SQLite database), not a file of 'pass.key = value' lines"), "\(database.stderr)")
        #expect(!database.stderr.contains("SQLite format"), "\(database.stderr)")
        try FileSystem.write(Array("# Einstellungen f\u{FC}r caf".utf8) + [0xE9] + Array("\nstays.radius_m = 50\n".utf8), to: dir + "/latin1.conf")
        let latin1 = runCLI(["rebuild", "--db", path, "--config", dir + "/latin1.conf"])
        #expect(latin1.status == 64, "\(latin1.stderr)")
        #expect(latin1.stderr.contains("latin1.conf:1: not UTF-8 text"), "\(latin1.stderr)")
        try FileSystem.write(Array("stays.radius_m = 50\nstays.min_duration_s = 3".utf8) + [0xFF] + Array("0\n".utf8), to: dir + "/value.conf")
        let value = runCLI(["rebuild", "--db", path, "--config", dir + "/value.conf"])
        #expect(value.status == 64, "\(value.stderr)")
        #expect(value.stderr.contains("value.conf:2: not UTF-8 text"), "\(value.stderr)")
        // A UTF-8 file with a byte-order mark and a comment in any language still reads.
        try FileSystem.write("\u{FEFF}# Einstellungen für café\nstays.radius_m = 50\n", to: dir + "/ok.conf")
        #expect(runCLI(["rebuild", "--db", path, "--config", dir + "/ok.conf"]).status == 0)
    }

    /// Fixes in Berlin stamped `+05:00` (a phone set to another zone): the rows follow the fixes' own offsets (what
    /// the person's clock said; the fifth round left it so), but nothing said that a local day may then not be the day
    /// where the person was. `rebuild` now warns once per device, naming how many visits and the first, with the zone's
    /// offset beside; fixes at the zone's own offset give no warning.
    @Test func fixesStampedWithAnotherZonesOffsetAreNamedByTheRebuild() throws {
        let home = (52.52, 13.405), office = (52.50, 13.30)
        let leave: Int64 = 1_717_228_800_000  // 2024-06-01T08:00:00Z
        func features(_ offset: Int32) -> [String] {
            func fix(_ ms: Int64, _ p: (Double, Double)) -> String {
                overlandFeature(CivilTime.iso8601(ms: ms, offset: UTCOffset(seconds: offset)), lat: p.0, lon: p.1)
            }
            var out = stride(from: 0, to: 7200, by: 60).map { fix(leave - 7_200_000 + Int64($0) * 1000, home) }
            out += stride(from: 10, to: 1200, by: 10).map { s in
                let f = Double(s) / 1200
                return fix(leave + Int64(s) * 1000, (home.0 + (office.0 - home.0) * f, home.1 + (office.1 - home.1) * f))
            }
            out += stride(from: 0, to: 7200, by: 60).map { fix(leave + 1_200_000 + Int64($0) * 1000, office) }
            return out
        }
        for (offset, warned) in [(Int32(18_000), true), (Int32(7200), false)] {
            let dir = try temporaryDirectory()
            try FileSystem.write(overlandBody(features(offset)), to: dir + "/batch.json")
            let db = dir + "/t.sqlite"
            try #require(runCLI(["import", dir + "/batch.json", "--db", db]).status == 0)
            let rebuilt = runCLI(["rebuild", "--db", db])
            #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
            if warned {
                let expected = "Warning: phone: 2 of 2 visits carry their fixes' own UTC offset, not that of the zone where they were "
                    + "(the first on 2024-06-01 at +05:00, where Europe/Berlin had +02:00)"
                #expect(rebuilt.stderr.contains(expected), "\(rebuilt.stderr)")
            } else {
                #expect(!rebuilt.stderr.contains("Warning"), "\(rebuilt.stderr)")
            }
        }
    }
}
