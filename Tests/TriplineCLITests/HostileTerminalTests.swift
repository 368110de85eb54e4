import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Archive text (device names, wifi SSIDs that become place names, a user's query results) reaches the terminal
/// only escaped: no C0 control but tab and line feed, no DEL, no C1 control (U+009B is CSI, as ESC [), no
/// bidirectional control (U+202E reverses what follows). Each command is fed hostile names and its standard output
/// and error are checked; CSV and JSON data is left as it is.
@Suite struct HostileTerminalTests {
    static let hostile = "evil\u{1B}]0;pwned\u{07}\u{9B}2J\u{202E}gnp.exe\u{2066}\u{200F}\u{061C}\u{7F}\r\u{85}"

    /// Whether `text` holds anything a terminal would act on.
    static func acting(_ text: String) -> [String] {
        var found: [String] = []
        for s in text.unicodeScalars {
            let v = s.value
            let bad = (v < 0x20 && v != 0x0A && v != 0x09) || (v >= 0x7F && v < 0xA0)
                || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            if bad { found.append("U+" + String(v, radix: 16, uppercase: true)) }
        }
        return found
    }

    static func check(_ run: (status: Int32, stdout: String, stderr: String), _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(acting(run.stdout).isEmpty, "\(what): stdout carries \(acting(run.stdout)): \(run.stdout)", sourceLocation: sourceLocation)
        #expect(acting(run.stderr).isEmpty, "\(what): stderr carries \(acting(run.stderr)): \(run.stderr)", sourceLocation: sourceLocation)
    }

    /// A device named hostile text whose home's wifi is named hostile text too, and a second device.
    static func database() throws -> String {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 5, day: 6)) * 86_400_000
        var b = TrackBuilder(startMs: t0, lat: SampleTracks.berlin.lat, lon: SampleTracks.berlin.lon, offset: 7200)
        b.still(3 * 3600, every: 300, drift: 5...20, ssid: hostile)
        b.move(6000, bearing: 120, speed: 13, every: 2)
        b.still(2 * 3600, every: 300, drift: 5...20, ssid: "Office\u{202E}")
        b.move(6000, bearing: 300, speed: 13, every: 2)
        b.still(3600, every: 300, drift: 5...20, ssid: hostile)
        return try storeWith([(hostile, b.points), ("other", b.points)]).path
    }

    @Test func noCommandPrintsArchiveControls() throws {
        let db = try Self.database()
        let rebuild = runCLI(["rebuild", "--db", db, "--timezone", "UTC"])
        #expect(rebuild.status == 0, "\(rebuild.stderr)")
        #expect(rebuild.stdout.contains("evil\\x1B]0;pwned\\x07\\x9B2J\\u{202E}gnp.exe"), "\(rebuild.stdout)")
        Self.check(rebuild, "rebuild")
        Self.check(runCLI(["info", "--db", db]), "info")
        Self.check(runCLI(["places", "--db", db]), "places")

        // "no device named … (known devices: …)": every command that selects a device lists the hostile one.
        let dir = try temporaryDirectory()
        let sql = dir + "/q.sql"
        try FileSystem.write("SELECT name, char(155) || '2J' AS csi, char(27) || '[31m' AS esc, char(8238) AS rlo, char(9) AS tab FROM devices;\n", to: sql)
        for arguments in [
            ["export", "--db", db, "--device", "nope\u{1B}[2J", "-o", dir + "/x.csv"],
            ["report", "daily-summary", "--db", db, "--device", "nope"],
            ["query", sql, "--db", db, "--device", "nope"],
            ["map", "--db", db, "--device", "nope", "-o", dir + "/m.html"],
            ["places", "--db", db, "--device", "nope\u{202E}"],
            ["rebuild", "--db", db, "--device", "nope"],
        ] {
            let run = runCLI(arguments)
            #expect(run.status != 0, "\(arguments[0]) --device nope: \(run.stdout)")
            Self.check(run, arguments.joined(separator: " "))
        }
        // Tables of reports and queries (printed for reading) are escaped; CSV keeps the data as it is.
        let table = runCLI(["query", sql, "--db", db, "--format", "table"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("\\x9B2J") && table.stdout.contains("\\x1B[31m") && table.stdout.contains("\\u{202E}"), "\(table.stdout)")
        Self.check(table, "query --format table")
        Self.check(runCLI(["report", "top-places", "--db", db, "--format", "table"]), "report top-places --format table")
        let csv = runCLI(["query", sql, "--db", db, "--format", "csv"])
        #expect(csv.stdout.contains("\u{9B}2J") && csv.stdout.contains("\u{202E}"), "CSV is data: unaltered")

        // places rename / merge / forget name the place (a wifi network's name) and the new name.
        let store = try Store(path: db, create: false)
        let ids = try store.db.prepare("SELECT p.id FROM places p JOIN devices d ON d.id = p.device_id WHERE d.name = 'other' ORDER BY p.id")
        var places: [Int64] = []
        while try ids.step() { places.append(ids.int64(0)) }
        #expect(places.count >= 2)
        // A control character in a name the user gives is refused (its message names it, not echoes it); a
        // right-to-left override is no control character: it is kept, and escaped on the terminal.
        let refused = runCLI(["places", "--db", db, "rename", String(places[0]), "home\u{1B}[8m", "\u{202E}x"])
        #expect(refused.status == 64 && refused.stderr.contains("U+001B (ESC)"), "\(refused.stderr)")
        Self.check(refused, "places rename (refused)")
        let renamed = runCLI(["places", "--db", db, "rename", String(places[0]), "home[8m", "\u{202E}x"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        Self.check(renamed, "places rename")
        let merged = runCLI(["places", "--db", db, "merge", String(places[1]), String(places[0])])
        Self.check(merged, "places merge")
        let forgot = runCLI(["places", "--db", db, "forget", String(places[0])])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        Self.check(forgot, "places forget")
        Self.check(runCLI(["places", "--db", db, "forget", "999999"]), "places forget (unknown)")
        Self.check(runCLI(["places", "--db", db]), "places after the edits")
        Self.check(runCLI(["rebuild", "--db", db, "--full"]), "rebuild --full")
    }

    /// A command's `--json` output may reach a terminal too: what would act there is written as JSON's own `\u`
    /// escapes, so a JSON reader still gets the name as it is.
    /// Output file names reached the terminal raw in the lines that report them ("Exported 3 trips as csv to …",
    /// "… as a GeoPackage to …", "Wrote … (map)"), while `plan` and every error escaped them: a name made from an
    /// archive's entry (`-o "out/$name.csv"` in a script) carried its controls to the terminal.
    @Test func outputNamesAreEscapedInTheLinesThatReportThem() throws {
        let db = try Self.database()
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "UTC", "-q"]).status == 0)
        let dir = try temporaryDirectory()
        let name = "out\u{1B}]0;pwned\u{07}\u{9B}2J\u{202E}"
        for arguments in [
            ["export", "--db", db, "--format", "csv", "--what", "trips", "-o", dir + "/" + name + ".csv"],
            ["export", "--db", db, "--format", "gpkg", "-o", dir + "/" + name + ".gpkg"],
            ["map", "--db", db, "-o", dir + "/" + name + ".html"],
        ] {
            let r = runCLI(arguments)
            #expect(r.status == 0, "\(arguments[0]): \(r.stderr)")
            #expect((r.stdout + r.stderr).contains("out\\x1B]0;pwned"), "\(arguments): \(r.stdout) \(r.stderr)")
            Self.check(r, arguments[0] + " " + arguments[2])
        }
    }

    @Test func jsonOutputsEscapeWhatWouldAct() throws {
        let db = try Self.database()
        for arguments in [["rebuild", "--json"], ["info", "--json"], ["places", "--json"]] {
            let run = runCLI(arguments + ["--db", db, "--timezone", "UTC"].dropLast(arguments[0] == "rebuild" ? 0 : 2))
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            Self.check(run, arguments.joined(separator: " "))
            #expect(run.stdout.contains("\\u009b2J\\u202egnp.exe\\u2066\\u200f\\u061c\\u007f\\r\\u0085"), "\(arguments): \(run.stdout)")
        }
        #expect(JSONText.quotedForTerminal("a\u{9B}\u{202E}ü\u{1B}") == "\"a\\u009b\\u202eü\\u001b\"")
        #expect(JSONText.quotedForTerminal("Zürich ✓ עברית") == JSONText.quoted("Zürich ✓ עברית"))
    }

    @Test func escapingCoversC1AndBidiControls() {
        #expect(Terminal.escaped("a\u{9B}b") == "a\\x9Bb")
        #expect(Terminal.escaped("\u{202E}\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}\u{202A}") == "\\u{202E}\\u{2066}\\u{2069}\\u{200E}\\u{200F}\\u{61C}\\u{202A}")
        #expect(Terminal.escaped("tab\there") == "tab\there")
        #expect(Terminal.cell("tab\there") == "tab\\x09here")
        #expect(Terminal.message("one\ntwo\u{1B}") == "one\ntwo\\x1B")
        #expect(Terminal.escaped("עברית العربية Zürich ✓") == "עברית العربية Zürich ✓", "right-to-left letters are text, not controls")
        for text in [Self.hostile, "x\u{1B}\u{9B}\u{202E}\n\t"] {
            #expect(Terminal.escaped(Terminal.escaped(text)) == Terminal.escaped(text))
            #expect(HostileTerminalTests.acting(Terminal.message(text)).isEmpty)
        }
    }
}
