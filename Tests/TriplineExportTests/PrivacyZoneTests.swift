import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// Privacy zones, checked as an adversary would: every coordinate is parsed out of every exported byte of every
/// kind and format (GeoJSON, GPX, CSV, GeoPackage) and none may lie inside the zone; nor may the hidden place's
/// name, nor the times of the fixes inside it.
///
/// The fixture's Home (place 1) is at 52.52 N 13.405 E: trip 1 leaves it at 08:00Z with a fix each minute about
/// 150 m apart (the 08:00 and 08:01 fixes are within 200 m), trip 2 comes back to it (its last three fixes, from
/// 17:28Z, are within 200 m), visits 1 and 3 are there.
@Suite struct PrivacyZoneTests {
    static let home = (lat: 52.52, lon: 13.405)

    static func zones(_ store: Store, _ specification: String = "Home") throws -> PrivacyZones {
        try PrivacyZones.resolve([specification], in: store)
    }

    /// Every adjacent pair of numbers in a text, both ways round, as (lat, lon).
    static func numberPairs(_ text: String) -> [(Double, Double)] {
        var numbers: [Double] = []
        var current = ""
        for c in text + " " {
            if c.isNumber || c == "." || (c == "-" && current.isEmpty) {
                current.append(c)
            } else {
                if let value = Double(current) { numbers.append(value) }
                current = c == "-" ? "-" : ""
            }
        }
        var pairs: [(Double, Double)] = []
        for i in numbers.indices.dropLast() {
            pairs.append((numbers[i], numbers[i + 1]))
            pairs.append((numbers[i + 1], numbers[i]))
        }
        return pairs
    }

    /// Every position in a GeoPackage: its geometries' WKB coordinates and every lat/lon column pair.
    static func geoPackagePositions(_ path: String) throws -> [(Double, Double)] {
        let db = try Database(path: path, readOnly: true)
        var positions: [(Double, Double)] = []
        for table in ["trips", "legs", "visits", "places", "points"] {
            guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(table)]) == 1 else { continue }
            let rows = try db.prepare("SELECT geom FROM \"\(table)\"")
            while try rows.step() {
                guard case .blob(let blob) = rows.value(0) else { continue }
                func u32(_ at: Int) -> Int { Int(blob[at..<at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
                func f64(_ at: Int) -> Double { Double(bitPattern: blob[at..<at + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
                var at = 40
                if u32(at + 1) == 1 {
                    positions.append((f64(at + 13), f64(at + 5)))
                } else {
                    let parts = u32(at + 5)
                    at += 9
                    for _ in 0..<parts {
                        let count = u32(at + 5)
                        at += 9
                        for i in 0..<count { positions.append((f64(at + 16 * i + 8), f64(at + 16 * i))) }
                        at += 16 * count
                    }
                }
            }
            for (lat, lon) in [("lat", "lon"), ("start_lat", "start_lon"), ("end_lat", "end_lon")] {
                guard try db.scalarInt("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", [.text(table), .text(lat)]) == 1 else { continue }
                let rows = try db.prepare("SELECT \(lat), \(lon) FROM \"\(table)\" WHERE \(lat) IS NOT NULL")
                while try rows.step() { positions.append((rows.double(0), rows.double(1))) }
            }
        }
        return positions
    }

    static func inside(_ p: (Double, Double), radius: Double) -> Bool {
        Geo.distance(p.0, p.1, home.lat, home.lon) < radius
    }

    @Test(arguments: ["Home", "1", "Home:350"]) func nothingInAnyExportLiesInsideTheZone(specification: String) throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let zones = try PrivacyZoneTests.zones(store, specification)
        let radius = zones.zones[0].radiusM
        #expect(radius == (specification.hasSuffix(":350") ? 350 : PrivacyZones.defaultRadiusM))
        let exporter = try Exporter(store: store, privacyZones: zones)
        let plain = try Exporter(store: store)
        var checked = 0
        for kind in ExportKind.allCases {
            for format in ExportFormat.allCases where !(kind == .days && format == .gpx) {
                let memory = ByteWriter.memory()
                _ = try exporter.export(kind, as: format, to: memory)
                let text = memory.withBytes { String(decoding: $0, as: UTF8.self) }
                let pairs = PrivacyZoneTests.numberPairs(text)
                let leaks = pairs.filter { PrivacyZoneTests.inside($0, radius: radius) }
                #expect(leaks.isEmpty, "\(kind) \(format): \(leaks.prefix(3)) inside the zone")
                #expect(!text.contains("Home"), "\(kind) \(format) names the hidden place")
                // The same export without the zone does hold positions inside it (the check can fail).
                let unprotected = ByteWriter.memory()
                _ = try plain.export(kind, as: format, to: unprotected)
                let before = unprotected.withBytes { String(decoding: $0, as: UTF8.self) }
                if kind != .days && !(kind == .legs && format == .csv) {  // legs' CSV has no positions
                    #expect(PrivacyZoneTests.numberPairs(before).contains { PrivacyZoneTests.inside($0, radius: radius) }, "\(kind) \(format)")
                }
                checked += 1
            }
        }
        #expect(checked == 17)
        let path = fixture.directory + "/private.gpkg"
        _ = try exporter.exportGeoPackage(toFile: path)
        let positions = try PrivacyZoneTests.geoPackagePositions(path)
        #expect(positions.count > 40)
        #expect(positions.filter { PrivacyZoneTests.inside($0, radius: radius) }.isEmpty)
        #expect(!String(decoding: try FileSystem.read(path), as: UTF8.self).contains("Home"))
        _ = try plain.exportGeoPackage(toFile: path)
        #expect(!(try PrivacyZoneTests.geoPackagePositions(path)).filter { PrivacyZoneTests.inside($0, radius: radius) }.isEmpty)
    }

    /// A trip that starts inside the zone starts at its first fix outside: time, position, duration and distance
    /// are those of the part shown; its place is gone. The visits and the place inside are gone too.
    @Test func aTripLeavingTheZoneStartsAtItsEdge() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let exporter = try Exporter(store: store, privacyZones: try PrivacyZoneTests.zones(store))
        func csv(_ kind: ExportKind) throws -> [[String]] {
            let memory = ByteWriter.memory()
            _ = try exporter.export(kind, as: .csv, to: memory)
            return memory.withBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\r\n").dropFirst().map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
        }
        let trips = try csv(.trips)
        #expect(trips.count == 3)
        // trip_id, device, start_time, end_time, duration_s, moving_s, distance_m, avg, max, mode, legs, from, to, start_lat, start_lon
        let first = trips[0]
        #expect(first[2] == "2024-03-01T09:02:00+01:00", "\(first)")
        #expect(first[3] == "2024-03-01T09:10:00+01:00")
        #expect(first[4] == "480")
        #expect(first[11] == "" && first[12] == "2", "from Home is gone, to Work stays: \(first)")
        #expect(first[13] == "52.522" && first[14] == "13.408")
        #expect(first[17] == "8", "8 fixes shown (08:02–08:10, the flagged 08:05 left out)")
        let second = trips[1]
        #expect(second[3] == "2024-03-01T18:27:00+01:00", "\(second)")
        #expect(second[12] == "" && second[20] == "", "to Home is gone")
        #expect(trips[2] == (try csvWithout(fixture.path, .trips))[2], "the tablet's trip is untouched")
        #expect(try csv(.visits).map { $0[0] } == ["2", "4"])
        #expect(try csv(.places).map { $0[0] } == ["2"])
        let points = try csv(.points).filter { $0[0] == "phone" }.map { $0[1] }
        #expect(!points.contains("2024-03-01T09:00:00+01:00") && !points.contains("2024-03-01T09:01:00+01:00"))
        #expect(points.contains("2024-03-01T09:02:00+01:00"))
        let legs = try csv(.legs)
        #expect(legs.count == 4 && legs[0][3] == "2024-03-01T09:02:00+01:00")
        // Days carry no position: unchanged.
        #expect(try csv(.days) == (try csvWithout(fixture.path, .days)))
    }

    func csvWithout(_ path: String, _ kind: ExportKind) throws -> [[String]] {
        let memory = ByteWriter.memory()
        _ = try Exporter(store: try Store(path: path, create: false)).export(kind, as: .csv, to: memory)
        return memory.withBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\r\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// A line that passes through a zone breaks there, as at a gap, instead of drawing a straight line across it.
    @Test func aLineThroughAZoneBreaksThere() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        // A zone around trip 1's 08:06 fix (52.526, 13.414): 100 m holds that fix alone.
        try store.db.run("INSERT INTO places(id, device_id, name, lat, lon, radius_m, visits, total_dwell_s) VALUES (9, 1, 'Bakery', 52.526, 13.414, 10, 0, 0)")
        let exporter = try Exporter(store: store, privacyZones: try PrivacyZones.resolve(["Bakery:100"], in: store))
        let memory = ByteWriter.memory()
        _ = try exporter.export(.trips, as: .geojson, to: memory)
        let text = memory.withBytes { String(decoding: $0, as: UTF8.self) }
        let first = try #require(text.split(separator: "\n").first { $0.contains("\"id\":1,") })
        #expect(first.contains("\"type\":\"MultiLineString\""), "\(first)")
        #expect(!first.contains("[13.414,52.526]"))
        let gpx = ByteWriter.memory()
        _ = try exporter.export(.trips, as: .gpx, to: gpx)
        let firstTrack = gpx.withBytes { String(decoding: $0, as: UTF8.self) }.components(separatedBy: "</trk>")[0]
        #expect(firstTrack.components(separatedBy: "<trkseg>").count == 3, "two segments")
    }

    @Test func badSpecificationsSaySo() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        #expect(throws: PrivacyZoneError.self) { try PrivacyZones.resolve(["Nowhere"], in: store) }
        #expect(throws: PrivacyZoneError.self) { try PrivacyZones.resolve(["Home:-5"], in: store) }
        #expect(throws: PrivacyZoneError.self) { try PrivacyZones.resolve([":100"], in: store) }
        #expect(try PrivacyZones.resolve(["Work:1e3"], in: store).zones == [PrivacyZone(label: "Work", lat: 52.531, lon: 13.416, radiusM: 1000)])
    }
}
