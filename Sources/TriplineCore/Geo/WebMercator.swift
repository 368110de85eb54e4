#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The spherical Web Mercator projection (EPSG:3857) in "world units": the whole world is the unit square,
/// x from 0 (180° W) to 1 (180° E), y from 0 (85.05° N) to 1 (85.05° S), so y grows southwards like screen
/// coordinates. Multiply by `256 × 2^zoom` for the pixels of a slippy-map zoom level.
///
/// North is up and angles are preserved locally; the scale grows with latitude as `1 / cos(lat)`, which
/// ``metresPerWorldUnit(atLatitude:)`` gives for scale bars.
public enum WebMercator {
    /// The latitude at which the projection is cut off, making the world square.
    public static let maxLatitude = 85.051_128_779_806_59

    /// The world x (0…1) of a longitude in degrees.
    @inline(__always)
    public static func x(longitude: Double) -> Double {
        (longitude + 180) / 360
    }

    /// The world y (0 at the top, 1 at the bottom) of a latitude in degrees, clamped to ±``maxLatitude``.
    @inline(__always)
    public static func y(latitude: Double) -> Double {
        let clamped = min(max(latitude, -maxLatitude), maxLatitude)
        let phi = clamped * .pi / 180
        return 0.5 - log(tan(.pi / 4 + phi / 2)) / (2 * .pi)
    }

    /// The latitude in degrees of a world y.
    public static func latitude(y: Double) -> Double {
        atan(sinh(.pi * (1 - 2 * y))) * 180 / .pi
    }

    /// The longitude in degrees of a world x.
    public static func longitude(x: Double) -> Double {
        x * 360 - 180
    }

    /// Ground metres covered by one world unit at `latitude` (the equator's circumference times cos(lat)),
    /// on the same sphere as ``Geo/distance(_:_:_:_:)``.
    public static func metresPerWorldUnit(atLatitude latitude: Double) -> Double {
        2 * .pi * Geo.earthRadius * cos(latitude * .pi / 180)
    }
}
