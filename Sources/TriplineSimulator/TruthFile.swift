import Foundation

import TriplineCore


/// Reads `truth.json` as written by ``SimulationWriter`` (Foundation's JSON parser, once, at the edge).
public enum TruthFile {
    /// The largest truth.json read. The demo's sample writes about 2.2 KB a person-day (13 KB for 2 people × 3 days), so
    /// 512 MiB is some 240,000 person-days. A larger file (or an endless one: `score --truth /dev/zero` read until
    /// the process died) is refused.
    public static let sizeLimit = 512 << 20

    public static func read(_ path: String) throws -> SimulationTruth {
        let bytes = try FileSystem.read(path, limit: sizeLimit)
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            // Foundation's own text ("Error Domain=NSCocoaErrorDomain Code=3840 …") named neither the file nor the place.
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "it does not parse"
            throw TruthFileError("\(path): not valid JSON (\(detail)); is this a truth.json from 'tripline simulate'?")
        }
        guard let root = parsed as? [String: Any] else {
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
                TruthLeg(
                    mode: TravelMode(rawValue: str($0, "mode")) ?? .walk, startMs: i64($0, "start_ms"), endMs: i64($0, "end_ms"),
                    distanceM: dbl($0, "distance_m"), habit: $0["habit"] as? String)
            }
            return TruthTrip(
                device: str(o, "device"), startMs: i64(o, "start_ms"), endMs: i64(o, "end_ms"), fromPlaceID: Int(i64(o, "from_place")),
                toPlaceID: Int(i64(o, "to_place")), legs: legs, distanceM: dbl(o, "distance_m"), stops: Int(i64(o, "stops")))
        }
        t.gaps = try array("gaps").map { TruthGap(device: str($0, "device"), startMs: i64($0, "start_ms"), endMs: i64($0, "end_ms"), kind: str($0, "kind")) }
        t.days = try array("days").map { TruthDay(device: str($0, "device"), date: str($0, "date"), distanceM: dbl($0, "distance_m"), trips: Int(i64($0, "trips"))) }
        try check(root, path: path)
        return t
    }

    /// The times the store can hold (`points_hot` keeps 42 bits of milliseconds: 1970 to 2109).
    static let timeRange: ClosedRange<Int64> = 0...((1 << 42) - 1)
    /// Distances a truth can hold, in metres (a million kilometres: far beyond any day's travel).
    static let distanceRange: ClosedRange<Double> = 0...1e9

    /// Each stay, trip, leg and gap has whole-millisecond `start_ms` ≤ `end_ms` within ``timeRange``; each trip, leg
    /// and day a finite `distance_m` within ``distanceRange``. A damaged or hand-edited file is refused, naming the
    /// file, the array and the record (`trips[3]`), instead of crashing the scorer (a distance of 1e308, a time at
    /// Int64's ends) or being scored as if it were true (a trip that ends before it starts, a missing time read as 0).
    static func check(_ root: [String: Any], path: String) throws {
        func fail(_ record: String, _ message: String) -> TruthFileError { TruthFileError("\(path): \(record): \(message)") }
        func time(_ o: [String: Any], _ key: String, _ record: String) throws -> Int64 {
            // Times up to 2^42 are exact as doubles.
            guard let v = (o[key] as? NSNumber)?.doubleValue, v == v.rounded(),
                  v >= Double(timeRange.lowerBound), v <= Double(timeRange.upperBound) else {
                throw fail(record, "'\(key)' must be whole milliseconds from \(timeRange.lowerBound) to \(timeRange.upperBound), not \(o[key].map { "\($0)" } ?? "missing")")
            }
            return Int64(v)
        }
        func span(_ o: [String: Any], _ record: String) throws {
            let start = try time(o, "start_ms", record), end = try time(o, "end_ms", record)
            guard start <= end else { throw fail(record, "ends (\(end)) before it starts (\(start))") }
        }
        func distance(_ o: [String: Any], _ record: String) throws {
            guard let n = o["distance_m"] as? NSNumber, distanceRange.contains(n.doubleValue) else {
                throw fail(record, "'distance_m' must be a number of metres from 0 to \(Int(distanceRange.upperBound)), not \(o["distance_m"].map { "\($0)" } ?? "missing")")
            }
        }
        let records = { (key: String) in (root[key] as? [[String: Any]]) ?? [] }
        for (i, o) in records("stays").enumerated() { try span(o, "stays[\(i)]") }
        for (i, o) in records("gaps").enumerated() { try span(o, "gaps[\(i)]") }
        for (i, o) in records("days").enumerated() { try distance(o, "days[\(i)]") }
        for (i, o) in records("trips").enumerated() {
            try span(o, "trips[\(i)]")
            try distance(o, "trips[\(i)]")
            for (j, leg) in ((o["legs"] as? [[String: Any]]) ?? []).enumerated() {
                try span(leg, "trips[\(i)].legs[\(j)]")
                try distance(leg, "trips[\(i)].legs[\(j)]")
            }
        }
    }
}

/// A `truth.json` that cannot be read: not a JSON object, or without one of its arrays.
public struct TruthFileError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
