import Testing
@testable import TriplineCore
@testable import TriplineImport
@testable import TriplineStore
@testable import TriplineCLI

/// GeoLife `.plt` through format detection and the importer's reader.
@Suite struct PLTReaderTests {
    static let header = "Geolife trajectory\r\nWGS 84\r\nAltitude is in Feet\r\nReserved 3\r\n0,2,255,My Track,0,0,2,8421376\r\n0\r\n"

    @Test func readsFixesBadLinesAndAltitude() {
        let text = Self.header
            + "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n"
            + "39.984683,116.31845,0,-777,39744.1202546296,2008-10-23,02:53:10\r\n"
            + "39.98,abc,0,492,39744.12,2008-10-23,02:53:16\r\n"
            + "39.98,116.31,0,492,39744.12,2008-13-23,02:53:22\r\n"
            + "39.98,116.31,0\r\n"
        let out = FormatDetector.parse(Array(text.utf8), context: .memory(device: "u"))
        #expect(out.format == "geolife-plt")
        #expect(out.points.count == 2)
        #expect(out.points[0].timeMs == 1_224_730_384_000)  // 2008-10-23T02:53:04Z
        #expect(out.points[0].lat == 39.984702 && out.points[0].lon == 116.318417)
        #expect(abs((out.points[0].altitudeM ?? 0) - 492 * 0.3048) < 1e-9)
        #expect(out.points[1].altitudeM == nil)  // -777 = unknown
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidTime, .invalidLine])
        #expect(out.rejects.map(\.line) == [9, 10, 11])
        #expect(out.devices[Int(out.points[0].deviceID)].source == "geolife")
    }

    /// A folder of GeoLife users (the data set's `Data/<user>/Trajectory/*.plt`) gives one device a user: two users
    /// recording at the same second at other places are not one device's clashing duplicates.
    @Test func userFoldersAreDevices() throws {
        let root = try temporaryDirectory() + "/Data"
        for (user, lat) in [("010", "39.984702"), ("011", "40.001000")] {
            try FileSystem.createDirectory(root + "/\(user)/Trajectory")
            try FileSystem.write(Self.header + "\(lat),116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\r\n",
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

    @Test func headerOnlyIsEmpty() {
        let out = FormatDetector.parse(Array(Self.header.utf8), context: .memory())
        #expect(out.format == "geolife-plt")
        #expect(out.points.isEmpty)
        #expect(out.rejects.map(\.reason) == [.emptyFile])
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func corpusFileMatchesItsPointCount() throws {
        let corpus = try #require(corpusDirectory(), "../shared/corpus not found")
        let out = FormatDetector.parse(try FileSystem.read(corpus + "/geolife/010/Trajectory/20081006110114.plt"), context: .memory())
        #expect(out.points.count == 2485)  // PROVENANCE.md
        #expect(out.rejects.isEmpty)
    }
}
