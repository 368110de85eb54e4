import TriplineCore

/// The UTC offset of a fix that carries none (OwnTracks, most GPX), from where it was taken: the IANA zone of its
/// position in the embedded boundary table (``Geography/zoneID(latitude:longitude:)``), or one zone for every fix
/// when the user names it (`rebuild --timezone`). A trip from Berlin to New York so gets Berlin's offset at its start
/// and New York's at its end, with no flag.
///
/// One resolver serves one thread (a device's rebuild, an export). Positions are looked up again only when a fix is
/// more than ~200 m from the last one looked up, so a device's points cost about one lookup per move, and each zone's
/// transition table is built once (with Foundation, at the edge) and then binary-searched.
public final class LocalZones {
    /// The zone every fix takes, when the user chose one; nil to look each fix's zone up by its position.
    public let override: TimeZoneTable?
    /// The name of ``override`` (`Europe/Berlin`), or nil.
    public let overrideName: String?

    private var tables: [Int32: TimeZoneTable] = [:]
    private var lastLat = Double.nan
    private var lastLon = Double.nan
    private var lastTable = TimeZoneTable.fixed(0)

    /// Reuse the last lookup while a fix is within this many degrees of it (~200 m of latitude).
    static let reuseDegrees = 0.002

    /// A resolver that looks zones up by position.
    public init() {
        override = nil
        overrideName = nil
    }

    /// A resolver that gives every fix the zone named `name` (an IANA name, or `UTC`); nil when the system does not
    /// know the name.
    public init?(overrideName name: String) {
        guard let table = TimeZoneTable.named(name) else { return nil }
        override = table
        overrideName = name
    }

    /// The zone of a fix at this position (its override, else its zone by position; UTC for an invalid position).
    public func table(latitude: Double, longitude: Double) -> TimeZoneTable {
        if let override { return override }
        if abs(latitude - lastLat) < Self.reuseDegrees && abs(longitude - lastLon) < Self.reuseDegrees { return lastTable }
        lastLat = latitude
        lastLon = longitude
        guard let id = Geography.zoneID(latitude: latitude, longitude: longitude) else {
            lastTable = .fixed(0)
            return lastTable
        }
        if let known = tables[id.raw] {
            lastTable = known
        } else {
            let table = TimeZoneTable.named(Geography.zoneName(id)) ?? .fixed(0)
            tables[id.raw] = table
            lastTable = table
        }
        return lastTable
    }

    /// The offset east of UTC, in seconds, of a fix at `ms` taken at this position.
    @inline(__always)
    public func offset(atMs ms: Int64, latitude: Double, longitude: Double) -> Int32 {
        table(latitude: latitude, longitude: longitude).offset(at: ms)
    }

    /// The name of the zone of a position (the override's when set), for messages and `info`.
    public func zoneName(latitude: Double, longitude: Double) -> String {
        if let overrideName { return overrideName }
        return Geography.zone(latitude: latitude, longitude: longitude) ?? "UTC"
    }
}
