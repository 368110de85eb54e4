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
}
