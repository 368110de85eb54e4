import Testing

@testable import TriplineGeography

/// Known coordinates (city centres and points a short walk from a border) with their real zone and country.
/// Coordinates are the usual published centre points; border pairs sit 1–5 km either side of the line.
struct KnownPoint: Sendable, CustomTestStringConvertible {
    let label: String
    let latitude: Double
    let longitude: Double
    let zone: String
    let country: String?

    var testDescription: String { label }
}

let knownPoints: [KnownPoint] = [
    .init(label: "Berlin", latitude: 52.5200, longitude: 13.4050, zone: "Europe/Berlin", country: "DE"),
    .init(label: "New York", latitude: 40.7128, longitude: -74.0060, zone: "America/New_York", country: "US"),
    .init(label: "Zürich", latitude: 47.3769, longitude: 8.5417, zone: "Europe/Zurich", country: "CH"),
    .init(label: "Tokyo", latitude: 35.6762, longitude: 139.6503, zone: "Asia/Tokyo", country: "JP"),
    .init(label: "Sydney", latitude: -33.8688, longitude: 151.2093, zone: "Australia/Sydney", country: "AU"),
    .init(label: "Beijing", latitude: 39.9042, longitude: 116.4074, zone: "Asia/Shanghai", country: "CN"),
    .init(label: "Beijing, Haidian", latitude: 39.9593, longitude: 116.2981, zone: "Asia/Shanghai", country: "CN"),
    // Basel and its neighbours across the Rhine and the French border.
    .init(label: "Basel", latitude: 47.5596, longitude: 7.5886, zone: "Europe/Zurich", country: "CH"),
    .init(label: "Weil am Rhein", latitude: 47.5947, longitude: 7.6108, zone: "Europe/Berlin", country: "DE"),
    .init(label: "Saint-Louis", latitude: 47.5900, longitude: 7.5600, zone: "Europe/Paris", country: "FR"),
    // Strasbourg and Kehl, 5 km apart across the Rhine.
    .init(label: "Strasbourg", latitude: 48.5734, longitude: 7.7521, zone: "Europe/Paris", country: "FR"),
    .init(label: "Kehl", latitude: 48.5723, longitude: 7.8155, zone: "Europe/Berlin", country: "DE"),
    // Detroit and Windsor, either side of the Detroit River.
    .init(label: "Detroit", latitude: 42.3314, longitude: -83.0458, zone: "America/Detroit", country: "US"),
    .init(label: "Windsor", latitude: 42.3149, longitude: -83.0364, zone: "America/Toronto", country: "CA"),
    // El Paso and Ciudad Juárez, either side of the Rio Grande (different zones since 2022).
    .init(label: "El Paso", latitude: 31.7619, longitude: -106.4850, zone: "America/Denver", country: "US"),
    .init(label: "Ciudad Juárez", latitude: 31.6904, longitude: -106.4245, zone: "America/Ciudad_Juarez", country: "MX"),
    // Across the antimeridian: Fiji and Chukotka have land on both sides of ±180°.
    .init(label: "Suva, Fiji", latitude: -18.1416, longitude: 178.4419, zone: "Pacific/Fiji", country: "FJ"),
    .init(label: "Vanua Balavu, Fiji (west longitude)", latitude: -17.2300, longitude: -178.9500, zone: "Pacific/Fiji", country: "FJ"),
    // (Inland points: the towns of Anadyr and Uelen sit on a shore that Natural Earth 1:10m draws as water.)
    .init(label: "Anadyr, 10 km inland", latitude: 64.75, longitude: 177.3, zone: "Asia/Anadyr", country: "RU"),
    .init(label: "Chukotka (west longitude)", latitude: 66.0, longitude: -172.0, zone: "Asia/Anadyr", country: "RU"),
    // Open sea: no country, the nautical zone of the longitude.
    .init(label: "mid-Atlantic", latitude: 35.0, longitude: -40.0, zone: "Etc/GMT+3", country: nil),
    .init(label: "North Pole", latitude: 90, longitude: 0, zone: "Etc/GMT", country: nil),
    .init(label: "Pacific on the antimeridian (+180)", latitude: 0, longitude: 180, zone: "Etc/GMT-12", country: nil),
    .init(label: "Pacific on the antimeridian (-180)", latitude: 0, longitude: -180, zone: "Etc/GMT-12", country: nil),
]

@Suite("Geography lookups")
struct GeographyTests {
    @Test("zone of known points", arguments: knownPoints)
    func zone(_ p: KnownPoint) {
        #expect(Geography.zone(latitude: p.latitude, longitude: p.longitude) == p.zone)
    }

    @Test("country of known points", arguments: knownPoints)
    func country(_ p: KnownPoint) {
        #expect(Geography.country(latitude: p.latitude, longitude: p.longitude)?.code == p.country)
    }

    @Test("country names are English short names")
    func countryNames() {
        #expect(Geography.country(latitude: 52.52, longitude: 13.405)?.name == "Germany")
        #expect(Geography.country(latitude: 47.3769, longitude: 8.5417)?.name == "Switzerland")
        #expect(Geography.country(latitude: 40.7128, longitude: -74.006)?.name == "United States of America")
        #expect(Geography.country(latitude: 39.9042, longitude: 116.4074)?.name == "China")
        #expect(Geography.country(latitude: 43.8563, longitude: 18.4131)?.name == "Bosnia and Herzegovina")
    }

    @Test("France's overseas departments have their own ISO codes, as in GeoNames")
    func overseas() {
        #expect(Geography.country(latitude: 48.8566, longitude: 2.3522)?.code == "FR")
        #expect(Geography.country(latitude: -21.1151, longitude: 55.5364)?.code == "RE")
        #expect(Geography.country(latitude: 4.9224, longitude: -52.3135)?.code == "GF")
        #expect(Geography.country(latitude: 16.2650, longitude: -61.5510)?.code == "GP")
        #expect(Geography.zone(latitude: -21.1151, longitude: 55.5364) == "Indian/Reunion")
    }

    @Test("a harbour or beach that the 1:10m coastline puts in the sea still gets its country")
    func coastalSnap() {
        // Anadyr's waterfront: Natural Earth's coastline runs inland of it; 1.5 km around there is land.
        #expect(Geography.country(latitude: 64.7337, longitude: 177.4968)?.code == "RU")
        // 30 km off the Dutch coast is sea.
        #expect(Geography.country(latitude: 52.4, longitude: 4.1)?.code == nil)
    }

    @Test("the South Pole is in Antarctica")
    func southPole() {
        #expect(Geography.country(latitude: -90, longitude: 0)?.code == "AQ")
        let zone = Geography.zone(latitude: -90, longitude: 0)
        #expect(zone != nil)
    }

    @Test("nautical zones follow timezone-boundary-builder's 15° bands (east edge included)")
    func nauticalBands() {
        // South Atlantic / Southern Ocean at 50° S, far from land.
        #expect(Geography.zone(latitude: -50, longitude: -7.5) == "Etc/GMT+1")
        #expect(Geography.zone(latitude: -50, longitude: -7.49) == "Etc/GMT")
        #expect(Geography.zone(latitude: -50, longitude: 7.5) == "Etc/GMT")
        #expect(Geography.zone(latitude: -50, longitude: 7.51) == "Etc/GMT-1")
        #expect(Geography.zone(latitude: -50, longitude: -172.5) == "Etc/GMT+12")
        #expect(Geography.zone(latitude: -50, longitude: -172.4) == "Etc/GMT+11")
    }

    @Test("invalid coordinates give nil, never a crash",
          arguments: [(Double.nan, 0.0), (0, .nan), (91, 0), (-90.0001, 0), (0, 180.0001), (0, -181), (.infinity, 0),
                      (0, -.infinity), (.greatestFiniteMagnitude, 1)])
    func invalid(_ c: (Double, Double)) {
        #expect(Geography.zone(latitude: c.0, longitude: c.1) == nil)
        #expect(Geography.zoneID(latitude: c.0, longitude: c.1) == nil)
        #expect(Geography.country(latitude: c.0, longitude: c.1) == nil)
        #expect(Geography.nearestPlace(latitude: c.0, longitude: c.1) == nil)
    }

    @Test("zone ids round-trip to the same names as zone(latitude:longitude:)", arguments: knownPoints)
    func zoneIDs(_ p: KnownPoint) throws {
        let id = try #require(Geography.zoneID(latitude: p.latitude, longitude: p.longitude))
        #expect(Geography.zoneName(id) == p.zone)
        #expect((id.raw > 0) == !p.zone.hasPrefix("Etc/"))
    }

    @Test("the table holds the zones of tzdata's zone1970 world, not a handful")
    func zoneCount() {
        #expect(Geography.zoneCount > 300)
    }
}

@Suite("Nearest populated place")
struct NearestPlaceTests {
    @Test("Berlin centre: a place of Berlin within 3 km")
    func berlin() throws {
        let p = try #require(Geography.nearestPlace(latitude: 52.5200, longitude: 13.4050))
        #expect(p.countryCode == "DE")
        #expect(p.admin1 == "Berlin")
        #expect(p.distanceMeters < 3000)
    }

    @Test("Haidian, Beijing")
    func haidian() throws {
        let p = try #require(Geography.nearestPlace(latitude: 39.9593, longitude: 116.2981))
        #expect(p.countryCode == "CN")
        #expect(p.admin1 == "Beijing")
        #expect(p.distanceMeters < 10_000)
    }

    @Test("Zürich centre: GeoNames lists its city districts as places of their own")
    func zurich() throws {
        let p = try #require(Geography.nearestPlace(latitude: 47.3769, longitude: 8.5417))
        #expect(p.name.hasPrefix("Zürich"))
        #expect(p.countryCode == "CH")
        #expect(p.admin1 == "Zurich")
        #expect(p.population >= 1000)
        #expect(abs(p.location.latitude - 47.3769) < 0.02 && abs(p.location.longitude - 8.5417) < 0.02)
        #expect(p.distanceMeters < 2000)
    }

    @Test("with a minimum population: the city, not its district")
    func minimumPopulation() throws {
        let p = try #require(Geography.nearestPlace(latitude: 47.3769, longitude: 8.5417, minimumPopulation: 100_000))
        #expect(p.name == "Zürich")
        #expect(p.population > 300_000)
        let berlin = try #require(Geography.nearestPlace(latitude: 52.5200, longitude: 13.4050, minimumPopulation: 1_000_000))
        #expect(berlin.name == "Berlin")
        // Nothing of 10 million near Basel: the nearest such city is far away but found.
        let big = try #require(Geography.nearestPlace(latitude: 47.5596, longitude: 7.5886, minimumPopulation: 10_000_000))
        #expect(big.population >= 10_000_000)
        #expect(big.distanceMeters > 300_000)
        #expect(Geography.nearestPlace(latitude: 0, longitude: 0, minimumPopulation: 1_000_000_000) == nil)
    }

    @Test("the distance is the great-circle distance to the place's own coordinate")
    func distance() throws {
        let q = GeoPoint(latitude: 48.0, longitude: 11.0)
        let p = try #require(Geography.nearestPlace(latitude: q.latitude, longitude: q.longitude))
        let expected = haversine(q, p.location)
        #expect(abs(p.distanceMeters - expected) < 5)
    }

    @Test("across the antimeridian the nearest place may be on the other side")
    func antimeridian() throws {
        // Taveuni (Fiji) straddles 180°: from just west of the line the nearest places lie on both sides.
        let east = try #require(Geography.nearestPlace(latitude: -16.85, longitude: 179.999))
        let west = try #require(Geography.nearestPlace(latitude: -16.85, longitude: -179.999))
        #expect(east.countryCode == "FJ" && west.countryCode == "FJ")
        #expect(east.name == west.name)
        #expect(east.distanceMeters == west.distanceMeters || abs(east.distanceMeters - west.distanceMeters) < 300)
    }

    @Test("poles and open sea still give the nearest place, far away")
    func far() throws {
        let north = try #require(Geography.nearestPlace(latitude: 90, longitude: 0))
        #expect(north.distanceMeters > 500_000)
        let atlantic = try #require(Geography.nearestPlace(latitude: 35, longitude: -40))
        #expect(atlantic.distanceMeters > 500_000)
    }

    /// 100 random queries against a scan of every place: the k-d search must never miss the nearest one.
    @Test("the k-d search agrees with a brute-force scan")
    func bruteForce() throws {
        let index = Geography.places
        var state: UInt64 = 42
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var points: [(Float, Float, Float)] = []
        var populations: [Int] = []
        for i in 0..<index.count {
            let c = index.coordinate(i)
            points.append(unit(c.latitude, c.longitude))
            populations.append(index.population(i))
        }
        for _ in 0..<100 {
            let lat = next() * 180 - 90, lon = next() * 360 - 180
            let got = try #require(index.nearest(latitude: lat, longitude: lon))
            let q = unit(lat, lon)
            let big = try #require(index.nearest(latitude: lat, longitude: lon, minimumPopulation: 100_000))
            var best = Float.infinity, bestBig = Float.infinity
            for (p, population) in zip(points, populations) {
                let dx = p.0 - q.0, dy = p.1 - q.1, dz = p.2 - q.2
                let d2 = dx * dx + dy * dy + dz * dz
                best = min(best, d2)
                if population >= 100_000 { bestBig = min(bestBig, d2) }
            }
            // Equal up to Float rounding of the stored vs recomputed unit vectors.
            #expect(abs(got.chord2 - best) <= 1e-6 * max(best, 1e-6) + 1e-11)
            #expect(abs(big.chord2 - bestBig) <= 1e-6 * max(bestBig, 1e-6) + 1e-11)
            #expect(index.population(big.index) >= 100_000)
        }
    }
}

@Suite("Base layer")
struct BaseLayerTests {
    @Test("the world at low detail has every country")
    func world() {
        let shapes = Geography.baseLayer(.countries, detail: .low, in: .world)
        let codes = Set(shapes.compactMap(\.countryCode))
        #expect(codes.count > 200)
        for code in ["DE", "US", "CN", "BR", "AU", "FJ", "RU", "AQ"] { #expect(codes.contains(code), "\(code)") }
    }

    @Test("a box around Switzerland: neighbours, borders, no coast, everything inside the box",
          arguments: BaseDetail.allCases)
    func switzerland(_ detail: BaseDetail) {
        let box = GeoBox(minLatitude: 45.5, minLongitude: 5.5, maxLatitude: 48.0, maxLongitude: 10.8)
        let countries = Geography.baseLayer(.countries, detail: detail, in: box)
        let codes = Set(countries.compactMap(\.countryCode))
        #expect(codes.isSuperset(of: ["CH", "DE", "FR", "IT", "AT", "LI"]) || detail == .low && codes.isSuperset(of: ["CH", "DE", "FR", "IT", "AT"]))
        #expect(!Geography.baseLayer(.borders, detail: detail, in: box).isEmpty)
        #expect(Geography.baseLayer(.coastlines, detail: detail, in: box).isEmpty)
        for kind in BaseLayerKind.allCases {
            for shape in Geography.baseLayer(kind, detail: detail, in: box) {
                for part in shape.parts {
                    #expect(part.count >= 2)
                    for p in part {
                        #expect(p.latitude >= box.minLatitude - 1e-9 && p.latitude <= box.maxLatitude + 1e-9)
                        #expect(p.longitude >= box.minLongitude - 1e-9 && p.longitude <= box.maxLongitude + 1e-9)
                    }
                }
            }
        }
    }

    @Test("lakes: Lake Geneva and Lake Constance near Switzerland, the Great Lakes at world detail")
    func lakes() {
        let box = GeoBox(minLatitude: 45.5, minLongitude: 5.5, maxLatitude: 48.0, maxLongitude: 10.8)
        let lakes = Geography.baseLayer(.lakes, detail: .high, in: box)
        func has(_ lat: Double, _ lon: Double, in shapes: [BaseShape]) -> Bool {
            shapes.contains { s in
                let ring = s.parts[0]
                let lats = ring.map(\.latitude), lons = ring.map(\.longitude)
                return lats.min()! <= lat && lat <= lats.max()! && lons.min()! <= lon && lon <= lons.max()!
            }
        }
        #expect(has(46.45, 6.55, in: lakes))  // Lake Geneva
        #expect(has(47.60, 9.40, in: lakes))  // Lake Constance
        #expect(lakes.allSatisfy { $0.countryCode == nil })
        let world = Geography.baseLayer(.lakes, detail: .low, in: .world)
        #expect(has(44.8, -87.0, in: world))  // Lake Michigan
        #expect(Geography.baseLayer(.lakes, detail: .high, in: GeoBox(minLatitude: 30, minLongitude: -45, maxLatitude: 40, maxLongitude: -35)).isEmpty)
    }

    @Test("clipped polygon rings stay closed")
    func closedRings() {
        let box = GeoBox(minLatitude: 50, minLongitude: 5, maxLatitude: 53, maxLongitude: 12)
        let shapes = Geography.baseLayer(.countries, detail: .high, in: box)
        #expect(!shapes.isEmpty)
        for s in shapes { for ring in s.parts { #expect(ring.first == ring.last) } }
    }

    @Test("a box across the antimeridian finds Fiji on both sides")
    func antimeridian() {
        let box = GeoBox(minLatitude: -20, minLongitude: 175, maxLatitude: -15, maxLongitude: -177)
        let fiji = Geography.baseLayer(.countries, detail: .high, in: box).filter { $0.countryCode == "FJ" }
        let lons = fiji.flatMap { $0.parts.flatMap { $0.map(\.longitude) } }
        #expect(lons.contains { $0 > 175 } && lons.contains { $0 < -177 })
        #expect(!Geography.baseLayer(.coastlines, detail: .high, in: box).isEmpty)
    }

    @Test("high detail has more points than low")
    func levels() {
        func points(_ d: BaseDetail) -> Int {
            Geography.baseLayer(.coastlines, detail: d, in: .world).reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.count } }
        }
        #expect(points(.high) > 2 * points(.low))
    }

    @Test("a line crossing the box is cut where it leaves and re-enters")
    func clipLine() {
        let box = GeoBox(minLatitude: 0, minLongitude: 0, maxLatitude: 10, maxLongitude: 10)
        let line = [GeoPoint(latitude: 5, longitude: -5), GeoPoint(latitude: 5, longitude: 5),
                    GeoPoint(latitude: 5, longitude: 15), GeoPoint(latitude: 8, longitude: 15),
                    GeoPoint(latitude: 8, longitude: 5)]
        let pieces = Clip.line(line, box)
        #expect(pieces == [[GeoPoint(latitude: 5, longitude: 0), GeoPoint(latitude: 5, longitude: 5), GeoPoint(latitude: 5, longitude: 10)],
                           [GeoPoint(latitude: 8, longitude: 10), GeoPoint(latitude: 8, longitude: 5)]])
    }
}

@Suite("Geography under concurrency")
struct GeographyConcurrencyTests {
    @Test("concurrent first use and lookups give the sequential answers")
    func concurrent() async {
        let expected = knownPoints.map { p in
            (Geography.zone(latitude: p.latitude, longitude: p.longitude),
             Geography.country(latitude: p.latitude, longitude: p.longitude)?.code,
             Geography.nearestPlace(latitude: p.latitude, longitude: p.longitude)?.name)
        }
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<20 {
                        for (p, e) in zip(knownPoints, expected) {
                            let z = Geography.zone(latitude: p.latitude, longitude: p.longitude)
                            let c = Geography.country(latitude: p.latitude, longitude: p.longitude)?.code
                            let n = Geography.nearestPlace(latitude: p.latitude, longitude: p.longitude)?.name
                            if z != e.0 || c != e.1 || n != e.2 { return false }
                        }
                    }
                    return true
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}

func unit(_ lat: Double, _ lon: Double) -> (Float, Float, Float) {
    let la = lat * .pi / 180, lo = lon * .pi / 180
    return (Float(cos(la) * cos(lo)), Float(cos(la) * sin(lo)), Float(sin(la)))
}

func haversine(_ a: GeoPoint, _ b: GeoPoint) -> Double {
    let r = 6_371_008.8
    let p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180
    let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
    let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
    return 2 * r * asin(min(1, h.squareRoot()))
}

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Damaged tables")
struct DamagedTableTests {
    /// Copies of each embedded table, truncated or with bytes overwritten, must give answers (perhaps wrong, perhaps
    /// none) without trapping, hanging or reading outside the copy.
    @Test("truncated and scribbled tables never trap", arguments: [EmbeddedTable.Which.zones, .countries, .places, .base])
    func damaged(_ which: EmbeddedTable.Which) {
        let original = EmbeddedTable(which)
        guard let base = original.base else {
            Issue.record("table \(which) is not embedded")
            return
        }
        let bytes = Array(UnsafeRawBufferPointer(start: base, count: original.count))
        var state: UInt64 = 7 &+ UInt64(which.rawValue)
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var copies: [[UInt8]] = [[], Array(bytes.prefix(3)), Array(bytes.prefix(64)), Array(bytes.prefix(bytes.count / 2))]
        for _ in 0..<6 {
            var c = bytes
            for _ in 0..<2000 { c[next() % c.count] = UInt8(truncatingIfNeeded: next()) }
            copies.append(c)
        }
        for copy in copies {
            copy.withUnsafeBytes { raw in
                let table = EmbeddedTable(base: raw.baseAddress, count: raw.count)
                for k in 0..<300 {
                    let lat = Double(next() % 18000) / 100 - 90, lon = Double(next() % 36000) / 100 - 180
                    switch which {
                    case .zones, .countries:
                        let index = RegionIndex(table, magic: which == .zones ? "TLRZ" : "TLRC")
                        let r = index.region(latitude: lat, longitude: lon)
                        #expect(r >= 0 && r <= index.regionCount)
                    case .places:
                        let index = PlaceIndex(table)
                        if let hit = index.nearest(latitude: lat, longitude: lon) {
                            #expect(hit.index >= 0 && hit.index < index.count)
                            _ = index.name(hit.index)
                            _ = index.region(hit.index)
                        }
                    case .base:
                        if k % 30 == 0 {
                            let layer = BaseLayerTable(table)
                            let box = GeoBox(minLatitude: lat, minLongitude: lon, maxLatitude: min(90, lat + 20), maxLongitude: min(180, lon + 30))
                            _ = layer.shapes(layer: k % 3, level: k % 2, box: box, countryCodes: [])
                        }
                    }
                }
            }
        }
    }
}
