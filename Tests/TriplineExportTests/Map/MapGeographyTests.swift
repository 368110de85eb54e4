import Foundation
import Testing

@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
@testable import TriplineSimulator
import TriplineTestSupport

/// The map's base layer, city labels, fit to where the time is spent, device picker, antimeridian and `--tiles`.
@Suite struct MapGeographyTests {
    /// The synthetic data's first day (2024-03-04), 00:00 UTC.
    static let day0 = Int64(SyntheticTravel.Parameters().firstDay) * 86_400_000

    @Test func baseLayerAndCityCandidatesUnderTheTracks() throws {
        let store = try MapFixture.synthetic(days: 3)  // around Munich
        let document = try MapRenderer(store: store).render()
        let page = PageInspector(document)
        #expect(document.baseShapes > 0)
        #expect(page.html.contains("<g id=\"base\">"))
        #expect(page.html.contains("<path class=\"land\" d=\"M"))
        // Lakes (Lake Constance and Lake Geneva are within the coarsest level around Munich), drawn over the land.
        let land = try #require(page.html.range(of: "<path class=\"land\"")), lake = try #require(page.html.range(of: "<path class=\"lake\" d=\"M"))
        #expect(land.lowerBound < lake.lowerBound)
        // The base layer is under the tracks: it comes first in the SVG.
        let base = try #require(page.html.range(of: "<g id=\"base\">")), trips = try #require(page.html.range(of: "<g id=\"trips\">"))
        #expect(base.lowerBound < trips.lowerBound)
        let data = try #require(page.data)
        let cities = try #require(data["cities"] as? [Any])
        #expect(cities.count == 4 * document.cityCandidates && document.cityCandidates > 100)
        let names = stride(from: 0, to: cities.count, by: 4).compactMap { cities[$0] as? String }
        #expect(names.contains("Munich") && names.contains("Augsburg") && names.contains("Vienna"))
        let populations = stride(from: 3, to: cities.count, by: 4).compactMap { cities[$0] as? Int }
        #expect(populations == populations.sorted(by: >), "most populous first, for the script's greedy placement")
        // Without the base layer: no shapes, no cities, the grid instead.
        var plain = MapParameters()
        plain.baseLayer = false
        let bare = PageInspector(try MapRenderer(store: store, parameters: plain).render())
        #expect(!bare.html.contains("<g id=\"base\">") && bare.html.contains("class=\"grid\""))
    }

    @Test func longitudeWrapKeepsAntimeridianDataTogether() {
        #expect(LongitudeWrap.west(for: [11.5, 11.6, 48.0]) == -180)
        let west = LongitudeWrap.west(for: [179.2, 179.9, -179.8, -179.1])
        #expect(west > -179.1 && west < 179.2, "the cut lies in the big empty gap, not at ±180")
        #expect(LongitudeWrap.wrap(-179.8, west: west) == 180.2)
        #expect(LongitudeWrap.wrap(179.9, west: west) == 179.9)
        #expect(LongitudeWrap.wrap(180, west: -180) == 180 && LongitudeWrap.wrap(-180, west: -180) == -180)
    }

    /// A boat trip across the antimeridian in Fiji (Vanua Levu to Taveuni's east coast and on): one short line, a
    /// view a few kilometres across, not the whole world, and Fiji's land on both sides of ±180.
    @Test func antimeridianTripIsDrawnInOnePiece() throws {
        let store = try Store(path: try temporaryDirectory() + "/fiji.sqlite")
        let device = try store.deviceID(named: "phone", source: "test", origin: .other("test"))
        let t0 = MapGeographyTests.day0
        try MapFixture.visit(store, device: device, name: "Waiyevo", at: (-16.79, 179.85), startMs: t0, minutes: 600, offsetS: 43_200)
        try MapFixture.trip(store, device: device, startMs: t0 + 36_000_000, offsetS: 43_200, start: (-16.79, 179.85), step: (0, 0.0005),
                            legs: [("boat", 600)])
        try MapFixture.visit(store, device: device, name: "Lau side", at: (-16.79, -179.85), startMs: t0 + 37_000_000, minutes: 600, offsetS: 43_200)
        let document = try MapRenderer(store: store).render()
        let page = PageInspector(document)
        let data = try #require(page.data)
        let view = try #require(data["view"] as? [Double])
        #expect(abs(view[0] - WebMercator.x(longitude: 180)) < 0.001, "the view is centred on the antimeridian")
        let path = try #require(page.html.components(separatedBy: "<path class=\"trip m0\" d=\"M").dropFirst().first)
        let numbers = path.prefix { $0 != "\"" }.replacingOccurrences(of: "l", with: " ").replacingOccurrences(of: "-", with: " -")
            .split(separator: " ").compactMap { Double($0) }
        let dxs = stride(from: 2, to: numbers.count, by: 2).map { numbers[$0] }
        #expect(!dxs.isEmpty && dxs.allSatisfy { $0 > 0 }, "eastwards all the way: no jump back across the world")
        #expect(dxs.reduce(0, +) < Double(4 * 1000 * 3), "the line stays within a few views")
        let all = try #require(data["all"] as? [Int])
        #expect(all[2] - all[0] < 4 * 1000 * 3)
        #expect(document.baseShapes > 0)
        let cities = try #require(data["cities"] as? [Any])
        let names = stride(from: 0, to: cities.count, by: 4).compactMap { cities[$0] as? String }
        #expect(names.contains("Suva") || names.contains("Labasa"), "\(names.prefix(10))")
    }

    @Test func openingViewFitsWhereTheTimeIsSpentAndFitAllReachesTheRest() throws {
        let store = try MapFixture.synthetic(days: 3)
        let page = PageInspector(try MapRenderer(store: store).render())
        let data = try #require(page.data)
        let all = try #require(data["all"] as? [Int])
        let view = try #require(data["view"] as? [Double])
        let w = view[4] * view[3], h = view[5] * view[3]
        // The far visit (800 km) is outside the opening view but inside the "fit all" box.
        #expect(all[2] - all[0] > Int(3 * w) || all[3] - all[1] > Int(3 * h))
        #expect(all[0] <= 0 && all[1] <= 0 && Double(all[2]) >= w * 0.5 && Double(all[3]) >= h * 0.5)
        #expect(page.html.contains("data-z=\"all\""))
    }

    @Test func devicePickerAndPerDeviceData() throws {
        let store = try MapFixture.synthetic(days: 2, device: "phone")
        let tablet = try store.deviceID(named: "tab<b>\"let\"", source: "test", origin: .other("test"))
        try MapFixture.trip(store, device: tablet, startMs: MapGeographyTests.day0 + 3_600_000, start: (48.14, 11.58), step: (0.0001, 0), legs: [("walk", 300)])
        let page = PageInspector(try MapRenderer(store: store).render())
        #expect(page.html.contains("<select id=\"dev\" title=\"Device\"><option value=\"\">every device</option><option value=\"0\">phone</option><option value=\"1\">tab&lt;b&gt;\"let\"</option></select>"))
        let data = try #require(page.data)
        #expect(data["devices"] as? [String] == ["phone", "tab<b>\"let\""])
        let trips = try #require(data["t"] as? [[Any]])
        #expect(trips.filter { $0[12] as? Int == 1 }.count == 1)
        #expect(trips.filter { $0[12] as? Int == 0 }.count == trips.count - 1)
        let visits = try #require(data["vs"] as? [[Any]])
        #expect(visits.allSatisfy { $0[5] as? Int == 0 })
        let days = try #require(data["days"] as? [[Any]])
        #expect(days.allSatisfy { ($0[2] as? Int).map { $0 == 0 || $0 == 1 } == true })
        // The script names the device in every tooltip.
        #expect(page.script?.contains("\"Device \"+devName(r[12])") == true && page.script?.contains("\"Device \"+devName(q[5])") == true)
        // One device: no picker.
        let single = PageInspector(try MapRenderer(store: try MapFixture.synthetic(days: 1)).render())
        #expect(!single.html.contains("id=\"dev\""))
    }

    @Test func tilesAreOffByDefaultAndAllowOnlyTheirOrigin() throws {
        let store = try MapFixture.synthetic(days: 1)
        let offline = PageInspector(try MapRenderer(store: store).render())
        #expect(!offline.html.contains("img-src") && offline.html.contains("\"tiles\":null"))
        var parameters = MapParameters()
        parameters.tiles = try MapTiles(template: "https://tile.example.org:8443/{z}/{x}/{y}.png?key=abc")
        let online = PageInspector(try MapRenderer(store: store, parameters: parameters).render())
        #expect(online.html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"))
        #expect(online.html.contains("; img-src https://tile.example.org:8443\">"))
        #expect(online.html.contains("\"tiles\":\"https://tile.example.org:8443/{z}/{x}/{y}.png?key=abc\""))
        #expect(online.html.contains("<g id=\"tiles\"></g>"))
        for bad in [
            "tile.example.org/{z}/{x}/{y}.png", "javascript:alert(1)/{z}/{x}/{y}", "https://tile.example.org/{z}/{x}.png",
            "https://tile.example.org/{z}/{x}/{y}/{y}.png", "https://a.org/{z}/{x}/{y}.png\"><script>", "https://a.org/{z}/{x}/{y}.png https://b.org/",
            "https://a.org;img-src */{z}/{x}/{y}", "https://user@a.org/{z}/{x}/{y}", "https:///{z}/{x}/{y}", "https://a.org/{z}/{x}/{y}/{s}.png",
            "https://a.org:x/{z}/{x}/{y}",
        ] {
            #expect(throws: MapError.self, "\(bad)") { try MapTiles(template: bad) }
        }
    }
}
