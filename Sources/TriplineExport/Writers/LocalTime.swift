import TriplineCore
import TriplineGeography
import TriplineStore

/// How Tripline decides a record's local time: the record's own offset where the source gave one, else the zone
/// chosen at rebuild (`settings.timezone`), else the zone of where the point was (``LocalZones``), as the rebuild does.
public struct LocalTime {
    /// The fallback zone, when `settings.timezone` names one the system knows.
    public let zone: TimeZoneTable?
    /// Zones by position, for points when no zone was chosen.
    let zones = LocalZones()
    private var cacheStart = Int64.max
    private var cacheEnd = Int64.min
    private var cacheOffset = UTCOffset.utc

    public init(zone: TimeZoneTable?) { self.zone = zone }

    /// Reads `settings.timezone` from the store (unknown names fall back to UTC).
    public init(store: Store) throws {
        let name = try store.setting("timezone")
        self.init(zone: name.flatMap { TimeZoneTable.named($0) })
    }

    /// The offset to show `ms` with: `recorded` when known, else the zone's, else nil (UTC, written `Z`).
    @inline(__always)
    public mutating func offset(_ recorded: UTCOffset?, atMs ms: Int64) -> UTCOffset? {
        if let recorded { return recorded }
        guard let zone else { return nil }
        if ms >= cacheStart && ms < cacheEnd { return cacheOffset }
        let index = zone.interval(at: ms)
        cacheStart = zone.starts[index]
        cacheEnd = index + 1 < zone.starts.count ? zone.starts[index + 1] : Int64.max
        cacheOffset = UTCOffset(seconds: zone.offsets[index])
        return cacheOffset
    }

    /// The offset to show a point taken at this position at `ms`: `recorded` when known, else the chosen zone's, else
    /// that of the zone where it was taken.
    @inline(__always)
    public mutating func offset(_ recorded: UTCOffset?, atMs ms: Int64, latitude: Double, longitude: Double) -> UTCOffset {
        if let recorded { return recorded }
        if zone != nil { return offset(nil, atMs: ms)! }
        return UTCOffset(seconds: zones.offset(atMs: ms, latitude: latitude, longitude: longitude))
    }

    /// The local day (days since 1970-01-01) of `ms` shown at `offset` (nil = UTC).
    @inline(__always)
    public static func day(ms: Int64, offset: UTCOffset?) -> Int {
        (offset ?? .utc).localDay(ms: ms)
    }
}
