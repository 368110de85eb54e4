/// The embedded map base layer (format in docs/GEOGRAPHY.md): per level of detail, four layers of features with a
/// bounding box each, parts (rings or lines) and points in integer microdegrees.
struct BaseLayerTable: Sendable {
    let table: EmbeddedTable
    private let levels: Int
    private let layers: Int
    private let directoryOffset: Int
    private let featuresOffset: Int
    private let partsOffset: Int
    private let pointsOffset: Int

    static let featureSize = 24

    init(_ table: EmbeddedTable) {
        self.table = table
        let ok = table.magic("TLBL") && table.u32(4) == 1 && table.u32(12) == 4
        layers = 4
        directoryOffset = Int(table.u32(16))
        featuresOffset = Int(table.u32(20))
        partsOffset = Int(table.u32(24))
        pointsOffset = Int(table.u32(28))
        featureCount = max(0, (partsOffset - featuresOffset) / Self.featureSize)
        partCount = max(0, (pointsOffset - partsOffset) / 8)
        pointCount = max(0, (table.count - pointsOffset) / 8)
        // Every directory entry must name features inside the table: a damaged table is an empty one.
        var valid = ok && directoryOffset <= featuresOffset && featuresOffset <= partsOffset
            && partsOffset <= pointsOffset && pointsOffset <= table.count
        let n = ok ? Int(table.u32(8)) : 0
        if valid, directoryOffset + 16 * n * layers > featuresOffset { valid = false }
        if valid {
            for entry in 0..<(n * layers) {
                let at = directoryOffset + 16 * entry
                if Int(table.u32(at + 4)) + Int(table.u32(at + 8)) > featureCount { valid = false }
            }
        }
        levels = valid ? n : 0
    }

    private let featureCount: Int
    private let partCount: Int
    private let pointCount: Int

    func shapes(layer: Int, level: Int, box: GeoBox, countryCodes: [String]) -> [BaseShape] {
        guard level >= 0, level < levels, layer >= 0, layer < layers else { return [] }
        let entry = directoryOffset + 16 * (level * layers + layer)
        let polygon = table.u32(entry) == 0
        let first = Int(table.u32(entry + 4)), n = Int(table.u32(entry + 8))
        var boxes: [GeoBox] = []
        if box.minLongitude <= box.maxLongitude {
            boxes = [box]
        } else {  // crosses the antimeridian
            boxes = [
                GeoBox(minLatitude: box.minLatitude, minLongitude: box.minLongitude, maxLatitude: box.maxLatitude, maxLongitude: 180),
                GeoBox(minLatitude: box.minLatitude, minLongitude: -180, maxLatitude: box.maxLatitude, maxLongitude: box.maxLongitude),
            ]
        }
        var out: [BaseShape] = []
        for b in boxes {
            let bx0 = b.minLongitude * 1e6, by0 = b.minLatitude * 1e6, bx1 = b.maxLongitude * 1e6, by1 = b.maxLatitude * 1e6
            for f in first..<(first + n) {
                let at = featuresOffset + Self.featureSize * f
                let fx0 = Double(table.i32(at)), fy0 = Double(table.i32(at + 4))
                let fx1 = Double(table.i32(at + 8)), fy1 = Double(table.i32(at + 12))
                if fx1 < bx0 || fx0 > bx1 || fy1 < by0 || fy0 > by1 { continue }
                let inside = fx0 >= bx0 && fx1 <= bx1 && fy0 >= by0 && fy1 <= by1
                let partStart = Int(table.u32(at + 16)), parts = Int(table.u16(at + 20))
                let country = Int(table.u16(at + 22))
                guard partStart + parts <= partCount else { continue }  // damaged: skip, never read past the table
                var shapeParts: [[GeoPoint]] = []
                for p in partStart..<(partStart + parts) {
                    let pointStart = Int(table.u32(partsOffset + 8 * p)), pointCount = Int(table.u32(partsOffset + 8 * p + 4))
                    guard pointStart + pointCount <= self.pointCount else { continue }
                    var points: [GeoPoint] = []
                    points.reserveCapacity(pointCount)
                    for k in pointStart..<(pointStart + pointCount) {
                        let q = pointsOffset + 8 * k
                        points.append(GeoPoint(latitude: Double(table.i32(q + 4)) / 1e6, longitude: Double(table.i32(q)) / 1e6))
                    }
                    if inside {
                        shapeParts.append(points)
                    } else if polygon {
                        let ring = Clip.ring(points, b)
                        if ring.count >= 4 {
                            shapeParts.append(ring)
                        } else if p == partStart {
                            break  // the outer ring misses the box: so do its holes
                        }
                    } else {
                        shapeParts.append(contentsOf: Clip.line(points, b))
                    }
                }
                // A polygon whose outer ring is clipped away has nothing left to draw.
                if shapeParts.isEmpty { continue }
                let code = polygon && country < countryCodes.count ? countryCodes[country] : nil
                out.append(BaseShape(countryCode: code?.isEmpty == true ? nil : code, parts: shapeParts))
            }
        }
        return out
    }
}

/// Clipping to a longitude/latitude box, in degrees.
enum Clip {
    /// Sutherland–Hodgman: the part of a closed ring (first point repeated last) inside the box, closed again.
    static func ring(_ ring: [GeoPoint], _ b: GeoBox) -> [GeoPoint] {
        var pts = ring
        if pts.count > 1, pts.first == pts.last { pts.removeLast() }
        // Edges in order: west, east, south, north.
        for edge in 0..<4 {
            if pts.isEmpty { break }
            let input = pts
            pts = []
            pts.reserveCapacity(input.count + 4)
            var s = input[input.count - 1]
            for e in input {
                let eIn = inside(e, edge, b), sIn = inside(s, edge, b)
                if eIn {
                    if !sIn { pts.append(intersect(s, e, edge, b)) }
                    pts.append(e)
                } else if sIn {
                    pts.append(intersect(s, e, edge, b))
                }
                s = e
            }
        }
        if let f = pts.first { pts.append(f) }
        return pts
    }

    /// Liang–Barsky on each segment: the pieces of a polyline inside the box.
    static func line(_ line: [GeoPoint], _ b: GeoBox) -> [[GeoPoint]] {
        var pieces: [[GeoPoint]] = []
        var current: [GeoPoint] = []
        for k in 1..<max(line.count, 1) {
            let a = line[k - 1], c = line[k]
            let dx = c.longitude - a.longitude, dy = c.latitude - a.latitude
            var t0 = 0.0, t1 = 1.0
            var visible = true
            for (p, q) in [(-dx, a.longitude - b.minLongitude), (dx, b.maxLongitude - a.longitude),
                           (-dy, a.latitude - b.minLatitude), (dy, b.maxLatitude - a.latitude)] {
                if p == 0 {
                    if q < 0 { visible = false }
                } else {
                    let r = q / p
                    if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                }
            }
            if !visible || t0 > t1 {
                if current.count >= 2 { pieces.append(current) }
                current = []
                continue
            }
            let start = t0 > 0 ? GeoPoint(latitude: a.latitude + t0 * dy, longitude: a.longitude + t0 * dx) : a
            let end = t1 < 1 ? GeoPoint(latitude: a.latitude + t1 * dy, longitude: a.longitude + t1 * dx) : c
            if current.last != start {
                if current.count >= 2 { pieces.append(current) }
                current = [start]
            }
            current.append(end)
            if t1 < 1 {
                pieces.append(current)
                current = []
            }
        }
        if current.count >= 2 { pieces.append(current) }
        return pieces
    }

    private static func inside(_ p: GeoPoint, _ edge: Int, _ b: GeoBox) -> Bool {
        switch edge {
        case 0: return p.longitude >= b.minLongitude
        case 1: return p.longitude <= b.maxLongitude
        case 2: return p.latitude >= b.minLatitude
        default: return p.latitude <= b.maxLatitude
        }
    }

    private static func intersect(_ s: GeoPoint, _ e: GeoPoint, _ edge: Int, _ b: GeoBox) -> GeoPoint {
        switch edge {
        case 0, 1:
            let x = edge == 0 ? b.minLongitude : b.maxLongitude
            let t = (x - s.longitude) / (e.longitude - s.longitude)
            return GeoPoint(latitude: s.latitude + t * (e.latitude - s.latitude), longitude: x)
        default:
            let y = edge == 2 ? b.minLatitude : b.maxLatitude
            let t = (y - s.latitude) / (e.latitude - s.latitude)
            return GeoPoint(latitude: y, longitude: s.longitude + t * (e.longitude - s.longitude))
        }
    }
}
