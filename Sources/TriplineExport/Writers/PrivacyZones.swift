import TriplineCore
import TriplineStore

/// A circle no export or map may show anything inside of: the centre of a place and a radius.
public struct PrivacyZone: Sendable, Equatable {
    /// What the user named it by (a place's name or id): for messages only, never written to an output.
    public var label: String
    public var lat: Double
    public var lon: Double
    public var radiusM: Double

    public init(label: String, lat: Double, lon: Double, radiusM: Double) {
        self.label = label
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
    }
}

/// Why a `--privacy-zone` cannot be used.
public struct PrivacyZoneError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
}

/// The privacy zones of an export or map (`--privacy-zone PLACE[:RADIUS_M]`, and those `tripline privacy add`
/// remembered).
///
/// Every point, track vertex, visit and place within a zone is left out, and so is a trip or leg that lies wholly
/// inside one. A trip or leg that starts (or ends) inside one starts (ends) at its first (last) fix outside every
/// zone: its time, position, duration, moving time, distance and speeds are those of the part shown, its place is
/// left out, and nothing says where inside it began. A line that crosses a zone breaks there, as at a recording
/// gap. A fix counts as inside when it lies within the radius plus ``margin`` of the centre (haversine), so that no
/// written coordinate, rounded as each format rounds, falls inside.
public struct PrivacyZones: Sendable, Equatable {
    /// The radius of a zone given without one, in metres.
    public static let defaultRadiusM = 200.0
    /// Added to every radius: covers the rounding of written coordinates (7 decimals ≈ 1 cm; the map's pixels).
    public static let margin = 1.0

    public var zones: [PrivacyZone]

    public init(_ zones: [PrivacyZone] = []) { self.zones = zones }

    public var isEmpty: Bool { zones.isEmpty }

    /// Whether the position lies inside a zone (or is not a position at all).
    @inline(__always)
    public func contains(lat: Double, lon: Double) -> Bool {
        guard !zones.isEmpty else { return false }
        guard lat.isFinite, lon.isFinite else { return true }
        for zone in zones {
            let limit = zone.radiusM + PrivacyZones.margin
            // A cheap latitude test first: one degree of latitude is at least 110 km.
            if (lat - zone.lat).magnitude * 110_000 > limit { continue }
            if Geo.distance(lat, lon, zone.lat, zone.lon) <= limit { return true }
        }
        return false
    }

    /// Whether a (lat, lon) position lies inside a zone.
    func contains(_ position: (lat: Double, lon: Double)) -> Bool { contains(lat: position.lat, lon: position.lon) }

    /// Zones for `PLACE[:RADIUS_M]` specifications: a place id or a place name (every place of that name, on any
    /// device), with an optional radius in metres (default ``defaultRadiusM``).
    /// - Throws: ``PrivacyZoneError`` for an unknown place or a bad radius.
    public static func resolve(_ specifications: [String], in store: Store) throws -> PrivacyZones {
        var zones: [PrivacyZone] = []
        for specification in specifications {
            zones += try resolve(specification, in: store)
        }
        return PrivacyZones(zones)
    }

    static func resolve(_ specification: String, in store: Store) throws -> [PrivacyZone] {
        var place = specification
        var radius = defaultRadiusM
        if let colon = specification.lastIndex(of: ":") {
            let tail = specification[specification.index(after: colon)...]
            if let value = Double(tail) {
                guard value.isFinite, value > 0, value <= 100_000 else {
                    throw PrivacyZoneError(description: "privacy zone '\(specification)': the radius must be more than 0 and at most 100000 metres")
                }
                radius = value
                place = String(specification[..<colon])
            }
        }
        guard !place.isEmpty else {
            throw PrivacyZoneError(description: "privacy zone '\(specification)': name a place (its id or name, see 'tripline places')")
        }
        let zones = try store.places(namedOrID: place).map { PrivacyZone(label: $0.name, lat: $0.lat, lon: $0.lon, radiusM: radius) }
        guard !zones.isEmpty else {
            throw PrivacyZoneError(description: "privacy zone '\(specification)': no place with the id or name '\(place)' (see 'tripline places')")
        }
        return zones
    }

    /// The zones `tripline privacy add` remembered, with those of `specifications` added.
    public static func remembered(adding specifications: [String] = [], in store: Store) throws -> PrivacyZones {
        var zones = try store.privacyZones().map { PrivacyZone(label: $0.label, lat: $0.lat, lon: $0.lon, radiusM: $0.radiusM) }
        zones += try resolve(specifications, in: store).zones
        return PrivacyZones(zones)
    }
}

/// What the privacy zones leave of a trip's or leg's span of fixes.
struct PrivacySpan {
    var startMs: Int64, endMs: Int64
    var startLat: Double, startLon: Double, endLat: Double, endLon: Double
    /// Fixes shown and the silences between them that no straight line bridges (`metrics.bridge_max_s`, the
    /// rebuild's `gaps`); metres and moving seconds along them, measured as the metrics pass measures a track (a step
    /// counts once the track has moved `metrics.min_step_m` from the last vertex; time between fixes counts as moving
    /// at `metrics.moving_mps` or faster; a silence the trip crossed under way, its straight line and time), and the
    /// straight lines between them: none across a zone or a silence not crossed. Only the fixes shown are read, so no
    /// figure says where inside a zone the span began.
    var points: Int64, gaps: Int64, distanceM: Double, movingS: Double, lineDistanceM: Double
    /// The span began (ended) inside a zone: its start (end) is the first (last) fix outside.
    var startCut: Bool, endCut: Bool
}

/// Applies ``PrivacyZones`` to the rows the exports and the map read.
final class PrivacyClipper {
    enum Outcome {
        /// Nothing of it is in a zone.
        case untouched
        /// All of it is: leave it out.
        case hidden
        case cut(PrivacySpan)
    }

    let zones: PrivacyZones
    /// Sees every fix (the zones are applied here, not by the reader).
    let reader: Exporter.PointReader
    /// Places whose centre is inside a zone: never named or shown.
    let hiddenPlaces: Set<Int64>
    /// How each device's fixes are measured (its rebuild's metrics parameters).
    let settings: MetricsSettings.Cache

    init(store: Store, zones: PrivacyZones) throws {
        self.zones = zones
        reader = try Exporter.PointReader(store, zones: PrivacyZones())
        hiddenPlaces = Set(try store.placeCentres().filter { zones.contains(lat: $0.lat, lon: $0.lon) }.map(\.id))
        settings = MetricsSettings.Cache(store)
    }

    /// The unflagged fixes of `device` in `[startMs, endMs]` against the zones; `start` and `end` are the span's
    /// recorded end positions, if any.
    func clip(device: Int64, startMs: Int64, endMs: Int64, start: (Double, Double)?, end: (Double, Double)?) throws -> Outcome {
        let startInside = start.map { zones.contains(lat: $0.0, lon: $0.1) } ?? false
        let endInside = end.map { zones.contains(lat: $0.0, lon: $0.1) } ?? false
        var touched = startInside || endInside
        var firstInside: Bool?
        var lastInside = false
        var span = PrivacySpan(
            startMs: 0, endMs: 0, startLat: 0, startLon: 0, endLat: 0, endLon: 0, points: 0, gaps: 0, distanceM: 0, movingS: 0,
            lineDistanceM: 0, startCut: false, endCut: false)
        var brokenByZone = false
        let p = try settings.of(device: device)
        // The last vertex of the measured track (``PrivacySpan/distanceM``), and the last fix's accuracy.
        var anchor = (lat: 0.0, lon: 0.0)
        var lastAccuracy = Double.nan
        // The fixes shown (time, position, accuracy), and the steps slower than moving whose fix reports a slow
        // walker's speed (index of the fix, seconds, reported speed): moving too when the fixes a minute either side
        // say so (``TrackMotion/isCreeping``), as the metrics pass counts them.
        var shown: [(time: Int64, lat: Double, lon: Double, accuracy: Double)] = []
        var slow: [(fix: Int, seconds: Double, reported: Double)] = []
        try reader.read(device: device, startMs: startMs, endMs: endMs) { s, time, flags in
            guard flags == 0 else { return }
            let lat = s.double(Exporter.PointColumn.lat)
            let lon = s.double(Exporter.PointColumn.lon)
            // NaN when the fix reports none (the reader gives +infinity), as the metrics pass reads it.
            let reading = s.double(Exporter.PointColumn.accuracy), accuracy = reading.isFinite ? reading : .nan
            if zones.contains(lat: lat, lon: lon) {
                touched = true
                if firstInside == nil { firstInside = true }
                lastInside = true
                brokenByZone = true
                return
            }
            if firstInside == nil { firstInside = false }
            lastInside = false
            if span.points == 0 {
                span.startMs = time
                span.startLat = lat
                span.startLon = lon
                anchor = (lat, lon)
            } else if Double(time - span.endMs) / 1000 > p.bridgeMaxS {
                // A silence no straight line bridges: its straight line and time count when the trip crossed it
                // under way, as the metrics pass counts them.
                span.gaps += 1
                anchor = (lat, lon)
                let seconds = Double(time - span.endMs) / 1000, from = (span.endLat, span.endLon)
                let line = Geo.distance(from.0, from.1, lat, lon)
                if TrackMotion.crossedSilence(
                    seconds: seconds, accuracyBefore: lastAccuracy, accuracy: accuracy, bridgeMaxS: p.bridgeMaxS, splitGapS: p.splitGapS,
                    minPaceMps: p.movingMps, metres: { line })
                {
                    span.distanceM += line
                    span.lineDistanceM += line
                    span.movingS += seconds
                }
            } else if brokenByZone {
                anchor = (lat, lon)
            } else {
                let step = Geo.distance(span.endLat, span.endLon, lat, lon)
                span.lineDistanceM += step
                let fromAnchor = Geo.distance(anchor.lat, anchor.lon, lat, lon)
                if fromAnchor >= p.minStepM {
                    span.distanceM += fromAnchor
                    anchor = (lat, lon)
                }
                // Moving as the metrics pass tells it.
                let reported = s.double(Exporter.PointColumn.speed), seconds = Double(time - span.endMs) / 1000
                if TrackMotion.isMoving(seconds: seconds, reported: reported.isFinite ? reported : .nan, accuracyBefore: lastAccuracy,
                                        accuracy: accuracy, movingMps: p.movingMps, step: { step }) {
                    span.movingS += seconds
                } else if reported.isFinite && reported >= TrackMotion.slowMps {
                    slow.append((shown.count, seconds, reported))
                }
            }
            shown.append((time, lat, lon, accuracy))
            lastAccuracy = accuracy
            span.endMs = time
            span.endLat = lat
            span.endLon = lon
            span.points += 1
            brokenByZone = false
        }
        guard touched else { return .untouched }
        guard span.points > 0 else { return .hidden }
        var window = TrackMotion.CreepWindow()
        for step in slow {
            guard let (before, after) = window.around(step.fix, count: shown.count, time: { shown[$0].time }) else { continue }
            let (a, b) = (shown[before], shown[after])
            let metres = Geo.distance(a.lat, a.lon, b.lat, b.lon)
            if TrackMotion.isCreeping(reported: step.reported, windowSeconds: Double(b.time - a.time) / 1000, windowMetres: metres,
                                      accuracyBefore: a.accuracy, accuracyAfter: b.accuracy) {
                span.movingS += step.seconds
            }
        }
        span.startCut = startInside || firstInside == true
        span.endCut = endInside || lastInside
        return .cut(span)
    }

    /// A leg's metres as the zones show them: all of them when no zone touches it, those of the part shown, or none.
    func shownMetres(of leg: LegRow) throws -> Double {
        switch try clip(device: leg.deviceID, startMs: leg.startMs, endMs: leg.endMs, start: nil, end: nil) {
        case .untouched: return leg.distanceM
        case .hidden: return 0
        case .cut(let span): return Swift.min(span.distanceM, leg.distanceM)
        }
    }
}

extension Exporter {
    /// The trip as the privacy zones let it be shown, or nil when it lies wholly inside one.
    func shown(_ trip: TripListing) throws -> TripListing? {
        guard let privacy else { return trip }
        var t = trip
        if let id = t.fromPlaceID, privacy.hiddenPlaces.contains(id) { (t.fromPlaceID, t.fromPlace) = (nil, nil) }
        if let id = t.toPlaceID, privacy.hiddenPlaces.contains(id) { (t.toPlaceID, t.toPlace) = (nil, nil) }
        if t.source == "app" { return try shownApp(t, zones: privacy.zones) }  // Google's line, not fixes
        let start = t.startLat.flatMap { lat in t.startLon.map { (lat, $0) } }
        let end = t.endLat.flatMap { lat in t.endLon.map { (lat, $0) } }
        switch try privacy.clip(device: t.deviceID, startMs: t.startMs, endMs: t.endMs, start: start, end: end) {
        case .untouched: return t
        case .hidden: return nil
        case .cut(let span):
            if span.startCut {
                (t.startMs, t.startLat, t.startLon) = (span.startMs, span.startLat, span.startLon)
                (t.fromPlaceID, t.fromPlace) = (nil, nil)
            }
            if span.endCut {
                (t.endMs, t.endLat, t.endLon) = (span.endMs, span.endLat, span.endLon)
                (t.toPlaceID, t.toPlace) = (nil, nil)
            }
            t.durationS = Double(t.endMs - t.startMs) / 1000
            // Measured over the fixes shown, never more than the whole trip's (the rebuild tells a stop in traffic from
            // moving by more than the fixes' steps).
            t.movingS = Swift.min(span.movingS, t.durationS, t.movingS)
            // The sum of its legs as they are shown (a leg no zone touches keeps the rebuild's figure), so the parts
            // still add up to the whole.
            let legs = try store.legs(ofTrip: t.id)
            if legs.isEmpty {
                t.distanceM = Swift.min(span.distanceM, t.distanceM)
            } else {
                t.distanceM = 0
                for leg in legs { t.distanceM += try privacy.shownMetres(of: leg) }
            }
            t.lineDistanceM = span.lineDistanceM
            t.distanceMethod = "track"
            t.avgSpeedMps = t.durationS > 0 ? t.distanceM / t.durationS : nil
            // The fastest moment may have been inside the zone; nothing shown says how fast the part outside went.
            t.maxSpeedMps = nil
            t.points = Int(span.points)
            t.gaps = Int(span.gaps)
            return t
        }
    }

    /// The leg as the privacy zones let it be shown, or nil when it lies wholly inside one.
    func shown(_ leg: LegListing) throws -> LegListing? {
        guard let privacy else { return leg }
        if leg.source == "app" { return try shownApp(leg, zones: privacy.zones) }
        var l = leg
        switch try privacy.clip(device: l.deviceID, startMs: l.startMs, endMs: l.endMs, start: nil, end: nil) {
        case .untouched: return l
        case .hidden: return nil
        case .cut(let span):
            if span.startCut { l.startMs = span.startMs }
            if span.endCut { l.endMs = span.endMs }
            l.durationS = Double(l.endMs - l.startMs) / 1000
            l.distanceM = Swift.min(span.distanceM, l.distanceM)
            l.points = Int(span.points)
            return l
        }
    }

    /// The visit unless its centre is inside a zone; its place unnamed when the place's centre is.
    func shown(_ visit: VisitListing) -> VisitListing? {
        guard let privacy else { return visit }
        if privacy.zones.contains(lat: visit.lat, lon: visit.lon) { return nil }
        var v = visit
        if let id = v.placeID, privacy.hiddenPlaces.contains(id) { (v.placeID, v.placeName) = (nil, nil) }
        return v
    }

    /// The place unless its centre is inside a zone.
    func shown(_ place: PlaceListing) -> PlaceListing? {
        guard let privacy else { return place }
        return privacy.hiddenPlaces.contains(place.id) || privacy.zones.contains(lat: place.lat, lon: place.lon) ? nil : place
    }
}
