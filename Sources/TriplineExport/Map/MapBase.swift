import TriplineCore
import TriplineGeography

/// The offline base layer under the tracks: land, coastlines and borders from TriplineGeography (Natural Earth),
/// and the populated places the script labels by zoom (GeoNames).
///
/// Levels of detail, finest on top: level 0 covers 3 × the opening view at `.high` detail simplified to 1 opening
/// pixel; level 1 covers 31 × the view (≤ 40° across at `.high`, else `.low`) simplified to 10 px; level 2 covers
/// the whole data (3 × its extent, at least 301 × the view) at `.low` detail simplified to about a pixel at the
/// zoom that shows it all. Each level is clipped to its box, and a sea-coloured rectangle under each finer level
/// hides the coarser one inside the finer box, so each part of the map shows exactly the finest level drawn there —
/// at any zoom, without the script doing anything. Levels that add nothing (the data fits in the finer box) are
/// left out.
extension MapPage {
    /// One level's box in grid units.
    struct BaseLevel {
        var x0: Double, y0: Double, x1: Double, y1: Double
        var detail: BaseDetail
        var tolerance: Double
        var minimumPopulation: Int
    }

    /// The levels for this page's view and data box (grid units).
    func baseLevels(all: (x0: Double, y0: Double, x1: Double, y1: Double)) -> [BaseLevel] {
        let w = Double(parameters.width * parameters.detail)
        let h = Double(parameters.height * parameters.detail)
        let d = Double(parameters.detail)
        // The world in grid units: x over [west, west + 360], y over the Mercator square.
        let worldX0 = view.gx(view.worldX(view.west)), worldX1 = view.gx(view.worldX(view.west + 360))
        let worldY0 = view.gy(0), worldY1 = view.gy(1)
        func clamp(_ l: BaseLevel) -> BaseLevel {
            var l = l
            l.x0 = max(l.x0, worldX0)
            l.x1 = min(l.x1, worldX1)
            l.y0 = max(l.y0, worldY0)
            l.y1 = min(l.y1, worldY1)
            return l
        }
        func around(_ factor: Double) -> (Double, Double, Double, Double) {
            let m = (factor - 1) / 2
            return (-m * w, -m * h, w + m * w, h + m * h)
        }
        var levels: [BaseLevel] = []
        let b0 = around(3)
        levels.append(clamp(BaseLevel(x0: b0.0, y0: b0.1, x1: b0.2, y1: b0.3, detail: .high, tolerance: d, minimumPopulation: 1000)))
        let b1 = around(31)
        var l1 = clamp(BaseLevel(x0: b1.0, y0: b1.1, x1: b1.2, y1: b1.3, detail: .high, tolerance: 10 * d, minimumPopulation: 15_000))
        if (l1.x1 - l1.x0) / (worldX1 - worldX0) * 360 > 40 { l1.detail = .low }
        // All the data, three times its extent, and at least 301 views across.
        let cx = (all.x0 + all.x1) / 2, cy = (all.y0 + all.y1) / 2
        let span = max((all.x1 - all.x0) * 3, (all.y1 - all.y0) * 3 * w / h, 301 * w)
        var l2 = clamp(BaseLevel(
            x0: cx - span / 2, y0: cy - span * h / w / 2, x1: cx + span / 2, y1: cy + span * h / w / 2, detail: .low,
            tolerance: max(10 * d, span / 3 / w * d), minimumPopulation: 150_000))
        l2.tolerance = min(l2.tolerance, (worldX1 - worldX0) / w * d)  // never coarser than a pixel of the whole world
        func contains(_ a: BaseLevel, _ b: BaseLevel) -> Bool { a.x0 <= b.x0 && a.y0 <= b.y0 && a.x1 >= b.x1 && a.y1 >= b.y1 }
        if !contains(levels[0], l1) { levels.append(l1) }
        if !contains(levels[levels.count - 1], l2) { levels.append(l2) }
        return levels
    }

    /// A level's box as GeoBoxes in true longitudes (split where the drawn range passes ±180), each with the turns
    /// (0 or 360) its longitudes are moved by to be drawn. Every shape is clipped to one box and moved by that box's
    /// shift as a whole — never point by point, which would put a shape's points on the box's edge at `west` (the
    /// frame's seam) on the other side of the world from the rest of it.
    func geoBoxes(_ l: BaseLevel) -> [(box: GeoBox, shift: Double)] {
        let u = view.scale * Double(view.detail)
        func lon(_ gx: Double) -> Double { WebMercator.longitude(x: gx / u + view.x0) }
        func lat(_ gy: Double) -> Double { WebMercator.latitude(y: min(1, max(0, gy / u + view.y0))) }
        let a = max(view.west, lon(l.x0)), b = min(view.west + 360, lon(l.x1))
        let north = lat(l.y0), south = lat(l.y1)
        guard b > a, north > south else { return [] }
        // a ≥ west ≥ -180 and b ≤ west + 360 < 540: the range passes +180 at most once.
        var boxes: [(box: GeoBox, shift: Double)] = []
        if a < 180 { boxes.append((GeoBox(minLatitude: south, minLongitude: a, maxLatitude: north, maxLongitude: min(b, 180)), 0)) }
        if b > 180 { boxes.append((GeoBox(minLatitude: south, minLongitude: max(a, 180) - 360, maxLatitude: north, maxLongitude: b - 360), 360)) }
        return boxes
    }

    /// Writes the base layer group; returns the number of shapes written.
    mutating func writeBaseLayer(all: (x0: Double, y0: Double, x1: Double, y1: Double)) -> Int {
        guard parameters.baseLayer else { return 0 }
        let levels = baseLevels(all: all)
        var written = 0
        out.append("<g id=\"base\">\n")
        for (index, level) in levels.enumerated().reversed() {
            let boxes = geoBoxes(level)
            if index < levels.count - 1 {
                // Hide the coarser levels inside this one's box, inset by 1 % so the finer land overlaps the coarser
                // at the edge (no antialiased seam when zoomed out far enough to see the edge).
                let ix = (level.x1 - level.x0) * 0.01, iy = (level.y1 - level.y0) * 0.01
                out.append("<rect class=\"sea\" x=\"\(Int((level.x0 + ix).rounded()))\" y=\"\(Int((level.y0 + iy).rounded()))\" width=\"\(Int((level.x1 - level.x0 - 2 * ix).rounded()))\" height=\"\(Int((level.y1 - level.y0 - 2 * iy).rounded()))\"/>\n")
            }
            out.append("<g class=\"l\(index)\">")
            for (kind, cls) in [(BaseLayerKind.countries, "land"), (.lakes, "lake"), (.coastlines, "coast"), (.borders, "border")] {
                var shapes: [(shape: BaseShape, shift: Double)] = []
                for (box, shift) in boxes { shapes += Geography.baseLayer(kind, detail: level.detail, in: box).map { ($0, shift) } }
                var wroteAny = false
                for (shape, shift) in shapes {
                    // Natural Earth cuts shapes at ±180: a line's run along that cut is not a coast or a border.
                    let parts = kind == .countries || kind == .lakes ? shape.parts : shape.parts.flatMap(Self.withoutAntimeridianRuns)
                    for part in parts where part.count >= 2 {
                        let xs = part.map { view.gx(WebMercator.x(longitude: $0.longitude + shift)) }
                        let ys = part.map { view.gy(WebMercator.y(latitude: $0.latitude)) }
                        let closed = kind == .countries || kind == .lakes
                        if closed {
                            let spanX = (xs.max() ?? 0) - (xs.min() ?? 0), spanY = (ys.max() ?? 0) - (ys.min() ?? 0)
                            if max(spanX, spanY) < level.tolerance * 2 { continue }  // an islet under two pixels
                        }
                        let kept = Simplify.douglasPeucker(xs: xs, ys: ys, tolerance: level.tolerance)
                        if closed && kept.count < 4 { continue }
                        if !wroteAny {
                            out.append("<path class=\"\(cls)\" d=\"")
                            wroteAny = true
                        }
                        if let split = MapSeam.splittingLongEdges(xs, ys, kept, longerThan: view.periodGX / 4) {
                            appendRelative(split.xs, split.ys, Array(split.xs.indices), close: closed)
                        } else {
                            appendRelative(xs, ys, kept, close: closed)
                        }
                        written += 1
                    }
                }
                if wroteAny { out.append("\"/>") }
            }
            out.append("</g>\n")
        }
        out.append("</g>\n")
        return written
    }

    /// A line split where it runs along the antimeridian (both ends of a segment at ±180°).
    static func withoutAntimeridianRuns(_ line: [GeoPoint]) -> [[GeoPoint]] {
        var pieces: [[GeoPoint]] = []
        var current: [GeoPoint] = []
        for p in line {
            if let last = current.last, abs(last.longitude) >= 179.99999, abs(p.longitude) >= 179.99999 {
                if current.count >= 2 { pieces.append(current) }
                current = [p]
            } else {
                current.append(p)
            }
        }
        if current.count >= 2 { pieces.append(current) }
        return pieces
    }

    /// `M x y l dx dy … [z]` on the integer grid, for the base layer's rings and lines and the trips' legs: points
    /// that round to the grid point before them are left out, and a path that never leaves its first grid point is a
    /// dot (`l0 0`, drawn by round caps). Returns the vertices written.
    @discardableResult
    mutating func appendRelative(_ xs: [Double], _ ys: [Double], _ kept: [Int], close: Bool = false) -> Int {
        var lastX = Int(xs[kept[0]].rounded())
        var lastY = Int(ys[kept[0]].rounded())
        out.append("M")
        out.append(int: lastX)
        out.append(byte: UInt8(ascii: " "))
        out.append(int: lastY)
        out.append(byte: UInt8(ascii: "l"))
        var vertices = 1
        for k in kept.dropFirst() {
            let x = Int(xs[k].rounded()), y = Int(ys[k].rounded())
            if x == lastX && y == lastY { continue }
            if vertices > 1 && x - lastX >= 0 { out.append(byte: UInt8(ascii: " ")) }
            out.append(int: x - lastX)
            if y - lastY >= 0 { out.append(byte: UInt8(ascii: " ")) }
            out.append(int: y - lastY)
            lastX = x
            lastY = y
            vertices += 1
        }
        if vertices == 1 { out.append("0 0") }
        if close { out.append("z") }
        return vertices
    }

    /// Populated places for the script's city labels: for each level, the most populous places of at least its
    /// minimum population in its box (300 at most per level), by population; each once.
    func cityCandidates(all: (x0: Double, y0: Double, x1: Double, y1: Double)) -> [(name: String, x: Int, y: Int, population: Int)] {
        guard parameters.baseLayer else { return [] }
        var seen = Set<String>()
        var out: [(name: String, x: Int, y: Int, population: Int)] = []
        for level in baseLevels(all: all) {
            for (box, shift) in geoBoxes(level) {
                for place in Geography.populatedPlaces(in: box, minimumPopulation: level.minimumPopulation, limit: 300) {
                    let x = Int(view.gx(WebMercator.x(longitude: place.location.longitude + shift)).rounded())
                    let y = Int(view.gy(WebMercator.y(latitude: place.location.latitude)).rounded())
                    let key = place.name + "|\(x)|\(y)"
                    if seen.insert(key).inserted { out.append((place.name, x, y, place.population)) }
                }
            }
        }
        return out.sorted { ($1.population, $0.name, $0.x, $0.y) < ($0.population, $1.name, $1.x, $1.y) }
    }
}
