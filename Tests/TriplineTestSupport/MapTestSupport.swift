import Foundation
import Testing
import TriplineCore
@testable import TriplineStore
import TriplineExport
import TriplineSimulator


/// Fixtures and page-inspection helpers for the map tests.
package enum MapFixture {
    /// A fresh database with `days` of synthetic travel (hostile names, a far-off visit, flagged spikes).
    package static func synthetic(days: Int = 3, seed: UInt64 = 11, device: String = "sim-phone") throws -> Store {
        let store = try Store(path: try temporaryDirectory() + "/map.sqlite")
        var parameters = SyntheticTravel.Parameters()
        parameters.days = days
        parameters.seed = seed
        parameters.device = device
        _ = try SyntheticTravel.generate(into: store, parameters)
        return store
    }

    /// Inserts a trip with legs along a polyline of points, one point per second, returning the trip id.
    /// `legs` are (mode, number of points); the points run from `start` in steps of `step` degrees.
    @discardableResult
    package static func trip(
        _ store: Store, device: Int64, startMs: Int64, offsetS: Int = 0, start: (Double, Double), step: (Double, Double),
        legs: [(String, Int)], insertPoints: Bool = true
    ) throws -> Int64 {
        let total = legs.reduce(0) { $0 + $1.1 }
        var points: [Point] = []
        for i in 0..<total {
            points.append(
                Point(deviceID: device, timeMs: startMs + Int64(i) * 1000, utcOffsetS: Int32(offsetS),
                      lat: start.0 + Double(i) * step.0, lon: start.1 + Double(i) * step.1))
        }
        if insertPoints { try store.insertPoints(points) }
        let endMs = startMs + Int64(total - 1) * 1000
        let end = (start.0 + Double(total - 1) * step.0, start.1 + Double(total - 1) * step.1)
        try store.db.run(
            """
            INSERT INTO trips(device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
              mode, legs, start_lat, start_lon, end_lat, end_lon, points)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """,
            [.integer(device), .integer(startMs), .integer(endMs), .integer(Int64(offsetS)), .integer(Int64(offsetS)),
             .real(Double(total - 1)), .real(Double(total - 1)), .real(Geo.distance(start.0, start.1, end.0, end.1)),
             .text(legs[0].0), .integer(Int64(legs.count)), .real(start.0), .real(start.1), .real(end.0), .real(end.1), .integer(Int64(total))])
        let id = store.db.lastInsertRowID
        var first = 0
        for (index, leg) in legs.enumerated() {
            let legStart = startMs + Int64(first) * 1000
            let legEnd = startMs + Int64(first + leg.1 - 1) * 1000
            try store.db.run(
                "INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points) VALUES (?,?,?,?,'test',?,?,100,?,?)",
                [.integer(id), .integer(Int64(index)), .integer(device), .text(leg.0), .integer(legStart), .integer(legEnd),
                 .real(Double(leg.1)), .integer(Int64(leg.1))])
            first += leg.1
        }
        return id
    }

    /// Inserts a one-leg trip through the given fixes, `stepS` seconds apart (a flight: a few fixes thousands of
    /// kilometres apart), or, with `insertPoints: false`, only its start and end (drawn as the dashed connector).
    @discardableResult
    package static func trip(
        _ store: Store, device: Int64, startMs: Int64, offsetS: Int = 0, fixes: [(Double, Double)], stepS: Int, mode: String,
        insertPoints: Bool = true
    ) throws -> Int64 {
        let points = fixes.enumerated().map { k, f in
            Point(deviceID: device, timeMs: startMs + Int64(k * stepS) * 1000, utcOffsetS: Int32(offsetS), lat: f.0, lon: f.1)
        }
        if insertPoints { try store.insertPoints(points) }
        let endMs = points[points.count - 1].timeMs
        var distance = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) { distance += Geo.distance(a.0, a.1, b.0, b.1) }
        let start = fixes[0], end = fixes[fixes.count - 1]
        let duration = Double(endMs - startMs) / 1000
        try store.db.run(
            """
            INSERT INTO trips(device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
              mode, legs, start_lat, start_lon, end_lat, end_lon, points)
            VALUES (?,?,?,?,?,?,?,?,?,1,?,?,?,?,?)
            """,
            [.integer(device), .integer(startMs), .integer(endMs), .integer(Int64(offsetS)), .integer(Int64(offsetS)),
             .real(duration), .real(duration), .real(distance), .text(mode), .real(start.0), .real(start.1), .real(end.0), .real(end.1),
             .integer(Int64(insertPoints ? fixes.count : 0))])
        let id = store.db.lastInsertRowID
        try store.db.run(
            "INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points) VALUES (?,0,?,?,'test',?,?,?,?,?)",
            [.integer(id), .integer(device), .text(mode), .integer(startMs), .integer(endMs), .real(distance), .real(duration),
             .integer(Int64(insertPoints ? fixes.count : 0))])
        return id
    }

    /// Inserts a place and one visit to it.
    @discardableResult
    package static func visit(_ store: Store, device: Int64, name: String, at: (Double, Double), startMs: Int64, minutes: Int, offsetS: Int = 0) throws -> Int64 {
        try store.db.run(
            "INSERT INTO places(device_id, name, lat, lon, radius_m, visits, total_dwell_s) VALUES (?,?,?,?,30,1,?)",
            [.integer(device), .text(name), .real(at.0), .real(at.1), .integer(Int64(minutes * 60))])
        let place = store.db.lastInsertRowID
        try store.db.run(
            """
            INSERT INTO visits(device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points)
            VALUES (?,?,?,?,?,?,?,?,30,5)
            """,
            [.integer(device), .integer(place), .integer(startMs), .integer(startMs + Int64(minutes) * 60_000), .integer(Int64(offsetS)),
             .integer(Int64(offsetS)), .real(at.0), .real(at.1)])
        return store.db.lastInsertRowID
    }

    package static func device(_ store: Store, _ name: String = "phone") throws -> Int64 {
        try store.deviceID(named: name, source: "test", origin: .other("test"))
    }
}

/// A rendered page, with ways to look inside it.
package struct PageInspector {
    package let html: String

    package init(_ document: MapDocument) {
        html = String(decoding: document.bytes, as: UTF8.self)
    }

    package init(bytes: [UInt8]) {
        html = String(decoding: bytes, as: UTF8.self)
    }

    /// Every `<svg …>…</svg>` element (they do not nest in the page).
    package var svgs: [String] {
        var result: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<svg"), let close = rest.range(of: "</svg>", range: open.upperBound..<rest.endIndex) {
            result.append(String(rest[open.lowerBound..<close.upperBound]))
            rest = rest[close.upperBound...]
        }
        return result
    }

    /// The text of `<script type="application/json" id="data">`.
    package var dataJSON: String? {
        guard let start = html.range(of: "<script type=\"application/json\" id=\"data\">"),
            let end = html.range(of: "</script>", range: start.upperBound..<html.endIndex)
        else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    package var data: [String: Any]? {
        guard let json = dataJSON else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    }

    /// The inline script's text.
    package var script: String? {
        guard let start = html.range(of: "<script>"), let end = html.range(of: "</script>", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    package func count(_ needle: String) -> Int {
        html.components(separatedBy: needle).count - 1
    }

    /// Distinct values of an attribute such as `data-t`.
    package func values(of attribute: String) -> Set<String> {
        var result = Set<String>()
        var rest = html[...]
        while let r = rest.range(of: " \(attribute)=\"") {
            let after = rest[r.upperBound...]
            guard let q = after.firstIndex(of: "\"") else { break }
            result.insert(String(after[..<q]))
            rest = after[q...]
        }
        return result
    }
}

/// A small XML well-formedness checker: balanced, properly nested tags; quoted, unique attributes; only the five
/// XML entities and numeric references; no `<` or stray `&` in text; no characters XML 1.0 forbids.
package enum XMLCheck {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package static func check(_ text: String) throws {
        let s = Array(text.unicodeScalars)
        var i = 0
        var stack: [String] = []
        func fail(_ message: String) -> Failure {
            let context = String(String.UnicodeScalarView(s[max(0, i - 40)..<min(s.count, i + 40)]))
            return Failure(description: "\(message) at \(i): …\(context)…")
        }
        func isNameChar(_ c: Unicode.Scalar) -> Bool {
            c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "_" || c == ":" || c == "."
        }
        func checkEntity() throws {
            // s[i] == "&"
            guard let semi = s[i...].prefix(12).firstIndex(of: ";") else { throw fail("bare &") }
            let name = String(String.UnicodeScalarView(s[(i + 1)..<semi]))
            let ok = ["amp", "lt", "gt", "quot", "apos"].contains(name)
                || (name.hasPrefix("#x") && Int(name.dropFirst(2), radix: 16) != nil)
                || (name.hasPrefix("#") && Int(name.dropFirst()) != nil)
            if !ok { throw fail("unknown entity &\(name);") }
            i = semi + 1
        }
        func checkChar(_ c: Unicode.Scalar) throws {
            let v = c.value
            if v < 0x20 && v != 0x9 && v != 0xA && v != 0xD { throw fail("control character U+\(String(v, radix: 16))") }
            if v == 0xFFFE || v == 0xFFFF { throw fail("non-character") }
        }
        while i < s.count {
            let c = s[i]
            if c == "<" {
                if i + 1 < s.count && s[i + 1] == "/" {
                    i += 2
                    var name = ""
                    while i < s.count && isNameChar(s[i]) { name.unicodeScalars.append(s[i]); i += 1 }
                    while i < s.count && s[i] == " " { i += 1 }
                    guard i < s.count, s[i] == ">" else { throw fail("bad end tag") }
                    guard stack.popLast() == name else { throw fail("mismatched </\(name)>") }
                    i += 1
                    continue
                }
                if i + 3 < s.count && s[i + 1] == "!" { throw fail("comment or declaration inside SVG") }
                i += 1
                var name = ""
                while i < s.count && isNameChar(s[i]) { name.unicodeScalars.append(s[i]); i += 1 }
                if name.isEmpty { throw fail("< without a tag name") }
                var attributes = Set<String>()
                while true {
                    while i < s.count && (s[i] == " " || s[i] == "\n" || s[i] == "\t") { i += 1 }
                    guard i < s.count else { throw fail("unterminated tag") }
                    if s[i] == ">" { stack.append(name); i += 1; break }
                    if s[i] == "/" {
                        guard i + 1 < s.count, s[i + 1] == ">" else { throw fail("bad />") }
                        i += 2
                        break
                    }
                    var attribute = ""
                    while i < s.count && isNameChar(s[i]) { attribute.unicodeScalars.append(s[i]); i += 1 }
                    if attribute.isEmpty { throw fail("bad attribute name") }
                    if !attributes.insert(attribute).inserted { throw fail("duplicate attribute \(attribute)") }
                    guard i + 1 < s.count, s[i] == "=", s[i + 1] == "\"" || s[i + 1] == "'" else { throw fail("unquoted attribute \(attribute)") }
                    let quote = s[i + 1]
                    i += 2
                    while i < s.count && s[i] != quote {
                        if s[i] == "<" { throw fail("< in attribute") }
                        if s[i] == "&" { try checkEntity(); continue }
                        try checkChar(s[i])
                        i += 1
                    }
                    guard i < s.count else { throw fail("unterminated attribute") }
                    i += 1
                }
                continue
            }
            if c == "&" {
                try checkEntity()
                continue
            }
            if c == ">" && stack.isEmpty { throw fail("text outside the root") }
            try checkChar(c)
            i += 1
        }
        if !stack.isEmpty { throw Failure(description: "unclosed elements: \(stack)") }
    }

    /// Runs `xmllint --noout` on the text when xmllint is installed; returns nil when it is not.
    package static func xmllint(_ text: String) throws -> Bool? {
        let tool = "/usr/bin/xmllint"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let path = try temporaryDirectory() + "/part.svg"
        try FileSystem.write(text, to: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["--noout", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// The lines the map draws, read back out of the page's `<svg id="map">`: every `<path>` (base layer, trips), its
/// subpaths and their segments (a ring's closing `z` included), in grid units, with what the page says a turn of
/// longitude is (`view` in the data block: opening px per world unit × grid units per px).
package struct DrawnLines {
    package struct Segment: CustomStringConvertible {
        package var kind: String
        package var a: (x: Double, y: Double)
        package var b: (x: Double, y: Double)
        package var description: String { "\(kind) (\(a.x), \(a.y)) → (\(b.x), \(b.y))" }
    }

    /// One turn of longitude (the whole world's width) in grid units.
    package var worldWidth: Double
    /// The view's world x and y of the grid's origin and grid units per world unit (to turn grid back into degrees).
    package var x0: Double, y0: Double, unit: Double
    /// Every subpath, by its path's first class (`land`, `coast`, `border`, `lake`, `trip`).
    package var subpaths: [(kind: String, points: [(x: Double, y: Double)], closed: Bool)] = []

    package init?(_ page: PageInspector) {
        guard let view = page.data?["view"] as? [Double], view.count >= 4,
            let start = page.html.range(of: "<svg id=\"map\""),
            let end = page.html.range(of: "</svg>", range: start.upperBound..<page.html.endIndex)
        else { return nil }
        x0 = view[0]
        y0 = view[1]
        unit = view[2] * view[3]
        worldWidth = unit
        var rest = page.html[start.lowerBound..<end.lowerBound]
        while let open = rest.range(of: "<path class=\"") {
            let afterClass = rest[open.upperBound...]
            guard let q = afterClass.firstIndex(of: "\""), let d = afterClass.range(of: " d=\"") else { break }
            let kind = String(afterClass[..<q].split(separator: " ").first ?? "")
            let body = afterClass[d.upperBound...]
            guard let close = body.firstIndex(of: "\"") else { break }
            for sub in body[..<close].split(separator: "M") {
                let points = PageInspector.absolutePoints("M" + sub)
                if !points.isEmpty { subpaths.append((kind, points, sub.hasSuffix("z"))) }
            }
            rest = body[close...]
        }
    }

    /// Every segment drawn.
    package var segments: [Segment] {
        var result: [Segment] = []
        for sub in subpaths {
            for (a, b) in zip(sub.points, sub.points.dropFirst()) { result.append(Segment(kind: sub.kind, a: a, b: b)) }
            if sub.closed, let first = sub.points.first, let last = sub.points.last {
                result.append(Segment(kind: sub.kind, a: last, b: first))
            }
        }
        return result
    }

    /// The segments wider than half the world: drawn across the map instead of the short way (a seam).
    package var acrossHalfTheWorld: [Segment] {
        segments.filter { abs($0.b.x - $0.a.x) > worldWidth / 2 }
    }

    /// The latitude of a grid y.
    package func latitude(gy: Double) -> Double { WebMercator.latitude(y: gy / unit + y0) }
}

extension PageInspector {
    /// The absolute vertices of one subpath `M x y l dx dy …` as the map writes it.
    package static func absolutePoints(_ d: Substring) -> [(x: Double, y: Double)] {
        var numbers: [Double] = []
        var current = ""
        for c in d {
            if c.isNumber || c == "." || (c == "-" && current.isEmpty) {
                current.append(c)
            } else {
                if let n = Double(current) { numbers.append(n) }
                current = c == "-" ? "-" : ""
            }
        }
        if let n = Double(current) { numbers.append(n) }
        guard numbers.count >= 2 else { return [] }
        var result = [(x: numbers[0], y: numbers[1])]
        var i = 2
        while i + 1 < numbers.count {
            result.append((result[result.count - 1].x + numbers[i], result[result.count - 1].y + numbers[i + 1]))
            i += 2
        }
        return result
    }
}
