import Testing
import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineGeography
import TriplineTestSupport

/// The order in which places are named (docs/PASSES.md, "Place names"): Home and Work from when the time is spent,
/// in local time across a clock change, and no two places of one device sharing a name.
@Suite struct PlaceNameRulesTests {
    static let home = (lat: 52.5000, lon: 13.3500)
    static let work = Geo.destination(52.5000, 13.3500, bearing: 90, distance: 2500)
    static let park = Geo.destination(52.5000, 13.3500, bearing: 0, distance: 1200)

    /// UTC of local `hour`:`minute` on 2026-03-`day` in Berlin (CET, CEST from 2026-03-29 02:00).
    static func berlin(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        let midnightUTC = 1_774_396_800_000 + Int64(day - 25) * 86_400_000  // 2026-03-25T00:00Z
        let offset: Int64 = day > 29 || (day == 29 && hour >= 3) ? 7200 : 3600
        return midnightUTC + Int64(hour) * 3_600_000 + Int64(minute) * 60_000 - offset * 1000
    }

    /// Wednesday 2026-03-25 to Thursday 2026-04-02 in Berlin: nights at home (its router `Flat-3`), weekdays at work
    /// 09:00–17:00, the weekend's afternoons in a park; across the change to summer time.
    static func week() -> [Point] {
        var b = TrackBuilder(startMs: berlin(25, 18), lat: home.lat, lon: home.lon)
        func stay(until ms: Int64, ssid: String? = nil) { b.still(Int((ms - b.t) / 1000), every: 120, drift: 0...8, ssid: ssid) }
        func go(to p: (lat: Double, lon: Double)) {
            let d = Geo.distance(b.lat, b.lon, p.lat, p.lon)
            let bearing = abs(p.lat - b.lat) > abs(p.lon - b.lon) * 0.6 ? (p.lat > b.lat ? 0.0 : 180.0) : (p.lon > b.lon ? 90.0 : 270.0)
            b.move(d, bearing: bearing, speed: 8, every: 5)
            b.lat = p.lat
            b.lon = p.lon
        }
        for day in 26...32 {
            let date = day  // 32 = April 1st: the same arithmetic
            let weekday = (date - 25 + 2) % 7  // 0 = Monday; the 25th is a Wednesday
            stay(until: berlin(date, 8, 15), ssid: "Flat-3")
            if weekday < 5 {
                go(to: work)
                stay(until: berlin(date, 17))
            } else {
                stay(until: berlin(date, 13), ssid: "Flat-3")
                go(to: park)
                stay(until: berlin(date, 17))
            }
            go(to: home)
        }
        stay(until: berlin(33, 1), ssid: "Flat-3")
        return b.points
    }

    @Test func homeAndWorkFromWhenTheTimeIsSpent() throws {
        let store = try storeWith([("phone", Self.week())])
        try rebuild(store, timezone: "Europe/Berlin")
        func name(near p: (lat: Double, lon: Double)) throws -> String? {
            try store.db.scalarText("SELECT name FROM places ORDER BY (lat - ?) * (lat - ?) + (lon - ?) * (lon - ?) LIMIT 1",
                                    [.real(p.lat), .real(p.lat), .real(p.lon), .real(p.lon)])
        }
        #expect(try name(near: Self.home) == "Home")  // before its wifi's name
        #expect(try name(near: Self.work) == "Work")
        #expect(try name(near: Self.park)?.hasPrefix("near Berlin") == true)  // two weekend afternoons: neither
    }

    /// Local windows are found in the zone's own offsets: midnight before and after the change to summer time.
    @Test func localHoursAcrossTheClockChange() throws {
        let zones = try #require(LocalZones(overrideName: "Europe/Berlin"))
        #expect(PlaceNames.utc(day: 20_540, hour: 0, lat: 52.5, lon: 13.4, zones: zones) == Self.berlin(28, 0))  // CET
        #expect(PlaceNames.utc(day: 20_542, hour: 0, lat: 52.5, lon: 13.4, zones: zones) == Self.berlin(30, 0))  // CEST
        #expect(Self.berlin(30, 0) - Self.berlin(28, 0) == 2 * 86_400_000 - 3_600_000)
    }

    /// Two places with one chain's wifi: the one of more dwell keeps the name, the other is `CafeNet (2)`.
    @Test func twoPlacesNeverShareAName() throws {
        var b = TrackBuilder(startMs: 1_714_550_400_000, lat: 48.1400, lon: 11.5600)
        b.still(3 * 3600, every: 30, ssid: "CafeNet")
        b.move(600, bearing: 90, speed: 1.4, every: 5)
        b.still(1 * 3600, every: 30, ssid: "CafeNet")
        b.move(600, bearing: 270, speed: 1.4, every: 5)
        b.still(20 * 60, every: 30, ssid: "CafeNet")
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        let names = try store.db.prepare("SELECT name FROM places ORDER BY total_dwell_s DESC")
        var out: [String] = []
        while try names.step() { out.append(names.text(0) ?? "") }
        #expect(out == ["CafeNet", "CafeNet (2)"])
        // A user's name keeps its place's name; the other place with that name is qualified.
        let second = try #require(try store.db.scalarInt("SELECT id FROM places WHERE name = 'CafeNet (2)'"))
        let first = try #require(try store.db.scalarInt("SELECT id FROM places WHERE name = 'CafeNet'"))
        let centre = try store.db.prepare("SELECT lat, lon FROM places WHERE id = ?")
        centre.bindInt(second, at: 1)
        _ = try centre.step()
        let device = try #require(try store.db.scalarInt("SELECT id FROM devices"))
        _ = try RebuildTables(store).insert(PlaceEditRow(id: nil, deviceID: device, action: .rename, lat: centre.double(0), lon: centre.double(1),
                                                     name: "CafeNet", intoLat: nil, intoLon: nil, createdMs: 1))
        try rebuild(store)
        #expect(try store.db.scalarText("SELECT name FROM places WHERE id = ?", [.integer(second)]) == "CafeNet")
        #expect(try store.db.scalarText("SELECT name FROM places WHERE id = ?", [.integer(first)]) == "CafeNet (2)")
    }

    /// A night shift (the tenth hostile round): at the hospital 21:40–06:30, at home 07:00–21:30, a week. The
    /// hospital holds the nights, but home holds twice its time on long days: home is `Home`, the hospital no `Work`
    /// (its hours are not a working day's) and no `Home`; the year in review's home is the place named `Home`.
    @Test func aNightShiftsHomeIsWhereTheDaysAre() throws {
        let hospital = Geo.destination(Self.home.lat, Self.home.lon, bearing: 90, distance: 5000)
        var b = TrackBuilder(startMs: Self.berlin(25, 7), lat: Self.home.lat, lon: Self.home.lon)
        func stay(until ms: Int64) { b.still(Int((ms - b.t) / 1000), every: 120, drift: 0...8) }
        for day in 25...31 {
            stay(until: Self.berlin(day, 21, 30))
            b.move(5000, bearing: 90, speed: 10, every: 5)
            stay(until: Self.berlin(day + 1, 6, 30))
            b.move(5000, bearing: 270, speed: 10, every: 5)
            b.lat = Self.home.lat
            b.lon = Self.home.lon
        }
        stay(until: Self.berlin(32, 12))
        let store = try storeWith([("phone", b.points)])
        try rebuild(store, timezone: "Europe/Berlin")
        func name(near p: (lat: Double, lon: Double)) throws -> String? {
            try store.db.scalarText("SELECT name FROM places ORDER BY (lat - ?) * (lat - ?) + (lon - ?) * (lon - ?) LIMIT 1",
                                    [.real(p.lat), .real(p.lat), .real(p.lon), .real(p.lon)])
        }
        #expect(try name(near: Self.home) == "Home")
        #expect(try name(near: hospital) != "Home" && name(near: hospital) != "Work")
    }
}
