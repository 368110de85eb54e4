import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// OwnTracks' own names for places: a region entered (`transition` with `desc`) and a region the user defined
/// (`waypoint` with `desc` and `rad`) name the places where the fixes stayed (docs/PASSES.md, "Place names").
@Suite struct OwnTracksPlaceNameTests {
    /// An hour at the gym (a region entered), a walk, 80 minutes at the library (a region defined): the fixture of
    /// ``PlaceNameTextTests/ownTracks(gymName:libraryName:)`` with plain names.
    @Test func regionNamesNameThePlaces() throws {
        let fixture = PlaceNameTextTests()
        let names = try fixture.names(try fixture.ownTracks(gymName: "Gym", libraryName: "Library"))
        #expect(names == ["Gym", "Library"])
    }

    /// A region whose `rad` no place has (1e308, set in the app or a damaged record) held every place on Earth and
    /// named them all after itself; such a radius is now no radius (the default), and a region far away names nothing.
    @Test func aRegionOfAbsurdRadiusNamesNothingFarAway() throws {
        let fixture = PlaceNameTextTests()
        let db = try fixture.ownTracks(gymName: "Gym", libraryName: "Library")
        let dir = String(db.dropLast("/t.sqlite".count))
        try FileSystem.write("{\"_type\":\"waypoint\",\"tid\":\"ot\",\"tst\":1714400000,\"lat\":10.0,\"lon\":10.0,"
            + "\"rad\":1e308,\"desc\":\"Everywhere\"}\n", to: dir + "/far.json")
        #expect(runCLI(["import", "--db", db, dir + "/far.json"]).status == 0)
        #expect(runCLI(["rebuild", "--db", db, "--timezone", "UTC", "--full"]).status == 0)
        #expect(try fixture.names(db) == ["Gym", "Library"])
    }

    /// The same in a Recorder `.rec` file, where each message follows its time and topic on the line: the names were
    /// read from the whole line, which is not JSON, so a Recorder's regions never named a place.
    @Test func regionNamesFromARecorderFileNameThePlaces() throws {
        let fixture = PlaceNameTextTests()
        let names = try fixture.names(try fixture.ownTracks(gymName: "Gym", libraryName: "Library", recorder: true))
        #expect(names == ["Gym", "Library"])
    }
}
