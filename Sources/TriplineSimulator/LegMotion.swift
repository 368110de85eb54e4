#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension Simulator {
    struct ModeDynamics {
        var cruise: ClosedRange<Double>
        var accel: Double
    }

    func dynamics(_ mode: TravelMode) -> ModeDynamics {
        switch mode {
        case .walk: return ModeDynamics(cruise: 1.2...1.6, accel: 0.8)
        case .run: return ModeDynamics(cruise: 2.6...3.4, accel: 1.0)
        case .cycle: return ModeDynamics(cruise: 4.2...6.0, accel: 0.8)
        case .car: return ModeDynamics(cruise: 9...14, accel: 2.0)
        case .bus: return ModeDynamics(cruise: 8...11, accel: 1.1)
        case .train: return ModeDynamics(cruise: 20...30, accel: 0.6)
        case .plane: return ModeDynamics(cruise: 200...230, accel: 2.5)
        }
    }

    /// Moves along one leg second by second, stopping at lights, stops and stations; appends to `samples`.
    /// - Returns: the number of stops made.
    // Long by design: one leg's motion second by second; stops, waits, tunnels and fixes share the leg's position and one random stream (its draw order fixes each seed's output).
    func move(
        _ leg: PlannedLeg, legIndex: Int, start: Double, samples: inout [Sample], rng: inout SplitMix64, allowTunnel: Bool
    ) -> Int {
        let path = leg.path
        var cum: [Double] = [0]
        for i in 1..<path.count { cum.append(cum[i - 1] + (path[i] - path[i - 1]).length) }
        let total = cum.last!
        let dyn = dynamics(leg.mode)
        var cruise = rng.uniform(dyn.cruise.lowerBound, dyn.cruise.upperBound)
        if leg.mode == .car && total > 8000 { cruise = rng.uniform(20, 24) }
        if let c = leg.cruiseMps { cruise = c }
        // Stops: (arc position, dwell seconds).
        var stops: [(Double, Double)] = []
        func stopLength() -> Double {
            let r = rng.double()
            return r < 0.7 ? rng.uniform(15, 60) : (r < 0.95 ? rng.uniform(60, 150) : rng.uniform(150, 190))
        }
        switch leg.mode {
        case .car, .cycle:
            for i in 1..<(path.count - 1) where rng.chance(leg.mode == .car ? 0.5 : 0.3) { stops.append((cum[i], stopLength())) }
            var s = rng.uniform(500, 900)
            while s < total - 300 {
                if rng.chance(0.3) { stops.append((s, stopLength())) }
                s += rng.uniform(500, 900)
            }
        case .bus:
            var s = rng.uniform(350, 600)
            while s < total - 200 {
                stops.append((s, rng.uniform(15, 45)))
                s += rng.uniform(350, 600)
            }
            for i in 1..<(path.count - 1) where rng.chance(0.3) { stops.append((cum[i], stopLength())) }
        case .train where leg.regionalTrain:
            var s = rng.uniform(4000, 8000)
            while s < total - 1500 {
                stops.append((s, rng.uniform(30, 60)))
                s += rng.uniform(4000, 8000)
            }
        case .train:
            var s = rng.uniform(2000, 4000)
            while s < total - 1500 {
                stops.append((s, rng.uniform(40, 90)))
                s += rng.uniform(2000, 4000)
            }
        case .walk:
            for i in 1..<(path.count - 1) where rng.chance(0.3) { stops.append((cum[i], rng.uniform(5, 40))) }
        case .run, .plane:
            break
        }
        // Profiles other than `classic`: buses wait minutes at timing points, cars crawl in slow traffic.
        var jam: (from: Double, to: Double, speed: Double)? = nil
        if config.profile != .classic {
            if leg.mode == .bus && !stops.isEmpty && rng.chance(0.4) {
                let k = rng.int(stops.count)
                stops[k].1 = rng.uniform(150, 420)
            }
            if leg.mode == .car && total > 1500 && rng.chance(0.35) {
                let a = rng.uniform(300, total - 1000)
                jam = (a, min(total - 300, a + rng.uniform(400, 1500)), rng.uniform(1.0, 3.5))
            }
        }
        stops.sort { $0.0 < $1.0 }
        // A tunnel on a long straight piece of a car or train leg.
        var tunnel: (Double, Double)? = nil
        if allowTunnel && (leg.mode == .car || leg.mode == .train) && rng.chance(0.4) {
            if let i = (1..<path.count).first(where: { cum[$0] - cum[$0 - 1] > 900 }) {
                let len = min(rng.uniform(400, 1500), cum[i] - cum[i - 1] - 300)
                let a = cum[i - 1] + rng.uniform(150, cum[i] - cum[i - 1] - len - 150)
                tunnel = (a, a + len)
                stops.removeAll { $0.0 >= a - 50 && $0.0 <= a + len + 50 }
            }
        }
        var t = start
        var s = 0.0
        var v = 0.0
        var seg = 1
        var nextStop = 0
        func position(_ s: Double) -> (XY, Double) {
            while seg < path.count - 1 && cum[seg] < s { seg += 1 }
            let a = path[seg - 1], b = path[seg]
            let len = cum[seg] - cum[seg - 1]
            let f = len > 0 ? min(1, max(0, (s - cum[seg - 1]) / len)) : 1
            let course = atan2(b.x - a.x, b.y - a.y) * 180 / .pi
            return (a + (b - a) * f, course < 0 ? course + 360 : course)
        }
        func emit(stopped: Bool, stopS: Double) {
            let (p, course) = position(s)
            let inTunnel = tunnel.map { s > $0.0 && s < $0.1 } ?? false
            samples.append(Sample(t: t, p: p, speed: v, course: course, leg: legIndex, stopped: stopped, stopS: stopS, tunnel: inTunnel))
        }
        // Waiting at the start (bus stop, platform).
        if leg.waitS > 0 {
            var w = 0.0
            while w < leg.waitS {
                emit(stopped: true, stopS: w)
                t += 1; w += 1
            }
        }
        var stopCount = leg.waitS > 0 ? 1 : 0
        /// Stands still on the way, a fix a second from `first` s into the stop until `seconds`: one more stop.
        func stand(_ seconds: Double, from first: Double = 0) {
            var w = first
            while w < seconds {
                t += 1
                emit(stopped: true, stopS: w)
                w += 1
            }
            stopCount += 1
        }
        emit(stopped: false, stopS: 0)
        if let start = leg.jamStart {
            // A drive that starts in a jam: a stand, then stop-and-go (0–6 m/s, stops of 10–60 s), then the cruise.
            stand(start.standS)
            let crawlEnd = t + start.crawlS
            while t < crawlEnd && s < total - 2000 {
                let go = rng.uniform(15, 60), pace = rng.uniform(2, 6)
                var g = 0.0
                while g < go && s < total - 2000 {
                    v = min(v + dyn.accel, pace)
                    s += v; t += 1; g += 1
                    emit(stopped: false, stopS: 0)
                }
                while v > 0 {
                    v = max(0, v - dyn.accel)
                    s += v; t += 1
                    emit(stopped: false, stopS: 0)
                }
                stand(rng.uniform(10, 60))
            }
            while nextStop < stops.count && stops[nextStop].0 <= s + 50 { nextStop += 1 }
            if let j = jam, j.from < s + 50 { jam = nil }
        }
        var guardSteps = 0
        while s < total - 0.01 && guardSteps < 400_000 {
            guardSteps += 1
            let target = nextStop < stops.count ? stops[nextStop].0 : total
            let remaining = target - s
            let brake = (2 * dyn.accel * max(remaining, 0)).squareRoot()
            var vTarget = max(min(cruise, brake), min(0.8, remaining))
            if let jam, s >= jam.from && s < jam.to { vTarget = min(vTarget, jam.speed) }
            v = v < vTarget ? min(v + dyn.accel, vTarget) : vTarget
            let step = min(v, remaining)
            s += step
            t += 1
            if s >= target - 0.01 {
                s = target
                if nextStop < stops.count {
                    v = 0
                    emit(stopped: true, stopS: 0)
                    stand(stops[nextStop].1, from: 1)
                    nextStop += 1
                    continue
                }
            }
            emit(stopped: false, stopS: 0)
        }
        if let last = samples.last, last.speed != 0 {
            samples[samples.count - 1].speed = 0
        }
        return stopCount
    }
}
