#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineGeography

extension Simulator {
    // MARK: The varied world (`SimulatedWorldKind.varied`, docs/SIMULATOR.md "A varied world")

    /// A stop shorter than this is part of the trip (a wait, like one at a bus stop): the truth has one trip through
    /// it and no stay. It is the floor from which scoring counts a true stay as a visit (`Scoring`, 300 s), so every
    /// stop the truth calls a stay is scored as a visit and every shorter one is inside a scored trip.
    static let variedStayFloorS = 300.0

    /// One person's places in the varied world: urban (as the standard world, commuting by any mode) or suburban (home
    /// 15–30 km out, driving to work in the city), and 6–10 scattered places of their own (a bakery or kiosk
    /// 80–350 m from home, a school, a fuel station, others, each either near home or 80–300 m from the previous
    /// one), and two 80–400 m from work.
    func makeVariedWorld(person: Int) -> PersonWorld {
        var w = WorldPlaces(
            person: person, rng: SplitMix64.derived(config.seed, 0xA11CE, UInt64(person), 0x7A), latLon: latLon, allowed: onLand)
        let suburban = w.rng.chance(0.4)
        let names = ["Nguyen", "Smith", "Papadopoulos", "Singh", "Jones", "Rossi"]
        let homeXY = suburban ? w.polar(XY(x: 0, y: 0), 15000, 30000) : w.polar(XY(x: 0, y: 0), 500, 5000)
        let home = w.add("home", homeXY, ssid: "\(names[person % names.count])-Home")
        let workXY = suburban ? w.polar(XY(x: 0, y: 0), 300, 4000) : w.polar(homeXY, 2000, 8000)
        let work = w.add("work", workXY, ssid: "Works-\(person + 1)")
        let shopAXY = w.polar(homeXY, suburban ? 800 : 400, suburban ? 3000 : 1300)
        let shopA = w.add("shop_a", shopAXY)
        let shopB = w.add("shop_b", around: shopAXY, 120, 300)
        let lunch = w.add("lunch", around: workXY, 250, 600)
        let park = w.add("park", around: homeXY, 800, 3500)
        let friend = w.add("friend", around: homeXY, 2000, suburban ? 15000 : 6000)
        let (far, homeStop, workStop, homeStation, workStation, airport, hotel) = w.addTravelPlaces(home: homeXY, work: workXY)
        // Scattered places of the person's own.
        var pois: [Int] = []
        let reach = suburban ? 5000.0 : 2500.0
        pois.append(w.add("bakery", around: homeXY, 80, 350))
        let school = w.add("school", around: homeXY, 300, suburban ? 5000 : 1500)
        pois.append(school)
        let fuel = w.add("fuel", around: homeXY, 700, reach)
        pois.append(fuel)
        let others = ["pharmacy", "kiosk", "post_office", "cafe", "supermarket", "hairdresser", "library", "gym", "doctor"]
        var last = homeXY
        for k in 0..<(3 + w.rng.int(5)) {
            let p = w.rng.chance(0.5) ? w.polar(last, 80, 300) : w.polar(homeXY, 150, reach)
            let kind = others[(k + w.rng.int(others.count)) % others.count]
            pois.append(w.add(kind, p))
            last = p
        }
        let workPOIs = [w.add("kiosk_work", around: workXY, 80, 400), w.add("pharmacy_work", around: workXY, 80, 400)]
        let commutes: [TravelMode] = [.car, .bus, .cycle, .train]
        var world = PersonWorld(
            person: person, places: w.places, xy: w.xy, home: home, work: work, shopA: shopA, shopB: shopB, lunch: lunch,
            park: park, friend: friend, far: far, homeStop: homeStop, workStop: workStop, homeStation: homeStation,
            workStation: workStation, airport: airport, hotel: hotel,
            commute: suburban ? .car : commutes[w.rng.int(commutes.count)], gridAngle: w.rng.uniform(0, .pi / 2))
        world.pois = pois
        world.workPOIs = workPOIs
        world.school = w.rng.chance(0.5) ? school : nil
        world.fuel = fuel
        world.suburban = suburban
        if suburban && w.rng.chance(0.5) {
            // A bike-and-ride commuter: a station 1–2.5 km from home towards the city, reached by bicycle.
            let toward = atan2(-homeXY.y, -homeXY.x) + w.rng.uniform(-0.5, 0.5)
            let r = w.rng.uniform(1000, 2500)
            world.homeStation = w.add("station_bike", homeXY + XY(x: cos(toward) * r, y: sin(toward) * r))
            world.places = w.places
            world.xy = w.xy
            world.bikeAndRide = true
            world.commute = .train
        }
        return world
    }

    /// Whether a position lies on land: people do not live, shop or work in Port Phillip Bay (until 2026-12-06 a
    /// suburban home 15–30 km from the centre fell in the bay for some seeds, and every drive near it was at sea: the
    /// rebuild's ferries, ``Geography/country(latitude:longitude:)`` nil beyond 1.5 km of the coastline).
    func onLand(_ p: XY) -> Bool {
        let ll = latLon(p)
        return Geography.country(latitude: ll.lat, longitude: ll.lon) != nil
    }

    /// The day's plan for one person of the varied world: the standard commute and outings, with errand chains of
    /// short and ordinary stops, school runs, fuel stops, short walks to nearby places.
    // Long by design: one day's plan as a chain of chances from one random stream, whose draw order fixes each seed.
    func variedPlan(_ w: PersonWorld, day: Int, weekday: Int, rng: inout SplitMix64) -> [Planned] {
        var plans: [Planned] = []
        let xy = w.xy
        let h = 3600.0
        func dist(_ a: Int, _ b: Int) -> Double { (xy[a]! - xy[b]!).length }
        /// Where the car stands near each place today: 20–80 m from the door along a street.
        var parked: [Int: XY] = [:]
        func parking(_ place: Int) -> XY {
            if let p = parked[place] { return p }
            let a = w.gridAngle + Double(rng.int(4)) * .pi / 2
            let d = rng.uniform(20, 80)
            let p = xy[place]! + XY(x: cos(a) * d, y: sin(a) * d)
            parked[place] = p
            return p
        }
        /// A walk between the door and the car, lasting 20–90 s (0.7–1.6 m/s).
        func footToCar(_ a: XY, _ b: XY) -> PlannedLeg {
            let seconds = rng.uniform(20, 90)
            let pace = min(1.6, max(0.7, (b - a).length / seconds))
            return PlannedLeg(mode: .walk, path: [a, b], waitS: 0, cruiseMps: pace, habit: "parking")
        }
        /// The legs from `from` to `to` by `mode`, with the varied world's habits: a drive ends at a parking spot
        /// and the person walks to the door (and from the door to the car at departure); half the drives of 8 km
        /// or more start in a jam; a bike-and-ride commuter cycles to the station, stands 1–3 min, rides a regional
        /// train and walks (and back).
        func legs(_ from: Int, _ to: Int, _ mode: TravelMode) -> [PlannedLeg] {
            let commute = (from == w.home && to == w.work) || (from == w.work && to == w.home)
            if mode == .train && w.bikeAndRide && commute {
                let there = from == w.home
                let bike = PlannedLeg(
                    mode: .cycle, path: route(xy[w.home]!, xy[w.homeStation]!, mode: .cycle, angle: w.gridAngle, rng: &rng),
                    waitS: there ? 0 : rng.uniform(60, 180), habit: "bike_and_ride")
                let (s1, s2) = there ? (w.homeStation, w.workStation) : (w.workStation, w.homeStation)
                let railPath = route(xy[s1]!, xy[s2]!, mode: .train, angle: w.gridAngle, rng: &rng)
                var railM = 0.0
                for i in 1..<railPath.count { railM += (railPath[i] - railPath[i - 1]).length }
                // A ride of 10–28 min: the cruise the distance needs, less a stop every 6 km, within 15–25 m/s.
                let movingS = rng.uniform(600, 1680) - railM / 6000 * 45
                let rail = PlannedLeg(
                    mode: .train, path: railPath, waitS: there ? rng.uniform(60, 180) : rng.uniform(60, 230),
                    cruiseMps: min(25, max(15, railM / max(movingS, 300))), regionalTrain: true, habit: "bike_and_ride")
                let walkEnd = PlannedLeg(
                    mode: .walk, path: route(xy[there ? s2 : w.work]!, xy[there ? w.work : s1]!, mode: .walk, angle: w.gridAngle, rng: &rng),
                    waitS: 0)
                let home = PlannedLeg(mode: .cycle, path: Array(bike.path.reversed()), waitS: bike.waitS, habit: "bike_and_ride")
                return there ? [bike, rail, walkEnd] : [walkEnd, rail, home]
            }
            guard mode == .car else { return plannedLegs(w, from, to, mode, rng: &rng) }
            let a = parking(from)
            parked[from] = nil
            let b = parking(to)
            let toCar = footToCar(xy[from]!, a)
            var drive = PlannedLeg(mode: .car, path: route(a, b, mode: .car, angle: w.gridAngle, rng: &rng), waitS: 0)
            if dist(from, to) >= 8000 && rng.chance(0.5) {
                drive.jamStart = (rng.uniform(30, 90), rng.uniform(300, 600))
                drive.cruiseMps = rng.uniform(17, 30)
                drive.habit = "jam_start"
            }
            return [toCar, drive, footToCar(b, xy[to]!)]
        }
        func short() -> Double { rng.uniform(180, 540) }
        func errand() -> Double { rng.uniform(600, 1800) }
        /// Goes from `from` through `stops` (place, seconds there; the last one's is unused) by `mode` (walk, cycle
        /// or car), leaving at `departLocalS`. A stop under ``variedStayFloorS`` is a wait inside one trip.
        func chain(from: Int, departLocalS: Double, mode: TravelMode, stops: [(Int, Double)]) {
            var cur = from
            var open: Planned? = nil
            var after: Double? = nil
            var wait = 0.0
            for (i, (place, stay)) in stops.enumerated() {
                var l = legs(cur, place, mode)
                if var o = open {
                    l[0].waitS = wait
                    o.legs += l
                    o.place = place
                    open = o
                } else {
                    open = Planned(departLocalS: departLocalS, place: place, legs: l, afterStayS: after)
                }
                cur = place
                if i == stops.count - 1 || stay >= Self.variedStayFloorS {
                    plans.append(open!)
                    open = nil
                    after = stay
                } else {
                    wait = stay
                }
            }
        }
        /// The way to cover `d` metres on an errand: on foot when near, else by bicycle or car (always by car out
        /// of town).
        func errandMode(_ d: Double) -> TravelMode {
            if d < 1200 { return .walk }
            if w.suburban || d > 4000 { return .car }
            return rng.chance(0.4) ? .cycle : .car
        }
        /// 2–4 places near each other, starting from a random one of the person's.
        func errandChain() -> [Int] {
            var chainPlaces = [w.pois[rng.int(w.pois.count)]]
            for _ in 0..<(1 + rng.int(3)) {
                let rest = w.pois.filter { !chainPlaces.contains($0) }
                guard !rest.isEmpty else { break }
                let near = rest.sorted { dist($0, chainPlaces.last!) < dist($1, chainPlaces.last!) }
                chainPlaces.append(near[rng.chance(0.7) ? 0 : min(near.count - 1, 1 + rng.int(2))])
            }
            return chainPlaces
        }
        let nearest = w.pois.min { dist($0, w.home) < dist($1, w.home) }!
        if weekday < 5 {
            let mode: TravelMode = w.bikeAndRide ? .train : w.suburban ? .car : (rng.chance(0.8) ? w.commute : (rng.chance(0.5) ? .car : .cycle))
            let leave = rng.uniform(7.0, 8.75) * h
            if (mode == .car || mode == .cycle) && rng.chance(0.5) {
                // A stop on the way: the school drop-off, the bakery, fuel.
                let stop = w.school.map { s in rng.chance(0.7) ? s : nearest } ?? (mode == .car && rng.chance(0.4) ? w.fuel! : nearest)
                chain(from: w.home, departLocalS: leave, mode: mode, stops: [(stop, short()), (w.work, 0)])
            } else {
                plans.append(Planned(departLocalS: leave, place: w.work, legs: legs(w.home, w.work, mode)))
            }
            if rng.chance(0.3) {
                let t = rng.uniform(12, 12.5) * h
                plans.append(Planned(departLocalS: t, place: w.lunch, legs: legs(w.work, w.lunch, .walk)))
                plans.append(Planned(departLocalS: t + rng.uniform(0.5, 0.8) * h, place: w.work, legs: legs(w.lunch, w.work, .walk)))
            } else if rng.chance(0.4) {
                // A few minutes' walk to a kiosk or pharmacy near work and back.
                let k = w.workPOIs[rng.int(w.workPOIs.count)]
                chain(from: w.work, departLocalS: rng.uniform(12, 14) * h, mode: .walk, stops: [(k, rng.uniform(120, 900)), (w.work, 0)])
            }
            let back = rng.uniform(15.5, 18) * h
            if (mode == .car || mode == .cycle) && rng.chance(0.5) {
                // Stops on the way home: the school pick-up, fuel, an errand.
                var stops: [(Int, Double)] = []
                if let s = w.school, rng.chance(0.6) { stops.append((s, short())) }
                if mode == .car && rng.chance(0.3) { stops.append((w.fuel!, rng.uniform(180, 480))) }
                if stops.isEmpty || rng.chance(0.4) {
                    let rest = w.pois.filter { p in !stops.contains { $0.0 == p } }
                    stops.append((rest[rng.int(rest.count)], rng.chance(0.5) ? short() : errand()))
                }
                chain(from: w.work, departLocalS: back, mode: mode, stops: stops + [(w.home, 0)])
            } else {
                plans.append(Planned(departLocalS: back, place: w.home, legs: legs(w.work, w.home, mode)))
            }
            var t = back + 2 * h
            if rng.chance(0.5) {
                let c = errandChain()
                var far = dist(w.home, c[0])
                for i in 1..<c.count { far = max(far, dist(c[i - 1], c[i])) }
                let m = errandMode(far)
                chain(from: w.home, departLocalS: t, mode: m, stops: c.map { ($0, rng.chance(0.5) ? short() : errand()) } + [(w.home, 0)])
                t += 1.5 * h
            }
            if rng.chance(0.3) {
                // A walk of a few minutes to the nearest place and back.
                chain(from: w.home, departLocalS: max(t, 20 * h), mode: .walk, stops: [(nearest, rng.uniform(120, 720)), (w.home, 0)])
                t = max(t, 20 * h) + 0.75 * h
            }
            if rng.chance(0.15) {
                plans.append(Planned(departLocalS: max(t, 20.5 * h), place: w.home,
                    legs: [PlannedLeg(mode: .run, path: loop(xy[w.home]!, angle: w.gridAngle, length: rng.uniform(4000, 7000), rng: &rng), waitS: 0)]))
            }
        } else {
            var t = rng.uniform(8, 9.5) * h
            if rng.chance(0.6) {
                // The bakery on foot.
                chain(from: w.home, departLocalS: t, mode: .walk, stops: [(nearest, short()), (w.home, 0)])
                t += 1 * h
            }
            if weekday == 6 && rng.chance(0.4) {
                plans.append(Planned(departLocalS: t, place: w.far, legs: legs(w.home, w.far, .car)))
                t += rng.uniform(2, 4) * h
                plans.append(Planned(departLocalS: t, place: w.home, legs: legs(w.far, w.home, .car)))
                t += 1.5 * h
            } else {
                let target = rng.chance(0.5) ? w.park : w.friend
                let m: TravelMode = w.suburban || rng.chance(0.5) ? .car : .cycle
                var stops: [(Int, Double)] = [(target, rng.uniform(1, 3) * h)]
                if m == .car && rng.chance(0.3) { stops.append((w.fuel!, rng.uniform(180, 480))) }
                chain(from: w.home, departLocalS: t, mode: m, stops: stops + [(w.home, 0)])
                t += 5 * h
            }
            if rng.chance(0.6) {
                let c = errandChain()
                var far = dist(w.home, c[0])
                for i in 1..<c.count { far = max(far, dist(c[i - 1], c[i])) }
                chain(from: w.home, departLocalS: t, mode: errandMode(far), stops: c.map { ($0, rng.chance(0.5) ? short() : errand()) } + [(w.home, 0)])
                t += 1.5 * h
            }
            if rng.chance(0.3) {
                plans.append(Planned(departLocalS: max(t, 17 * h), place: w.home,
                    legs: [PlannedLeg(mode: .run, path: loop(xy[w.home]!, angle: w.gridAngle, length: rng.uniform(5000, 9000), rng: &rng), waitS: 0)]))
            }
        }
        _ = day
        return plans
    }
}
