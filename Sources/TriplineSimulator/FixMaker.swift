#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Turns true positions into the fixes an app would record.
/// Indoor drift: a slow random wander of 20–80 m around a place (correlation 30 min), with the accuracy the phone
/// reports for such a fix.
struct IndoorDrift {
    var dx: Double
    var dy: Double
    /// The time of the last step (s).
    var lastT: Double

    /// The offset from the place at `t` (not before the last step) and its reported accuracy.
    mutating func step(to t: Double, _ rng: inout SplitMix64) -> (offset: Simulator.XY, accuracy: Double) {
        let rho = exp(-max(0, t - lastT) / 1800)
        let k = (1 - rho * rho).squareRoot() * 35
        dx = rho * dx + k * rng.normal()
        dy = rho * dy + k * rng.normal()
        lastT = t
        var m = (dx * dx + dy * dy).squareRoot()
        if m < 20 { dx *= 20 / max(m, 0.1); dy *= 20 / max(m, 0.1); m = 20 }
        if m > 80 { dx *= 80 / m; dy *= 80 / m; m = 80 }
        return (Simulator.XY(x: dx, y: dy), min(100, max(20, m * rng.uniform(0.9, 1.4))))
    }
}

struct FixMaker {
    let sim: Simulator
    let app: SimulatedApp
    var rng: SplitMix64
    let zone: TimeZoneTable
    // Gauss–Markov noise while moving (metres, east/north) and slow drift while still.
    var nx = 0.0, ny = 0.0, lastNoiseT = -1e18
    var battery = 0.9
    /// Overland with "discard stationary": during a stop of more than 25 s inside a trip only its first fix.
    var discardStops = true
    /// The non-classic profiles: multipath, outliers and fast jitter on the moving fixes (``PhoneNoise``); nil in the
    /// classic profile, which stays byte for byte.
    var phone: PhoneNoise? = nil

    init(sim: Simulator, app: SimulatedApp, rng: SplitMix64, zone: TimeZoneTable) {
        self.sim = sim
        self.app = app
        self.rng = rng
        self.zone = zone
        battery = self.rng.uniform(0.5, 1.0)
    }

    mutating func noise(t: Double, sigma: Double, tau: Double) -> (Double, Double) {
        let dt = t - lastNoiseT
        let rho = dt > 0 ? exp(-dt / tau) : 1
        let k = (1 - rho * rho).squareRoot() * sigma
        nx = rho * nx + k * rng.normal()
        ny = rho * ny + k * rng.normal()
        lastNoiseT = t
        return (nx, ny)
    }

    func makePoint(t: Double, p: Simulator.XY, accuracy: Double, speed: Double?, course: Double?, altitude: Double?) -> Point {
        let ll = sim.latLon(p)
        let ms = Int64(t.rounded()) * 1000
        let offset: Int32? = app == .overland ? zone.offset(at: ms) : nil
        return Point(
            deviceID: 0, timeMs: ms, utcOffsetS: offset, lat: (ll.lat * 1e7).rounded() / 1e7, lon: (ll.lon * 1e7).rounded() / 1e7,
            altitudeM: altitude, speedMps: speed, courseDeg: course, accuracyM: accuracy.rounded(),
            vAccuracyM: altitude == nil ? nil : 4)
    }

    mutating func farOff(t: Double, near: Simulator.XY, into points: inout [Point]) {
        let a = rng.uniform(0, 2 * .pi)
        let r = rng.uniform(1200, 5000)
        var p = makePoint(t: t, p: near + Simulator.XY(x: cos(a) * r, y: sin(a) * r), accuracy: rng.uniform(1000, 3000), speed: nil, course: nil, altitude: nil)
        p.conn = app == .owntracks ? "m" : nil
        p.batteryLevel = (battery * 100).rounded() / 100
        points.append(p)
    }

    /// Fixes while still at a place.
    mutating func stay(
        place: Int, world: Simulator.PersonWorld, start: Double, end: Double, gaps: [(Double, Double)], farOff: Bool,
        into points: inout [Point]
    ) {
        let centre = world.xy[place]!
        let ssid = world.places.first(where: { $0.id == place })?.ssid
        // Drift: a slow random wander of 20–80 m around the place.
        var drift = IndoorDrift(dx: rng.normal() * 35, dy: rng.normal() * 35, lastT: start)
        var times: [Double] = []
        var tt = start + rng.uniform(2, 8)
        if app == .overland {
            while tt < end - 5 {
                times.append(tt)
                tt += 3600
            }
        } else {
            while tt < end - 5 {
                times.append(tt)
                tt += min(3 * 3600, max(120, rng.exponential(mean: 1500)))
            }
        }
        for t in times {
            if gaps.contains(where: { t >= $0.0 && t < $0.1 }) { continue }
            if farOff && rng.chance(0.08) {
                self.farOff(t: t - rng.uniform(10, 200), near: centre, into: &points)
            }
            let (wander, acc) = drift.step(to: t, &rng)
            var p = makePoint(t: t, p: centre + wander, accuracy: acc, speed: 0, course: nil, altitude: 35 + rng.normal() * 3)
            p.batteryLevel = (battery * 100).rounded() / 100
            p.batteryState = app == .overland ? (ssid != nil ? "charging" : "unplugged") : nil
            if app == .overland {
                p.motion = rng.chance(0.9) ? "stationary" : nil
                p.ssid = ssid
            } else {
                p.ssid = ssid
                p.conn = ssid != nil ? "w" : "m"
                p.trigger = rng.chance(0.5) ? "p" : nil
            }
            if ssid != nil { p.bssid = "3c:22:fb:1a:00:\(String(place % 100, radix: 16))" }
            points.append(p)
        }
    }

    /// Fixes while moving (1 Hz or the configured interval), with stops, tunnels and gaps.
    mutating func trip(
        samples: [Simulator.Sample], legs: [Simulator.PlannedLeg], world: Simulator.PersonWorld, tripID: String?, tripMode: String?,
        into points: inout [Point]
    ) {
        let interval = Double(sim.config.movingIntervalS)
        var nextT = samples[0].t
        let homeXY = world.xy[world.home]!, workXY = world.xy[world.work]!
        let homeSSID = world.places.first(where: { $0.id == world.home })?.ssid
        let workSSID = world.places.first(where: { $0.id == world.work })?.ssid
        var legAccuracy = [Double]()
        for leg in legs {
            switch leg.mode {
            case .train: legAccuracy.append(rng.uniform(8, 16))
            case .plane: legAccuracy.append(rng.uniform(15, 30))
            default: legAccuracy.append(rng.uniform(4, 10))
            }
        }
        for (i, s) in samples.enumerated() {
            if s.tunnel { continue }
            // Overland discards points while the motion sensor says stationary: during a long stop only the first.
            let discarded = discardStops && app == .overland && s.stopped && s.stopS > 25
            let isLast = i == samples.count - 1
            if s.t + 1e-6 < nextT && !isLast { continue }
            if discarded && !isLast { continue }
            nextT = s.t + interval
            let mode = legs[s.leg].mode
            let acc = legAccuracy[s.leg] * rng.uniform(0.8, 1.25)
            let (ex, ey) = noise(t: s.t, sigma: acc * 0.4, tau: 90)
            var error = Simulator.XY(x: ex, y: ey), reported = acc
            if var phone {
                if let m = phone.multipath(t: s.t, urban: mode != .plane && mode != .train) {
                    error = error + m.offset
                    reported += m.accuracy
                }
                error = error + phone.jitter(t: s.t, sigma: acc * (mode == .walk || mode == .run ? 0.15 : 0.08))
                if mode != .plane, let o = phone.outlier(share: PhoneNoise.denseOutlierShare, accuracy: reported) {
                    error = error + o.offset
                    reported = o.accuracy
                }
                self.phone = phone
            }
            let speed = max(0, s.speed + rng.normal() * 0.25)
            let altitude: Double? = mode == .plane ? 9000 : 35 + rng.normal() * 3
            var p = makePoint(t: s.t, p: s.p + error, accuracy: reported,
                              speed: (speed * 100).rounded() / 100, course: s.speed > 0.5 ? s.course.rounded() : nil, altitude: altitude)
            p.batteryLevel = (battery * 100).rounded() / 100
            battery = max(0.05, battery - 0.00002)
            let nearHome = (s.p - homeXY).length < 40, nearWork = (s.p - workXY).length < 40
            if app == .overland {
                p.batteryState = "unplugged"
                if rng.chance(0.92) {
                    switch mode {
                    case .walk: p.motion = s.stopped ? "walking,stationary" : "walking"
                    case .run: p.motion = "running"
                    case .cycle: p.motion = s.stopped ? "cycling,stationary" : "cycling"
                    case .car, .bus, .train: p.motion = s.stopped ? "driving,stationary" : "driving"
                    case .plane: p.motion = nil
                    }
                }
                p.ssid = nearHome ? homeSSID : (nearWork ? workSSID : nil)
                p.appTripID = tripID
                p.appTripMode = tripMode
            } else {
                p.conn = nearHome || nearWork ? "w" : "m"
                p.ssid = nearHome ? homeSSID : (nearWork ? workSSID : nil)
                p.trigger = nil
            }
            points.append(p)
        }
    }
}
