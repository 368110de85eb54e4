import Foundation
import Testing

@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// A map without seams (issue 29, item 3): nothing — base layer or track — is drawn across the world where the frame
/// is cut (`west`, docs/MAP.md "Longitudes"), and flights are drawn along their great circle.
@Suite struct MapSeamTests {
    static let day0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    static let washington = (38.8512, -77.0402), dulles = (38.95, -77.45), narita = (35.77, 140.39), tokyo = (35.6812, 139.7671)

    /// Washington two days, a flight to Tokyo with a fix at each airport, Tokyo two days, and the way back as a
    /// trip with no fixes (start and end only: the dashed connector).
    static func transPacific() throws -> Store {
        let store = try Store(path: try temporaryDirectory() + "/pacific.sqlite")
        let device = try MapFixture.device(store)
        try MapFixture.visit(store, device: device, name: "Home", at: washington, startMs: day0, minutes: 2 * 1440, offsetS: -14_400)
        try MapFixture.trip(store, device: device, startMs: day0 + 2 * 86_400_000 + 1_800_000, offsetS: -14_400, fixes: [dulles, narita],
                            stepS: 14 * 3600, mode: "plane")
        try MapFixture.visit(store, device: device, name: "Hotel", at: tokyo, startMs: day0 + 3 * 86_400_000, minutes: 2 * 1440, offsetS: 32_400)
        try MapFixture.trip(store, device: device, startMs: day0 + 5 * 86_400_000 + 3_600_000, offsetS: 32_400, fixes: [narita, dulles],
                            stepS: 13 * 3600, mode: "plane", insertPoints: false)
        return store
    }

    /// A week in Fiji from Los Angeles: the flight there (fixes at each airport), a boat across ±180° from Taveuni
    /// to the Lau side, a stay each side.
    static func fiji() throws -> Store {
        let store = try Store(path: try temporaryDirectory() + "/fiji.sqlite")
        let device = try MapFixture.device(store)
        try MapFixture.visit(store, device: device, name: "Home", at: (34.05, -118.24), startMs: day0, minutes: 1440, offsetS: -25_200)
        try MapFixture.trip(store, device: device, startMs: day0 + 86_400_000, offsetS: -25_200, fixes: [(33.94, -118.41), (-17.76, 177.44)],
                            stepS: 11 * 3600, mode: "plane")
        try MapFixture.visit(store, device: device, name: "Waiyevo", at: (-16.79, 179.85), startMs: day0 + 2 * 86_400_000, minutes: 3 * 1440,
                             offsetS: 43_200)
        try MapFixture.trip(store, device: device, startMs: day0 + 5 * 86_400_000, offsetS: 43_200, start: (-16.79, 179.85), step: (0, 0.0005),
                            legs: [("boat", 600)])
        try MapFixture.visit(store, device: device, name: "Lau side", at: (-16.79, -179.85), startMs: day0 + 5 * 86_400_000 + 700_000,
                             minutes: 2 * 1440, offsetS: 43_200)
        return store
    }

    /// Flights eastwards round the world (London, New York, Tokyo, London), a day in each: no gap of longitude is
    /// free of lines, so one flight crosses the frame's seam and must be cut there.
    static func roundTheWorld() throws -> Store {
        let store = try Store(path: try temporaryDirectory() + "/world.sqlite")
        let device = try MapFixture.device(store)
        let stops = [(51.47, -0.45), (40.64, -73.78), (35.77, 140.39), (51.47, -0.45)]
        for k in 0..<3 {
            let t = day0 + Int64(k) * 2 * 86_400_000
            try MapFixture.visit(store, device: device, name: "Stop \(k)", at: stops[k], startMs: t, minutes: 1440)
            try MapFixture.trip(store, device: device, startMs: t + 86_400_000 + 3_600_000, fixes: [stops[k], stops[k + 1]], stepS: 12 * 3600,
                                mode: "plane")
        }
        return store
    }

    static func render(_ store: Store) throws -> (DrawnLines, MapDocument) {
        let document = try MapRenderer(store: store).render()
        return (try #require(DrawnLines(PageInspector(document))), document)
    }

    @Test func transPacificFlightHasNoSeamAndFollowsTheGreatCircle() throws {
        let (lines, document) = try Self.render(try Self.transPacific())
        #expect(document.tripsDrawn == 2 && document.baseShapes > 100)
        // The base layer reaches round the world here (it is cut at the frame's seam, in Africa).
        let land = lines.subpaths.filter { $0.kind == "land" }.flatMap(\.points).map(\.x)
        #expect((land.max() ?? 0) - (land.min() ?? 0) > 0.9 * lines.worldWidth)
        let across = lines.acrossHalfTheWorld
        #expect(across.isEmpty, "\(across.count) segments across half the world, e.g. \(across.prefix(3))")
        // The great circle from Dulles to Narita reaches 67.0° N over Alaska; the straight Mercator line stays below 39° N.
        let trips = lines.subpaths.filter { $0.kind == "trip" }
        #expect(trips.count == 2)
        for trip in trips {
            let north = trip.points.map { lines.latitude(gy: $0.y) }.max() ?? 0
            #expect(north > 66 && north < 67.1, "the flight reaches \(north)° N")
        }
        // The same bytes every time.
        #expect(try MapRenderer(store: try Self.transPacific()).render().bytes == document.bytes)
    }

    @Test func fijiTripHasNoSeam() throws {
        let (lines, document) = try Self.render(try Self.fiji())
        #expect(document.tripsDrawn == 2 && document.baseShapes > 100)
        let across = lines.acrossHalfTheWorld
        #expect(across.isEmpty, "\(across.count) segments across half the world, e.g. \(across.prefix(3))")
        // The boat goes east across ±180° in one piece.
        let boat = try #require(lines.subpaths.filter { $0.kind == "trip" }.last)
        #expect(zip(boat.points, boat.points.dropFirst()).allSatisfy { $1.x > $0.x })
    }

    /// Berlin to Paris by train, a few hours in each: the frame is the usual one (west = -180), and its widest level
    /// reaches round the world, down to Antarctica along the bottom of the map (an edge all the way across, which
    /// is written in pieces: the same line, no segment across half the world).
    @Test func europeOnlyHistoryHasNoSeam() throws {
        let store = try Store(path: try temporaryDirectory() + "/europe.sqlite")
        let device = try MapFixture.device(store)
        let berlin = (52.52, 13.405), paris = (48.8566, 2.3522)
        try MapFixture.visit(store, device: device, name: "Berlin", at: berlin, startMs: Self.day0, minutes: 180, offsetS: 7200)
        try MapFixture.trip(store, device: device, startMs: Self.day0 + 11_000_000, offsetS: 7200, start: berlin,
                            step: ((paris.0 - berlin.0) / 480, (paris.1 - berlin.1) / 480), legs: [("train", 481)])
        try MapFixture.visit(store, device: device, name: "Paris", at: paris, startMs: Self.day0 + 11_600_000, minutes: 180, offsetS: 7200)
        let (lines, document) = try Self.render(store)
        #expect(document.baseShapes > 100)
        let land = lines.subpaths.filter { $0.kind == "land" }.flatMap(\.points).map(\.x)
        #expect((land.max() ?? 0) - (land.min() ?? 0) > 0.99 * lines.worldWidth)
        let across = lines.acrossHalfTheWorld
        #expect(across.isEmpty, "\(across.count) segments across half the world, e.g. \(across.prefix(3))")
    }

    @Test func aFlightAcrossTheFramesSeamIsCutThere() throws {
        let (lines, _) = try Self.render(try Self.roundTheWorld())
        let across = lines.acrossHalfTheWorld
        #expect(across.isEmpty, "\(across.count) segments across half the world, e.g. \(across.prefix(3))")
        // Three flights, one of them in two pieces, one at each edge of the frame.
        let trips = lines.subpaths.filter { $0.kind == "trip" }
        #expect(trips.count == 4)
        let xs = trips.flatMap(\.points).map(\.x)
        #expect((xs.max() ?? 0) - (xs.min() ?? 0) > 0.99 * lines.worldWidth, "the cut pieces meet the frame's two edges")
    }

    // MARK: The pieces

    @Test func cutSplitsAtEachSeamWithTheInterpolatedY() throws {
        // Inside the frame: the same line back.
        let inside = MapSeam.cut(xs: [10, 50, 90], ys: [0, 5, 10], seam: 0, period: 100)
        #expect(inside.count == 1 && inside[0].xs == [10, 50, 90] && inside[0].ys == [0, 5, 10])
        // Eastwards across the seam at 100: two pieces, meeting it at y = 5, the second moved back a turn.
        let east = MapSeam.cut(xs: [80, 120], ys: [0, 10], seam: 0, period: 100)
        try #require(east.count == 2)
        #expect(east[0].xs == [80, 100] && east[0].ys == [0, 5])
        #expect(east[1].xs == [0, 20] && east[1].ys == [5, 10])
        // Westwards across two seams (round the world and a bit): three pieces, all inside the frame.
        let west = MapSeam.cut(xs: [50, -60], ys: [0, 11], seam: 0, period: 100)
        try #require(west.count == 2)
        #expect(west[0].xs == [50, 0] && west[1].xs == [100, 40])
        let long = MapSeam.cut(xs: [50, -160], ys: [0, 21], seam: 0, period: 100)
        #expect(long.count == 3 && long.allSatisfy { $0.xs.allSatisfy { $0 >= 0 && $0 <= 100 } })
        #expect(long.map(\.ys.first!) == [0, 5, 15])
        // Up to the seam, along it, then across: the run along it stays on the side the line came from.
        let along = MapSeam.cut(xs: [90, 100, 100, 110], ys: [0, 0, 10, 10], seam: 0, period: 100)
        try #require(along.count == 2)
        #expect(along[0].xs == [90, 100, 100] && along[0].ys == [0, 0, 10])
        #expect(along[1].xs == [0, 10] && along[1].ys == [10, 10])
    }

    @Test func arcsFollowTheGreatCircle() {
        var points: [(Double, Double)] = []
        MapSeam.arcPoints(Self.dulles.0, Self.dulles.1, Self.narita.0, Self.narita.1) { points.append(($0, $1)) }
        // 10 844 km: a point every 100 km or less.
        #expect(points.count == 108)
        for p in points {
            // Every point is as far from both ends, in sum, as the ends are apart: on the great circle between them.
            let sum = Geo.distance(Self.dulles.0, Self.dulles.1, p.0, p.1) + Geo.distance(p.0, p.1, Self.narita.0, Self.narita.1)
            #expect(abs(sum - Geo.distance(Self.dulles.0, Self.dulles.1, Self.narita.0, Self.narita.1)) < 1)
        }
        #expect(abs((points.map(\.0).max() ?? 0) - 67.0) < 0.1)
        // A walk, a drive of 80 km, antipodes: none.
        for (a, b) in [((48.1, 11.5), (48.1001, 11.5)), ((48.1, 11.5), (48.8, 11.5)), ((0.0, 0.0), (0.0, 180.0))] {
            var n = 0
            MapSeam.arcPoints(a.0, a.1, b.0, b.1) { _, _ in n += 1 }
            #expect(n == 0)
        }
    }
}
