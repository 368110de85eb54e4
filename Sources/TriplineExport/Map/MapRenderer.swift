#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore


/// A rendered map page and what it shows.
public struct MapDocument: Sendable {
    /// The page: one self-contained HTML file in UTF-8.
    public var bytes: [UInt8]
    /// Trips and visits in the selection, and how many of them the map draws (a trip with neither points nor
    /// start and end coordinates cannot be drawn).
    public var tripsSelected: Int
    public var tripsDrawn: Int
    public var visitsSelected: Int
    public var visitsDrawn: Int
    /// Places labelled on the map.
    public var labels: Int
    /// Points read from `points` for the trips' geometry, and vertices written after simplification.
    public var pointsRead: Int
    public var verticesWritten: Int
    /// Base-layer parts drawn (land rings, coastline and border lines) and populated places handed to the script
    /// for city labels.
    public var baseShapes: Int = 0
    public var cityCandidates: Int = 0
    /// Stored rows and points left out for impossible values (non-finite or out-of-range coordinates, times,
    /// offsets, distances; only an edited database has them).
    public var skipped: Int = 0
}

/// Renders the offline HTML map of a selection of the database: an inline SVG in Web Mercator with trips
/// coloured by mode, visits sized by time spent, labelled top places, a scale bar, pan and zoom, a day / month
/// picker, and beside it the period's summary and a per-day distance chart.
///
/// The pipeline: ``MapLoader`` reads the selection (trips, legs, visits, places, days) and a bounded sample of the
/// trips' points → ``MapView/fit(xs:ys:parameters:)`` fits the opening view to the sample's quantile extent →
/// ``MapPage`` streams each trip's points again (``TripPointStream``), simplifies each leg with Douglas–Peucker at
/// ``MapParameters/tolerancePx``, rounds it to the grid and writes it, then the rest of the page.
/// The same database and parameters always give the same bytes.
public struct MapRenderer {
    public let store: Store
    public var parameters: MapParameters

    public init(store: Store, parameters: MapParameters = MapParameters()) {
        self.store = store
        self.parameters = parameters
    }

    /// Renders the page for `filter`.
    /// - Throws: ``MapError`` when the filter names an unknown device; ``DatabaseError`` when reading fails.
    /// - Complexity: O(points in the selected trips) time; memory O(pre-simplified vertices + trips + visits).
    public func render(filter: RecordFilter = RecordFilter()) throws -> MapDocument {
        let selection = try MapLoader(store: store, parameters: parameters).load(filter)
        var page = MapPage(selection: selection, parameters: parameters, points: try TripPointStream(store: store, zones: parameters.privacyZones))
        // The days' timelines are the `day` report's own entries (the exports' selection, local times and zones).
        let exporter = try Exporter(store: store, privacyZones: parameters.privacyZones)
        let days = page.dataDays()
        let timeline = try DayTimeline.entries(exporter: exporter, days: days, device: filter.device)
        page.timeline = days.compactMap { day in timeline[day].map { (day, $0) } }
        return try page.render()
    }

    /// Renders the page and writes it to `path` atomically (a temporary file in the same directory, renamed over
    /// `path`), so a reader never sees half a page.
    @discardableResult
    public func write(filter: RecordFilter = RecordFilter(), to path: String) throws -> MapDocument {
        let document = try render(filter: filter)
        try MapRenderer.writeAtomically(document.bytes, to: path)
        return document
    }

    /// Writes through ``ExportDestination``: the path must be new or a regular file (never a link, FIFO or device),
    /// the temporary file beside it is removed if the write fails or a signal ends the process.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let destination = try ExportDestination(path: path, stdout: OutputStream(sink: { _ in }))
        do {
            try destination.writer.append(bytes: bytes)
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
    }
}

/// Writes the page for one selection.
struct MapPage {
    let selection: MapSelection
    let parameters: MapParameters
    let points: TripPointStream
    var out = ByteBuffer(capacity: 1 << 20)
    /// Trips drawn as a straight line from start to end, having no usable points.
    var straight: Set<Int> = []
    var view: MapView
    /// Modes in legend order (most time first), their colours, and each mode's index.
    var modes: [String] = []
    var modeIndex: [String: Int] = [:]
    var modeTime: [Double] = []
    var modeDistance: [Double] = []
    /// Places in id order and each one's index in the page's data.
    var placeOrder: [Int64] = []
    var placeIndex: [Int64: Int] = [:]
    var tripsDrawn = 0
    var visitsDrawn = 0
    var labelsDrawn = 0
    /// Whether the legend sits in the bottom-right corner (chosen where it hides fewer places), else bottom left.
    var legendOnRight = false
    var vertices = 0
    /// Everything drawn (trip sample points, straight trips, visits), in grid units: the "fit all" box and the
    /// base layer's widest level.
    var allBox: (x0: Double, y0: Double, x1: Double, y1: Double) = (0, 0, 0, 0)
    var baseShapes = 0
    var cities: [(name: String, x: Int, y: Int, population: Int)] = []
    /// Device ids in the order of `deviceList` (the picker's and the data's device index).
    var deviceOrder: [Int64] = []
    var deviceIndex: [Int64: Int] = [:]
    /// Each data day's entries (``DayTimeline``), in day order: the side panel's timeline.
    var timeline: [(day: Int, entries: [DayTimelineEntry])] = []

    init(selection: MapSelection, parameters: MapParameters, points: TripPointStream) {
        self.selection = selection
        self.parameters = parameters
        self.points = points
        // Longitudes first: where the data crosses the antimeridian, draw it from inside its largest gap.
        var longitudes: [Double] = []
        var i = 0
        while i + 1 < selection.sample.count {
            longitudes.append(WebMercator.longitude(x: selection.sample[i]))
            i += 2
        }
        for trip in selection.trips where trip.pointCount == 0 {
            if let start = trip.start, let end = trip.end { longitudes += [start.lon, end.lon] }
        }
        for visit in selection.visits { longitudes.append(visit.lon) }
        let west = LongitudeWrap.west(for: longitudes)
        func wx(_ lon: Double) -> Double { WebMercator.x(longitude: LongitudeWrap.wrap(lon, west: west)) }
        var xs: [Double] = []
        var ys: [Double] = []
        i = 0
        while i + 1 < selection.sample.count {
            xs.append(wx(WebMercator.longitude(x: selection.sample[i])))
            ys.append(selection.sample[i + 1])
            i += 2
        }
        for trip in selection.trips where trip.pointCount == 0 {
            if let start = trip.start, let end = trip.end {
                xs.append(wx(start.lon))
                ys.append(WebMercator.y(latitude: start.lat))
                xs.append(wx(end.lon))
                ys.append(WebMercator.y(latitude: end.lat))
            }
        }
        for visit in selection.visits {
            xs.append(wx(visit.lon))
            ys.append(WebMercator.y(latitude: visit.lat))
        }
        let worldBox = (x0: xs.min() ?? 0, y0: ys.min() ?? 0, x1: xs.max() ?? 0, y1: ys.max() ?? 0)
        if selection.visits.isEmpty {
            view = MapView.fit(xs: &xs, ys: &ys, parameters: parameters)
        } else {
            // Where the time is spent: visit centres weighted by dwell.
            view = MapView.fit(
                visits: selection.visits.map { (wx($0.lon), WebMercator.y(latitude: $0.lat), $0.dwellS) }, parameters: parameters)
        }
        view.west = west
        allBox = (view.gx(worldBox.x0), view.gy(worldBox.y0), view.gx(worldBox.x1), view.gy(worldBox.y1))
        var ids = Set<Int64>()
        for trip in selection.trips { ids.insert(trip.deviceID) }
        for visit in selection.visits { ids.insert(visit.deviceID) }
        for entry in selection.dayDeviceDistances { ids.insert(entry.deviceID) }
        deviceOrder = ids.sorted { (selection.deviceNamesByID[$0] ?? "", $0) < (selection.deviceNamesByID[$1] ?? "", $1) }
        for (k, id) in deviceOrder.enumerated() { deviceIndex[id] = k }

        // Modes by total time (legs, or the trip itself when it has none), then by name.
        var time: [String: Double] = [:]
        var distance: [String: Double] = [:]
        for trip in selection.trips {
            if trip.legs.isEmpty {
                time[trip.mode, default: 0] += trip.durationS
                distance[trip.mode, default: 0] += trip.distanceM
            }
            for leg in trip.legs {
                time[leg.mode, default: 0] += leg.durationS
                distance[leg.mode, default: 0] += leg.distanceM
            }
        }
        modes = time.keys.sorted { (time[$0]!, $1) > (time[$1]!, $0) }
        for (i, mode) in modes.enumerated() { modeIndex[mode] = i }
        modeTime = modes.map { time[$0]! }
        modeDistance = modes.map { distance[$0]! }
        placeOrder = selection.places.keys.sorted()
        for (i, id) in placeOrder.enumerated() { placeIndex[id] = i }
    }

    mutating func render() throws -> MapDocument {
        let script = MapAssets.script
        let hash = SHA256.base64(SHA256.digest(Array(script.utf8)))
        let period = periodText()
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        // Without --tiles nothing may be fetched; with it, images from that one origin only (checked by MapTiles).
        let images = parameters.tiles.map { "; img-src " + $0.origin } ?? ""
        out.append(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-\(hash)'\(Markup.attribute(images))\">\n"
        )
        out.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        out.append("<title>")
        out.append(Markup.text(parameters.title + " map · " + period))
        out.append("</title>\n<style>\n")
        out.append(MapAssets.style)
        out.append("\n")
        let colours = ModePalette.colours(for: modes)
        for (i, colour) in colours.enumerated() {
            out.append("#map .m\(i){stroke:\(colour)}.sw.m\(i),.ln.m\(i){background:\(colour)}\n")
        }
        out.append("</style>\n</head>\n<body>\n<main id=\"pane\">\n")
        try writeMap()
        writeOverlays()
        out.append("</main>\n")
        writeSide(period: period)
        writeData()
        out.append("<script>")
        out.append(script)
        out.append("</script>\n</body>\n</html>\n")
        return MapDocument(
            bytes: out.bytes, tripsSelected: selection.trips.count, tripsDrawn: tripsDrawn,
            visitsSelected: selection.visits.count, visitsDrawn: visitsDrawn, labels: labelsDrawn,
            pointsRead: selection.pointsRead, verticesWritten: vertices, baseShapes: baseShapes, cityCandidates: cities.count,
            skipped: selection.skipped)
    }

    /// `2024-03-01 – 2024-03-31`: the filter's days where given, else the data's.
    func periodText() -> String {
        var first = selection.filter.fromDay
        var last = selection.filter.toDay
        let days = dataDays()
        if first == nil { first = days.first }
        if last == nil { last = days.last }
        func date(_ day: Int) -> String { CivilTime.localDate(ms: Int64(day) * 86_400_000, offsetSeconds: 0) }
        switch (first, last) {
        case let (a?, b?): return a == b ? date(a) : date(a) + " – " + date(b)
        case let (a?, nil): return "from " + date(a)
        case let (nil, b?): return "until " + date(b)
        default: return "all time"
        }
    }

    /// Every local day with a trip, a visit or a daily total, sorted.
    func dataDays() -> [Int] {
        var set = Set<Int>()
        for trip in selection.trips { set.insert(trip.day) }
        for visit in selection.visits { set.insert(visit.day) }
        for day in selection.dayDistances { set.insert(day.day) }
        return set.sorted()
    }

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
            if paths.isEmpty, let start = trip.start, let end = trip.end {
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

    // MARK: The side panel

    mutating func writeSide(period: String) {
        out.append("<aside id=\"side\">\n<h1>")
        out.append(Markup.text(parameters.title))
        out.append("</h1>\n<p class=\"sub\"><span id=\"period\" data-all=\"")
        out.append(Markup.attribute(period))
        out.append("\">")
        out.append(Markup.text(period))
        out.append("</span> · ")
        let names = selection.filter.device.map { [$0] } ?? selection.deviceNames
        if names.count == 1 {
            out.append("device ")
            out.append(Markup.text(names[0]))
        } else {
            out.append(names.isEmpty ? "no devices" : "\(names.count) devices")
        }
        out.append("</p>\n")
        out.append("<div id=\"picker\"><label for=\"month\">Show</label> <select id=\"month\"><option value=\"\">whole period</option></select> <select id=\"day\" disabled=\"disabled\"><option value=\"\">every day</option></select>")
        if deviceOrder.count > 1 {
            out.append(" <select id=\"dev\" title=\"Device\"><option value=\"\">every device</option>")
            for (k, id) in deviceOrder.enumerated() {
                out.append("<option value=\"\(k)\">")
                out.append(Markup.text(selection.deviceNamesByID[id] ?? ""))
                out.append("</option>")
            }
            out.append("</select>")
        }
        out.append("</div>\n")
        out.append("<section id=\"summary\">\n")
        writeSummary()
        out.append("</section>\n")
        writeChart()
        // Filled by the script from the data's "tl": the picked period's days, one after another.
        if !timeline.isEmpty { out.append("<section id=\"timeline\" aria-label=\"Timeline\"></section>\n") }
        out.append("</aside>\n")
    }

    mutating func writeSummary() {
        if selection.isEmpty {
            out.append("<p class=\"nothing\">Nothing to show: there are no trips or visits")
            if let device = selection.filter.device {
                out.append(" for device ")
                out.append(Markup.text(device))
            }
            out.append(" in this period. Import data and run <code>tripline rebuild</code>, or choose other dates.</p>\n")
            return
        }
        let distance = selection.trips.reduce(0) { $0 + $1.distanceM }
        let moving = selection.trips.reduce(0) { $0 + $1.movingS }
        out.append("<dl class=\"stats\">")
        for (name, value) in [
            ("Distance", NumberText.distance(distance)), ("Moving time", NumberText.duration(moving)),
            ("Trips", NumberText.grouped(selection.trips.count)), ("Visits", NumberText.grouped(selection.visits.count)),
        ] {
            out.append("<div><dt>\(name)</dt><dd>\(value)</dd></div>")
        }
        out.append("</dl>\n")
        if !modes.isEmpty {
            out.append("<h2>Time by mode</h2>\n<table class=\"modes\">")
            for (i, mode) in modes.enumerated() {
                out.append("<tr><td><span class=\"sw m\(i)\"></span>")
                out.append(Markup.text(mode))
                out.append("</td><td>\(NumberText.duration(modeTime[i]))</td><td>\(NumberText.distance(modeDistance[i]))</td></tr>")
            }
            out.append("</table>\n")
        }
        let top = rankedPlaces().prefix(MapPage.topPlaces)
        if !top.isEmpty {
            out.append("<h2>Top places</h2>\n<ol class=\"places\">")
            for entry in top {
                out.append("<li><span class=\"pn\">")
                out.append(Markup.text(selection.places[entry.id]!.name))
                out.append("</span><span class=\"pv\">\(NumberText.grouped(entry.visits)) visit\(entry.visits == 1 ? "" : "s") · \(NumberText.duration(entry.dwellS))</span></li>")
            }
            out.append("</ol>\n")
        }
    }

    static let topPlaces = 8

    /// The per-day distance bar chart, one bar per local day from the first to the last day with data.
    mutating func writeChart() {
        let totals = selection.dayDistances
        guard let first = totals.first?.day, let last = totals.last?.day else { return }
        let width = 350.0
        let height = 130.0
        let top = 14.0
        let bottom = 18.0
        let count = Double(last - first + 1)
        let slot = width / count
        let barWidth = max(0.4, slot * (slot > 3 ? 0.8 : 1))
        let maxMetres = max(1, totals.map(\.metres).max() ?? 1)
        out.append("<h2>Distance per day</h2>\n<svg id=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"Distance per day\">\n")
        out.append("<line x1=\"0\" y1=\"\(Int(height - bottom))\" x2=\"\(Int(width))\" y2=\"\(Int(height - bottom))\"/>\n")
        out.append("<text x=\"0\" y=\"10\">max \(Markup.text(NumberText.distance(maxMetres)))</text>\n")
        for entry in totals {
            let h = max(entry.metres > 0 ? 1 : 0, (entry.metres / maxMetres) * (height - top - bottom))
            let x = Double(entry.day - first) * slot + (slot - barWidth) / 2
            out.append("<rect class=\"bar\" data-d=\"\(entry.day)\" x=\"\(NumberText.fixed(x, decimals: 2))\" y=\"\(NumberText.fixed(height - bottom - h, decimals: 2))\" width=\"\(NumberText.fixed(barWidth, decimals: 2))\" height=\"\(NumberText.fixed(h, decimals: 2))\"><title>")
            out.append(Markup.text(CivilTime.localDate(ms: Int64(entry.day) * 86_400_000, offsetSeconds: 0) + ": " + NumberText.distance(entry.metres)))
            out.append("</title></rect>\n")
        }
        func date(_ day: Int) -> String { CivilTime.localDate(ms: Int64(day) * 86_400_000, offsetSeconds: 0) }
        if last - first >= 45 {
            // Month ticks, labelled with the month's name where there is room (the period is in the heading).
            let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            for day in first...last {
                let civil = CivilTime.civilFromDays(day)
                guard civil.day == 1 else { continue }
                let x = NumberText.fixed(Double(day - first) * slot, decimals: 1)
                out.append("<line x1=\"\(x)\" y1=\"\(Int(height - bottom))\" x2=\"\(x)\" y2=\"\(Int(height - bottom + 4))\"/>")
                if slot * 28 >= 22 && last - day >= 8 {
                    out.append("<text x=\"\(NumberText.fixed(Double(day - first) * slot + 1.5, decimals: 1))\" y=\"\(Int(height - bottom + 13))\">\(names[civil.month - 1])</text>")
                }
                out.append("\n")
            }
        } else {
            out.append("<text x=\"0\" y=\"\(Int(height - 4))\">\(date(first))</text>\n")
            if last != first {
                out.append("<text x=\"\(Int(width))\" y=\"\(Int(height - 4))\" text-anchor=\"end\">\(date(last))</text>\n")
            }
        }
        out.append("</svg>\n")
    }

    // MARK: The data for the script

    mutating func writeData() {
        out.append("<script type=\"application/json\" id=\"data\">{\"view\":[")
        out.append(Self.json(view.x0))
        out.append(",")
        out.append(Self.json(view.y0))
        out.append(",")
        out.append(NumberText.fixed(view.scale, decimals: 3))  // opening px per world unit: up to ~1e9
        out.append(",\(view.detail),\(view.width),\(view.height)],\"all\":[")
        out.append([allBox.x0, allBox.y0, allBox.x1, allBox.y1].map { String(Self.int($0)) }.joined(separator: ","))
        out.append("],\"top\":\(MapPage.topPlaces),\"labels\":\(parameters.maxLabels),\"tiles\":")
        out.append(parameters.tiles.map { JSONText.quotedForScript($0.template) } ?? "null")
        out.append(",\"devices\":[")
        out.append(deviceOrder.map { JSONText.quotedForScript(selection.deviceNamesByID[$0] ?? "") }.joined(separator: ","))
        out.append("],\"cities\":[")
        out.append(cities.map { JSONText.quotedForScript($0.name) + ",\($0.x),\($0.y),\($0.population)" }.joined(separator: ","))
        out.append("],\"modes\":[")
        out.append(modes.map { JSONText.quotedForScript($0.isEmpty ? "unknown" : $0) }.joined(separator: ","))
        out.append("],\"places\":[")
        out.append(placeOrder.map { JSONText.quotedForScript(selection.places[$0]!.name) }.joined(separator: ","))
        out.append("],\"pxy\":[")
        out.append(placeOrder.map { id in
            let place = selection.places[id]!
            return "\(Int(view.gx(view.worldX(place.lon)).rounded())),\(Int(view.gy(WebMercator.y(latitude: place.lat)).rounded()))"
        }.joined(separator: ","))
        out.append("],\n\"t\":[")
        out.append(selection.trips.indices.map(tripData).joined(separator: ",\n"))
        out.append("],\n\"vs\":[")
        out.append(selection.visits.map { visit in
            "[\(visit.day),\(Self.localSeconds(visit.startMs, visit.startOffsetS)),\(Self.localSeconds(visit.endMs, visit.endOffsetS)),\(visit.startOffsetS),\(visit.placeID.flatMap { placeIndex[$0] } ?? -1),\(deviceIndex[visit.deviceID] ?? 0)]"
        }.joined(separator: ",\n"))
        out.append("],\n\"days\":[")
        out.append(selection.dayDeviceDistances.map { "[\($0.day),\(Self.int($0.metres)),\(deviceIndex[$0.deviceID] ?? 0)]" }.joined(separator: ","))
        out.append("],\n\"tld\":[")
        let names = Set(timeline.flatMap { $0.entries.map(\.device) }).sorted()
        out.append(names.map { JSONText.quotedForScript($0) }.joined(separator: ","))
        out.append("],\n\"tl\":[")
        out.append(timelineData(devices: names).joined(separator: ",\n"))
        out.append("]}</script>\n")
    }

    /// The timeline for the script: per day `[day, [entry, …]]`, an entry `[kind (0 visit, 1 trip, 2 gap), index in "vs"
    /// or "t" (-1 when the map does not hold it: begun before the period), device index in "tld", what, when, legs,
    /// mode index (-1 for visits)]`; what, when and legs are the `day` report's own words.
    func timelineData(devices: [String]) -> [String] {
        var tripIndex: [Int64: Int] = [:]
        for (i, trip) in selection.trips.enumerated() { tripIndex[trip.id] = i }
        var visitIndex: [Int64: Int] = [:]
        for (i, visit) in selection.visits.enumerated() { visitIndex[visit.id] = i }
        var deviceIndex: [String: Int] = [:]
        for (i, name) in devices.enumerated() { deviceIndex[name] = i }
        return timeline.map { day in
            "[\(day.day),[" + day.entries.map { e in
                let trip = e.kind == .trip
                let kind = trip ? 1 : e.kind == .gap ? 2 : 0
                let ref = (e.kind == .gap ? nil : trip ? tripIndex[e.id] : visitIndex[e.id]) ?? -1
                let legs = e.legs.map { JSONText.quotedForScript($0) }.joined(separator: ",")
                let mode = trip ? modeIndex[e.title] ?? -1 : -1
                return "[\(kind),\(ref),\(deviceIndex[e.device] ?? 0),\(JSONText.quotedForScript(e.what)),\(JSONText.quotedForScript(e.when)),[\(legs)],\(mode)]"
            }.joined(separator: ",") + "]]"
        }
    }

    /// Trip `i` for the script: local day, start and end, offset, distance, durations, mode, places, legs, whether
    /// it is drawn straight, device.
    func tripData(_ i: Int) -> String {
        let trip = selection.trips[i]
        let legs = trip.legs.map { "[\(modeIndex[$0.mode] ?? 0),\(Self.int($0.durationS)),\(Self.int($0.distanceM))]" }.joined(separator: ",")
        return "[\(trip.day),\(Self.localSeconds(trip.startMs, trip.startOffsetS)),\(Self.localSeconds(trip.endMs, trip.endOffsetS)),\(trip.startOffsetS),"
            + "\(Self.int(trip.distanceM)),\(Self.int(trip.durationS)),\(Self.int(trip.movingS)),\(modeIndex[trip.mode] ?? -1),"
            + "\(trip.fromPlaceID.flatMap { placeIndex[$0] } ?? -1),\(trip.toPlaceID.flatMap { placeIndex[$0] } ?? -1),["
            + legs + "],\(straight.contains(i) ? 1 : 0),\(deviceIndex[trip.deviceID] ?? 0)]"
    }

    /// Local wall-clock seconds since the epoch (UTC seconds plus the offset), so the script formats local times
    /// with UTC getters, independent of the viewer's time zone.
    static func localSeconds(_ ms: Int64, _ offsetS: Int) -> Int64 {
        CivilTime.floorDiv(ms, 1000) + Int64(offsetS)
    }

    static func int(_ value: Double) -> Int {
        value.isFinite ? Int(value.rounded()) : 0
    }

    /// A JSON number with up to 12 significant decimals, deterministic.
    static func json(_ value: Double) -> String {
        NumberText.fixed(value, decimals: 12)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[start...end])
    }
}
