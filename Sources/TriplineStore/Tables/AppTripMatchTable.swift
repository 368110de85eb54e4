import TriplineCore

// `app_trip_matches`: an app's own trips matched to rebuilt ones. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `app_trip_matches`: an app's own trip record and the rebuilt trip it overlaps most.
public struct AppTripMatchRow: Sendable, Equatable {
    public var eventID: Int64
    public var deviceID: Int64?
    public var tripID: Int64?
    public var overlap: Double?
    public var startDiffS: Double?
    public var endDiffS: Double?
    public var distanceDiffM: Double?
    public var appMode: String?
    public var tripMode: String?

    public init(
        eventID: Int64, deviceID: Int64?, tripID: Int64?, overlap: Double?, startDiffS: Double?, endDiffS: Double?, distanceDiffM: Double?,
        appMode: String?, tripMode: String?
    ) {
        self.eventID = eventID
        self.deviceID = deviceID
        self.tripID = tripID
        self.overlap = overlap
        self.startDiffS = startDiffS
        self.endDiffS = endDiffS
        self.distanceDiffM = distanceDiffM
        self.appMode = appMode
        self.tripMode = tripMode
    }
}

extension RebuildTables {
    /// Inserts (or replaces) an app trip's match.
    public func insert(_ r: AppTripMatchRow) throws {
        let s = try statement(
            """
            INSERT OR REPLACE INTO app_trip_matches(event_id, device_id, trip_id, overlap, start_diff_s, end_diff_s, distance_diff_m, app_mode, trip_mode)
            VALUES (?,?,?,?,?,?,?,?,?)
            """)
        try s.bind([.integer(r.eventID), .optional(r.deviceID), .optional(r.tripID), .optional(r.overlap), .optional(r.startDiffS),
                    .optional(r.endDiffS), .optional(r.distanceDiffM), .optional(r.appMode), .optional(r.tripMode)])
        _ = try s.step()
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// `device`'s app trips that overlap `fromMs ..< untilMs`: how many, and how many a rebuilt trip matched.
    public func appTripMatchCounts(device: Int64, fromMs: Int64, untilMs: Int64) throws -> (appTrips: Int, matched: Int) {
        let st = try db.prepare(
            """
            SELECT count(*), count(m.trip_id) FROM app_trip_matches m JOIN app_events e ON e.id = m.event_id
            WHERE m.device_id = ? AND e.end_ms >= ? AND e.start_ms < ?
            """)
        try st.bind([.integer(device), .integer(fromMs), .integer(untilMs)])
        _ = try st.step()
        return (st.int(0), st.int(1))
    }
}
