import TriplineCore

/// A parsed timestamp: UTC milliseconds and, when the text carried a numeric offset, that offset.
public struct ParsedTime: Sendable, Equatable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var ms: Int64
    /// Seconds east of UTC when the text had a numeric offset (`-0700`, `+07:00`, `+00:00`); nil for `Z`
    /// (the writer gave UTC, not the local time) or when there was no zone at all (read as UTC).
    public var offsetSeconds: Int32?

    public init(ms: Int64, offsetSeconds: Int32?) {
        self.ms = ms
        self.offsetSeconds = offsetSeconds
    }
}

/// Fast, Foundation-free timestamp parsing for the forms location apps write.
public enum Timestamp {
    /// Parses ISO 8601 / RFC 3339 date-times: `2015-10-01T08:00:00-0700`, `2024-07-07T17:46:39Z`,
    /// `2025-06-16T22:00:09.154Z`, `2024-12-18T08:44:09+07:00`, `+07`, a space instead of `T` and one before the zone
    /// (`2025-03-24 20:25:02 +0100`), any number of
    /// fractional digits (truncated to milliseconds), no zone (read as UTC). Leading/trailing spaces are allowed.
    ///
    /// Returns nil for anything else, including impossible dates (`2023-02-30`), hours above 23, minutes
    /// above 59, seconds above 60 and offsets beyond ±18 hours. A leap second `:60` is read as the minute's last millisecond (`:59.999`).
    /// - Complexity: O(n), no allocation.
    // Long by design: one left-to-right scan of the fields over one cursor (the fixed-position fast form and the
    // general one share the range checks, the fraction and the zone); it runs once for every point imported.
    public static func parseISO8601(_ p: UnsafePointer<UInt8>, _ count: Int) -> ParsedTime? {
        var i = 0
        var n = count
        while i < n, p[i] == 0x20 { i += 1 }
        while n > i, p[n - 1] == 0x20 || p[n - 1] == 0x0A || p[n - 1] == 0x0D { n -= 1 }
        @inline(__always) func digits(_ k: Int) -> Int? {
            guard i + k <= n else { return nil }
            var v = 0
            for j in 0..<k {
                let d = p[i + j] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += k
            return v
        }
        @inline(__always) func expect(_ c: UInt8) -> Bool {
            guard i < n, p[i] == c else { return false }
            i += 1
            return true
        }
        let year: Int, month: Int, day: Int, hour: Int, minute: Int
        var second = 0
        var hasSeconds = false
        if i == 0, n >= 19, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), p[10] == UInt8(ascii: "T"),
           p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":") {
            // The form every app writes, `YYYY-MM-DDTHH:MM:SS`, read at fixed positions (no loop, no closure call); the
            // checks below and the fraction and zone are shared with the general form.
            @inline(__always) func d(_ k: Int) -> Int { Int(p[k] &- UInt8(ascii: "0")) }
            @inline(__always) func two(_ k: Int) -> Bool { p[k] &- UInt8(ascii: "0") < 10 && p[k + 1] &- UInt8(ascii: "0") < 10 }
            guard two(0), two(2), two(5), two(8), two(11), two(14), two(17) else { return nil }
            year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3)
            month = d(5) * 10 + d(6)
            day = d(8) * 10 + d(9)
            hour = d(11) * 10 + d(12)
            minute = d(14) * 10 + d(15)
            second = d(17) * 10 + d(18)
            hasSeconds = true
            i = 19
        } else {
            guard let y = digits(4), expect(UInt8(ascii: "-")), let mo = digits(2), expect(UInt8(ascii: "-")),
                let dd = digits(2)
            else { return nil }
            year = y
            month = mo
            day = dd
            guard (1...12).contains(month), day >= 1, day <= CivilTime.daysInMonth(year: year, month: month) else { return nil }
            guard i < n, p[i] == UInt8(ascii: "T") || p[i] == UInt8(ascii: "t") || p[i] == 0x20 else { return nil }
            i += 1
            guard let h = digits(2), expect(UInt8(ascii: ":")), let mi = digits(2) else { return nil }
            hour = h
            minute = mi
            if i < n, p[i] == UInt8(ascii: ":") {
                i += 1
                guard let s = digits(2) else { return nil }
                second = s
                hasSeconds = true
            }
        }
        guard (1...12).contains(month), day >= 1, day <= CivilTime.daysInMonth(year: year, month: month) else { return nil }
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }
        var millis = 0
        if i < n, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",") {
            // Only a fraction of a second: in ISO 8601 `04:09,2` is a fraction of the minute, which no location
            // app writes; refused rather than misread as 04:09:00.2. (Found by fuzzing.)
            guard hasSeconds else { return nil }
            i += 1
            let fraction = fractionMillis(p, &i, n)
            guard fraction.digits > 0 else { return nil }
            millis = Int(fraction.ms)
        }
        if second == 60 {
            // A leap second (`23:59:60`, as GPS receivers write it at the end of 2016) is the last instant of its
            // minute, not the next minute's first: the fix written at `00:00:00` one second later stays its own point.
            second = 59
            millis = 999
        }
        var offset: Int32? = nil
        if i + 1 < n, p[i] == 0x20, p[i + 1] == UInt8(ascii: "+") || p[i + 1] == UInt8(ascii: "-") || p[i + 1] == UInt8(ascii: "Z") {
            // One space before the zone, `2025-03-24 20:25:02 +0100`, as some Google data writes it.
            i += 1
        }
        if i < n {
            let c = p[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = digits(2) else { return nil }
                var om = 0
                if i < n {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                // At most ±18:00 (`-18:07` is beyond it; found by fuzzing).
                guard oh < 18 && om <= 59 || oh == 18 && om == 0 else { return nil }
                let magnitude = Int32(oh * 3600 + om * 60)
                offset = c == UInt8(ascii: "-") ? -magnitude : magnitude
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let days = Int64(CivilTime.daysFromCivil(year: year, month: month, day: day))
        let local = ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60 + Int64(second)
        let utc = local - Int64(offset ?? 0)
        return ParsedTime(ms: utc * 1000 + Int64(millis), offsetSeconds: offset)
    }

    /// The digits of a fraction of a second from `p[i]` on (after the `.`), up to the first other byte or `n`, as
    /// milliseconds: the first three digits count, the others are read and dropped (truncated, never rounded).
    @inline(__always)
    static func fractionMillis(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ n: Int) -> (ms: Int64, digits: Int) {
        var ms: Int64 = 0
        var k = 0
        while i < n, p[i] &- UInt8(ascii: "0") < 10 {
            if k < 3 { ms = ms * 10 + Int64(p[i] &- UInt8(ascii: "0")) }
            k += 1
            i += 1
        }
        if k == 1 { ms *= 100 } else if k == 2 { ms *= 10 }
        return (ms, k)
    }

    /// ``parseISO8601(_:_:)`` on a Swift string (tests and tools).
    public static func parseISO8601(_ text: String) -> ParsedTime? {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return parseISO8601(base, buffer.count)
        }
    }

    /// Epoch seconds written as digits (OwnTracks `tst`, as a number or a string such as `"1440363922"`), with
    /// an optional fraction and an optional exponent (`1.440363922E9`, as Java's `Double.toString` writes a number
    /// of seconds). Values of 10^11 and above are read as milliseconds (no app writes seconds that large before the
    /// year 5138). Digits past the millisecond are dropped, not rounded. Returns nil for anything else, including
    /// negative values.
    public static func parseEpoch(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int64? {
        var i = 0
        var n = count
        while i < n, p[i] == 0x20 { i += 1 }
        while n > i, p[n - 1] == 0x20 { n -= 1 }
        guard i < n, n - i <= 28 else { return nil }
        // The digits as one integer `mantissa` × 10^`scale`: whole digits (at most 17), then fraction digits while
        // the integer stays below 10^17 (later ones cannot reach a millisecond).
        var mantissa: Int64 = 0
        var scale = 0
        var wholeDigits = 0
        while i < n, p[i] &- UInt8(ascii: "0") < 10 {
            guard wholeDigits < 17 else { return nil }
            mantissa = mantissa * 10 + Int64(p[i] &- UInt8(ascii: "0"))
            wholeDigits += 1
            i += 1
        }
        guard wholeDigits > 0 else { return nil }
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, p[i] &- UInt8(ascii: "0") < 10 {
                if mantissa < 10_000_000_000_000_000 {
                    mantissa = mantissa * 10 + Int64(p[i] &- UInt8(ascii: "0"))
                    scale -= 1
                }
                i += 1
            }
        }
        if i < n, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var negative = false
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
                negative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            var exponent = 0
            var exponentDigits = 0
            while i < n, p[i] &- UInt8(ascii: "0") < 10, exponentDigits < 3 {
                exponent = exponent * 10 + Int(p[i] &- UInt8(ascii: "0"))
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return nil }
            scale += negative ? -exponent : exponent
        }
        guard i == n, let whole = timesPowerOfTen(mantissa, scale) else { return nil }
        if whole >= 100_000_000_000 { return whole }
        return timesPowerOfTen(mantissa, scale + 3)
    }

    /// `value` × 10^`exponent`, dropping what falls below 1; nil when it does not fit in 64 bits.
    static func timesPowerOfTen(_ value: Int64, _ exponent: Int) -> Int64? {
        var result = value
        if exponent < 0 {
            for _ in 0..<min(-exponent, 19) { result /= 10 }
            return exponent < -19 ? 0 : result
        }
        for _ in 0..<exponent {
            let (product, overflow) = result.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            result = product
            if result == 0 { break }
        }
        return result
    }

    public static func parseEpoch(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return parseEpoch(base, buffer.count)
        }
    }

    /// 2000-01-01T00:00:00Z: earlier times are rejected as implausible for a phone location log.
    public static let earliestMs: Int64 = 946_684_800_000
}
