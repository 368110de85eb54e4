import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineCLI
import TriplineTestSupport

/// The twelfth hostile round (docs/RELIABILITY.md, "Twelfth hostile round"): what Tripline writes it reads back, and
/// messages that say what is wrong. Each test failed before its fix.
@Suite struct TwelfthRoundHoleTests {
    /// Tripline's GPX points export wrote speed, accuracy, motion and wifi under its `tripline:` namespace and the GPX
    /// reader read none of them back: a backup re-imported lost them, and its walk rebuilt 30 s shorter at both ends.
    @Test func theGPXPointsExportReadsBackWhole() throws {
        let dir = try temporaryDirectory()
        let features = (0..<20).map { i in
            overlandFeature("2024-06-03T09:\(i < 10 ? "0" : "")\(i):00Z", lat: 52.52 + Double(i) * 1e-4, lon: 13.40, device: "phone",
                            extra: ",\"motion\":[\"walking\"],\"wifi\":\"HomeNet\"")
        }
        try FileSystem.write(overlandBody(features), to: dir + "/body.json")
        let columns = "SELECT p.time_ms, p.lat, p.lon, p.speed_mps, p.accuracy_m, p.motion, p.ssid FROM points p ORDER BY p.time_ms"
        #expect(runCLI(["import", "--quiet", "--db", dir + "/a.sqlite", dir + "/body.json"]).status == 0)
        let export = runCLI(["export", "--quiet", "--db", dir + "/a.sqlite", "--what", "points", "--format", "gpx", "-o", dir + "/points.gpx"])
        #expect(export.status == 0, "\(export.stderr)")
        let back = runCLI(["import", "--quiet", "--db", dir + "/b.sqlite", "--device", "phone", dir + "/points.gpx"])
        #expect(back.status == 0, "\(back.stderr)")
        let a = try rows(dir + "/a.sqlite", columns), b = try rows(dir + "/b.sqlite", columns)
        #expect(a.count == 20 && a == b, "\(a.first ?? "") ≠ \(b.first ?? "")")
        #expect(b.first?.contains("|3.0|10.0|walking|HomeNet") == true, "\(b.first ?? "")")
    }

    /// `--db` in a folder that does not exist said only SQLite's "unable to open database file".
    @Test func aDatabaseInAMissingFolderSaysSo() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write(overlandBody([overlandFeature("2024-06-03T09:00:00Z", lat: 52.52, lon: 13.40)]), to: dir + "/body.json")
        let run = runCLI(["import", "--db", dir + "/no/such/folder/t.sqlite", dir + "/body.json"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("the folder \(dir)/no/such/folder does not exist"), "\(run.stderr)")
    }

    /// An Overland body on one line (as the app posts it): every reject of the summary said "rejected line 1"; those
    /// that share a line now give their byte too.
    @Test func rejectsOnOneLineGiveTheirByte() throws {
        let dir = try temporaryDirectory()
        var features = (0..<10).map { i in overlandFeature("2024-06-03T09:0\(i):00Z", lat: 52.52, lon: 13.40) }
        features[3] = overlandFeature("yesterday", lat: 52.52, lon: 13.40)
        features[7] = overlandFeature("tomorrow", lat: 52.52, lon: 13.40)
        try FileSystem.write(overlandBody(features), to: dir + "/body.json")
        let run = runCLI(["import", "--db", dir + "/t.sqlite", dir + "/body.json"])
        #expect(run.status == 0, "\(run.stderr)")
        let places = run.stdout.split(separator: "\n").filter { $0.contains("rejected line") }
        #expect(places.count == 2 && places.allSatisfy { $0.contains("rejected line 1, byte ") }, "\(run.stdout)")
        #expect(Set(places).count == 2, "two rejects, two places: \(run.stdout)")
    }

    /// `report day` on a database imported but never rebuilt said "no visits or trips" and nothing more; `import` of a
    /// folder with no file in it said "0 files imported" and nothing more.
    @Test func emptyAnswersSayWhy() throws {
        let dir = try temporaryDirectory()
        try FileSystem.write(overlandBody([overlandFeature("2024-06-03T09:00:00Z", lat: 52.52, lon: 13.40)]), to: dir + "/body.json")
        #expect(runCLI(["import", "--quiet", "--db", dir + "/t.sqlite", dir + "/body.json"]).status == 0)
        let day = runCLI(["report", "day", "--date", "2024-06-03", "--db", dir + "/t.sqlite"])
        #expect(day.status == 0 && day.stdout.contains("no visits or trips"), "\(day.stdout)")
        #expect(day.stderr.contains("never rebuilt") && day.stderr.contains("run 'tripline rebuild' first"), "\(day.stderr)")
        try FileSystem.createDirectory(dir + "/empty")
        let none = runCLI(["import", "--db", dir + "/t.sqlite", dir + "/empty"])
        #expect(none.status == 0 && none.stderr.contains("no file was found in what was given"), "\(none.stdout) \(none.stderr)")
    }

    /// `places forget` and `places merge` could be undone only in SQL, and kept applying to any new place near the
    /// old centre: `places edits` lists the edits kept, `places undo EDIT` removes one and recomputes at once.
    @Test func aPlaceEditCanBeUndone() throws {
        let (path, ids) = try SeventhRoundHoleTests().twoPlaces()
        let places = ids.map(String.init)
        try #require(places.count == 2)
        #expect(runCLI(["places", "edits", "--db", path]).stdout.contains("No place edits."))
        #expect(runCLI(["places", "forget", places[0], "--db", path]).status == 0)
        #expect(try rows(path, "SELECT count(*) FROM places") == ["1"])
        let listed = runCLI(["places", "edits", "--db", path, "--json"])
        #expect(listed.status == 0 && listed.stdout.contains("\"action\":\"forget\""), "\(listed.stdout)")
        let edit = try #require(try rows(path, "SELECT id FROM place_edits").first)
        let undone = runCLI(["places", "undo", edit, "--db", path])
        #expect(undone.status == 0 && undone.stdout.contains("Removed edit \(edit) (forget) of phone"), "\(undone.stdout) \(undone.stderr)")
        #expect(try rows(path, "SELECT count(*) FROM places") == ["2"])
        #expect(try rows(path, "SELECT count(*) FROM place_edits") == ["0"])
        let missing = runCLI(["places", "undo", edit, "--db", path])
        #expect(missing.status == 1 && missing.stderr.contains("no place edit with id \(edit)"), "\(missing.stderr)")
    }

    func rows(_ path: String, _ sql: String) throws -> [String] {
        let store = try Store(path: path, create: false)
        let q = try store.db.prepare(sql)
        var out: [String] = []
        while try q.step() { out.append((0..<q.columnCount).map { q.text($0) ?? "NULL" }.joined(separator: "|")) }
        return out
    }
}
