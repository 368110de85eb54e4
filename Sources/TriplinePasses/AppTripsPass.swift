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

    /// An app trip record with the rebuilt trips that overlap it (in the order the store read them: the first of
    /// two equal overlaps wins).
    public struct Candidate: Sendable, Equatable {
        public var event: AppTripEvent
        public var trips: [TripRow]
    }

    /// The match of each app trip record: the rebuilt trip that overlaps it most in time (intersection over union at
    /// least `min_overlap`; none when no trip does), with the differences in start, end and distance and both modes.
    static func match(_ candidates: [Candidate], device: Int64, _ p: Parameters) -> [AppTripMatchRow] {
        candidates.map { c in
            let s = c.event.startMs, e = c.event.endMs
            var best: (trip: TripRow, iou: Double)? = nil
            for trip in c.trips {
                let ts = trip.startMs, te = trip.endMs
                let inter = Double(max(0, min(e, te) - max(s, ts)))
                let union = Double(max(e, te) - min(s, ts))
                let iou = union > 0 ? inter / union : 0
                if iou >= p.minOverlap && (best == nil || iou > best!.iou) { best = (trip, iou) }
            }
            return AppTripMatchRow(
                eventID: c.event.id, deviceID: device, tripID: best?.trip.id, overlap: best?.iou, startDiffS: best.map { Double($0.trip.startMs - s) / 1000 },
                endDiffS: best.map { Double($0.trip.endMs - e) / 1000 }, distanceDiffM: best.flatMap { b in c.event.distanceM.map { b.trip.distanceM - $0 } },
                appMode: c.event.mode, tripMode: best?.trip.mode)
        }
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        let tables = RebuildTables(store)
        let events = try tables.appTrips(device: work.deviceID, overlappingFromMs: work.fromMs, beforeMs: work.toMs)
        // A trip that overlaps the record starts at most the longest trip's duration before it: a bound on the index
        // (`trips_device_time`), so each record reads the trips near it, not every earlier one (15,000 Google
        // activities took 75 s against 15,000 trips).
        let longest = try tables.longestPointTripMs(device: work.deviceID)
        let candidates = try events.map { event in
            Candidate(event: event, trips: try tables.pointTrips(
                device: work.deviceID, overlappingFromMs: event.startMs, throughMs: event.endMs, startingFromMs: event.startMs - longest))
        }
        let matches = Self.match(candidates, device: work.deviceID, parameters)
        for row in matches { try tables.insert(row) }
        return ["app_trips": .count(matches.count), "matched": .count(matches.filter { $0.tripID != nil }.count)]
    }
}
