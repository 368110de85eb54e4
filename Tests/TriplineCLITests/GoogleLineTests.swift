import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// Trips and legs taken from Google's timeline carry Google's line in every export (docs/EXPORTS.md, "Google's
/// lines"): its start, its path points in order (`waypointPath`, else `simplifiedRawPath`), its end; the straight line
/// between its ends when there is no path; privacy zones cut it as they cut the fixes' lines.
@Suite struct GoogleLineTests {
    typealias Position = (lat: Double, lon: Double)

    static func e7(_ p: Position) -> String { "\"latE7\":\(Int((p.lat * 1e7).rounded())),\"lngE7\":\(Int((p.lon * 1e7).rounded()))" }
    static func location(_ p: Position) -> String {
        "{\"latitudeE7\":\(Int((p.lat * 1e7).rounded())),\"longitudeE7\":\(Int((p.lon * 1e7).rounded()))}"
    }

    static func visit(_ name: String, _ p: Position, from: String, to: String) -> String {
        """
        {"placeVisit":{"location":{"latitudeE7":\(Int((p.lat * 1e7).rounded())),"longitudeE7":\(Int((p.lon * 1e7).rounded())),"placeId":"P\(name)","name":"\(name)"},
         "duration":{"startTimestamp":"\(from)","endTimestamp":"\(to)"}}}
        """
    }

    /// A Semantic Location History `activitySegment` with, when given, `waypointPath` and `simplifiedRawPath` points.
    static func activity(from: String, to: String, start: Position, end: Position, distance: Int? = nil, waypoints: [Position] = [],
                         raw: [Position] = []) -> String {
        var extra = distance.map { ",\"distance\":\($0)" } ?? ""
        if !waypoints.isEmpty { extra += ",\"waypointPath\":{\"waypoints\":[" + waypoints.map { "{\(e7($0))}" }.joined(separator: ",") + "]}" }
        if !raw.isEmpty { extra += ",\"simplifiedRawPath\":{\"points\":[" + raw.map { "{\(e7($0))}" }.joined(separator: ",") + "]}" }
        return """
            {"activitySegment":{"startLocation":\(location(start)),"endLocation":\(location(end)),
             "duration":{"startTimestamp":"\(from)","endTimestamp":"\(to)"},"activityType":"IN_BUS"\(extra)}}
            """
    }

    static let home: Position = (52.52, 13.38), work: Position = (52.5, 13.4295), museum: Position = (52.53, 13.45)

    /// One Google day, imported and rebuilt: home, one activity (`activity`), work; the museum visited in the evening.
    func database(_ activity: String, more: [String] = []) throws -> (db: String, dir: String) {
        let day = [
            Self.visit("Home", Self.home, from: "2024-05-01T00:00:00Z", to: "2024-05-01T08:00:00Z"), activity,
            Self.visit("Work", Self.work, from: "2024-05-01T09:00:00Z", to: "2024-05-01T17:00:00Z"),
            Self.visit("Museum", Self.museum, from: "2024-05-01T18:00:00Z", to: "2024-05-01T19:00:00Z"),
        ] + more
        let dir = try temporaryDirectory()
        try FileSystem.write("{\"timelineObjects\":[" + day.joined(separator: ",") + "]}", to: dir + "/2024_MAY.json")
        let db = dir + "/t.sqlite"
        let imported = runCLI(["import", "--db", db, "--device", "g", dir + "/2024_MAY.json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let rebuilt = runCLI(["rebuild", "--db", db])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        return (db, dir)
    }

    func export(_ db: String, _ format: String, _ what: String, _ more: [String] = []) -> String {
        let r = runCLI(["export", "--db", db, "--format", format, "--what", what] + more)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    /// The features of a GeoJSON export: their geometry's lines (each a list of positions) and properties.
    func features(_ text: String) throws -> [(lines: [[Position]], properties: [String: Any])] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try (root["features"] as? [[String: Any]] ?? []).map { feature in
            var lines: [[Position]] = []
            if let geometry = feature["geometry"] as? [String: Any] {
                let type = try #require(geometry["type"] as? String)
                let raw = type == "LineString" ? [geometry["coordinates"] as? [[Double]] ?? []] : geometry["coordinates"] as? [[[Double]]] ?? []
                lines = raw.map { $0.map { (lat: $0[1], lon: $0[0]) } }
            }
            return (lines, feature["properties"] as? [String: Any] ?? [:])
        }
    }

    func same(_ a: [Position], _ b: [Position]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.lat - $1.lat) < 1e-7 && abs($0.lon - $1.lon) < 1e-7 }
    }

    static func length(_ line: [Position]) -> Double { zip(line, line.dropFirst()).reduce(0) { $0 + Geo.distance($1.0.lat, $1.0.lon, $1.1.lat, $1.1.lon) } }

    /// The one trip's and one leg's line in GeoJSON, and the leg's `line_distance_m`.
    func tripAndLegLine(_ db: String) throws -> (trip: [[Position]], leg: [[Position]], legLineM: Double?) {
        let trips = try features(export(db, "geojson", "trips"))
        let legs = try features(export(db, "geojson", "legs"))
        #expect(trips.count == 1 && legs.count == 1)
        let store = try Store(path: db)
        let s = try store.db.prepare("SELECT line_distance_m FROM legs")
        let line = try s.step() ? s.optionalDouble(0) : nil
        return (trips.first?.lines ?? [], legs.first?.lines ?? [], line)
    }

    @Test func theLineFollowsTheWaypointPath() throws {
        let waypoints: [Position] = [(52.515, 13.39), (52.505, 13.41)]
        // Google's own distance, and a simplifiedRawPath too: the road-snapped waypoints win.
        let (db, _) = try database(
            Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work, distance: 4000,
                          waypoints: waypoints, raw: [(52.51, 13.385)]))
        let expected = [Self.home] + waypoints + [Self.work]
        let (trip, leg, legLine) = try tripAndLegLine(db)
        #expect(trip.count == 1 && same(trip[0], expected), "\(trip)")
        #expect(leg.count == 1 && same(leg[0], expected), "\(leg)")
        #expect(abs((legLine ?? 0) - Self.length(expected)) < 0.01, "\(String(describing: legLine))")
        // The trip's figures say it is Google's distance, its straight lines those along the line.
        let csv = export(db, "csv", "trips").split(separator: "\r\n")
        // `line_method` says what the line is when `distance_method` (Google's own distance) cannot.
        #expect(csv.count == 2 && csv[0].hasSuffix(",distance_method,source,line_method") && csv[1].hasSuffix(",app,app,app_path"), "\(csv)")
    }

    @Test func theLineFollowsTheSimplifiedRawPath() throws {
        let raw: [Position] = [(52.51, 13.385), (52.508, 13.40), (52.503, 13.42)]
        let (db, _) = try database(Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work, raw: raw))
        let expected = [Self.home] + raw + [Self.work]
        let (trip, leg, legLine) = try tripAndLegLine(db)
        #expect(trip.count == 1 && same(trip[0], expected), "\(trip)")
        #expect(leg.count == 1 && same(leg[0], expected), "\(leg)")
        #expect(abs((legLine ?? 0) - Self.length(expected)) < 0.01)
        #expect(export(db, "csv", "trips").contains(",app_path,app,app_path\r\n"))
        #expect(export(db, "csv", "legs").contains(",app,app_path\r\n"))
    }

    @Test func withoutAPathTheLineIsStraightBetweenTheEnds() throws {
        let (db, _) = try database(Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work))
        let (trip, leg, legLine) = try tripAndLegLine(db)
        #expect(trip.count == 1 && same(trip[0], [Self.home, Self.work]), "\(trip)")
        #expect(leg.count == 1 && same(leg[0], [Self.home, Self.work]))
        #expect(abs((legLine ?? 0) - Self.length([Self.home, Self.work])) < 0.01)
        #expect(export(db, "csv", "trips").contains(",app_line,app,app_line\r\n"))
        #expect(export(db, "csv", "legs").contains(",app,app_line\r\n"))
    }

    /// GPX: a `trkseg` of the line, `time` only on its ends (Google's); the GeoPackage: the same positions; byte for
    /// byte the same export twice.
    @Test func gpxAndGeoPackageCarryTheLine() throws {
        let waypoints: [Position] = [(52.515, 13.39), (52.505, 13.41)]
        let (db, dir) = try database(
            Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work, waypoints: waypoints))
        for what in ["trips", "legs"] {
            let gpx = export(db, "gpx", what)
            #expect(gpx == export(db, "gpx", what))
            let points = gpx.components(separatedBy: "<trkpt").dropFirst()
            #expect(gpx.components(separatedBy: "<trkseg>").count == 2 && points.count == 4, "\(gpx)")
            #expect(points.map { $0.contains("<time>") } == [true, false, false, true], "\(gpx)")
            #expect(points.first?.contains("<time>2024-05-01T08:00:00Z</time>") == true && points.last?.contains("<time>2024-05-01T09:00:00Z</time>") == true)
            #expect(points.first?.contains("lat=\"52.52\" lon=\"13.38\"") == true, "\(gpx)")
        }
        let gpkg = dir + "/all.gpkg"
        let r = runCLI(["export", "--db", db, "--format", "gpkg", "-o", gpkg])
        #expect(r.status == 0, "\(r.stderr)")
        let file = try Database(path: gpkg, readOnly: true)
        for layer in ["trips", "legs"] {
            let s = try file.prepare("SELECT geom FROM \(layer)")
            #expect(try s.step())
            guard case .blob(let bytes) = s.value(0) else {
                Issue.record("\(layer): no geometry")
                continue
            }
            // GeoPackageBinary header (8 bytes) and envelope (32), then a MultiLineString of one LineString of 4.
            #expect(bytes.count == 40 + 9 + 9 + 4 * 16, "\(layer): \(bytes.count) bytes")
            func double(_ at: Int) -> Double { Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }) }
            let positions = (0..<4).map { k in (lat: double(58 + 16 * k + 8), lon: double(58 + 16 * k)) }
            #expect(same(positions, [Self.home] + waypoints + [Self.work]), "\(layer): \(positions)")
        }
    }

    /// A privacy zone over part of a Google trip: no written position inside, no segment through it (the line breaks),
    /// and a trip whose straight line crosses the zone with both ends outside shows nothing of it.
    @Test func aPrivacyZoneCutsGooglesLine() throws {
        let path: [Position] = [(52.525, 13.42), Self.museum, (52.535, 13.47)]
        let end: Position = (52.54, 13.50)
        let crossing = Self.activity(
            from: "2024-05-01T20:00:00Z", to: "2024-05-01T20:30:00Z", start: (52.53, 13.43), end: (52.53, 13.47))
        let (db, dir) = try database(
            Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: end, raw: path), more: [crossing])
        let zone = ["--privacy-zone", "Museum:300"]
        // Without the zone both trips draw lines into it.
        let open = try features(export(db, "geojson", "trips"))
        #expect(open.count == 2 && open.allSatisfy { !$0.lines.isEmpty })
        let trips = try features(export(db, "geojson", "trips", zone))
        #expect(trips.count == 1, "the crossing trip has no part outside the zone")
        let lines = trips.first?.lines ?? []
        // The second piece runs on from the activity's end to the work visit it reaches, 6.5 km on (the stretch Google's
        // segments leave out, docs/PASSES.md "Where Google's segments do not meet").
        #expect(lines.count == 2 && same(lines[0], [Self.home, path[0]]) && same(lines[1], [path[2], end, Self.work]), "\(lines)")
        #expect(abs((trips.first?.properties["distance_m"] as? Double ?? 0) - Self.length(lines[0]) - Self.length(lines[1])) < 0.01)
        func outside(_ p: Position) -> Bool { Geo.distance(p.lat, p.lon, Self.museum.lat, Self.museum.lon) > 300 }
        for what in ["trips", "legs"] {
            for line in try features(export(db, "geojson", what, zone)).flatMap(\.lines) {
                for (a, b) in zip(line, line.dropFirst()) {
                    // Every position along every segment (as a map of longitude and latitude draws it) is outside.
                    #expect((0...200).allSatisfy { k in
                        let t = Double(k) / 200
                        return outside((a.lat + (b.lat - a.lat) * t, a.lon + (b.lon - a.lon) * t))
                    }, "\(what): \(a) → \(b)")
                }
            }
            // Every pair of numbers in every format, read both ways, lies outside.
            for format in ["geojson", "gpx", "csv"] {
                let text = export(db, format, what, zone)
                var numbers: [Double] = []
                var token = ""
                for c in text + " " {
                    if c.isNumber || c == "." || c == "-" { token.append(c) } else {
                        if let v = Double(token) { numbers.append(v) }
                        token = ""
                    }
                }
                for (x, y) in zip(numbers, numbers.dropFirst()) { #expect(outside((x, y)) && outside((y, x)), "\(format) \(what): \(x), \(y)") }
                #expect(!text.contains("Museum"))
            }
        }
        let gpkg = dir + "/z.gpkg"
        #expect(runCLI(["export", "--db", db, "--format", "gpkg", "-o", gpkg] + zone).status == 0)
        let file = try Database(path: gpkg, readOnly: true)
        #expect(try file.scalarInt("SELECT count(*) FROM trips WHERE geom IS NOT NULL") == 1)
    }

    /// The map draws the same line (not the dashed straight line between the ends it drew before), dashed only where
    /// Google gave no path.
    @Test func theMapDrawsTheSameLine() throws {
        let detour: [Position] = [(52.56, 13.39), (52.46, 13.42)]
        let (db, dir) = try database(
            Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work, waypoints: detour))
        let r = runCLI(["map", "--db", db, "-o", dir + "/map.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = PageInspector(bytes: try FileSystem.read(dir + "/map.html"))
        let lines = try #require(DrawnLines(page))
        let trips = lines.subpaths.filter { $0.kind == "trip" }
        #expect(trips.count == 1 && trips.first?.points.count == 4, "\(trips)")
        // Its vertices are the line's, north to south as Google's detour goes.
        let latitudes = trips.first?.points.map { lines.latitude(gy: $0.y) } ?? []
        let expected = [Self.home, detour[0], detour[1], Self.work].map(\.lat)
        #expect(latitudes.count == 4 && zip(latitudes, expected).allSatisfy { abs($0 - $1) < 0.01 }, "\(latitudes)")
        #expect(!page.html.contains(" s\" d=\""), "drawn as the straight line between its ends")
        // Without a path: the straight line, dashed.
        let (db2, dir2) = try database(Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: Self.home, end: Self.work))
        #expect(runCLI(["map", "--db", db2, "-o", dir2 + "/map.html"]).status == 0)
        let straight = PageInspector(bytes: try FileSystem.read(dir2 + "/map.html"))
        #expect(straight.html.contains(" s\" d=\""))
    }

    /// Across the antimeridian Google's line is cut at ±180° as a line of fixes is (RFC 7946 §3.1.9).
    @Test func acrossTheAntimeridianTheLineIsCut() throws {
        let start: Position = (-17.5, 179.5), end: Position = (-17.7, -179.5)
        let (db, _) = try database(
            Self.activity(from: "2024-05-01T08:00:00Z", to: "2024-05-01T09:00:00Z", start: start, end: end, waypoints: [(-17.6, -179.8)]))
        let lines = try features(export(db, "geojson", "trips")).first?.lines ?? []
        #expect(lines.count == 2 && lines.first?.count == 2 && lines.last?.count == 3, "\(lines)")
        #expect(lines.first?.last?.lon == 180 && lines.last?.first?.lon == -180 && lines.first?.last?.lat == lines.last?.first?.lat, "\(lines)")
        #expect(lines.first.map { same([$0[0]], [start]) } == true && lines.last.map { same([$0[2]], [end]) } == true)
    }
}
