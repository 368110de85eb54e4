#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography
import TriplineStore

extension MapPage {
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
            // Local wall-clock seconds since the epoch (``UTCOffset/localSeconds(ms:)``), so the script formats local
            // times with UTC getters, independent of the viewer's time zone.
            "[\(visit.day),\(visit.startOffset.localSeconds(ms: visit.startMs)),\(visit.endOffset.localSeconds(ms: visit.endMs)),\(visit.startOffset.seconds),\(visit.placeID.flatMap { placeIndex[$0] } ?? -1),\(deviceIndex[visit.deviceID] ?? 0)]"
        }.joined(separator: ",\n"))
        out.append("],\n\"days\":[")
        // Per local day and device: [day, metres, device index, moving seconds].
        out.append(selection.dayTotals.map { day in
            "[\(day.day),\(Self.int(day.metres)),\(deviceIndex[day.deviceID] ?? 0),\(Self.int(day.movingS))]"
        }.joined(separator: ","))
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
        return "[\(trip.day),\(trip.startOffset.localSeconds(ms: trip.startMs)),\(trip.endOffset.localSeconds(ms: trip.endMs)),\(trip.startOffset.seconds),"
            + "\(Self.int(trip.distanceM)),\(Self.int(trip.durationS)),\(Self.int(trip.movingS)),\(modeIndex[trip.mode] ?? -1),"
            + "\(trip.fromPlaceID.flatMap { placeIndex[$0] } ?? -1),\(trip.toPlaceID.flatMap { placeIndex[$0] } ?? -1),["
            + legs + "],\(straight.contains(i) ? 1 : 0),\(deviceIndex[trip.deviceID] ?? 0)]"
    }

    static func int(_ value: Double) -> Int {
        value.isFinite ? Int(value.rounded()) : 0
    }

    /// A JSON number with up to 12 significant decimals, deterministic.
    static func json(_ value: Double) -> String {
        NumberText.fixed(value, decimals: 12)
    }
}
