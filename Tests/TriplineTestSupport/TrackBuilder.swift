import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineExport
import TriplineSimulator
import TriplineEvaluation
import TriplineCLI

/// Builds small hand-made tracks for pass tests: still periods with drift, straight moves, stops and gaps.
struct TrackBuilder {
    var points: [Point] = []
    var t: Int64  // ms
    var lat: Double
    var lon: Double
    var rng = SplitMix64(seed: 42)
    var offset: Int32? = nil

    init(startMs: Int64, lat: Double, lon: Double, offset: Int32? = nil) {
        self.t = startMs
        self.lat = lat
        self.lon = lon
        self.offset = offset
    }

    /// Still for `seconds`, one fix every `every` seconds, each `drift` metres (random direction) off, accuracy ≈ drift.
    mutating func still(_ seconds: Int, every: Int, drift: ClosedRange<Double> = 0...0, ssid: String? = nil) {
        var s = 0
        while s < seconds {
            let d = rng.uniform(drift.lowerBound, drift.upperBound + 0.001)
            let p = Geo.destination(lat, lon, bearing: rng.uniform(0, 360), distance: d)
            points.append(Point(deviceID: 0, timeMs: t, utcOffsetS: offset, lat: p.lat, lon: p.lon, speedMps: 0,
                                accuracyM: max(10, d), ssid: ssid))
            t += Int64(every) * 1000
            s += every
        }
    }

    /// Moves `metres` along `bearing` at `speed` m/s, one fix every `every` seconds. Returns the true distance.
    @discardableResult
    mutating func move(_ metres: Double, bearing: Double, speed: Double, every: Int = 1, motion: String? = nil, tripMode: String? = nil) -> Double {
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
    mutating func gap(_ seconds: Int, moving metres: Double = 0, bearing: Double = 0) {
        if metres > 0 {
            let p = Geo.destination(lat, lon, bearing: bearing, distance: metres)
            lat = p.lat
            lon = p.lon
        }
        t += Int64(seconds) * 1000
    }

    /// A far-off cell fix (kilometres away, 2 km accuracy, no speed).
    mutating func farOff(km: Double) {
        let p = Geo.destination(lat, lon, bearing: 45, distance: km * 1000)
        t += 1000
        points.append(Point(deviceID: 0, timeMs: t, lat: p.lat, lon: p.lon, accuracyM: 2000))
    }
}

/// A fresh store with one device per track, the points inserted.
func storeWith(_ tracks: [(String, [Point])]) throws -> Store {
    let store = try Store(path: try temporaryDirectory() + "/t.sqlite")
    try store.db.transaction {
        for (name, points) in tracks {
            let id = try store.deviceID(named: name, source: "test", origin: "test")
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = 1; return p })
        }
    }
    return store
}

func rebuild(_ store: Store, timezone: String? = "UTC", sets: [String] = []) throws {
    var options = Rebuild.Options()
    options.timeZoneName = timezone
    options.full = true
    for s in sets { try options.settings.set(s, origin: "test") }
    _ = try Rebuild(store: store, options: options).run()
}

func count(_ store: Store, _ sql: String) throws -> Int {
    Int(try store.db.scalarInt(sql) ?? -1)
}

func double(_ store: Store, _ sql: String) throws -> Double {
    let s = try store.db.prepare(sql)
    guard try s.step(), !s.isNull(0) else { return .nan }
    return s.double(0)
}
