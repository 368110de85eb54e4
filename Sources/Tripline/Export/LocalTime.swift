import Foundation

/// A time zone's UTC offsets as a table of transitions, built once with Foundation's `TimeZone` and then looked
/// up without Foundation: a binary search, with the last interval cached because exports read times in order.
public struct ZoneOffsets: Sendable {
    /// The IANA name, such as `Europe/Berlin`.
    public let identifier: String
    /// UTC milliseconds at which `offsets[i]` starts to apply; `starts[0]` is `Int64.min`.
    let starts: [Int64]
    /// Seconds east of UTC.
    let offsets: [Int32]

    /// The table for `identifier` from 1900 to 2100, or nil when the system does not know the zone.
    /// - Complexity: O(transitions) Foundation calls, once.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.identifier = identifier
        var starts: [Int64] = [Int64.min]
        var offsets: [Int32] = []
        var date = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01
        let end = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        offsets.append(Int32(zone.secondsFromGMT(for: date)))
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next < end {
            let offset = Int32(zone.secondsFromGMT(for: next))
            let ms = Int64((next.timeIntervalSince1970 * 1000).rounded())
            if offset != offsets[offsets.count - 1] {
                starts.append(ms)
                offsets.append(offset)
            }
            date = next
        }
        self.starts = starts
        self.offsets = offsets
    }

    /// The offset in effect at `ms`.
    /// - Complexity: O(log transitions).
    public func offset(atMs ms: Int64) -> Int32 {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= ms { low = mid } else { high = mid - 1 }
        }
        return offsets[low]
    }

    /// The index of the interval holding `ms` (for ``LocalTime``'s cache).
    func interval(atMs ms: Int64) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= ms { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

/// How Tripline decides a record's local time: the record's own offset where the source gave one, else the zone
/// chosen at rebuild (`settings.timezone`), else UTC.
public struct LocalTime {
    /// The fallback zone, when `settings.timezone` names one the system knows.
    public let zone: ZoneOffsets?
    private var cacheStart = Int64.max
    private var cacheEnd = Int64.min
    private var cacheOffset: Int32 = 0

    public init(zone: ZoneOffsets?) { self.zone = zone }

    /// Reads `settings.timezone` from the store (unknown names fall back to UTC).
    public init(store: Store) throws {
        let name = try store.db.scalarText("SELECT value FROM settings WHERE key = 'timezone'")
        self.init(zone: name.flatMap { ZoneOffsets(identifier: $0) })
    }

    /// The offset to show `ms` with: `recorded` when known, else the zone's, else nil (UTC, written `Z`).
    @inline(__always)
    public mutating func offset(_ recorded: Int32?, atMs ms: Int64) -> Int32? {
        if let recorded { return recorded }
        guard let zone else { return nil }
        if ms >= cacheStart && ms < cacheEnd { return cacheOffset }
        let index = zone.interval(atMs: ms)
        cacheStart = zone.starts[index]
        cacheEnd = index + 1 < zone.starts.count ? zone.starts[index + 1] : Int64.max
        cacheOffset = zone.offsets[index]
        return cacheOffset
    }

    /// The local day (days since 1970-01-01) of `ms` shown at `offset` (nil = UTC).
    @inline(__always)
    public static func day(ms: Int64, offset: Int32?) -> Int {
        Int(CivilTime.floorDiv(CivilTime.floorDiv(ms, 1000) + Int64(offset ?? 0), 86_400))
    }
}
