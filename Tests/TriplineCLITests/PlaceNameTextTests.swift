import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Place names hold something to see and nothing that ends the text (docs/RELIABILITY.md): a name the user gives of
/// only white space or with a control character is refused, naming it; a name from an imported file has its control
/// characters replaced by spaces (never cut at a NUL) and, of only white space, is no name.
@Suite struct PlaceNameTextTests {
    /// OwnTracks: at the gym, a walk, at the library; the regions named by an `enter` and a `waypoint`.
    /// `recorder`: as the OwnTracks Recorder keeps them (`rec/USER/DEVICE/YYYY-MM.rec`, each message after its time
    /// and topic), else as the app's JSON lines.
    func ownTracks(gymName: String, libraryName: String, recorder: Bool = false) throws -> String {
        let gym = (lat: 48.1400, lon: 11.5600), library = (lat: 48.1400, lon: 11.5800)
        var lines: [String] = []
        var t: Int64 = 1_714_557_600  // 2024-05-01T10:00:00Z
        func fix(_ lat: Double, _ lon: Double) {
            lines.append("{\"_type\":\"location\",\"tid\":\"ot\",\"tst\":\(t),\"lat\":\(lat),\"lon\":\(lon),\"acc\":10,\"vel\":0}")
        }
        lines.append("{\"_type\":\"waypoint\",\"tid\":\"ot\",\"tst\":\(t - 86_400),\"lat\":\(library.lat),\"lon\":\(library.lon),"
            + "\"rad\":80,\"desc\":\"\(libraryName)\"}")
        lines.append("{\"_type\":\"transition\",\"tid\":\"ot\",\"tst\":\(t),\"lat\":\(gym.lat),\"lon\":\(gym.lon),\"acc\":10,"
            + "\"event\":\"enter\",\"desc\":\"\(gymName)\",\"t\":\"c\"}")
        for _ in 0..<60 { fix(gym.lat, gym.lon); t += 60 }
        for k in 1...30 { fix(gym.lat, gym.lon + (library.lon - gym.lon) * Double(k) / 30); t += 10 }
        for _ in 0..<80 { fix(library.lat, library.lon); t += 60 }
        let dir = try temporaryDirectory()
        var file = dir + "/ot.json"
        if recorder {
            try FileSystem.createDirectory(dir + "/rec/me/phone")
            file = dir + "/rec/me/phone/2024-05.rec"
            lines = lines.map { line in
                let tst = Int64(line.split(separator: ",")[2].split(separator: ":")[1])!
                return CivilTime.iso8601(ms: tst * 1000) + "\towntracks/me/phone\t" + line
            }
        }
        try FileSystem.write(lines.joined(separator: "\n") + "\n", to: file)
        #expect(runCLI(["import", "--db", dir + "/t.sqlite", file]).status == 0)
        let r = runCLI(["rebuild", "--db", dir + "/t.sqlite", "--timezone", "UTC"])
        #expect(r.status == 0, "\(r.stderr)")
        return dir + "/t.sqlite"
    }

    func names(_ db: String) throws -> [String] {
        let store = try Store(path: db)
        let q = try store.db.prepare("SELECT name FROM places ORDER BY first_visit_ms")
        var out: [String] = []
        while try q.step() { out.append(q.text(0) ?? "NULL") }
        return out
    }

    /// The exports of `db` stay valid with such names: every CSV row as wide as its header, GeoJSON and GPX whole.
    func exportsHold(_ db: String) throws {
        for what in ["places", "visits"] {
            let csv = runCLI(["export", "--db", db, "--format", "csv", "--what", what])
            #expect(csv.status == 0, "\(csv.stderr)")
            let rows = csv.stdout.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).count }
            #expect(rows.count > 1 && rows.allSatisfy { $0 == rows[0] }, "\(what): \(csv.stdout)")
            #expect(!csv.stdout.unicodeScalars.contains { $0.value == 0 }, "\(what): a NUL in the CSV")
        }
        let json = runCLI(["export", "--db", db, "--format", "geojson", "--what", "places"])
        #expect(json.status == 0 && json.stdout.hasSuffix("]}\n"), "\(json.stderr)")
        let gpx = runCLI(["export", "--db", db, "--format", "gpx", "--what", "visits"])
        let controls = gpx.stdout.unicodeScalars.filter { $0.value < 0x20 && $0.value != 10 && $0.value != 9 && $0.value != 13 }
        #expect(gpx.status == 0 && controls.isEmpty, "\(gpx.status) \(gpx.stderr)")
    }

    /// An OwnTracks region `nul\u0000byte\u0007bell` named its place `nul` (SQLite's `json_extract` cuts at the NUL); a
    /// region of only no-break and ideographic spaces named its place blank.
    @Test func importedNamesAreNotCutAndNotBlank() throws {
        let db = try ownTracks(gymName: "\\u00a0 \\u3000", libraryName: "nul\\u0000byte\\u0007bell\\nend")
        let got = try names(db)
        #expect(got.count == 2 && got[1] == "nul byte bell end", "\(got)")
        // The gym's region says nothing: the place is named as if it had none (its locality).
        #expect(got[0].hasPrefix("near "), "\(got)")
        try exportsHold(db)
    }

    /// Google: a place name with a NUL and a line end keeps all of it; a name of spaces gives way to the address.
    @Test func googleNamesAreNotCutAndNotBlank() throws {
        let g = GoogleTimelineTests()
        let day = g.semantic([
            g.visit("PA", name: "Cafe\\u0000Alpha\\r\\nCorner", lat: g.cafe.0, lon: g.cafe.1, from: "2024-05-01T08:00:00Z", to: "2024-05-01T10:38:00Z"),
            g.visit("PM", name: "  \\t ", lat: g.museum.0, lon: g.museum.1, from: "2024-05-01T13:30:00Z", to: "2024-05-01T15:00:00Z")
                .replacing("\"name\"", with: "\"address\":\"Museum\\u0000Island 1\",\"name\""),
        ])
        let (db, store) = try g.database([("fixes.json", g.morningFixes()), ("2024_MAY.json", day)])
        let named = try g.rows(store, "SELECT name FROM places ORDER BY name")
        #expect(named.contains("Cafe Alpha  Corner") && named.contains("Museum Island 1"), "\(named)")
        #expect(named.allSatisfy { !NameText.trimmed($0).isEmpty }, "\(named)")
        try exportsHold(db)
    }

    /// A wifi network of only spaces (or of control characters) named its place blank: now it names nothing, and a
    /// network's name with a control character inside is shown with a space there.
    @Test func aBlankWifiNamesNothing() throws {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 5, day: 6)) * 86_400_000
        var b = TrackBuilder(startMs: t0, lat: SampleTracks.berlin.lat, lon: SampleTracks.berlin.lon, offset: 7200)
        b.still(3 * 3600, every: 300, drift: 5...20, ssid: "   ")
        b.move(6000, bearing: 120, speed: 13, every: 2)
        b.still(2 * 3600, every: 300, drift: 5...20, ssid: "Office\u{0}5G")
        let db = try storeWith([("phone", b.points)]).path
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "UTC"]).status == 0)
        let got = try names(db)
        #expect(got.count == 2 && got[0].hasPrefix("near ") && got[1] == "Office 5G", "\(got)")
        try exportsHold(db)
    }

    /// `places rename` refuses a name of only white space and one with a control character (naming it), and drops
    /// the white space at a name's ends.
    @Test func aUserNameIsTextToShow() throws {
        let db = try ownTracks(gymName: "Gym", libraryName: "Library")
        let store = try Store(path: db)
        let id = try #require(try store.db.scalarInt("SELECT id FROM places WHERE name = 'Gym'"))
        for (name, message) in [
            (["   "], "only white space"), (["\u{A0}", "\u{3000}"], "only white space"), ([""], "empty"),
            (["nul\u{0}byte"], "U+0000 (NUL) at character 4"), (["two", "lines\nhere"], "U+000A (line feed)"),
            (["tab\there"], "U+0009 (tab)"), (["csi\u{9B}2J"], "U+009B"),
        ] {
            let r = runCLI(["places", "--db", db, "rename", String(id)] + name)
            #expect(r.status == 64 && r.stderr.contains(message), "\(name): \(r.status) \(r.stderr)")
        }
        #expect(try names(db) == ["Gym", "Library"])
        let r = runCLI(["places", "--db", db, "rename", String(id), " \u{A0}Climbing", "hall\t"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try names(db) == ["Climbing hall", "Library"])
        try exportsHold(db)
    }
}
