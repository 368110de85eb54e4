import Foundation
import Testing

@testable import TriplineCore
@testable import TriplineExport
import TriplineTestSupport

@Suite struct MapPartsTests {
    @Test func webMercatorKnownValues() {
        #expect(WebMercator.x(longitude: 0) == 0.5)
        #expect(WebMercator.x(longitude: -180) == 0)
        #expect(abs(WebMercator.y(latitude: 0) - 0.5) < 1e-15)
        #expect(abs(WebMercator.y(latitude: WebMercator.maxLatitude)) < 1e-9)
        #expect(abs(WebMercator.y(latitude: -WebMercator.maxLatitude) - 1) < 1e-9)
        #expect(WebMercator.y(latitude: 89.9) == WebMercator.y(latitude: WebMercator.maxLatitude), "clamped at the poles")
        for lat in [-60.0, -12.5, 0, 33.3, 48.137, 71] {
            #expect(abs(WebMercator.latitude(y: WebMercator.y(latitude: lat)) - lat) < 1e-9)
        }
        // North is up: a higher latitude has a smaller y.
        #expect(WebMercator.y(latitude: 49) < WebMercator.y(latitude: 48))
        // One world unit is the equator's length at 0°, half of it at 60°.
        #expect(abs(WebMercator.metresPerWorldUnit(atLatitude: 60) * 2 - WebMercator.metresPerWorldUnit(atLatitude: 0)) < 1e-6)
    }

    @Test func douglasPeuckerKeepsTheShapeWithinTolerance() {
        var rng = SplitMix64(seed: 3)
        var xs: [Double] = []
        var ys: [Double] = []
        for i in 0..<2_000 {
            xs.append(Double(i))
            ys.append(sin(Double(i) / 80) * 40 + rng.uniform(-0.5, 0.5))
        }
        let tolerance = 1.5
        let kept = Simplify.douglasPeucker(xs: xs, ys: ys, tolerance: tolerance)
        #expect(kept.first == 0 && kept.last == xs.count - 1)
        #expect(kept.count < 200 && kept.count > 10)
        #expect(kept == kept.sorted())
        // Every dropped point lies within the tolerance of the segment that replaced it.
        for (a, b) in zip(kept, kept.dropFirst()) {
            for i in (a + 1)..<b {
                let d = Simplify.squaredSegmentDistance(xs[i], ys[i], xs[a], ys[a], xs[b], ys[b]).squareRoot()
                #expect(d <= tolerance + 1e-9)
            }
        }
        // A straight line collapses to its ends; a closed loop keeps its far side.
        #expect(Simplify.douglasPeucker(xs: [0, 1, 2, 3], ys: [0, 1, 2, 3], tolerance: 0.1) == [0, 3])
        #expect(Simplify.douglasPeucker(xs: [0, 10, 0], ys: [0, 0, 0], tolerance: 1) == [0, 1, 2])
        #expect(Simplify.douglasPeucker(xs: [5], ys: [5], tolerance: 1) == [0])
    }

    @Test func radialFilterDropsNearNeighbours() {
        let xs = [0.0, 0.1, 0.2, 1.5, 1.6, 3.0, 3.05]
        let ys = [Double](repeating: 0, count: xs.count)
        #expect(Simplify.radial(xs: xs, ys: ys, tolerance: 1) == [0, 3, 5, 6])
    }

    @Test func escapingForEachContext() {
        let hostile = "<script>alert(1)</script> & \"q\" 'a'"
        #expect(Markup.text(hostile) == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" 'a'")
        #expect(Markup.attribute(hostile) == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39;")
        #expect(JSONText.quotedForScript(hostile) == "\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e \\u0026 \\\"q\\\" 'a'\"")
        #expect(JSONText.quotedForScript("a\u{2028}b\u{2029}c\\\n\u{1}") == "\"a\\u2028b\\u2029c\\\\\\n\\ufffd\"")
        #expect(Markup.text("bell\u{7}\u{FFFF}tab\t") == "bell\u{FFFD}\u{FFFD}tab\t")
        #expect(Markup.text("両親の家 🚲") == "両親の家 🚲")
    }

    @Test func numberFormattingIsFixedAndLocaleFree() {
        #expect(NumberText.fixed(1.25, decimals: 1) == "1.3")
        #expect(NumberText.fixed(-0.04, decimals: 1) == "0.0")
        #expect(NumberText.fixed(-2.5, decimals: 0) == "-3")
        #expect(NumberText.fixed(0.000123, decimals: 4) == "0.0001")
        #expect(NumberText.distance(950) == "950 m")
        #expect(NumberText.distance(12_345) == "12.3 km")
        #expect(NumberText.distance(1_234_567) == "1\u{202F}235 km")
        #expect(NumberText.duration(59) == "59 s")
        #expect(NumberText.duration(3_600 * 3 + 300) == "3 h 05 min")
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.base64(SHA256.digest(Array("abc".utf8))) == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        #expect(SHA256.base64(SHA256.digest([])) == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        let long = Array(String(repeating: "a", count: 1000).utf8)
        #expect(SHA256.base64(SHA256.digest(long)) == "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=")  // Python hashlib
        #expect(SHA256.base64([0xFF]) == "/w==")
    }

    @Test func fitUsesQuantilesNotExtremes() {
        var xs = (0..<1_000).map { 0.5 + Double($0) * 1e-6 }
        var ys = (0..<1_000).map { 0.3 + Double($0 % 100) * 1e-6 }
        xs.append(0.9)  // one far-off point
        ys.append(0.9)
        let parameters = MapParameters()
        let view = MapView.fit(xs: &xs, ys: &ys, parameters: parameters)
        let far = view.gx(0.9) / Double(parameters.detail)
        #expect(far > Double(parameters.width) * 10, "the far point is far outside the view")
        let near = view.gx(0.5 + 500e-6) / Double(parameters.detail)
        #expect(abs(near - Double(parameters.width) / 2) < 20, "the bulk is centred")
    }
}

/// The honest motorised class (`vehicle`, issue 22 item 6) has a colour of its own on every map, like the other modes
/// the rebuild names: not a spare colour that changes with the order modes first appear in.
@Suite struct ModePaletteTests {
    @Test func vehicleHasAFixedColourOfItsOwn() {
        let modes = ["vehicle", "walk", "cycle", "car", "bus", "train", "plane", "boat", "unknown"]
        let colours = ModePalette.colours(for: modes)
        #expect(Set(colours).count == modes.count)
        #expect(!ModePalette.spare.contains(colours[0]))
        #expect(ModePalette.colours(for: ["hovercraft", "vehicle"])[1] == colours[0])
    }
}
