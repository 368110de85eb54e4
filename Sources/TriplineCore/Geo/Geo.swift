#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Geodesy on the WGS 84 sphere approximation used throughout the passes.
public enum Geo {
    /// Mean Earth radius in metres (IUGG).
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres between two points given in degrees (haversine).
    /// - Complexity: O(1); a handful of trigonometric calls.
    @inlinable @inline(__always)
    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRad = Double.pi / 180
        let dLat = (lat2 - lat1) * toRad
        let dLon = (lon2 - lon1) * toRad
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let a = s1 * s1 + cos(lat1 * toRad) * cos(lat2 * toRad) * s2 * s2
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }

    /// Initial bearing in degrees (0 = north, clockwise) from the first point to the second.
    public static func bearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRad = Double.pi / 180
        let y = sin((lon2 - lon1) * toRad) * cos(lat2 * toRad)
        let x = cos(lat1 * toRad) * sin(lat2 * toRad) - sin(lat1 * toRad) * cos(lat2 * toRad) * cos((lon2 - lon1) * toRad)
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The point `distance` metres from (lat, lon) along `bearing` degrees.
    public static func destination(_ lat: Double, _ lon: Double, bearing: Double, distance: Double) -> (lat: Double, lon: Double) {
        let toRad = Double.pi / 180
        let d = distance / earthRadius
        let b = bearing * toRad
        let lat1 = lat * toRad
        let lon1 = lon * toRad
        let lat2 = asin(sin(lat1) * cos(d) + cos(lat1) * sin(d) * cos(b))
        let lon2 = lon1 + atan2(sin(b) * sin(d) * cos(lat1), cos(d) - sin(lat1) * sin(lat2))
        var lonDeg = lon2 / toRad
        if lonDeg > 180 { lonDeg -= 360 } else if lonDeg < -180 { lonDeg += 360 }
        return (lat2 / toRad, lonDeg)
    }

    /// `lon` moved by a whole turn (±360°) when it lies more than 180° from `reference`, so that the difference of the
    /// two is the shorter way round: a fix at −179.9999° beside one at 179.9999° is 0.0002° east of it, not 359.9998°
    /// west (a stay on Taveuni or in Chukotka, which the 180th meridian crosses). Unchanged, bit for bit, otherwise.
    @inlinable @inline(__always)
    public static func unwrappedLongitude(_ lon: Double, near reference: Double) -> Double {
        let d = lon - reference
        return d > 180 ? lon - 360 : (d < -180 ? lon + 360 : lon)
    }

    /// A longitude brought back within ±180° (a mean of unwrapped longitudes may lie beyond); unchanged within.
    @inlinable @inline(__always)
    public static func normalizedLongitude(_ lon: Double) -> Double {
        lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon)
    }

    /// The weighted mean of two longitudes the shorter way round (within ±180°); as `(a·wa + b·wb) / (wa + wb)`, bit
    /// for bit, when they are less than 180° apart.
    @inlinable @inline(__always)
    public static func meanLongitude(_ a: Double, _ wa: Double, _ b: Double, _ wb: Double) -> Double {
        normalizedLongitude((a * wa + unwrappedLongitude(b, near: a) * wb) / (wa + wb))
    }

    /// The cosine of a latitude given in degrees: how much shorter a degree of longitude is there than a degree of
    /// latitude (the `cosLat` of ``fastDistance(_:_:_:_:cosLat:)``, the x scale of a local flat map).
    @inlinable @inline(__always)
    public static func cosLatitude(_ degrees: Double) -> Double { cos(degrees * Double.pi / 180) }

    /// The compass bearing in degrees (0 = north, clockwise, in [0, 360)) of a displacement on a local flat map,
    /// `east` and `north` in the same unit.
    public static func planarBearing(east: Double, north: Double) -> Double {
        let degrees = atan2(east, north) * 180 / Double.pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// Metres per degree of latitude on the sphere.
    public static let metresPerDegree = earthRadius * Double.pi / 180

    /// Distance in metres by the equirectangular approximation, with `cosLat` the cosine of a reference latitude
    /// near both points. Within 0.1 % of haversine for points a few kilometres apart; falls back to haversine when the
    /// points are more than ~0.05° apart in latitude or longitude.
    /// - Complexity: O(1), no trigonometry in the common case.
    @inlinable @inline(__always)
    public static func fastDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, cosLat: Double) -> Double {
        let dLat = lat2 - lat1
        let dLon = lon2 - lon1
        if abs(dLat) > 0.05 || abs(dLon) > 0.05 { return distance(lat1, lon1, lat2, lon2) }
        let y = dLat * metresPerDegree
        let x = dLon * metresPerDegree * cosLat
        return (x * x + y * y).squareRoot()
    }
}

