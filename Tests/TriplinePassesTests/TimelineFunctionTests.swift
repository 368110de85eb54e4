import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineGeography
import TriplineStore

/// The timeline pass as a function (issue 24): what the fixes made and Google's segments in, Google's visits, places
/// and trips where the fixes made nothing out, no database (`TimelinePass.fill`; docs/PASSES.md, "timeline").
@Suite struct TimelineFunctionTests {
    static let device: Int64 = 5
    static let day: Int64 = 1_717_372_800_000  // 2024-06-03T00:00:00Z (Berlin: CEST, UTC+2)
    static let minute: Int64 = 60_000
    static func at(_ h: Int64, _ m: Int64 = 0) -> Int64 { day + (h * 60 + m) * minute }

    /// A point `km` east of home (central Berlin), `north` metres north.
    static func east(_ km: Double, north: Double = 0) -> (lat: Double, lon: Double) {
        let p = Geo.destination(52.52, 13.40, bearing: 90, distance: km * 1000)
        return Geo.destination(p.lat, p.lon, bearing: 0, distance: north)
    }

    static let home = east(0), cafe = east(1), shop = east(2)
    static let homePlace: Int64 = 900, morning: Int64 = 501

    func work() -> DeviceWork { DeviceWork(deviceID: Self.device, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones()) }

    static func visit(_ start: Int64, _ end: Int64, _ p: (lat: Double, lon: Double), placeID: String? = nil, name: String? = nil,
                      level: Double? = nil) -> GoogleVisitSegment {
        GoogleVisitSegment(startMs: start, endMs: end, lat: p.lat, lon: p.lon, placeID: placeID, name: name, hierarchyLevel: level)
    }

    /// A morning at home seen by the fixes (its visit and place), an afternoon trip of the fixes; Google's day
    /// around them.
    static func input(edits: [PlaceEditRow] = []) -> TimelinePass.Input {
        let pointVisit = VisitRow(id: morning, deviceID: device, placeID: homePlace, startMs: at(6), endMs: at(12), startUTCOffset: 7200,
                                  endUTCOffset: 7200, lat: home.lat, lon: home.lon, radiusM: 30, points: 200)
        let place = PlaceRow(id: homePlace, deviceID: device, name: "Flat-3", ssid: "Flat-3", lat: home.lat, lon: home.lon, radiusM: 30,
                             visits: 1, totalDwellS: 6 * 3600, firstVisitMs: at(6), lastVisitMs: at(12))
        let visits = [
            visit(at(7), at(11, 30), home, placeID: "gHome", name: "Home"),  // the fixes saw it
            visit(at(12, 20), at(13, 20), cafe, placeID: "gCafe", name: "Cafe Luna"),  // founds a place
            visit(at(12, 30), at(13), cafe, name: "Table 4", level: 1),  // a visit inside another one
            visit(at(13, 50), at(14, 40), shop),  // the fixes' trip holds 30 of its 50 minutes: not used
            visit(at(15), at(16), cafe, placeID: "gCafe"),  // the same Google place
            visit(at(17), at(18), east(0, north: 40)),  // no Google place id, 40 m from home: home's place
        ]
        let path = [(lat: cafe.lat, lon: cafe.lon + 0.005), (lat: home.lat + 0.002, lon: home.lon + 0.004)]
        let activities = [
            GoogleActivitySegment(startMs: at(12, 5), endMs: at(12, 18), lat: cafe.lat, lon: cafe.lon, distanceM: 1200, mode: "walk",
                                  activity: "WALKING"),
            GoogleActivitySegment(startMs: at(14, 5), endMs: at(14, 25), lat: shop.lat, lon: shop.lon, distanceM: 900, mode: "bus"),  // the fixes'
            GoogleActivitySegment(startMs: at(16, 10), endMs: at(16, 50), lat: nil, lon: nil, distanceM: nil, mode: "hovercraft",
                                  startLatE7: (cafe.lat * 1e7).rounded(), startLonE7: (cafe.lon * 1e7).rounded(), activity: "IN_HOVERCRAFT",
                                  path: path),
        ]
        return TimelinePass.Input(pointVisits: [pointVisit], trips: [(at(14), at(14, 30))], places: [place], visits: visits,
                                  activities: activities, edits: edits)
    }

    /// Without a visit or an activity of Google's, the pass adds nothing whatever the fixes made, the user's edits of
    /// their places included: what lets `run` skip reading the device's visits, trips and places then
    /// (docs/PERFORMANCE.md, "Ten years"). Fails if an edit of a place of the fixes, or the fixes' own rows, ever
    /// produce output here.
    @Test func noGoogleRecordsAddNothing() {
        var input = Self.input(edits: [
            PlaceEditRow(id: 1, deviceID: Self.device, action: .rename, lat: Self.home.lat, lon: Self.home.lon, name: "Castle", createdMs: 1),
            PlaceEditRow(id: 2, deviceID: Self.device, action: .merge, lat: Self.home.lat, lon: Self.home.lon, intoLat: Self.cafe.lat,
                         intoLon: Self.cafe.lon, createdMs: 2),
            PlaceEditRow(id: 3, deviceID: Self.device, action: .forget, lat: Self.home.lat, lon: Self.home.lon, createdMs: 3),
        ])
        input.visits = []
        input.activities = []
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.places.isEmpty && out.visits.isEmpty && out.edits.isEmpty && out.trips.isEmpty)
        #expect(out.visitCount == 0 && out.distanceM == 0)
    }

    @Test func googlesSegmentsFillWhatTheFixesLeft() throws {
        let out = TimelinePass.fill(work(), Self.input(), TimelinePass.Parameters())
        // One place founded, under Google's name and place id; three visits.
        #expect(out.places.count == 1)
        #expect(out.places.first?.row.name == "Cafe Luna" && out.places.first?.appPlaceID == "gCafe")
        #expect(out.places.first?.row.id == StableID.make(.place, deviceKey: testDeviceKey, startMs: Self.at(12, 20)))
        #expect(out.visits.map(\.row.startMs) == [Self.at(12, 20), Self.at(15), Self.at(17)])
        #expect(out.visits.map(\.place) == [.added(0), .added(0), .stored(Self.homePlace)])
        #expect(out.visits.map(\.appPlaceID) == ["gCafe", "gCafe", nil])
        #expect(out.visits.allSatisfy { $0.row.startUTCOffset == 7200 && $0.row.endUTCOffset == 7200 })
        #expect(out.visitCount == 3 && out.edits.isEmpty)
        // Two trips: the walk from the morning at home to the cafe (Google's distance), the ride from the cafe home
        // (its path, an unknown mode); the bus inside the fixes' trip is not used.
        #expect(out.trips.count == 2)
        let walk = out.trips[0], ride = out.trips[1]
        #expect(walk.from == .stored(Self.morning) && walk.to == .added(0))
        #expect(walk.fromPlace == .stored(Self.homePlace) && walk.toPlace == .added(0))
        #expect(walk.row.distanceM == 1200 && walk.method == "app" && walk.row.mode == "walk" && walk.legs.map(\.activity) == ["WALKING"])
        #expect(walk.legs.map(\.leg.modeSource) == ["app"] && walk.legs.map(\.leg.distanceM) == [1200] && walk.row.legs == 1)
        #expect(ride.from == .added(1) && ride.to == .added(2) && ride.fromPlace == .added(0) && ride.toPlace == .stored(Self.homePlace))
        #expect(ride.row.mode == "unknown" && ride.method == "app_path")
        // The path from where Google's activity starts through its points to the visit it reaches (it has no end of its own).
        let end = Self.east(0, north: 40)
        let chain = [(Self.cafe.lat, Self.cafe.lon)] + Self.input().activities[2].path.map { ($0.lat, $0.lon) } + [(end.lat, end.lon)]
        let length = zip(chain, chain.dropFirst()).reduce(0.0) { $0 + Geo.distance($1.0.0, $1.0.1, $1.1.0, $1.1.1) }
        // Its straight lines are those along the same line (algorithm version 52; before, the one between its ends), and
        // that line is what it stores for the exports: start, path points, end.
        #expect(abs(ride.row.distanceM - length) < 0.05 && abs(ride.lineDistanceM - ride.row.distanceM) < 1e-6)
        let stored = try #require(ride.legs.first?.line.coordinates)
        let expected = AppLine(chain.map { (lat: $0.0, lon: $0.1) }).coordinates
        #expect(ride.legs.count == 1 && stored.count == expected.count && zip(stored, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(stored)")
        #expect(ride.legs.map(\.leg.lineDistanceM) == [ride.lineDistanceM])
        #expect(ride.row.endLat == end.lat && ride.row.endLon == end.lon)
        #expect(abs(out.distanceM - (1200 + ride.row.distanceM)) < 1e-6)
    }

    /// The user's edits of a place Google's visits founded: renamed; forgotten, with its visits, so the trips no
    /// longer reach them. An edit at a place of the fixes is the places pass's, not this one's.
    @Test func theUsersEditsOfGooglesPlaces() {
        let rename = PlaceEditRow(id: 1, deviceID: Self.device, action: .rename, lat: Self.cafe.lat, lon: Self.cafe.lon, name: "My cafe", createdMs: 1)
        let atHome = PlaceEditRow(id: 2, deviceID: Self.device, action: .rename, lat: Self.home.lat, lon: Self.home.lon, name: "Castle", createdMs: 2)
        let renamed = TimelinePass.fill(work(), Self.input(edits: [rename, atHome]), TimelinePass.Parameters())
        #expect(renamed.edits == [.rename(.added(0), "My cafe")])
        let forget = PlaceEditRow(id: 3, deviceID: Self.device, action: .forget, lat: Self.cafe.lat, lon: Self.cafe.lon, createdMs: 3)
        let forgotten = TimelinePass.fill(work(), Self.input(edits: [forget]), TimelinePass.Parameters())
        #expect(forgotten.edits == [.forget(.added(0))])
        #expect(forgotten.visitCount == 1)
        #expect(forgotten.trips[0].to == nil && forgotten.trips[1].from == nil && forgotten.trips[1].to == .added(2))
    }

    /// Google writes a journey by train as three activities that abut, with no visit between: walk, train, walk. They
    /// are one trip of three legs, from the visit before to the visit after, whose mode is its longest leg's (before
    /// algorithm version 51: three trips, the last of which left the visit it reached). Activities apart by more than
    /// `chain_gap_s`, or with a visit between, stay trips of their own; a trip that follows another with no visit
    /// between leaves none (before: the visit nearest in time, which could be the one after it).
    @Test func aJourneyOfSeveralActivitiesIsOneTripOfLegs() {
        let station = Self.east(0.4), far = Self.east(12), office = Self.east(12.5)
        let visits = [
            Self.visit(Self.at(7), Self.at(8), Self.home, placeID: "gHome"),
            Self.visit(Self.at(9), Self.at(12), office, placeID: "gOffice"),
            Self.visit(Self.at(12, 27), Self.at(12, 35), Self.cafe, placeID: "gCafe"),
        ]
        func activity(_ s: Int64, _ e: Int64, _ to: (lat: Double, lon: Double), _ metres: Double, _ mode: String, _ type: String) -> GoogleActivitySegment {
            GoogleActivitySegment(startMs: s, endMs: e, lat: to.lat, lon: to.lon, distanceM: metres, mode: mode, activity: type)
        }
        let activities = [
            activity(Self.at(8), Self.at(8, 8), station, 500, "walk", "WALKING"),
            activity(Self.at(8, 8), Self.at(8, 50), far, 11_800, "train", "IN_TRAIN"),
            activity(Self.at(8, 50), Self.at(9), office, 600, "walk", "WALKING"),
            // After lunch: a ride, then 2 min later a short walk to the cafe (two trips: nothing joins them).
            activity(Self.at(12), Self.at(12, 20), Self.east(1.2), 11_000, "car", "IN_PASSENGER_VEHICLE"),
            activity(Self.at(12, 22), Self.at(12, 27), Self.cafe, 250, "walk", "WALKING"),
        ]
        let input = TimelinePass.Input(pointVisits: [], trips: [], places: [], visits: visits, activities: activities, edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.trips.count == 3)
        guard out.trips.count == 3 else { return }
        let (journey, ride, walk) = (out.trips[0], out.trips[1], out.trips[2])
        #expect(journey.row.startMs == Self.at(8) && journey.row.endMs == Self.at(9) && journey.row.legs == 3)
        #expect(journey.legs.map(\.leg.mode) == ["walk", "train", "walk"] && journey.legs.map(\.leg.leg) == [0, 1, 2])
        #expect(journey.legs.map(\.activity) == ["WALKING", "IN_TRAIN", "WALKING"])
        #expect(journey.legs.map(\.leg.startMs) == [Self.at(8), Self.at(8, 8), Self.at(8, 50)])
        #expect(journey.row.mode == "train" && journey.row.distanceM == 12_900 && journey.method == "app")
        #expect(journey.row.maxSpeedMps == 11_800.0 / (42 * 60))  // the train's average: Google gives no speeds
        #expect(journey.from == .added(0) && journey.to == .added(1))
        #expect(journey.row.endLat == office.lat && journey.row.endLon == office.lon)
        // The ride leaves the office and reaches no visit (the walk lies between it and the cafe); the walk leaves
        // none (the ride lies between it and the office) and reaches the cafe. The nearest visit in time would have
        // been the cafe for both.
        #expect(ride.row.legs == 1 && ride.from == .added(1) && ride.to == nil)
        #expect(walk.row.legs == 1 && walk.from == nil && walk.to == .added(2))
        #expect(abs(out.distanceM - (12_900 + 11_250)) < 1e-6)
        // With no chaining, the journey is three trips, each with only its own neighbours.
        var apart = TimelinePass.Parameters()
        apart.chainGapS = 0
        var gapped = input
        gapped.activities[1].startMs += 1000
        gapped.activities[2].startMs += 1000
        let three = TimelinePass.fill(work(), gapped, apart)
        #expect(three.trips.count == 5)
        #expect(three.trips.prefix(3).map(\.from) == [.added(0), nil, nil] && three.trips.prefix(3).map(\.to) == [nil, nil, .added(1)])
    }

    /// Google's figures that no traveller of its mode reaches, as real exports hold them (iannellif-geoloc: a "walk"
    /// of 197 km in 4 min whose ends lie 246 m apart, a "walk" of 13.8 km in 2.6 min between two places 13.8 km
    /// apart): the distance along the activity's own line where Google's is impossible for its mode, and a walk faster
    /// than feet go is a vehicle, Google's word kept. Ordinary figures stay Google's. Fails without the checks
    /// (algorithm version 54).
    @Test func googlesImpossibleFiguresAreNotBelieved() {
        let near = Self.east(0.246), far = Self.east(13.8)
        func activity(_ s: Int64, _ e: Int64, from: (lat: Double, lon: Double), to: (lat: Double, lon: Double), _ metres: Double,
                      _ mode: String) -> GoogleActivitySegment {
            GoogleActivitySegment(startMs: s, endMs: e, lat: to.lat, lon: to.lon, distanceM: metres, mode: mode,
                                  startLatE7: (from.lat * 1e7).rounded(), startLonE7: (from.lon * 1e7).rounded(),
                                  activity: "WALKING")
        }
        let activities = [
            activity(Self.at(8), Self.at(8, 4), from: Self.home, to: near, 196_650, "walk"),  // 819 m/s; its line 246 m
            activity(Self.at(10), Self.at(10, 3), from: Self.home, to: far, 13_830, "walk"),  // 77 m/s; its line 13,800 m
            activity(Self.at(12), Self.at(12, 10), from: Self.home, to: near, 700, "walk"),  // 1.2 m/s: Google's
            activity(Self.at(14), Self.at(14, 20), from: Self.home, to: far, 15_000, "car"),  // 12.5 m/s: Google's
        ]
        let input = TimelinePass.Input(pointVisits: [], trips: [], places: [], visits: [], activities: activities, edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.trips.count == 4)
        guard out.trips.count == 4 else { return }
        let legs = out.trips.map { $0.legs[0] }
        #expect(abs(legs[0].leg.distanceM - Geo.distance(Self.home.lat, Self.home.lon, near.lat, near.lon)) < 1e-6)
        #expect(legs[0].leg.mode == "walk" && out.trips[0].method == "app_line")
        #expect(legs[1].leg.mode == "vehicle" && legs[1].leg.modeSource == "pace" && legs[1].activity == "WALKING")
        // Google's 13,830 m are impossible on foot, so its line (13,800 m) is taken; at that pace it is no walk either.
        #expect(abs(legs[1].leg.distanceM - Geo.distance(Self.home.lat, Self.home.lon, far.lat, far.lon)) < 1e-6)
        #expect(out.trips[1].method == "app_line" && out.trips[1].row.mode == "vehicle")
        #expect(legs[2].leg.mode == "walk" && legs[2].leg.modeSource == "app" && legs[2].leg.distanceM == 700)
        #expect(legs[3].leg.mode == "car" && legs[3].leg.distanceM == 15_000)
        #expect(out.trips.allSatisfy { ($0.row.avgSpeedMps ?? 0) <= ($0.row.maxSpeedMps ?? 0) })
    }

    /// A move Google wrote no activity for (iannellif-geoloc: home, then the station 534 m away 2–5 min later, then
    /// Google's train): a trip of mode `unknown` along the straight line between the two visits, over the time between
    /// them, linked to both (algorithm version 79; before, the walk to the station was in no trip and no day's
    /// distance). None where the visits abut (no time to travel), lie less than `unseen_min_m` apart (one place), are
    /// more than `link_s` apart, have a trip of the fixes between them, or are faster apart than `unseen_max_mps`
    /// (Google named the wrong station), and none that starts outside the span the trips pass recomputed.
    @Test func aMoveGoogleWroteNoActivityForIsATrip() throws {
        let station = Self.east(0.534), yard = Self.east(0.1), far = Self.east(6)
        let visits = [
            Self.visit(Self.at(7), Self.at(8), Self.home, placeID: "gHome"),
            Self.visit(Self.at(8, 4), Self.at(8, 10), station, placeID: "gStation"),  // 534 m in 4 min: a trip
            Self.visit(Self.at(8, 10), Self.at(8, 20), Self.home, placeID: "gHome"),  // abutting: none
            Self.visit(Self.at(8, 22), Self.at(8, 30), yard, placeID: "gYard"),  // 100 m: one place, none
            Self.visit(Self.at(9), Self.at(9, 10), station, placeID: "gStation"),  // 30 min later: beyond link_s
            Self.visit(Self.at(9, 12), Self.at(9, 20), far, placeID: "gFar"),  // 5.5 km in 2 min: Google's error
            Self.visit(Self.at(10), Self.at(10, 30), Self.home, placeID: "gHome"),  // 38 min: beyond link_s
            Self.visit(Self.at(10, 40), Self.at(11), Self.cafe, placeID: "gCafe"),  // the fixes' trip between: none
        ]
        let input = TimelinePass.Input(pointVisits: [], trips: [(Self.at(10, 32), Self.at(10, 38))], places: [], visits: visits,
                                       activities: [], edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.visitCount == 8)
        #expect(out.trips.count == 1)
        let trip = try #require(out.trips.first)
        let metres = Geo.distance(Self.home.lat, Self.home.lon, station.lat, station.lon)
        #expect(trip.row.startMs == Self.at(8) && trip.row.endMs == Self.at(8, 4) && trip.row.durationS == 240)
        #expect(trip.from == .added(0) && trip.to == .added(1))
        #expect(trip.fromPlace == out.visits[0].place && trip.toPlace == out.visits[1].place && trip.fromPlace != trip.toPlace)
        #expect(trip.row.mode == "unknown" && trip.legs.map(\.leg.mode) == ["unknown"] && trip.legs.map(\.leg.modeSource) == ["none"])
        #expect(trip.legs.map(\.activity) == [nil] && trip.method == "app_line" && trip.row.legs == 1)
        #expect(abs(trip.row.distanceM - metres) < 1e-6 && abs(trip.lineDistanceM - metres) < 1e-6 && abs(out.distanceM - metres) < 1e-6)
        #expect(trip.row.movingS == 240 && trip.row.avgSpeedMps == metres / 240 && trip.row.maxSpeedMps == trip.row.avgSpeedMps)
        #expect(trip.row.startUTCOffset == 7200 && trip.row.endUTCOffset == 7200)
        #expect(trip.row.startLat == Self.home.lat && trip.row.endLon == station.lon)
        #expect(trip.legs.first?.line.coordinates.count == 4)
        // The same day with the rule off, and rebuilt from after the move: no trip.
        var off = TimelinePass.Parameters()
        off.unseenMinM = 0
        #expect(TimelinePass.fill(work(), input, off).trips.isEmpty)
        var later = input
        later.tripsFromMs = Self.at(8, 1)
        #expect(TimelinePass.fill(work(), later, TimelinePass.Parameters()).trips.isEmpty)
        // A slower Google: the far visit 14 min after the station is 6.5 m/s away, a trip.
        var slower = input
        slower.visits[5].startMs = Self.at(9, 24)
        slower.visits[5].endMs = Self.at(9, 35)
        #expect(TimelinePass.fill(work(), slower, TimelinePass.Parameters()).trips.map(\.row.startMs) == [Self.at(8), Self.at(9, 10)])
    }

    /// Where Google's segments do not meet (a phone's export: a walk in Baltimore, then a three-hour drive of "8.1 km"
    /// that starts 217 km away, at Charlottesville; a 13.6-hour "walk" of 407 m that starts in Tokyo after a visit in
    /// the United States): the straight line between one activity's end and the next one's start, or between a visit
    /// and the activity that leaves or reaches it, of `connector_min_m` or more, joins the line and distance of the
    /// faster leg (a walk that it makes faster than anything on the ground for half an hour is a flight). None below
    /// `connector_min_m` (sampling Google's distances may already span), none that would make its leg faster than its
    /// mode or `unseen_max_mps` (a walk 13.5 km from the visit it left 4 min before), none with the rule off
    /// (algorithm version 80; before, the drive measured 8.1 km and the flight nothing).
    @Test func whereGooglesSegmentsDoNotMeet() throws {
        func activity(_ s: Int64, _ e: Int64, from: (lat: Double, lon: Double), to: (lat: Double, lon: Double), _ metres: Double,
                      _ mode: String) -> GoogleActivitySegment {
            GoogleActivitySegment(startMs: s, endMs: e, lat: to.lat, lon: to.lon, distanceM: metres, mode: mode,
                                  startLatE7: (from.lat * 1e7).rounded(), startLonE7: (from.lon * 1e7).rounded(),
                                  activity: mode == "walk" ? "WALKING" : "IN_PASSENGER_VEHICLE")
        }
        let corner = Self.east(0.4), town = Self.east(217), garage = Self.east(225), near = Self.east(0.5), far = Self.east(9_000)
        let visits = [
            Self.visit(Self.day - 60 * Self.minute, Self.at(8), Self.home, placeID: "gHome"),
            Self.visit(Self.at(11, 30), Self.at(12), garage, placeID: "gGarage"),
            Self.visit(Self.at(13), Self.at(14), Self.home, placeID: "gHome"),
            Self.visit(Self.at(15), Self.at(16), Self.home, placeID: "gHome"),
        ]
        let activities = [
            activity(Self.at(8), Self.at(8, 10), from: Self.home, to: corner, 420, "walk"),  // meets home: no stretch
            activity(Self.at(8, 10), Self.at(11, 30), from: town, to: garage, 8_100, "car"),  // starts 216.6 km from the walk's end
            activity(Self.at(12), Self.at(12, 4), from: far, to: far, 500, "walk"),  // 9,000 km from the garage in 4 min: left out
            activity(Self.at(14), Self.at(14, 50), from: near, to: Self.home, 600, "walk"),  // 500 m from home: below 1 km
        ]
        let input = TimelinePass.Input(pointVisits: [], trips: [], places: [], visits: visits, activities: activities, edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.trips.count == 3)
        guard out.trips.count == 3 else { return }
        let drive = out.trips[0]
        let gap = Geo.distance(corner.lat, corner.lon, town.lat, town.lon)
        #expect(drive.legs.map(\.leg.mode) == ["walk", "car"] && drive.legs[0].leg.distanceM == 420)
        #expect(abs(drive.legs[1].leg.distanceM - (8_100 + gap)) < 0.05 && drive.method == "app_line")
        #expect(abs(drive.row.distanceM - (8_520 + gap)) < 0.05 && abs(out.distanceM - drive.row.distanceM - 1_100) < 1e-6)
        // The drive's line starts where the walk ended.
        let line = try #require(drive.legs.last?.line)
        #expect(line.count == 3 && abs(line.lat(0) - corner.lat) < 1e-6 && abs(line.lon(1) - town.lon) < 1e-6)
        #expect(abs((drive.legs[1].leg.lineDistanceM ?? 0) - (gap + Geo.distance(town.lat, town.lon, garage.lat, garage.lon))) < 0.05)
        #expect(out.trips[1].legs[0].leg.distanceM == 500 && out.trips[1].legs[0].leg.mode == "walk")
        #expect(out.trips[2].legs[0].leg.distanceM == 600 && out.trips[2].method == "app")
        // A 12-hour "walk" of 407 m that starts 8,775 km from the visit it leaves: a flight no activity shows.
        var flying = input
        flying.activities[2] = activity(Self.at(12), Self.at(24), from: far, to: far, 407, "walk")
        flying.visits[2] = Self.visit(Self.at(24), Self.at(25), far, placeID: "gFar")
        flying.activities[3] = activity(Self.at(25), Self.at(25, 50), from: far, to: far, 300, "walk")
        flying.visits[3] = Self.visit(Self.at(26), Self.at(27), far, placeID: "gFar")
        let flight = TimelinePass.fill(work(), flying, TimelinePass.Parameters()).trips[1].legs[0].leg
        #expect(flight.mode == "plane" && flight.modeSource == "pace")
        #expect(abs(flight.distanceM - (407 + Geo.distance(garage.lat, garage.lon, far.lat, far.lon))) < 0.05)
        // A walk that a stretch makes 2.9 m/s is a vehicle: Google saw a walk, not the 8 km before it.
        var brisk = input
        brisk.activities[3] = activity(Self.at(14), Self.at(14, 50), from: Self.east(8), to: Self.home, 600, "walk")
        let vehicle = TimelinePass.fill(work(), brisk, TimelinePass.Parameters()).trips[2].legs[0].leg
        #expect(vehicle.mode == "vehicle" && vehicle.modeSource == "pace" && abs(vehicle.distanceM - 8_600) < 0.05)
        // With the rule off, each leg keeps Google's distance.
        var off = TimelinePass.Parameters()
        off.connectorMinM = 0
        let plain = TimelinePass.fill(work(), input, off)
        #expect(plain.trips.map(\.row.distanceM) == [8_520, 500, 600] && plain.trips[0].method == "app")
    }

    /// A visit at its own centre, not its place's (a real export: lectures at a university's Adlershof campus named
    /// "Humboldt University of Berlin" at the main building's position, 13.5 km away, the visit's `centerLatE7` and
    /// every fix of its `simplifiedRawPath` at the campus; Google's walks to and from it begin and end at the main
    /// building, so each became a "vehicle" of 13 km at up to 206 m/s). Where most of its own fixes lie nearer its
    /// centre than its place, the visit, the place it founds and the ends of the activities that Google began or ended
    /// at the place are at the centre (algorithm version 81, `centre_min_m`); a visit without fixes, with as many on
    /// each side, or whose centre lies less than `centre_min_m` from its place stays at its place.
    @Test func aVisitIsWhereItsOwnFixesWere() throws {
        let campus = Self.east(13.5), lab = Self.east(13.9), main = Self.home
        func activity(_ s: Int64, _ e: Int64, from: (lat: Double, lon: Double), to: (lat: Double, lon: Double), _ metres: Double)
            -> GoogleActivitySegment {
            GoogleActivitySegment(startMs: s, endMs: e, lat: to.lat, lon: to.lon, distanceM: metres, mode: "walk",
                                  startLatE7: (from.lat * 1e7).rounded(), startLonE7: (from.lon * 1e7).rounded(),
                                  activity: "WALKING")
        }
        var lecture = Self.visit(Self.at(9), Self.at(11), main, placeID: "gHU", name: "Humboldt University of Berlin")
        lecture.centreLat = campus.lat
        lecture.centreLon = campus.lon
        lecture.fixes = [Self.east(13.52), Self.east(13.48, north: 30), main]  // two at the campus, one at the place
        let visits = [
            Self.visit(Self.at(8), Self.at(8, 50), Self.east(12.9), placeID: "gStation"),
            lecture,
            Self.visit(Self.at(11, 5), Self.at(12), lab, placeID: "gLab"),
        ]
        let activities = [
            activity(Self.at(8, 50), Self.at(9), from: Self.east(12.9), to: main, 13_600),  // Google's walk "to the main building"
            activity(Self.at(11), Self.at(11, 5), from: main, to: lab, 13_950),  // and "from" it: 46 m/s
        ]
        let input = TimelinePass.Input(pointVisits: [], trips: [], places: [], visits: visits, activities: activities, edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.visits.count == 3 && out.places.count == 3)
        guard out.visits.count == 3, out.trips.count == 2 else {
            Issue.record("expected three visits and two trips, got \(out.visits.count) and \(out.trips.count)")
            return
        }
        #expect(out.visits[1].row.lat == campus.lat && out.visits[1].row.lon == campus.lon)
        #expect(out.places[1].row.lat == campus.lat && out.places[1].row.name == "Humboldt University of Berlin")
        // The walks: Google's 13.6 and 13.95 km are impossible in 10 and 5 minutes, their lines now 600 and 400 m.
        let legs = out.trips.map { $0.legs[0].leg }
        #expect(legs.map(\.mode) == ["walk", "walk"] && legs.map(\.modeSource) == ["app", "app"])
        #expect(abs(legs[0].distanceM - Geo.distance(Self.east(12.9).lat, Self.east(12.9).lon, campus.lat, campus.lon)) < 0.01)
        #expect(abs(legs[1].distanceM - Geo.distance(campus.lat, campus.lon, lab.lat, lab.lon)) < 0.01)
        #expect(out.trips.allSatisfy { ($0.row.distanceM) < 1_000 })
        // As many fixes on each side, none at all, or the rule off: at the place, and the walks are vehicles again.
        var even = input
        even.visits[1].fixes = [campus, main]
        var none = input
        none.visits[1].fixes = []
        var off = TimelinePass.Parameters()
        off.centreMinM = 0
        for out in [TimelinePass.fill(work(), even, TimelinePass.Parameters()), TimelinePass.fill(work(), none, TimelinePass.Parameters()),
                    TimelinePass.fill(work(), input, off)] {
            #expect(out.visits.count == 3 && out.visits[1].row.lat == main.lat && out.visits[1].row.lon == main.lon)
            #expect(out.trips.map { $0.legs[0].leg.mode } == ["vehicle", "vehicle"])
        }
        // A centre nearer its place than `centre_min_m`: at the place.
        var close = input
        close.visits[1].centreLat = Self.east(0.1).lat
        close.visits[1].centreLon = Self.east(0.1).lon
        close.visits[1].fixes = [Self.east(0.1)]
        #expect(TimelinePass.fill(work(), close, TimelinePass.Parameters()).visits[1].row.lon == main.lon)
    }

    /// A visit the fixes saw in part (the eighth hostile round: a phone's fixes at work until 11:54, when it died, and
    /// the same person's Google Timeline with the work visit 09:10–17:00 and the drive home at 17:00): what the fixes
    /// saw stays theirs, and the rest of Google's visit, being most of it, is a visit of its own at the fixes' place,
    /// which Google's drive then leaves (algorithm version 85; before, the whole Google visit was dropped, the afternoon
    /// was in no visit and the drive left from nowhere). A Google visit the fixes saw mostly is not used.
    @Test func theRestOfAVisitTheFixesSawInPart() throws {
        let office = Self.east(3)
        let seen = VisitRow(id: 77, deviceID: Self.device, placeID: 910, startMs: Self.at(9, 25), endMs: Self.at(11, 54), startUTCOffset: 7200,
                            endUTCOffset: 7200, lat: office.lat, lon: office.lon, radiusM: 30, points: 150)
        let place = PlaceRow(id: 910, deviceID: Self.device, name: "Office", ssid: nil, lat: office.lat, lon: office.lon, radiusM: 30, visits: 1,
                             totalDwellS: 8940, firstVisitMs: Self.at(9, 25), lastVisitMs: Self.at(11, 54))
        let visits = [
            Self.visit(Self.at(9, 10), Self.at(17), office, placeID: "gWork"),
            Self.visit(Self.at(17, 30), Self.at(22), Self.home, placeID: "gHome"),
        ]
        let drive = GoogleActivitySegment(startMs: Self.at(17), endMs: Self.at(17, 30), lat: Self.home.lat, lon: Self.home.lon, distanceM: 3_400,
                                          mode: "car", startLatE7: (office.lat * 1e7).rounded(),
                                          startLonE7: (office.lon * 1e7).rounded(),
                                          activity: "IN_PASSENGER_VEHICLE")
        let input = TimelinePass.Input(pointVisits: [seen], trips: [], places: [place], visits: visits, activities: [drive], edits: [])
        let out = TimelinePass.fill(work(), input, TimelinePass.Parameters())
        #expect(out.visits.map { [$0.row.startMs, $0.row.endMs] } == [[Self.at(11, 54), Self.at(17)], [Self.at(17, 30), Self.at(22)]])
        #expect(out.visits.first?.place == .stored(910))
        #expect(out.trips.count == 1 && out.trips.first?.from == .added(0) && out.trips.first?.to == .added(1))
        // Seen mostly (09:25–16:00 of 09:10–17:00): the rest is not most of it, and the drive leaves from no visit.
        var mostly = input
        mostly.pointVisits[0].endMs = Self.at(16)
        let less = TimelinePass.fill(work(), mostly, TimelinePass.Parameters())
        #expect(less.visits.map(\.row.startMs) == [Self.at(17, 30)] && less.trips.first?.from == nil)
    }
}
