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
    var startOffsetS: Int
    var endOffsetS: Int
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
}

/// One visit of the selection.
struct MapVisit {
    var id: Int64
    var deviceID: Int64
    var placeID: Int64?
    var startMs: Int64
    var endMs: Int64
    var startOffsetS: Int
    var endOffsetS: Int
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
    /// The same per device (the script's chart follows the device picker): local day, device id, metres.
    var dayDeviceDistances: [(day: Int, deviceID: Int64, metres: Double)] = []
    /// A bounded, evenly strided sample of the trips' points in world units (x, y interleaved), for fitting
    /// the view; and how many points the sampling pass read.
    var sample: [Double] = []
    var pointsRead = 0
    /// Stored rows (trips, visits, places, daily totals) and points left out for values no recording has (an
    /// edited database): see ``MapLoader/Limits``.
    var skipped = 0

    var isEmpty: Bool { trips.isEmpty && visits.isEmpty }
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
        /// UTC offsets, seconds (as the importers: ±18 h).
        static let offsetS = 18 * 3600
        /// Distances (metres) and durations (seconds): finite and at most this large either way.
        static let magnitude = 1e15

        static func time(_ ms: Int64) -> Bool { timeMs.contains(ms) }
        static func offset(_ s: Int) -> Bool { s.magnitude <= UInt(offsetS) }
        static func amount(_ x: Double) -> Bool { x.isFinite && x.magnitude <= magnitude }
        /// A position: finite, latitude within ±90 (any finite longitude is wrapped onto the map).
        static func position(_ lat: Double, _ lon: Double) -> Bool { lat.isFinite && lon.isFinite && lat.magnitude <= 90 }
    }

    func load(_ filter: RecordFilter) throws -> MapSelection {
        let db = store.db
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
        let deviceClause = deviceIDs == nil ? "" : " AND device_id = \(deviceIDs![0])"
        try loadTrips(&selection, filter, deviceClause: deviceClause)
        let privacy = parameters.privacyZones.isEmpty
            ? nil : try PrivacyClipper(store: store, zones: parameters.privacyZones, gapSeconds: ExportParameters().gapSeconds)
        if let privacy { try hidePrivateTrips(&selection, privacy) }
        try sampleTripPoints(&selection)
        PausePoint.reach("map.read")  // process tests: a rebuild commits here; the map must still read one snapshot
        try loadVisits(&selection, filter, deviceClause: deviceClause)
        if let privacy { hidePrivateVisits(&selection, privacy) }
        try loadPlaces(&selection)
        let perDevice = try dayDistances(filter: filter, deviceClause: deviceClause, trips: selection.trips, skipped: &selection.skipped)
        selection.dayDeviceDistances = perDevice
        var totals: [Int: Double] = [:]
        for entry in perDevice { totals[entry.day, default: 0] += entry.metres }
        selection.dayDistances = totals.keys.sorted().map { ($0, totals[$0]!) }
        return selection
    }

    /// The local day a row starts on and its offsets, from its start time and offset columns (a missing start
    /// offset is UTC; a missing end offset is the start's).
    /// Nil when the start time or an offset is outside ``Limits``.
    func localStart(_ s: Statement, ms: Int32, startOffset: Int32, endOffset: Int32) -> (day: Int, startMs: Int64, start: Int, end: Int)? {
        let startMs = s.int64(ms)
        let start = s.isNull(startOffset) ? 0 : s.int(startOffset)
        let end = s.isNull(endOffset) ? start : s.int(endOffset)
        guard Limits.time(startMs), Limits.offset(start), Limits.offset(end) else { return nil }
        return (CivilTime.localDay(ms: startMs, offsetS: start), startMs, start, end)
    }

    /// Trips that start on a selected day, and their legs.
    func loadTrips(_ selection: inout MapSelection, _ filter: RecordFilter, deviceClause: String) throws {
        let db = store.db
        let window = filter.utcWindowMs
        let trips = try db.prepare(
            """
            SELECT id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s,
                   distance_m, mode, from_place_id, to_place_id, start_lat, start_lon, end_lat, end_lon
            FROM trips WHERE start_ms >= ? AND start_ms < ?\(deviceClause) ORDER BY start_ms, id
            """)
        try trips.bind([.integer(window.lo), .integer(window.hi)])
        while try trips.step() {
            guard let (day, startMs, startOffset, endOffset) = localStart(trips, ms: 2, startOffset: 4, endOffset: 5),
                  Limits.time(trips.int64(3)), Limits.amount(trips.double(6)), Limits.amount(trips.double(7)), Limits.amount(trips.double(8))
            else {
                selection.skipped += 1
                continue
            }
            guard filter.contains(day: day) else { continue }
            var trip = MapTrip(
                id: trips.int64(0), deviceID: trips.int64(1), startMs: startMs, endMs: trips.int64(3),
                startOffsetS: startOffset, endOffsetS: endOffset,
                durationS: trips.double(6), movingS: trips.double(7), distanceM: trips.double(8),
                mode: trips.text(9) ?? "", fromPlaceID: trips.optionalInt64(10), toPlaceID: trips.optionalInt64(11),
                start: nil, end: nil, legs: [], day: day)
            if !trips.isNull(12), !trips.isNull(13) { trip.start = (trips.double(12), trips.double(13)) }
            if !trips.isNull(14), !trips.isNull(15) { trip.end = (trips.double(14), trips.double(15)) }
            if let start = trip.start, let end = trip.end, !Limits.position(start.lat, start.lon) || !Limits.position(end.lat, end.lon) {
                selection.skipped += 1
                continue
            }
            selection.trips.append(trip)
        }
        let legs = try db.prepare(
            "SELECT mode, start_ms, end_ms, distance_m, duration_s FROM legs WHERE trip_id = ? ORDER BY leg")
        var saneTrips: [MapTrip] = []
        saneTrips.reserveCapacity(selection.trips.count)
        for index in selection.trips.indices {
            legs.reset()
            legs.bindInt(selection.trips[index].id, at: 1)
            var sane = true
            while try legs.step() {
                sane = sane && Limits.time(legs.int64(1)) && Limits.time(legs.int64(2)) && Limits.amount(legs.double(3)) && Limits.amount(legs.double(4))
                selection.trips[index].legs.append(
                    MapLeg(
                        mode: legs.text(0) ?? "", startMs: legs.int64(1), endMs: legs.int64(2),
                        distanceM: legs.double(3), durationS: legs.double(4)))
            }
            if sane { saneTrips.append(selection.trips[index]) } else { selection.skipped += 1 }
        }
        selection.trips = saneTrips
    }

    /// Visits that start on a selected day.
    func loadVisits(_ selection: inout MapSelection, _ filter: RecordFilter, deviceClause: String) throws {
        let window = filter.utcWindowMs
        let visits = try store.db.prepare(
            """
            SELECT id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon
            FROM visits WHERE start_ms >= ? AND start_ms < ?\(deviceClause) ORDER BY start_ms, id
            """)
        try visits.bind([.integer(window.lo), .integer(window.hi)])
        while try visits.step() {
            guard let (day, startMs, startOffset, endOffset) = localStart(visits, ms: 3, startOffset: 5, endOffset: 6),
                  Limits.time(visits.int64(4)), Limits.position(visits.double(7), visits.double(8))
            else {
                selection.skipped += 1
                continue
            }
            guard filter.contains(day: day) else { continue }
            selection.visits.append(
                MapVisit(
                    id: visits.int64(0), deviceID: visits.int64(1), placeID: visits.optionalInt64(2), startMs: startMs,
                    endMs: visits.int64(4), startOffsetS: startOffset,
                    endOffsetS: endOffset, lat: visits.double(7),
                    lon: visits.double(8), day: day))
        }
    }

    /// The places the selected visits and trips name.
    func loadPlaces(_ selection: inout MapSelection) throws {
        let place = try store.db.prepare("SELECT name, lat, lon FROM places WHERE id = ?")
        var wanted = Set<Int64>()
        for visit in selection.visits { if let id = visit.placeID { wanted.insert(id) } }
        for trip in selection.trips {
            if let id = trip.fromPlaceID { wanted.insert(id) }
            if let id = trip.toPlaceID { wanted.insert(id) }
        }
        for id in wanted.sorted() {
            place.reset()
            place.bindInt(id, at: 1)
            if try place.step() {
                guard Limits.position(place.double(1), place.double(2)) else {
                    selection.skipped += 1
                    continue
                }
                selection.places[id] = MapPlace(id: id, name: place.text(0) ?? "", lat: place.double(1), lon: place.double(2))
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

    /// Distance per local day and device: the `days` table when it has rows for the selection, else the trips'
    /// distances summed by the local day they start on; by day, then device id.
    func dayDistances(filter: RecordFilter, deviceClause: String, trips: [MapTrip], skipped: inout Int) throws -> [(day: Int, deviceID: Int64, metres: Double)] {
        struct Key: Hashable, Comparable {
            var day: Int
            var device: Int64
            static func < (a: Key, b: Key) -> Bool { (a.day, a.device) < (b.day, b.device) }
        }
        var totals: [Key: Double] = [:]
        let statement = try store.db.prepare(
            "SELECT date, distance_m, device_id FROM days WHERE 1\(deviceClause) ORDER BY date, device_id")
        while try statement.step() {
            guard let date = statement.text(0), let day = CivilTime.parseDate(date), filter.contains(day: day) else { continue }
            guard Limits.amount(statement.double(1)) else {
                skipped += 1
                continue
            }
            totals[Key(day: day, device: statement.int64(2)), default: 0] += statement.double(1)
        }
        if totals.isEmpty {
            for trip in trips { totals[Key(day: trip.day, device: trip.deviceID), default: 0] += trip.distanceM }
        }
        return totals.keys.sorted().map { ($0.day, $0.device, totals[$0]!) }
    }

}

/// Streams the unflagged points of a trip's time span for its device, in time order, one row at a time.
///
/// The trip's flagged times (few) are read first and skipped while merging, which is ~6× faster than joining
/// `point_flags` for every point.
struct TripPointStream {
    let points: Statement
    let flags: Statement
    /// Points inside these are passed over (and counted in `zoneSkips`: a path breaks there).
    let zones: PrivacyZones
    let zoneSkips = SkipCounter()

    final class SkipCounter {
        var value = 0
    }

    init(store: Store, zones: PrivacyZones) throws {
        self.zones = zones
        points = try store.db.prepare(
            "SELECT \(PointKey.timeSQL), lat, lon FROM points_hot WHERE key BETWEEN ? AND ? ORDER BY key")
        flags = try store.db.prepare(
            "SELECT time_ms FROM point_flags WHERE device_id = ? AND time_ms >= ? AND time_ms <= ? AND flags != 0 ORDER BY time_ms")
    }

    /// Calls `body(time, lat, lon)` for each unflagged point of the trip; returns how many there were. A point
    /// without a possible position (``MapLoader/Limits/position(_:_:)``) is left out and counted in `skipped`.
    @discardableResult
    func read(_ trip: MapTrip, skipped: inout Int, _ body: (Int64, Double, Double) throws -> Void) throws -> Int {
        var flagged: [Int64] = []
        flags.reset()
        flags.bindInt(trip.deviceID, at: 1)
        flags.bindInt(trip.startMs, at: 2)
        flags.bindInt(trip.endMs, at: 3)
        while try flags.step() { flagged.append(flags.int64(0)) }
        let keys = PointKey.range(device: trip.deviceID, fromMs: trip.startMs, throughMs: trip.endMs)
        points.reset()
        points.bindInt(keys.lower, at: 1)
        points.bindInt(keys.upper, at: 2)
        var next = 0
        var count = 0
        while try points.step() {
            let time = points.int64(0)
            while next < flagged.count && flagged[next] < time { next += 1 }
            if next < flagged.count && flagged[next] == time { continue }
            let lat = points.double(1), lon = points.double(2)
            guard MapLoader.Limits.position(lat, lon) else {
                skipped += 1
                continue
            }
            if !zones.isEmpty, zones.contains(lat: lat, lon: lon) {
                zoneSkips.value += 1
                continue
            }
            try body(time, lat, lon)
            count += 1
        }
        return count
    }

    /// The trip's paths in grid units of `view`, one per leg (or one for a trip without legs), each with the index
    /// of its leg (-1 for the trip's own mode). A point belongs to the first leg whose end it does not pass;
    /// consecutive legs share their boundary point so the line is continuous. Legs with fewer than two points
    /// are left out. Memory: the trip's own points only.
    func paths(_ trip: MapTrip, view: MapView) throws -> [(leg: Int, xs: [Double], ys: [Double])] {
        let bounds: [(leg: Int, endMs: Int64)] =
            trip.legs.isEmpty ? [(-1, Int64.max)] : trip.legs.enumerated().map { ($0.offset, $0.element.endMs) }
        var result: [(leg: Int, xs: [Double], ys: [Double])] = []
        var current = 0
        var xs: [Double] = []
        var ys: [Double] = []
        var skipped = 0  // counted once, by the sampling pass
        var lastSkips = zoneSkips.value
        try read(trip, skipped: &skipped) { time, lat, lon in
            let x = view.gx(view.worldX(lon))
            let y = view.gy(WebMercator.y(latitude: lat))
            if !zones.isEmpty {
                // The page writes the vertex rounded to its grid: that position, too, must be outside every zone.
                let rounded = view.position(gx: x.rounded(), gy: y.rounded())
                if zones.contains(lat: rounded.lat, lon: rounded.lon) { zoneSkips.value += 1 }
                if zoneSkips.value != lastSkips {
                    // A privacy zone passed over: the path breaks, as at a gap.
                    if xs.count >= 2 { result.append((bounds[current].leg, xs, ys)) }
                    xs.removeAll(keepingCapacity: true)
                    ys.removeAll(keepingCapacity: true)
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
            xs.append(x)
            ys.append(y)
        }
        if xs.count >= 2 { result.append((bounds[current].leg, xs, ys)) }
        return result
    }
}
