#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// TriplineGeography: offline time zone, country, nearest populated place and map base layer for a point.
//
// Public API (all `static`, all thread-safe, no I/O, no Foundation):
//
//   Geography.zone(latitude:longitude:) -> String?
//       IANA zone name ("Europe/Berlin"). Land and territorial waters from timezone-boundary-builder (via
//       timezonefinder-data); open sea gives the source's nautical zone "Etc/GMT±N" from the longitude
//       (15° bands, sign as in tzdata: east of Greenwich is "Etc/GMT-N"). nil only for invalid input
//       (NaN, |latitude| > 90, |longitude| > 180).
//   Geography.zoneID(latitude:longitude:) -> ZoneID?  and  Geography.zoneName(_:) -> String
//       The same lookup as a small Hashable value (no String built), for hot loops and grouping.
//   Geography.country(latitude:longitude:) -> Country?
//       ISO 3166-1 alpha-2 code (nil for the few territories without one) and English name, from Natural Earth 1:10m
//       admin-0 (its German point of view edition, as shipped). nil at sea (more than 1.5 km off the coast) and for
//       invalid input.
//   Geography.nearestPlace(latitude:longitude:minimumPopulation:) -> Place?
//       The nearest GeoNames populated place of ≥ 1000 people (or of at least `minimumPopulation`): name, country
//       code, admin-1 region name (nil when unknown), population, its coordinate and the great-circle distance in
//       metres. nil for invalid input (or a minimum population no place reaches).
//   Geography.baseLayer(_:detail:in:) -> [BaseShape]
//       Country polygons, coastlines, land borders or lakes (Natural Earth 1:10m, simplified) at `.low` (world) or
//       `.high` (region) detail, clipped to a box; a box with minLongitude > maxLongitude crosses the antimeridian.
//
// The tables are embedded in the binary by the C target CTriplineGeographyData (.incbin in geography.S), so the
// `tripline` executable carries them wherever it is copied. Each table is checked and its small name tables decoded
// on first use (Swift's lazy, thread-safe `static let`); lookups read the embedded bytes in place.
// Sources, licences, file format, accuracy and how to regenerate: docs/GEOGRAPHY.md.

/// A point in degrees (WGS 84).
public struct GeoPoint: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A longitude/latitude box in degrees. `minLongitude > maxLongitude` means the box crosses the antimeridian.
public struct GeoBox: Sendable, Hashable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    public static let world = GeoBox(minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180)
}

/// A time zone found by `Geography.zoneID`: a land zone of the table or an open-sea "Etc/GMT±N" zone.
public struct ZoneID: Sendable, Hashable {
    /// > 0: land zone number (1-based, in the table's sorted order); ≤ 0: -(12 + hours east of UTC) at sea.
    /// Numbers change when the table is regenerated: store names (`Geography.zoneName`), not ids.
    public let raw: Int32
}

/// A country or territory (Natural Earth admin-0 unit).
public struct Country: Sendable, Hashable {
    /// ISO 3166-1 alpha-2, upper case; nil for the few units without one (Bir Tawil, Scarborough Shoal, ...).
    public let code: String?
    /// English short name, e.g. "Germany".
    public let name: String
}

/// A GeoNames populated place.
public struct Place: Sendable, Hashable {
    public let name: String
    /// ISO 3166-1 alpha-2 of the place (GeoNames' own), e.g. "DE".
    public let countryCode: String
    /// First-level administrative region (state, Land, province), nil when GeoNames data gives none.
    public let admin1: String?
    public let population: Int
    /// The place's coordinate (to about a metre).
    public let location: GeoPoint
    /// Great-circle distance from the queried point, metres (spherical Earth, radius 6,371,008.8 m).
    public let distanceMeters: Double
}

/// A base-layer feature: a country's or a lake's polygon (rings, the first outer, then holes; each closed) or one
/// line.
public struct BaseShape: Sendable, Hashable {
    /// The country of a polygon (nil for lakes, lines and units without a code).
    public let countryCode: String?
    public let parts: [[GeoPoint]]
}

public enum BaseLayerKind: Int, Sendable, CaseIterable {
    /// Country polygons: fill them for land, stroke them for all outlines.
    case countries = 0
    /// Coastlines (country outlines that face the sea), as lines.
    case coastlines = 1
    /// Land borders between countries, as lines.
    case borders = 2
    /// Lakes (Natural Earth 1:10m lakes, reservoirs included), as polygons to draw over the countries.
    case lakes = 3
}

public enum BaseDetail: Int, Sendable, CaseIterable {
    /// For a view of the world or a continent.
    case low = 0
    /// For a view of a country or a region.
    case high = 1
}

public enum Geography {
    static let zones = RegionIndex(EmbeddedTable(.zones), magic: "TLRZ")
    static let countries = RegionIndex(EmbeddedTable(.countries), magic: "TLRC")
    static let places = PlaceIndex(EmbeddedTable(.places))
    static let base = BaseLayerTable(EmbeddedTable(.base))
    /// "Etc/GMT+12" ... "Etc/GMT-12" for offsets -12 ... +12 hours.
    /// Indexed by 12 + hours east of UTC: "Etc/GMT+12" (-12 h) ... "Etc/GMT-12" (+12 h).
    static let nauticalZones: [String] = (-12...12).map { h in
        h == 0 ? "Etc/GMT" : (h > 0 ? "Etc/GMT-\(h)" : "Etc/GMT+\(-h)")
    }

    /// Number of land time zones in the table.
    public static var zoneCount: Int { zones.regionCount }

    /// IANA time-zone name at a point; nil only for invalid input. See the top of this file.
    public static func zone(latitude: Double, longitude: Double) -> String? {
        zoneID(latitude: latitude, longitude: longitude).map(zoneName)
    }

    /// The zone at a point as a small value (no String built); nil only for invalid input.
    public static func zoneID(latitude: Double, longitude: Double) -> ZoneID? {
        guard latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180 else { return nil }
        let id = nearbyRegion(zones, latitude: latitude, longitude: longitude)
        if id > 0 { return ZoneID(raw: Int32(id)) }
        return ZoneID(raw: -Int32(nauticalOffset(longitude: longitude) + 12))
    }

    /// The IANA name of a zone id.
    public static func zoneName(_ id: ZoneID) -> String {
        if id.raw > 0 {
            let names = zones.columns.first ?? []
            return Int(id.raw) <= names.count ? names[Int(id.raw) - 1] : "Etc/Unknown"
        }
        return nauticalZones[Int(-id.raw)]
    }

    /// Hours east of UTC of the open-sea zone at a longitude, as timezone-boundary-builder draws them: bands of 15°
    /// centred on multiples of 15°, each band's east edge included; ±180 is +12 (Etc/GMT-12).
    static func nauticalOffset(longitude: Double) -> Int {
        let lon = longitude <= -180 ? 180 : longitude
        let h = Int(((lon - 7.5) / 15).rounded(.up))
        return max(-12, min(12, h))
    }

    /// Country at a point; nil at sea (more than `coastalSnapMeters` beyond the 1:10m coastline) and for invalid input.
    public static func country(latitude: Double, longitude: Double) -> Country? {
        let id = nearbyRegion(countries, latitude: latitude, longitude: longitude)
        guard id > 0, countries.columns.count == 2 else { return nil }
        let code = countries.columns[0][id - 1]
        return Country(code: code.isEmpty ? nil : code, name: countries.columns[1][id - 1])
    }

    /// How far a point outside every region looks for one: 1.5 km. A harbour, a beach or a coastal town that the
    /// simplified 1:10m coastline puts in the sea gets its country (1.7 % of GeoNames places are such points; see
    /// docs/GEOGRAPHY.md), and a point in a sliver that polygon simplification left between two zones gets a
    /// neighbour's zone instead of a nautical one. Points farther out stay at sea.
    static let coastalSnapMeters = 1500.0

    /// Unit (north, east) steps of the eight probes.
    static let snapDirections: [(Double, Double)] = {
        let d = 0.5.squareRoot()
        return [(1, 0), (d, d), (0, 1), (-d, d), (-1, 0), (-d, -d), (0, -1), (d, -d)]
    }()

    /// The region at a point, else the first region found at `coastalSnapMeters` in one of eight directions
    /// (N, NE, E, SE, S, SW, W, NW, in that order); 0 if none or for invalid input.
    static func nearbyRegion(_ index: RegionIndex, latitude: Double, longitude: Double) -> Int {
        let hit = index.lookup(latitude: latitude, longitude: longitude)
        guard hit.region == 0, latitude >= -90, latitude <= 90, longitude >= -180, longitude <= 180 else {
            return hit.region
        }
        let dLat = coastalSnapMeters / 111_195.0
        let dLon = dLat / max(cos(latitude * .pi / 180), 0.01)
        for (n, e) in snapDirections {
            let la = latitude + n * dLat
            guard la >= -90, la <= 90 else { continue }
            var lo = longitude + e * dLon
            if lo > 180 { lo -= 360 } else if lo < -180 { lo += 360 }
            if hit.covers(latitude: la, longitude: lo) { continue }  // same all-sea cell: nothing there
            let found = index.region(latitude: la, longitude: lo)
            if found > 0 { return found }
        }
        return 0
    }

    /// Nearest populated place (GeoNames, ≥ 1000 people); nil for invalid input, or when no place has
    /// `minimumPopulation` (none has more than ~25 million).
    ///
    /// GeoNames lists many city districts as places of their own ("Zürich (Kreis 1) / Lindenhof"); pass
    /// `minimumPopulation` (e.g. 50,000) to get the nearest town of at least that size instead (slower the larger it
    /// is: fewer places qualify, so the search looks farther; see docs/PERFORMANCE.md).
    public static func nearestPlace(latitude: Double, longitude: Double, minimumPopulation: Int = 0) -> Place? {
        guard let (i, chord2) = places.nearest(latitude: latitude, longitude: longitude,
                                               minimumPopulation: minimumPopulation)
        else { return nil }
        let chord = Double(chord2).squareRoot()
        let region = places.region(i)
        let (lat, lon) = places.coordinate(i)
        // Chord → angle; the Float32 positions are good to ~1 m, so clamp rounding above 2.
        let angle = 2 * asin(min(1, chord / 2))
        return Place(
            name: places.name(i), countryCode: region.country, admin1: region.admin.isEmpty ? nil : region.admin,
            population: places.population(i), location: GeoPoint(latitude: lat, longitude: lon),
            distanceMeters: angle * 6_371_008.8)
    }

    /// Base-layer shapes that meet a box, clipped to it.
    public static func baseLayer(_ kind: BaseLayerKind, detail: BaseDetail, in box: GeoBox) -> [BaseShape] {
        guard box.minLatitude <= box.maxLatitude, box.minLatitude.isFinite, box.maxLatitude.isFinite,
            box.minLongitude.isFinite, box.maxLongitude.isFinite
        else { return [] }
        return base.shapes(layer: kind.rawValue, level: detail.rawValue, box: box,
                           countryCodes: countries.columns.first ?? [])
    }
}
