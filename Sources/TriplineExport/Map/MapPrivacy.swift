import TriplineCore
import TriplineStore

/// The map under privacy zones (``MapParameters/privacyZones``), as the exports: trips and legs cut to the part
/// outside every zone (or left out when wholly inside one), visits and places inside one left out, and lines broken
/// where they cross one (``TripPointStream``, which also checks each vertex as the page rounds it).
extension MapLoader {
    func hidePrivateTrips(_ selection: inout MapSelection, _ privacy: PrivacyClipper) throws {
        var shown: [MapTrip] = []
        shown.reserveCapacity(selection.trips.count)
        for var trip in selection.trips {
            if let id = trip.fromPlaceID, privacy.hiddenPlaces.contains(id) { trip.fromPlaceID = nil }
            if let id = trip.toPlaceID, privacy.hiddenPlaces.contains(id) { trip.toPlaceID = nil }
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
                trip.movingS = Swift.min(span.movingS, trip.durationS)
                trip.distanceM = span.distanceM
                var legs: [MapLeg] = []
                for var leg in trip.legs {
                    switch try privacy.clip(device: trip.deviceID, startMs: leg.startMs, endMs: leg.endMs, start: nil, end: nil) {
                    case .untouched: break
                    case .hidden: continue
                    case .cut(let part):
                        if part.startCut { leg.startMs = part.startMs }
                        if part.endCut { leg.endMs = part.endMs }
                        leg.durationS = Double(leg.endMs - leg.startMs) / 1000
                        leg.distanceM = part.distanceM
                    }
                    legs.append(leg)
                }
                trip.legs = legs
            }
            shown.append(trip)
        }
        selection.trips = shown
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
