import Foundation
import Testing

@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
@testable import TriplineSimulator
import TriplineTestSupport

@Suite struct MapPageTests {
    @Test func svgPartsAreWellFormedXML() throws {
        let store = try MapFixture.synthetic(days: 3)
        let page = PageInspector(try MapRenderer(store: store).render())
        let svgs = page.svgs
        #expect(svgs.count >= 3, "map, north arrow and chart")
        #expect(svgs.first?.contains("id=\"map\"") == true)
        for svg in svgs {
            #expect(throws: Never.self) { try XMLCheck.check(svg) }
            if let ok = try XMLCheck.xmllint(svg) { #expect(ok, "xmllint rejects: \(svg.prefix(200))") }
        }
    }

    @Test func xmlCheckerCatchesBrokenMarkup() {
        for broken in ["<svg><g></svg>", "<svg a=\"1\" a=\"2\"/>", "<svg>a < b</svg>", "<svg>&nbsp;</svg>", "<svg x=1/>", "<svg>\u{1}</svg>"] {
            #expect(throws: XMLCheck.Failure.self, "\(broken)") { try XMLCheck.check(broken) }
        }
        #expect(throws: Never.self) { try XMLCheck.check("<svg><text x=\"1\">a &amp; b &#39;</text><g/></svg>") }
    }

    @Test func pageRefersToNothingOutsideItself() throws {
        let store = try MapFixture.synthetic(days: 3)
        try store.db.run("UPDATE places SET name = 'https://evil.example/x.js' WHERE id = (SELECT min(id) FROM places WHERE name = 'Gym')")
        let page = PageInspector(try MapRenderer(store: store).render())
        let lower = page.html.lowercased()
        // The hostile URL is data shown as text; apart from it nothing may name a scheme or load anything.
        let withoutData = lower.replacingOccurrences(of: "https://evil.example/x.js", with: "")
        for needle in ["http:", "https:", "ftp:", "url(", "@import", " src=", " href=", "<link", "<img", "<iframe", "<object", "<embed", "xlink:", "srcset", "//"] {
            #expect(!withoutData.contains(needle), "found \(needle)")
        }
        // And the page forbids the browser any request of its own.
        #expect(page.html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"))
    }

    @Test func contentSecurityPolicyHashMatchesTheScript() throws {
        let store = try MapFixture.synthetic(days: 2)
        let page = PageInspector(try MapRenderer(store: store).render())
        let script = try #require(page.script)
        let hash = SHA256.base64(SHA256.digest(Array(script.utf8)))
        #expect(page.html.contains("script-src 'sha256-\(hash)'"))
        #expect(page.count("<script") == 2, "the data block and the one script, nothing else")
    }

    @Test func hostileNamesAreEscapedInEveryContext() throws {
        let store = try MapFixture.synthetic(days: 7)
        let device = try #require(try store.db.scalarInt("SELECT id FROM devices"))
        let hostileDevice = "dev<img onerror=alert(3)>\"'&"
        try store.db.run("UPDATE devices SET name = ? WHERE id = ?", [.text(hostileDevice), .integer(device)])
        try store.db.run("UPDATE legs SET mode = '<b>walk</b>' WHERE mode = 'walk'")
        let page = PageInspector(try MapRenderer(store: store).render(filter: RecordFilter(device: hostileDevice)))
        let html = page.html
        // Never as markup.
        for raw in ["<script>alert(1)</script>", "<script>alert(2)", "</title><!--", "<img onerror", "<b>walk</b>", "\u{1}", "\u{7F}"] {
            #expect(!html.contains(raw), "raw \(raw.debugDescription) in the page")
        }
        #expect(!html.contains("<!--"))
        // As text in HTML and SVG: the label and the top-places list.
        #expect(page.html.contains("<span class=\"pn\">Home wifi \"&lt;script&gt;alert(1)&lt;/script&gt;\"</span>"))
        #expect(page.html.contains("em\">Home wifi \"&lt;script&gt;alert(1)&lt;/sc…</text>"))
        #expect(html.contains("&lt;b&gt;walk&lt;/b&gt;"))
        #expect(html.contains("device dev&lt;img onerror=alert(3)&gt;\"'&amp;"))
        // In the JSON block: escaped so that it cannot close the script, and the same text once parsed.
        let json = try #require(page.dataJSON)
        #expect(!json.contains("<") && !json.contains(">") && !json.contains("\u{2028}"))
        #expect(json.contains("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"))
        let data = try #require(page.data)
        let places = try #require(data["places"] as? [String])
        #expect(places.contains("Home wifi \"<script>alert(1)</script>\""))
        #expect(places.contains("Park</script><script>alert(2)</script>\u{2028}"))
        #expect(places.contains("Parents' house \u{FFFD}\u{FFFD} — 両親の家"))
        let modes = try #require(data["modes"] as? [String])
        #expect(modes.contains("<b>walk</b>"))
        // And the SVG still parses with those names in it.
        for svg in page.svgs { #expect(throws: Never.self) { try XMLCheck.check(svg) } }
    }

    @Test func drawsEveryTripAndVisitOfTheSelection() throws {
        let store = try MapFixture.synthetic(days: 7)
        let whole = try MapRenderer(store: store).render()
        let trips = try #require(try store.db.scalarInt("SELECT count(*) FROM trips"))
        let visits = try #require(try store.db.scalarInt("SELECT count(*) FROM visits"))
        #expect(trips > 20 && visits > 20)
        let page = PageInspector(whole)
        #expect(page.values(of: "data-t").count == Int(trips))
        #expect(page.values(of: "data-v").count == Int(visits))
        #expect(whole.tripsDrawn == Int(trips) && whole.visitsDrawn == Int(visits))
        #expect(page.html.contains("<dt>Trips</dt><dd>\(trips)</dd>"))

        // Two local days in the middle: what starts on those local days (UTC+1), no more, no less.
        let first = SyntheticTravel.Parameters().firstDay
        let filter = RecordFilter(fromDay: first + 2, toDay: first + 3)
        let part = try MapRenderer(store: store).render(filter: filter)
        let localDay = "((start_ms / 1000 + start_utc_offset_s) / 86400)"
        let partTrips = try #require(try store.db.scalarInt("SELECT count(*) FROM trips WHERE \(localDay) BETWEEN ? AND ?", [.integer(Int64(first + 2)), .integer(Int64(first + 3))]))
        let partVisits = try #require(try store.db.scalarInt("SELECT count(*) FROM visits WHERE \(localDay) BETWEEN ? AND ?", [.integer(Int64(first + 2)), .integer(Int64(first + 3))]))
        #expect(partTrips > 0 && partTrips < trips)
        let partPage = PageInspector(part)
        #expect(partPage.values(of: "data-t").count == Int(partTrips))
        #expect(partPage.values(of: "data-v").count == Int(partVisits))
        #expect(part.tripsSelected == Int(partTrips))
    }

    @Test func deviceFilterShowsOnlyThatDevice() throws {
        let store = try MapFixture.synthetic(days: 2, device: "a")
        var parameters = SyntheticTravel.Parameters()
        parameters.days = 3
        parameters.device = "b"
        parameters.seed = 99
        _ = try SyntheticTravel.generate(into: store, parameters)
        let b = try #require(try store.db.scalarInt("SELECT id FROM devices WHERE name = 'b'"))
        let document = try MapRenderer(store: store).render(filter: RecordFilter(device: "b"))
        #expect(document.tripsDrawn == Int(try store.db.scalarInt("SELECT count(*) FROM trips WHERE device_id = ?", [.integer(b)])!))
        #expect(document.visitsDrawn == Int(try store.db.scalarInt("SELECT count(*) FROM visits WHERE device_id = ?", [.integer(b)])!))
        #expect(PageInspector(document).html.contains("device b</p>"))
        let all = try MapRenderer(store: store).render()
        #expect(all.tripsDrawn == Int(try store.db.scalarInt("SELECT count(*) FROM trips")!))
        #expect(throws: StoreError.self) { try MapRenderer(store: store).render(filter: RecordFilter(device: "nobody")) }
    }

    @Test func sameDatabaseGivesTheSameBytes() throws {
        let one = try MapFixture.synthetic(days: 4, seed: 5)
        let two = try MapFixture.synthetic(days: 4, seed: 5)
        let a = try MapRenderer(store: one).render().bytes
        let b = try MapRenderer(store: one).render().bytes
        let c = try MapRenderer(store: two).render().bytes
        #expect(a == b)
        #expect(a == c)
        let other = try MapRenderer(store: try MapFixture.synthetic(days: 4, seed: 6)).render().bytes
        #expect(a != other, "a different database gives a different page")
    }

    @Test func emptySelectionGivesAValidPageSayingSo() throws {
        let store = try Store(path: try temporaryDirectory() + "/empty.sqlite")
        for filter in [RecordFilter(), RecordFilter(fromDay: 19_000, toDay: 19_001)] {
            let document = try MapRenderer(store: store).render(filter: filter)
            let page = PageInspector(document)
            #expect(document.tripsDrawn == 0 && document.visitsDrawn == 0)
            #expect(page.html.contains("Nothing to show"))
            #expect(page.html.hasPrefix("<!DOCTYPE html>") && page.html.hasSuffix("</html>\n"))
            for svg in page.svgs { #expect(throws: Never.self) { try XMLCheck.check(svg) } }
            let data = try #require(page.data)
            #expect((data["t"] as? [Any])?.isEmpty == true)
        }
        // Data outside the chosen days is an empty selection too.
        let full = try MapFixture.synthetic(days: 2)
        let outside = try MapRenderer(store: full).render(filter: RecordFilter(fromDay: 10, toDay: 20))
        #expect(outside.tripsSelected == 0 && PageInspector(outside).html.contains("Nothing to show"))
    }

    @Test func viewIgnoresAFarOffVisit() throws {
        let store = try MapFixture.synthetic(days: 3)
        let document = try MapRenderer(store: store).render()
        let page = PageInspector(document)
        let data = try #require(page.data)
        let view = try #require(data["view"] as? [Double])
        let width = view[4] * view[3]
        let height = view[5] * view[3]
        // Visit circles: the far one (800 km away) lies outside the opening view, every other one inside.
        let circles = page.html.components(separatedBy: "<circle ").dropFirst().map { part -> (Double, Double) in
            func number(_ name: String) -> Double {
                let after = part.components(separatedBy: " \(name)=\"")[1]
                return Double(after.prefix { $0 != "\"" })!
            }
            return (number("cx"), number("cy"))
        }
        let inside = circles.filter { $0.0 >= 0 && $0.0 <= width && $0.1 >= 0 && $0.1 <= height }
        #expect(circles.count == document.visitsDrawn)
        #expect(inside.count == circles.count - 1, "all but the far-off visit are in view")
        // And the town fills the view: its visits span more than a third of the width.
        let xs = inside.map(\.0)
        #expect(xs.max()! - xs.min()! > width / 3)
    }

    @Test func flaggedPointsAreNotDrawn() throws {
        let store = try Store(path: try temporaryDirectory() + "/flags.sqlite")
        let device = try MapFixture.device(store)
        let start: Int64 = 1_709_280_000_000
        try MapFixture.trip(store, device: device, startMs: start, start: (48.1, 11.5), step: (0.0001, 0.0001), legs: [("walk", 60), ("bus", 60)])
        // A wild fix in the middle of the trip, 50 km north, flagged by the cleaning pass.
        try store.insertPoints([Point(deviceID: device, timeMs: start + 30_500, lat: 48.55, lon: 11.5)])
        func extent(_ document: MapDocument) throws -> Double {
            let page = PageInspector(document)
            let paths = page.html.components(separatedBy: "<path class=\"trip").dropFirst()
            var maxY = -Double.infinity
            var minY = Double.infinity
            for part in paths {
                let d = part.components(separatedBy: "d=\"")[1].prefix { $0 != "\"" }
                for (_, y) in Self.vertices(String(d)) {
                    maxY = max(maxY, y)
                    minY = min(minY, y)
                }
            }
            return maxY - minY
        }
        try store.db.run("INSERT INTO point_flags(device_id, time_ms, flags) VALUES (?, ?, 4)", [.integer(device), .integer(start + 30_500)])
        let clean = try MapRenderer(store: store).render()
        try store.db.run("UPDATE point_flags SET flags = 0")
        let unflagged = try MapRenderer(store: store).render()
        #expect(clean.tripsDrawn == 1 && unflagged.tripsDrawn == 1)
        // Without the flag the spike stretches the drawn path far beyond the trip's own 120 points.
        #expect(try extent(unflagged) > 3 * (try extent(clean)))
        #expect(clean.pointsRead == 120 && unflagged.pointsRead == 121)
    }

    @Test func legsAreDrawnInTheirModesAndTripsWithoutPointsAsStraightLines() throws {
        let store = try Store(path: try temporaryDirectory() + "/legs.sqlite")
        let device = try MapFixture.device(store)
        let start: Int64 = 1_709_280_000_000
        try MapFixture.trip(store, device: device, startMs: start, start: (48.1, 11.5), step: (0.0002, 0.0), legs: [("walk", 50), ("train", 200), ("walk", 50)])
        try MapFixture.trip(store, device: device, startMs: start + 3_600_000, start: (48.2, 11.6), step: (0.0, 0.0003), legs: [("car", 100)], insertPoints: false)
        let document = try MapRenderer(store: store).render()
        let page = PageInspector(document)
        #expect(document.tripsDrawn == 2)
        let data = try #require(page.data)
        let modes = try #require(data["modes"] as? [String])
        #expect(Set(modes) == ["walk", "train", "car"])
        let train = try #require(modes.firstIndex(of: "train"))
        let walk = try #require(modes.firstIndex(of: "walk"))
        // The first trip: three paths, walk, train, walk, joined end to start.
        let firstTrip = try #require(page.html.components(separatedBy: "<g data-t=\"0\">").dropFirst().first?.components(separatedBy: "</g>").first)
        let classes = firstTrip.components(separatedBy: "class=\"trip m").dropFirst().map { Int($0.prefix { $0.isNumber })! }
        #expect(classes == [walk, train, walk])
        // The second trip has no points: a dashed straight line from start to end, and said so in the legend.
        let secondTrip = try #require(page.html.components(separatedBy: "<g data-t=\"1\">").dropFirst().first?.components(separatedBy: "</g>").first)
        #expect(secondTrip.contains(" s\" d=\""))
        #expect(page.html.contains("no track: start to end"))
    }

    @Test func placeLabelsDoNotOverlap() throws {
        let store = try Store(path: try temporaryDirectory() + "/labels.sqlite")
        let device = try MapFixture.device(store)
        // Twenty places packed in a small grid with long names: some labels must give way.
        for i in 0..<20 {
            try MapFixture.visit(
                store, device: device, name: "Place number \(i) with a long name", at: (48.1 + Double(i % 5) * 0.001, 11.5 + Double(i / 5) * 0.001),
                startMs: 1_709_280_000_000 + Int64(i) * 7_200_000, minutes: 30 + i)
        }
        let parameters = MapParameters()
        let document = try MapRenderer(store: store, parameters: parameters).render()
        #expect(document.labels > 2 && document.labels < 20)
        let page = PageInspector(document)
        let labels = try #require(page.html.components(separatedBy: "<g id=\"labels\"").dropFirst().first?.components(separatedBy: "</g>").first)
        let placer = LabelPlacer(width: Double(parameters.width), height: Double(parameters.height), fontPx: parameters.labelFontPx)
        var boxes: [LabelPlacer.Box] = []
        for part in labels.components(separatedBy: "<text ").dropFirst() {
            func attribute(_ name: String) -> String? {
                let pieces = part.components(separatedBy: "\(name)=\"")
                return pieces.count > 1 ? String(pieces[1].prefix { $0 != "\"" }) : nil
            }
            let dx = Double(attribute("dx")!.dropLast(2))! * parameters.labelFontPx
            let dy = Double(attribute("dy")!.dropLast(2))! * parameters.labelFontPx
            let x = Double(attribute("x")!)! / Double(parameters.detail) + dx
            let y = Double(attribute("y")!)! / Double(parameters.detail) + dy
            let text = String(part.components(separatedBy: ">")[1].prefix { $0 != "<" })
            let w = placer.textWidth(text)
            let anchor = attribute("text-anchor") ?? "start"
            let left = anchor == "start" ? x : anchor == "end" ? x - w : x - w / 2
            boxes.append(LabelPlacer.Box(x0: left, y0: y - parameters.labelFontPx * 0.8, x1: left + w, y1: y + parameters.labelFontPx * 0.25))
        }
        #expect(boxes.count == document.labels)
        for i in boxes.indices {
            for j in boxes.indices where j > i {
                #expect(!boxes[i].overlaps(boxes[j]), "labels \(i) and \(j) overlap")
            }
        }
    }

    @Test func pageDataCarriesLocalTimesForTheTooltips() throws {
        let store = try MapFixture.synthetic(days: 2)
        let page = PageInspector(try MapRenderer(store: store).render())
        let data = try #require(page.data)
        let trips = try #require(data["t"] as? [[Any]])
        let statement = try store.db.prepare("SELECT start_ms, end_ms, start_utc_offset_s, distance_m, mode FROM trips ORDER BY start_ms, id")
        var index = 0
        while try statement.step() {
            let row = trips[index]
            #expect(row[1] as? Int == Int(statement.int64(0) / 1000) + statement.int(2), "local start = UTC + offset")
            #expect(row[2] as? Int == Int(statement.int64(1) / 1000) + statement.int(2))
            #expect(row[3] as? Int == 3600)
            #expect(row[4] as? Int == Int(statement.double(3).rounded()))
            let modes = try #require(data["modes"] as? [String])
            #expect(modes[row[7] as! Int] == statement.text(4))
            index += 1
        }
        #expect(index == trips.count && index > 0)
    }

    @Test func fitSampleStaysBoundedAndEven() throws {
        let store = try MapFixture.synthetic(days: 2)
        var parameters = MapParameters()
        parameters.fitSampleSize = 100
        let selection = try MapLoader(store: store, parameters: parameters).load(RecordFilter())
        let unflagged = try #require(try store.db.scalarInt(
            """
            SELECT count(*) FROM trips t JOIN points p ON p.device_id = t.device_id AND p.time_ms BETWEEN t.start_ms AND t.end_ms
            WHERE NOT EXISTS (SELECT 1 FROM point_flags f WHERE f.device_id = p.device_id AND f.time_ms = p.time_ms AND f.flags != 0)
            """))
        #expect(selection.pointsRead == Int(unflagged))
        #expect(selection.sample.count / 2 <= 100 && selection.sample.count / 2 >= 50, "between half the size and the size")
        #expect(selection.trips.reduce(0) { $0 + $1.pointCount } == Int(unflagged))
        // The small sample still fits the view to the town: the same view as with a big sample, within a few %.
        var big = MapParameters()
        big.fitSampleSize = 1_000_000
        let full = try MapLoader(store: store, parameters: big).load(RecordFilter())
        #expect(full.sample.count / 2 == Int(unflagged))
        func view(_ s: MapSelection, _ p: MapParameters) -> MapView {
            var xs = stride(from: 0, to: s.sample.count, by: 2).map { s.sample[$0] }
            var ys = stride(from: 1, to: s.sample.count, by: 2).map { s.sample[$0] }
            return MapView.fit(xs: &xs, ys: &ys, parameters: p)
        }
        let a = view(selection, parameters)
        let b = view(full, big)
        #expect(abs(a.scale / b.scale - 1) < 0.2)
    }

    @Test func scaleBarMatchesGroundDistances() throws {
        let store = try Store(path: try temporaryDirectory() + "/scale.sqlite")
        let device = try MapFixture.device(store)
        // Two visits 3 km apart along a parallel at 60° N, where Web Mercator stretches distances twice.
        let a = (60.0, 10.0)
        let b = Geo.destination(60.0, 10.0, bearing: 90, distance: 3_000)
        try MapFixture.visit(store, device: device, name: "A", at: a, startMs: 1_709_280_000_000, minutes: 60)
        try MapFixture.visit(store, device: device, name: "B", at: (b.lat, b.lon), startMs: 1_709_290_000_000, minutes: 60)
        let parameters = MapParameters()
        let page = PageInspector(try MapRenderer(store: store, parameters: parameters).render())
        let xs = page.html.components(separatedBy: " cx=\"").dropFirst().map { Double($0.prefix { $0 != "\"" })! }
        #expect(xs.count == 2)
        let pixels = abs(xs[0] - xs[1]) / Double(parameters.detail)
        let bar = try #require(page.html.components(separatedBy: "id=\"scalebar\" style=\"width:").dropFirst().first)
        let barPixels = try #require(Double(bar.prefix { $0 != "p" }))
        let label = try #require(page.html.components(separatedBy: "<span id=\"scalelabel\">").dropFirst().first?.prefix { $0 != "<" })
        let parts = label.split(separator: " ")
        let barMetres = try #require(Double(parts[0])) * (parts[1] == "km" ? 1000 : 1)
        let measured = pixels * barMetres / barPixels
        #expect(abs(measured - 3_000) < 3_000 * 0.01, "3 km on the map measures \(measured) m with the scale bar")
        #expect(barPixels > 40 && barPixels <= 120)
    }

    /// The absolute vertices of an SVG path `M x y l dx dy dx dy …` as the map writes it.
    static func vertices(_ d: String) -> [(Double, Double)] {
        var numbers: [Double] = []
        var current = ""
        for c in d {
            if c.isNumber || (c == "-" && current.isEmpty) || c == "." {
                current.append(c)
            } else {
                if let n = Double(current) { numbers.append(n) }
                current = c == "-" ? "-" : ""
            }
        }
        if let n = Double(current) { numbers.append(n) }
        guard numbers.count >= 2 else { return [] }
        var x = numbers[0]
        var y = numbers[1]
        var result = [(x, y)]
        var i = 2
        while i + 1 < numbers.count {
            x += numbers[i]
            y += numbers[i + 1]
            result.append((x, y))
            i += 2
        }
        return result
    }
}
