#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// More lookups over the embedded GeoNames table (PlaceIndex): places within a distance, the locality (city or town)
// a point is in, and the most populous places inside a box (map labels). They read the same k-d tree as
// `Geography.nearestPlace`, through the table's header (format in docs/GEOGRAPHY.md), so PlaceIndex stays untouched.

extension Geography {
    /// Places within `meters` of a point (great circle), nearest first, ties by table order; [] for invalid input.
    /// - Complexity: O(log n + k) node visits on average for k places found.
    public static func populatedPlaces(latitude: Double, longitude: Double, withinMeters meters: Double) -> [Place] {
        guard latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180, meters >= 0, meters.isFinite else { return [] }
        let angle = min(Double.pi, meters / 6_371_008.8)
        let chord = 2 * sin(angle / 2)
        var found: [(Int, Float)] = []
        PlaceRange(places).search(latitude: latitude, longitude: longitude, chord: Float(chord)) { found.append(($0, $1)) }
        found.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        return found.map { place($0.0, chord2: $0.1) }
    }

    /// Metres per √inhabitant of a populated place's reach: a point within `max(localityMinimumReachMeters,
    /// localityReachPerSqrtPopulation × √population)` of a place's coordinate counts as being in it. 7 m gives
    /// Berlin (3.4 M) 12.9 km, Paris (2.1 M) 10 km, Zürich (0.4 M) 4.4 km, a town of 10 000 700 m: about the radius
    /// of each one's built-up core, so a point in a Berlin district is in "Berlin" rather than in the district's own
    /// GeoNames entry, while a village next to a city keeps its own name once outside the city's reach.
    public static let localityReachPerSqrtPopulation = 7.0
    public static let localityMinimumReachMeters = 1000.0

    /// The city, town or village a point is in: the most populous GeoNames place whose reach (see
    /// `localityReachPerSqrtPopulation`) covers the point, else the nearest place. nil only for invalid input.
    public static func locality(latitude: Double, longitude: Double) -> Place? {
        guard let (nearestIndex, nearestChord2) = places.nearest(latitude: latitude, longitude: longitude) else { return nil }
        func metres(_ chord2: Float) -> Double { 2 * asin(min(1, Double(chord2).squareRoot() / 2)) * 6_371_008.8 }
        var best = nearestIndex, bestChord2 = nearestChord2
        var covered = metres(nearestChord2) <= reach(places.population(nearestIndex))
        var bestPopulation = places.population(nearestIndex)
        // The biggest places (Tokyo, Delhi: ~10 M in the table) reach about 23 km. Only the winner becomes a Place.
        let chord = Float(2 * sin(25_000 / 6_371_008.8 / 2))
        PlaceRange(places).search(latitude: latitude, longitude: longitude, chord: chord) { i, chord2 in
            let population = places.population(i)
            guard metres(chord2) <= reach(population) else { return }
            if !covered || population > bestPopulation || (population == bestPopulation && (chord2, i) < (bestChord2, best)) {
                best = i
                bestChord2 = chord2
                bestPopulation = population
                covered = true
            }
        }
        return place(best, chord2: bestChord2)
    }

    static func reach(_ population: Int) -> Double {
        max(localityMinimumReachMeters, localityReachPerSqrtPopulation * Double(max(0, population)).squareRoot())
    }

    /// Places of at least `minimumPopulation` inside a box (a box with minLongitude > maxLongitude crosses the
    /// antimeridian), most populous first (ties by name, then table order), at most `limit`.
    /// - Complexity: O(n) over the table (~150 000 places, a few milliseconds); for map labels, not hot loops.
    public static func populatedPlaces(in box: GeoBox, minimumPopulation: Int, limit: Int) -> [Place] {
        guard limit > 0, box.minLatitude <= box.maxLatitude else { return [] }
        var hits: [(Int, Int)] = []
        let crosses = box.minLongitude > box.maxLongitude
        for i in 0..<places.count {
            let population = places.population(i)
            guard population >= minimumPopulation else { continue }
            let (lat, lon) = places.coordinate(i)
            guard lat >= box.minLatitude, lat <= box.maxLatitude else { continue }
            let inLon = crosses ? (lon >= box.minLongitude || lon <= box.maxLongitude) : (lon >= box.minLongitude && lon <= box.maxLongitude)
            if inLon { hits.append((i, population)) }
        }
        hits.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        return hits.prefix(limit).map { place($0.0, chord2: 0) }
    }

    /// The Place value of table entry `i` at squared chord `chord2` from the query.
    static func place(_ i: Int, chord2: Float) -> Place {
        let region = places.region(i)
        let (lat, lon) = places.coordinate(i)
        let angle = 2 * asin(min(1, Double(chord2).squareRoot() / 2))
        return Place(
            name: places.name(i), countryCode: region.country, admin1: region.admin.isEmpty ? nil : region.admin,
            population: places.population(i), location: GeoPoint(latitude: lat, longitude: lon),
            distanceMeters: angle * 6_371_008.8)
    }
}

/// A range search over PlaceIndex's implicit k-d tree (unit vectors, the median of each range at its middle, split
/// axis stored per node), read from the table header: every place within a chord of the query.
struct PlaceRange {
    let points: UnsafePointer<Float>?
    let axes: UnsafePointer<UInt8>?
    let count: Int
    let bucket: Int

    init(_ index: PlaceIndex) {
        let t = index.table
        count = index.count
        bucket = max(1, Int(t.u32(36)))
        if let base = t.base, count > 0 {
            points = (base + Int(t.u32(12))).assumingMemoryBound(to: Float.self)
            axes = (base + Int(t.u32(16))).assumingMemoryBound(to: UInt8.self)
        } else {
            points = nil
            axes = nil
        }
    }

    func search(latitude: Double, longitude: Double, chord: Float, _ body: (Int, Float) -> Void) {
        guard let points, let axes else { return }
        let la = latitude * .pi / 180, lo = longitude * .pi / 180
        let c = cos(la)
        let q = (Float(c * cos(lo)), Float(c * sin(lo)), Float(sin(la)))
        let limit = chord * chord
        func visit(_ lo: Int, _ hi: Int) {
            if lo >= hi { return }
            if hi - lo <= bucket {
                for k in lo..<hi {
                    let p = points + 3 * k
                    let dx = q.0 - p[0], dy = q.1 - p[1], dz = q.2 - p[2]
                    let d2 = dx * dx + dy * dy + dz * dz
                    if d2 <= limit { body(k, d2) }
                }
                return
            }
            let mid = (lo + hi) >> 1
            let p = points + 3 * mid
            let dx = q.0 - p[0], dy = q.1 - p[1], dz = q.2 - p[2]
            let d2 = dx * dx + dy * dy + dz * dz
            if d2 <= limit { body(mid, d2) }
            let axis = axes[mid]
            let diff = axis == 0 ? dx : (axis == 1 ? dy : dz)
            // diff = q - split: the left range holds values ≤ split.
            if diff <= chord { visit(lo, mid) }
            if diff >= -chord { visit(mid + 1, hi) }
        }
        visit(0, count)
    }
}
