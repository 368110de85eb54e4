import TriplineStore

/// Pass 6, `apptrips`: compares the app's own trip records (Overland `"type":"trip"`, stored in `app_events` with
/// kind `trip`) with the rebuilt trips. Each app trip is matched to the rebuilt trip it overlaps most in time; the
/// overlap (intersection over union), the start, end and distance differences and both modes go to
/// `app_trip_matches` (trip_id NULL when no rebuilt trip overlaps it). The app's record is evidence, not truth.
public struct AppTripsPass: Pass {
    public static let name = "apptrips"

    public struct Parameters: PassParameters {
        /// Least temporal overlap (intersection over union) for a match to be recorded with a trip.
        public var minOverlap: Double = 0.1
        public init() {}
        public static var keys: Keys { ["min_overlap": \.minOverlap] }

        /// Valid values (docs/PASSES.md, "Valid ranges").
        public static var ranges: Ranges { ["min_overlap": .share] }  // an intersection over union
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        let events = try work.spanQuery(
            """
            SELECT id, start_ms, end_ms, distance_m, mode FROM app_events
            WHERE device_id = ? AND kind = 'trip' AND start_ms IS NOT NULL AND end_ms IS NOT NULL AND end_ms >= ? AND start_ms < ?
            ORDER BY start_ms
            """, store)
        // A trip that overlaps the record starts at most the longest trip's duration before it: a bound on the index
        // (`trips_device_time`), so each record reads the trips near it, not every earlier one (15,000 Google
        // activities took 75 s against 15,000 trips).
        let longest = try store.db.scalarInt(
            "SELECT max(end_ms - start_ms) FROM trips WHERE device_id = ? AND source = 'points'", [.integer(work.deviceID)]) ?? 0
        let trips = try store.db.prepare(
            "SELECT id, start_ms, end_ms, distance_m, mode FROM trips WHERE device_id = ? AND end_ms >= ? AND start_ms <= ? AND start_ms >= ? AND source = 'points'")
        let tables = RebuildTables(store)
        var matched = 0, total = 0
        while try events.step() {
            total += 1
            let id = events.int64(0), s = events.int64(1), e = events.int64(2)
            let dist = events.optionalDouble(3)
            let mode = events.text(4)
            trips.reset()
            trips.bindInt(work.deviceID, at: 1)
            trips.bindInt(s, at: 2)
            trips.bindInt(e, at: 3)
            trips.bindInt(s - longest, at: 4)
            var best: (id: Int64, iou: Double, s: Int64, e: Int64, d: Double, mode: String?)? = nil
            while try trips.step() {
                let ts = trips.int64(1), te = trips.int64(2)
                let inter = Double(max(0, min(e, te) - max(s, ts)))
                let union = Double(max(e, te) - min(s, ts))
                let iou = union > 0 ? inter / union : 0
                if iou >= parameters.minOverlap && (best == nil || iou > best!.iou) {
                    best = (trips.int64(0), iou, ts, te, trips.double(3), trips.text(4))
                }
            }
            try tables.insert(
                AppTripMatchRow(eventID: id, deviceID: work.deviceID, tripID: best?.id, overlap: best?.iou, startDiffS: best.map { Double($0.s - s) / 1000 },
                                endDiffS: best.map { Double($0.e - e) / 1000 }, distanceDiffM: best.flatMap { b in dist.map { b.d - $0 } },
                                appMode: mode, tripMode: best?.mode))
            if best != nil { matched += 1 }
        }
        return [("app_trips", String(total)), ("matched", String(matched))]
    }
}
