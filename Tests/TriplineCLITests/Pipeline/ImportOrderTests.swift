import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineSimulator
import TriplineTestSupport

/// The order the inputs were imported in does not show (docs/EXPORTS.md "Row order", docs/PASSES.md "Stable ids"):
/// three devices of three apps (Overland, an OwnTracks Recorder, Google's Semantic Location History) imported in one
/// command, in one command in the reverse order, and in separate commands in the reverse order, get other device ids
/// but the same stay, visit, trip and place ids, and every export (each kind as CSV, GeoJSON and GPX, and the
/// GeoPackage) is byte-identical.
@Suite struct ImportOrderTests {
    /// Two people (Overland and OwnTracks), two days, a fix every 5 s while moving (small). Seed 2611 is used nowhere
    /// else.
    static let simulation = Simulator(config: SimulatorConfig(seed: 2611, days: 2, people: 2, movingIntervalS: 5)).run()

    func run(_ arguments: [String]) throws {
        let r = runCLI(arguments)
        try #require(r.status == 0, "tripline \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
    }

    /// The simulation's archives, and the Overland person's history as Google's Semantic Location History under a
    /// third device (`google/pixel`: its visits, places and trips are Google's, the timeline pass's ids); the three
    /// paths, in an order that is not that of their devices' names (`overland-1`, `pixel`, `person2/iphone`).
    func writeStudy(_ dir: String) throws -> [String] {
        try FileSystem.createDirectory(dir + "/study")
        try SimulationWriter.write(Self.simulation, to: dir + "/study")
        let overland = try #require(Self.simulation.devices.first { $0.app == .overland })
        try TakeoutWriter.write(Self.simulation, device: overland, layout: .semantic, to: dir + "/study/google/pixel", inside: dir)
        return ["overland", "google", "rec"].map { dir + "/study/" + $0 }
    }

    /// Imports `groups` (one `import` command each) into `db`, then rebuilds it.
    func build(_ db: String, _ groups: [[String]]) throws {
        for paths in groups { try run(["import", "--quiet", "--db", db] + paths) }
        try run(["rebuild", "--quiet", "--db", db, "--timezone", Self.simulation.truth.timeZoneName])
    }

    /// Every export of `db`, by file name: each kind as CSV, GeoJSON and GPX (days have no GPX), and the GeoPackage.
    func exports(_ db: String, _ dir: String) throws -> [String: [UInt8]] {
        try FileSystem.createDirectory(dir)
        var files: [String: [UInt8]] = [:]
        for what in ["trips", "legs", "visits", "places", "points", "days"] {
            for format in ["csv", "geojson", "gpx"] where !(what == "days" && format == "gpx") {
                let out = "\(dir)/\(what).\(format)"
                try run(["export", "--quiet", "--db", db, "--what", what, "--format", format, "-o", out])
                files["\(what).\(format)"] = try FileSystem.read(out)
            }
        }
        try run(["export", "--quiet", "--db", db, "--format", "gpkg", "-o", dir + "/all.gpkg"])
        files["all.gpkg"] = try FileSystem.read(dir + "/all.gpkg")
        return files
    }

    /// The stable ids, by device name and start (device ids left out: they follow the import order).
    static let ids = [
        "SELECT d.name, s.start_ms, s.id FROM stays s JOIN devices d ON d.id = s.device_id ORDER BY 1, 2, 3",
        "SELECT d.name, v.start_ms, v.id, v.source, v.place_id FROM visits v JOIN devices d ON d.id = v.device_id ORDER BY 1, 2, 3",
        "SELECT d.name, p.first_visit_ms, p.id, p.source FROM places p JOIN devices d ON d.id = p.device_id ORDER BY 1, 2, 3",
        "SELECT d.name, t.start_ms, t.id, t.source, t.from_visit_id, t.to_visit_id FROM trips t JOIN devices d ON d.id = t.device_id ORDER BY 1, 2, 3",
    ]

    @Test func exportsAndIDsDoNotDependOnTheImportOrder() throws {
        let dir = try temporaryDirectory()
        let paths = try writeStudy(dir)
        let (inOrder, reversed, separately) = (dir + "/in-order.sqlite", dir + "/reversed.sqlite", dir + "/separately.sqlite")
        try build(inOrder, [paths])
        try build(reversed, [paths.reversed()])
        try build(separately, paths.reversed().map { [$0] })
        // The device ids do follow the order: the comparison below is not of identical databases.
        let devices = "SELECT name FROM devices ORDER BY id"
        let order = try ShardMergeTests.rows(inOrder, devices)
        #expect(order == ["overland-1", "pixel", "person2/iphone"].map { "text(\"\($0)\")" }, "\(order)")
        #expect(try ShardMergeTests.rows(reversed, devices) == order.reversed())
        #expect(try ShardMergeTests.rows(separately, devices) == order.reversed())
        // `rebuild` reports its devices in name order too, whatever their ids.
        for db in [inOrder, reversed] {
            let r = runCLI(["rebuild", "--full", "--db", db, "--timezone", Self.simulation.truth.timeZoneName])
            let named = r.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.hasSuffix("(all points)") }
            #expect(named == ["overland-1 (all points)", "person2/iphone (all points)", "pixel (all points)"], "\(r.stdout)")
        }
        // Every kind of id is there, Google's too (the timeline pass's visits, places and trips).
        let sources = "SELECT source, count(*) FROM visits GROUP BY 1 UNION ALL SELECT 'trips ' || source, count(*) FROM trips GROUP BY 1 ORDER BY 1"
        let kinds = try ShardMergeTests.rows(inOrder, sources)
        #expect(kinds.count == 4, "visits and trips of points and of the app: \(kinds)")
        for sql in Self.ids {
            let a = try ShardMergeTests.rows(inOrder, sql)
            #expect(a.count > 5, "\(sql)")
            for other in [reversed, separately] {
                let b = try ShardMergeTests.rows(other, sql), same = a == b
                #expect(same, "\(sql): first difference \(zip(a, b).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "in length \(a.count) vs \(b.count)")")
            }
        }
        let expected = try exports(inOrder, dir + "/in-order")
        #expect(expected.count == 18)
        for (name, db) in [("reversed", reversed), ("separately", separately)] {
            let files = try exports(db, dir + "/" + name)
            for (file, bytes) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(bytes.count > 200, "\(file) holds rows")
                let same = files[file] == bytes
                #expect(same, "\(file) imported \(name): byte-identical")
            }
        }
    }
}
