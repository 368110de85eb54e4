/// Calendar arithmetic on the proleptic Gregorian calendar, without Foundation (Howard Hinnant's algorithms).
///
/// Times in Tripline are `Int64` milliseconds since 1970-01-01T00:00:00Z; offsets are a ``UTCOffset`` (seconds east of UTC).
public enum CivilTime {
    /// Days since 1970-01-01 of the civil date `year-month-day`.
    /// - Complexity: O(1).
    @inline(__always)
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of `days` since 1970-01-01.
    @inline(__always)
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// Floor division, for negative times.
    @inlinable @inline(__always)
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The local civil date (`YYYY-MM-DD`) of `ms` at `offset` (``UTCOffset/localDate(ms:)``).
    public static func localDate(ms: Int64, offset: UTCOffset) -> String { offset.localDate(ms: ms) }

    /// The civil date (`YYYY-MM-DD`) of day number `day` (days since 1970-01-01).
    public static func date(day: Int) -> String {
        let (y, m, d) = civilFromDays(day)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// ISO 8601 / RFC 3339 text for `ms`: `2024-03-01T18:40:11Z` in UTC (offset nil), or
    /// `2024-03-01T19:40:11+01:00` at the given offset. Milliseconds are written only when not zero
    /// (or always, with `alwaysMilliseconds`).
    public static func iso8601(ms: Int64, offset: UTCOffset? = nil, alwaysMilliseconds: Bool = false) -> String {
        let localMs = ms + (offset?.seconds64 ?? 0) * 1000
        let seconds = floorDiv(localMs, 1000)
        let millis = Int(localMs - seconds * 1000)
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (y, m, d) = civilFromDays(Int(days))
        var text = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if millis != 0 || alwaysMilliseconds { text += "." + pad(millis, 3) }
        return text + UTCOffset.isoSuffix(offset)
    }

    /// Parses `YYYY-MM-DD` into days since 1970-01-01, or nil when it is not a valid date.
    public static func parseDate(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, d <= daysInMonth(year: y, month: m)
        else { return nil }
        return daysFromCivil(year: y, month: m, day: d)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inline(__always)
    package static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// The local day number (days since 1970-01-01) of UTC milliseconds `ms` at `offset`.
    public static func localDay(ms: Int64, offset: UTCOffset) -> Int { offset.localDay(ms: ms) }
}
