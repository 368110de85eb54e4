#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
import TriplineCore
@testable import TriplineStore

/// A small database with known rows in every table the exports and reports read, so expected outputs can be worked
/// out by hand. All times are in March/April 2024; `settings.timezone` is Europe/Berlin (UTC+1, UTC+2 from
/// 2024-03-31T01:00Z).
///
/// - phone (id 1, Overland, offsets recorded as +01:00):
///   - trip 1, walk, 08:00–08:10Z: 11 points a minute apart, the 08:05 one flagged (flags 1) → one LineString of 10.
///   - a lone point at 12:00Z with no offset (shown at +01:00 through the zone).
///   - trip 2, car (legs walk + car), 17:00–17:30Z: points each minute 17:00–17:10 and 17:20–17:30 → one line (the
///     10-min gap is one the rebuild bridges, `metrics.bridge_max_s`).
///   - visits 1 (Home, 00:00–08:00Z), 2 (Work, 08:10–17:00Z), 3 (Home, 17:30–23:00Z); places 1 Home, 2 Work;
///     all in Berlin, Germany (`country_code`, `country`, `locality`).
///   - day 2024-03-01; app trip events 1 (matched to trip 1) and 2 (unmatched), and an app visit event.
/// - tablet (id 2, OwnTracks, no offsets: Europe/Berlin applies):
///   - points 2024-03-31 00:30Z (01:30+01:00) and 01:30Z (03:30+02:00); a visit 00:30–01:30Z with no place, in Munich.
///   - trip 3, bike, 2024-03-31 22:00–22:20Z = 2024-04-01 00:00–00:20+02:00: points every 2 minutes.
///   - days 2024-03-31 and 2024-04-01.
/// - rejects: 2 from the phone's import, 1 from the tablet's.
package enum ExportFixture {
    package static func ms(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Int64 {
        Int64(CivilTime.daysFromCivil(year: y, month: mo, day: d)) * 86_400_000 + Int64(h * 3600 + mi * 60 + s) * 1000
    }

    /// Names that the hostile-text test swaps in.
    package struct Names {
        package var phone = "phone"
        package var home = "Home"
        package var homeSSID: String? = "HomeNet"
        package var pointSSID: String? = nil
        /// The locality of the phone's places and visits (migration 3's columns; the tablet's visit is in Munich).
        package var locality = "Berlin"

        package init() {}
    }

    /// Creates the fixture database at `path`.
    @discardableResult
    package static func make(at path: String, names: Names = Names()) throws -> Store {
        let store = try Store(path: path)
        let db = store.db
        try db.transaction {
            try db.run("INSERT INTO settings(key, value) VALUES ('timezone', 'Europe/Berlin')")
            try db.run(
                "INSERT INTO devices(id, name, source, name_origin, created_ms) VALUES (1, ?, 'overland', 'device_id', 0), (2, 'tablet', 'owntracks', 'topic', 0)",
                [.text(names.phone)])
            try db.run(
                """
                INSERT INTO imports(id, path, size, fingerprint, format, device_id, points_new, rejected, started_ms, status)
                VALUES (1, 'phone.json', 100, 'f1', 'overland', 1, 34, 2, 0, 'done'), (2, 'tablet.rec', 50, 'f2', 'owntracks-rec', 2, 13, 1, 0, 'done')
                """)
            try db.run(
                """
                INSERT INTO rejects(import_id, line, byte_offset, reason, detail, excerpt) VALUES
                (1, 3, 120, 'bad-json', 'unterminated string', '{"x'), (1, 9, 400, 'no-coordinates', 'missing', '{}'),
                (2, 1, 0, 'bad-time', 'unparsable', '2024-13-01 x')
                """)

            var points: [Point] = []
            // Trip 1: 08:00–08:10Z, one point a minute.
            for i in 0...10 {
                points.append(
                    Point(
                        deviceID: 1, timeMs: ms(2024, 3, 1, 8, i), utcOffsetS: 3600, lat: 52.52 + Double(i) * 0.001,
                        lon: 13.405 + Double(i) * 0.0015, altitudeM: 30 + Double(i), speedMps: 1.5, courseDeg: 45,
                        accuracyM: 5, motion: "walking", ssid: i == 0 ? names.pointSSID : nil, importID: 1))
            }
            // A lone stationary point at noon, without an offset.
            points.append(
                Point(deviceID: 1, timeMs: ms(2024, 3, 1, 12, 0), lat: 52.531, lon: 13.416, accuracyM: 12.5, motion: "stationary", importID: 1))
            // Trip 2: 17:00–17:10Z and 17:20–17:30Z.
            var k = 0
            for minute in Array(0...10) + Array(20...30) {
                points.append(
                    Point(
                        deviceID: 1, timeMs: ms(2024, 3, 1, 17, minute), utcOffsetS: 3600, lat: 52.531 - Double(k) * 0.0005,
                        lon: 13.416 - Double(k) * 0.0005, altitudeM: -2.25, speedMps: 8, courseDeg: 225.5, accuracyM: 8,
                        motion: "automotive", importID: 1))
                k += 1
            }
            // Tablet: two points either side of the DST change, then trip 3 every two minutes.
            points.append(Point(deviceID: 2, timeMs: ms(2024, 3, 31, 0, 30), lat: 48.137, lon: 11.575, accuracyM: 20, importID: 2))
            points.append(Point(deviceID: 2, timeMs: ms(2024, 3, 31, 1, 30), lat: 48.137, lon: 11.575, accuracyM: 20, importID: 2))
            for i in 0...10 {
                points.append(
                    Point(
                        deviceID: 2, timeMs: ms(2024, 3, 31, 22, 2 * i), lat: 48.137 + Double(i) * 0.001, lon: 11.575,
                        speedMps: 4, accuracyM: 10, importID: 2))
            }
            try store.insertPoints(points)
            try db.run("INSERT INTO point_flags(device_id, time_ms, flags) VALUES (1, ?, 1), (1, ?, 0)", [.integer(ms(2024, 3, 1, 8, 5)), .integer(ms(2024, 3, 1, 8, 6))])

            try db.run(
                """
                INSERT INTO places(id, device_id, name, ssid, lat, lon, radius_m, visits, total_dwell_s, first_visit_ms, last_visit_ms)
                VALUES (1, 1, ?, ?, 52.52, 13.405, 50, 2, 48600, ?, ?), (2, 1, 'Work', NULL, 52.531, 13.416, 80, 1, 31800, ?, ?)
                """,
                [.text(names.home), names.homeSSID.map { .text($0) } ?? .null, .integer(ms(2024, 3, 1, 0, 0)), .integer(ms(2024, 3, 1, 23, 0)),
                 .integer(ms(2024, 3, 1, 8, 10)), .integer(ms(2024, 3, 1, 17, 0))])
            try db.run(
                """
                INSERT INTO visits(id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points)
                VALUES (1, 1, 1, ?, ?, 3600, 3600, 52.52, 13.405, 50, 20),
                       (2, 1, 2, ?, ?, 3600, 3600, 52.531, 13.416, 80, 30),
                       (3, 1, 1, ?, ?, 3600, 3600, 52.5201, 13.4049, 40, 15),
                       (4, 2, NULL, ?, ?, NULL, NULL, 48.137, 11.575, 30, 2)
                """,
                [.integer(ms(2024, 3, 1, 0, 0)), .integer(ms(2024, 3, 1, 8, 0)), .integer(ms(2024, 3, 1, 8, 10)), .integer(ms(2024, 3, 1, 17, 0)),
                 .integer(ms(2024, 3, 1, 17, 30)), .integer(ms(2024, 3, 1, 23, 0)), .integer(ms(2024, 3, 31, 0, 30)), .integer(ms(2024, 3, 31, 1, 30))])
            // Where they are (migration 3), as the places pass names them: Berlin and Munich.
            try db.run("UPDATE places SET country_code = 'DE', country = 'Germany', locality = ?", [.text(names.locality)])
            try db.run("UPDATE visits SET country_code = 'DE', country = 'Germany', locality = ? WHERE device_id = 1", [.text(names.locality)])
            try db.run("UPDATE visits SET country_code = 'DE', country = 'Germany', locality = 'Munich' WHERE device_id = 2")
            try db.run(
                """
                INSERT INTO trips(id, device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
                  avg_speed_mps, max_speed_mps, mode, legs, from_visit_id, to_visit_id, from_place_id, to_place_id, start_lat, start_lon,
                  end_lat, end_lon, points, gaps)
                VALUES (1, 1, ?, ?, 3600, 3600, 600, 540, 1500, 2.5, 3.1, 'walk', 1, 1, 2, 1, 2, 52.52, 13.405, 52.53, 13.42, 11, 0),
                       (2, 1, ?, ?, 3600, 3600, 1800, 1200, 4200.5, 3.5004, 12.25, 'car', 2, 2, 3, 2, 1, 52.531, 13.416, 52.5205, 13.4055, 22, 1),
                       (3, 2, ?, ?, NULL, NULL, 1200, 1100, 2222.25, 1.851875, 5, 'bike', 1, NULL, NULL, NULL, NULL, 48.137, 11.575, 48.147, 11.575, 11, 0)
                """,
                [.integer(ms(2024, 3, 1, 8, 0)), .integer(ms(2024, 3, 1, 8, 10)), .integer(ms(2024, 3, 1, 17, 0)), .integer(ms(2024, 3, 1, 17, 30)),
                 .integer(ms(2024, 3, 31, 22, 0)), .integer(ms(2024, 3, 31, 22, 20))])
            try db.run(
                """
                INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points)
                VALUES (1, 1, 1, 'walk', 'speed', ?, ?, 1500, 600, 11),
                       (2, 1, 1, 'walk', 'speed', ?, ?, 400, 300, 6),
                       (2, 2, 1, 'car', 'motion', ?, ?, 3800.5, 1500, 16),
                       (3, 1, 2, 'bike', 'speed', ?, ?, 2222.25, 1200, 11)
                """,
                [.integer(ms(2024, 3, 1, 8, 0)), .integer(ms(2024, 3, 1, 8, 10)), .integer(ms(2024, 3, 1, 17, 0)), .integer(ms(2024, 3, 1, 17, 5)),
                 .integer(ms(2024, 3, 1, 17, 5)), .integer(ms(2024, 3, 1, 17, 30)), .integer(ms(2024, 3, 31, 22, 0)), .integer(ms(2024, 3, 31, 22, 20))])
            try db.run(
                """
                INSERT INTO days(device_id, date, utc_offset_s, distance_m, moving_s, trips, visits, places)
                VALUES (1, '2024-03-01', 3600, 5700.5, 1740, 2, 3, 2),
                       (2, '2024-03-31', 7200, 0, 0, 0, 1, 0),
                       (2, '2024-04-01', 7200, 2222.25, 1100, 1, 0, 0)
                """)
            try db.run(
                """
                INSERT INTO app_events(id, device_id, import_id, kind, time_ms, utc_offset_s, start_ms, end_ms, distance_m, mode, raw)
                VALUES (1, 1, 1, 'trip', ?, 3600, ?, ?, 1450, 'hike', '{"n":1}'),
                       (2, 1, 1, 'trip', ?, 3600, ?, ?, 900, 'bicycle', '{"n":2}'),
                       (3, 1, 1, 'visit', ?, 3600, NULL, NULL, NULL, NULL, '{"n":3}')
                """,
                [.integer(ms(2024, 3, 1, 8, 10)), .integer(ms(2024, 3, 1, 8, 1)), .integer(ms(2024, 3, 1, 8, 9)),
                 .integer(ms(2024, 3, 1, 12, 30)), .integer(ms(2024, 3, 1, 12, 0)), .integer(ms(2024, 3, 1, 12, 30)),
                 .integer(ms(2024, 3, 1, 9, 0))])
            try db.run(
                """
                INSERT INTO app_trip_matches(event_id, device_id, trip_id, overlap, start_diff_s, end_diff_s, distance_diff_m, app_mode, trip_mode)
                VALUES (1, 1, 1, 0.8, 60, -60, -50, 'hike', 'walk'), (2, 1, NULL, NULL, NULL, NULL, NULL, 'bicycle', NULL)
                """)
        }
        return store
    }

    /// A fresh fixture database in a new temporary directory; returns the directory and the database path.
    package static func temporary(names: Names = Names()) throws -> (directory: String, path: String) {
        let directory = try temporaryDirectory()
        let path = directory + "/fixture.sqlite"
        try make(at: path, names: names)
        return (directory, path)
    }

    /// The golden export files (Tests/TriplineExportTests/Golden), rewritten by ExportGoldenTests under TRIPLINE_UPDATE_GOLDEN=1, read by
    /// the export tests and the CLI's export-command tests.
    package static var goldenDirectory: String { packageRoot() + "/Tests/TriplineExportTests/Golden" }
}
