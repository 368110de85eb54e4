/// A local time's offset from UTC, in whole seconds east of UTC (`+01:00` is 3600, `-07:00` is -25200).
///
/// The one type for an offset outside SQL binding and reading (the `*_utc_offset_s` columns hold ``seconds``) and
/// the hot columnar arrays of the rebuild and the point exports (`DeviceWork.offset`, a point reader's column), which
/// keep the raw `Int32` for speed and wrap it at the edge. A missing offset is `nil` (`UTCOffset?`), written `Z`.
/// It is a plain value: constructing one checks nothing (a stored row may hold anything); ``isValid`` says whether
/// it is within ``limit``, as the importers require.
public struct UTCOffset: Hashable, Sendable, Comparable {
    /// Seconds east of UTC.
    public var seconds: Int32

    @inlinable @inline(__always)
    public init(seconds: Int32) { self.seconds = seconds }

    /// An offset read from an integer column, clamped to `Int32`: a value no offset can have (a hand-edited file)
    /// stays one that ``isValid`` rejects instead of wrapping round to a plausible one.
    @inlinable @inline(__always)
    public init(stored value: Int64) { self.seconds = Int32(clamping: value) }

    /// `seconds` when within ±``limit``, else nil.
    @inlinable
    public init?(validating seconds: Int64) {
        guard seconds.magnitude <= UInt64(Self.limit.seconds) else { return nil }
        self.seconds = Int32(seconds)
    }

    /// UTC itself (`+00:00`).
    public static let utc = UTCOffset(seconds: 0)

    /// The widest offset any record may carry: ±18 h (ISO 8601's and the importers' bound; real zones span
    /// -12:00…+14:00).
    public static let limit = UTCOffset(seconds: 18 * 3600)

    /// Within ±``limit``.
    @inlinable
    public var isValid: Bool { seconds.magnitude <= UInt32(Self.limit.seconds) }

    /// The offset as a whole number of seconds, for arithmetic on `Int64` times.
    @inlinable @inline(__always)
    public var seconds64: Int64 { Int64(seconds) }

    public static func < (a: UTCOffset, b: UTCOffset) -> Bool { a.seconds < b.seconds }

    // MARK: Local time

    /// Seconds since 1970-01-01T00:00 local time of UTC milliseconds `ms` (rounded down to the second).
    @inlinable @inline(__always)
    public func localSeconds(ms: Int64) -> Int64 { CivilTime.floorDiv(ms, 1000) + Int64(seconds) }

    /// The local day number (days since 1970-01-01) of UTC milliseconds `ms` at this offset.
    @inlinable @inline(__always)
    public func localDay(ms: Int64) -> Int { Int(CivilTime.floorDiv(localSeconds(ms: ms), 86_400)) }

    /// The share of `startMs ..< endMs` on each local day (days since 1970-01-01) when the local clock moves evenly
    /// from `start`'s offset to `end`'s: forward faster flying west, slower or backward flying east over the date line.
    /// A flight from Auckland at 20:24 +13:00 landing in Honolulu at 06:04 −10:00 the same date is all on that date;
    /// at Auckland's clock alone, 6.1 of its 9.7 hours fell on the next, a day the traveller never had. The shares add
    /// up to 1; with one offset they are the day's share of the time, midnights at that offset.
    public static func dayShares(startMs: Int64, endMs: Int64, start: UTCOffset, end: UTCOffset) -> [(day: Int, share: Double)] {
        let from = Double(startMs) + Double(start.seconds) * 1000, to = Double(max(startMs, endMs)) + Double(end.seconds) * 1000
        let low = min(from, to), high = max(from, to), span = high - low
        let firstDay = Int((low / 86_400_000).rounded(.down))
        guard span > 0 else { return [(firstDay, 1)] }
        let lastDay = max(firstDay, Int(((high - 1) / 86_400_000).rounded(.down)))
        var out: [(day: Int, share: Double)] = []
        for day in firstDay...lastDay {
            let share = (min(high, Double(day + 1) * 86_400_000) - max(low, Double(day) * 86_400_000)) / span
            if share > 0 { out.append((day, share)) }
        }
        return out
    }

    /// The local civil date (`YYYY-MM-DD`) of UTC milliseconds `ms` at this offset.
    public func localDate(ms: Int64) -> String { CivilTime.date(day: localDay(ms: ms)) }

    // MARK: Text

    /// The ISO 8601 suffix `±HH:MM` (`+01:00`, `-07:00`, `+00:00` for UTC itself); seconds beyond whole minutes
    /// are dropped (`±HH:MM` cannot say them).
    public var isoSuffix: String {
        let magnitude = Int(seconds.magnitude)
        return (seconds < 0 ? "-" : "+") + CivilTime.pad(magnitude / 3600, 2) + ":" + CivilTime.pad(magnitude / 60 % 60, 2)
    }

    /// ``isoSuffix``, or `Z` when there is no offset.
    public static func isoSuffix(_ offset: UTCOffset?) -> String { offset?.isoSuffix ?? "Z" }
}

extension UTCOffset: ExpressibleByIntegerLiteral {
    /// A literal number of seconds east of UTC (`let paris: UTCOffset = 3600`).
    public init(integerLiteral seconds: Int32) { self.seconds = seconds }
}

extension UTCOffset: CustomStringConvertible {
    /// ``isoSuffix``.
    public var description: String { isoSuffix }
}
