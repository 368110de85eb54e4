#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Drawing lines on a map whose longitudes run over one turn, [west, west + 360] (``LongitudeWrap``): the frame's
/// *seam* is the longitude `west` (the same meridian as `west + 360`). A line that crosses it is cut there and each
/// piece drawn on its own side, so nothing is drawn across the whole world; and a long straight segment between two
/// fixes far apart (a flight, a trip's start-to-end connector) is drawn as the great-circle route it stands for.
///
/// Only the drawing changes: the exports' geometry and the stored distances are the fixes' own.
enum MapSeam {
    // MARK: Great circles

    /// Segments longer than this on the ground are drawn as great-circle arcs (metres). A shorter one differs from
    /// its arc by at most about half a kilometre (a 100 km east–west chord: 0.20 km at 45° N, 0.54 km at 70° N), a
    /// few pixels at most at the zoom that shows both ends.
    static let arcMinimumM = 100_000.0
    /// An arc gets a vertex about every this many metres ...
    static let arcStepM = 100_000.0
    /// ... and at most this many pieces (half the globe at 100 km is 200).
    static let arcMaxPieces = 256

    /// Whether the segment from (lat1, lon1) to (lat2, lon2) is long enough to be drawn as an arc. A cheap test in
    /// degrees first (most segments are a second of a walk), the haversine only for the rest.
    @inline(__always)
    static func isLong(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Bool {
        var dLon = abs(lon2 - lon1)
        if dLon > 180 { dLon = 360 - dLon }
        // 0.5° of latitude is 55.6 km and 0.5° of longitude at most as much: under 100 km together.
        if abs(lat2 - lat1) < 0.5 && dLon < 0.5 { return false }
        return Geo.distance(lat1, lon1, lat2, lon2) > arcMinimumM
    }

    /// The points strictly between two fixes on the great circle joining them, about every ``arcStepM`` (at most
    /// ``arcMaxPieces`` − 1 points), calling `body(lat, lon)` for each in order; longitudes in [-180, 180]. Nothing
    /// for a segment of at most ``arcMinimumM`` or for (nearly) antipodal ends, whose great circle is not defined.
    static func arcPoints(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, _ body: (Double, Double) -> Void) {
        guard isLong(lat1, lon1, lat2, lon2) else { return }
        let r = Double.pi / 180
        let (p1, l1, p2, l2) = (lat1 * r, lon1 * r, lat2 * r, lon2 * r)
        let a = (cos(p1) * cos(l1), cos(p1) * sin(l1), sin(p1))
        let b = (cos(p2) * cos(l2), cos(p2) * sin(l2), sin(p2))
        let dot = max(-1, min(1, a.0 * b.0 + a.1 * b.1 + a.2 * b.2))
        let delta = acos(dot)
        let sinDelta = sin(delta)
        guard sinDelta > 1e-6 else { return }
        let pieces = min(arcMaxPieces, Int((delta * Geo.earthRadius / arcStepM).rounded(.up)))
        guard pieces >= 2 else { return }
        for k in 1..<pieces {
            let f = Double(k) / Double(pieces)
            let wa = sin((1 - f) * delta) / sinDelta, wb = sin(f * delta) / sinDelta
            let x = wa * a.0 + wb * b.0, y = wa * a.1 + wb * b.1, z = wa * a.2 + wb * b.2
            body(atan2(z, (x * x + y * y).squareRoot()) / r, atan2(y, x) / r)
        }
    }

    // MARK: Continuous longitudes

    /// `longitude` moved by whole turns to within half a turn of `previous`: consecutive points of a line then
    /// differ by the short way round, and a line that goes round the world keeps going (beyond ±180, beyond
    /// `west + 360`) instead of jumping back. The seam cut below brings it into the frame.
    @inline(__always)
    static func continuous(_ longitude: Double, after previous: Double) -> Double {
        var d = longitude - previous
        if abs(d) > 3600 { d = fmod(d, 360) }
        while d > 180 { d -= 360 }
        while d < -180 { d += 360 }
        return previous + d
    }

    // MARK: The seam cut

    /// A line in grid x (continuous: it may run past the frame on either side) cut at every copy of the seam,
    /// `seam + k × period`, with the point on the seam interpolated along the drawn segment; each piece is moved by
    /// whole periods into the frame [seam, seam + period]. No segment of the result crosses the seam, so none spans
    /// the world; a line that never leaves the frame comes back as it was (one piece, the same numbers).
    static func cut(xs: [Double], ys: [Double], seam: Double, period: Double) -> [(xs: [Double], ys: [Double])] {
        guard xs.count >= 2, period > 0, period.isFinite, seam.isFinite else { return xs.isEmpty ? [] : [(xs, ys)] }
        let lo = xs.min()!, hi = xs.max()!
        if lo >= seam && hi <= seam + period { return [(xs, ys)] }  // inside the frame: nothing to cut
        @inline(__always) func copy(_ x: Double) -> Int { Int(((x - seam) / period).rounded(.down)) }
        var pieces: [(xs: [Double], ys: [Double])] = []
        var px: [Double] = [], py: [Double] = []
        var current: Int? = nil
        /// Adds the sub-segment (ax, ay)–(bx, by), which lies within one copy of the frame (ends on its edges included).
        func add(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) {
            var k: Int
            if ax != bx {
                k = copy((ax + bx) / 2)
            } else {
                k = copy(ax)
                // On a seam itself (a vertical run along it): stay on the side the line is on.
                if let c = current, ax == seam + Double(k) * period, c == k - 1 { k = c }
            }
            if k != current {
                if px.count >= 2 { pieces.append((px, py)) }
                px = [ax - Double(k) * period]
                py = [ay]
                current = k
            }
            px.append(bx - Double(k) * period)
            py.append(by)
        }
        for i in 1..<xs.count {
            var ax = xs[i - 1], ay = ys[i - 1]
            let bx = xs[i], by = ys[i]
            // The seams strictly between the two ends, in the direction of travel.
            if bx != ax {
                let step = bx > ax ? 1 : -1
                var k = bx > ax ? copy(ax) + 1 : Int(((ax - seam) / period).rounded(.up)) - 1
                while true {
                    let sx = seam + Double(k) * period
                    guard bx > ax ? (sx > ax && sx < bx) : (sx < ax && sx > bx) else { break }
                    let sy = ay + (by - ay) * (sx - ax) / (bx - ax)
                    add(ax, ay, sx, sy)
                    ax = sx
                    ay = sy
                    k += step
                }
            }
            add(ax, ay, bx, by)
        }
        if px.count >= 2 { pieces.append((px, py)) }
        return pieces
    }
}

extension MapView {
    /// The grid x of the frame's west edge, the seam (`west`; `west + 360` is one ``periodGX`` further east).
    var seamGX: Double { gx(WebMercator.x(longitude: west)) }
    /// One turn of longitude in grid units.
    var periodGX: Double { scale * Double(detail) }

    /// A point's grid x `x` (in the frame) moved by whole turns to within half a turn of `previous`: the short way
    /// round from the point before. Without a point before, or when that is the nearest copy, `x` itself.
    @inline(__always)
    func continuousGX(_ x: Double, after previous: Double?) -> Double {
        guard let previous else { return x }
        let turns = ((previous - x) / periodGX).rounded()
        return turns == 0 || !turns.isFinite ? x : x + turns * periodGX
    }

    /// Appends the great-circle points strictly between fixes `a` and `b` (nothing when they are at most
    /// ``MapSeam/arcMinimumM`` apart) to a path whose last x is `previous`, each the short way round from the one
    /// before; an arc point whose grid position lies in a privacy zone is left out.
    func appendArc(
        from a: (lat: Double, lon: Double), to b: (lat: Double, lon: Double), after previous: Double, zones: PrivacyZones,
        xs: inout [Double], ys: inout [Double]
    ) {
        var px = previous
        MapSeam.arcPoints(a.lat, a.lon, b.lat, b.lon) { lat, lon in
            let wrapped = gx(worldX(lon)), y = gy(WebMercator.y(latitude: lat))
            if !zones.isEmpty {
                let rounded = position(gx: wrapped.rounded(), gy: y.rounded())
                if zones.contains(lat: rounded.lat, lon: rounded.lon) { return }
            }
            px = continuousGX(wrapped, after: px)
            xs.append(px)
            ys.append(y)
        }
    }
}

extension MapSeam {
    /// A simplified ring or line (`kept` indices into `xs`/`ys`) with every edge wider than `limit` written in
    /// equal collinear pieces, or nil when no edge is that wide. Only a ring clipped along the edge of a wide box
    /// has such an edge (Antarctica cut along a level's south edge: a straight line all the way round); the pieces
    /// draw exactly the same line, and keep every written segment shorter than half the world, which is what
    /// the seam checks look for.
    static func splittingLongEdges(_ xs: [Double], _ ys: [Double], _ kept: [Int], longerThan limit: Double) -> (xs: [Double], ys: [Double])? {
        guard limit > 0, limit.isFinite,
            zip(kept, kept.dropFirst()).contains(where: { abs(xs[$1] - xs[$0]) > limit })
        else { return nil }
        var outX = [xs[kept[0]]], outY = [ys[kept[0]]]
        for (i, j) in zip(kept, kept.dropFirst()) {
            let n = max(1, Int((abs(xs[j] - xs[i]) / limit).rounded(.up)))
            for k in 1...n {
                let f = Double(k) / Double(n)
                outX.append(k == n ? xs[j] : xs[i] + (xs[j] - xs[i]) * f)
                outY.append(k == n ? ys[j] : ys[i] + (ys[j] - ys[i]) * f)
            }
        }
        return (outX, outY)
    }
}
