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
    ]

    /// The schema version this build of Tripline writes and understands.
    static var currentVersion: Int { migrations.count }
}
