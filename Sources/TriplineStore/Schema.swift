/// The schema, as an ordered list of migrations. Migration N brings `PRAGMA user_version` from N-1 to N.
///
/// The schema is part of Tripline's interface: users query it with their own SQL. Every table and column is
/// documented in `docs/SCHEMA.md`; change both together, and only ever by appending a migration.
///
/// Conventions:
/// - Times are integers, milliseconds since 1970-01-01T00:00:00Z (UTC), in columns named `*_ms`.
/// - A local UTC offset, where known, is in seconds east of UTC, in columns named `*utc_offset_s`.
/// - Distances in metres (`*_m`), speeds in metres per second (`*_mps`), durations in seconds (`*_s`).
/// - Coordinates are WGS 84 degrees, `lat` and `lon`.
enum Schema {
    static let migrations: [String] = [
        // 1: the raw store (import) and the rebuild's outputs.
        """
        CREATE TABLE devices (
            id          INTEGER PRIMARY KEY,
            name        TEXT NOT NULL UNIQUE,
            source      TEXT NOT NULL,
            name_origin TEXT NOT NULL,
            tid         TEXT,
            created_ms  INTEGER NOT NULL
        );

        CREATE TABLE settings (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        CREATE TABLE imports (
            id            INTEGER PRIMARY KEY,
            path          TEXT NOT NULL,
            size          INTEGER NOT NULL,
            fingerprint   TEXT NOT NULL,
            format        TEXT,
            creator       TEXT,
            device_id     INTEGER REFERENCES devices(id),
            points_new    INTEGER NOT NULL DEFAULT 0,
            points_duplicate INTEGER NOT NULL DEFAULT 0,
            rejected      INTEGER NOT NULL DEFAULT 0,
            events        INTEGER NOT NULL DEFAULT 0,
            started_ms    INTEGER NOT NULL,
            finished_ms   INTEGER,
            status        TEXT NOT NULL,
            message       TEXT
        );
        CREATE INDEX imports_fingerprint ON imports(fingerprint);

        -- Column order is for speed, not looks: SQLite decodes a record from its start up to the last column a
        -- query reads, so the columns every rebuild and export reads come first, and rarely read text (`extra`) last.
        -- Always insert with a column list.
        CREATE TABLE points (
            device_id     INTEGER NOT NULL,
            time_ms       INTEGER NOT NULL,
            lat           REAL NOT NULL,
            lon           REAL NOT NULL,
            accuracy_m    REAL,
            speed_mps     REAL,
            utc_offset_s  INTEGER,
            motion        TEXT,
            app_trip_mode TEXT,
            import_id     INTEGER NOT NULL,
            altitude_m    REAL,
            course_deg    REAL,
            v_accuracy_m  REAL,
            battery_level REAL,
            battery_state TEXT,
            ssid          TEXT,
            bssid         TEXT,
            app_trip_id   TEXT,
            trigger       TEXT,
            conn          TEXT,
            extra         TEXT,
            PRIMARY KEY (device_id, time_ms)
        ) WITHOUT ROWID;

        CREATE TABLE rejects (
            id          INTEGER PRIMARY KEY,
            import_id   INTEGER NOT NULL,
            line        INTEGER,
            byte_offset INTEGER NOT NULL,
            reason      TEXT NOT NULL,
            detail      TEXT NOT NULL,
            excerpt     TEXT
        );
        CREATE INDEX rejects_import ON rejects(import_id);

        CREATE TABLE app_events (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER,
            import_id   INTEGER NOT NULL,
            kind        TEXT NOT NULL,
            time_ms     INTEGER,
            utc_offset_s INTEGER,
            lat         REAL,
            lon         REAL,
            start_ms    INTEGER,
            end_ms      INTEGER,
            distance_m  REAL,
            mode        TEXT,
            raw         TEXT NOT NULL
        );
        CREATE UNIQUE INDEX app_events_identity ON app_events(device_id, kind, time_ms, raw);

        CREATE TABLE pass_runs (
            id          INTEGER PRIMARY KEY,
            pass        TEXT NOT NULL,
            device_id   INTEGER,
            from_ms     INTEGER,
            to_ms       INTEGER,
            parameters  TEXT NOT NULL,
            stats       TEXT,
            started_ms  INTEGER NOT NULL,
            finished_ms INTEGER
        );

        CREATE TABLE point_flags (
            device_id INTEGER NOT NULL,
            time_ms   INTEGER NOT NULL,
            flags     INTEGER NOT NULL,
            PRIMARY KEY (device_id, time_ms)
        ) WITHOUT ROWID;

        CREATE TABLE stays (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL,
            start_ms    INTEGER NOT NULL,
            end_ms      INTEGER NOT NULL,
            lat         REAL NOT NULL,
            lon         REAL NOT NULL,
            radius_m    REAL NOT NULL,
            points      INTEGER NOT NULL,
            gap_s       INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX stays_device_time ON stays(device_id, start_ms);

        CREATE TABLE places (
            id            INTEGER PRIMARY KEY,
            device_id     INTEGER NOT NULL,
            name          TEXT NOT NULL,
            ssid          TEXT,
            lat           REAL NOT NULL,
            lon           REAL NOT NULL,
            radius_m      REAL NOT NULL,
            visits        INTEGER NOT NULL,
            total_dwell_s INTEGER NOT NULL,
            first_visit_ms INTEGER,
            last_visit_ms  INTEGER
        );
        CREATE INDEX places_device ON places(device_id);

        CREATE TABLE visits (
            id          INTEGER PRIMARY KEY,
            device_id   INTEGER NOT NULL,
            place_id    INTEGER REFERENCES places(id),
            start_ms    INTEGER NOT NULL,
            end_ms      INTEGER NOT NULL,
            start_utc_offset_s INTEGER,
            end_utc_offset_s   INTEGER,
            lat         REAL NOT NULL,
            lon         REAL NOT NULL,
            radius_m    REAL NOT NULL,
            points      INTEGER NOT NULL
        );
        CREATE INDEX visits_device_time ON visits(device_id, start_ms);

        CREATE TABLE trips (
            id            INTEGER PRIMARY KEY,
            device_id     INTEGER NOT NULL,
            start_ms      INTEGER NOT NULL,
            end_ms        INTEGER NOT NULL,
            start_utc_offset_s INTEGER,
            end_utc_offset_s   INTEGER,
            duration_s    REAL NOT NULL,
            moving_s      REAL NOT NULL,
            distance_m    REAL NOT NULL,
            avg_speed_mps REAL,
            max_speed_mps REAL,
            mode          TEXT NOT NULL,
            legs          INTEGER NOT NULL,
            from_visit_id INTEGER,
            to_visit_id   INTEGER,
            from_place_id INTEGER,
            to_place_id   INTEGER,
            start_lat     REAL,
            start_lon     REAL,
            end_lat       REAL,
            end_lon       REAL,
            points        INTEGER NOT NULL,
            gaps          INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX trips_device_time ON trips(device_id, start_ms);

        CREATE TABLE legs (
            trip_id     INTEGER NOT NULL,
            leg         INTEGER NOT NULL,
            device_id   INTEGER NOT NULL,
            mode        TEXT NOT NULL,
            mode_source TEXT NOT NULL,
            start_ms    INTEGER NOT NULL,
            end_ms      INTEGER NOT NULL,
            distance_m  REAL NOT NULL,
            duration_s  REAL NOT NULL,
            points      INTEGER NOT NULL,
            PRIMARY KEY (trip_id, leg)
        );

        CREATE TABLE days (
            device_id  INTEGER NOT NULL,
            date       TEXT NOT NULL,
            utc_offset_s INTEGER,
            distance_m REAL NOT NULL,
            moving_s   REAL NOT NULL,
            trips      INTEGER NOT NULL,
            visits     INTEGER NOT NULL,
            places     INTEGER NOT NULL,
            PRIMARY KEY (device_id, date)
        );

        CREATE TABLE app_trip_matches (
            event_id        INTEGER NOT NULL PRIMARY KEY,
            device_id       INTEGER,
            trip_id         INTEGER,
            overlap         REAL,
            start_diff_s    REAL,
            end_diff_s      REAL,
            distance_diff_m REAL,
            app_mode        TEXT,
            trip_mode       TEXT
        );
        """,
        // 2: what each device's results were built with (staleness is detected, never silent), and the user's own
        // edits of places, which every rebuild applies. The incremental marker moves from `settings`
        // (`rebuild.last_import.<device id>`) into `rebuild_state`; such a device has no record of its settings, so
        // its next rebuild recomputes everything and says so.
        """
        CREATE TABLE rebuild_state (
            device_id         INTEGER PRIMARY KEY,
            parameters        TEXT NOT NULL,
            timezone          TEXT NOT NULL,
            algorithm_version INTEGER NOT NULL,
            last_import_id    INTEGER,
            rebuilt_ms        INTEGER NOT NULL
        );
        INSERT INTO rebuild_state(device_id, parameters, timezone, algorithm_version, last_import_id, rebuilt_ms)
            SELECT CAST(substr(key, 21) AS INTEGER), '{}', '', 0, CAST(value AS INTEGER), 0
            FROM settings WHERE key LIKE 'rebuild.last_import.%';
        DELETE FROM settings WHERE key LIKE 'rebuild.last_import.%';

        CREATE TABLE place_edits (
            id         INTEGER PRIMARY KEY,
            device_id  INTEGER NOT NULL,
            action     TEXT NOT NULL CHECK (action IN ('rename', 'merge', 'forget')),
            lat        REAL NOT NULL,
            lon        REAL NOT NULL,
            name       TEXT,
            into_lat   REAL,
            into_lon   REAL,
            created_ms INTEGER NOT NULL
        );
        CREATE INDEX place_edits_device ON place_edits(device_id, id);
        """,

        // 3: `points` becomes a view over `points_hot`, one narrow rowid b-tree (issue 14; docs/SCHEMA.md and
        // docs/PERFORMANCE.md). The integer primary key packs the dedup identity: `key = device_id << 42 | time_ms`
        // (times 1970 … 2109, device ids < 2^21), so a point is one integer-keyed b-tree entry instead of a
        // two-column record key. The columns the rebuild, the exports and the map read are plain columns; the ones
        // nothing in Tripline reads (v_accuracy_m, battery_level, battery_state, bssid, app_trip_id, trigger, conn,
        // extra) are one JSON object in `cold`, NULL when the point has none of them. The view shows every column
        // of versions 1 and 2 under its old name and in its old order.
        //
        // Numbers are written with 17 significant digits (`%!.17g`: they read back as the same double; json_quote
        // keeps only 15), infinities as ±1e999.
        //
        // A stored point whose device or time does not fit the key makes the copy fail ('datatype mismatch': a
        // text key for an INTEGER PRIMARY KEY), so the migration rolls back and the file is left as it was.
        """
        CREATE TABLE points_hot (
            key           INTEGER PRIMARY KEY,
            lat           REAL NOT NULL,
            lon           REAL NOT NULL,
            accuracy_m    REAL,
            speed_mps     REAL,
            utc_offset_s  INTEGER,
            motion        TEXT,
            app_trip_mode TEXT,
            import_id     INTEGER NOT NULL,
            altitude_m    REAL,
            course_deg    REAL,
            ssid          TEXT,
            cold          TEXT
        );

        INSERT INTO points_hot(key, lat, lon, accuracy_m, speed_mps, utc_offset_s, motion, app_trip_mode, import_id,
                               altitude_m, course_deg, ssid, cold)
        SELECT CASE WHEN device_id BETWEEN 0 AND 2097151 AND time_ms BETWEEN 0 AND 4398046511103
                    THEN (device_id << 42) | time_ms
                    ELSE 'point out of range: device ' || device_id || ', time_ms ' || time_ms END,
               lat, lon, accuracy_m, speed_mps, utc_offset_s, motion, app_trip_mode, import_id, altitude_m, course_deg, ssid,
               CASE WHEN coalesce(v_accuracy_m, battery_level, battery_state, bssid, app_trip_id, trigger, conn, extra) IS NULL
                    THEN NULL
                    ELSE '{' || substr(
                        CASE WHEN v_accuracy_m IS NULL THEN '' ELSE ',"v_accuracy_m":' || CASE WHEN v_accuracy_m > 1.7976931348623157e308 THEN '1e999'
                             WHEN v_accuracy_m < -1.7976931348623157e308 THEN '-1e999' ELSE printf('%!.17g', v_accuracy_m) END END ||
                        CASE WHEN battery_level IS NULL THEN '' ELSE ',"battery_level":' || CASE WHEN battery_level > 1.7976931348623157e308 THEN '1e999'
                             WHEN battery_level < -1.7976931348623157e308 THEN '-1e999' ELSE printf('%!.17g', battery_level) END END ||
                        CASE WHEN battery_state IS NULL THEN '' ELSE ',"battery_state":' || json_quote(battery_state) END ||
                        CASE WHEN bssid IS NULL THEN '' ELSE ',"bssid":' || json_quote(bssid) END ||
                        CASE WHEN app_trip_id IS NULL THEN '' ELSE ',"app_trip_id":' || json_quote(app_trip_id) END ||
                        CASE WHEN trigger IS NULL THEN '' ELSE ',"trigger":' || json_quote(trigger) END ||
                        CASE WHEN conn IS NULL THEN '' ELSE ',"conn":' || json_quote(conn) END ||
                        CASE WHEN extra IS NULL THEN '' ELSE ',"extra":' || json_quote(extra) END, 2) || '}'
               END
        FROM points ORDER BY device_id, time_ms;

        DROP TABLE points;

        CREATE VIEW points AS
        SELECT key >> 42                                          AS device_id,
               key & 4398046511103                                AS time_ms,
               lat, lon, accuracy_m, speed_mps, utc_offset_s, motion, app_trip_mode, import_id, altitude_m, course_deg,
               CAST(json_extract(cold, '$.v_accuracy_m') AS REAL)  AS v_accuracy_m,
               CAST(json_extract(cold, '$.battery_level') AS REAL) AS battery_level,
               json_extract(cold, '$.battery_state')              AS battery_state,
               ssid,
               json_extract(cold, '$.bssid')                      AS bssid,
               json_extract(cold, '$.app_trip_id')                AS app_trip_id,
               json_extract(cold, '$.trigger')                    AS trigger,
               json_extract(cold, '$.conn')                       AS conn,
               json_extract(cold, '$.extra')                      AS extra
        FROM points_hot;
        """,

        // 4: places and visits named (issue 13): the country and the nearest populated place (city, town) of the centre,
        // looked up offline in TriplineGeography by the places pass. NULL for rows written before this migration
        // until the next `rebuild`, and at sea (country) or when the lookup gives nothing.
        """
        ALTER TABLE places ADD COLUMN country_code TEXT;
        ALTER TABLE places ADD COLUMN country TEXT;
        ALTER TABLE places ADD COLUMN locality TEXT;
        ALTER TABLE visits ADD COLUMN country_code TEXT;
        ALTER TABLE visits ADD COLUMN country TEXT;
        ALTER TABLE visits ADD COLUMN locality TEXT;
        """,

        // 5: distance when fixes are sparse (the `paths` pass, docs/PASSES.md). `distance_m` of trips and days is the
        // estimated path; the straight lines between the kept fixes (what `distance_m` held before) are kept here.
        """
        ALTER TABLE trips ADD COLUMN line_distance_m REAL;
        ALTER TABLE trips ADD COLUMN distance_method TEXT;
        ALTER TABLE days ADD COLUMN line_distance_m REAL;
        """,

        // 6: app events kept without a device (no point in their file names one) or without a time are deduplicated
        // like the others: a unique index treats NULLs as distinct, so the same event in two files was stored twice.
        // The copies are the same kind, time and raw text, so dropping all but the first loses nothing. The passes'
        // reads by device and time, which the old index served, get an index of their own.
        """
        DELETE FROM app_events WHERE id NOT IN (
            SELECT min(id) FROM app_events GROUP BY ifnull(device_id, 0), kind, ifnull(time_ms, -1), raw);
        DROP INDEX app_events_identity;
        CREATE UNIQUE INDEX app_events_identity ON app_events(ifnull(device_id, 0), kind, ifnull(time_ms, -1), raw);
        CREATE INDEX app_events_device_time ON app_events(device_id, time_ms);
        """,

        // 7: the earliest time of the points an import added, so that an incremental rebuild finds where the new
        // points start from the few imports after its last one instead of reading every point of the device
        // (`import_id` has no index: it would cost the import a b-tree as large as the points'). NULL for imports
        // written before this migration and for those that added no point.
        """
        ALTER TABLE imports ADD COLUMN first_ms INTEGER;
        """,

        // 8: rejects are bounded per file (issue 21: 200 MB of bad records made 9.5 M rows). A file keeps its first
        // rejects one row each; the rest are counted, one row per reason whose `records` says how many rejected
        // records it stands for (1 for every row written before this migration and for every row kept in full).
        """
        ALTER TABLE rejects ADD COLUMN records INTEGER NOT NULL DEFAULT 1;
        """,

        // 9: Google's own timeline as results (docs/PASSES.md, "timeline"): visits, trips and legs say where they came
        // from (`points`: rebuilt from the fixes; `app`: an app's own segment, Google's visits and activities, used where
        // the fixes made nothing); places and visits keep Google's place id, legs Google's activity type as written.
        // Rows written before this migration were all rebuilt from points.
        """
        ALTER TABLE visits ADD COLUMN source TEXT NOT NULL DEFAULT 'points';
        ALTER TABLE visits ADD COLUMN app_place_id TEXT;
        ALTER TABLE trips ADD COLUMN source TEXT NOT NULL DEFAULT 'points';
        ALTER TABLE legs ADD COLUMN source TEXT NOT NULL DEFAULT 'points';
        ALTER TABLE legs ADD COLUMN app_activity TEXT;
        ALTER TABLE places ADD COLUMN source TEXT NOT NULL DEFAULT 'points';
        ALTER TABLE places ADD COLUMN app_place_id TEXT;
        """,

        // 10: privacy zones remembered by `tripline privacy add` (docs/EXPORTS.md, "Privacy zones"): a centre and a
        // radius that every export and map leaves out. The centre is copied from the place, so the zone outlives a
        // rebuild that drops or renumbers the place; `label` is the place's name then, shown only by `privacy list`.
        """
        CREATE TABLE privacy_zones (
            id INTEGER PRIMARY KEY,
            label TEXT NOT NULL,
            place_id INTEGER,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            radius_m REAL NOT NULL CHECK (radius_m > 0)
        );
        """,

        // 11: what the trips pass measured before the paths pass changed it (docs/PASSES.md, "paths"): a trip's maximum
        // speed (the fixes' highest, at least the straight-line average) and a leg's straight lines, so that `rebuild
        // --pass paths` starts from them, as a full rebuild does, and not from an earlier run's path. Rows written before
        // this migration get the stored figures (a `--pass paths` on them starts there, as it did); the app's own rows
        // (`source` = `app`) have none.
        """
        ALTER TABLE trips ADD COLUMN line_max_speed_mps REAL;
        ALTER TABLE legs ADD COLUMN line_distance_m REAL;
        UPDATE trips SET line_max_speed_mps = max_speed_mps WHERE source = 'points';
        UPDATE legs SET line_distance_m = distance_m WHERE source = 'points';
        """,

        // 12: the line of a leg taken from an app's timeline (docs/PASSES.md, "timeline"; docs/EXPORTS.md): Google's
        // start position, its path points in order (`waypointPath`, else `simplifiedRawPath`) and its end position, as
        // little-endian 64-bit floats, latitude then longitude for each position; NULL for legs rebuilt from fixes
        // (their line is their fixes) and for an activity without any position. Written by the timeline pass, so the
        // exports and the map draw the same line without reading `app_events`; a rebuild fills it.
        """
        ALTER TABLE legs ADD COLUMN app_line BLOB;
        """,
    ]

    /// The schema version this build of Tripline writes and understands.
    static var currentVersion: Int { migrations.count }
}
