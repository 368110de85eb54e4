#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension Simulator {
    // MARK: One day

    /// What one day produced.
    struct DayOutput {
        var points: [Point] = []
        var appTrips: [AppTripRecord] = []
        var events: [SimulatedEvent] = []
        var stays: [TruthStay] = []
        var trips: [TruthTrip] = []
        var gaps: [TruthGap] = []
        var days: [TruthDay] = []
    }

    /// A planned leg: mode and the polyline it follows.
    struct PlannedLeg {
        var mode: TravelMode
        var path: [XY]
        /// Seconds to wait still at the start of this leg (at a bus stop or a station).
        var waitS: Double
        // The varied world's habits (docs/SIMULATOR.md "A varied world"); the defaults leave a leg moving as before,
        // draw for draw.
        /// The cruising speed the plan chose (a walk to the car, a ring road, a train), instead of the mode's draw.
        var cruiseMps: Double? = nil
        /// A drive that starts in a jam: a stand of `standS`, then stop-and-go for `crawlS` (0–6 m/s, stops of
        /// 10–60 s), then the rest at the cruise.
        var jamStart: (standS: Double, crawlS: Double)? = nil
        /// A regional train: stations every 4–8 km, 30–60 s each (else every 2–4 km, 40–90 s).
        var regionalTrain = false
        /// What the truth names this leg's habit (``TruthLeg/habit``).
        var habit: String? = nil
    }

    /// A planned activity: go to `place` by `legs`, leaving at `departLocalS` seconds after local midnight.
    struct Planned {
        var departLocalS: Double
        var place: Int
        var legs: [PlannedLeg]
        /// When set, leave exactly this many seconds after arriving at the current place (short stops of the varied
        /// world), whatever `departLocalS` says; otherwise at `departLocalS`, after at least 12 min there.
        var afterStayS: Double? = nil
    }

    /// One true second of movement.
    struct Sample {
        var t: Double  // UTC seconds
        var p: XY
        var speed: Double
        var course: Double
        var leg: Int
        var stopped: Bool
        var stopS: Double  // seconds into the current stop
        var tunnel: Bool
    }

    func route(_ a: XY, _ b: XY, mode: TravelMode, angle: Double, rng: inout SplitMix64) -> [XY] {
        let d = b - a
        if mode == .plane || d.length < 60 { return [a, b] }
        if mode == .train {
            let perp = XY(x: -d.y, y: d.x) * (1 / d.length)
            let m1 = a + d * 0.35 + perp * (d.length * rng.uniform(-0.08, 0.08))
            let m2 = a + d * 0.7 + perp * (d.length * rng.uniform(-0.08, 0.08))
            return [a, m1, m2, b]
        }
        // Streets on a grid rotated by `angle`: alternate runs along its two axes, with corners.
        let ca = cos(angle), sa = sin(angle)
        let u = d.x * ca + d.y * sa
        let v = -d.x * sa + d.y * ca
        let corners = d.length < 400 ? 1 : 2 + rng.int(3)
        var uParts: [Double] = []
        var vParts: [Double] = []
        let runs = corners + 1
        let uRuns = (runs + 1) / 2, vRuns = runs / 2
        func split(_ total: Double, _ n: Int) -> [Double] {
            guard n > 0 else { return [] }
            var w = (0..<n).map { _ in rng.uniform(0.5, 1.5) }
            let s = w.reduce(0, +)
            for i in w.indices { w[i] = w[i] / s * total }
            return w
        }
        let startWithU = rng.chance(0.5)
        uParts = split(u, startWithU ? uRuns : vRuns)
        vParts = split(v, startWithU ? vRuns : uRuns)
        if uParts.isEmpty { uParts = [u] }
        if vParts.isEmpty { vParts = [v] }
        var points = [a]
        var cu = 0.0, cv = 0.0
        var iu = 0, iv = 0
        var useU = startWithU
        while iu < uParts.count || iv < vParts.count {
            if useU && iu < uParts.count {
                cu += uParts[iu]; iu += 1
            } else if !useU && iv < vParts.count {
                cv += vParts[iv]; iv += 1
            } else if iu < uParts.count {
                cu += uParts[iu]; iu += 1
            } else {
                cv += vParts[iv]; iv += 1
            }
            useU.toggle()
            points.append(a + XY(x: cu * ca - cv * sa, y: cu * sa + cv * ca))
        }
        points[points.count - 1] = b
        // Drop degenerate vertices.
        var clean = [points[0]]
        for p in points.dropFirst() where (p - clean.last!).length > 1 { clean.append(p) }
        if clean.count == 1 { clean.append(b) }
        return clean
    }

    func loop(_ home: XY, angle: Double, length: Double, rng: inout SplitMix64) -> [XY] {
        let a = rng.uniform(0, 2 * .pi)
        let turn = home + XY(x: cos(a) * length * 0.35, y: sin(a) * length * 0.35)
        let out = route(home, turn, mode: .run, angle: angle, rng: &rng)
        let back = route(turn, home, mode: .run, angle: angle, rng: &rng)
        return out + back.dropFirst()
    }

    /// The legs of a trip from place `from` to `to` by `mode`: a bus or train ride is a walk to the stop or station
    /// near home or work, the ride (after a wait on the platform) and a walk from the other one; any other mode one
    /// leg along the streets.
    func plannedLegs(_ w: PersonWorld, _ from: Int, _ to: Int, _ mode: TravelMode, rng: inout SplitMix64) -> [PlannedLeg] {
        let xy = w.xy
        switch mode {
        case .bus, .train:
            let (s1, s2) = mode == .bus
                ? (from == w.home ? (w.homeStop, w.workStop) : (w.workStop, w.homeStop))
                : (from == w.home ? (w.homeStation, w.workStation) : (w.workStation, w.homeStation))
            return [
                PlannedLeg(mode: .walk, path: route(xy[from]!, xy[s1]!, mode: .walk, angle: w.gridAngle, rng: &rng), waitS: 0),
                PlannedLeg(mode: mode, path: route(xy[s1]!, xy[s2]!, mode: mode, angle: w.gridAngle, rng: &rng), waitS: rng.uniform(60, 230)),
                PlannedLeg(mode: .walk, path: route(xy[s2]!, xy[to]!, mode: .walk, angle: w.gridAngle, rng: &rng), waitS: 0),
            ]
        default:
            return [PlannedLeg(mode: mode, path: route(xy[from]!, xy[to]!, mode: mode, angle: w.gridAngle, rng: &rng), waitS: 0)]
        }
    }

    /// The day's plan for one person.
    // Long by design: one day's plan as a chain of chances (weekday, errands, evenings, the flight days) from one random stream, whose draw order fixes each seed.
    func plan(_ w: PersonWorld, day: Int, weekday: Int, rng: inout SplitMix64) -> [Planned] {
        var plans: [Planned] = []
        let xy = w.xy
        func legs(_ from: Int, _ to: Int, _ mode: TravelMode) -> [PlannedLeg] { plannedLegs(w, from, to, mode, rng: &rng) }
        let h = 3600.0
        if config.planes && w.person == 0 && config.days >= 8 && day == 5 {
            // A flight out on day 5 (train to the airport, plane, walk to the hotel) and back on day 7.
            if day == 5 {
                plans.append(Planned(departLocalS: 9 * h, place: w.airport, legs: legs(w.home, w.airport, .car)))
                var flight = legs(w.airport, w.hotel, .plane)
                flight[0].waitS = 0
                plans.append(Planned(departLocalS: 11.5 * h, place: w.hotel, legs: flight))
                plans.append(Planned(departLocalS: 22 * h, place: w.airport, legs: legs(w.hotel, w.airport, .plane)))
                plans.append(Planned(departLocalS: 23.75 * h, place: w.home, legs: legs(w.airport, w.home, .car)))
            }
            return plans
        }
        if weekday < 5 {
            let mode = rng.chance(0.8) ? w.commute : (rng.chance(0.5) ? .car : .cycle)
            let leave = rng.uniform(7.25, 8.75) * h
            plans.append(Planned(departLocalS: leave, place: w.work, legs: legs(w.home, w.work, mode)))
            if rng.chance(0.3) {
                let t = rng.uniform(12, 12.5) * h
                plans.append(Planned(departLocalS: t, place: w.lunch, legs: legs(w.work, w.lunch, .walk)))
                plans.append(Planned(departLocalS: t + rng.uniform(0.5, 0.8) * h, place: w.work, legs: legs(w.lunch, w.work, .walk)))
            }
            let back = rng.uniform(16.25, 18) * h
            plans.append(Planned(departLocalS: back, place: w.home, legs: legs(w.work, w.home, mode)))
            var t = back + 2.2 * h
            if rng.chance(0.5) {
                let m: TravelMode = rng.chance(0.6) ? .walk : .cycle
                plans.append(Planned(departLocalS: t, place: w.shopA, legs: legs(w.home, w.shopA, m)))
                t += rng.uniform(0.25, 0.5) * h
                if rng.chance(0.6) {
                    plans.append(Planned(departLocalS: t, place: w.shopB, legs: legs(w.shopA, w.shopB, .walk)))
                    t += rng.uniform(0.2, 0.4) * h
                    plans.append(Planned(departLocalS: t, place: w.home, legs: legs(w.shopB, w.home, m)))
                } else {
                    plans.append(Planned(departLocalS: t, place: w.home, legs: legs(w.shopA, w.home, m)))
                }
                t += 0.7 * h
            }
            if rng.chance(0.2) {
                plans.append(Planned(departLocalS: max(t, 20 * h), place: w.home,
                    legs: [PlannedLeg(mode: .run, path: loop(xy[w.home]!, angle: w.gridAngle, length: rng.uniform(4000, 7000), rng: &rng), waitS: 0)]))
            }
        } else {
            var t = rng.uniform(9.5, 11) * h
            if weekday == 6 && rng.chance(0.5) {
                plans.append(Planned(departLocalS: t, place: w.far, legs: legs(w.home, w.far, .car)))
                t += rng.uniform(2, 4) * h
                plans.append(Planned(departLocalS: t, place: w.home, legs: legs(w.far, w.home, .car)))
                t += 1.5 * h
            } else {
                let target = rng.chance(0.5) ? w.park : w.friend
                let m: TravelMode = rng.chance(0.5) ? .cycle : .car
                plans.append(Planned(departLocalS: t, place: target, legs: legs(w.home, target, m)))
                t += rng.uniform(1, 3) * h
                plans.append(Planned(departLocalS: t, place: w.home, legs: legs(target, w.home, m)))
                t += 1.5 * h
            }
            if rng.chance(0.5) {
                plans.append(Planned(departLocalS: t, place: w.shopB, legs: legs(w.home, w.shopB, .walk)))
                t += rng.uniform(0.25, 0.5) * h
                plans.append(Planned(departLocalS: t, place: w.home, legs: legs(w.shopB, w.home, .walk)))
                t += 0.5 * h
            }
            if rng.chance(0.4) {
                plans.append(Planned(departLocalS: max(t, 17 * h), place: w.home,
                    legs: [PlannedLeg(mode: .run, path: loop(xy[w.home]!, angle: w.gridAngle, length: rng.uniform(5000, 9000), rng: &rng), waitS: 0)]))
            }
        }
        return plans
    }
}
