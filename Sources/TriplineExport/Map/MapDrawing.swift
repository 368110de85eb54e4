#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore

extension MapPage {
    // MARK: The map

    // Long by design: the map's SVG layers written in drawing order into one writer (grid, trips by leg, visits, labels).
    mutating func writeMap() throws {
        let gw = parameters.width * parameters.detail
        let gh = parameters.height * parameters.detail
        out.append("<svg id=\"map\" viewBox=\"0 0 \(gw) \(gh)\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"Map of trips and visits\">\n")
        if selection.isEmpty {
            out.append("<text class=\"empty\" x=\"\(gw / 2)\" y=\"\(gh / 2)\" text-anchor=\"middle\" font-size=\"\(28 * parameters.detail)\">Nothing to show</text>\n</svg>\n")
            return
        }
        if parameters.tiles != nil { out.append("<g id=\"tiles\"></g>\n") }
        baseShapes = writeBaseLayer(all: allBox)
        cities = cityCandidates(all: allBox)
        if !parameters.baseLayer { writeGrid() }  // the base layer gives the context the grid gave
        out.append("<g id=\"trips\">\n")
        let tolerance = max(parameters.tolerancePx * Double(parameters.detail), parameters.minimumToleranceM / view.metresPerGridUnit)
        for (index, trip) in selection.trips.enumerated() {
            var paths = try points.paths(trip, view: view)
            if trip.appStraight && !paths.isEmpty { straight.insert(index) }
            if paths.isEmpty, !trip.isApp, let start = trip.start, let end = trip.end {
                // Start to end along the great circle (a flight with no fixes between), the short way round.
                var xs = [view.gx(view.worldX(start.lon))], ys = [view.gy(WebMercator.y(latitude: start.lat))]
                view.appendArc(from: start, to: end, after: xs[0], zones: parameters.privacyZones, xs: &xs, ys: &ys)
                xs.append(view.continuousGX(view.gx(view.worldX(end.lon)), after: xs.last))
                ys.append(view.gy(WebMercator.y(latitude: end.lat)))
                paths = [(trip.legs.isEmpty ? -1 : 0, xs, ys)]
                straight.insert(index)
            }
            guard !paths.isEmpty else { continue }
            tripsDrawn += 1
            out.append("<g data-t=\"")
            out.append(int: index)
            out.append("\">")
            for path in paths {
                let mode = path.leg >= 0 ? trip.legs[path.leg].mode : trip.mode
                out.append("<path class=\"trip m")
                out.append(int: modeIndex[mode] ?? 0)
                out.append(straight.contains(index) ? " s\" d=\"" : "\" d=\"")
                // Cut where it crosses the frame's seam: each piece on its own side, one subpath each.
                for piece in MapSeam.cut(xs: path.xs, ys: path.ys, seam: view.seamGX, period: view.periodGX) {
                    let kept = Simplify.douglasPeucker(xs: piece.xs, ys: piece.ys, tolerance: tolerance)
                    vertices += appendRelative(piece.xs, piece.ys, kept)  // a leg shorter than the grid: a dot
                }
                out.append("\"/>")
            }
            out.append("</g>\n")
        }
        out.append("</g>\n<g id=\"visits\">\n")
        // Longest visits first, so shorter ones are drawn on top and stay hoverable.
        let order = selection.visits.indices.sorted {
            let a = selection.visits[$0]
            let b = selection.visits[$1]
            return (a.dwellS, b.id) > (b.dwellS, a.id)
        }
        for index in order {
            let visit = selection.visits[index]
            let cx = view.gx(view.worldX(visit.lon)).rounded()
            let cy = view.gy(WebMercator.y(latitude: visit.lat)).rounded()
            // A centre just outside a privacy zone may round into it on the page's grid: not drawn then.
            if !parameters.privacyZones.isEmpty, parameters.privacyZones.contains(view.position(gx: cx, gy: cy)) { continue }
            visitsDrawn += 1
            out.append("<circle data-v=\"")
            out.append(int: index)
            out.append("\" cx=\"")
            out.append(int: Int(cx))
            out.append("\" cy=\"")
            out.append(int: Int(cy))
            out.append("\" r=\"")
            out.append(int: Int((visitRadius(visit.dwellS) * Double(parameters.detail)).rounded()))
            out.append("\"/>\n")
        }
        out.append("</g>\n")
        writeLabels()
        out.append("<g id=\"cities\"></g>\n</svg>\n")
    }

    /// Faint lines every "nice" distance, so the empty space between tracks still reads as a map with a scale.
    mutating func writeGrid() {
        let gw = Double(parameters.width * parameters.detail)
        let gh = Double(parameters.height * parameters.detail)
        let metresPerUnit = view.metresPerGridUnit
        // About six lines across the width.
        let target = gw * metresPerUnit / 6
        var step = 1.0
        while step * 10 <= target { step *= 10 }
        if step * 5 <= target { step *= 5 } else if step * 2 <= target { step *= 2 }
        let stepUnits = step / metresPerUnit
        guard stepUnits.isFinite, stepUnits > 4 else { return }
        // Cover three views each way, so the grid does not stop at the edge when the page is wider or panned.
        out.append("<path class=\"grid\" d=\"")
        let lines = Int((3 * max(gw, gh) / stepUnits).rounded(.up))
        for k in -lines...(lines + Int(gw / stepUnits)) {
            let x = Int((Double(k) * stepUnits).rounded())
            out.append("M\(x) \(Int(-3 * gh))V\(Int(4 * gh))")
        }
        for k in -lines...(lines + Int(gh / stepUnits)) {
            let y = Int((Double(k) * stepUnits).rounded())
            out.append("M\(Int(-3 * gw)) \(y)H\(Int(4 * gw))")
        }
        out.append("\"/>\n")
    }

    /// The visit circle's radius in opening pixels.
    func visitRadius(_ dwellS: Double) -> Double {
        min(parameters.visitRadiusMax, parameters.visitRadiusBase + parameters.visitRadiusPerSqrtHour * (max(0, dwellS) / 3600).squareRoot())
    }

    /// Places of the selection ranked by visits in the selection, then total dwell, then id.
    func rankedPlaces() -> [(id: Int64, visits: Int, dwellS: Double, maxDwellS: Double)] {
        var stats: [Int64: (visits: Int, dwellS: Double, maxDwellS: Double)] = [:]
        for visit in selection.visits {
            guard let id = visit.placeID, selection.places[id] != nil else { continue }
            var s = stats[id] ?? (0, 0, 0)
            s.visits += 1
            s.dwellS += visit.dwellS
            s.maxDwellS = max(s.maxDwellS, visit.dwellS)
            stats[id] = s
        }
        return stats.map { ($0.key, $0.value.visits, $0.value.dwellS, $0.value.maxDwellS) }
            .sorted { ($0.visits, $0.dwellS, $1.id) > ($1.visits, $1.dwellS, $0.id) }
    }

    mutating func writeLabels() {
        let d = Double(parameters.detail)
        let font = parameters.labelFontPx
        let placer = LabelPlacer(width: Double(parameters.width), height: Double(parameters.height), fontPx: font)
        let ranked = rankedPlaces().prefix(parameters.maxLabels * 2)
        var candidates: [(x: Double, y: Double, radius: Double, text: String)] = []
        var candidatePlaces: [Int64] = []
        for entry in ranked {
            let place = selection.places[entry.id]!
            let x = view.gx(view.worldX(place.lon)) / d
            let y = view.gy(WebMercator.y(latitude: place.lat)) / d
            guard x >= 0, y >= 0, x <= Double(parameters.width), y <= Double(parameters.height) else { continue }
            candidates.append((x, y, visitRadius(entry.maxDwellS), Self.shortName(place.name)))
            candidatePlaces.append(entry.id)
        }
        // The HTML overlays sit over the map's corners (see MapAssets' CSS): the scale bar top left, the north arrow
        // and zoom buttons top right, and the legend (one row per mode plus title, track and visit rows) in whichever
        // bottom corner covers fewer of the places to label.
        let w = Double(parameters.width)
        let h = Double(parameters.height)
        let legendHeight = 26 + 17.5 * Double(modes.count + 2 + (straight.isEmpty ? 0 : 1))
        let legendLeft = LabelPlacer.Box(x0: 0, y0: h - legendHeight, x1: 215, y1: h)
        let legendRight = LabelPlacer.Box(x0: w - 215, y0: h - legendHeight, x1: w, y1: h)
        func covered(_ box: LabelPlacer.Box) -> Int {
            candidates.filter { box.overlaps(LabelPlacer.Box(x0: $0.x - 40, y0: $0.y - 15, x1: $0.x + 40, y1: $0.y + 15)) }.count
        }
        legendOnRight = covered(legendRight) < covered(legendLeft)
        let obstacles = [
            LabelPlacer.Box(x0: 0, y0: 0, x1: 150, y1: 52),
            LabelPlacer.Box(x0: w - 56, y0: 0, x1: w, y1: 180),
            legendOnRight ? legendRight : legendLeft,
        ]
        let placed = placer.place(candidates, obstacles: obstacles).prefix(parameters.maxLabels)
        out.append("<g id=\"labels\" font-size=\"\(NumberText.fixed(font * d, decimals: 0))\" stroke-width=\"\(NumberText.fixed(3 * d, decimals: 0))\">\n")
        // Each label sits on its place's centre and is moved off it by dx/dy in em, so that labels and circles
        // (both a constant size on screen, see the script) keep their opening layout at any zoom.
        for label in placed {
            labelsDrawn += 1
            let point = candidates[label.index]
            out.append("<text data-p=\"\(placeIndex[candidatePlaces[label.index]] ?? -1)\" x=\"")
            out.append(int: Int((point.x * d).rounded()))
            out.append("\" y=\"")
            out.append(int: Int((point.y * d).rounded()))
            out.append("\" dx=\"\(NumberText.fixed((label.x - point.x) / font, decimals: 2))em\" dy=\"\(NumberText.fixed((label.y - point.y) / font, decimals: 2))em\"")
            if label.anchor != "start" { out.append(" text-anchor=\"\(label.anchor)\"") }
            out.append(">")
            out.append(Markup.text(point.text))
            out.append("</text>\n")
        }
        out.append("</g>\n")
    }

    /// A place name cut to 32 characters for a label.
    static func shortName(_ name: String) -> String {
        let trimmed = name.trimmingWhitespace()
        let text = trimmed.isEmpty ? "unnamed place" : trimmed
        return text.count > 32 ? String(text.prefix(31)) + "…" : text
    }

    mutating func writeOverlays() {
        if selection.isEmpty {
            out.append("<div id=\"tip\" class=\"box\" hidden></div>\n")
            return
        }
        // Scale bar at the opening zoom, assuming one opening pixel per CSS pixel; the script keeps it true.
        let metresPerPixel = view.metresPerGridUnit * Double(parameters.detail)
        let maxMetres = 120 * metresPerPixel
        var nice = 1.0
        while nice * 10 <= maxMetres { nice *= 10 }
        if nice * 5 <= maxMetres { nice *= 5 } else if nice * 2 <= maxMetres { nice *= 2 }
        let label = nice >= 1000 ? NumberText.fixed(nice / 1000, decimals: nice >= 1000 && nice.truncatingRemainder(dividingBy: 1000) == 0 ? 0 : 1) + " km" : NumberText.fixed(nice, decimals: 0) + " m"
        out.append("<div id=\"scale\" class=\"box\"><div id=\"scalebar\" style=\"width:\(NumberText.fixed(nice / metresPerPixel, decimals: 1))px\"></div><span id=\"scalelabel\">\(label)</span></div>\n")
        out.append("<div id=\"north\" class=\"box\" title=\"North is up\"><svg width=\"16\" height=\"22\" viewBox=\"0 0 16 22\" aria-hidden=\"true\"><path d=\"M8 0L15 14H1Z\" fill=\"#1d2733\"/></svg><br/>N</div>\n")
        out.append("<div id=\"zoom\" class=\"box\"><button type=\"button\" data-z=\"in\" title=\"Zoom in\">+</button><button type=\"button\" data-z=\"out\" title=\"Zoom out\">−</button><button type=\"button\" data-z=\"fit\" title=\"Fit to where the time was spent\">⤢</button><button type=\"button\" data-z=\"all\" title=\"Fit all: every trip and visit\">All</button></div>\n")
        out.append(legendOnRight ? "<div id=\"legend\" class=\"box right\">" : "<div id=\"legend\" class=\"box\">")
        out.append("<b>Trips by mode</b>\n")
        for (i, mode) in modes.enumerated() {
            out.append("<div data-m=\"\(i)\"><span class=\"ln m\(i)\"></span>")
            out.append(Markup.text(mode.isEmpty ? "unknown" : mode))
            out.append("</div>\n")
        }
        if !straight.isEmpty {
            out.append("<div id=\"nodash\"><span class=\"dash\"></span>no track: start to end</div>\n")
        }
        out.append("<div><span class=\"dot\"></span>visit (size: time spent)</div></div>\n")
        out.append("<div id=\"tip\" class=\"box\" hidden></div>\n")
        if let tiles = parameters.tiles {
            out.append("<div id=\"attribution\" class=\"box\">Map tiles: ")
            out.append(Markup.text(tiles.origin))
            out.append("</div>\n")
        } else if parameters.baseLayer {
            out.append("<div id=\"attribution\" class=\"box\">Natural Earth · GeoNames (CC BY 4.0)</div>\n")
        }
    }
}
