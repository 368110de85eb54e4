#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// A seeded, deterministic simulator of people going about their days, with the fixes their phones would record and
/// the exact truth of where they were.
///
/// Each person has a home, a work place, two shops about 200 m apart, a lunch place, a park, a friend and a far place.
/// Days follow routines (commute by car, bus, bicycle or train; lunch walks; shopping at one or both shops; evening
/// runs; weekend outings; rarely a flight). Paths are polylines with corners; legs move with per-mode speeds and
/// accelerations and stop at traffic lights, bus stops and stations; tunnels lose the signal while moving.
/// Fixes come at 1 Hz while moving and sparsely while still (Overland: first point after stopping, then one an
/// hour; OwnTracks significant-change: minutes to hours), with noise scaled to the reported accuracy, 20–80 m of
/// drift while still, far-off wifi/cell fixes and missing-data gaps.
///
/// Each local day (03:00 → 03:00, always at home at both ends) is simulated from a generator derived from
/// (seed, person, day), so days can be produced one at a time and the result never depends on call order.
public struct Simulator {
    public let config: SimulatorConfig
    let metresPerDegreeLat = Geo.earthRadius * Double.pi / 180
    let metresPerDegreeLon: Double
    var worlds: [PersonWorld] = []

    public init(config: SimulatorConfig) {
        self.config = config
        metresPerDegreeLon = metresPerDegreeLat * cos(config.originLat * Double.pi / 180)
        for person in 0..<max(1, config.people) { worlds.append(makeWorld(person: person)) }
    }

    /// The name of person `index`'s device.
    public func deviceName(person: Int) -> String {
        app(person: person) == .overland ? "overland-\(person + 1)" : "owntracks-\(person + 1)"
    }

    /// Even-numbered people carry Overland and odd-numbered OwnTracks, except in the single-app profiles.
    public func app(person: Int) -> SimulatedApp {
        switch config.profile {
        case .sparseOwnTracks: return .owntracks
        case .denseOverland: return .overland
        case .classic, .mixed: return person % 2 == 0 ? .overland : .owntracks
        }
    }

    /// Simulates every day of every person.
    public func run() -> SimulationResult {
        var truth = SimulationTruth()
        var devices: [SimulatedDevice] = []
        for world in worlds { truth.places.append(contentsOf: world.places) }
        for person in 0..<worlds.count {
            var device = SimulatedDevice(name: deviceName(person: person), app: app(person: person), person: person, points: [], appTrips: [])
            for day in 0..<config.days {
                let d = simulateDay(person: person, day: day)
                device.points.append(contentsOf: d.points)
                device.appTrips.append(contentsOf: d.appTrips)
                device.events.append(contentsOf: d.events)
                Self.appendStays(&truth.stays, d.stays)
                truth.trips.append(contentsOf: d.trips)
                truth.gaps.append(contentsOf: d.gaps)
                Self.appendDays(&truth.days, d.days)
            }
            device.points.sort { $0.timeMs < $1.timeMs }
            var unique: [Point] = []
            unique.reserveCapacity(device.points.count)
            for p in device.points where unique.last?.timeMs != p.timeMs { unique.append(p) }
            device.points = unique
            device.events.sort { $0.timeMs < $1.timeMs }
            devices.append(device)
        }
        return SimulationResult(config: config, devices: devices, truth: truth)
    }

    /// The fixes of one person's device on one day (in time order), for callers that stream many days
    /// (benchmarks) without holding a whole simulation.
    public func dayPoints(person: Int, day: Int) -> [Point] {
        var points = simulateDay(person: person, day: day).points
        points.sort { $0.timeMs < $1.timeMs }
        var unique: [Point] = []
        unique.reserveCapacity(points.count)
        for p in points where unique.last?.timeMs != p.timeMs { unique.append(p) }
        return unique
    }

    /// Joins a stay that continues the previous day's last stay (home across 03:00).
    static func appendStays(_ all: inout [TruthStay], _ new: [TruthStay]) {
        for stay in new {
            if let last = all.last, last.device == stay.device, last.placeID == stay.placeID, last.endMs == stay.startMs {
                all[all.count - 1].endMs = stay.endMs
            } else {
                all.append(stay)
            }
        }
    }

    static func appendDays(_ all: inout [TruthDay], _ new: [TruthDay]) {
        for day in new {
            if let i = all.lastIndex(where: { $0.device == day.device && $0.date == day.date }) {
                all[i].distanceM += day.distanceM
                all[i].trips += day.trips
            } else {
                all.append(day)
            }
        }
    }

    // MARK: The world

    struct XY {
        var x: Double
        var y: Double
        static func + (a: XY, b: XY) -> XY { XY(x: a.x + b.x, y: a.y + b.y) }
        static func - (a: XY, b: XY) -> XY { XY(x: a.x - b.x, y: a.y - b.y) }
        static func * (a: XY, k: Double) -> XY { XY(x: a.x * k, y: a.y * k) }
        var length: Double { (x * x + y * y).squareRoot() }
    }

    struct PersonWorld {
        var person: Int
        var places: [TruthPlace]
        var xy: [Int: XY]
        var home: Int, work: Int, shopA: Int, shopB: Int, lunch: Int, park: Int, friend: Int, far: Int
        var homeStop: Int, workStop: Int, homeStation: Int, workStation: Int, airport: Int, hotel: Int
        var commute: TravelMode
        var gridAngle: Double
    }

    func latLon(_ p: XY) -> (lat: Double, lon: Double) {
        (config.originLat + p.y / metresPerDegreeLat, config.originLon + p.x / metresPerDegreeLon)
    }

    func makeWorld(person: Int) -> PersonWorld {
        var rng = SplitMix64.derived(config.seed, 0xA11CE, UInt64(person))
        var places: [TruthPlace] = []
        var xy: [Int: XY] = [:]
        func add(_ kind: String, _ p: XY, ssid: String? = nil) -> Int {
            let id = person * 100 + places.count + 1
            let ll = latLon(p)
            places.append(TruthPlace(id: id, person: person, kind: kind, lat: ll.lat, lon: ll.lon, ssid: ssid))
            xy[id] = p
            return id
        }
        func polar(_ centre: XY, _ r0: Double, _ r1: Double) -> XY {
            let a = rng.uniform(0, 2 * .pi)
            let r = rng.uniform(r0, r1)
            return centre + XY(x: cos(a) * r, y: sin(a) * r)
        }
        let names = ["Mueller", "Schmidt", "Weber", "Fischer", "Wagner", "Becker"]
        let homeXY = polar(XY(x: 0, y: 0), 500, 4000)
        let home = add("home", homeXY, ssid: "\(names[person % names.count])-Home")
        let workXY = polar(homeXY, 3000, 7000)
        let work = add("work", workXY, ssid: "ACME-Corp-\(person + 1)")
        let shopAXY = polar(homeXY, 500, 1300)
        let shopA = add("shop_a", shopAXY)
        let shopB = add("shop_b", polar(shopAXY, 195, 210))
        let lunch = add("lunch", polar(workXY, 350, 600))
        let park = add("park", polar(homeXY, 1500, 3500))
        let friend = add("friend", polar(homeXY, 2500, 6000))
        let far = add("far", polar(homeXY, 20000, 35000))
        let homeStop = add("stop_home", polar(homeXY, 300, 500))
        let workStop = add("stop_work", polar(workXY, 250, 450))
        let homeStation = add("station_home", polar(homeXY, 600, 900))
        let workStation = add("station_work", polar(workXY, 500, 800))
        let airport = add("airport", polar(homeXY, 12000, 16000))
        let hotel = add("hotel", polar(homeXY, 480_000, 520_000))
        let commutes: [TravelMode] = [.car, .bus, .cycle, .train]
        return PersonWorld(
            person: person, places: places, xy: xy, home: home, work: work, shopA: shopA, shopB: shopB, lunch: lunch,
            park: park, friend: friend, far: far, homeStop: homeStop, workStop: workStop, homeStation: homeStation,
            workStation: workStation, airport: airport, hotel: hotel, commute: commutes[(person + Int(config.seed % 4)) % 4],
            gridAngle: rng.uniform(0, .pi / 2))
    }

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
    }

    /// A planned activity: go to `place` by `legs`, leaving at `departLocalS` seconds after local midnight.
    struct Planned {
        var departLocalS: Double
        var place: Int
        var legs: [PlannedLeg]
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

    /// The day's plan for one person.
    // Long by design: one day's plan as a chain of chances (weekday, errands, evenings, the flight days) from one random stream, whose draw order fixes each seed.
    func plan(_ w: PersonWorld, day: Int, weekday: Int, rng: inout SplitMix64) -> [Planned] {
        var plans: [Planned] = []
        let xy = w.xy
        func legs(_ from: Int, _ to: Int, _ mode: TravelMode) -> [PlannedLeg] {
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
        emit(stopped: false, stopS: 0)
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
                    let dwell = stops[nextStop].1
                    var w = 1.0
                    while w < dwell {
                        t += 1
                        emit(stopped: true, stopS: w)
                        w += 1
                    }
                    stopCount += 1
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

    func weekday(_ dayNumber: Int) -> Int { ((dayNumber % 7) + 10) % 7 }  // 0 = Monday (1970-01-01 was a Thursday)

    /// Simulates one local day (03:00 → 03:00) of one person.
    // Long by design: the day is built in order (timeline, gaps, truth, fixes) from one random stream whose draw order fixes every seed's output; its steps share that state.
    func simulateDay(person: Int, day: Int) -> DayOutput {
        let w = worlds[person]
        var rng = SplitMix64.derived(config.seed, UInt64(person), UInt64(day))
        let dayNumber = config.startDay + day
        let zone = config.timeZone
        // Local midnight in UTC seconds: offsets at 03:00 local are what matter; take the offset before the day.
        func utc(localS: Double) -> Double {
            let guess = Double(dayNumber) * 86_400 + localS - 3600
            let off = Double(zone.offset(at: Int64((guess - 3600) * 1000)))
            let first = Double(dayNumber) * 86_400 + localS - off
            let off2 = Double(zone.offset(at: Int64(first * 1000)))
            return Double(dayNumber) * 86_400 + localS - off2
        }
        let dayStart = utc(localS: 3 * 3600)
        let dayEnd = utc(localS: 27 * 3600)
        let plans = plan(w, day: day, weekday: weekday(dayNumber), rng: &rng)
        let device = deviceName(person: person)
        var out = DayOutput()

        // The day as a timeline of segments: stays at places, and trips of legs (sampled each second).
        enum Segment {
            case stay(place: Int, start: Double, end: Double)
            case trip(samples: [Sample], legs: [PlannedLeg], from: Int, to: Int, stops: Int)
        }
        var segments: [Segment] = []
        var place = w.home
        var t = dayStart
        for p in plans {
            let depart = max(utc(localS: p.departLocalS), t + 720)
            if depart >= dayEnd - 1800 { break }
            segments.append(.stay(place: place, start: t, end: depart))
            var samples: [Sample] = []
            var stops = 0
            var clock = depart
            for (i, leg) in p.legs.enumerated() {
                stops += move(leg, legIndex: i, start: clock, samples: &samples, rng: &rng, allowTunnel: true)
                clock = samples.last!.t
            }
            // A short loss of signal inside some trips.
            if config.gaps && samples.count > 900 && rng.chance(0.06) {
                let a = 200 + rng.int(samples.count - 700)
                let len = 120 + rng.int(180)
                for k in a..<min(samples.count - 200, a + len) { samples[k].tunnel = true }
            }
            segments.append(.trip(samples: samples, legs: p.legs, from: place, to: p.place, stops: stops))
            t = clock
            place = p.place
        }
        if t < dayEnd { segments.append(.stay(place: place, start: t, end: dayEnd)) }

        // Missing-data gaps inside stays: phone off at night, app killed at work.
        var stayGaps: [(Double, Double)] = []
        if config.gaps {
            if rng.chance(0.3) {
                let a = utc(localS: 24.5 * 3600 + rng.uniform(0, 3600))
                stayGaps.append((a, a + rng.uniform(2, 5) * 3600))
            }
            if rng.chance(0.15) {
                let a = utc(localS: rng.uniform(10, 11) * 3600)
                stayGaps.append((a, a + rng.uniform(1, 2.5) * 3600))
            }
        }

        // Truth.
        let app = self.app(person: person)
        var dayDistance: [String: Double] = [:]
        var dayTrips: [String: Int] = [:]
        func localDate(_ ts: Double) -> String {
            let ms = Int64(ts * 1000)
            return CivilTime.localDate(ms: ms, offsetSeconds: Int(zone.offset(at: ms)))
        }
        for seg in segments {
            switch seg {
            case .stay(let place, let start, let end):
                out.stays.append(TruthStay(device: device, placeID: place, startMs: Int64(start * 1000), endMs: Int64(end * 1000)))
                for g in stayGaps where g.0 >= start + 60 && g.1 <= end - 60 {
                    out.gaps.append(TruthGap(device: device, startMs: Int64(g.0 * 1000), endMs: Int64(g.1 * 1000), kind: "stay"))
                }
            case .trip(let samples, let legs, let from, let to, let stops):
                var truthLegs: [TruthLeg] = []
                var dist = [Double](repeating: 0, count: legs.count)
                var legStart = [Double](repeating: -1, count: legs.count)
                var legEnd = [Double](repeating: 0, count: legs.count)
                var prev: (Double, Double)? = nil
                var gapStart: Double? = nil
                var gapKind = "tunnel"
                for s in samples {
                    let ll = latLon(s.p)
                    if let prev {
                        let d = Geo.distance(prev.0, prev.1, ll.lat, ll.lon)
                        dist[s.leg] += d
                        dayDistance[localDate(s.t), default: 0] += d
                    }
                    prev = (ll.lat, ll.lon)
                    if legStart[s.leg] < 0 { legStart[s.leg] = s.t }
                    legEnd[s.leg] = s.t
                    if s.tunnel && gapStart == nil {
                        gapStart = s.t
                        gapKind = legs[s.leg].mode == .car || legs[s.leg].mode == .train ? "tunnel" : "trip"
                    }
                    if !s.tunnel, let g = gapStart {
                        out.gaps.append(TruthGap(device: device, startMs: Int64(g * 1000), endMs: Int64(s.t * 1000), kind: gapKind))
                        gapStart = nil
                    }
                }
                // Leg boundaries: a leg ends where the next begins (waits belong to the leg they precede ending… see docs).
                for i in legs.indices {
                    let end = i + 1 < legs.count ? legStart[i + 1] + legs[i + 1].waitS : legEnd[i]
                    let start = i == 0 ? legStart[0] : legStart[i] + legs[i].waitS
                    truthLegs.append(TruthLeg(mode: legs[i].mode, startMs: Int64(start * 1000), endMs: Int64(end * 1000), distanceM: dist[i]))
                }
                let startT = samples.first!.t, endT = samples.last!.t
                dayTrips[localDate(startT), default: 0] += 1
                out.trips.append(TruthTrip(
                    device: device, startMs: Int64(startT * 1000), endMs: Int64(endT * 1000), fromPlaceID: from, toPlaceID: to,
                    legs: truthLegs, distanceM: dist.reduce(0, +), stops: stops))
            }
        }
        for date in Set(dayDistance.keys).union(dayTrips.keys).union([localDate(dayStart + 3600)]).sorted() {
            out.days.append(TruthDay(device: device, date: date, distanceM: dayDistance[date] ?? 0, trips: dayTrips[date] ?? 0))
        }

        if config.profile != .classic {
            let plain = segments.map { seg -> RegimeSegment in
                switch seg {
                case .stay(let place, let start, let end): return .stay(place: place, start: start, end: end)
                case .trip(let samples, let legs, let from, let to, _): return .trip(samples: samples, legs: legs, from: from, to: to)
                }
            }
            regimeFixes(person: person, day: day, world: w, segments: plain, blackouts: stayGaps, out: &out)
            return out
        }

        // Fixes.
        var fixes = FixMaker(sim: self, app: app, rng: SplitMix64.derived(config.seed, UInt64(person), UInt64(day), 0xF1), zone: zone)
        for seg in segments {
            switch seg {
            case .stay(let place, let start, let end):
                fixes.stay(place: place, world: w, start: start, end: end, gaps: stayGaps, farOff: config.farOffFixes, into: &out.points)
            case .trip(let samples, let legs, _, _, _):
                let tripIndex = out.appTrips.count
                _ = tripIndex
                let recordTrip = app == .overland && rng.chance(0.3)
                let tripID = recordTrip ? CivilTime.iso8601(ms: Int64(samples[0].t * 1000), offsetSeconds: Int(zone.offset(at: Int64(samples[0].t * 1000)))) : nil
                let mainMode = legs.max(by: { a, b in legLength(a) < legLength(b) })!.mode
                fixes.trip(samples: samples, legs: legs, world: w, tripID: tripID, tripMode: recordTrip ? mainMode.overlandTripMode : nil, into: &out.points)
                if recordTrip {
                    let a = samples.first!, b = samples.last!
                    let la = latLon(a.p), lb = latLon(b.p)
                    let truthDistance = out.trips.first(where: { $0.startMs == Int64(a.t * 1000) })?.distanceM ?? 0
                    out.appTrips.append(AppTripRecord(
                        startMs: Int64((a.t - rng.uniform(0, 60)) * 1000), endMs: Int64((b.t + rng.uniform(0, 90)) * 1000),
                        utcOffsetS: zone.offset(at: Int64(b.t * 1000)), distanceM: truthDistance * rng.uniform(0.97, 1.06),
                        mode: mainMode.overlandTripMode, endLat: lb.lat, endLon: lb.lon, startLat: la.lat, startLon: la.lon))
                }
            }
        }
        return out
    }

    func legLength(_ leg: PlannedLeg) -> Double {
        var d = 0.0
        for i in 1..<leg.path.count { d += (leg.path[i] - leg.path[i - 1]).length }
        return d
    }
}

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
            let speed = max(0, s.speed + rng.normal() * 0.25)
            let altitude: Double? = mode == .plane ? 9000 : 35 + rng.normal() * 3
            var p = makePoint(t: s.t, p: s.p + Simulator.XY(x: ex, y: ey), accuracy: acc,
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
