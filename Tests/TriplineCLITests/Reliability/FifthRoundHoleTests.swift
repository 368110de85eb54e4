import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// The fifth hostile round (docs/RELIABILITY.md, "Fifth hostile round"): valid but unusual travel, imported as an app
/// writes it, and the answers read back through the commands. Each test failed before its fix.
@Suite struct FifthRoundHoleTests {
    /// An Overland feature at `ms` with the app's local offset, standing still (speed 0) or moving.
    func feature(_ ms: Int64, _ lat: Double, _ lon: Double, offset: Int32, speed: Double) -> String {
        let time = CivilTime.iso8601(ms: ms, offset: UTCOffset(seconds: offset))
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"properties\":"
            + "{\"timestamp\":\"\(time)\",\"device_id\":\"phone\",\"speed\":\(speed),\"horizontal_accuracy\":10}}"
    }

    /// Still at (lat, lon) from `from` for `seconds`, a fix a minute, a few metres of drift.
    func still(_ from: Int64, _ seconds: Int, _ lat: Double, _ lon: Double, offset: (Int64) -> Int32) -> [String] {
        var rng = SplitMix64(seed: UInt64(from))
        return stride(from: 0, to: seconds, by: 60).map { s in
            let ms = from + Int64(s) * 1000
            let p = Geo.destination(lat, lon, bearing: rng.uniform(0, 360), distance: rng.uniform(3, 15))
            return feature(ms, p.lat, p.lon, offset: offset(ms), speed: 0)
        }
    }

    /// Along the great circle from a to b, a fix every 15 s, taking `seconds`; each reports the true speed, or `reported`.
    func drive(_ from: Int64, _ seconds: Int, _ a: (Double, Double), _ b: (Double, Double), offset: (Int64) -> Int32,
               reported: Double? = nil) -> [String] {
        let metres = Geo.distance(a.0, a.1, b.0, b.1), bearing = Geo.bearing(a.0, a.1, b.0, b.1)
        return stride(from: 15, to: seconds, by: 15).map { s in
            let p = Geo.destination(a.0, a.1, bearing: bearing, distance: metres * Double(s) / Double(seconds))
            return feature(from + Int64(s) * 1000, p.lat, p.lon, offset: offset(from + Int64(s) * 1000), speed: reported ?? metres / Double(seconds))
        }
    }

    /// The `days` rows (`days.distance_m` above `minMetres`), each checked against the trip parts `report day` shows on
    /// it: they add up to it within a metre, in `tripsEach` entries when given.
    @discardableResult
    func expectDayPartsEqualDays(_ store: Store, minMetres: Double = -1, tripsEach: Int? = nil) throws -> [(date: String, metres: Double)] {
        let q = try store.db.prepare("SELECT date, distance_m FROM days WHERE distance_m > ? ORDER BY date")
        try q.bind([.real(minMetres)])
        var days: [(date: String, metres: Double)] = []
        while try q.step() { days.append((q.text(0) ?? "", q.double(1))) }
        let exporter = try Exporter(store: store)
        for day in days {
            let entries = try DayTimeline.entries(exporter: exporter, day: try #require(CivilTime.parseDate(day.date)))
            let parts = entries.filter { $0.kind == .trip }.map { $0.distanceM ?? 0 }
            #expect(tripsEach.map { parts.count == $0 } ?? true, "\(day.date): \(entries)")
            #expect(abs(parts.reduce(0, +) - day.metres) < 1, "\(day.date): \(entries) vs days \(day.metres) m")
        }
        return days
    }

    func importAndRebuild(_ features: [String]) throws -> String {
        let dir = try temporaryDirectory()
        try FileSystem.write(overlandBody(features), to: dir + "/batch.json")
        let db = dir + "/t.sqlite"
        let imported = runCLI(["import", dir + "/batch.json", "--db", db])
        try #require(imported.status == 0, "\(imported.stderr)")
        let rebuilt = runCLI(["rebuild", "--db", db])
        try #require(rebuilt.status == 0, "\(rebuilt.stderr)")
        return db
    }

    /// A drive from 02:30 to 02:30 on the night summer time ends in Berlin (an hour: 02:30 +02:00 to 02:30 +01:00),
    /// and a day's flight from Tokyo to Los Angeles: `report day` (and the map's timeline, the same entries) wrote
    /// "02:29–02:30", which reads as a minute, and "17:00–11:00", which reads as going back in time. Both clocks now
    /// carry their offsets when the two differ, and so does every time of a day whose clock goes back.
    @Test func aTripAcrossTwoOffsetsShowsBoth() throws {
        let home = (52.52, 13.40), away = (52.40, 13.06)
        let change: Int64 = 1_729_990_800_000  // 2024-10-27T01:00:00Z: 03:00 +02:00 becomes 02:00 +01:00
        let berlin: (Int64) -> Int32 = { $0 < change ? 7200 : 3600 }
        let leave = change - 1_800_000  // 02:30 +02:00
        var features = still(leave - 7_200_000, 7200, home.0, home.1, offset: berlin)
        features += drive(leave, 3600, home, away, offset: berlin)
        features += still(leave + 3_600_000, 3600, away.0, away.1, offset: berlin)
        let db = try importAndRebuild(features)
        let day = runCLI(["report", "day", "--date", "2024-10-27", "--db", db])
        #expect(day.status == 0, "\(day.stderr)")
        let trip = day.stdout.split(separator: "\n").first { $0.contains(" km ") }
        #expect(trip?.contains(" +02:00–02:") == true && trip?.hasSuffix(" +01:00") == true, "\(day.stdout)")
        // The visits around it too carry their offsets (each at one): on a day whose clock goes back, a time without
        // one is ambiguous (the fifteenth hostile round: two drives read 02:39 then 02:19).
        let visits = day.stdout.split(separator: "\n").filter { $0.contains("near ") }
        #expect(!visits.isEmpty && visits.allSatisfy { $0.contains(" +02:00") || $0.contains(" +01:00") }, "\(day.stdout)")

        let tokyo = (35.5494, 139.7798), la = (33.9416, -118.4085)
        let takeOff: Int64 = 1_718_006_400_000  // 2024-06-10T08:00:00Z, 17:00 in Tokyo
        let zone: (Int64) -> Int32 = { $0 < takeOff + 18_000_000 ? 32_400 : -25_200 }
        var flight = still(takeOff - 7_200_000, 7200, tokyo.0, tokyo.1, offset: zone)
        flight += drive(takeOff, 36_000, tokyo, la, offset: zone)
        flight += still(takeOff + 36_000_000, 7200, la.0, la.1, offset: zone)
        let flown = runCLI(["report", "day", "--date", "2024-06-10", "--db", try importAndRebuild(flight)])
        #expect(flown.stdout.contains(" +09:00–11:00 -07:00\n"), "\(flown.stdout)")
    }

    /// A drive whose fixes all report a speed of 0 (an OwnTracks `vel` of 0, a logger writing `<speed>0</speed>`):
    /// the reported speed counted alone, so an hour's 26.6 km had 30 s of moving time and the trip an average and a
    /// maximum speed of 888 m/s. Positions further apart than standing still and their accuracy allow now say moving.
    @Test func aDriveWhoseFixesReportASpeedOfZeroHasItsMovingTime() throws {
        let home = (52.52, 13.40), away = (52.40, 13.06)
        let leave: Int64 = 1_722_499_200_000  // 2024-08-01T08:00:00Z
        let summer: (Int64) -> Int32 = { _ in 7200 }
        var features = still(leave - 3_600_000, 3600, home.0, home.1, offset: summer)
        features += drive(leave, 3600, home, away, offset: summer, reported: 0)
        features += still(leave + 3_600_000, 3600, away.0, away.1, offset: summer)
        let db = try importAndRebuild(features)
        let csv = runCLI(["export", "--what", "trips", "--format", "csv", "--db", db])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 2, "\(csv.stdout)")
        let row = Dictionary(uniqueKeysWithValues: zip(rows[0], rows[1]))
        let moving = try #require(Double(row["moving_s"] ?? "")), average = try #require(Double(row["avg_speed_mps"] ?? ""))
        let maximum = try #require(Double(row["max_speed_mps"] ?? ""))
        #expect(moving > 3000 && average < 10 && maximum < 15, "\(row)")
    }

    /// The trips of a database as CSV rows keyed by column.
    func tripRows(_ db: String) throws -> [[String: String]] {
        let csv = runCLI(["export", "--what", "trips", "--format", "csv", "--db", db])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count >= 1, "\(csv.stdout)")
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
    }

    /// A drive and a walk whose fixes all report a speed of 0 (a logger's `<speed>0</speed>`, OwnTracks `vel` 0): the
    /// moving time came from the steps (algorithm version 46) but the modes and the stays read the reported speeds, so
    /// the drive was `unknown` and the walk's fixes, "not moving", made stays. A run of reported speeds the
    /// displacement contradicts is now not trusted (algorithm version 50): a `car` and a `walk` with their moving time.
    @Test func aDriveAndAWalkWhoseFixesReportASpeedOfZeroHaveTheirModes() throws {
        let home = (52.52, 13.40), away = (52.40, 13.06), park = (52.411, 13.06)
        let leave: Int64 = 1_722_499_200_000  // 2024-08-01T08:00:00Z
        let summer: (Int64) -> Int32 = { _ in 7200 }
        var features = still(leave - 3_600_000, 3600, home.0, home.1, offset: summer)
        // 26.6 km in 30 min (14.8 m/s), then 1.22 km in 15 min (1.36 m/s), a fix every 15 s reporting 0.
        features += drive(leave, 1800, home, away, offset: summer, reported: 0)
        features += still(leave + 1_800_000, 3600, away.0, away.1, offset: summer)
        features += drive(leave + 5_400_000, 900, away, park, offset: summer, reported: 0)
        features += still(leave + 6_300_000, 3600, park.0, park.1, offset: summer)
        let trips = try tripRows(try importAndRebuild(features))
        try #require(trips.count == 2, "\(trips)")
        #expect(trips.map { $0["mode"] } == ["car", "walk"], "\(trips)")
        let moving = trips.map { Double($0["moving_s"] ?? "") ?? 0 }
        #expect(moving[0] > 1600 && moving[0] <= 1900 && moving[1] > 750 && moving[1] <= 1000, "\(trips)")
    }

    /// A phone lying still for hours, a fix every 5 s reporting 0, its positions jittering up to 15 m with an accuracy
    /// of 10 m: the steps never show a lasting move, so its speeds stay trusted and it is one visit, no trip.
    @Test func aStillPhoneReportingZeroWithJitterStaysStill() throws {
        let home = (52.52, 13.40)
        let from: Int64 = 1_722_499_200_000
        var rng = SplitMix64(seed: 7)
        let features = stride(from: 0, to: 3 * 3600, by: 5).map { s -> String in
            let p = Geo.destination(home.0, home.1, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 15))
            return feature(from + Int64(s) * 1000, p.lat, p.lon, offset: 7200, speed: 0)
        }
        let db = try importAndRebuild(features)
        #expect(try tripRows(db).isEmpty)
        let visits = runCLI(["export", "--what", "visits", "--format", "csv", "--db", db])
        #expect(visits.stdout.split(whereSeparator: \.isNewline).count == 2, "\(visits.stdout)")
    }

    /// A ride from 23:29 to 00:30 +02:00 between an hour still at each end, imported and rebuilt: the database and its
    /// `days` export as CSV rows (the header first; one row for each of the two days).
    func rideOverMidnight() throws -> (db: String, rows: [[String]]) {
        let home = (52.52, 13.40), away = (52.43, 13.28)
        let leave: Int64 = 1_722_547_740_000  // 2024-08-01T21:29:00Z, 23:29 +02:00
        let summer: (Int64) -> Int32 = { _ in 7200 }
        var features = still(leave - 3_600_000, 3600, home.0, home.1, offset: summer)
        features += drive(leave, 3660, home, away, offset: summer)
        features += still(leave + 3_660_000, 3600, away.0, away.1, offset: summer)
        let db = try importAndRebuild(features)
        let csv = runCLI(["export", "--what", "days", "--format", "csv", "--db", db])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 3, "\(csv.stdout)")
        return (db, rows)
    }

    /// A ride from 23:29 to 00:30: `report day` showed the whole 11.5 km on both days ("cycle 11.5 km from 23:29",
    /// "cycle 11.5 km until 00:30") while `days` split it at midnight, so a reader summing a day's lines counted the
    /// trip twice. Each day now shows its share, as `days` counts it, with the whole beside it.
    @Test func aTripOverMidnightShowsEachDaysShare() throws {
        let (db, rows) = try rideOverMidnight()
        let days = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(rows[0], $0)) }
        var shown: [Double] = []
        for day in days {
            let date = try #require(day["date"]), metres = try #require(Double(day["distance_m"] ?? ""))
            let report = runCLI(["report", "day", "--date", date, "--db", db])
            #expect(report.status == 0, "\(report.stderr)")
            // Each trip line's first distance ("cycle 5.7 km of 11.5 km": 5.7) is the day's part.
            let parts = report.stdout.split(separator: "\n").compactMap { line -> Double? in
                let words = line.split(separator: " ")
                guard let unit = words.firstIndex(where: { $0 == "km" }), unit > 0 else { return nil }
                return Double(words[unit - 1]).map { $0 * 1000 }
            }
            try #require(parts.count == 1, "\(report.stdout)")
            #expect(abs(parts[0] - metres) <= 50, "\(date): \(report.stdout) vs days \(metres) m")
            #expect(report.stdout.contains(" km of "), "\(report.stdout)")
            shown.append(parts[0])
        }
        #expect(shown.allSatisfy { $0 > 3000 }, "\(shown)")
        // Unrounded, the timeline's parts are the days' distances (the map's timeline is these entries).
        let exporter = try Exporter(store: try Store(path: db, create: false))
        for day in days {
            let date = try #require(day["date"]), metres = try #require(Double(day["distance_m"] ?? ""))
            let entries = try DayTimeline.entries(exporter: exporter, day: try #require(CivilTime.parseDate(date)))
            let trips = entries.filter { $0.kind == .trip }
            #expect(trips.count == 1 && abs((trips.first?.distanceM ?? 0) - metres) < 0.5, "\(date): \(trips) vs \(metres)")
        }
    }

    /// The same ride on the map, one day picked (`map --from D --to D`, as the page's picker does): its summary said
    /// "Distance 11.5 km" on the day the ride starts, the whole trip, while the chart under it and the timeline beside
    /// it showed the day's part (the fifteenth hostile round). The summary's distance and moving time are now the
    /// days', as the chart's, and the page's data carries each day's moving time for the script to sum the same way.
    @Test func theMapsDaySummaryCountsItsPartOfATripOverMidnight() throws {
        let (db, rows) = try rideOverMidnight()
        let folder = FileSystem.directoryName(db)
        for row in rows.dropFirst() {
            let day = Dictionary(uniqueKeysWithValues: zip(rows[0], row))
            let date = try #require(day["date"])
            let metres = try #require(Double(day["distance_m"] ?? "")), moving = try #require(Double(day["moving_s"] ?? ""))
            #expect(metres > 3000 && moving > 600, "\(day)")
            let output = folder + "/map-\(date).html"
            let map = runCLI(["map", "--db", db, "--from", date, "--to", date, "-o", output])
            #expect(map.status == 0, "\(map.stderr)")
            let page = PageInspector(bytes: try FileSystem.read(output))
            #expect(page.html.contains("<dt>Distance</dt><dd>\(NumberText.distance(metres))</dd>"), "\(date): \(metres) m")
            #expect(page.html.contains("<dt>Moving time</dt><dd>\(NumberText.duration(moving))</dd>"), "\(date): \(moving) s")
            let data = try #require(page.data)
            let days = try #require(data["days"] as? [[Int]])
            #expect(days.map(\.count) == [4] && days[0][1] == Int(metres.rounded()) && days[0].last == Int(moving.rounded()), "\(date): \(days)")
        }
    }

    /// A drive west across a zone border that leaves at 23:30 +08:00 and arrives at 23:30 +06:00 the same date: both
    /// ends are on that day, but from 00:00 to 00:45 +08:00 it drove on the next one, and `days` counts that part
    /// there. `report day` showed the whole trip on the first day and nothing on the next (the corpus's GeoLife user
    /// 010 on 2008-03-30/31: 1,278 km against 1,189 km, then 1,291 km against 1,380 km); each day now shows its part,
    /// the next with both clocks and their offsets, and the parts equal `days.distance_m`.
    @Test func aTripWestAcrossAZoneBorderShowsItsPartOnTheDayItsEndsSkip() throws {
        let from = (40.0, 97.0), to = (41.0, 95.0)
        let leave: Int64 = 1_711_812_600_000  // 2024-03-30T15:30:00Z, 23:30 +08:00
        let border = leave + 75 * 60_000  // 16:45Z: 00:45 +08:00, then 22:45 +06:00
        let zone: (Int64) -> Int32 = { $0 < border ? 28_800 : 21_600 }
        var features = still(leave - 3_600_000, 3600, from.0, from.1, offset: zone)
        features += drive(leave, 7200, from, to, offset: zone)
        features += still(leave + 7_200_000, 1500, to.0, to.1, offset: zone)
        let db = try importAndRebuild(features)
        let days = try expectDayPartsEqualDays(try Store(path: db, create: false), tripsEach: 1)
        try #require(days.map(\.date) == ["2024-03-30", "2024-03-31"], "\(days)")
        try #require(days.allSatisfy { $0.metres > 30_000 }, "\(days)")
        let next = runCLI(["report", "day", "--date", "2024-03-31", "--db", db])
        #expect(next.stdout.contains(" km of ") && next.stdout.contains(" +08:00–23:30 +06:00"), "\(next.stdout)")
    }

    /// A drive that leaves at 00:30 +08:00, crosses into +06:00 (22:40 +06:00, still the day before) and comes back
    /// before 01:30 +08:00: both ends share their offset and their day, but `days` counts the part driven at +06:00 on
    /// the day before (the eighth hostile round's Badajoz–Elvas drive). `report day` gave the whole trip to its ends'
    /// day and nothing to the other; the days' `distance_m` and their trips' parts disagreed. Each day now shows its
    /// part (the day before with both clocks and their offsets), and the parts equal `days.distance_m`.
    @Test func aDriveIntoTheDayBeforeAndBackShowsItsPartThere() throws {
        let home = (40.0, 97.0), away = (40.0, 96.6)
        let leave: Int64 = 1_711_816_200_000  // 2024-03-30T16:30:00Z, 00:30 +08:00 on the 31st
        let west = leave + 20 * 60_000, back = leave + 40 * 60_000
        let zone: (Int64) -> Int32 = { $0 >= west && $0 < back ? 21_600 : 28_800 }
        var features = still(leave - 3_600_000, 3600, home.0, home.1, offset: zone)
        features += drive(leave, 1800, home, away, offset: zone)
        features += drive(leave + 1_800_000, 1800, away, home, offset: zone)
        features += still(leave + 3_600_000, 3600, home.0, home.1, offset: zone)
        let db = try importAndRebuild(features)
        let store = try Store(path: db, create: false)
        try #require(try count(store, "SELECT count(*) FROM trips") == 1)
        let days = try expectDayPartsEqualDays(store, minMetres: 0, tripsEach: 1)
        try #require(days.map(\.date) == ["2024-03-30", "2024-03-31"], "\(days)")
        let before = runCLI(["report", "day", "--date", "2024-03-30", "--db", db])
        #expect(before.stdout.contains(" km of ") && before.stdout.contains(" +08:00–01:30 +08:00"), "\(before.stdout)")
    }

    /// A trip that leaves at 01:00 +08:00, crosses into +06:00 (23:20 +06:00 the day before) and goes silent from
    /// 23:40 to 00:20 +06:00 (a leg no fix saw) before driving on: `days` spreads the silent leg by its time with
    /// midnight at the offset where that leg began (+06:00), and so must the day's timeline (it took the offset of
    /// the trip's first fix, +08:00, and put the whole leg on the second day).
    @Test func aSilentLegOverMidnightIsSplitAtItsOwnOffset() throws {
        let a = (40.0, 97.0), b = (40.3, 96.4), b2 = (40.6, 95.8), c = (40.9, 95.2)
        let leave: Int64 = 1_711_818_000_000  // 2024-03-30T17:00:00Z, 01:00 +08:00 on the 31st
        let border = leave + 20 * 60_000
        let zone: (Int64) -> Int32 = { $0 < border ? 28_800 : 21_600 }
        var features = still(leave - 3_600_000, 3600, a.0, a.1, offset: zone)
        features += drive(leave, 2400, a, b, offset: zone)
        features += drive(leave + 4_800_000, 1800, b2, c, offset: zone)
        features += still(leave + 6_600_000, 3600, c.0, c.1, offset: zone)
        let db = try importAndRebuild(features)
        let store = try Store(path: db, create: false)
        // One trip of three legs, the middle one no fix saw, from 23:39:45 to 00:20:15 +06:00.
        try #require(try count(store, "SELECT count(*) FROM trips") == 1 && count(store, "SELECT count(*) FROM legs WHERE points <= 2") == 1)
        let days = try expectDayPartsEqualDays(store)
        #expect(days.count == 2 && days.allSatisfy { $0.metres > 1000 }, "\(days)")
    }

    /// A dawdle round a circle of radius 111 m at 0.4 m/s (below `stays.moving_mps`), a fix every 10 s, from home and
    /// back: the stays pass cuts it into adjacent stays, and the trips between them took the distance between their
    /// centres in the 10 s between their edge fixes (two "trips" of 180–187 m at 18–19 m/s). The edge fixes follow
    /// each other at the sampling and lie 4 m apart: nothing went unseen, so there is no trip.
    @Test func aDawdleInACircleHasNoTripAtAnImpossiblePace() throws {
        let centre = (52.0, 13.0), home = (52.001, 13.0)
        let start: Int64 = 1_712_739_600_000  // 2024-04-10T09:00:00Z
        let utc: (Int64) -> Int32 = { _ in 0 }
        var features = still(start - 3_600_000, 3600, home.0, home.1, offset: utc)
        for k in 1..<180 {
            let a = 2 * Double.pi * Double(k) / 180
            let lat = centre.0 + 0.001 * cos(a), lon = centre.1 + 0.001 * sin(a) / Geo.cosLatitude(centre.0)
            features.append(feature(start + Int64(k) * 10_000, lat, lon, offset: 0, speed: 0.4))
        }
        features += still(start + 1_800_000, 3600, home.0, home.1, offset: utc)
        let db = try importAndRebuild(features)
        let csv = runCLI(["export", "--what", "trips", "--format", "csv", "--db", db])
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(!rows.isEmpty, "\(csv.stdout)")
        for values in rows.dropFirst() {
            let row = Dictionary(uniqueKeysWithValues: zip(rows[0], values))
            let metres = try #require(Double(row["distance_m"] ?? "")), seconds = try #require(Double(row["duration_s"] ?? ""))
            // A walker's pace at most: 697 m round the circle took 30 min.
            #expect(seconds > 0 && metres / seconds < 3, "\(row)")
        }
    }

    /// A lasting move at an impossible speed: an hour at home, 20 min at 3,000 m/s, an hour 3,600 km away, fixes every
    /// 10 s at both places. The clean pass's two-sources rule flagged the later hour whole (the smaller or later of two
    /// sources, though they followed each other), so the far side had no visit; kept, the two stays made a 4,032-km
    /// "trip" at 3,332 m/s. Now both sides are visits and nothing is invented across the jump.
    @Test func aLastingMoveAtAnImpossibleSpeedKeepsBothSidesAndInventsNoTrip() throws {
        let home = (52.36, 13.50), far = (52.36 - 3000.0 * 1200 / 111_195, 13.50)
        let leave: Int64 = 1_722_841_200_000  // 2024-08-05T07:00:00Z
        let summer: (Int64) -> Int32 = { _ in 7200 }
        var rng = SplitMix64(seed: 3000)
        func still(_ from: Int64, _ at: (Double, Double)) -> [String] {
            stride(from: 0, to: 3600, by: 10).map { s in
                let p = Geo.destination(at.0, at.1, bearing: rng.uniform(0, 360), distance: rng.uniform(3, 15))
                return feature(from + Int64(s) * 1000, p.lat, p.lon, offset: 7200, speed: 0)
            }
        }
        var features = still(leave - 3_600_000, home)
        features += drive(leave, 1200, home, far, offset: summer)
        features += still(leave + 1_200_000, far)
        let db = try importAndRebuild(features)
        let visits = runCLI(["export", "--what", "visits", "--format", "csv", "--db", db])
        let rows = visits.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(!rows.isEmpty, "\(visits.stdout)")
        // The latitude is the eighth field from the end (a place named by its coordinates is quoted with a comma).
        let latitudes = rows.dropFirst().compactMap { $0.count >= 8 ? Double($0[$0.count - 8]) : nil }
        #expect(latitudes.contains { abs($0 - home.0) < 0.01 } && latitudes.contains { abs($0 - far.0) < 0.01 }, "\(visits.stdout)")
        let trips = runCLI(["export", "--what", "trips", "--format", "csv", "--db", db])
        let tripRows = trips.stdout.split(whereSeparator: \.isNewline)
        #expect(tripRows.count == 1, "no trip across the jump: \(trips.stdout)")
    }
}
