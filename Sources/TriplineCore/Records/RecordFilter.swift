/// Which records a command covers: one device or all, and a range of local days. `rebuild`, `export`, `report`
/// and `map` all take one, parsed from `--device`, `--from` and `--to` by ``parse(device:from:to:)``.
public struct RecordFilter: Sendable, Equatable {
    /// Only this device, by its name (as `tripline info` shows it); nil for all devices.
    public var device: String?
    /// First local day, inclusive, as days since 1970-01-01; nil for no bound.
    public var fromDay: Int?
    /// Last local day, inclusive; nil for no bound.
    public var toDay: Int?

    public init(device: String? = nil, fromDay: Int? = nil, toDay: Int? = nil) {
        self.device = device
        self.fromDay = fromDay
        self.toDay = toDay
    }

    /// The filter of `--device`, `--from` and `--to` (local days `YYYY-MM-DD`, inclusive).
    /// - Throws: ``RecordFilterError`` for a text that is not a date, or a range that ends before it starts.
    public static func parse(device: String?, from: String?, to: String?) throws -> RecordFilter {
        func day(_ text: String?, _ option: String) throws -> Int? {
            guard let text else { return nil }
            guard let day = CivilTime.parseDate(text) else {
                throw RecordFilterError(message: "\(option) \(text) is not a date (expected YYYY-MM-DD)")
            }
            return day
        }
        let filter = RecordFilter(device: device, fromDay: try day(from, "--from"), toDay: try day(to, "--to"))
        if let a = filter.fromDay, let b = filter.toDay, a > b {
            throw RecordFilterError(message: "--from \(from!) is after --to \(to!)")
        }
        return filter
    }

    /// Whether the range has a bound at all.
    public var isBounded: Bool { fromDay != nil || toDay != nil }

    /// Whether a local day is inside the range.
    @inline(__always)
    public func contains(day: Int) -> Bool {
        if let fromDay, day < fromDay { return false }
        if let toDay, day > toDay { return false }
        return true
    }

    /// The widest UTC offset a record can have: Tripline's timestamp parser refuses offsets beyond ±18:00.
    public static let maxOffsetMs: Int64 = 18 * 3_600_000

    /// A UTC millisecond window that surely holds every record whose local day is in range (whatever its offset),
    /// so SQLite can use its `(device_id, start_ms)` indexes before the exact local-day test.
    public var utcWindowMs: (lo: Int64, hi: Int64) {
        let lo = fromDay.map { Int64($0) * 86_400_000 - Self.maxOffsetMs } ?? Int64.min
        let hi = toDay.map { Int64($0 + 1) * 86_400_000 + Self.maxOffsetMs } ?? Int64.max
        return (lo, hi)
    }

    /// The first and last day as `YYYY-MM-DD` (what a report's `:from` and `:to` are bound to).
    public var fromDate: String? { fromDay.map { CivilTime.date(day: $0) } }
    public var toDate: String? { toDay.map { CivilTime.date(day: $0) } }
}

/// A `--from`/`--to` that cannot be used; the message names the option and the text.
public struct RecordFilterError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public var description: String { message }
}
