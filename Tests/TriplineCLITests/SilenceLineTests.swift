import Testing
import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// A trip's line in the exports holds the way its distance measured (``LineJoins``; the fourteenth hostile round: a
/// metro ride's line was 1.6 km of 19, broken at the 20-min silence the trip counted, and its `unknown` leg had no
/// line at all), and breaks where the distance measured nothing.
@Suite struct SilenceLineTests {
    static let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 3)) * 86_400_000 + 5 * 3_600_000

    /// Home an hour, 400 m on foot, 20 min of silence covering `km` (0: standing), 300 m on foot, the office.
    static func commute(km: Double) throws -> Store {
        var b = TrackBuilder(startMs: t0, lat: 48.8566, lon: 2.3522)
        b.still(3600, every: 30)
        b.move(400, bearing: 90, speed: 1.4, every: 2)
        b.gap(20 * 60, moving: km * 1000, bearing: 20)
        b.move(300, bearing: 0, speed: 1.4, every: 2)
        b.still(4 * 3600, every: 60)
        let store = try storeWith([("metro", b.points)])
        try rebuild(store, timezone: "Europe/Paris")
        return store
    }

    static func export(_ store: Store, _ kind: ExportKind, _ format: ExportFormat) throws -> String {
        let w = ByteWriter.memory()
        _ = try Exporter(store: store).export(kind, as: format, to: w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// The metro ride: one line for the trip (its 12 km straight across the silence), one `trkseg` in GPX, one
    /// GeoPackage part, and a line of its two ends for the `unknown` leg.
    @Test func aCrossedSilenceIsDrawn() throws {
        let store = try Self.commute(km: 12)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        let trips = try Self.export(store, .trips, .geojson)
        #expect(trips.contains("\"geometry\":{\"type\":\"LineString\""), "\(trips)")
        let gpx = try Self.export(store, .trips, .gpx)
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == 1)
        let legs = try Self.export(store, .legs, .geojson)
        let ride = try #require(legs.split(separator: "\n").first { $0.contains("\"mode\":\"unknown\"") }, "\(legs)")
        #expect(ride.hasPrefix("{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[["), "\(ride)")
        #expect(!legs.contains("\"geometry\":null"), "\(legs)")
        let gpkg = try temporaryDirectory() + "/t.gpkg"
        _ = try Exporter(store: store).exportGeoPackage(toFile: gpkg)
        let layers = try Database(path: gpkg, readOnly: true, create: false)
        // WKB after the 40-byte header and envelope: byte order, type 5 (MultiLineString), the number of parts.
        let hex = try layers.scalarText("SELECT hex(substr(geom, 41, 9)) FROM trips")
        #expect(hex == "010500000001000000", "\(hex ?? "")")
    }

    /// A zone at home cuts a drive's first 200 m: the drive as shown still holds the 8 km of a 10-min tunnel that
    /// its car leg bridged (a zone's cut measured no way across a gap of 5 min or more, where the rebuild counts one
    /// up to `metrics.bridge_max_s`: the tunnel's 8 km were lost).
    @Test func aTripCutByAZoneKeepsItsTunnel() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 48.8566, lon: 2.3522)
        b.still(3600, every: 30)
        b.move(5000, bearing: 90, speed: 14, every: 2)
        b.gap(10 * 60, moving: 8000, bearing: 90)
        b.move(4000, bearing: 90, speed: 14, every: 2)
        b.still(2 * 3600, every: 60)
        let store = try storeWith([("car", b.points)])
        try rebuild(store, timezone: "Europe/Paris")
        let zones = PrivacyZones([PrivacyZone(label: "home", lat: 48.8566, lon: 2.3522, radiusM: 200)])
        let exporter = try Exporter(store: store, privacyZones: zones)
        var shown: [Double] = []
        try exporter.forEachTrip(try exporter.select(RecordFilter())) { shown.append($0.distanceM) }
        let whole = try double(store, "SELECT distance_m FROM trips")
        try #require(shown.count == 1)
        #expect(whole > 16_500 && shown[0] > whole - 500 && shown[0] < whole - 100, "shown \(shown[0]) m of \(whole)")
    }

    /// A zone at home cuts a slow hike's first 200 m (0.45 m/s, the phone reporting it): the part shown is under way
    /// as the rebuild counts it (``TrackMotion/isCreeping``), not 10 s of moving time at 300 m/s.
    @Test func aTripCutByAZoneKeepsASlowWalkersMovingTime() throws {
        var b = TrackBuilder(startMs: Self.t0, lat: 47.40, lon: 10.90)
        b.still(3600, every: 30)
        for k in 0..<20 { b.move(150, bearing: k % 2 == 0 ? 30 : 330, speed: 0.45, every: 5, motion: "walking") }
        b.still(3600, every: 30)
        let store = try storeWith([("hiker", b.points)])
        try rebuild(store, timezone: "Europe/Vienna")
        let zones = PrivacyZones([PrivacyZone(label: "home", lat: 47.40, lon: 10.90, radiusM: 200)])
        let exporter = try Exporter(store: store, privacyZones: zones)
        var shown: [(moving: Double, duration: Double, average: Double?)] = []
        try exporter.forEachTrip(try exporter.select(RecordFilter())) { shown.append(($0.movingS, $0.durationS, $0.avgSpeedMps)) }
        try #require(shown.count == 1)
        #expect(shown[0].moving >= 0.8 * shown[0].duration && (shown[0].average ?? 9) < 1, "\(shown[0])")
    }

    /// Standing 20 min with the phone off between two walks (no way covered, no distance): the line breaks there.
    @Test func aWaitIsNotDrawn() throws {
        let store = try Self.commute(km: 0)
        try #require(try count(store, "SELECT count(*) FROM trips") == 1, "the wait is inside one trip")
        let trips = try Self.export(store, .trips, .geojson)
        #expect(trips.contains("\"geometry\":{\"type\":\"MultiLineString\""), "\(trips)")
        let gpx = try Self.export(store, .trips, .gpx)
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == 2)
    }
}
