import Foundation

/// A table of UTC-offset transitions for one time zone, searched per point without Foundation.
///
/// Built once at the edge (from Foundation's `TimeZone`, or from a fixed rule such as the EU's); looking up the
/// offset of a time is a binary search.
public struct TimeZoneTable: Sendable, Equatable {
    /// The zone's identifier (`Europe/Berlin`), or a rule name.
    public let identifier: String
    /// Transition instants (UTC ms), ascending; `offsets[i]` applies from `starts[i]` (and `offsets[0]` before it).
    public let starts: [Int64]
    public let offsets: [Int32]

    public init(identifier: String, starts: [Int64], offsets: [Int32]) {
        self.identifier = identifier
        self.starts = starts
        self.offsets = offsets
    }

    /// A fixed offset (UTC when 0).
    public static func fixed(_ offsetSeconds: Int32, identifier: String = "UTC") -> TimeZoneTable {
        TimeZoneTable(identifier: identifier, starts: [Int64.min], offsets: [offsetSeconds])
    }

    /// Central European time with the EU summer-time rule (last Sunday of March to last Sunday of October, at 01:00 UTC):
    /// what Europe/Berlin has followed since 1996. Used by the simulator, so it needs no tz database.
    public static func centralEuropean(years: ClosedRange<Int>) -> TimeZoneTable {
        var starts: [Int64] = [Int64.min]
        var offsets: [Int32] = [3600]
        func lastSunday(_ year: Int, _ month: Int) -> Int {
            let last = CivilTime.daysFromCivil(year: year, month: month, day: CivilTime.daysInMonth(year: year, month: month))
            let weekday = ((last % 7) + 11) % 7  // 0 = Sunday (1970-01-01 was a Thursday)
            return last - weekday
        }
        for year in years {
            starts.append(Int64(lastSunday(year, 3)) * 86_400_000 + 3_600_000)
            offsets.append(7200)
            starts.append(Int64(lastSunday(year, 10)) * 86_400_000 + 3_600_000)
            offsets.append(3600)
        }
        return TimeZoneTable(identifier: "CET/CEST (EU rule)", starts: starts, offsets: offsets)
    }

    /// The table of an IANA zone (`Europe/Berlin`) between two years, from Foundation's time-zone database.
    /// - Returns: nil when the identifier is unknown.
    /// The default range, 1900–2099, covers every time an archive can hold; the rebuild (local days) and the exports
    /// (local times) use the same table, so they always agree.
    public static func named(_ identifier: String, years: ClosedRange<Int> = 1900...2099) -> TimeZoneTable? {
        if identifier == "UTC" || identifier == "Z" { return .fixed(0) }
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        let startDays = CivilTime.daysFromCivil(year: years.lowerBound, month: 1, day: 1)
        let endDays = CivilTime.daysFromCivil(year: years.upperBound + 1, month: 1, day: 1)
        var date = Date(timeIntervalSince1970: Double(startDays) * 86_400)
        let end = Date(timeIntervalSince1970: Double(endDays) * 86_400)
        var starts: [Int64] = [Int64.min]
        var offsets: [Int32] = [Int32(zone.secondsFromGMT(for: date))]
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next < end {
            let ms = Int64((next.timeIntervalSince1970 * 1000).rounded())
            let offset = Int32(zone.secondsFromGMT(for: next))
            if offset != offsets.last! {
                starts.append(ms)
                offsets.append(offset)
            }
            date = next
        }
        return TimeZoneTable(identifier: identifier, starts: starts, offsets: offsets)
    }

    /// The offset in seconds east of UTC at `ms`.
    /// - Complexity: O(log transitions).
    @inline(__always)
    public func offset(at ms: Int64) -> Int32 {
        offsets[interval(at: ms)]
    }

    /// The index of the interval holding `ms`: `offsets[i]` applies from `starts[i]` until `starts[i + 1]`.
    /// - Complexity: O(log transitions).
    @inline(__always)
    public func interval(at ms: Int64) -> Int {
        var lo = 0
        var hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if starts[mid] <= ms { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}
