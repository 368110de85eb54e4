import TriplineCore
import TriplineStore

/// The map under privacy zones (``MapParameters/privacyZones``), as the exports: trips and legs cut to the part
/// outside every zone (or left out when wholly inside one), visits and places inside one left out, and lines broken
/// where they cross one (``TripPointStream``, which also checks each vertex as the page rounds it).
extension MapLoader {
    func hidePrivateTrips(_ selection: inout MapSelection, _ privacy: PrivacyClipper) throws {
        var shown: [MapTrip] = []
        shown.reserveCapacity(selection.trips.count)
        var appLines: AppLineLoader?
        for var trip in selection.trips {
            if let id = trip.fromPlaceID, privacy.hiddenPlaces.contains(id) { trip.fromPlaceID = nil }
            if let id = trip.toPlaceID, privacy.hiddenPlaces.contains(id) { trip.toPlaceID = nil }
            if trip.isApp {
                // Google's line, not fixes: cut as the exports cut it (``Exporter/shownApp(_:zones:)``).
                if appLines == nil { appLines = try AppLineLoader(store: store) }
                if let loader = appLines, let kept = try shownApp(trip, privacy.zones, loader) { shown.append(kept) }
                continue
            }
            let outcome = try privacy.clip(
                device: trip.deviceID, startMs: trip.startMs, endMs: trip.endMs, start: trip.start.map { ($0.lat, $0.lon) },
                end: trip.end.map { ($0.lat, $0.lon) })
            switch outcome {
            case .untouched: break
            case .hidden: continue
            case .cut(let span):
                if span.startCut {
                    trip.startMs = span.startMs
                    trip.start = (span.startLat, span.startLon)
                    trip.fromPlaceID = nil
                }
                if span.endCut {
                    trip.endMs = span.endMs
                    trip.end = (span.endLat, span.endLon)
                    trip.toPlaceID = nil
                }
                trip.durationS = Double(trip.endMs - trip.startMs) / 1000
                trip.movingS = Swift.min(span.movingS, trip.durationS, trip.movingS)
                trip.distanceM = Swift.min(span.distanceM, trip.distanceM)
                var legs: [MapLeg] = []
                for var leg in trip.legs {
                    switch try privacy.clip(device: trip.deviceID, startMs: leg.startMs, endMs: leg.endMs, start: nil, end: nil) {
                    case .untouched: break
                    case .hidden: continue
                    case .cut(let part):
                        if part.startCut { leg.startMs = part.startMs }
                        if part.endCut { leg.endMs = part.endMs }
                        leg.durationS = Double(leg.endMs - leg.startMs) / 1000
                        leg.distanceM = Swift.min(part.distanceM, leg.distanceM)
                    }
                    legs.append(leg)
                }
                // The sum of its legs as shown, as the exports give it (``Exporter/shown(_:)``).
                if !trip.legs.isEmpty { trip.distanceM = legs.reduce(0) { $0 + $1.distanceM } }
                trip.legs = legs
            }
            shown.append(trip)
        }
        selection.trips = shown
    }

    /// A trip taken from Google's timeline under the zones, as the exports show it: nil when nothing of its line is
    /// outside them (or it has no line and an end inside one); an end inside moves to the line's first (last) position
    /// shown, without its place; its legs' distances that of their line shown (never more than their own), its
    /// distance their sum; a leg with nothing shown is left out. Its times stay Google's.
    func shownApp(_ trip: MapTrip, _ zones: PrivacyZones, _ loader: AppLineLoader) throws -> MapTrip? {
        var t = trip
        let full = try loader.vertices(tripID: t.id, leg: nil)
        if full.isEmpty {
            let inside = [t.start, t.end].contains { $0.map { zones.contains(lat: $0.lat, lon: $0.lon) } ?? false }
            return inside ? nil : t
        }
        let runs = zones.cut(full)
        if runs.count == 1, runs[0].count == full.count { return t }
        guard let first = runs.first?.first, let last = runs.last?.last else { return nil }
        if first != full[0] {
            t.start = (first.lat, first.lon)
            t.fromPlaceID = nil
        }
        if last != full[full.count - 1] {
            t.end = (last.lat, last.lon)
            t.toPlaceID = nil
        }
        let whole = t.distanceM
        t.distanceM = Swift.min(runs.reduce(0) { $0 + AppLineLoader.length($1) }, whole)
        var legs: [MapLeg] = []
        var lines: [[[LineVertex]]] = []
        for (k, var leg) in t.legs.enumerated() {
            let legRuns = k < t.appLegs.count ? t.appLegs[k] : []
            let fullLeg = try loader.vertices(tripID: t.id, leg: k)
            if !fullLeg.isEmpty {
                if legRuns.isEmpty { continue }
                if legRuns.count != 1 || legRuns[0].count != fullLeg.count {
                    leg.distanceM = Swift.min(legRuns.reduce(0) { $0 + AppLineLoader.length($1) }, leg.distanceM)
                }
            }
            legs.append(leg)
            lines.append(legRuns)
        }
        // The sum of its legs as shown, as the exports give it (``Exporter/shownApp(_:zones:)``).
        if !t.legs.isEmpty { t.distanceM = legs.reduce(0) { $0 + $1.distanceM } }
        t.legs = legs
        t.appLegs = lines
        return t
    }

    func hidePrivateVisits(_ selection: inout MapSelection, _ privacy: PrivacyClipper) {
        selection.visits = selection.visits.compactMap { visit in
            if privacy.zones.contains(lat: visit.lat, lon: visit.lon) { return nil }
            var v = visit
            if let id = v.placeID, privacy.hiddenPlaces.contains(id) { v.placeID = nil }
            return v
        }
    }
}

extension MapView {
    /// The latitude and longitude of a grid position (the inverse of ``gx(_:)`` and ``gy(_:)``).
    func position(gx: Double, gy: Double) -> (lat: Double, lon: Double) {
        let unit = scale * Double(detail)
        return (WebMercator.latitude(y: gy / unit + y0), WebMercator.longitude(x: gx / unit + x0))
    }
}
