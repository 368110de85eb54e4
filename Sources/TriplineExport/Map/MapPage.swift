#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore

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
            for runs in trip.appLegs { for run in runs { longitudes += run.map(\.lon) } }
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
            for runs in trip.appLegs {
                for run in runs {
                    for v in run {
                        xs.append(wx(v.lon))
                        ys.append(WebMercator.y(latitude: v.lat))
                    }
                }
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
        for entry in selection.dayTotals { ids.insert(entry.deviceID) }
        deviceOrder = Store.idsByName(selection.deviceNamesByID).filter(ids.contains)
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
        func date(_ day: Int) -> String { CivilTime.date(day: day) }
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
}
