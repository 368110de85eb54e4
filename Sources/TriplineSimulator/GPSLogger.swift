#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

// MARK: Settings and receiver state

/// How one person's GPS logger (or GPX tracking app) is set, drawn once per device from (seed, person).
///
/// Real loggers log by time: dedicated ones (Holux, Columbus, Qstarz) every 1 or 5 s by default, phone apps such as
/// GPSLogger, OsmAnd or a sports app every 1–5 s while recording, some set to 10–15 s to save the battery; GeoLife's
/// loggers wrote "every 1–5 seconds or every 5–10 metres". None of them writes a Doppler speed into GPX by default.
struct LoggerSettings {
    /// Seconds between fixes while logging: 1 s 30 %, 2 s 20 %, 3 s 10 %, 5 s 25 %, 10 s 10 %, 15 s 5 %.
    let intervalS: Double
    /// With the logger left on while still, a fix only once the position moved this far from the last one (m).
    let stillFilterM: Double
    /// The receiver's noise relative to a good one (1): cheap phone chips and body shadowing, 0.8–1.6.
    let quality: Double

    init(seed: UInt64, person: Int) {
        var rng = SplitMix64.derived(seed, UInt64(person), 0x6A55)
        let u = rng.double()
        intervalS = u < 0.3 ? 1 : u < 0.5 ? 2 : u < 0.6 ? 3 : u < 0.85 ? 5 : u < 0.95 ? 10 : 15
        stillFilterM = rng.uniform(10, 25)
        quality = rng.uniform(0.8, 1.6)
    }
}

/// The receiver between fixes: its slow Gauss–Markov error, an urban multipath episode, a cold-start jump, and when
/// it last had a fix (a receiver off for more than 30 min starts cold).
struct LoggerState {
    let settings: LoggerSettings
    /// Slow error (m, east / north) and when it was last drawn.
    var nx = 0.0, ny = 0.0, noiseT = -1e18
    /// Multipath: until when, its extra sigma, and its fast error.
    var multipathUntil = -1e18, multipathSigma = 0.0, mx = 0.0, my = 0.0
    /// A warm-up jump after a cold start: the offset at `jumpT`, decaying with `jumpTau`.
    var jump = Simulator.XY(x: 0, y: 0), jumpT = -1e18, jumpTau = 10.0
    /// The time of the last fix the receiver had (for cold or warm starts).
    var lastFixT = -1e18
    /// The last position written while still (for the distance filter).
    var lastStill: Simulator.XY? = nil
    /// Tracks: after a forgotten stop the logger keeps running at the destination for this long (s).
    var forgottenTail: Double? = nil
    /// Tracks: the trip ended (logging stopped at arrival + this many seconds).
    var stopAfterArrival = 0.0

    init(settings: LoggerSettings) { self.settings = settings }
}

extension RegimeFixMaker {
    // MARK: Receiver

    /// Starts the receiver at `t`: the time to its first fix (warm 3–15 s after less than 30 min off, cold 20–90 s),
    /// and on 60 % of cold starts a warm-up jump: the first fixes 40–300 m off, converging within 5–20 s × 3.
    mutating func loggerAcquire(at t: Double) -> Double {
        let cold = t - logger.lastFixT > 1800
        if cold && rng.chance(0.6) {
            let a = rng.uniform(0, 2 * .pi), r = rng.uniform(40, 300)
            logger.jump = Simulator.XY(x: cos(a) * r, y: sin(a) * r)
            logger.jumpTau = rng.uniform(5, 20)
        } else {
            logger.jump = Simulator.XY(x: 0, y: 0)
        }
        let first = t + (cold ? rng.uniform(20, 90) : rng.uniform(3, 15))
        logger.jumpT = first
        return first
    }

    /// The receiver's error at `t` for a fix with base sigma `sigma` (m): a slow Gauss–Markov error (correlation
    /// 60 s), urban multipath episodes (on average one per 10 min, 15–90 s of 8–30 m extra error, correlated over
    /// 30 s: the receiver's position filter turns reflections into a wander, not a jump per fix), the decaying warm-up jump, and 0.3 % of fixes 80–400 m off. Returns the offset and the HDOP a logger
    /// would write beside it: the satellites' geometry, which the receiver knows (its noise, a few satellites while it
    /// warms up), not the reflections or the glitches, which it does not (a real logger's HDOP stays 0.4–1.3 through
    /// them: GPSLogger in reitti's days), so a rule reading it cannot learn this simulator's own errors.
    mutating func loggerError(t: Double, sigma: Double, urban: Bool) -> (Simulator.XY, Double) {
        let dt = max(0, t - logger.noiseT)
        let rho = exp(-dt / 60)
        let k = (1 - rho * rho).squareRoot() * sigma
        logger.nx = rho * logger.nx + k * rng.normal()
        logger.ny = rho * logger.ny + k * rng.normal()
        logger.noiseT = t
        var e = Simulator.XY(x: logger.nx, y: logger.ny)
        var spread = sigma
        if urban && t >= logger.multipathUntil && rng.chance(min(1, dt / 600)) {
            logger.multipathUntil = t + rng.uniform(15, 90)
            logger.multipathSigma = rng.uniform(8, 30)
            logger.mx = rng.normal() * logger.multipathSigma
            logger.my = rng.normal() * logger.multipathSigma
        }
        if t < logger.multipathUntil {
            let r = exp(-min(dt, 120) / 30)
            let km = (1 - r * r).squareRoot() * logger.multipathSigma
            logger.mx = r * logger.mx + km * rng.normal()
            logger.my = r * logger.my + km * rng.normal()
            e = e + Simulator.XY(x: logger.mx, y: logger.my)
        }
        if t >= logger.jumpT {
            let decay = exp(-(t - logger.jumpT) / logger.jumpTau)
            if decay > 0.01 {
                e = e + logger.jump * decay
                spread += 20 * decay
            }
        }
        if rng.chance(0.003) {
            let a = rng.uniform(0, 2 * .pi), r = rng.uniform(80, 400)
            e = e + Simulator.XY(x: cos(a) * r, y: sin(a) * r)
        }
        return (e, min(25, max(0.6, (spread / 4 * 10).rounded() / 10)))
    }

    /// One logged fix: position, elevation, and the `hdop` / `sat` a logger writes (kept by the importer in `extra`,
    /// exactly as ``SimulationWriter`` writes them into the GPX); no speed, course or accuracy.
    mutating func loggerFix(t: Double, at p: Simulator.XY, hdop: Double, plane: Bool) {
        let ll = sim.latLon(p)
        let sat = max(4, min(14, Int((12 - hdop * 1.5).rounded()) + rng.int(3) - 1))
        let altitude = plane ? 9000 + rng.normal() * 30 : 35 + rng.normal() * 4 * hdop
        var q = Point(
            deviceID: 0, timeMs: Int64(t.rounded()) * 1000, utcOffsetS: nil, lat: (ll.lat * 1e7).rounded() / 1e7,
            lon: (ll.lon * 1e7).rounded() / 1e7, altitudeM: (altitude * 10).rounded() / 10, speedMps: nil, courseDeg: nil,
            accuracyM: nil, vAccuracyM: nil)
        q.extra = "{\"hdop\":\(SimulationWriter.number(hdop, decimals: 1)),\"sat\":\(sat)}"
        points.append(q)
        logger.lastFixT = t
        lastFixT = t
    }

    /// The base sigma (m) of the receiver in `mode` (in a vehicle the roof and the body shadow the sky).
    func loggerSigma(_ mode: TravelMode) -> Double {
        let q = logger.settings.quality
        switch mode {
        case .walk, .run, .cycle: return 4 * q
        case .car: return 5 * q
        case .bus: return 7 * q
        case .train: return 10 * q
        case .plane: return 15 * q
        }
    }

    // MARK: Trips

    /// A trip as a logger records it. Tracks (`logger-tracks`): 4 % of trips are not logged at all (the user forgot:
    /// a truth gap `off`); otherwise logging starts up to 60 s before the departure (20 %) or 0–90 s after it (the
    /// phone out of the pocket; 15 % of tracks 1–5 min late), waits for the first fix (``loggerAcquire(at:)``), and
    /// stops 0–3 min after the arrival, or runs on at the destination for 10–60 min (a forgotten stop, 12 %).
    /// All day (`logger-all-day`): the receiver is already on (outdoors) or reacquires after an indoor stay.
    /// Fixes every ``LoggerSettings/intervalS`` seconds; none in tunnels, and a few seconds to reacquire after them.
    mutating func loggerTrip(_ samples: [Simulator.Sample], _ legs: [Simulator.PlannedLeg]) {
        let first = samples[0], last = samples[samples.count - 1]
        let interval = logger.settings.intervalS
        var startT = first.t
        if regime == .loggerTracks {
            if rng.chance(0.04) {
                offGaps.append((first.t, last.t))
                logger.forgottenTail = nil
                return
            }
            let u = rng.double()
            startT = u < 0.2 ? first.t - rng.uniform(0, 60) : (u < 0.35 ? first.t + rng.uniform(60, 300) : first.t + rng.uniform(0, 90))
            logger.forgottenTail = rng.chance(0.12) ? rng.uniform(600, 3600) : nil
            logger.stopAfterArrival = rng.uniform(0, 180)
            var t = loggerAcquire(at: startT)
            // Logged before the departure: still at the origin.
            while t < first.t {
                let (e, hdop) = loggerError(t: t, sigma: loggerSigma(.walk), urban: true)
                loggerFix(t: t, at: first.p + e, hdop: hdop, plane: false)
                t += interval
            }
            startT = t
        } else if logger.lastFixT < first.t - 120 {
            // All day, after an indoor stay without a fix: the receiver reacquires outdoors.
            startT = loggerAcquire(at: first.t)
        }
        var next = startT
        var lostSignal = false
        for s in samples where s.t >= startT {
            if s.tunnel {
                lostSignal = true
                continue
            }
            if lostSignal {
                lostSignal = false
                next = max(next, s.t + rng.uniform(2, 10))
            }
            guard s.t + 1e-6 >= next else { continue }
            let mode = legs[s.leg].mode
            let (e, hdop) = loggerError(t: s.t, sigma: loggerSigma(mode), urban: mode != .plane && mode != .train)
            loggerFix(t: s.t, at: s.p + e, hdop: hdop, plane: mode == .plane)
            next = s.t + interval
        }
        if regime == .loggerTracks {
            // Stopped after the arrival: the last seconds at the destination.
            var t = next
            let stop = last.t + (logger.forgottenTail == nil ? logger.stopAfterArrival : 0)
            while t <= stop {
                let (e, hdop) = loggerError(t: t, sigma: loggerSigma(.walk), urban: true)
                loggerFix(t: t, at: last.p + e, hdop: hdop, plane: false)
                t += interval
            }
            logger.lastStill = nil
        }
    }

    // MARK: Stays

    /// A stay as a logger records it. Tracks: nothing, unless the user forgot to stop the logger (it runs on for
    /// 10–60 min of the stay, indoors: fixes wander 20–80 m and come through the distance filter a real logger does
    /// not have, so here every interval). All day: from 10–90 min before the day's first departure to 10–120 min
    /// after the last arrival (the logger is charged at night); indoors a fix every interval that moved at least
    /// ``LoggerSettings/stillFilterM`` from the last one written, and in 40 % of stays the signal is lost indoors
    /// 30 s–3 min after the arrival until the departure.
    mutating func loggerStay(place: Int, start: Double, end: Double, first: Bool, last: Bool) {
        let centre = world.xy[place]!
        let interval = logger.settings.intervalS
        indoor = IndoorDrift(dx: rng.normal() * 35, dy: rng.normal() * 35, lastT: start)
        var from = start + interval, to = start
        var filtered = false
        switch regime {
        case .loggerTracks:
            if let tail = logger.forgottenTail { to = min(end - 5, start + tail) }
            logger.forgottenTail = nil
        default:
            filtered = true
            if first { from = max(start, end - rng.uniform(10, 90) * 60) ; from = loggerAcquire(at: from) }
            to = last ? min(end - 5, start + rng.uniform(10, 120) * 60) : end - 5
            if !first && rng.chance(0.4) { to = min(to, start + rng.uniform(30, 180)) }
        }
        var t = from
        while t < to {
            let (off, _) = indoor.step(to: t, &rng)
            let (e, hdop) = loggerError(t: t, sigma: loggerSigma(.walk) * 2, urban: false)
            let p = centre + off + e
            if !filtered || logger.lastStill.map({ (p - $0).length >= logger.settings.stillFilterM }) ?? true {
                loggerFix(t: t, at: p, hdop: max(hdop, (off.length / 10 * 10).rounded() / 10), plane: false)
                logger.lastStill = p
            }
            t += interval
        }
        logger.lastStill = nil
    }
}
