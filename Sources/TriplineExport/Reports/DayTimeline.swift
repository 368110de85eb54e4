import TriplineCore
import TriplineStore

/// One entry of a day's timeline: a visit (at a place), a trip (a mode and a distance) or a gap (a span of the
/// history that no visit and no trip covers, ``DayTimeline/gapMinMs`` or longer), with its local times.
public struct DayTimelineEntry: Sendable, Equatable {
    public enum Kind: String, Sendable { case visit, trip, gap }
    public var kind: Kind
    public var id: Int64
    public var device: String
    /// The place's name (visits; "Unnamed place" when none), the trip's mode, or "Gap (3 h 20 min)".
    public var title: String
    /// Local clock times `HH:MM` at the record's offset (each followed by its offset, `02:29 +02:00`, when the two
    /// differ and both are on the day); nil when the entry began before the day or ends after it.
    public var start: String?
    public var end: String?
    /// Trips: the metres on this day (a trip over midnight: the day's share, as `days.distance_m` counts it), and
    /// each leg's mode and metres (the whole leg's) when there is more than one.
    public var distanceM: Double?
    public var legs: [String] = []
    /// A trip over midnight: the whole trip's metres, when they read differently from the day's share.
    public var wholeM: Double? = nil

    /// The title with a trip's distance: "Home", "bus 5.2 km", "cycle 5.7 km of 11.5 km" (a trip over midnight: the
    /// day's share of the whole).
    public var what: String {
        guard let distanceM else { return title }
        return title + " " + DayTimeline.kilometres(distanceM) + (wholeM.map { " of " + DayTimeline.kilometres($0) } ?? "")
    }

    /// The times: "09:00–09:10", "until 09:00", "from 18:30" or "all day".
    public var when: String {
        switch (start, end) {
        case let (s?, e?): return "\(s)–\(e)"
        case let (nil, e?): return "until \(e)"
        case let (s?, nil): return "from \(s)"
        case (nil, nil): return "all day"
        }
    }

    /// One line: ``what``, then ``when``, then the legs when there are several.
    public var line: String {
        var text = what.padding(toLength: Swift.max(28, what.count + 2), withPad: " ", startingAt: 0) + when
        if !legs.isEmpty { text += "   " + legs.joined(separator: " · ") }
        return text
    }
}

/// The visits and trips of one local day, one after another, and the gaps between them:
/// `tripline report day --date YYYY-MM-DD`.
///
/// Read through ``Exporter``, so the selection (device), local times and privacy zones are the exports' own: an
/// entry is on the day when its local start or end (or both, around it) is; visits started up to a week before
/// are found.
///
/// A **gap** is a span of a device's history, between its first and its last record, that no visit and no trip
/// covers and that lasts ``gapMinMs`` or more: nothing recorded says where the person was (a phone off, a silence
/// the rebuild refused to call a visit, docs/PASSES.md "Gaps"). It is shown on each day it touches, so a day is not
/// silently shorter than 24 hours. Gaps are found from every record of the device, privacy zones not applied: time
/// hidden by a zone is known, only not shown, so it is no gap.
public enum DayTimeline {
    /// The shortest span shown as a gap: an hour. Shorter holes between records are the edges of what was
    /// recorded (a trip whose first fix came minutes after it set off), not a lack of knowledge.
    public static let gapMinMs: Int64 = 3_600_000

    public static func entries(exporter: Exporter, day: Int, device: String? = nil) throws -> [DayTimelineEntry] {
        try entries(exporter: exporter, days: [day], device: device)[day] ?? []
    }

    /// The entries of each of `days` (local day numbers), read in one pass: what ``entries(exporter:day:device:)``
    /// gives for each day, for the map's timeline. Days without entries are absent.
    public static func entries(exporter: Exporter, days: [Int], device: String? = nil) throws -> [Int: [DayTimelineEntry]] {
        let wanted = Array(Set(days)).sorted()
        guard let first = wanted.first, let last = wanted.last else { return [:] }
        // A day later too: a trip west across a zone border that starts just after midnight reaches the day before.
        let selection = try exporter.select(RecordFilter(device: device, fromDay: first - 7, toDay: last + 1))
        var byDay: [Int: [Placed]] = [:]
        /// Adds the record to each wanted day it touches, with its clock times on that day.
        /// `shares`: a trip's metres on each local day (``TripDayShares``), read when it touches more than one.
        /// `known`: the trip's metres on each local day, already read: it is shown on each day with a part (and on
        /// its ends' days), whatever its offsets.
        func add(_ startMs: Int64, _ startOffset: UTCOffset?, _ endMs: Int64, _ endOffset: UTCOffset?, order: Int, _ entry: DayTimelineEntry,
                 shares: (() throws -> [Int: Double])? = nil, known: [Int: Double]? = nil) rethrows {
            // An edited database's impossible times (outside the years 0000–9999) are no one's day.
            guard MapLoader.Limits.time(startMs), MapLoader.Limits.time(endMs) else { return }
            let s = exporter.localTime.offset(startOffset, atMs: startMs) ?? .utc
            let e = exporter.localTime.offset(endOffset, atMs: endMs) ?? .utc
            let startDay = LocalTime.day(ms: startMs, offset: s)
            // A record that ends exactly at midnight does not reach the next day.
            let endDay = LocalTime.day(ms: Swift.max(startMs, endMs - 1), offset: e)
            // A trip whose ends are at two offsets may have fixes on a day neither end is on, at the offset of the
            // other end: west across a zone border at 23:50 +08:00, arriving 23:40 +06:00, it drove through 00:00–01:40
            // +08:00 of the next day, and `days` counts that part there. Its days run from the earliest of its ends'
            // days at either offset to the latest.
            var firstDay = startDay, lastDay = endDay
            if shares != nil && s != e {
                let end = Swift.max(startMs, endMs - 1)
                firstDay = Swift.min(startDay, LocalTime.day(ms: startMs, offset: e))
                lastDay = Swift.max(endDay, LocalTime.day(ms: end, offset: s), firstDay)
            }
            for (day, metres) in known ?? [:] where metres > 0 {
                firstDay = Swift.min(firstDay, day)
                lastDay = Swift.max(lastDay, day)
            }
            var k = 0, high = wanted.count  // the first wanted day not before firstDay
            while k < high {
                let mid = (k + high) / 2
                if wanted[mid] < firstDay { k = mid + 1 } else { high = mid }
            }
            // Both clocks on one day at two offsets (a drive across the night summer time ends, a flight across zones):
            // each with its offset, or "02:29–02:30" reads as a minute, "17:00–11:00" as going back in time.
            let zoned = s != e && startDay == endDay
            // A trip over midnight shows each day's share, as `days` counts it, so a day's lines add up to its distance.
            let split = try known ?? (firstDay != lastDay && k < wanted.count && wanted[k] <= lastDay ? try shares?() : nil)
            while k < wanted.count, wanted[k] <= lastDay {
                let day = wanted[k]
                k += 1
                var onDay = entry
                // A day outside its ends' days (above): shown only with a part, and with both clocks and offsets.
                let aside = day < startDay || day > endDay
                if let split, let whole = entry.distanceM {
                    let part = split[day] ?? 0
                    if aside && part == 0 { continue }
                    onDay.distanceM = part
                    onDay.wholeM = kilometres(part) == kilometres(whole) ? nil : whole
                } else if aside {
                    continue
                }
                onDay.start = startDay == day || aside ? clock(startMs, s) + (zoned || aside ? " " + s.isoSuffix : "") : nil
                onDay.end = endDay == day || aside ? clock(endMs, e) + (zoned || aside ? " " + e.isoSuffix : "") : nil
                byDay[day, default: []].append(Placed(ms: startMs, order: order, entry: onDay, offsets: (s, e)))
            }
        }
        try exporter.forEachVisit(selection) { v in
            let title = v.placeName.map { $0.isEmpty ? "Unnamed place" : $0 } ?? v.locality.map { "near \($0)" } ?? "Unnamed place"
            add(v.startMs, v.startOffset, v.endMs, v.endOffset, order: 0,
                DayTimelineEntry(kind: .visit, id: v.id, device: exporter.deviceName(v.deviceID), title: title, start: nil, end: nil))
        }
        var legs: [Int64: [String]] = [:]
        var legSpans: [Int64: [(start: Int64, end: Int64, metres: Double)]] = [:]
        // Distances no rebuild writes (an edited database: infinite, 1e300) are left out, as the map leaves them out.
        try exporter.forEachLeg(selection) {
            guard MapLoader.Limits.amount($0.distanceM) else { return }
            legs[$0.tripID, default: []].append("\($0.mode) \(kilometres($0.distanceM))")
            legSpans[$0.tripID, default: []].append(($0.startMs, $0.endMs, $0.distanceM))
        }
        var spreader: TripDayShares?
        var trips: [(listing: TripListing, entry: DayTimelineEntry)] = []
        try exporter.forEachTrip(selection) { t in
            guard MapLoader.Limits.amount(t.distanceM) else { return }
            let parts = legs[t.id] ?? []
            let entry = DayTimelineEntry(
                kind: .trip, id: t.id, device: exporter.deviceName(t.deviceID), title: t.mode, start: nil, end: nil,
                distanceM: t.distanceM, legs: parts.count > 1 ? parts : [])
            trips.append((t, entry))
            try add(t.startMs, t.startOffset, t.endMs, t.endOffset, order: 1, entry) {
                if spreader == nil { spreader = try TripDayShares(exporter: exporter) }
                return try spreader!.shares(t.row, legs: legSpans[t.id] ?? [])
            }
        }
        // A day whose trips' parts do not add up to its `days.distance_m`: a trip whose fixes reached a zone where it
        // was another date, though both its ends share an offset (a drive from Spain just after midnight into Portugal,
        // still the day before, and back). The trips near it are shown by the days their metres fall on.
        let wantedDays = Set(wanted)
        let unmatched = try daysOffTheirParts(exporter, selection, wanted: wantedDays, trips: trips.map(\.listing), byDay)
        if !unmatched.isEmpty {
            var shownOn: [Int64: Set<Int>] = [:]  // trip → the days it is shown on
            for (day, entries) in byDay { for e in entries where e.entry.kind == .trip { shownOn[e.entry.id, default: []].insert(day) } }
            for (t, entry) in trips {
                // A trip of a week at most, as the selection finds them (an edited database's trip over centuries is
                // no one's day).
                guard MapLoader.Limits.time(t.startMs), MapLoader.Limits.time(t.endMs), t.endMs >= t.startMs,
                    t.endMs - t.startMs <= Int64(Self.reconcileMaxDays) * 86_400_000 else { continue }
                let s = exporter.localTime.offset(t.startOffset, atMs: t.startMs) ?? .utc
                let e = exporter.localTime.offset(t.endOffset, atMs: t.endMs) ?? .utc
                let first = LocalTime.day(ms: t.startMs, offset: s), last = LocalTime.day(ms: Swift.max(t.startMs, t.endMs - 1), offset: e)
                let near = (Swift.min(first, last) - 1)...(Swift.max(first, last) + 1)
                // The shorter of the two to walk: the trip's days, or the days off (an edited offset stretches the first).
                let isNear = near.count <= unmatched.count
                    ? near.contains { unmatched.contains(DeviceDay(device: t.deviceID, day: $0)) }
                    : unmatched.contains { $0.device == t.deviceID && near.contains($0.day) }
                guard isNear else { continue }
                if spreader == nil { spreader = try TripDayShares(exporter: exporter) }
                let parts = try spreader!.shares(t.row, legs: legSpans[t.id] ?? [])
                // Only a trip with metres on a day it is not shown on (an edited database's days may disagree for other
                // reasons: those are left as they are).
                let shown = shownOn[t.id] ?? []
                guard parts.contains(where: { $0.value >= 0.5 && !shown.contains($0.key) }) else { continue }
                for day in shown { byDay[day]?.removeAll { $0.entry.kind == .trip && $0.entry.id == t.id } }
                add(t.startMs, t.startOffset, t.endMs, t.endOffset, order: 1, entry, known: parts)
            }
        }
        for gap in try gaps(store: exporter.store, device: device) {
            add(gap.startMs, gap.startOffset, gap.endMs, gap.endOffset, order: 2,
                DayTimelineEntry(kind: .gap, id: 0, device: exporter.deviceName(gap.deviceID), title: "Gap (" + duration(gap.endMs - gap.startMs) + ")",
                                 start: nil, end: nil))
        }
        return byDay.mapValues { entries in
            withOffsetsWhereTheClockGoesBack(
                entries.sorted { ($0.entry.device, $0.ms, $0.order, $0.entry.id) < ($1.entry.device, $1.ms, $1.order, $1.entry.id) })
        }
    }

    /// An entry on its day: its start (for the order), its kind's rank, and the offsets of its start and end.
    struct Placed {
        var ms: Int64
        var order: Int
        var entry: DayTimelineEntry
        var offsets: (start: UTCOffset, end: UTCOffset)
    }

    /// A device's day whose clock goes back (the night summer time ends, a flight west) shows every time with its
    /// offset: "02:39–02:53" then "02:19–02:33" read as out of order (the fifteenth hostile round); "02:39 +02:00" and
    /// "02:19 +01:00" do not. `entries`: one day's, sorted by device, then time.
    static func withOffsetsWhereTheClockGoesBack(_ entries: [Placed]) -> [DayTimelineEntry] {
        var out = entries.map(\.entry)
        var k = 0
        while k < entries.count {
            var end = k
            while end < entries.count && entries[end].entry.device == entries[k].entry.device { end += 1 }
            var highest = Int32.min, back = false
            for e in entries[k..<end] {
                for offset in [e.offsets.start, e.offsets.end] {
                    if offset.seconds < highest { back = true }
                    highest = Swift.max(highest, offset.seconds)
                }
            }
            if back {
                for i in k..<end {
                    // A time shown with its offset already (an entry whose ends differ) keeps it.
                    if let s = out[i].start, !s.contains(" ") { out[i].start = s + " " + entries[i].offsets.start.isoSuffix }
                    if let e = out[i].end, !e.contains(" ") { out[i].end = e + " " + entries[i].offsets.end.isoSuffix }
                }
            }
            k = end
        }
        return out
    }

    /// The longest trip (days) whose parts are read again for a day its parts miss (``daysOffTheirParts``): the
    /// week the selection looks back for trips, and a day.
    static let reconcileMaxDays = 8

    /// A device's local day.
    struct DeviceDay: Hashable {
        var device: Int64
        var day: Int
    }

    /// The wanted days, per device, whose `days.distance_m` the trips' parts shown on them miss by more than a metre
    /// (privacy zones aside: they cut the parts, not the days).
    static func daysOffTheirParts(
        _ exporter: Exporter, _ selection: Exporter.Selection, wanted: Set<Int>, trips: [TripListing],
        _ byDay: [Int: [Placed]]
    ) throws -> Set<DeviceDay> {
        guard exporter.privacyZones.isEmpty, !trips.isEmpty else { return [] }
        var device: [Int64: Int64] = [:]  // trip → device
        for t in trips { device[t.id] = t.deviceID }
        var parts: [DeviceDay: Double] = [:]
        for (day, entries) in byDay {
            for e in entries where e.entry.kind == .trip {
                guard let d = device[e.entry.id] else { continue }
                parts[DeviceDay(device: d, day: day), default: 0] += e.entry.distanceM ?? 0
            }
        }
        var off = Set<DeviceDay>()
        try exporter.forEachDay(selection) { row in
            guard let day = CivilTime.parseDate(row.date), wanted.contains(day), MapLoader.Limits.amount(row.distanceM) else { return }
            let key = DeviceDay(device: row.deviceID, day: day)
            if abs(row.distanceM - (parts[key] ?? 0)) > 1 { off.insert(key) }
        }
        return off
    }

    /// A span of a device's history that no visit and no trip covers (see ``DayTimeline``).
    public struct Gap: Sendable, Equatable {
        public var deviceID: Int64
        public var startMs: Int64, endMs: Int64
        /// The offsets of the records on either side at those instants (the end of the one before, the start of the
        /// one after).
        public var startOffset: UTCOffset?, endOffset: UTCOffset?
    }

    /// Every gap of the device (all devices when nil), in device and time order: the holes of at least ``gapMinMs``
    /// between the visits and trips of each device (all of them, privacy zones not applied).
    /// - Complexity: O(n log n) in the device's visits and trips.
    public static func gaps(store: Store, device: String? = nil) throws -> [Gap] {
        let exporter = try Exporter(store: store)
        let selection = try exporter.select(RecordFilter(device: device))
        var spans: [(device: Int64, start: Int64, startOffset: UTCOffset?, end: Int64, endOffset: UTCOffset?)] = []
        // An edited database's impossible times (outside the years 0000–9999) cover nothing, as they show nothing.
        func keep(_ start: Int64, _ end: Int64) -> Bool { MapLoader.Limits.time(start) && MapLoader.Limits.time(end) && end >= start }
        try exporter.forEachVisit(selection) { if keep($0.startMs, $0.endMs) { spans.append(($0.deviceID, $0.startMs, $0.startOffset, $0.endMs, $0.endOffset)) } }
        try exporter.forEachTrip(selection) { if keep($0.startMs, $0.endMs) { spans.append(($0.deviceID, $0.startMs, $0.startOffset, $0.endMs, $0.endOffset)) } }
        spans.sort { ($0.device, $0.start, $0.end) < ($1.device, $1.start, $1.end) }
        var gaps: [Gap] = []
        var k = 0
        while k < spans.count {
            let device = spans[k].device
            var reach = spans[k].end, reachOffset = spans[k].endOffset
            k += 1
            while k < spans.count, spans[k].device == device {
                let s = spans[k]
                if s.start >= reach, s.start - reach >= gapMinMs {
                    gaps.append(Gap(deviceID: device, startMs: reach, endMs: s.start, startOffset: reachOffset, endOffset: s.startOffset))
                }
                if s.end > reach { (reach, reachOffset) = (s.end, s.endOffset) }
                k += 1
            }
        }
        return gaps
    }

    /// "3 h 20 min", "45 min", "71 days" (a day or more: whole days, rounded down, with the hours below a week).
    static func duration(_ ms: Int64) -> String {
        let minutes = ms / 60_000
        let days = minutes / 1440, hours = minutes / 60 % 24, rest = minutes % 60
        if days >= 7 { return "\(days) days" }
        if days >= 1 { return "\(days) day" + (days == 1 ? "" : "s") + (hours > 0 ? " \(hours) h" : "") }
        if minutes >= 60 { return "\(minutes / 60) h" + (rest > 0 ? " \(rest) min" : "") }
        return "\(minutes) min"
    }

    /// The day's entries as text: a heading per device, then one line per entry.
    public static func text(date: String, _ entries: [DayTimelineEntry]) -> String {
        guard !entries.isEmpty else { return "\(date): no visits or trips.\n" }
        var text = ""
        var device: String?
        for entry in entries {
            if entry.device != device {
                text += (device == nil ? "" : "\n") + "\(date) · \(entry.device)\n"
                device = entry.device
            }
            text += "  " + entry.line + "\n"
        }
        return text
    }

    static func clock(_ ms: Int64, _ offset: UTCOffset) -> String {
        let seconds = ((ms / 1000 + offset.seconds64) % 86_400 + 86_400) % 86_400
        let h = seconds / 3600, m = seconds / 60 % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// "850 m" below a kilometre, else "5.2 km".
    static func kilometres(_ metres: Double) -> String {
        metres < 1000 ? "\(Int(metres.rounded())) m" : NumberText.fixed(metres / 1000, decimals: 1) + " km"
    }
}
