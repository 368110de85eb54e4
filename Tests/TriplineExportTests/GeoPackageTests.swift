import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// The GeoPackage export: its structure read back with SQLite, then the real tools (GDAL's ogrinfo, ogr2ogr and
/// validate_gpkg.py).
@Suite struct GeoPackageTests {
    /// The fixture's counts (ExportClientTests.countsMatchTheFixture).
    static let expected: [String: Int] = ["trips": 3, "legs": 4, "visits": 4, "places": 2, "points": 47, "days": 3]

    /// Exports every kind of a fresh fixture as one GeoPackage; returns the file, the fixture's folder and the result.
    static func writeFixture(
        kinds: [ExportKind] = ExportKind.allCases, filter: RecordFilter = RecordFilter(), name: String = "all.gpkg"
    ) throws -> (path: String, directory: String, result: GeoPackageResult, exporter: Exporter) {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let exporter = try Exporter(store: store)
        let path = "\(fixture.directory)/\(name)"
        let result = try exporter.exportGeoPackage(kinds, filter: filter, toFile: path)
        return (path, fixture.directory, result, exporter)
    }

    @Test func headerSaysGeoPackageThirteen() throws {
        let file = try GeoPackageTests.writeFixture()
        let bytes = try FileSystem.read(file.path)
        #expect(Array(bytes[0..<16]) == Array("SQLite format 3\0".utf8))
        #expect(Array(bytes[68..<72]) == Array("GPKG".utf8), "application_id")
        #expect(Array(bytes[60..<64]) == [0, 0, 0x28, 0x3C], "user_version 10300, big-endian")
        #expect(file.result.bytes == bytes.count)
    }

    @Test func everyLayerHasItsRowsColumnsAndContents() throws {
        let file = try GeoPackageTests.writeFixture()
        #expect(file.result.layers.map(\.kind) == ExportKind.allCases)
        for layer in file.result.layers { #expect(layer.records == GeoPackageTests.expected[layer.kind.rawValue]) }
        let db = try Database(path: file.path, readOnly: true)
        for (table, count) in GeoPackageTests.expected {
            #expect(try db.scalarInt("SELECT count(*) FROM \"\(table)\"") == Int64(count), "\(table)")
            let dataType = try db.scalarText("SELECT data_type FROM gpkg_contents WHERE table_name = ?", [.text(table)])
            #expect(dataType == (table == "days" ? "attributes" : "features"))
            // The CSV contract's columns, in its order, after fid (and geom).
            let columns = try db.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid")
            try columns.bind([.text(table)])
            var names: [String] = []
            while try columns.step() { names.append(columns.text(0) ?? "") }
            let header = "\(CSVExport.headers[ExportKind(rawValue: table)!]!)".split(separator: ",").map(String.init)
            #expect(names == ["fid"] + (table == "days" ? [] : ["geom"]) + header, "\(table)")
        }
        #expect(try db.scalarInt("SELECT count(*) FROM gpkg_spatial_ref_sys WHERE srs_id IN (-1, 0, 4326)") == 3)
        #expect(try db.scalarText("SELECT organization || ':' || organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = 4326") == "EPSG:4326")
        #expect(try db.scalarText("SELECT group_concat(table_name || '=' || geometry_type_name, ' ') FROM (SELECT * FROM gpkg_geometry_columns ORDER BY table_name)")
            == "legs=MULTILINESTRING places=POINT points=POINT trips=MULTILINESTRING visits=POINT")
        // last_change comes from the data: trip 3 ends at 2024-03-31T22:20Z.
        #expect(try db.scalarText("SELECT last_change FROM gpkg_contents WHERE table_name = 'trips'") == "2024-03-31T22:20:00.000Z")
        // Ids: trips, visits and places keep theirs as fid; the first trip's row is the CSV's.
        #expect(try db.scalarText("SELECT fid || ' ' || trip_id || ' ' || device || ' ' || start_time || ' ' || mode FROM trips ORDER BY fid LIMIT 1")
            == "1 1 phone 2024-03-01T09:00:00+01:00 walk")
        #expect(try db.scalarInt("SELECT count(*) FROM visits WHERE fid = visit_id") == 4)
        #expect(try db.scalarInt("SELECT count(*) FROM places WHERE fid = place_id") == 2)
    }

    @Test func geometriesAreGeoPackageBinaryWithEnvelope() throws {
        let file = try GeoPackageTests.writeFixture()
        let db = try Database(path: file.path, readOnly: true)
        let visit = try db.prepare("SELECT geom, lat, lon FROM visits ORDER BY fid LIMIT 1")
        #expect(try visit.step())
        guard case .blob(let blob) = visit.value(0) else { Issue.record("visit geometry is not a blob"); return }
        #expect(Array(blob[0..<4]) == [0x47, 0x50, 0, 0x03], "GP, version 0, envelope [minx maxx miny maxy], little-endian")
        #expect(blob.count == 8 + 32 + 21)
        func u32(_ at: Int) -> UInt32 { blob[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func f64(_ at: Int) -> Double { Double(bitPattern: blob[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }) }
        #expect(u32(4) == 4326)
        let lat = visit.double(1), lon = visit.double(2)
        #expect([f64(8), f64(16), f64(24), f64(32)] == [lon, lon, lat, lat])
        #expect(blob[40] == 1 && u32(41) == 1, "little-endian WKB Point")
        #expect(f64(45) == lon && f64(53) == lat)
        // Trip 2's 10-min recording gap is bridged (its distance measured the way across, `metrics.bridge_max_s`): a
        // MultiLineString of one LineString of its 22 points (the GeoJSON's LineString).
        let trip = try db.prepare("SELECT geom FROM trips WHERE fid = 2")
        #expect(try trip.step())
        guard case .blob(let line) = trip.value(0) else { Issue.record("trip geometry is not a blob"); return }
        func lu32(_ at: Int) -> UInt32 { line[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(line[40] == 1 && lu32(41) == 5 && lu32(45) == 1)
        #expect(lu32(50) == 2 && lu32(54) == 22)
    }

    @Test func rtreeIndexesEveryGeometryWithTheSpecTriggers() throws {
        let file = try GeoPackageTests.writeFixture()
        let db = try Database(path: file.path, readOnly: true)
        for table in ["trips", "legs", "visits", "places", "points"] {
            let rtree = "rtree_\(table)_geom"
            #expect(try db.scalarInt("SELECT count(*) FROM \"\(rtree)\"") == db.scalarInt("SELECT count(*) FROM \"\(table)\" WHERE geom IS NOT NULL"), "\(rtree)")
            // Every row's box holds its feature (the R-tree rounds outward to 32-bit floats).
            let outside = try db.scalarInt(
                """
                SELECT count(*) FROM "\(table)" t JOIN "\(rtree)" r ON r.id = t.fid
                WHERE \(table == "trips" || table == "legs" ? "0" : "t.lon < r.minx OR t.lon > r.maxx OR t.lat < r.miny OR t.lat > r.maxy")
                """)
            #expect(outside == 0)
            #expect(try db.scalarInt("SELECT count(*) FROM gpkg_extensions WHERE table_name = ? AND column_name = 'geom' AND extension_name = 'gpkg_rtree_index' AND scope = 'write-only'", [.text(table)]) == 1)
            let triggers = try db.scalarText(
                "SELECT group_concat(substr(name, length(?) + 2), ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name)",
                [.text(rtree), .text(table)])
            #expect(triggers == "delete insert update1 update2 update3 update4", "\(table)")
        }
        // The trips' box in gpkg_contents is the union of their lines.
        let box = try db.prepare("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = 'trips'")
        #expect(try box.step())
        #expect(box.double(0) == 11.575 && box.double(3) == 52.531)
        #expect(try db.scalarInt("SELECT count(*) FROM rtree_trips_geom WHERE minx <= 13.41 AND maxx >= 13.40 AND miny <= 52.53 AND maxy >= 52.52") == 2)
    }

    @Test func sameDatabaseGivesTheSameBytes() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        var files: [[UInt8]] = []
        for name in ["a.gpkg", "b.gpkg"] {
            _ = try Exporter(store: store).exportGeoPackage(toFile: "\(fixture.directory)/\(name)")
            files.append(try FileSystem.read("\(fixture.directory)/\(name)"))
        }
        #expect(files[0] == files[1])
        // Replacing a file gives the same bytes too, and leaves no temporary file behind.
        _ = try Exporter(store: store).exportGeoPackage(toFile: "\(fixture.directory)/a.gpkg")
        #expect(try FileSystem.read("\(fixture.directory)/a.gpkg") == files[0])
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).filter { $0.contains("tripline-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aFailedExportLeavesTheOldFile() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let path = "\(fixture.directory)/keep.gpkg"
        try FileSystem.write(Array("old".utf8), to: path)
        #expect(throws: StoreError.self) {
            _ = try Exporter(store: store).exportGeoPackage(filter: RecordFilter(device: "nobody"), toFile: path)
        }
        #expect(try FileSystem.read(path) == Array("old".utf8))
        // A database that fails mid-way (no days table) leaves it too, and no temporary file.
        try store.db.execute("DROP TABLE days")
        #expect(throws: DatabaseError.self) { _ = try Exporter(store: store).exportGeoPackage(toFile: path) }
        #expect(try FileSystem.read(path) == Array("old".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).filter { $0.contains("tripline-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func selectionsPickTheRowsTheOtherFormatsPick() throws {
        let tablet = try GeoPackageTests.writeFixture(filter: RecordFilter(device: "tablet"))
        #expect(tablet.result.layers.map(\.records) == [1, 1, 1, 0, 13, 2])
        let march = try GeoPackageTests.writeFixture(kinds: [.visits, .trips], filter: RecordFilter(fromDay: CivilTime.parseDate("2024-03-01"), toDay: CivilTime.parseDate("2024-03-01")))
        #expect(march.result.layers.map(\.kind) == [.trips, .visits])
        #expect(march.result.layers.map(\.records) == [2, 3])
        let db = try Database(path: march.path, readOnly: true)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('legs', 'points', 'days', 'places')") == 0)
        // An empty layer is still a valid one, with no extent.
        let none = try GeoPackageTests.writeFixture(kinds: [.trips], filter: RecordFilter(fromDay: CivilTime.parseDate("2030-01-01")))
        #expect(none.result.records == 0)
        let empty = try Database(path: none.path, readOnly: true)
        #expect(try empty.scalarText("SELECT coalesce(min_x, 'null') || ' ' || last_change FROM gpkg_contents") == "null 1970-01-01T00:00:00.000Z")
    }

    // MARK: With GDAL

    @Test(ClientTools.installed("ogrinfo")) func ogrinfoListsEveryLayerWithItsCountAndSRS() throws {
        let file = try GeoPackageTests.writeFixture()
        let counts = try #require(try ClientTools.ogrFeatureCounts(file.path))
        #expect(counts == GeoPackageTests.expected)
        let info = try #require(try ClientTools.run("ogrinfo", ["-ro", "-so", file.path, "trips"]))
        #expect(info.stdout.contains("Geometry: Multi Line String"), "\(info.stdout)")
        #expect(info.stdout.contains("ID[\"EPSG\",4326]") || info.stdout.contains("AUTHORITY[\"EPSG\",\"4326\"]"), "\(info.stdout)")
        #expect(info.stdout.contains("FID Column = fid"))
        let days = try #require(try ClientTools.run("ogrinfo", ["-ro", "-so", file.path, "days"]))
        #expect(days.stdout.contains("Geometry: None"), "\(days.stdout)")
    }

    @Test(ClientTools.gdalPythonInstalled) func gdalValidatorPasses() throws {
        let python = try #require(ClientTools.gdalPython, "python3 -c 'import osgeo_utils' failed: apt-get install -y python3-gdal")
        let validator = python.utilities + "/samples/validate_gpkg.py"
        #expect(FileSystem.exists(validator), "no \(validator)")
        for kinds in [ExportKind.allCases, [.trips], [.days]] {
            let file = try GeoPackageTests.writeFixture(kinds: kinds)
            let result = try #require(try ClientTools.run(python.interpreter, [validator, "-k", "--extra", "--warning-as-error", file.path]))
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "validate_gpkg.py on \(kinds): \(result.stdout) \(result.stderr)")
        }
        // The validator does find what is wrong: a geometry with the wrong srs_id.
        let file = try GeoPackageTests.writeFixture(kinds: [.visits])
        let db = try Database(path: file.path)
        try db.execute("UPDATE gpkg_geometry_columns SET srs_id = 0")
        let broken = try #require(try ClientTools.run(python.interpreter, [validator, "-k", file.path]))
        #expect(broken.status != 0)
    }

    /// ogr2ogr turns each layer back into GeoJSON: the same features, positions and values as Tripline's own
    /// GeoJSON export of that kind (a LineString being a MultiLineString of one part).
    @Test(ClientTools.installed("ogr2ogr")) func ogr2ogrGivesBackTheGeoJSONExport() throws {
        let file = try GeoPackageTests.writeFixture()
        // GeoJSON property names where the CSV contract names the column differently.
        let ids: [ExportKind: String] = [.trips: "trip_id", .visits: "visit_id", .places: "place_id"]
        for kind in ExportKind.allCases {
            var renamed = ["start_time": "start", "end_time": "end"]
            if let id = ids[kind] { renamed[id] = "id" }
            let converted = "\(file.directory)/\(kind.rawValue).ogr.geojson"
            let run = try #require(try ClientTools.run("ogr2ogr", ["-f", "GeoJSON", converted, file.path, kind.rawValue]))
            #expect(run.status == 0, "ogr2ogr \(kind): \(run.stderr)")
            let ours = ByteWriter.memory()
            _ = try file.exporter.export(kind, as: .geojson, to: ours)
            let theirs = try features(Data(try FileSystem.read(converted)))
            let mine = try features(ours.withBytes { Data($0) })
            #expect(theirs.count == mine.count, "\(kind)")
            for (a, b) in zip(theirs, mine) {
                #expect(close(positions(a["geometry"]), positions(b["geometry"])), "\(kind) geometry: \(positions(a["geometry"])) vs \(positions(b["geometry"]))")
                let pa = a["properties"] as? [String: Any] ?? [:], pb = b["properties"] as? [String: Any] ?? [:]
                var compared = 0
                for (key, value) in pa {
                    guard let other = pb[renamed[key] ?? key] else { continue }
                    compared += 1
                    #expect(same(value, other), "\(kind) \(key): \(value) vs \(other)")
                }
                #expect(compared == pb.count, "\(kind): compared \(compared) of \(pb.keys.sorted())")
            }
        }
    }

    func features(_ data: Data) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return object["features"] as? [[String: Any]] ?? []
    }

    /// Every position of a geometry, as parts of [lon, lat] (a LineString or Point is one part).
    func positions(_ geometry: Any?) -> [[Double]] {
        guard let geometry = geometry as? [String: Any], let type = geometry["type"] as? String else { return [] }
        let coordinates = geometry["coordinates"]
        func pairs(_ line: Any?) -> [Double] { (line as? [[Double]] ?? []).flatMap { $0 } }
        switch type {
        case "Point": return [coordinates as? [Double] ?? []]
        case "LineString": return [pairs(coordinates)]
        case "MultiLineString": return (coordinates as? [Any] ?? []).map(pairs)
        default: return [[.nan]]
        }
    }

    func close(_ a: [[Double]], _ b: [[Double]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in x.count == y.count && zip(x, y).allSatisfy { abs($0 - $1) <= 5.1e-8 } }
    }

    func same(_ a: Any, _ b: Any) -> Bool {
        if a is NSNull || b is NSNull { return a is NSNull && b is NSNull }
        if let x = a as? String, let y = b as? String { return x == y }
        if let x = a as? NSNumber, let y = b as? NSNumber { return abs(x.doubleValue - y.doubleValue) <= 1e-9 * max(1, abs(y.doubleValue)) }
        return false
    }
}
