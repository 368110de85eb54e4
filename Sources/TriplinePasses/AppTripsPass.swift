import TriplineStore

/// Pass 6, `apptrips`: compares the app's own trip records (Overland `"type":"trip"`, Google's activities, stored in
/// `app_events` with kind `trip`) with the rebuilt trips. Each app trip is matched to the rebuilt trip it overlaps most
/// in time; the overlap (intersection over union), the start, end and distance differences and both modes go to
/// `app_trip_matches` (trip_id NULL when no rebuilt trip overlaps it). A record that covers less than half of its
/// trip (Google writes an activity per mode: a walk, a train, a walk) is compared with the trip's leg it overlaps
/// most: the differences and the mode are the leg's. The app's record is evidence, not truth.
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
        /// The legs of those trips that have more than one, by trip id.
        public var legs: [Int64: [LegRow]] = [:]
    }

    /// The match of each app trip record: the rebuilt trip that overlaps it most in time (intersection over union at
    /// least `min_overlap`; none when no trip does), with the differences in start, end and distance and both modes
    /// (the leg's it overlaps most when it covers less than half of the trip).
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
            // What the record is compared with: the trip, or, when the record covers less than half of it (Google
            // writes an activity per mode: the walk to the station, the train), the trip's leg it overlaps most.
            var part: (start: Int64, end: Int64, metres: Double, mode: String)? = best.map { ($0.trip.startMs, $0.trip.endMs, $0.trip.distanceM, $0.trip.mode) }
            if let b = best, 2 * (e - s) < b.trip.endMs - b.trip.startMs, let id = b.trip.id, let legs = c.legs[id], legs.count > 1 {
                var top: (leg: LegRow, overlap: Int64)? = nil
                for leg in legs {
                    let overlap = min(e, leg.endMs) - max(s, leg.startMs)
                    if overlap > 0 && overlap > (top?.overlap ?? 0) { top = (leg, overlap) }
                }
                if let leg = top?.leg { part = (leg.startMs, leg.endMs, leg.distanceM, leg.mode) }
            }
            return AppTripMatchRow(
                eventID: c.event.id, deviceID: device, tripID: best?.trip.id, overlap: best?.iou, startDiffS: part.map { Double($0.start - s) / 1000 },
                endDiffS: part.map { Double($0.end - e) / 1000 }, distanceDiffM: part.flatMap { p in c.event.distanceM.map { p.metres - $0 } },
                appMode: c.event.mode, tripMode: part?.mode)
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
            let trips = try tables.pointTrips(
                device: work.deviceID, overlappingFromMs: event.startMs, throughMs: event.endMs, startingFromMs: event.startMs - longest)
            var legs: [Int64: [LegRow]] = [:]
            for trip in trips where trip.legs > 1 { if let id = trip.id { legs[id] = try tables.legs(ofTrip: id) } }
            return Candidate(event: event, trips: trips, legs: legs)
        }
        let matches = Self.match(candidates, device: work.deviceID, parameters)
        for row in matches { try tables.insert(row) }
        return ["app_trips": .count(matches.count), "matched": .count(matches.filter { $0.tripID != nil }.count)]
    }
}
