#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension Simulator {
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
        /// The varied world: the person's scattered places (bakery, school, fuel …) near home, and near work.
        var pois: [Int] = []
        var workPOIs: [Int] = []
        var school: Int? = nil
        var fuel: Int? = nil
        var suburban = false
        /// The varied world's bike-and-ride commuter: cycles to `homeStation` (1–2.5 km towards the city), takes a
        /// regional train to `workStation` and walks.
        var bikeAndRide = false
    }

    func latLon(_ p: XY) -> (lat: Double, lon: Double) {
        (config.originLat + p.y / metresPerDegreeLat, config.originLon + p.x / metresPerDegreeLon)
    }

    /// One person's places as a world draws them (the standard one, ``makeWorld(person:)``, and the varied one): each
    /// at a position drawn around a centre, numbered in the order added, from the world's own random stream, whose
    /// draw order fixes each seed's world.
    struct WorldPlaces {
        let person: Int
        var rng: SplitMix64
        let latLon: (XY) -> (lat: Double, lon: Double)
        var places: [TruthPlace] = []
        var xy: [Int: XY] = [:]
        /// Where a place may lie (the varied world: on land, ``Simulator/onLand(_:)``); nil: anywhere (the standard
        /// world, byte for byte as it was).
        let allowed: ((XY) -> Bool)?

        init(person: Int, rng: SplitMix64, latLon: @escaping (XY) -> (lat: Double, lon: Double), allowed: ((XY) -> Bool)? = nil) {
            self.person = person
            self.rng = rng
            self.latLon = latLon
            self.allowed = allowed
        }

        /// Adds a place of `kind` at `p`; returns its id.
        mutating func add(_ kind: String, _ p: XY, ssid: String? = nil) -> Int {
            let id = person * 100 + places.count + 1
            let ll = latLon(p)
            places.append(TruthPlace(id: id, person: person, kind: kind, lat: ll.lat, lon: ll.lon, ssid: ssid))
            xy[id] = p
            return id
        }

        /// A position `r0`–`r1` metres from `centre` in a random direction; where places must lie somewhere
        /// (`allowed`), drawn again until one does (at most 200 draws; then the last).
        mutating func polar(_ centre: XY, _ r0: Double, _ r1: Double) -> XY {
            var p = XY(x: 0, y: 0)
            for _ in 0..<(allowed == nil ? 1 : 200) {
                let a = rng.uniform(0, 2 * .pi)
                let r = rng.uniform(r0, r1)
                p = centre + XY(x: cos(a) * r, y: sin(a) * r)
                if allowed?(p) ?? true { break }
            }
            return p
        }

        /// Adds, in this order, the far place (20–35 km), the bus stops and stations near home and work, the airport
        /// and the far city's hotel (~500 km) that every world has; returns their ids.
        mutating func addTravelPlaces(home: XY, work: XY)
            -> (far: Int, homeStop: Int, workStop: Int, homeStation: Int, workStation: Int, airport: Int, hotel: Int)
        {
            let far = add("far", around: home, 20000, 35000)
            let homeStop = add("stop_home", around: home, 300, 500)
            let workStop = add("stop_work", around: work, 250, 450)
            let homeStation = add("station_home", around: home, 600, 900)
            let workStation = add("station_work", around: work, 500, 800)
            let airport = add("airport", around: home, 12000, 16000)
            let hotel = add("hotel", around: home, 480_000, 520_000)
            return (far, homeStop, workStop, homeStation, workStation, airport, hotel)
        }

        /// Adds a place of `kind` `r0`–`r1` metres from `centre`; returns its id.
        mutating func add(_ kind: String, around centre: XY, _ r0: Double, _ r1: Double) -> Int {
            let p = polar(centre, r0, r1)
            return add(kind, p)
        }
    }

    func makeWorld(person: Int) -> PersonWorld {
        var w = WorldPlaces(person: person, rng: SplitMix64.derived(config.seed, 0xA11CE, UInt64(person)), latLon: latLon)
        let names = ["Mueller", "Schmidt", "Weber", "Fischer", "Wagner", "Becker"]
        let homeXY = w.polar(XY(x: 0, y: 0), 500, 4000)
        let home = w.add("home", homeXY, ssid: "\(names[person % names.count])-Home")
        let workXY = w.polar(homeXY, 3000, 7000)
        let work = w.add("work", workXY, ssid: "ACME-Corp-\(person + 1)")
        let shopAXY = w.polar(homeXY, 500, 1300)
        let shopA = w.add("shop_a", shopAXY)
        let shopB = w.add("shop_b", around: shopAXY, 195, 210)
        let lunch = w.add("lunch", around: workXY, 350, 600)
        let park = w.add("park", around: homeXY, 1500, 3500)
        let friend = w.add("friend", around: homeXY, 2500, 6000)
        let (far, homeStop, workStop, homeStation, workStation, airport, hotel) = w.addTravelPlaces(home: homeXY, work: workXY)
        let commutes: [TravelMode] = [.car, .bus, .cycle, .train]
        return PersonWorld(
            person: person, places: w.places, xy: w.xy, home: home, work: work, shopA: shopA, shopB: shopB, lunch: lunch,
            park: park, friend: friend, far: far, homeStop: homeStop, workStop: workStop, homeStation: homeStation,
            workStation: workStation, airport: airport, hotel: hotel, commute: commutes[(person + Int(config.seed % 4)) % 4],
            gridAngle: w.rng.uniform(0, .pi / 2))
    }
}
