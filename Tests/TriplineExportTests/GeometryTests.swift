import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// How line geometry handles gaps, single points and the edges of the coordinate range.
@Suite struct GeometryTests {
    static func text(_ path: String, _ kind: ExportKind, _ format: ExportFormat, parameters: ExportParameters = ExportParameters()) throws -> String {
        let store = try Store(path: path, create: false)
        let writer = ByteWriter.memory()
        _ = try Exporter(store: store, parameters: parameters).export(kind, as: format, filter: RecordFilter(device: "tablet"), to: writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Two fixes of the tablet 20 min apart at one spot: a silence no straight line bridges (over
    /// `metrics.bridge_max_s`, 15 min) and not crossed (no pace at all), so a trip over them has two one-point runs.
    static func addWait(_ store: Store) throws {
        let t = ExportFixture.ms(2024, 4, 2, 9, 0)
        try store.insertPoints([
            Point(deviceID: 2, timeMs: t, lat: 48.2, lon: 11.6, accuracyM: 10, importID: 2),
            Point(deviceID: 2, timeMs: t + 1_200_000, lat: 48.2001, lon: 11.6, accuracyM: 10, importID: 2),
        ])
        try store.db.run(
            """
            INSERT INTO trips(id, device_id, start_ms, end_ms, duration_s, moving_s, distance_m, mode, legs, points)
            VALUES (4, 2, ?, ?, 1200, 0, 0, 'unknown', 0, 2)
            """, [.integer(t), .integer(t + 1_200_000)])
    }

    /// A trip over two fixes either side of a silence its distance did not measure: each run is a single point, so
    /// GeoJSON has no line (`"geometry": null`) while GPX keeps both as one-point segments (valid GPX).
    @Test func singlePointRunsAreNoLine() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        try GeometryTests.addWait(store)
        let geojson = try GeometryTests.text(fixture.path, .trips, .geojson)
        #expect(geojson.contains("{\"type\":\"Feature\",\"id\":4,\"geometry\":null,\"properties\":{\"id\":4,"))
        let gpx = try GeometryTests.text(fixture.path, .trips, .gpx)
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == 3)  // trip 4: two, trip 3: one
    }

    /// One-point segments are valid GPX 1.1, by the schema.
    @Test(ClientTools.installed("xmllint")) func singlePointSegmentsAreValidGPX() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        try GeometryTests.addWait(store)
        let gpx = try GeometryTests.text(fixture.path, .trips, .gpx)
        let result = try #require(try ClientTools.run("xmllint", ["--noout", "--schema", ClientTools.gpxSchema, "-"], stdin: gpx))
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// With a 60 s gap rule, the tablet's points two minutes apart are all gaps: the points export opens a `trkseg`
    /// at each, while trip 3's line over them goes on (its distance measured each way, ``LineJoins``); at 120 s, one
    /// segment for trip 3's points.
    @Test func gapThresholdIsAParameter() throws {
        let fixture = try ExportFixture.temporary()
        let tight = try GeometryTests.text(fixture.path, .trips, .geojson, parameters: ExportParameters(gapSeconds: 60))
        #expect(tight.contains("\"geometry\":{\"type\":\"LineString\"") && !tight.contains("\"geometry\":null"))
        func segments(_ gapSeconds: Int64) throws -> Int {
            try GeometryTests.text(fixture.path, .points, .gpx, parameters: ExportParameters(gapSeconds: gapSeconds)).components(separatedBy: "<trkseg>").count - 1
        }
        // Tablet: 00:30 and 01:30 (an hour apart), then 11 points two minutes apart.
        #expect(try segments(60) == 13)
        #expect(try segments(120) == 3)
    }

    /// GPX longitudes must be below 180: a place at 180° E is written at -180.
    @Test func longitude180IsWrittenAsMinus180InGPX() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        try store.db.run("INSERT INTO places(id, device_id, name, lat, lon, radius_m, visits, total_dwell_s) VALUES (9, 2, 'Dateline', -16.5, 180, 10, 0, 0)")
        let gpx = try GeometryTests.text(fixture.path, .places, .gpx)
        #expect(gpx.contains("<wpt lat=\"-16.5\" lon=\"-180\">"))
        let geojson = try GeometryTests.text(fixture.path, .places, .geojson)
        #expect(geojson.contains("\"coordinates\":[180,-16.5]"))
    }

    /// A line across the antimeridian is cut there (RFC 7946 §3.1.9): 179.9° E → 179.9° W at 10° S and 10.2° S
    /// crosses 180° at 10.1° S.
    @Test func linesAreCutAtTheAntimeridian() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let t0 = ExportFixture.ms(2024, 5, 1, 0, 0)
        try store.insertPoints([
            Point(deviceID: 2, timeMs: t0, lat: -10.0, lon: 179.8, importID: 2),
            Point(deviceID: 2, timeMs: t0 + 60_000, lat: -10.0, lon: 179.9, importID: 2),
            Point(deviceID: 2, timeMs: t0 + 120_000, lat: -10.2, lon: -179.9, importID: 2),
            Point(deviceID: 2, timeMs: t0 + 180_000, lat: -10.2, lon: -179.8, importID: 2),
        ])
        try store.db.run(
            "INSERT INTO trips(id, device_id, start_ms, end_ms, duration_s, moving_s, distance_m, mode, legs, points) VALUES (5, 2, ?, ?, 180, 180, 33000, 'plane', 0, 4)",
            [.integer(t0), .integer(t0 + 180_000)])
        let geojson = try GeometryTests.text(fixture.path, .trips, .geojson)
        #expect(geojson.contains(
            "\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[[[179.8,-10],[179.9,-10],[180,-10.1]],[[-180,-10.1],[-179.9,-10.2],[-179.8,-10.2]]]}"))
    }
}
