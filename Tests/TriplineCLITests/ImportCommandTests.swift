import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplineCLI
import TriplineTestSupport

/// `tripline import` and `info` in-process: exit status, the summary and what reaches the terminal.
@Suite struct ImportCommandTests {
    func write(_ text: String, _ path: String) throws {
        try FileSystem.createDirectory(FileSystem.directoryName(path))
        try FileSystem.write(text, to: path)
    }

    @Test func cliExitStatusSummaryAndInfo() throws {
        let dir = try temporaryDirectory()
        try write(overlandBody([overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8)]), dir + "/ok.json")
        try FileSystem.write([0x00, 0x01, 0x02, 0xFF, 0xFE], to: dir + "/junk.bin")
        let db = dir + "/t.sqlite"
        let good = runCLI(["import", "--db", db, dir + "/ok.json"])
        #expect(good.status == 0)
        #expect(good.stdout.contains("1 new, 0 duplicate, 0 rejected"))
        #expect(good.stdout.contains("device 'phone' (from device_id)"))
        #expect(good.stderr.isEmpty)  // not a terminal: no progress line
        let bad = runCLI(["import", "--db", db, "--json", dir + "/junk.bin", dir + "/missing.json"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("junk.bin: binary data"))
        #expect(bad.stderr.contains("missing.json: no such file"))
        let json = try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any]
        #expect(json?["failed"] as? Int == 2)
        let info = runCLI(["info", "--db", db])
        #expect(info.status == 0)
        #expect(info.stdout.contains("phone") && info.stdout.contains("2024-01-01T00:00:00Z"))
        let infoJSON = runCLI(["info", "--db", db, "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(infoJSON.stdout.utf8)) as? [String: Any]
        #expect((parsed?["devices"] as? [[String: Any]])?.first?["points"] as? Int == 1)
        #expect(runCLI(["import", "--db", db]).status == 64)
    }

    @Test func controlCharactersNeverReachTheTerminal() {
        #expect(Terminal.escaped("phone\u{1B}[31m\u{07}\r") == "phone\\x1B[31m\\x07\\x0D")
        #expect(Terminal.escaped("Zürich ✓") == "Zürich ✓")
        #expect(Terminal.escapedPathBytes([0x61, 0xFF, 0x1B, 0xC3, 0xBC]) == "a\\xFF\\x1Bü")
        var file = FileSummary(path: "evil\u{1B}]0;owned\u{07}.json", status: .imported)
        file.devices = [ParsedDevice(name: "dev\u{1B}[2J", source: "overland", origin: .deviceID)]
        let line = ImportCommand.describe(file)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
        #expect(line.contains("evil\\x1B]0;owned\\x07.json") && line.contains("dev\\x1B[2J"))
    }

    /// A file naming thousands of devices gets one line naming the first ten and counting the rest, not a line
    /// naming them all (a 20,000-device file printed a 700-KB line).
    @Test func aFileOfManyDevicesIsOneShortLine() {
        var file = FileSummary(path: "many.json", status: .imported)
        file.devices = (0..<12).map { ParsedDevice(name: "d\($0)", source: "overland", origin: .deviceID) }
        let line = ImportCommand.describe(file)
        #expect(line.contains("device 'd9'") && !line.contains("device 'd10'") && line.hasSuffix(" and 2 more devices (`tripline info`)"), "\(line)")
        file.devices.removeLast(2)
        #expect(!ImportCommand.describe(file).contains("more devices"))
    }

    /// A folder of GeoLife users (the data set's `Data/<user>/Trajectory/*.plt`) gives one device a user: two users
    /// recording at the same second at other places are not one device's clashing duplicates.
    @Test func userFoldersAreDevices() throws {
        let root = try temporaryDirectory() + "/Data"
        for (user, lat) in [("010", "39.984702"), ("011", "40.001000")] {
            try FileSystem.createDirectory(root + "/\(user)/Trajectory")
            try FileSystem.write(geoLifeHeader + "\(lat),116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n",
                                 to: root + "/\(user)/Trajectory/20081023025304.plt")
        }
        let db = try temporaryDirectory() + "/g.sqlite"
        let run = runCLI(["import", "--db", db, root])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("device '010' (from the GeoLife user folder"))
        let store = try Store(path: db, create: false)
        #expect(try store.db.scalarInt("SELECT count(*) FROM devices") == 2)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 2)
        #expect(try store.db.scalarInt("SELECT count(*) FROM rejects") == 0)
        #expect(PLTReader.userFolder("Data/010/Trajectory/x.plt") == "010")
        #expect(PLTReader.userFolder("./Trajectory/x.plt") == nil)
        #expect(PLTReader.userFolder("walks/x.plt") == nil)
        // --device still names the device.
        let db2 = try temporaryDirectory() + "/d.sqlite"
        #expect(runCLI(["import", "--db", db2, "--device", "me", root + "/010"]).status == 0)
        #expect(try Store(path: db2, create: false).db.scalarInt("SELECT count(*) FROM devices WHERE name = 'me'") == 1)
    }
}
