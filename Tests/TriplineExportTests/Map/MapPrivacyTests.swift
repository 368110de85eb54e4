import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// The map under a privacy zone, checked as an adversary would: every trip vertex and visit circle of the page,
/// turned back into latitude and longitude through the page's own view, and every pair of numbers in its bytes,
/// lie outside the zone; the hidden place is not named.
@Suite struct MapPrivacyTests {
    static func page(_ zones: (Store) throws -> PrivacyZones) throws -> String {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        var parameters = MapParameters()
        parameters.privacyZones = try zones(store)
        let document = try MapRenderer(store: store, parameters: parameters).render()
        return String(decoding: document.bytes, as: UTF8.self)
    }

    /// The page's drawn positions: the absolute vertices of its trip paths and the centres of its visit circles.
    static func drawnPositions(_ page: String) throws -> [(Double, Double)] {
        let viewStart = try #require(page.range(of: "{\"view\":["))
        let viewText = page[viewStart.upperBound...].prefix { $0 != "]" }
        let view = viewText.split(separator: ",").compactMap { Double($0) }
        try #require(view.count == 6)
        let unit = view[2] * view[3]
        func position(_ gx: Double, _ gy: Double) -> (Double, Double) {
            (WebMercator.latitude(y: gy / unit + view[1]), WebMercator.longitude(x: gx / unit + view[0]))
        }
        var positions: [(Double, Double)] = []
        func attribute(_ name: String, in tag: Substring) -> String? {
            guard let start = tag.range(of: " \(name)=\"") else { return nil }
            return String(tag[start.upperBound...].prefix { $0 != "\"" })
        }
        for tag in page.components(separatedBy: "<path class=\"trip").dropFirst().map({ Substring($0.prefix { $0 != ">" }) }) {
            let d = try #require(attribute("d", in: " " + tag))
            // "M x y l dx dy dx dy …": signs separate numbers as well as spaces.
            var numbers: [Double] = []
            var current = ""
            for c in d.dropFirst() + " " {
                if c.isNumber { current.append(c); continue }
                if let value = Double(current) { numbers.append(value) }
                current = c == "-" ? "-" : ""
            }
            var x = numbers[0], y = numbers[1]
            positions.append(position(x, y))
            var i = 2
            while i + 1 < numbers.count {
                x += numbers[i]
                y += numbers[i + 1]
                positions.append(position(x, y))
                i += 2
            }
        }
        for tag in page.components(separatedBy: "<circle data-v=").dropFirst().map({ Substring($0.prefix { $0 != ">" }) }) {
            let cx = try #require(attribute("cx", in: tag).flatMap(Double.init))
            let cy = try #require(attribute("cy", in: tag).flatMap(Double.init))
            positions.append(position(cx, cy))
        }
        return positions
    }

    @Test func nothingOnTheMapLiesInsideTheZone() throws {
        let home = (lat: 52.52, lon: 13.405)
        func inside(_ p: (Double, Double), _ radius: Double) -> Bool { Geo.distance(p.0, p.1, home.lat, home.lon) < radius }
        let open = try MapPrivacyTests.page { _ in PrivacyZones() }
        let before = try MapPrivacyTests.drawnPositions(open)
        #expect(before.contains { inside($0, 200) }, "without the zone the page does draw inside it (the check can fail)")
        #expect(open.contains("Home"))
        for specification in ["Home", "Home:400"] {
            let page = try MapPrivacyTests.page { try PrivacyZones.resolve([specification], in: $0) }
            let radius = specification == "Home" ? PrivacyZones.defaultRadiusM : 400
            let drawn = try MapPrivacyTests.drawnPositions(page)
            #expect(drawn.count >= 8, "\(drawn.count) positions drawn")
            #expect(drawn.filter { inside($0, radius) }.isEmpty, "\(specification): \(drawn.filter { inside($0, radius) }.prefix(3))")
            #expect(PrivacyZoneTests.numberPairs(page).filter { inside($0, radius) }.isEmpty)
            #expect(!page.contains("Home"), "\(specification): the hidden place is named")
        }
    }

    /// The page rounds positions to its grid (here, with Berlin and Munich in view, tens of metres): a fix kept
    /// just outside a zone must not be drawn inside it. Zones whose edge passes just inside a fix of trip 1 or 2,
    /// and a visit centre: whatever the rounding does, nothing drawn lies inside.
    @Test(arguments: [(52.522, 13.408), (52.523, 13.4095), (52.522, 13.407), (52.5201, 13.4049)])
    func roundingOnThePageNeverLandsInsideTheZone(fix: (Double, Double)) throws {
        let home = (lat: 52.52, lon: 13.405)
        // Centred away from the fix, so that the fix lies 0.5 m outside the zone with its margin.
        let centre = fix.0 == 52.5201 ? (52.5201 - 0.004, 13.4049) : (home.lat, home.lon)
        let radius = Geo.distance(fix.0, fix.1, centre.0, centre.1) - PrivacyZones.margin - 0.5
        let zones = PrivacyZones([PrivacyZone(label: "edge", lat: centre.0, lon: centre.1, radiusM: radius)])
        let page = try MapPrivacyTests.page { _ in zones }
        let drawn = try MapPrivacyTests.drawnPositions(page)
        let inside = drawn.filter { Geo.distance($0.0, $0.1, centre.0, centre.1) < radius }
        #expect(inside.isEmpty, "radius \(radius) m: \(inside.map { Geo.distance($0.0, $0.1, centre.0, centre.1) })")
    }
}
