import Testing
@testable import TriplineStore
@testable import TriplineCore
@testable import TriplinePasses
import TriplineTestSupport

/// Unit tests of the passes on small constructed tracks.
@Suite struct PassesTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    let home = (lat: 52.5200, lon: 13.4050)

    @Test func driftNightAddsNoDistance() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(8 * 3600, every: 600, drift: 20...80)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM stays") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
        #expect(try double(store, "SELECT sum(distance_m) FROM days") == 0)
    }

    /// Two rides from a hotel on the 180th meridian (Taveuni) and back, its fixes either side of the line: two
    /// places, four trips of about 3 km, visits where they were (fifth hostile round: before, 7 visits at longitudes
    /// from −20 to 41, 8 trips of up to 35,798 km, 6 places).
    @Test func aDayOnTheAntimeridianHasItsOwnDistances() throws {
        var b = TrackBuilder(startMs: t0, lat: -16.8, lon: 180, offset: 43_200)
        for _ in 0..<2 {
            b.still(3600, every: 60, drift: 10...30)
            b.move(3000, bearing: 280, speed: 4, every: 5)
            b.still(3600, every: 60, drift: 10...30)
            b.move(3000, bearing: 100, speed: 4, every: 5)
        }
        b.still(3600, every: 60, drift: 10...30)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 4)
        #expect(try count(store, "SELECT count(*) FROM trips WHERE distance_m NOT BETWEEN 2500 AND 4000") == 0)
        #expect(try count(store, "SELECT count(*) FROM places") == 2)
        #expect(try count(store, "SELECT count(*) FROM visits WHERE abs(lon) < 179.9") == 0)
        #expect(try double(store, "SELECT sum(distance_m) FROM days") < 14_000)
    }

    @Test func trafficLightStopStaysInsideTrip() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 300, drift: 20...40)
        var truth = b.move(1500, bearing: 90, speed: 12)
        b.still(200, every: 1)  // a long red light / level crossing
        truth += b.move(1500, bearing: 90, speed: 12)
        b.still(1800, every: 300, drift: 20...40)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT count(*) FROM stays") == 2)
        let d = try double(store, "SELECT distance_m FROM trips")
        #expect(abs(d - truth) / truth < 0.02, "distance \(d) vs \(truth)")
    }

    @Test func tunnelDoesNotSplitTrip() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 300)
        var truth = b.move(2000, bearing: 0, speed: 15)
        b.gap(180, moving: 2700, bearing: 0)
        truth += 2700
        truth += b.move(2000, bearing: 0, speed: 15)
        b.still(1800, every: 300)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT gaps FROM trips") == 0)
        let d = try double(store, "SELECT distance_m FROM trips")
        #expect(abs(d - truth) / truth < 0.02, "distance \(d) vs \(truth)")
    }

    @Test func gapWithSamePlaceIsOneStay() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 600, drift: 20...60)
        b.gap(5 * 3600)
        b.still(3600, every: 600, drift: 20...60)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM stays") == 1)
        #expect(try count(store, "SELECT gap_s FROM stays") >= 5 * 3600)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    @Test func gapWithMovementIsNeitherStayNorDistance() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 600, drift: 10...30)
        b.gap(3 * 3600, moving: 5000, bearing: 90)
        b.still(3600, every: 600, drift: 10...30)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM stays") == 2)
        #expect(try count(store, "SELECT count(*) FROM stays WHERE end_ms - start_ms > 2 * 3600 * 1000") == 0)
        #expect(try (double(store, "SELECT coalesce(sum(distance_m), 0) FROM days")) == 0)
    }

    @Test func twoDevicesNeverMix() throws {
        var a = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        a.still(4 * 3600, every: 60, drift: 5...20)
        var b = TrackBuilder(startMs: t0 + 30_000, lat: 48.1372, lon: 11.5756)  // Munich, same hours
        b.still(4 * 3600, every: 60, drift: 5...20)
        let store = try storeWith([("a", a.points), ("b", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
        #expect(try count(store, "SELECT count(*) FROM stays") == 2)
        #expect(try count(store, "SELECT count(*) FROM places") == 2)
        #expect(try double(store, "SELECT coalesce(sum(distance_m), 0) FROM days") == 0)
    }

    @Test func twoShops200mApartStayTwoPlaces() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        for _ in 0..<2 {
            b.still(900, every: 60, drift: 5...25)  // shop A
            b.move(200, bearing: 90, speed: 1.4)
            b.still(900, every: 60, drift: 5...25)  // shop B
            b.move(200, bearing: 270, speed: 1.4)
        }
        b.still(900, every: 60, drift: 5...25)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM visits") == 5)
        #expect(try count(store, "SELECT count(*) FROM places") == 2)
        #expect(try count(store, "SELECT max(visits) FROM places") == 3)
        #expect(try count(store, "SELECT count(*) FROM trips") == 4)
    }

    @Test func farOffFixIsFlaggedAndAddsNothing() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 120, drift: 10...30)
        b.farOff(km: 3)
        b.still(1800, every: 120, drift: 10...30)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags & 1 != 0") == 1)
        #expect(try count(store, "SELECT count(*) FROM stays") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    @Test func outAndBackJumpIsFlagged() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(600, every: 60)
        // A fix 2 km off with a good-looking accuracy, then back.
        let p = Geo.destination(home.lat, home.lon, bearing: 10, distance: 2000)
        b.points.append(Point(deviceID: 0, timeMs: b.t + 5000, lat: p.lat, lon: p.lon, accuracyM: 30))
        b.t += 10_000
        b.still(600, every: 60)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags & 2 != 0") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    /// A GPS logger left on indoors (GPX: no speed, no accuracy) writes a fix whenever the drift moved 25 m, and each
    /// glitch 250 m off together with the fix back a second later. The glitches are out-and-back jumps (flagged), so
    /// the hours there are one stay and no trip; with version 36's 300-m minimum they were kept and cut the stay.
    @Test func loggerGlitchesIndoorsAreJumps() throws {
        var points: [Point] = []
        var t = t0
        for k in 0..<120 {
            let d = Geo.destination(home.lat, home.lon, bearing: Double(k * 67 % 360), distance: 20 + Double(k * 13 % 40))
            points.append(Point(deviceID: 0, timeMs: t, lat: d.lat, lon: d.lon))
            if k % 8 == 4 {
                let g = Geo.destination(home.lat, home.lon, bearing: Double(k * 29 % 360), distance: 250)
                points.append(Point(deviceID: 0, timeMs: t + 50_000, lat: g.lat, lon: g.lon))
                let back = Geo.destination(home.lat, home.lon, bearing: Double(k * 67 % 360), distance: 30)
                points.append(Point(deviceID: 0, timeMs: t + 51_000, lat: back.lat, lon: back.lon))
            }
            t += 60_000
        }
        let store = try storeWith([("logger", points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags & 2 != 0") == 15)
        #expect(try count(store, "SELECT count(*) FROM stays") == 1)
        #expect(try count(store, "SELECT count(*) FROM trips") == 0)
    }

    @Test func walkBusWalkIsOneTripWithThreeLegs() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 300)
        b.move(400, bearing: 0, speed: 1.4, motion: "walking")
        b.still(180, every: 1)  // waiting for the bus
        for _ in 0..<6 {
            b.move(500, bearing: 0, speed: 10, motion: "driving")
            b.still(30, every: 1)  // bus stop
        }
        b.move(500, bearing: 0, speed: 10, motion: "driving")
        b.move(300, bearing: 90, speed: 1.4, motion: "walking")
        b.still(1800, every: 300)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM trips") == 1)
        #expect(try count(store, "SELECT legs FROM trips") == 3)
        let s = try store.db.prepare("SELECT mode FROM legs ORDER BY leg")
        var modes: [String] = []
        while try s.step() { modes.append(s.text(0) ?? "") }
        #expect(modes == ["walk", "bus", "walk"])
    }

    @Test func appTripModeNamesTheLeg() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(1800, every: 300)
        b.move(6000, bearing: 0, speed: 12, tripMode: "taxi")
        b.still(1800, every: 300)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try store.db.scalarText("SELECT mode || '/' || mode_source FROM legs") == "car/app")
    }

    @Test func dstDayIsOneLocalDay() throws {
        // OwnTracks-like points (no offset) across 2024-03-31, Europe/Berlin: the day has 23 hours.
        let start: Int64 = 1_711_839_600_000  // 2024-03-30T23:00:00Z = 2024-03-31T00:00 local (CET)
        var b = TrackBuilder(startMs: start, lat: home.lat, lon: home.lon)
        b.still(9 * 3600, every: 900, drift: 10...30)
        b.move(3000, bearing: 0, speed: 10)
        b.still(3 * 3600, every: 900, drift: 10...30)
        b.move(3000, bearing: 180, speed: 10)
        b.still(12 * 3600, every: 900, drift: 10...30)  // until 01:10 local on 2024-04-01
        let store = try storeWith([("phone", b.points)])
        try rebuild(store, timezone: "Europe/Berlin")
        let s = try store.db.prepare("SELECT date, trips, utc_offset_s FROM days ORDER BY date")
        var rows: [String] = []
        while try s.step() { rows.append("\(s.text(0) ?? "") \(s.int(1)) \(s.int(2))") }
        #expect(rows == ["2024-03-31 2 3600", "2024-04-01 0 7200"])
        #expect(try store.db.scalarText("SELECT value FROM settings WHERE key = 'timezone'") == "Europe/Berlin")
        // Trips carry the resolved local offset (summer time by then).
        #expect(try count(store, "SELECT min(start_utc_offset_s) FROM trips") == 7200)
    }

    @Test func overridesAreValidatedAndRecorded() throws {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon)
        b.still(3600, every: 300)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store, sets: ["stays.radius_m=80"])
        let params = try store.db.scalarText("SELECT parameters FROM pass_runs WHERE pass = 'stays'") ?? ""
        #expect(params.contains("\"radius_m\":80"))
        #expect(throws: PassSettingsError.unknownParameter(key: "stays.radius", pass: "stays", known: StaysPass.Parameters.keys.keys.sorted())) {
            try rebuild(store, sets: ["stays.radius=80"])
        }
        #expect(throws: PassSettingsError.self) { try rebuild(store, sets: ["nopass.x=1"]) }
        #expect(throws: RebuildError.unknownTimeZone("Mars/Base")) { try rebuild(store, timezone: "Mars/Base") }
    }
}

@Suite struct AppTripAndCleanTests {
    @Test func sameInstantDuplicatesAreFlagged() throws {
        var b = TrackBuilder(startMs: 1_717_200_000_000, lat: 52.52, lon: 13.405)
        b.still(1200, every: 60)
        var dup = b.points[5]
        dup.timeMs += 200  // the same fix re-sent 0.2 s later
        b.points.insert(dup, at: 6)
        let store = try storeWith([("phone", b.points)])
        try rebuild(store)
        #expect(try count(store, "SELECT count(*) FROM point_flags WHERE flags = 4") == 1)
        #expect(try count(store, "SELECT time_ms FROM point_flags") == Int(dup.timeMs))
    }
}
