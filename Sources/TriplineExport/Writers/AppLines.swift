#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

/// One position of a line as the exports write it, with its time where the source gives one.
struct LineVertex: Equatable {
    var lat: Double
    var lon: Double
    /// Google's own time of this position (a leg's start or end); nil along Google's path, where it gives none.
    var timeMs: Int64?
}

/// The lines of trips and legs taken from Google's timeline as the exports and the map draw them: each leg's stored
/// ``AppLine`` (its start, Google's path points in order, its end; the straight line between its ends when Google gave
/// no path), a trip's legs joined in order (a position the next leg starts at, where the one before ended, once).
/// Times only where Google gives them: each leg's start and end. One reader for every writer and the map, so they draw
/// one line.
final class AppLineLoader {
    let store: Store
    let reader: AppLineReader

    init(store: Store) throws {
        self.store = store
        reader = try AppLineReader(store)
    }

    /// The stored line of app trip `tripID` (`leg` nil) or of its leg `leg`, the zones not applied.
    func vertices(tripID: Int64, leg: Int?) throws -> [LineVertex] {
        var times: [Int: (startMs: Int64, endMs: Int64)] = [:]
        for row in try store.legs(trip: tripID) { times[row.leg] = (row.startMs, row.endMs) }
        var vertices: [LineVertex] = []
        for (number, line) in try reader.lines(trip: tripID) where leg == nil || leg == number {
            guard !line.isEmpty else { continue }
            let span = times[number]
            for i in 0..<line.count {
                let v = LineVertex(lat: line.lat(i), lon: line.lon(i), timeMs: i == 0 ? span?.startMs : i == line.count - 1 ? span?.endMs : nil)
                if let last = vertices.last, last.lat == v.lat, last.lon == v.lon {
                    if last.timeMs == nil { vertices[vertices.count - 1].timeMs = v.timeMs }
                    continue
                }
                vertices.append(v)
            }
        }
        return vertices
    }

    /// Whether any leg of the trip has a line through path points (more than its two ends).
    func hasPath(tripID: Int64) throws -> Bool {
        try reader.lines(trip: tripID).contains { $0.line.count > 2 }
    }

    /// The great-circle metres along a run of vertices.
    static func length(_ run: [LineVertex]) -> Double {
        zip(run, run.dropFirst()).reduce(0) { $0 + Geo.distance($1.0.lat, $1.0.lon, $1.1.lat, $1.1.lon) }
    }
}

extension Exporter {
    /// The line of a trip (`leg` nil) or of one of its legs taken from Google's timeline (`source = 'app'`)
    /// (``AppLineLoader``), with the privacy zones applied (``PrivacyZones/cut(_:)``): runs of at least two positions.
    /// Nil for a trip or leg rebuilt from fixes, whose line is its fixes.
    func appLine(tripID: Int64, source: String, leg: Int? = nil) throws -> [[LineVertex]]? {
        guard source == "app" else { return nil }
        return privacyZones.cut(try appVertices(tripID: tripID, leg: leg))
    }

    /// What a trip's (`leg` nil) or leg's line is (the exports' `line_method`): `fixes` for one rebuilt from fixes (its
    /// line is its unflagged points), `app_path` for one taken from Google's timeline whose line goes through Google's
    /// path points (a leg of it does), `app_line` for one whose line is only the straight lines between its legs' ends,
    /// nil for one of Google's without any position.
    func lineMethod(tripID: Int64, source: String, leg: Int? = nil) throws -> String? {
        guard source == "app" else { return "fixes" }
        if appLines == nil { appLines = try AppLineLoader(store: store) }
        let lines = try appLines?.reader.lines(trip: tripID).filter { leg == nil || $0.leg == leg }.map(\.line) ?? []
        if lines.contains(where: { $0.count > 2 }) { return "app_path" }
        return lines.contains(where: { !$0.isEmpty }) ? "app_line" : nil
    }

    /// The stored line of an app trip or leg, the zones not applied.
    func appVertices(tripID: Int64, leg: Int?) throws -> [LineVertex] {
        if appLines == nil { appLines = try AppLineLoader(store: store) }
        return try appLines?.vertices(tripID: tripID, leg: leg) ?? []
    }

    /// A trip taken from Google's timeline as the privacy zones let it be shown (docs/EXPORTS.md, "Privacy zones"):
    /// nil when no part of its line of two positions or more is outside every zone (or it has no line and an end
    /// inside one); a start (end) inside a zone moves to the first (last) position of its line shown, with no place;
    /// its straight lines are those of the line shown (`distance_method` `app_path`, or `app_line` when no leg has path
    /// points), its distance the sum of its legs as shown. Google gives no time along its path, so its start and end times stay Google's: when it
    /// began, never where.
    func shownApp(_ trip: TripListing, zones: PrivacyZones) throws -> TripListing? {
        var t = trip
        let full = try appVertices(tripID: t.id, leg: nil)
        if full.isEmpty {
            let startInside = t.startLat.flatMap { lat in t.startLon.map { zones.contains(lat: lat, lon: $0) } } ?? false
            let endInside = t.endLat.flatMap { lat in t.endLon.map { zones.contains(lat: lat, lon: $0) } } ?? false
            return startInside || endInside ? nil : t
        }
        let runs = zones.cut(full)
        if runs.count == 1, runs[0].count == full.count { return t }
        guard let first = runs.first?.first, let last = runs.last?.last else { return nil }
        if first != full[0] {
            (t.startLat, t.startLon) = (first.lat, first.lon)
            (t.fromPlaceID, t.fromPlace) = (nil, nil)
        }
        if last != full[full.count - 1] {
            (t.endLat, t.endLon) = (last.lat, last.lon)
            (t.toPlaceID, t.toPlace) = (nil, nil)
        }
        let shown = runs.reduce(0) { $0 + AppLineLoader.length($1) }
        // The sum of its legs as shown (a leg the zones do not touch keeps Google's figure), so the parts add up to
        // the whole; never more than the whole.
        let legs = try store.legs(ofTrip: t.id)
        if legs.isEmpty {
            t.distanceM = Swift.min(shown, t.distanceM)
        } else {
            t.distanceM = 0
            for leg in legs { t.distanceM += try appShownMetres(tripID: t.id, leg: leg.leg, metres: leg.distanceM, zones: zones) ?? 0 }
        }
        t.lineDistanceM = shown
        t.distanceMethod = try appLines?.hasPath(tripID: t.id) == true ? "app_path" : "app_line"
        t.avgSpeedMps = t.durationS > 0 ? t.distanceM / t.durationS : nil
        t.maxSpeedMps = nil
        return t
    }

    /// A Google leg's metres as the zones show it: all of them when its line is untouched (or it has none), the length
    /// of the line shown (never more than the leg's own), or nil when nothing of its line is shown.
    func appShownMetres(tripID: Int64, leg: Int, metres: Double, zones: PrivacyZones) throws -> Double? {
        let full = try appVertices(tripID: tripID, leg: leg)
        if full.isEmpty { return metres }
        let runs = zones.cut(full)
        if runs.count == 1, runs[0].count == full.count { return metres }
        guard !runs.isEmpty else { return nil }
        return Swift.min(runs.reduce(0) { $0 + AppLineLoader.length($1) }, metres)
    }

    /// A leg taken from Google's timeline as the privacy zones let it be shown: nil when no part of its line is
    /// outside every zone; else its distance is that of the line shown, never more than its own.
    func shownApp(_ leg: LegListing, zones: PrivacyZones) throws -> LegListing? {
        var l = leg
        guard let metres = try appShownMetres(tripID: l.tripID, leg: l.leg, metres: l.distanceM, zones: zones) else { return nil }
        l.distanceM = metres
        return l
    }
}

extension PrivacyZones {
    /// The parts of a line outside every zone, as runs of at least two positions: a position inside a zone is left out,
    /// and so is a segment between two positions outside that passes through one (its closest approach to the centre,
    /// measured on the straight segment as a map of longitude and latitude draws it, within the radius and
    /// ``margin``); the line breaks there, as at a recording gap. Without zones: the line itself as one run (when it
    /// has two positions or more).
    func cut(_ line: [LineVertex]) -> [[LineVertex]] {
        var runs: [[LineVertex]] = []
        var current: [LineVertex] = []
        func close() {
            if current.count >= 2 { runs.append(current) }
            current.removeAll()
        }
        for v in line {
            if contains(lat: v.lat, lon: v.lon) {
                close()
                continue
            }
            if let previous = current.last, segmentEnters(previous, v) { close() }
            current.append(v)
        }
        close()
        return runs
    }

    /// Whether the straight segment from `a` to `b` (in longitude and latitude, the short way round) comes within a
    /// zone's radius plus ``margin`` of its centre.
    func segmentEnters(_ a: LineVertex, _ b: LineVertex) -> Bool {
        for zone in zones {
            // Metres east and north of the centre, on the plane tangent there: a straight segment in longitude and
            // latitude is a straight segment on it.
            let k = 111_195.0
            let east = k * cos(zone.lat * .pi / 180)
            func wrapped(_ d: Double) -> Double { d > 180 ? d - 360 : d < -180 ? d + 360 : d }
            let ax = wrapped(a.lon - zone.lon) * east, ay = (a.lat - zone.lat) * k
            var dx = wrapped(b.lon - a.lon) * east
            let dy = (b.lat - a.lat) * k
            if !dx.isFinite { dx = 0 }
            let length2 = dx * dx + dy * dy
            let t = length2 > 0 ? Swift.min(1, Swift.max(0, -(ax * dx + ay * dy) / length2)) : 0
            let x = ax + t * dx, y = ay + t * dy
            if (x * x + y * y).squareRoot() <= zone.radiusM + PrivacyZones.margin { return true }
        }
        return false
    }
}
