import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineGeography
import TriplineStore

/// The places pass as a function (issue 24): stays, edits, wifi and fixes in, places and visits out, no database
/// (`PlacesPass.placeStays`; docs/PASSES.md, "places").
@Suite struct PlacesFunctionTests {
    static let device: Int64 = 7
    static let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z
    static let home = (lat: 52.5200, lon: 13.4050)  // central Berlin
    static let hour: Int64 = 3_600_000

    /// A point `north`, `east` metres from home.
    static func at(_ north: Double, _ east: Double) -> (lat: Double, lon: Double) {
        (home.lat + north / 111_320, home.lon + east / (111_320 * Geo.cosLatitude(home.lat)))
    }

    /// A stay `day` days after t0 from `from` to `to` hours, `north`, `east` metres from home.
    static func stay(_ day: Int64, _ from: Int64, _ to: Int64, _ north: Double, _ east: Double, radius: Double = 30, points: Int = 40) -> StayRow {
        let p = at(north, east)
        let start = t0 + day * 86_400_000 + from * hour
        return StayRow(id: StableID.make(.stay, deviceKey: testDeviceKey, startMs: start), deviceID: device, startMs: start,
                       endMs: t0 + day * 86_400_000 + to * hour, lat: p.lat, lon: p.lon, radiusM: radius, points: points, gapS: 0)
    }

    /// Three nights at home (centres wandering 60 m), two visits to a shop 200 m east, one to a park 2 km north.
    static let stays: [StayRow] = [
        stay(0, 0, 7, 0, 0),  // home
        stay(0, 9, 10, 0, 200),  // shop
        stay(0, 18, 23, 40, -30),  // home
        stay(1, 12, 14, 2000, 0),  // park
        stay(1, 16, 17, 5, 195),  // shop
        stay(2, 1, 7, -30, 35),  // home
    ]

    func work(windowsFollow: Bool = false) -> DeviceWork {
        let w = DeviceWork(deviceID: Self.device, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
        w.windowsFollow = windowsFollow
        return w
    }

    /// Home's nights saw its router.
    static func input(edits: [PlaceEditRow] = []) -> PlacesPass.Input {
        var input = PlacesPass.Input(stays: stays, edits: edits)
        input.ssids = stays.indices.map { [0, 2, 5].contains($0) ? ["Flat-3": 12, "Neighbour": 2] : [:] }
        return input
    }

    /// Each stay's place (index into the output's places), nil when it has none.
    func placeOf(_ out: PlacesPass.Output) -> [Int?] { Self.stays.map { out.placeOfStay[$0.id!] } }

    @Test func staysBecomePlacesInTheOrderOfTheirFirstStayWithOneVisitEach() {
        let out = PlacesPass.placeStays(work(), Self.input(), PlacesPass.Parameters())
        #expect(out.places.count == 3)
        #expect(placeOf(out) == [0, 1, 0, 2, 1, 0])
        // A place's id is derived from its first stay; its totals are its stays'.
        #expect(out.places.map(\.id) == [0, 1, 3].map { StableID.make(.place, deviceKey: testDeviceKey, startMs: Self.stays[$0].startMs) })
        #expect(out.places[0].visits == 3 && out.places[1].visits == 2 && out.places[2].visits == 1)
        #expect(out.places[0].totalDwellS == (7 + 5 + 6) * 3600)
        #expect(out.places[0].firstVisitMs == Self.stays[0].startMs && out.places[0].lastVisitMs == Self.stays[5].endMs)
        // Home's centre is the dwell-weighted mean of its nights; its radius reaches the farthest of them.
        let nights = [0, 2, 5].map { Self.stays[$0] }
        let dwell = nights.map { Double($0.endMs - $0.startMs) }
        let lat = zip(nights, dwell).reduce(0) { $0 + $1.0.lat * $1.1 } / dwell.reduce(0, +)
        #expect(abs(out.places[0].lat - lat) < 1e-9)
        #expect(out.places[0].radiusM > 20 && out.places[0].radiusM < 60)
        // One visit per stay, under the stay's id, at its place.
        #expect(out.visitCount == 6)
        #expect(out.visits.map(\.row.id) == Self.stays.map(\.id))
        #expect(out.visits.map(\.place) == [0, 1, 0, 2, 1, 0])
        #expect(out.visits.allSatisfy { $0.row.placeID == nil && $0.row.deviceID == Self.device })
        #expect(out.visits[3].row.radiusM == 30 && out.visits[3].row.points == 40)
    }

    /// The wifi seen most names a place, else `near <locality>` (with where it lies from it), else the coordinates.
    @Test func placesAreNamedByWifiThenLocality() {
        let out = PlacesPass.placeStays(work(), Self.input(), PlacesPass.Parameters())
        #expect(out.places[0].name == "Flat-3" && out.places[0].ssid == "Flat-3")
        #expect(out.places[1].ssid == nil && out.places[1].name.hasPrefix("near Berlin"))
        #expect(out.places[2].name.hasPrefix("near Berlin"))
        #expect(out.namedByWifi == 1 && out.withLocality == 3)
        #expect(out.places.allSatisfy { $0.countryCode == "DE" })
        // At sea: the coordinates.
        var input = PlacesPass.Input(stays: [StayRow(id: 1, deviceID: Self.device, startMs: Self.t0, endMs: Self.t0 + Self.hour, lat: 35, lon: -40,
                                                     radiusM: 10, points: 9, gapS: 0)], edits: [])
        input.ssids = [[:]]
        #expect(PlacesPass.placeStays(work(), input, PlacesPass.Parameters()).places.map(\.name) == ["35.00000, -40.00000"])
        // A window that another follows leaves the names to the last one: no wifi.
        let early = PlacesPass.placeStays(work(windowsFollow: true), Self.input(), PlacesPass.Parameters())
        #expect(early.places[0].ssid == nil && early.places[0].name.hasPrefix("near Berlin"))
    }

    /// The user's edits are found again by the centre the place had: a name wins over the wifi, a merged place's
    /// visits go to the other, a forgotten place has no visit and no place.
    @Test func theUsersEditsRenameMergeAndForget() {
        let first = PlacesPass.placeStays(work(), Self.input(), PlacesPass.Parameters())
        let (home, shop, park) = (first.places[0], first.places[1], first.places[2])
        let edits = [
            PlaceEditRow(id: 1, deviceID: Self.device, action: .rename, lat: home.lat, lon: home.lon, name: "Home sweet home", createdMs: 1),
            PlaceEditRow(id: 2, deviceID: Self.device, action: .merge, lat: shop.lat, lon: shop.lon, intoLat: home.lat, intoLon: home.lon, createdMs: 2),
            PlaceEditRow(id: 3, deviceID: Self.device, action: .forget, lat: park.lat, lon: park.lon, createdMs: 3),
        ]
        let out = PlacesPass.placeStays(work(), Self.input(edits: edits), PlacesPass.Parameters())
        #expect(out.places.map(\.name) == ["Home sweet home"])
        #expect(out.places[0].visits == 5 && out.places[0].id == home.id)
        #expect(placeOf(out) == [0, 0, 0, nil, 0, 0])
        #expect(out.visitCount == 5 && out.visits.count == 5)
        #expect(!out.visits.contains { $0.row.id == Self.stays[3].id })
    }

    /// A visit's offsets: as stored when its stay is unchanged, else the fix's own at that instant, else the zone's
    /// where the fix (or, for an estimated time, the stay) was. Visits kept as stored are counted, not written.
    @Test func visitOffsetsAndVisitsLeft() {
        var input = Self.input()
        let s = Self.stays
        input.storedOffsets = [s[0].id!: (s[0].startMs, s[0].endMs, 111, 222), s[2].id!: (s[2].startMs, s[2].endMs + 1, 333, 444)]
        input.fixes = [s[2].startMs: Fix(timeMs: s[2].startMs, utcOffset: -18_000, lat: s[2].lat, lon: s[2].lon),
                       s[2].endMs: Fix(timeMs: s[2].endMs, utcOffset: nil, lat: s[2].lat, lon: s[2].lon)]
        input.visitsLeft = [s[4].id!]
        let out = PlacesPass.placeStays(work(), input, PlacesPass.Parameters())
        func visit(_ k: Int) -> VisitRow? { out.visits.first { $0.row.id == s[k].id }?.row }
        #expect(visit(0)?.startUTCOffset == 111 && visit(0)?.endUTCOffset == 222)
        // Stored for other times: worked out again; the fix's own offset, else Berlin's summer time.
        #expect(visit(2)?.startUTCOffset == -18_000 && visit(2)?.endUTCOffset == 7200)
        #expect(visit(3)?.startUTCOffset == 7200)
        #expect(visit(4) == nil && out.placeOfStay[s[4].id!] == 1 && out.visitCount == 6)
    }

    /// The app's region records reach the clustering (`regions`, docs/PASSES.md "places"): a lone fix 250 m from home,
    /// between the phone's `leave` of `Home` and its next `enter`, is a place of its own; with `regions` off, or with
    /// no region records, it joins home (`weak_reach_m`).
    @Test func aLoneFixBetweenTheHomeRegionsLeaveAndEnterIsNoHomeVisit() {
        let stays = [Self.stay(0, 0, 7, 0, 0), Self.stay(0, 9, 10, 250, 0, points: 1), Self.stay(0, 11, 23, 10, 5), Self.stay(1, 0, 7, -5, 0)]
        var input = PlacesPass.Input(stays: stays, edits: [])
        input.ssids = stays.map { _ in [:] }
        let leave = Self.t0 + 8 * Self.hour + 50 * 60_000, enter = Self.t0 + 10 * Self.hour + 40 * 60_000
        input.regionEvents = [
            EvidenceEvent(kind: "waypoint", timeMs: Self.t0, lat: Self.home.lat, lon: Self.home.lon, desc: "Home", radiusM: 100),
            EvidenceEvent(kind: "transition", timeMs: leave, desc: "Home", event: "leave"),
            EvidenceEvent(kind: "transition", timeMs: enter, desc: "Home", event: "enter"),
        ]
        func places(_ input: PlacesPass.Input, regions: Double = 1) -> [Int?] {
            var p = PlacesPass.Parameters()
            p.regions = regions
            let out = PlacesPass.placeStays(work(), input, p)
            return stays.map { out.placeOfStay[$0.id!] }
        }
        #expect(places(input) == [0, 1, 0, 0])
        #expect(places(input, regions: 0) == [0, 0, 0, 0])
        var none = input
        none.regionEvents = []
        #expect(places(none) == [0, 0, 0, 0])
    }

    /// A stay's centre is as uncertain as its fixes' accuracy over their number (`accuracy_factor`, docs/PASSES.md
    /// "places"): a shop's two stays of three wifi fixes at 65 m, 95 m apart with radii of 8 and 13 m (link distance
    /// 75 + 10.5 m), are one place; the same stays seen by 600 GPS fixes at 10 m stay two, and so do they with
    /// `accuracy_factor` 0 or with no accuracy read.
    @Test func aShopsTwoStaysOfThreePoorFixesAreOnePlace() {
        let stays = [Self.stay(0, 0, 7, 0, 0), Self.stay(0, 9, 10, 500, 36, radius: 8, points: 3),
                     Self.stay(1, 9, 10, 500, -59, radius: 13, points: 3), Self.stay(1, 18, 23, 10, 5)]
        var input = PlacesPass.Input(stays: stays, edits: [])
        input.ssids = stays.map { _ in [:] }
        input.accuracies = [10, 65, 65, 10]
        func places(_ input: PlacesPass.Input, factor: Double = 1) -> [Int?] {
            var p = PlacesPass.Parameters()
            p.accuracyFactor = factor
            let out = PlacesPass.placeStays(work(), input, p)
            return stays.map { out.placeOfStay[$0.id!] }
        }
        #expect(places(input) == [0, 1, 1, 0])
        #expect(places(input, factor: 0) == [0, 1, 2, 0])
        var unread = input
        unread.accuracies = []
        #expect(places(unread) == [0, 1, 2, 0])
        var dense = input
        dense.stays[1].points = 600
        dense.stays[2].points = 600
        dense.accuracies = [10, 10, 10, 10]
        #expect(places(dense) == [0, 1, 2, 0])
    }
}
