import TriplineCore
import TriplineStore

/// A failure to select what the map shows.
public struct MapError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One leg of a trip as the map uses it.
struct MapLeg {
    var mode: String
    var startMs: Int64
    var endMs: Int64
    var distanceM: Double
    var durationS: Double
}

/// One trip of the selection, with its legs, and its geometry once streamed from `points`.
struct MapTrip {
    var id: Int64
    var deviceID: Int64
    var startMs: Int64
    var endMs: Int64
    var startOffset: UTCOffset
    var endOffset: UTCOffset
    var durationS: Double
    var movingS: Double
    var distanceM: Double
    var mode: String
    var fromPlaceID: Int64?
    var toPlaceID: Int64?
    var start: (lat: Double, lon: Double)?
    var end: (lat: Double, lon: Double)?
    var legs: [MapLeg]
    /// The local day the trip starts on.
    var day: Int
    /// Unflagged points in the trip's span (counted by the sampling pass).
    var pointCount = 0
    /// A trip taken from Google's timeline (`source = 'app'`): drawn along Google's line, not fixes.
    var isApp = false
    /// For such a trip, each leg's line (``AppLineLoader``, as the exports write it), parallel to ``legs``: the runs of
    /// two positions or more outside every privacy zone.
    var appLegs: [[[LineVertex]]] = []
    /// Whether that line is only the straight line between each leg's ends (Google gave no path points).
    var appStraight = false
}

/// One visit of the selection.
struct MapVisit {
    var id: Int64
    var deviceID: Int64
    var placeID: Int64?
    var startMs: Int64
    var endMs: Int64
    var startOffset: UTCOffset
    var endOffset: UTCOffset
    var lat: Double
    var lon: Double
    var day: Int
    var dwellS: Double { Double(max(0, endMs - startMs)) / 1000 }
}

/// A place some visit of the selection belongs to.
struct MapPlace {
    var id: Int64
    var name: String
    var lat: Double
    var lon: Double
}

/// Everything the map draws, read from the store: the selected trips (with geometry), visits, their places and
/// the per-day distances.
struct MapSelection {
    var filter: RecordFilter
    var deviceNames: [String]
    /// Every device's name by id (the picker and tooltips name the device of a trip or visit).
    var deviceNamesByID: [Int64: String] = [:]
    var trips: [MapTrip] = []
    var visits: [MapVisit] = []
    var places: [Int64: MapPlace] = [:]
    /// Distance per local day, from `days` when it has rows for the selection, else summed from the trips.
    var dayDistances: [(day: Int, metres: Double)] = []
    /// Distance and moving time per local day and device, from the same source (the script's chart and summary follow
    /// the period and device pickers). A trip over midnight counts on each day by its part of it, as in `days`.
    var dayTotals: [DayTotal] = []
    /// The selection's distance and moving time: its days' (``dayTotals``), so that the summary agrees with the
    /// chart below it and with the `daily-summary` report.
    var distanceM: Double { dayTotals.reduce(0) { $0 + $1.metres } }
    var movingS: Double { dayTotals.reduce(0) { $0 + $1.movingS } }
    /// A bounded, evenly strided sample of the trips' points in world units (x, y interleaved), for fitting
    /// the view; and how many points the sampling pass read.
    var sample: [Double] = []
    var pointsRead = 0
    /// Stored rows (trips, visits, places, daily totals) and points left out for values no recording has (an
    /// edited database): see ``MapLoader/Limits``.
    var skipped = 0

    var isEmpty: Bool { trips.isEmpty && visits.isEmpty }
}

/// One device's distance and moving time on one local day.
struct DayTotal {
    var day: Int
    var deviceID: Int64
    var metres: Double
    var movingS: Double
}

/// Reads a ``MapSelection`` from the store: trips, legs, visits, places, daily distances, and an evenly strided
/// sample of the trips' points (bounded in size) to fit the view to. The geometry itself is streamed a second time,
/// trip by trip, by ``TripPointStream`` while the page is written, so memory never holds all the points.
struct MapLoader {
    let store: Store
    let parameters: MapParameters

    /// What a stored row must hold to be drawn. The rebuild writes nothing else, but a database is a file anyone
    /// can edit: a longitude of 1e300, an infinite distance or a time of `Int64.min` is left out (and counted in
    /// ``MapSelection/skipped``) instead of overflowing the page's arithmetic or drawing a chart of 10⁸ days.
    enum Limits {
        /// Times: years 0000 to 9999 (what four-digit dates show).
        static let timeMs: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
        /// Distances (metres) and durations (seconds): finite and at most this large either way.
        static let magnitude = 1e15

        static func time(_ ms: Int64) -> Bool { timeMs.contains(ms) }
        /// UTC offsets: as the importers, ±18 h (``UTCOffset/isValid``).
        static func offset(_ o: UTCOffset) -> Bool { o.isValid }
        static func amount(_ x: Double) -> Bool { x.isFinite && x.magnitude <= magnitude }
        /// A position: finite, latitude within ±90 (any finite longitude is wrapped onto the map).
        static func position(_ lat: Double, _ lon: Double) -> Bool { lat.isFinite && lon.isFinite && lat.magnitude <= 90 }
    }

    func load(_ filter: RecordFilter) throws -> MapSelection {
        var deviceIDs: [Int64]? = nil
        var names: [String] = []
        if let name = filter.device {
            deviceIDs = [try store.deviceID(named: name)]
            names = [name]
        } else {
            names = try store.sortedDeviceNames()
        }
        var selection = MapSelection(filter: filter, deviceNames: names)
        selection.deviceNamesByID = try store.deviceNames()
        let device = deviceIDs?.first
        try loadTrips(&selection, filter, device: device)
        let privacy = parameters.privacyZones.isEmpty
            ? nil : try PrivacyClipper(store: store, zones: parameters.privacyZones)
        if let privacy { try hidePrivateTrips(&selection, privacy) }
        try sampleTripPoints(&selection)
        PausePoint.reach("map.read")  // process tests: a rebuild commits here; the map must still read one snapshot
        try loadVisits(&selection, filter, device: device)
        if let privacy { hidePrivateVisits(&selection, privacy) }
        try loadPlaces(&selection)
        let perDevice = try dayTotals(filter: filter, device: device, trips: selection.trips, names: selection.deviceNamesByID, skipped: &selection.skipped)
        selection.dayTotals = perDevice
        var totals: [Int: Double] = [:]
        for entry in perDevice { totals[entry.day, default: 0] += entry.metres }
        selection.dayDistances = totals.keys.sorted().map { ($0, totals[$0]!) }
        return selection
    }

    /// The local day a row starts on and its offsets, from its start time and offset columns (a missing start
    /// offset is UTC; a missing end offset is the start's).
    /// Nil when the start time or an offset is outside ``Limits``.
    func localStart(ms startMs: Int64, startOffset: UTCOffset?, endOffset: UTCOffset?) -> (day: Int, startMs: Int64, start: UTCOffset, end: UTCOffset)? {
        let start = startOffset ?? .utc
        let end = endOffset ?? start
        guard Limits.time(startMs), Limits.offset(start), Limits.offset(end) else { return nil }
        return (start.localDay(ms: startMs), startMs, start, end)
    }

    /// Trips that start on a selected day, and their legs.
    func loadTrips(_ selection: inout MapSelection, _ filter: RecordFilter, device: Int64?) throws {
        let window = filter.utcWindowMs
        try store.forEachTrip(device: device, startingFromMs: window.lo, throughMs: window.hi - 1) { trip in
            let t = trip.row
            guard let (day, startMs, startOffset, endOffset) = localStart(ms: t.startMs, startOffset: t.startUTCOffset, endOffset: t.endUTCOffset),
                  Limits.time(t.endMs), Limits.amount(t.durationS), Limits.amount(t.movingS), Limits.amount(t.distanceM)
            else {
                selection.skipped += 1
                return
            }
            guard filter.contains(day: day) else { return }
            var mapTrip = MapTrip(
                id: trip.id, deviceID: t.deviceID, startMs: startMs, endMs: t.endMs,
                startOffset: startOffset, endOffset: endOffset,
                durationS: t.durationS, movingS: t.movingS, distanceM: t.distanceM,
                mode: t.mode, fromPlaceID: t.fromPlaceID, toPlaceID: t.toPlaceID,
                start: nil, end: nil, legs: [], day: day)
            mapTrip.isApp = t.source == "app"
            if let lat = t.startLat, let lon = t.startLon { mapTrip.start = (lat, lon) }
            if let lat = t.endLat, let lon = t.endLon { mapTrip.end = (lat, lon) }
            if let start = mapTrip.start, let end = mapTrip.end, !Limits.position(start.lat, start.lon) || !Limits.position(end.lat, end.lon) {
                selection.skipped += 1
                return
            }
            selection.trips.append(mapTrip)
        }
        var saneTrips: [MapTrip] = []
        saneTrips.reserveCapacity(selection.trips.count)
        var appLines: AppLineLoader?
        for index in selection.trips.indices {
            var sane = true
            let isApp = selection.trips[index].isApp
            if isApp, appLines == nil { appLines = try AppLineLoader(store: store) }
            var straight = true
            for leg in try store.legs(ofTrip: selection.trips[index].id) {
                sane = sane && Limits.time(leg.startMs) && Limits.time(leg.endMs) && Limits.amount(leg.distanceM) && Limits.amount(leg.durationS)
                selection.trips[index].legs.append(
                    MapLeg(mode: leg.mode, startMs: leg.startMs, endMs: leg.endMs, distanceM: leg.distanceM, durationS: leg.durationS))
                if isApp, let appLines {
                    let line = try appLines.vertices(tripID: selection.trips[index].id, leg: leg.leg)
                    straight = straight && line.count <= 2
                    selection.trips[index].appLegs.append(parameters.privacyZones.cut(line))
                }
            }
            selection.trips[index].appStraight = isApp && straight
            if sane { saneTrips.append(selection.trips[index]) } else { selection.skipped += 1 }
        }
        selection.trips = saneTrips
    }

    /// Visits that start on a selected day.
    func loadVisits(_ selection: inout MapSelection, _ filter: RecordFilter, device: Int64?) throws {
        let window = filter.utcWindowMs
        try store.forEachVisit(device: device, startingFromMs: window.lo, throughMs: window.hi - 1) { visit in
            let v = visit.row
            guard let (day, startMs, startOffset, endOffset) = localStart(ms: v.startMs, startOffset: v.startUTCOffset, endOffset: v.endUTCOffset),
                  Limits.time(v.endMs), Limits.position(v.lat, v.lon)
            else {
                selection.skipped += 1
                return
            }
            guard filter.contains(day: day) else { return }
            selection.visits.append(
                MapVisit(
                    id: visit.id, deviceID: v.deviceID, placeID: v.placeID, startMs: startMs, endMs: v.endMs, startOffset: startOffset,
                    endOffset: endOffset, lat: v.lat, lon: v.lon, day: day))
        }
    }

    /// The places the selected visits and trips name.
    func loadPlaces(_ selection: inout MapSelection) throws {
        var wanted = Set<Int64>()
        for visit in selection.visits { if let id = visit.placeID { wanted.insert(id) } }
        for trip in selection.trips {
            if let id = trip.fromPlaceID { wanted.insert(id) }
            if let id = trip.toPlaceID { wanted.insert(id) }
        }
        for id in wanted.sorted() {
            if let place = try store.placeNameAndCentre(id: id) {
                guard Limits.position(place.lat, place.lon) else {
                    selection.skipped += 1
                    continue
                }
                selection.places[id] = MapPlace(id: id, name: place.name, lat: place.lat, lon: place.lon)
            }
        }
    }

    /// Reads every trip's unflagged points once, counting them and keeping an evenly strided sample of at most
    /// ``MapParameters/fitSampleSize`` points: when the sample fills up, every other point is dropped and the
    /// stride doubles. Deterministic, and O(sample) memory however many points there are.
    func sampleTripPoints(_ selection: inout MapSelection) throws {
        let stream = try TripPointStream(store: store, zones: parameters.privacyZones)
        let capacity = max(2, parameters.fitSampleSize) * 2
        var sample: [Double] = []
        sample.reserveCapacity(min(capacity, 1 << 16))
        var stride = 1
        var seen = 0
        for index in selection.trips.indices {
            selection.trips[index].pointCount = try stream.read(selection.trips[index], skipped: &selection.skipped) { _, lat, lon in
                if seen % stride == 0 {
                    if sample.count >= capacity {
                        var kept: [Double] = []
                        kept.reserveCapacity(capacity / 2 + 2)
                        var i = 0
                        while i + 1 < sample.count {
                            kept.append(sample[i])
                            kept.append(sample[i + 1])
                            i += 4
                        }
                        sample = kept
                        stride *= 2
                    }
                    if seen % stride == 0 {
                        sample.append(WebMercator.x(longitude: lon))
                        sample.append(WebMercator.y(latitude: lat))
                    }
                }
                seen += 1
            }
        }
        selection.sample = sample
        selection.pointsRead = seen
    }

    /// Each device's distance and moving time per local day of the filter: the `days` rows, or, when the selection has
    /// none (no rebuild wrote them), its trips counted on the day they start; by day, then device name
    /// (``Store/idsByName(_:)``).
    func dayTotals(filter: RecordFilter, device: Int64?, trips: [MapTrip], names: [Int64: String], skipped: inout Int) throws -> [DayTotal] {
        let rank = Dictionary(uniqueKeysWithValues: Store.idsByName(names).enumerated().map { ($1, $0) })
        struct Key: Hashable, Comparable {
            var day: Int
            var device: Int64
            var rank: Int
            static func < (a: Key, b: Key) -> Bool { (a.day, a.rank, a.device) < (b.day, b.rank, b.device) }
        }
        var totals: [Key: (metres: Double, movingS: Double)] = [:]
        func add(_ day: Int, _ deviceID: Int64, _ metres: Double, _ movingS: Double) {
            let key = Key(day: day, device: deviceID, rank: rank[deviceID] ?? Int.max)
            let sum = totals[key] ?? (0, 0)
            totals[key] = (sum.metres + metres, sum.movingS + movingS)
        }
        try store.forEachDay(device: device, fromDate: nil, toDate: nil) { row in
            guard let day = CivilTime.parseDate(row.date), filter.contains(day: day) else { return }
            guard Limits.amount(row.distanceM), Limits.amount(row.movingS) else {
                skipped += 1
                return
            }
            add(day, row.deviceID, row.distanceM, row.movingS)
        }
        if totals.isEmpty {
            for trip in trips { add(trip.day, trip.deviceID, trip.distanceM, trip.movingS) }
        }
        return totals.keys.sorted().map { DayTotal(day: $0.day, deviceID: $0.device, metres: totals[$0]!.metres, movingS: totals[$0]!.movingS) }
    }

}

/// Streams the unflagged points of a trip's time span for its device, in time order, one row at a time.
///
/// Reads through ``PointRangeReader``, which merges the points with their (few) flagged times: ~6× faster than joining
/// `point_flags` for every point.
struct TripPointStream {
    let reader: PointRangeReader
    /// Points inside these are passed over (and counted in `zoneSkips`: a path breaks there).
    let zones: PrivacyZones
    let zoneSkips = SkipCounter()

    final class SkipCounter {
        var value = 0
    }

    init(store: Store, zones: PrivacyZones) throws {
        self.zones = zones
        reader = try PointRangeReader(store, columns: .position)
    }

    /// Calls `body(time, lat, lon)` for each unflagged point of the trip; returns how many there were. A point
    /// without a possible position (``MapLoader/Limits/position(_:_:)``) is left out and counted in `skipped`.
    @discardableResult
    func read(_ trip: MapTrip, skipped: inout Int, _ body: (Int64, Double, Double) throws -> Void) throws -> Int {
        var count = 0
        var skippedHere = 0
        try reader.read(device: trip.deviceID, startMs: trip.startMs, endMs: trip.endMs) { points, time, flags in
            if flags != 0 { return }
            let lat = points.double(PointRangeReader.Column.lat), lon = points.double(PointRangeReader.Column.lon)
            guard MapLoader.Limits.position(lat, lon) else {
                skippedHere += 1
                return
            }
            if !zones.isEmpty, zones.contains(lat: lat, lon: lon) {
                zoneSkips.value += 1
                return
            }
            try body(time, lat, lon)
            count += 1
        }
        skipped += skippedHere
        return count
    }

    /// The trip's paths in grid units of `view`, one per leg (or one for a trip without legs), each with the index
    /// of its leg (-1 for the trip's own mode). A point belongs to the first leg whose end it does not pass;
    /// consecutive legs share their boundary point so the line is continuous. Legs with fewer than two points
    /// are left out. Memory: the trip's own points only.
    ///
    /// Each path's x is *continuous*: every point is placed the short way round from the one before, so a path
    /// that crosses the frame's seam runs on past the frame's edge (``MapSeam/cut(xs:ys:seam:period:)`` cuts it
    /// there); and two consecutive fixes more than ``MapSeam/arcMinimumM`` apart (a flight) are joined by the
    /// great-circle arc between them (``MapSeam/arcPoints(_:_:_:_:_:)``), less any arc point inside a privacy zone.
    func paths(_ trip: MapTrip, view: MapView) throws -> [(leg: Int, xs: [Double], ys: [Double])] {
        if trip.isApp { return appPaths(trip, view: view) }
        let bounds: [(leg: Int, endMs: Int64)] =
            trip.legs.isEmpty ? [(-1, Int64.max)] : trip.legs.enumerated().map { ($0.offset, $0.element.endMs) }
        var result: [(leg: Int, xs: [Double], ys: [Double])] = []
        var current = 0
        var xs: [Double] = []
        var ys: [Double] = []
        var skipped = 0  // counted once, by the sampling pass
        var lastSkips = zoneSkips.value
        /// The last fix of the path being built, for the arcs.
        var last: (lat: Double, lon: Double)? = nil
        try read(trip, skipped: &skipped) { time, lat, lon in
            let wrapped = view.gx(view.worldX(lon))
            let y = view.gy(WebMercator.y(latitude: lat))
            if !zones.isEmpty {
                // The page writes the vertex rounded to its grid: that position, too, must be outside every zone.
                let rounded = view.position(gx: wrapped.rounded(), gy: y.rounded())
                if zones.contains(lat: rounded.lat, lon: rounded.lon) { zoneSkips.value += 1 }
                if zoneSkips.value != lastSkips {
                    // A privacy zone passed over: the path breaks, as at a gap.
                    if xs.count >= 2 { result.append((bounds[current].leg, xs, ys)) }
                    xs.removeAll(keepingCapacity: true)
                    ys.removeAll(keepingCapacity: true)
                    last = nil
                    lastSkips = zoneSkips.value
                    if zones.contains(lat: rounded.lat, lon: rounded.lon) { return }
                }
            }
            while current < bounds.count - 1 && time > bounds[current].endMs {
                if xs.count >= 2 { result.append((bounds[current].leg, xs, ys)) }
                let join = xs.isEmpty ? nil : (xs[xs.count - 1], ys[ys.count - 1])
                xs.removeAll(keepingCapacity: true)
                ys.removeAll(keepingCapacity: true)
                if let join {
                    xs.append(join.0)
                    ys.append(join.1)
                }
                current += 1
            }
            if let previous = last, let px = xs.last {
                view.appendArc(from: previous, to: (lat, lon), after: px, zones: zones, xs: &xs, ys: &ys)
            }
            xs.append(view.continuousGX(wrapped, after: xs.last))
            ys.append(y)
            last = (lat, lon)
        }
        if xs.count >= 2 { result.append((bounds[current].leg, xs, ys)) }
        return result
    }

    /// The paths of a trip taken from Google's timeline: each leg's line (``MapTrip/appLegs``, the privacy zones already
    /// applied), in grid units, as the exports write it; long segments (a flight) along the great circle, as for fixes,
    /// and a vertex that the page's rounding would put inside a zone left out, the path broken there.
    func appPaths(_ trip: MapTrip, view: MapView) -> [(leg: Int, xs: [Double], ys: [Double])] {
        var result: [(leg: Int, xs: [Double], ys: [Double])] = []
        for (leg, runs) in trip.appLegs.enumerated() {
            for run in runs {
                var xs: [Double] = []
                var ys: [Double] = []
                var last: (lat: Double, lon: Double)? = nil
                for v in run {
                    guard MapLoader.Limits.position(v.lat, v.lon) else { continue }
                    let wrapped = view.gx(view.worldX(v.lon))
                    let y = view.gy(WebMercator.y(latitude: v.lat))
                    if !zones.isEmpty, zones.contains(view.position(gx: wrapped.rounded(), gy: y.rounded())) {
                        if xs.count >= 2 { result.append((leg, xs, ys)) }
                        xs.removeAll()
                        ys.removeAll()
                        last = nil
                        continue
                    }
                    if let previous = last, let px = xs.last {
                        view.appendArc(from: previous, to: (v.lat, v.lon), after: px, zones: zones, xs: &xs, ys: &ys)
                    }
                    xs.append(view.continuousGX(wrapped, after: xs.last))
                    ys.append(y)
                    last = (v.lat, v.lon)
                }
                if xs.count >= 2 { result.append((leg, xs, ys)) }
            }
        }
        return result
    }
}
