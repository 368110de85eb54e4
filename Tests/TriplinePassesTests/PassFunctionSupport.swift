import TriplineGeography
import TriplineCore
@testable import TriplinePasses

/// The key of the pass function tests' device (named "phone"), which their stable ids are mixed from.
let testDeviceKey = StableID.deviceKey(name: "phone")

/// Fixes for the pass function tests, built in memory (no database): `DeviceWork` columns at UTC offset 0, every
/// fix kept (clean flag 0), no accuracy, speed, motion or app mode.
struct FixTrack {
    var time: [Int64] = []
    var lat: [Double] = []
    var lon: [Double] = []

    /// Metres per degree of latitude (and of longitude at the equator, where these tracks run).
    static let metresPerDegree = 111_194.9

    mutating func add(_ ms: Int64, _ la: Double, _ lo: Double) {
        time.append(ms)
        lat.append(la)
        lon.append(lo)
    }

    /// `count` fixes every `everyS` seconds from `startMs` at one spot.
    mutating func still(from startMs: Int64, count: Int, everyS: Int64, at p: (Double, Double)) {
        for k in 0..<count { add(startMs + Int64(k) * everyS * 1000, p.0, p.1) }
    }

    /// Fixes every `everyS` seconds from `startMs`, moving east along the equator from `fromLon` at `mps`, for
    /// `seconds` (the last fix at or before the end).
    mutating func east(from startMs: Int64, fromLon: Double, mps: Double, seconds: Int64, everyS: Int64, lat la: Double = 0) {
        var s: Int64 = 0
        while s <= seconds {
            add(startMs + s * 1000, la, fromLon + mps * Double(s) / Self.metresPerDegree)
            s += everyS
        }
    }

    var work: DeviceWork {
        let w = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
        w.time = time
        w.lat = lat
        w.lon = lon
        w.accuracy = [Double](repeating: .nan, count: time.count)
        w.speed = [Double](repeating: .nan, count: time.count)
        w.offset = [Int32](repeating: 0, count: time.count)
        w.motion = [UInt8](repeating: 0, count: time.count)
        w.tripMode = [UInt16](repeating: 0, count: time.count)
        w.flags = [UInt8](repeating: 0, count: time.count)
        w.flagsLoaded = true
        return w
    }
}
