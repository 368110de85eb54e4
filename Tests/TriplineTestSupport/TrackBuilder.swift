import TriplineCore
@testable import TriplineStore
import TriplinePasses

/// Builds small hand-made tracks for pass tests: still periods with drift, straight moves, stops and gaps.
package struct TrackBuilder {
    package var points: [Point] = []
    package var t: Int64  // ms
    package var lat: Double
    package var lon: Double
    package var rng = SplitMix64(seed: 42)
    package var offset: Int32? = nil

    package init(startMs: Int64, lat: Double, lon: Double, offset: Int32? = nil) {
        self.t = startMs
        self.lat = lat
        self.lon = lon
        self.offset = offset
    }

    /// Still for `seconds`, one fix every `every` seconds, each `drift` metres (random direction) off, accuracy ≈ drift.
    package mutating func still(_ seconds: Int, every: Int, drift: ClosedRange<Double> = 0...0, ssid: String? = nil, motion: String? = nil) {
        var s = 0
        while s < seconds {
            let d = rng.uniform(drift.lowerBound, drift.upperBound + 0.001)
            let p = Geo.destination(lat, lon, bearing: rng.uniform(0, 360), distance: d)
            points.append(Point(deviceID: 0, timeMs: t, utcOffsetS: offset, lat: p.lat, lon: p.lon, speedMps: 0,
                                accuracyM: max(10, d), motion: motion, ssid: ssid))
            t += Int64(every) * 1000
            s += every
        }
    }

    /// Moves `metres` along `bearing` at `speed` m/s, one fix every `every` seconds. Returns the true distance.
    @discardableResult
    package mutating func move(_ metres: Double, bearing: Double, speed: Double, every: Int = 1, motion: String? = nil, tripMode: String? = nil) -> Double {
        let steps = Int((metres / speed / Double(every)).rounded(.up))
        let step = metres / Double(steps)
        for _ in 0..<steps {
            let p = Geo.destination(lat, lon, bearing: bearing, distance: step)
            lat = p.lat
            lon = p.lon
            t += Int64(every) * 1000
            points.append(Point(deviceID: 0, timeMs: t, utcOffsetS: offset, lat: lat, lon: lon, speedMps: speed, accuracyM: 5,
                                motion: motion, appTripMode: tripMode))
        }
        return metres
    }

    /// No fixes for `seconds` while moving `metres` along `bearing` (a tunnel), or standing still when `metres` is 0.
    package mutating func gap(_ seconds: Int, moving metres: Double = 0, bearing: Double = 0) {
        if metres > 0 {
            let p = Geo.destination(lat, lon, bearing: bearing, distance: metres)
            lat = p.lat
            lon = p.lon
        }
        t += Int64(seconds) * 1000
    }

    /// A far-off cell fix (kilometres away, 2 km accuracy, no speed).
    package mutating func farOff(km: Double) {
        let p = Geo.destination(lat, lon, bearing: 45, distance: km * 1000)
        t += 1000
        points.append(Point(deviceID: 0, timeMs: t, lat: p.lat, lon: p.lon, accuracyM: 2000))
    }
}

/// A fresh store with one device per track, the points inserted.
package func storeWith(_ tracks: [(String, [Point])]) throws -> Store {
    let store = try Store(path: try temporaryDirectory() + "/t.sqlite")
    try store.db.transaction {
        for (name, points) in tracks {
            let id = try store.deviceID(named: name, source: "test", origin: .other("test"))
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = 1; return p })
        }
    }
    return store
}

package func rebuild(_ store: Store, timezone: String? = "UTC", sets: [String] = []) throws {
    var options = Rebuild.Options()
    options.timeZoneName = timezone
    options.full = true
    for s in sets { try options.settings.set(s, origin: "test") }
    _ = try Rebuild(store: store, options: options).run()
}

package func count(_ store: Store, _ sql: String) throws -> Int {
    Int(try store.db.scalarInt(sql) ?? -1)
}

/// Every leg's mode in time order.
package func legModes(_ store: Store) throws -> [String] {
    let s = try store.db.prepare("SELECT mode FROM legs ORDER BY start_ms")
    var out: [String] = []
    while try s.step() { out.append(s.text(0) ?? "") }
    return out
}

package func double(_ store: Store, _ sql: String) throws -> Double {
    let s = try store.db.prepare(sql)
    guard try s.step(), !s.isNull(0) else { return .nan }
    return s.double(0)
}

/// Tracks more than one suite builds on.
package enum SampleTracks {
    package static let berlin = (lat: 52.5219, lon: 13.4132)  // Alexanderplatz
    package static let paris = (lat: 48.8606, lon: 2.3376)  // the Louvre

    /// Home in Berlin with wifi, a train to Paris, two nights in Paris without wifi.
    package static func tripAbroad() throws -> Store {
        let t0 = Int64(CivilTime.daysFromCivil(year: 2024, month: 6, day: 3)) * 86_400_000
        var b = TrackBuilder(startMs: t0, lat: berlin.lat, lon: berlin.lon, offset: 7200)
        b.still(8 * 3600, every: 600, drift: 5...30, ssid: "HomeNet")
        // The train: legs re-aimed at Paris, so the track follows the great circle.
        for _ in 0..<20 {
            let remaining = Geo.distance(b.lat, b.lon, paris.lat, paris.lon)
            if remaining < 200 { break }
            b.move(min(remaining, 50_000), bearing: Geo.bearing(b.lat, b.lon, paris.lat, paris.lon), speed: 55, every: 10)
        }
        b.still(2 * 86_400, every: 600, drift: 5...30)
        return try storeWith([("phone", b.points)])
    }

    /// 2024-01-15 Berlin, a flight, New York: leaving at 17:00 Berlin time (16:00 UTC) and landing at 21:00 New York
    /// time (02:00 UTC on the 16th). No point carries an offset, as in an OwnTracks archive.
    package static func berlinToNewYork() throws -> Store {
        let departure: Int64 = 1_705_334_400_000  // 2024-01-15T16:00:00Z
        let berlin = (lat: 52.5200, lon: 13.4050), newYork = (lat: 40.7128, lon: -74.0060)
        var b = TrackBuilder(startMs: departure - 3 * 3_600_000, lat: berlin.lat, lon: berlin.lon)
        b.still(3 * 3600, every: 120, drift: 0...15)
        // Ten hours in the air, a fix every 5 minutes, at ~190 m/s along a straight line in degrees.
        let steps = 120
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            b.t += 300_000
            b.lat = berlin.lat + (newYork.lat - berlin.lat) * f
            b.lon = berlin.lon + (newYork.lon - berlin.lon) * f
            b.points.append(Point(deviceID: 0, timeMs: b.t, lat: b.lat, lon: b.lon, speedMps: 190, accuracyM: 10))
        }
        b.still(2 * 3600, every: 120, drift: 0...15)
        return try storeWith([("phone", b.points)])
    }
}
