import Foundation

import TriplineCore


/// Reads `truth.json` as written by ``SimulationWriter`` (Foundation's JSON parser, once, at the edge).
public enum TruthFile {
    public static func read(_ path: String) throws -> SimulationTruth {
        let bytes = try FileSystem.read(path)
        guard let root = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TruthFileError("\(path): not a JSON object")
        }
        func array(_ key: String) throws -> [[String: Any]] {
            guard let a = root[key] as? [[String: Any]] else { throw TruthFileError("\(path): no '\(key)' array; is this a truth.json from 'tripline simulate'?") }
            return a
        }
        func i64(_ o: [String: Any], _ k: String) -> Int64 { (o[k] as? NSNumber)?.int64Value ?? 0 }
        func dbl(_ o: [String: Any], _ k: String) -> Double { (o[k] as? NSNumber)?.doubleValue ?? 0 }
        func str(_ o: [String: Any], _ k: String) -> String { o[k] as? String ?? "" }
        var t = SimulationTruth()
        t.timeZoneName = root["time_zone"] as? String ?? "UTC"
        t.places = try array("places").map {
            TruthPlace(id: Int(i64($0, "id")), person: Int(i64($0, "person")), kind: str($0, "kind"), lat: dbl($0, "lat"), lon: dbl($0, "lon"), ssid: $0["ssid"] as? String)
        }
        t.stays = try array("stays").map {
            TruthStay(device: str($0, "device"), placeID: Int(i64($0, "place")), startMs: i64($0, "start_ms"), endMs: i64($0, "end_ms"))
        }
        t.trips = try array("trips").map { o in
            let legs = (o["legs"] as? [[String: Any]] ?? []).map {
                TruthLeg(mode: TravelMode(rawValue: str($0, "mode")) ?? .walk, startMs: i64($0, "start_ms"), endMs: i64($0, "end_ms"), distanceM: dbl($0, "distance_m"))
            }
            return TruthTrip(
                device: str(o, "device"), startMs: i64(o, "start_ms"), endMs: i64(o, "end_ms"), fromPlaceID: Int(i64(o, "from_place")),
                toPlaceID: Int(i64(o, "to_place")), legs: legs, distanceM: dbl(o, "distance_m"), stops: Int(i64(o, "stops")))
        }
        t.gaps = try array("gaps").map { TruthGap(device: str($0, "device"), startMs: i64($0, "start_ms"), endMs: i64($0, "end_ms"), kind: str($0, "kind")) }
        t.days = try array("days").map { TruthDay(device: str($0, "device"), date: str($0, "date"), distanceM: dbl($0, "distance_m"), trips: Int(i64($0, "trips"))) }
        return t
    }
}

/// A `truth.json` that cannot be read: not a JSON object, or without one of its arrays.
public struct TruthFileError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
