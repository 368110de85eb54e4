import Testing
@testable import TriplineCore
@testable import TriplineStore
import TriplineTestSupport

/// The layout of migration 3: `points_hot` (one integer key, hot columns, the rest as JSON in `cold`) and the
/// `points` view with every column of the `points` table of versions 1 and 2.
@Suite struct PointLayoutTests {
    /// Every column of `points` as the table of versions 1 and 2 had it, in its order.
    static let columns = ["device_id", "time_ms", "lat", "lon", "accuracy_m", "speed_mps", "utc_offset_s", "motion", "app_trip_mode",
                          "import_id", "altitude_m", "course_deg", "v_accuracy_m", "battery_level", "battery_state", "ssid", "bssid",
                          "app_trip_id", "trigger", "conn", "extra"]

    /// Rows as the previous release stored them: every field set, none set, and awkward text.
    static let rows: [[SQLValue]] = [
        [.integer(1), .integer(1_600_000_000_000), .real(37.3312345), .real(-122.0312345), .real(5), .real(3.25), .integer(-25200),
         .text("driving,stationary"), .text("car"), .integer(1), .real(20), .real(271.5), .real(3), .real(0.87), .text("unplugged"),
         .text("Home \"5G\""), .text("aa:bb:cc:dd:ee:ff"), .text("trip-1"), .text("p"), .text("w"),
         .text("{\"speed_accuracy\":1.5,\"inregions\":[ \"home\", \"work\" ]}")],
        [.integer(1), .integer(1_600_000_001_000), .real(37.5), .real(-122.5), .null, .null, .null, .null, .null, .integer(1), .null, .null,
         .null, .null, .null, .null, .null, .null, .null, .null, .null],
        [.integer(2), .integer(946_684_800_000), .real(-33.9), .real(151.2), .real(12), .null, .null, .null, .null, .integer(2), .null, .null,
         .real(0.1 + 0.2), .real(1), .null, .text("café ☕\\ tab\t"), .null, .null, .null, .text("m"), .text("not JSON {")],
    ]

    /// The schema version of the previous release, the last with a `points` table.
    static let previousRelease = 2

    /// Builds a database of schema `version` the way the release that wrote it did (its migrations, its 21-column
    /// insert into the `points` table).
    static func makeOld(_ path: String, version: Int = previousRelease, rows: [[SQLValue]]) throws {
        let db = try Database(path: path)
        try db.execute("PRAGMA page_size=16384")
        try db.execute("PRAGMA journal_mode=WAL")
        for m in Schema.migrations.prefix(version) { try db.execute(m) }
        try db.execute("PRAGMA user_version=\(version)")
        try db.run("INSERT INTO devices(id, name, source, name_origin, created_ms) VALUES (1, 'phone', 'overland', 'device_id', 0), (2, 'watch', 'gpx', 'folder', 0)")
        let insert = try db.prepare("INSERT INTO points(\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ",")))")
        for row in rows {
            insert.reset()
            try insert.bind(row)
            _ = try insert.step()
        }
    }

    static func view(_ store: Store) throws -> [[SQLValue]] {
        let st = try store.db.prepare("SELECT \(columns.joined(separator: ", ")) FROM points ORDER BY device_id, time_ms")
        var result: [[SQLValue]] = []
        while try st.step() { result.append((0..<Int32(columns.count)).map { st.value($0) }) }
        return result
    }

    @Test(arguments: [previousRelease, 1])
    func migrationKeepsEveryColumnOfAnOldDatabase(version: Int) throws {
        let dir = try temporaryDirectory()
        let path = dir + "/old.sqlite"
        try Self.makeOld(path, version: version, rows: Self.rows)
        let store = try Store(path: path)
        #expect(try store.schemaVersion() == Schema.currentVersion)
        #expect(try store.db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='points'") == 0)
        let got = try Self.view(store)
        #expect(got.count == Self.rows.count)
        for (row, expected) in zip(got, Self.rows) {
            for k in Self.columns.indices {
                if Self.columns[k] == "extra", case .text(let text) = expected[k] {
                    #expect(row[k] == .text(text), "extra keeps the stored text byte for byte")
                } else {
                    #expect(row[k] == expected[k], "column \(Self.columns[k]): \(row[k]) != \(expected[k])")
                }
            }
        }
        // A point with none of the cold fields has no cold object; the key packs device and time.
        #expect(try store.db.scalarInt("SELECT count(*) FROM points_hot WHERE cold IS NULL") == 1)
        #expect(try store.db.scalarInt("SELECT key FROM points_hot WHERE cold IS NULL") == 1 << 42 | 1_600_000_001_000)
        // The migrated file takes new points through the writer, with the same dedup rule.
        let writer = try PointWriter(store.db)
        #expect(try writer.insert(Point(deviceID: 1, timeMs: 1_600_000_001_000, lat: 1, lon: 1, importID: 3)) == false)
        #expect(try writer.insert(Point(deviceID: 1, timeMs: 1_600_000_002_000, lat: 1, lon: 1, batteryLevel: 0.05, importID: 3)) == true)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points") == 4)
        #expect(try writer.stored(deviceID: 1, timeMs: 1_600_000_001_000)?.importID == 1)
    }

    @Test func migrationOfAPointThatDoesNotFitFailsAndLeavesTheFile() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/old.sqlite"
        var bad = Self.rows[1]
        bad[1] = .integer(-5)
        try Self.makeOld(path, rows: [Self.rows[0], bad])
        #expect(throws: DatabaseError.self) { try Store(path: path) }
        let raw = try Database(path: path)
        #expect(try raw.scalarInt("PRAGMA user_version") == Int64(Self.previousRelease))
        #expect(try raw.scalarInt("SELECT count(*) FROM points") == 2)
    }

    @Test func writerStoresWhatTheViewGivesBack() throws {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let device = try store.deviceID(named: "phone", source: "overland", origin: .deviceID)
        var points: [Point] = []
        for (k, row) in Self.rows.enumerated() {
            func real(_ i: Int) -> Double? { if case .real(let v) = row[i] { return v }; return nil }
            func text(_ i: Int) -> String? { if case .text(let v) = row[i] { return v }; return nil }
            func int(_ i: Int) -> Int64? { if case .integer(let v) = row[i] { return v }; return nil }
            points.append(Point(
                deviceID: device, timeMs: int(1)! + Int64(k), utcOffsetS: int(6).map { Int32($0) }, lat: real(2)!, lon: real(3)!,
                altitudeM: real(10), speedMps: real(5), courseDeg: real(11), accuracyM: real(4), vAccuracyM: real(12), motion: text(7),
                batteryLevel: real(13), batteryState: text(14), ssid: text(15), bssid: text(16), appTripID: text(17), appTripMode: text(8),
                trigger: text(18), conn: text(19), extra: text(20), importID: int(9)!))
        }
        // Numbers that need every digit, and control bytes in text.
        points.append(Point(deviceID: device, timeMs: 1_700_000_000_000, lat: 1, lon: 2, vAccuracyM: 1.0 / 3, batteryLevel: 5e-324,
                            batteryState: "\u{1}\n\"", extra: "", importID: 9))
        let inserted = try store.db.transaction { try store.insertPoints(points) }
        #expect(inserted == points.count)
        let st = try store.db.prepare("SELECT \(Self.columns.joined(separator: ", ")) FROM points WHERE device_id = ? ORDER BY time_ms")
        st.bindInt(device, at: 1)
        var got: [Point] = []
        while try st.step() {
            func real(_ i: Int32) -> Double? { st.optionalDouble(i) }
            got.append(Point(
                deviceID: st.int64(0), timeMs: st.int64(1), utcOffsetS: st.optionalInt64(6).map { Int32($0) }, lat: st.double(2), lon: st.double(3),
                altitudeM: real(10), speedMps: real(5), courseDeg: real(11), accuracyM: real(4), vAccuracyM: real(12), motion: st.text(7),
                batteryLevel: real(13), batteryState: st.text(14), ssid: st.text(15), bssid: st.text(16), appTripID: st.text(17),
                appTripMode: st.text(8), trigger: st.text(18), conn: st.text(19), extra: st.text(20), importID: st.int64(9)))
        }
        #expect(got == points.sorted { $0.timeMs < $1.timeMs })
        // The cold object is valid JSON for SQLite (the view reads it with json_extract).
        #expect(try store.db.scalarInt("SELECT count(*) FROM points_hot WHERE cold IS NOT NULL AND NOT json_valid(cold)") == 0)
    }

    /// The writer does not bind a parameter again when it was NULL in the last row and is NULL again; every
    /// value-to-NULL, NULL-to-value and NULL-to-NULL change between consecutive rows must still store what was given.
    @Test func writerStoresNullsAndValuesInAnyOrder() throws {
        let dir = try temporaryDirectory()
        let store = try Store(path: dir + "/t.sqlite")
        let device = try store.deviceID(named: "phone", source: "overland", origin: .deviceID)
        var rng = SplitMix64(seed: 3)
        func maybe<T>(_ v: T) -> T? { rng.next() % 2 == 0 ? v : nil }
        var points: [Point] = []
        for k in 0..<400 {
            points.append(Point(deviceID: device, timeMs: 1_600_000_000_000 + Int64(k) * 1000, utcOffsetS: maybe(3600), lat: 10, lon: 20,
                                altitudeM: maybe(Double(k)), speedMps: maybe(1.5), courseDeg: maybe(90), accuracyM: maybe(5),
                                vAccuracyM: maybe(3), motion: maybe("walking"), batteryLevel: maybe(0.5), batteryState: maybe("full"),
                                ssid: maybe("net \(k)"), appTripMode: maybe("car"), extra: maybe("{}"), importID: 1))
        }
        let writer = try PointWriter(store.db)
        let encoder = ColdBuffer()
        let inserted: Int = try store.db.transaction { () throws -> Int in
            var new = 0
            for (k, p) in points.enumerated() {
                // Both entry points: cold encoded by the writer, and cold encoded beforehand (the importer's way).
                let n = encoder.encode(p)
                let ok = k % 3 == 0
                    ? try writer.insert(p, cold: UnsafeRawBufferPointer(start: encoder.bytes, count: n), deviceID: device, importID: 1)
                    : try writer.insert(p, deviceID: device, importID: 1)
                if ok { new += 1 }
            }
            return new
        }
        #expect(inserted == points.count)
        let st = try store.db.prepare("SELECT \(Self.columns.joined(separator: ", ")) FROM points ORDER BY time_ms")
        var got: [Point] = []
        while try st.step() {
            func real(_ i: Int32) -> Double? { st.optionalDouble(i) }
            got.append(Point(
                deviceID: st.int64(0), timeMs: st.int64(1), utcOffsetS: st.optionalInt64(6).map { Int32($0) }, lat: st.double(2), lon: st.double(3),
                altitudeM: real(10), speedMps: real(5), courseDeg: real(11), accuracyM: real(4), vAccuracyM: real(12), motion: st.text(7),
                batteryLevel: real(13), batteryState: st.text(14), ssid: st.text(15), bssid: st.text(16), appTripID: st.text(17),
                appTripMode: st.text(8), trigger: st.text(18), conn: st.text(19), extra: st.text(20), importID: st.int64(9)))
        }
        #expect(got == points)
    }

    @Test func writerRefusesPointsOutsideTheKey() throws {
        let store = try Store(path: try temporaryDirectory() + "/t.sqlite")
        let writer = try PointWriter(store.db)
        #expect(throws: StoreError.self) { try writer.insert(Point(deviceID: 1, timeMs: -1, lat: 1, lon: 1)) }
        #expect(throws: StoreError.self) { try writer.insert(Point(deviceID: 1, timeMs: PointKey.maxTimeMs + 1, lat: 1, lon: 1)) }
        #expect(throws: StoreError.self) { try writer.insert(Point(deviceID: PointKey.maxDeviceID + 1, timeMs: 0, lat: 1, lon: 1)) }
        #expect(try writer.insert(Point(deviceID: PointKey.maxDeviceID, timeMs: PointKey.maxTimeMs, lat: 1, lon: 1)))
        #expect(try store.db.scalarInt("SELECT device_id FROM points") == PointKey.maxDeviceID)
        #expect(try store.db.scalarInt("SELECT time_ms FROM points") == PointKey.maxTimeMs)
    }

    @Test func keyRangesClampAndOrder() {
        #expect(PointKey.range(device: 3, fromMs: Int64.min, throughMs: Int64.max) == (3 << 42, 3 << 42 | PointKey.maxTimeMs))
        let empty = PointKey.range(device: 3, fromMs: 10, untilMs: 10)
        #expect(empty.lower > empty.upper)
        #expect(PointKey.range(device: 3, fromMs: 0, untilMs: Int64.min).lower > PointKey.range(device: 3, fromMs: 0, untilMs: Int64.min).upper)
        #expect(PointKey.time(PointKey.make(device: 7, timeMs: 123)!) == 123)
        #expect(PointKey.device(PointKey.make(device: 7, timeMs: 123)!) == 7)
    }
}
