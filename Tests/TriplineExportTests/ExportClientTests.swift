import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// Every export of the fixture, opened by the programs people use: GDAL (QGIS's engine), gpsbabel, xmllint with the
/// official GPX 1.1 schema, and jq.
@Suite struct ExportClientTests {
    /// Writes every (kind, format) export of a fresh fixture to files; returns them with what the exporter reported.
    static func writeAll(
        names: ExportFixture.Names = ExportFixture.Names(), prepare: (Store) throws -> Void = { _ in }
    ) throws -> [(kind: ExportKind, format: ExportFormat, path: String, result: ExportResult)] {
        let fixture = try ExportFixture.temporary(names: names)
        let store = try Store(path: fixture.path, create: false)
        try prepare(store)
        let exporter = try Exporter(store: store)
        return try exportCases.map { kind, format in
            let path = "\(fixture.directory)/\(kind.rawValue).\(format.fileExtension)"
            let result = try exporter.export(kind, as: format, toFile: path, stdout: OutputStream { _ in })
            return (kind, format, path, result)
        }
    }

    @Test(ClientTools.installed("ogrinfo")) func ogrinfoCountsEveryFeatureWritten() throws {
        for export in try ExportClientTests.writeAll() {
            let counts = try #require(try ClientTools.ogrFeatureCounts(export.path))
            switch export.format {
            case .geojson, .csv:
                #expect(counts.count == 1, "\(export.path): layers \(counts)")
                #expect(counts.values.first == export.result.records, "\(export.path): ogrinfo counted \(counts), we wrote \(export.result.records)")
            case .gpx:
                let layer: String
                switch export.kind {
                case .trips, .legs: layer = "tracks"
                case .points: layer = "track_points"
                default: layer = "waypoints"
                }
                #expect(counts[layer] == export.result.records, "\(export.path): ogrinfo counted \(counts), we wrote \(export.result.records) \(layer)")
            }
        }
    }

    /// The fixture's numbers, worked out by hand: 3 trips, 4 legs, 4 visits, 2 places, 47 points, 3 days; the trips'
    /// lines hold 10 + 22 + 11 = 43 points (the flagged 08:05 point is left out); the legs' 10 + 6 + 17 + 11 = 44.
    @Test(ClientTools.installed("ogrinfo")) func countsMatchTheFixture() throws {
        let expected: [ExportKind: Int] = [.trips: 3, .legs: 4, .visits: 4, .places: 2, .points: 47, .days: 3]
        for export in try ExportClientTests.writeAll() {
            #expect(export.result.records == expected[export.kind], "\(export.kind) \(export.format)")
            if export.format == .gpx, export.kind == .trips || export.kind == .legs {
                let counts = try #require(try ClientTools.ogrFeatureCounts(export.path))
                #expect(counts["track_points"] == (export.kind == .trips ? 43 : 44))
            }
        }
    }

    @Test(ClientTools.installed("gpsbabel")) func gpsbabelReadsAndRewritesEveryGPX() throws {
        for export in try ExportClientTests.writeAll() where export.format == .gpx {
            let copy = export.path + ".babel.gpx"
            let result = try #require(try ClientTools.run("gpsbabel", ["-i", "gpx", "-f", export.path, "-o", "gpx", "-F", copy]))
            #expect(result.status == 0, "gpsbabel failed on \(export.path): \(result.stderr)")
            #expect((FileSystem.size(copy) ?? 0) > 0)
            let text = String(decoding: try FileSystem.read(copy), as: UTF8.self)
            switch export.kind {
            case .trips, .legs, .points: #expect(text.contains("<trkpt"), "\(copy) lost the track points")
            default: #expect(text.contains("<wpt"), "\(copy) lost the waypoints")
            }
        }
    }

    @Test(ClientTools.installed("xmllint")) func xmllintValidatesEveryGPXAgainstTheSchema() throws {
        let schema = ClientTools.gpxSchema
        #expect(FileSystem.exists(schema), "the GPX schema is missing at \(schema)")
        for export in try ExportClientTests.writeAll() where export.format == .gpx {
            let result = try #require(try ClientTools.run("xmllint", ["--noout", "--schema", schema, export.path]))
            #expect(result.status == 0, "\(export.path) is not valid GPX 1.1: \(result.stderr)")
            #expect(result.stderr.contains("validates"))
        }
    }

    /// jq parses every GeoJSON, and the positions are [longitude, latitude]: the fixture's first trip starts at
    /// 52.52 N 13.405 E, the tablet's trip at 48.137 N 11.575 E.
    @Test(ClientTools.installed("jq")) func jqParsesEveryGeoJSONWithLongitudeFirst() throws {
        for export in try ExportClientTests.writeAll() where export.format == .geojson {
            let parsed = try #require(try ClientTools.run("jq", ["-c", "[.type, (.features | length)]", export.path]))
            #expect(parsed.status == 0, "jq could not parse \(export.path): \(parsed.stderr)")
            #expect(parsed.stdout == "[\"FeatureCollection\",\(export.result.records)]\n")
            // Every position's longitude is the smaller number here (Germany: lon 11–14, lat 48–53).
            let positions = try ClientTools.run(
                "jq", ["-c", "[.features[].geometry | select(. != null) | .coordinates | [.. | arrays | select(length == 2 and (.[0] | type) == \"number\")] | .[]]", export.path])
            let pairs = try #require(positions).stdout
            if export.kind != .days {
                #expect(pairs.count > 4, "\(export.path): no positions found")
                for pair in pairs.split(separator: "]").map({ $0.drop(while: { $0 == "[" || $0 == "," }) }) where !pair.isEmpty && pair != "\n" {
                    let numbers = pair.split(separator: ",").compactMap { Double($0) }
                    if numbers.count == 2 { #expect(numbers[0] < 20 && numbers[1] > 45, "\(export.path): position \(numbers) is not [lon, lat]") }
                }
            }
        }
        let trips = try ExportClientTests.writeAll().first { $0.kind == .trips && $0.format == .geojson }!
        let first = try #require(try ClientTools.run("jq", ["-c", "[.features[] | .geometry.type]", trips.path]))
        #expect(first.stdout == "[\"LineString\",\"LineString\",\"LineString\"]\n")
        let start = try #require(try ClientTools.run("jq", ["-c", ".features[0].geometry.coordinates[0], .features[2].geometry.coordinates[0]", trips.path]))
        #expect(start.stdout == "[13.405,52.52]\n[11.575,48.137]\n")
        // Trip 2's 10-min gap is bridged (its distance measured the way across): one line of its 22 points.
        let gap = try #require(try ClientTools.run("jq", ["-c", "[.features[1].geometry.coordinates | length]", trips.path]))
        #expect(gap.stdout == "[22]\n")
    }
}
