#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// How the map is drawn. The defaults give a page that opens at 1000 × 760 map pixels, keeps geometry exact to
/// half an opening pixel on a grid of a quarter pixel (so zooming in still looks smooth) and labels the dozen most visited
/// places.
public struct MapParameters: Sendable {
    /// The map's size in CSS pixels at the opening view.
    public var width = 1000
    /// What the page must not show (docs/EXPORTS.md, "Privacy zones"); none by default.
    public var privacyZones = PrivacyZones()
    public var height = 760
    /// Grid units per opening pixel. Coordinates are written as integers on this grid: 4 is the pixel grid of the
    /// zoom level two steps (×4) deeper than the opening one. Higher is smoother when zoomed in and bigger.
    public var detail = 4
    /// Douglas–Peucker tolerance in opening pixels: half a pixel is invisible at the opening zoom and 2 px at ×4.
    /// (0.25 px keeps ~9× more vertices of a noisy 1 Hz year — GPS noise — for no visible gain; see PERFORMANCE.md.)
    public var tolerancePx = 0.5
    /// At most this many trip points are kept (evenly strided) to fit the view to; the geometry itself is streamed.
    public var fitSampleSize = 100_000
    /// The view is fitted to the `extentQuantile`…`1 − extentQuantile` range of the drawn points and visit
    /// centres on each axis, so a few far-off fixes or a one-off journey do not shrink everything else to a dot.
    public var extentQuantile = 0.01
    /// Margin around the fitted extent, as a fraction of it on each side.
    public var margin = 0.06
    /// The smallest extent shown, in ground metres (a single visit is not zoomed to the size of a room).
    public var minimumExtentM = 600.0
    /// With visits, the opening view fits where the time is spent: the `dwellQuantile`…`1 − dwellQuantile` range of
    /// the visit centres weighted by the square root of their dwell time, on each axis (5 %: a week's holiday in a year, a one-off long
    /// drive or a far-off visit stay out of the opening view; the "fit all" button and zooming out reach them).
    public var dwellQuantile = 0.05
    /// Margin around the dwell-weighted extent, as a fraction of it on each side.
    public var dwellMargin = 0.15
    /// The simplification tolerance is at least this many ground metres (about a phone's GPS scatter), so a tight
    /// opening view of a town does not keep every wobble of a year of 1 Hz tracks (page size, see PERFORMANCE.md).
    public var minimumToleranceM = 5.0
    /// Street tiles from a server the user chooses (`--tiles`), e.g. `https://tile.example.org/{z}/{x}/{y}.png`:
    /// nil (the default) keeps the page self-contained. See ``MapTiles``.
    public var tiles: MapTiles? = nil
    /// Draw the offline base layer (land, coastlines, borders, city labels) from TriplineGeography.
    public var baseLayer = true
    /// How many places are labelled at most (the most visited first; a label that would overlap is left out).
    public var maxLabels = 14
    /// Label font size in opening pixels.
    public var labelFontPx = 12.0
    /// Visit circle radius in opening pixels: `visitRadiusBase + visitRadiusPerSqrtHour × √(dwell hours)`,
    /// at most `visitRadiusMax`.
    public var visitRadiusBase = 2.5
    public var visitRadiusPerSqrtHour = 1.6
    public var visitRadiusMax = 11.0
    /// The page title.
    public var title = "Tripline"

    public init() {}
}

/// The opening view: world units to grid units (`detail` per opening pixel).
struct MapView {
    /// World coordinates of the top-left corner.
    var x0: Double
    var y0: Double
    /// Opening pixels per world unit.
    var scale: Double
    var detail: Int
    var width: Int
    var height: Int
    /// Longitudes are drawn in [west, west + 360): -180 normally; inside the data's largest longitude gap when the
    /// data crosses the antimeridian (a Fiji or Alaska trip), so it is drawn in one piece.
    var west = -180.0

    @inline(__always) func gx(_ x: Double) -> Double { (x - x0) * scale * Double(detail) }
    /// The world x of a longitude, wrapped into [west, west + 360).
    @inline(__always) func worldX(_ longitude: Double) -> Double {
        WebMercator.x(longitude: LongitudeWrap.wrap(longitude, west: west))
    }
    @inline(__always) func gy(_ y: Double) -> Double { (y - y0) * scale * Double(detail) }

    /// Ground metres per grid unit at the view's centre.
    var metresPerGridUnit: Double {
        let centreY = y0 + Double(height) / 2 / scale
        return WebMercator.metresPerWorldUnit(atLatitude: WebMercator.latitude(y: centreY)) / (scale * Double(detail))
    }

    /// Fits the view to the quantile extent of `xs`/`ys` (world units).
    static func fit(xs: inout [Double], ys: inout [Double], parameters p: MapParameters) -> MapView {
        let w = Double(p.width)
        let h = Double(p.height)
        guard !xs.isEmpty else {
            return MapView(x0: 0, y0: 0, scale: min(w, h), detail: p.detail, width: p.width, height: p.height)
        }
        xs.sort()
        ys.sort()
        var minX = quantile(xs, p.extentQuantile)
        var maxX = quantile(xs, 1 - p.extentQuantile)
        var minY = quantile(ys, p.extentQuantile)
        var maxY = quantile(ys, 1 - p.extentQuantile)
        let centreX = (minX + maxX) / 2
        let centreY = (minY + maxY) / 2
        let minimum = p.minimumExtentM / WebMercator.metresPerWorldUnit(atLatitude: WebMercator.latitude(y: centreY))
        if maxX - minX < minimum {
            minX = centreX - minimum / 2
            maxX = centreX + minimum / 2
        }
        if maxY - minY < minimum {
            minY = centreY - minimum / 2
            maxY = centreY + minimum / 2
        }
        let spanX = (maxX - minX) * (1 + 2 * p.margin)
        let spanY = (maxY - minY) * (1 + 2 * p.margin)
        let scale = min(w / spanX, h / spanY)
        return MapView(
            x0: centreX - w / 2 / scale, y0: centreY - h / 2 / scale, scale: scale, detail: p.detail, width: p.width,
            height: p.height)
    }

    /// Fits the view to the dwell-weighted quantile extent of visit centres (world units; `weight` = dwell seconds,
    /// at least 60 s each, counted as √dwell).
    static func fit(visits: [(x: Double, y: Double, weight: Double)], parameters p: MapParameters) -> MapView {
        func weighted(_ values: [(Double, Double)], _ q: Double) -> Double {
            let sorted = values.sorted { $0.0 < $1.0 }
            let total = sorted.reduce(0) { $0 + $1.1 }
            var acc = 0.0
            for (value, weight) in sorted {
                acc += weight
                if acc >= q * total { return value }
            }
            return sorted[sorted.count - 1].0
        }
        // √dwell: a night at home counts more than a coffee, but not 30 times more — pure dwell weighting shrinks a
        // year to the line from home to work and leaves the park visited 178 times off the map.
        let xs = visits.map { ($0.x, max(60, $0.weight).squareRoot()) }
        let ys = visits.map { ($0.y, max(60, $0.weight).squareRoot()) }
        var box = [weighted(xs, p.dwellQuantile), weighted(xs, 1 - p.dwellQuantile)]
        var boxY = [weighted(ys, p.dwellQuantile), weighted(ys, 1 - p.dwellQuantile)]
        // Then the quantile fit over the box's corners, with no quantile cut (the box is the extent already), and a
        // wider margin: the places at the quantiles are where the person goes, not the edge of the map.
        var q = p
        q.extentQuantile = 0
        q.margin = p.dwellMargin
        return fit(xs: &box, ys: &boxY, parameters: q)
    }

    /// The linearly interpolated quantile `q` of sorted values.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(sorted.count - 1, lower + 1)
        let t = position - Double(lower)
        return sorted[lower] * (1 - t) + sorted[upper] * t
    }
}

/// Longitude wrapping for data that crosses the antimeridian.
enum LongitudeWrap {
    /// `longitude` moved by whole turns into [west, west + 360] (both edges kept, so a shape touching ±180 stays whole).
    /// Total: a longitude many turns away (an edited database's 1e300) is reduced by `fmod` in one step, not turn by
    /// turn; a non-finite one (which the loader never hands on, ``MapLoader``) comes back unchanged.
    @inline(__always) static func wrap(_ longitude: Double, west: Double) -> Double {
        guard longitude.isFinite && west.isFinite else { return longitude }
        var l = longitude
        if abs(l - west) > 3600 {
            // Far away: whole turns in one step (a few turns or less, as every real longitude, keep the exact
            // additions below and so the same bytes as ever).
            let r = fmod(l - west, 360)
            l = west + (r < 0 ? r + 360 : r)
        }
        while l < west { l += 360 }
        while l > west + 360 { l -= 360 }
        return l
    }

    /// The west edge for drawing `longitudes`: the start of the data after its largest empty gap of longitude, or
    /// -180 when that gap contains the antimeridian (the usual case, nothing moves). Deterministic.
    static func west(for longitudes: [Double]) -> Double {
        let sorted = longitudes.filter(\.isFinite).map { wrap($0, west: -180) }.sorted()
        guard let first = sorted.first, let last = sorted.last else { return -180 }
        var gap = first + 360 - last  // the gap across ±180
        var west = -180.0
        for k in 1..<max(1, sorted.count) where sorted[k] - sorted[k - 1] > gap {
            gap = sorted[k] - sorted[k - 1]
            west = sorted[k]
        }
        // Leave a little room west of the data (a margin, and the base layer beyond the view's edge).
        return west == -180 ? -180 : west - gap / 2
    }
}

/// Colours for modes: well-known modes (as the rebuild names them, and common synonyms) get a fixed colour that
/// stays the same from map to map; any other mode gets one of the spare colours, in order of first use.
enum ModePalette {
    static let known: [(keys: [String], colour: String)] = [
        (["walk", "walking", "foot", "on_foot", "hike", "hiking"], "#2e9e44"),
        (["run", "running", "jog"], "#9acd32"),
        (["cycle", "cycling", "bike", "bicycle", "ebike"], "#f08c00"),
        (["car", "drive", "driving", "automotive", "taxi", "motorcycle"], "#2463d1"),
        (["bus", "coach"], "#8e44ad"),
        (["train", "rail", "railway", "tram", "subway", "metro", "light_rail"], "#d62828"),
        (["vehicle", "motorised", "motorized", "in_vehicle"], "#264653"),  // motorised, car or bus or train unknown
        (["plane", "flight", "airplane", "fly", "air"], "#5c677d"),
        (["boat", "ferry", "ship"], "#0f9fb5"),
        (["stationary", "still", "unknown", "other", ""], "#8a8a8a"),
    ]
    static let spare = ["#c2185b", "#795548", "#00897b", "#6d4c41", "#3949ab", "#afb42b"]

    /// Colours for the given modes, in the same order.
    static func colours(for modes: [String]) -> [String] {
        var nextSpare = 0
        return modes.map { mode in
            let key = mode.lowercased()
            if let entry = known.first(where: { $0.keys.contains(key) }) { return entry.colour }
            defer { nextSpare += 1 }
            return spare[nextSpare % spare.count]
        }
    }
}

/// Greedy label placement: labels are tried in order of importance at eight positions around their point
/// (right, left, above, below, then the diagonals) and the first position that overlaps no placed label, no
/// other labelled point and stays inside the view is taken; a label with no free position is left out.
struct LabelPlacer {
    struct Box {
        var x0: Double, y0: Double, x1: Double, y1: Double
        func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
    }

    /// A placed label: the text's anchor point and `text-anchor`.
    struct Placed {
        var index: Int
        var x: Double
        var y: Double
        var anchor: String
    }

    var width: Double
    var height: Double
    var fontPx: Double

    /// An estimate of the rendered width of `text` in a sans-serif font: 0.6 em per Latin letter, 1 em per
    /// wide (CJK, emoji) character. A slight overestimate errs on the side of fewer labels, never overlaps.
    func textWidth(_ text: String) -> Double {
        var em = 0.0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                em += "iljtf.,;:!|' ".unicodeScalars.contains(scalar) ? 0.34 : (("A"..."Z").contains(scalar) || scalar == "m" || scalar == "w" ? 0.74 : 0.6)
            } else if v >= 0x2E80 {
                em += 1.0
            } else if (0x300...0x36F).contains(v) {
                continue  // combining marks take no room of their own
            } else {
                em += 0.66
            }
        }
        return em * fontPx
    }

    /// Places labels for `points` (opening pixels, with the radius of the mark), in the given order, keeping clear
    /// of `obstacles` (the overlays drawn over the map: scale bar, zoom buttons, legend).
    func place(_ points: [(x: Double, y: Double, radius: Double, text: String)], obstacles: [Box] = []) -> [Placed] {
        var taken: [Box] = obstacles
        // Every labelled mark is an obstacle for the other labels.
        let marks = points.map { Box(x0: $0.x - $0.radius, y0: $0.y - $0.radius, x1: $0.x + $0.radius, y1: $0.y + $0.radius) }
        var placed: [Placed] = []
        let ascent = fontPx * 0.8
        let descent = fontPx * 0.25
        let gap = 3.0
        for (index, point) in points.enumerated() {
            let w = textWidth(point.text)
            let r = point.radius + gap
            // (anchor x, baseline y, text-anchor) for each candidate position.
            let candidates: [(Double, Double, String)] = [
                (point.x + r, point.y + ascent / 2 - descent / 2, "start"),
                (point.x - r, point.y + ascent / 2 - descent / 2, "end"),
                (point.x, point.y - r - descent, "middle"),
                (point.x, point.y + r + ascent, "middle"),
                (point.x + r * 0.7, point.y - r * 0.7 - descent, "start"),
                (point.x - r * 0.7, point.y - r * 0.7 - descent, "end"),
                (point.x + r * 0.7, point.y + r * 0.7 + ascent, "start"),
                (point.x - r * 0.7, point.y + r * 0.7 + ascent, "end"),
            ]
            for (ax, baseline, anchor) in candidates {
                let left = anchor == "start" ? ax : anchor == "end" ? ax - w : ax - w / 2
                let box = Box(x0: left - 1, y0: baseline - ascent - 1, x1: left + w + 1, y1: baseline + descent + 1)
                guard box.x0 >= 0, box.y0 >= 0, box.x1 <= width, box.y1 <= height else { continue }
                if taken.contains(where: { $0.overlaps(box) }) { continue }
                if marks.enumerated().contains(where: { $0.offset != index && $0.element.overlaps(box) }) { continue }
                taken.append(box)
                placed.append(Placed(index: index, x: ax, y: baseline, anchor: anchor))
                break
            }
        }
        return placed
    }
}
