import TriplineCore
import TriplineGeography
import TriplineStore

/// Pass `timeline`: Google's own reading of the days (Semantic Location History's `placeVisit`/`activitySegment`,
/// Timeline.json's and the phone exports' `visit`/`activity` segments, stored by the import as app events `visit` and
/// `trip`) becomes visits, places, trips and legs where the fixes made nothing.
///
/// **Precedence.** What the fixes made wins: a moment is *covered* when it lies inside a visit or trip that the
/// passes before this one rebuilt from points (`source = 'points'`). Each Google segment is used for the longest part
/// of it that nothing claimed yet — neither the points' results nor Google's earlier segments (visits first, then
/// activities) — when that part is at least `min_free_ratio` of the segment, clipped to it; otherwise it stays
/// evidence only (the `apptrips` pass compares Google's trips with the rebuilt ones); so a Google visit that the
/// fixes saw in part at the same place gives the time they did not see when that is most of it (version 85). Child visits
/// (`hierarchyLevel` > 0: a visit inside another one) are not visits of their own.
///
/// **Rows.** Visits, places, trips and legs made here say `source = 'app'`. A visit joins the place of its Google
/// place id (one place per place id per device), else a place made from points within max(`join_m`, its radius),
/// else founds a place that keeps the place id (`app_place_id`) and Google's name (else its address, else
/// Home/Work from its semantic type, else `near <locality>` as the places pass names places). A trip has a leg per
/// Google activity (mode mapped onto Tripline's by the import; anything else `unknown`; `legs.app_activity` keeps
/// Google's word, `mode_source` `app`): activities less than `chain_gap_s` apart with nothing between
/// (a walk, a train, a walk) are one trip, whose mode is its longest leg's. It leaves the visit that ends last before
/// it and reaches the one that starts first after it, within `link_s` and with nothing between. A leg measures
/// Google's `distance` (`distance_method` `app`), else the line through its path points (`app_path`), else the
/// straight line between its ends (`app_line`; the trip says the least exact its legs used); a clipped activity keeps
/// the share of it its kept time is. Where Google's segments do not meet (an activity that starts `connector_min_m` or
/// more from where the one before it ended, or from its visit), that straight line joins one leg's distance and line
/// (version 80). Two visits apart with no activity between them, less than `link_s` apart, are joined by a trip of one
/// `unknown` leg (`mode_source` `none`) along the straight line (version 79). A Semantic Location History visit is at
/// its own centre where its place lies `centre_min_m` or more away and most of its own fixes say so (version 81,
/// ``position(_:centreMinM:)``). Local
/// offsets come from the zone at the row's position and instant (``LocalZones``), never from 0.
public struct TimelinePass: Pass {
    public static let name = "timeline"

    public struct Parameters: PassParameters {
        /// A Google segment is used when its longest part that nothing claimed is at least this share of it.
        public var minFreeRatio: Double = 0.5
        /// A Google visit joins a place made from points within max(this, the place's radius) (metres); as
        /// `places.radius_m`.
        public var joinM: Double = 75
        /// A trip leaves (reaches) the visit that ends (starts) last before (first after) its start (end), within this
        /// many seconds, when nothing lies between them.
        public var linkS: Double = 900
        /// Google's activities that follow each other less than this many seconds apart, with nothing between, are the
        /// legs of one trip (0: each activity is a trip of its own).
        public var chainGapS: Double = 60
        /// Two visits at least this far apart (metres), one of them Google's, less than `link_s` apart with nothing
        /// between them, are joined by a trip no segment shows: the person moved, Google wrote no activity (0 = off).
        /// As `trips.min_distance_m`.
        public var unseenMinM: Double = 150
        /// … when the straight line between them over the time between them is no faster than this (m/s): 72 km/h door
        /// to door. Google writes an activity for the rides it recognises, and misses short moves (a walk to the
        /// station); two visits minutes apart and kilometres off are a place Google got wrong (a station named where
        /// the train had not yet gone).
        public var unseenMaxMps: Double = 20
        /// Inside a trip, the straight line between the visit it leaves and its first activity's start, between one
        /// activity's end and the next one's start, and between its last activity's end and the visit it reaches is
        /// travel Google's distances leave out when at least this long (metres; 0 = off): a minute at 60 km/h. Shorter
        /// gaps between two of Google's positions may be sampling that Google's distances already span (the simulated
        /// export: a walk's last position 232 m from the bus's first, each leg's distance exact).
        public var connectorMinM: Double = 1000
        /// A Semantic Location History visit whose own centre (`centerLatE7`) lies at least this far (metres) from its
        /// place's position (`location`) is at its centre when most of its own fixes (`simplifiedRawPath`) lie nearer
        /// the centre than the place (0 = off; version 81). As `unseen_min_m`: nearer, the two are one place.
        public var centreMinM: Double = 150
        public init() {}
        public static var keys: Keys {
            ["min_free_ratio": \.minFreeRatio, "join_m": \.joinM, "link_s": \.linkS, "chain_gap_s": \.chainGapS, "unseen_min_m": \.unseenMinM,
             "unseen_max_mps": \.unseenMaxMps, "connector_min_m": \.connectorMinM, "centre_min_m": \.centreMinM]
        }
        public static var ranges: Ranges {
            ["min_free_ratio": .share, "join_m": .distance, "link_s": .duration, "chain_gap_s": .duration, "unseen_min_m": .distanceOrOff,
             "unseen_max_mps": .speed, "connector_min_m": .distanceOrOff, "centre_min_m": .distanceOrOff]
        }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// The rebuild's own bounds between the classes of speed (m/s; the defaults of `trips.walk_max_mps`,
    /// `run_max_mps`, `cycle_max_mps`), for a walk, run or ride whose pace is partly a straight line no activity
    /// covers; other modes have none (`.infinity`).
    static func classMaxMps(_ mode: String) -> Double {
        let trips = TripsPass.Parameters()
        switch mode {
        case "walk": return trips.walkMaxMps
        case "run": return trips.runMaxMps
        case "cycle": return trips.cycleMaxMps
        default: return .infinity
        }
    }

    /// A leg at `pace` (m/s) for `seconds` is a flight: faster than anything on the ground (`TripsPass`'s
    /// `plane_min_mps`, 70 m/s) for half an hour or more (`trips.split_gap_s`), and no faster than a plane.
    static func flight(_ pace: Double, _ seconds: Double) -> Bool {
        seconds >= 1800 && pace >= fastestMps("car") && pace <= fastestMps("plane")
    }

    /// Where a Google visit was (version 81, `centre_min_m`). Semantic Location History gives a visit its place's
    /// position (`location`) and its own centre (`centerLatE7`), mostly metres apart; where they lie `centre_min_m` or
    /// more apart, the visit is at its centre when most of its own fixes (`simplifiedRawPath`) lie nearer the centre
    /// than the place, else at the place: a real export names lectures at a university's Adlershof campus "Humboldt
    /// University of Berlin" with the main building's position, 13.5 km away, every fix of the visit at the campus;
    /// a visit with no fixes of its own, or as many on each side, stays at its place (a ferry's visit whose centre
    /// lies 800 km from the port where the activities before and after it end). The second value is the place's
    /// position when the visit was moved off it: Google's activities begin and end there too.
    static func position(_ s: GoogleVisitSegment, centreMinM: Double) -> (at: (lat: Double, lon: Double), place: (lat: Double, lon: Double)?)? {
        guard let lat = s.lat, let lon = s.lon else { return nil }
        guard centreMinM > 0, let cLat = s.centreLat, let cLon = s.centreLon, !s.fixes.isEmpty,
              Geo.distance(lat, lon, cLat, cLon) >= centreMinM
        else { return ((lat, lon), nil) }
        var votes = 0
        for f in s.fixes {
            let toCentre = Geo.distance(f.lat, f.lon, cLat, cLon), toPlace = Geo.distance(f.lat, f.lon, lat, lon)
            if toCentre < toPlace { votes += 1 } else if toPlace < toCentre { votes -= 1 }
        }
        return votes > 0 ? ((cLat, cLon), (lat, lon)) : ((lat, lon), nil)
    }

    /// Tripline's modes (``LegMode``); any other word Google's activity type was mapped to by the import is `unknown`.
    static let modes: Set<String> = Set(LegMode.allCases.map(\.rawValue))

    /// The fastest a traveller goes by a mode over a minute or more (m/s): physical bounds, far above the rebuild's
    /// thresholds between modes, for telling Google's impossible figures from its ordinary ones. On foot 7 (an elite
    /// runner's 10 km is 6.3), a bicycle 20 (72 km/h), a car or bus 70, a train 100, a boat 40; a plane, and what
    /// Google could not name, 300.
    static func fastestMps(_ mode: String) -> Double {
        switch mode {
        case "walk", "run": 7
        case "cycle": 20
        case "car", "bus", "vehicle": 70
        case "train": 100
        case "boat": 40
        default: 300
        }
    }

    /// Time intervals claimed so far, sorted by start and disjoint.
    struct Claims {
        var spans: [(Int64, Int64)] = []

        /// Adds `[s, e)` and keeps the list disjoint.
        /// - Complexity: O(log n) to find the place, plus the intervals joined and the shift of the array (none when
        ///   intervals come in time order, as they mostly do).
        mutating func add(_ s: Int64, _ e: Int64) {
            guard e > s else { return }
            var lo = s, hi = e
            // The first interval that ends at or after `s` (one that ends exactly there joins).
            var a = lowerIndex(s)
            if a > 0 && spans[a - 1].1 == s { a -= 1 }
            var b = a
            while b < spans.count && spans[b].0 <= hi {
                lo = min(lo, spans[b].0)
                hi = max(hi, spans[b].1)
                b += 1
            }
            spans.replaceSubrange(a..<b, with: [(lo, hi)])
        }

        /// The longest part of `[s, e)` that no claimed interval covers.
        func longestFree(_ s: Int64, _ e: Int64) -> (Int64, Int64) {
            var best = (s, s)
            var cursor = s
            var i = lowerIndex(s)
            while i < spans.count && spans[i].0 < e {
                let (a, b) = spans[i]
                if a > cursor, min(a, e) - cursor > best.1 - best.0 { best = (cursor, min(a, e)) }
                cursor = max(cursor, b)
                i += 1
            }
            if e > cursor, e - cursor > best.1 - best.0 { best = (cursor, e) }
            return best
        }

        /// The first interval that ends after `s`.
        func lowerIndex(_ s: Int64) -> Int {
            var lo = 0, hi = spans.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if spans[mid].1 <= s { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    /// A position string as Google writes it: `geo:48.1,11.5`, `48.1°, 11.5°` or `48.1,11.5`.
    static func position(_ text: String?) -> (Double, Double)? {
        guard var t = text else { return nil }
        if t.hasPrefix("geo:") { t = String(t.dropFirst(4)) }
        let parts = t.split(separator: ",")
        guard parts.count == 2 else { return nil }
        func number(_ s: Substring) -> Double? { Double(s.replacingOccurrences(of: "°", with: "").trimmingCharacters(in: " ")) }
        guard let lat = number(parts[0]), let lon = number(parts[1]), abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return (lat, lon)
    }

    // MARK: Load, fill, store

    /// Replaces the device's rows taken from Google (its visits and places; its trips of the span the trips pass
    /// recomputed), loads what the fixes made and Google's segments, fills the time the fixes left with Google's
    /// (``fill(_:_:_:)``), writes the result, applies the user's edits of Google's places, names every place of the
    /// device (``PlaceNames``) and points the trips at their visits' places again.
    public mutating func run(_ work: DeviceWork, store: Store) throws -> PassStats {
        let device = work.deviceID
        let tables = RebuildTables(store)
        // Visits and places are device-wide (the places pass rewrites them all), so Google's visits are all placed again.
        try tables.deleteAppVisitsAndPlaces(device: device)
        // Google's trips of the span the trips pass recomputed.
        let tripsFrom = work.previousStay?.endMs ?? max(work.fromMs, work.processFromMs)
        let tripsTo = work.replaceToMs
        try tables.deleteAppTrips(device: device, startingFromMs: tripsFrom, toMs: tripsTo)
        // Google's records first: without a visit or an activity of Google's to place, ``fill(_:_:_:)`` adds nothing
        // whatever the fixes made (the user's edits reach only places Google's visits founded), so the device's every
        // visit, trip and place is not read (a phone with no Google history, each window and each daily rebuild).
        let visits = try store.googleVisitSegments(device: device, fromMs: Int64.min, toMs: Int64.max)
        let activities = try store.googleActivitySegments(device: device, fromMs: tripsFrom, toMs: tripsTo)
        var output = Output()
        if !visits.isEmpty || !activities.isEmpty {
            let input = Input(
                pointVisits: try store.visitsInOrder(device: device), trips: try store.tripSpans(device: device), places: try store.places(device: device),
                visits: visits, activities: activities, edits: try store.placeEdits(device: device), tripsFromMs: tripsFrom, tripsToMs: tripsTo)
            output = Self.fill(work, input, parameters)
        }

        // The rows, under the ids the store gives them (a stable id already taken moves on to the next free one).
        var placeIDs: [Int64] = []
        for place in output.places { placeIDs.append(try tables.insertAppPlace(place.row, appPlaceID: place.appPlaceID)) }
        func id(_ place: PlaceRef) -> Int64 {
            switch place {
            case .stored(let id): return id
            case .added(let k): return placeIDs[k]
            }
        }
        var visitIDs: [Int64] = []
        for visit in output.visits {
            var row = visit.row
            row.placeID = id(visit.place)
            visitIDs.append(try tables.insertAppVisit(row, appPlaceID: visit.appPlaceID))
        }
        // The user's edits of places Google's visits founded.
        for edit in output.edits {
            switch edit {
            case .rename(let place, let name): try tables.renamePlace(id: id(place), name: name)
            case .merge(let place, let into): try tables.mergeAppPlace(id(place), into: id(into))
            case .forget(let place): try tables.forgetAppPlace(id(place))
            }
        }
        try tables.refreshAppPlaceTotals(device: device)
        // Every place of the device is written: name them all, in the documented order (``PlaceNames``).
        if !work.windowsFollow {
            try PlaceNames.assign(device: device, store: store, zones: work.zones, joinM: parameters.joinM, centreMinM: parameters.centreMinM)
        }
        for trip in output.trips {
            var row = trip.row
            func visitID(_ visit: VisitRef?) -> Int64? {
                switch visit {
                case .stored(let id): return id
                case .added(let k): return visitIDs[k]
                case nil: return nil
                }
            }
            row.fromVisitID = visitID(trip.from)
            row.toVisitID = visitID(trip.to)
            row.fromPlaceID = trip.fromPlace.map(id)
            row.toPlaceID = trip.toPlace.map(id)
            try tables.insertAppTrip(row, legs: trip.legs, lineDistanceM: trip.lineDistanceM, method: trip.method)
        }
        // Trips outside the span that lead to or from Google's visits point at their places again.
        if try tables.refreshTripPlaces(device: device) { work.tripsRepointed = true }
        return ["visits": .count(output.visitCount), "places": .count(output.places.count), "trips": .count(output.trips.count),
                "distance_km": .measure((output.distanceM / 10).rounded() / 100)]
    }

    /// What the timeline pass reads (``run(_:store:)`` loads it, once the device's rows taken from Google are deleted).
    struct Input {
        /// The visits the fixes made, by start then id.
        var pointVisits: [VisitRow]
        /// Every trip stored: those the fixes made and Google's kept from before the span.
        var trips: [(startMs: Int64, endMs: Int64)]
        /// The places the fixes made, by id.
        var places: [PlaceRow]
        /// Every one of Google's visits of the device, in time order.
        var visits: [GoogleVisitSegment]
        /// Google's activities that start in the span the trips pass recomputed, in time order.
        var activities: [GoogleActivitySegment]
        /// The user's place edits, oldest first.
        var edits: [PlaceEditRow]
        /// The span the trips pass recomputed: a trip no segment shows is made here when it starts in it (as
        /// `activities` are the ones that start in it).
        var tripsFromMs = Int64.min, tripsToMs = Int64.max
    }

    /// A place a row points at: one stored (the fixes'), or one this pass adds (index into ``Output/places``).
    enum PlaceRef: Equatable {
        case stored(Int64)
        case added(Int)
    }

    /// A visit a trip leaves or reaches: one stored (the fixes'), or one this pass adds (index into ``Output/visits``).
    enum VisitRef: Equatable {
        case stored(Int64)
        case added(Int)
    }

    /// The user's edit of a place Google's visits founded, as it is applied to the stored rows, in order.
    enum PlaceEdit: Equatable {
        case rename(PlaceRef, String)
        case merge(PlaceRef, into: PlaceRef)
        case forget(PlaceRef)
    }

    /// What the timeline pass writes, in this order: the places, the visits (each of its place), the edits (which
    /// move or drop some of those visits), the trips.
    struct Output {
        /// The places Google's visits founded (`source = 'app'`), with Google's place id.
        var places: [(row: PlaceRow, appPlaceID: String?)] = []
        /// Google's visits used (row without its place id; `place`: where it goes), with Google's place id.
        var visits: [(row: VisitRow, place: PlaceRef, appPlaceID: String?)] = []
        var edits: [PlaceEdit] = []
        /// Google's trips used (row without its visits' and places' ids), each with its legs (one per activity, with
        /// Google's activity type and its line, ``AppLine``; a move no segment shows has one leg and no activity type),
        /// its straight-line distance and how its distance was measured.
        var trips: [(row: TripRow, from: VisitRef?, to: VisitRef?, fromPlace: PlaceRef?, toPlace: PlaceRef?,
                     legs: [(leg: LegRow, activity: String?, line: AppLine)],
                     lineDistanceM: Double, method: String)] = []
        /// Google's visits kept once the edits are applied; the trips' distance.
        var visitCount = 0
        var distanceM = 0.0
    }

    /// A place this pass may join a visit to: one of the fixes', or one Google's visits founded.
    struct PlaceEntry {
        var ref: PlaceRef
        var lat: Double
        var lon: Double
        var radiusM: Double
        var fromPoints: Bool
    }

    /// Google's visits and trips where the fixes made nothing (see the type's comment): the places they found, the
    /// visits and trips, and the user's edits of the places they founded.
    static func fill(_ work: DeviceWork, _ input: Input, _ parameters: Parameters) -> Output {
        let device = work.deviceID
        let key = work.deviceKey
        var output = Output()
        // What the fixes made (and Google's trips kept from before the span) claims its time first.
        var claims = Claims()
        let pointVisits = input.pointVisits
        for v in pointVisits { claims.add(v.startMs, v.endMs) }
        for t in input.trips { claims.add(t.startMs, t.endMs) }
        var places = input.places.map { PlaceEntry(ref: .stored($0.id ?? 0), lat: $0.lat, lon: $0.lon, radiusM: $0.radiusM, fromPoints: true) }

        // Visits (`place`: an index into `places`).
        var placeOfAppID: [String: Int] = [:]
        var visits: [(ref: VisitRef, id: Int64, start: Int64, end: Int64, lat: Double, lon: Double, place: Int, snapped: (Double, Double)?)] = []
        for s in input.visits {
            if let level = s.hierarchyLevel, level > 0 { continue }  // a visit inside another one
            guard let (at, snapped) = Self.position(s, centreMinM: parameters.centreMinM) else { continue }
            let (lat, lon) = at
            // What the fixes saw of it is theirs; the rest, when it is most of it, Google's (version 85: a visit the
            // fixes saw in part at the same place was dropped whole before, and the phone that died at noon left the
            // afternoon at work in no visit).
            let (start, end) = claims.longestFree(s.startMs, s.endMs)
            guard end > start, Double(end - start) >= parameters.minFreeRatio * Double(s.endMs - s.startMs) else { continue }
            claims.add(start, end)
            let appID = s.placeID
            var k: Int? = appID.flatMap { placeOfAppID[$0] }
            if k == nil {
                // The nearest place made from points that reaches the visit; without a Google place id, also the
                // nearest place Google's visits founded.
                var bestD = Double.infinity
                for (n, e) in places.enumerated() where e.fromPoints || appID == nil {
                    let d = Geo.distance(e.lat, e.lon, lat, lon)
                    if d <= max(parameters.joinM, e.radiusM) && d < bestD { bestD = d; k = n }
                }
            }
            if k == nil {
                let whereIs = PlacesPass.whereIs(lat, lon)
                let semantic = Self.semanticName(s.semanticType)
                let name = NameText.imported(s.name) ?? NameText.imported(s.address) ?? semantic
                    ?? whereIs.locality.map { "near " + $0 + whereIs.offset } ?? PlacesPass.coordinateName(lat, lon)
                output.places.append(
                    (PlaceRow(id: StableID.make(.place, deviceKey: key, startMs: start), deviceID: device, name: name, ssid: nil, lat: lat,
                              lon: lon, radiusM: 0, visits: 0, totalDwellS: 0, firstVisitMs: nil, lastVisitMs: nil,
                              countryCode: whereIs.countryCode, country: whereIs.country, locality: whereIs.locality),
                     appID))
                places.append(PlaceEntry(ref: .added(output.places.count - 1), lat: lat, lon: lon, radiusM: 0, fromPoints: false))
                k = places.count - 1
            }
            if let appID, placeOfAppID[appID] == nil { placeOfAppID[appID] = k! }
            let whereIs = PlacesPass.whereIs(lat, lon)
            let id = StableID.make(.appVisit, deviceKey: key, startMs: start)
            output.visits.append(
                (VisitRow(id: id, deviceID: device, placeID: nil, startMs: start, endMs: end,
                          startUTCOffset: UTCOffset(seconds: work.zones.offset(atMs: start, latitude: lat, longitude: lon)),
                          endUTCOffset: UTCOffset(seconds: work.zones.offset(atMs: end, latitude: lat, longitude: lon)), lat: lat, lon: lon, radiusM: 0,
                          points: 0, countryCode: whereIs.countryCode, country: whereIs.country, locality: whereIs.locality),
                 places[k!].ref, appID))
            visits.append((.added(output.visits.count - 1), id, start, end, lat, lon, k!, snapped))
        }
        // The user's edits of places Google's visits founded (`tripline places rename|merge|forget`), in the order
        // they were made: each finds its place again as the nearest place within `join_m` of the centre it had when
        // edited, as the places pass finds the places of the fixes (which it edits itself).
        var gone = Set<Int>(), forgotten = Set<Int>()
        var movedTo: [Int: Int] = [:]
        func nearestPlace(_ lat: Double, _ lon: Double) -> Int? {
            var best: Int? = nil
            var bestD = parameters.joinM
            for (n, e) in places.enumerated() where !gone.contains(n) {
                let d = Geo.distance(e.lat, e.lon, lat, lon)
                if d <= bestD { bestD = d; best = n }
            }
            return best
        }
        for edit in input.edits {
            guard let place = nearestPlace(edit.lat, edit.lon), !places[place].fromPoints else { continue }
            switch edit.action {
            case .rename:
                if let name = edit.name { output.edits.append(.rename(places[place].ref, name)) }
            case .merge:
                guard let lat = edit.intoLat, let lon = edit.intoLon, let into = nearestPlace(lat, lon), into != place else { continue }
                output.edits.append(.merge(places[place].ref, into: places[into].ref))
                gone.insert(place)
                movedTo[place] = into
            case .forget:
                output.edits.append(.forget(places[place].ref))
                gone.insert(place)
                forgotten.insert(place)
            }
        }
        visits = visits.compactMap { v in
            guard !forgotten.contains(v.place) else { return nil }
            var v = v
            while let into = movedTo[v.place] { v.place = into }
            return v
        }
        output.visitCount = visits.count

        // Every visit a trip may leave or reach, by end and by start.
        // (`snapped`: the place's position of a Google visit moved to its centre, ``position(_:centreMinM:)``.)
        typealias Linked = (ref: VisitRef, id: Int64, start: Int64, end: Int64, lat: Double, lon: Double, place: PlaceRef?, snapped: (Double, Double)?)
        var all: [Linked] = visits.map { v in (v.ref, v.id, v.start, v.end, v.lat, v.lon, Optional(places[v.place].ref), v.snapped) }
        for v in pointVisits {
            let id = v.id ?? 0
            all.append((VisitRef.stored(id), id, v.startMs, v.endMs, v.lat, v.lon, v.placeID.map { PlaceRef.stored($0) }, nil))
        }
        let link = Int64(parameters.linkS * 1000)
        let byEnd = all.sorted { ($0.end, $0.id) < ($1.end, $1.id) }, byStart = all.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let ends = byEnd.map(\.end), starts = byStart.map(\.start)

        // Trips. Each activity is used for its longest free part (a piece, one leg); pieces that follow each other
        // less than `chain_gap_s` apart with nothing claimed between are the legs of one trip: Google writes a journey
        // by train as walk, train, walk, abutting, with no visit between (a trip rebuilt from fixes is the same
        // journey, one trip of three legs).
        var pieces: [(s: GoogleActivitySegment, start: Int64, end: Int64)] = []
        // Google's `STILL` is no travel (a segment of 0 m at home between two visits there was a 30-min trip of
        // `unknown` 0 m, all of it moving time, the eleventh hostile round).
        for s in input.activities where s.mode != "still" {
            let (start, end) = claims.longestFree(s.startMs, s.endMs)
            guard end > start, Double(end - start) >= parameters.minFreeRatio * Double(s.endMs - s.startMs) else { continue }
            claims.add(start, end)
            pieces.append((s, start, end))
        }
        pieces.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        /// Nothing else (a visit, a trip of the fixes, another piece) holds any of `[s, e)`.
        func free(_ s: Int64, _ e: Int64) -> Bool { e <= s || claims.longestFree(s, e) == (s, e) }
        /// The visit a trip starting at `ms` leaves: the one that ends last at or before `ms`, within `link_s`, with
        /// nothing between them (the lower id on a tie); the one a trip ending at `ms` reaches likewise.
        func linked(_ ms: Int64, leaving: Bool) -> Linked? {
            var best: Linked? = nil
            if leaving {
                var k = lowerBound(ends, ms + 1) - 1
                while k >= 0 && ends[k] >= ms - link {
                    if best.map({ ends[k] == $0.end }) ?? true { best = byEnd[k] } else { break }
                    k -= 1
                }
                return best.flatMap { free($0.end, ms) ? $0 : nil }
            }
            var k = lowerBound(starts, ms)
            while k < starts.count && starts[k] <= ms + link {
                if best.map({ starts[k] == $0.start }) ?? true {
                    if best.map({ byStart[k].id < $0.id }) ?? true { best = byStart[k] }
                } else { break }
                k += 1
            }
            return best.flatMap { free(ms, $0.start) ? $0 : nil }
        }
        let chainGap = Int64(parameters.chainGapS * 1000)
        var first = 0
        while first < pieces.count {
            var last = first
            while last + 1 < pieces.count, pieces[last + 1].start - pieces[last].end < chainGap, free(pieces[last].end, pieces[last + 1].start) {
                last += 1
            }
            let chain = Array(pieces[first...last])
            first = last + 1
            let from = linked(chain[0].start, leaving: true), to = linked(chain[chain.count - 1].end, leaving: false)
            /// Where a piece's activity says it starts (ends).
            func own(_ s: GoogleActivitySegment, start: Bool) -> (Double, Double)? {
                if start {
                    if let la = s.startLatE7, let lo = s.startLonE7, abs(la) <= 9e8, abs(lo) <= 18e8 { return (la / 1e7, lo / 1e7) }
                    return Self.position(s.startLatLng) ?? Self.position(s.start)
                }
                if let la = s.lat, let lo = s.lon { return (la, lo) }
                return nil
            }
            // Each piece: its ends, its line (its start, Google's path points in order, its end: the straight line
            // between its ends when Google gives no path) and its distance as Google gives it.
            var parts: [(a: (Double, Double)?, b: (Double, Double)?, through: [(lat: Double, lon: Double)], distance: Double, method: String,
                         mode: String)] = []
            for (i, p) in chain.enumerated() {
                let s = p.s
                // A piece without an end of its own takes its neighbour's (in the chain), else its visit's.
                var a = own(s, start: true) ?? (i > 0 ? own(chain[i - 1].s, start: false) : from.map { ($0.lat, $0.lon) })
                var b = own(s, start: false) ?? (i + 1 < chain.count ? own(chain[i + 1].s, start: true) : to.map { ($0.lat, $0.lon) })
                // Google begins (ends) an activity at its visit's place; where the visit was moved to its centre, so is
                // the end that lies at the place (within `join_m`).
                func unsnapped(_ p: (Double, Double)?, _ v: Linked?) -> (Double, Double)? {
                    guard let p, let v, let place = v.snapped, Geo.distance(p.0, p.1, place.0, place.1) <= parameters.joinM else { return p }
                    return (v.lat, v.lon)
                }
                if i == 0 { a = unsnapped(a, from) }
                if i == chain.count - 1 { b = unsnapped(b, to) }
                var through: [(lat: Double, lon: Double)] = []
                if let a { through.append((a.0, a.1)) }
                through += s.path
                if let b { through.append((b.0, b.1)) }
                let line = AppLine(through).lengthM
                var distance = line
                var method = "app_line"
                if let d = s.distanceM, d > 0 {
                    distance = d
                    method = "app"
                } else if !s.path.isEmpty {
                    method = "app_path"
                }
                let mode = s.mode.map { Self.modes.contains($0) ? $0 : "unknown" } ?? "unknown"
                let seconds = Double(s.endMs - s.startMs) / 1000
                // Google's figures that no traveller of its mode reaches (real exports hold a "walk" of 2,896 km in 4 h
                // and one of 197 km in 4 min whose ends lie 246 m apart): its distance is not believed where its own
                // line is shorter (algorithm version 54).
                if method == "app", seconds > 0, distance / seconds > Self.fastestMps(mode), line < distance {
                    distance = line
                    method = s.path.isEmpty ? "app_line" : "app_path"
                }
                parts.append((a, b, through, distance * Double(p.end - p.start) / Double(s.endMs - s.startMs), method, mode))
            }
            // Where Google's segments do not meet (algorithm version 80, `connector_min_m`): the straight line from the
            // visit the trip leaves to its first activity's start, from each activity's end to the next one's start, and
            // from its last activity's end to the visit it reaches was travelled too, and Google's distances leave it
            // out (a phone's export: a walk in Baltimore, then a three-hour drive of "8.1 km" that starts 217 km away,
            // at Charlottesville). Each such stretch of `connector_min_m` or more joins
            // a leg's line and distance: the first leg's, the last leg's, or, between two activities, the one of the
            // faster mode (a train's end 2 km from the walk's start was the train), else the other. A leg takes a
            // stretch only when it leaves the leg no faster than its mode goes, or than `unseen_max_mps`, or makes it a
            // flight; a stretch no leg can take is left out (a walk 13.5 km from the visit it left 4 minutes before: one
            // of Google's two positions is wrong, as for a move no segment shows).
            var before = [[(lat: Double, lon: Double)]](repeating: [], count: parts.count), after = before
            var added = [Double](repeating: 0, count: parts.count)
            if parameters.connectorMinM > 0 {
                func stretch(_ p: (Double, Double)?, _ q: (Double, Double)?) -> Double? {
                    guard let p, let q else { return nil }
                    let d = Geo.distance(p.0, p.1, q.0, q.1)
                    return d >= parameters.connectorMinM ? d : nil
                }
                /// Whether leg `i` can take `d` more metres: no faster than its mode goes, or than `unseen_max_mps`,
                /// or a flight.
                func takes(_ i: Int, _ d: Double) -> Bool {
                    let seconds = Double(chain[i].end - chain[i].start) / 1000
                    guard seconds > 0 else { return false }
                    let pace = (parts[i].distance + added[i] + d) / seconds
                    return Self.flight(pace, seconds) || pace <= max(Self.fastestMps(parts[i].mode), parameters.unseenMaxMps)
                }
                if let f = from, let d = stretch((f.lat, f.lon), parts[0].a), takes(0, d) {
                    before[0].append((f.lat, f.lon))
                    added[0] += d
                }
                for i in parts.indices.dropFirst() {
                    guard let d = stretch(parts[i - 1].b, parts[i].a), let end = parts[i - 1].b, let start = parts[i].a else { continue }
                    // The leg of the faster mode first; the other when the faster one cannot take it.
                    let earlierFirst = Self.fastestMps(parts[i - 1].mode) > Self.fastestMps(parts[i].mode)
                    for k in earlierFirst ? [i - 1, i] : [i, i - 1] where takes(k, d) {
                        if k == i - 1 { after[k].append((start.0, start.1)) } else { before[k].append((end.0, end.1)) }
                        added[k] += d
                        break
                    }
                }
                let last = parts.count - 1
                if let t = to, let d = stretch(parts[last].b, (t.lat, t.lon)), takes(last, d) {
                    after[last].append((t.lat, t.lon))
                    added[last] += d
                }
            }
            var legs: [(leg: LegRow, activity: String?, lineDistanceM: Double, method: String, line: AppLine)] = []
            var edges: [(a: (Double, Double)?, b: (Double, Double)?)] = []
            for (i, p) in chain.enumerated() {
                let part = parts[i]
                edges.append((part.a, part.b))
                // The leg's line, with the stretches it took; its straight lines are the leg's `line_distance_m` (the
                // line's share of them when the activity was clipped, and the stretches whole).
                let share = Double(p.end - p.start) / Double(p.s.endMs - p.s.startMs)
                let appLine = AppLine(before[i] + part.through + after[i])
                let line = AppLine(part.through).lengthM * share + added[i]
                let distance = part.distance + added[i]
                let method = added[i] > 0 ? "app_line" : part.method
                var mode = part.mode
                var modeSource = "app"
                let seconds = Double(p.end - p.start) / 1000
                // A walk or ride faster than feet or a bicycle go is a vehicle (Google's word stays in `app_activity`;
                // `mode_source` says `pace`; algorithm version 54); one that stretches Google left out make faster
                // than anything on the ground (`TripsPass`'s `plane_min_mps`, 70 m/s) over half an hour or more is a
                // flight no activity shows (a phone's 13.6-hour "walk" of 407 m that starts in Tokyo, after a visit in
                // the United States). Google saw the walk, not the stretch: a walk, run or ride that took one is a
                // vehicle already beyond the rebuild's own bound of its class (`trips.walk_max_mps` 2.4,
                // `run_max_mps` 3.9, `cycle_max_mps` 7.5 m/s: a "walk" of 14.9 km in 40 minutes), where Google's own
                // figures keep the physical bounds of `fastestMps`.
                let bound = added[i] > 0 ? Self.classMaxMps(mode) : Self.fastestMps(mode)
                if added[i] > 0, Self.flight(distance / seconds, seconds) {
                    mode = LegMode.plane.rawValue
                    modeSource = "pace"
                } else if ["walk", "run", "cycle"].contains(mode), seconds > 0, distance / seconds > bound {
                    mode = LegMode.vehicle.rawValue
                    modeSource = "pace"
                }
                legs.append(
                    (LegRow(tripID: 0, leg: i, deviceID: device, mode: mode, modeSource: modeSource, startMs: p.start, endMs: p.end,
                            distanceM: distance, durationS: seconds, points: 0, lineDistanceM: line),
                     p.s.activity, line, method, appLine))
            }
            let start = chain[0].start, end = chain[chain.count - 1].end
            let distance = legs.reduce(0) { $0 + $1.leg.distanceM }, line = legs.reduce(0) { $0 + $1.lineDistanceM }
            let duration = Double(end - start) / 1000
            // The trip's mode: its longest leg's, as for a trip of the fixes; its distance method the least exact one
            // a leg used.
            let mode = legs.max { $0.leg.distanceM < $1.leg.distanceM }?.leg.mode ?? "unknown"
            let method = ["app_line", "app_path", "app"].first { m in legs.contains { $0.method == m } } ?? "app_line"
            // Google gives no speeds: the trip's maximum is its fastest leg's average (at least the trip's own).
            let fastest = legs.compactMap { $0.leg.durationS > 0 ? $0.leg.distanceM / $0.leg.durationS : nil }.max()
            let (a, b) = (edges[0].a, edges[edges.count - 1].b)
            // The offsets of where the trip was at its ends: the visit it left (reached) when it is linked to one, as a
            // trip rebuilt from points takes its stay's (Google's activity may start elsewhere than its visit ended:
            // a "walk" at the departure airport that starts as the visit at the arrival airport ends).
            let here = from.map { ($0.lat, $0.lon) } ?? a ?? b, there = to.map { ($0.lat, $0.lon) } ?? b ?? a
            let startOffset = work.zones.offset(atMs: start, latitude: here?.0 ?? .nan, longitude: here?.1 ?? .nan)
            let endOffset = work.zones.offset(atMs: end, latitude: there?.0 ?? .nan, longitude: there?.1 ?? .nan)
            output.trips.append(
                (TripRow(id: StableID.make(.trip, deviceKey: key, startMs: start), deviceID: device, startMs: start, endMs: end,
                         startUTCOffset: UTCOffset(seconds: startOffset), endUTCOffset: UTCOffset(seconds: endOffset), durationS: duration, movingS: duration,
                         distanceM: distance, avgSpeedMps: duration > 0 ? distance / duration : nil, maxSpeedMps: fastest, mode: mode, legs: legs.count,
                         fromVisitID: nil, toVisitID: nil, fromPlaceID: nil, toPlaceID: nil, startLat: a?.0, startLon: a?.1,
                         endLat: b?.0, endLon: b?.1, points: 0, gaps: 0),
                 from?.ref, to?.ref, from?.place, to?.place, legs.map { ($0.leg, $0.activity, $0.line) }, line, method))
            output.distanceM += distance
        }
        // Moves no segment shows: two visits at places apart, one of them Google's, less than `link_s` apart with
        // nothing between them. The person went from one to the other and Google wrote no activity (iannellif-geoloc:
        // home, then the station 534 m away 2–5 min later, then Google's train). A trip no fix saw, as the trips pass
        // makes one between two stays: the straight line, of mode `unknown`, over the time between the visits; where
        // that pace is beyond `unseen_max_mps`, one of Google's two places is wrong (a station 5.2 km from the one it
        // left 82 s before, Google's train to it after) and no trip is made. Abutting visits leave no time to travel:
        // none either.
        if parameters.unseenMinM > 0 {
            func google(_ visit: Linked) -> Bool { if case .added = visit.ref { true } else { false } }
            for (v, w) in zip(byStart, byStart.dropFirst()) where v.end >= input.tripsFromMs && v.end < input.tripsToMs && (google(v) || google(w)) {
                let seconds = Double(w.start - v.end) / 1000
                guard w.start > v.end, seconds <= parameters.linkS, free(v.end, w.start) else { continue }
                let metres = Geo.distance(v.lat, v.lon, w.lat, w.lon)
                guard metres >= parameters.unseenMinM, metres / seconds <= parameters.unseenMaxMps else { continue }
                claims.add(v.end, w.start)
                let startOffset = work.zones.offset(atMs: v.end, latitude: v.lat, longitude: v.lon)
                let endOffset = work.zones.offset(atMs: w.start, latitude: w.lat, longitude: w.lon)
                let leg = LegRow(tripID: 0, leg: 0, deviceID: device, mode: "unknown", modeSource: "none", startMs: v.end, endMs: w.start,
                                 distanceM: metres, durationS: seconds, points: 0, lineDistanceM: metres)
                output.trips.append(
                    (TripRow(id: StableID.make(.trip, deviceKey: key, startMs: v.end), deviceID: device, startMs: v.end, endMs: w.start,
                             startUTCOffset: UTCOffset(seconds: startOffset), endUTCOffset: UTCOffset(seconds: endOffset), durationS: seconds,
                             movingS: seconds, distanceM: metres, avgSpeedMps: metres / seconds, maxSpeedMps: metres / seconds, mode: "unknown",
                             legs: 1, fromVisitID: nil, toVisitID: nil, fromPlaceID: nil, toPlaceID: nil, startLat: v.lat, startLon: v.lon,
                             endLat: w.lat, endLon: w.lon, points: 0, gaps: 0),
                     v.ref, w.ref, v.place, w.place, [(leg, nil, AppLine([(v.lat, v.lon), (w.lat, w.lon)]))], metres, "app_line"))
                output.distanceM += metres
            }
        }
        return output
    }

    /// A place name from Google's semantic type: `Home`, `Work`; nil for the others (searched addresses, unknown).
    static func semanticName(_ type: String?) -> String? {
        switch type?.uppercased() {
        case "TYPE_HOME", "HOME", "INFERRED_HOME": return "Home"
        case "TYPE_WORK", "WORK", "INFERRED_WORK": return "Work"
        default: return nil
        }
    }
}

extension TimelinePass {
    /// Adds Google's trips and visits (`source = 'app'`) to the metrics pass's day sums: each leg's distance and time
    /// (all of it moving: Google's activity is travel) spread over the local days it spans in proportion to time (at
    /// its trip's start offset, as `report day` shows them; a leg that ends its trip at another offset, a flight, on
    /// the local clock moving from the one to the other), the trip counted on its start day; every local day a
    /// Google visit or trip touches gets a row (its offset that of the row's start), from `firstDate` on (the span
    /// recomputed) and through `work.lastDate`.
    static func addDays(
        _ work: DeviceWork, store: Store, firstDate: String, offsets: inout [Int: Int32], distance: inout [Int: Double], line: inout [Int: Double],
        moving: inout [Int: Double], trips: inout [Int: Int]
    ) throws {
        var first = firstDate
        func inSpan(_ day: Int) -> Bool {
            let date = MetricsPass.dateText(day)
            return (first.isEmpty || date >= first) && (work.lastDate.map { date <= $0 } ?? true)
        }
        func claim(_ day: Int, _ offset: Int32) { if offsets[day] == nil && inSpan(day) { offsets[day] = offset } }
        let rows = try store.appDaySpans(device: work.deviceID, fromMs: work.fromMs, toMs: work.toMs)
        if first.isEmpty, work.processFromMs > Int64.min, let r = rows.first {
            // No fix after the restart: the days from the restart's own day on are recomputed.
            first = MetricsPass.dateText(MetricsPass.localDay(work.processFromMs, r.startUTCOffset.seconds))
        }
        for (start, end, utcOffset, dist, straight, isLeg, isTrip, endUTCOffset) in rows {
            let offset = utcOffset.seconds  // the metrics pass's day arithmetic is on the raw seconds, as DeviceWork.offset
            let firstDay = MetricsPass.localDay(start, offset), lastDay = MetricsPass.localDay(max(start, end - 1), offset)
            if isLeg && endUTCOffset != utcOffset && end > start && lastDay - firstDay <= 366 {
                // Landing at another offset (a flight): on the local clock moving from the one to the other, as the
                // metrics pass spreads a leg no fix saw (``UTCOffset/dayShares(startMs:endMs:start:end:)``).
                for (day, share) in UTCOffset.dayShares(startMs: start, endMs: end, start: utcOffset, end: endUTCOffset) where inSpan(day) {
                    claim(day, day == firstDay ? offset : endUTCOffset.seconds)
                    distance[day, default: 0] += dist * share
                    line[day, default: 0] += straight * share
                    moving[day, default: 0] += share * Double(end - start) / 1000
                }
                if isTrip && inSpan(firstDay) { trips[firstDay, default: 0] += 1 }
                continue
            }
            var day = firstDay
            while day <= lastDay && day - firstDay <= 366 {
                claim(day, offset)
                if isLeg {
                    let dayStart = Int64(day) * 86_400_000 - Int64(offset) * 1000
                    let piece = max(0, min(end, dayStart + 86_400_000) - max(start, dayStart))
                    let share = end > start ? Double(piece) / Double(end - start) : 1
                    if inSpan(day) {
                        distance[day, default: 0] += dist * share
                        line[day, default: 0] += straight * share
                        moving[day, default: 0] += Double(piece) / 1000
                    }
                }
                day += 1
            }
            if isTrip && inSpan(firstDay) { trips[firstDay, default: 0] += 1 }
        }
    }
}

extension TimelinePass {
    /// The clean flag of a `timelinePath` point inside one of Google's own segments (bit 16, `point_flags`).
    public static let pathFlag: UInt8 = 16
}
