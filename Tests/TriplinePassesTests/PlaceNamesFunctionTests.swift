import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineGeography
import TriplineStore

/// The place names as a function (issue 24): places, visits, edits and the apps' names in, the names out, no
/// database (`PlaceNames.names`; docs/PASSES.md, "Place names"): the user's name, then the app's, then Home and Work,
/// then the wifi, then `near <locality>`; no two places share a name.
@Suite struct PlaceNamesFunctionTests {
    static let device: Int64 = 3
    static let monday: Int64 = 1_717_372_800_000  // 2024-06-03T00:00:00Z, a Monday (Berlin: CEST, UTC+2)
    static let hour: Int64 = 3_600_000

    /// A point `east` km east of central Berlin.
    static func east(_ km: Double) -> (lat: Double, lon: Double) { Geo.destination(52.52, 13.40, bearing: 90, distance: km * 1000) }

    static func place(_ id: Int64, _ km: Double, name: String, ssid: String? = nil, dwellH: Int64) -> PlaceRow {
        let p = east(km)
        return PlaceRow(id: id, deviceID: device, name: name, ssid: ssid, lat: p.lat, lon: p.lon, radiusM: 20, visits: 1,
                        totalDwellS: dwellH * 3600, firstVisitMs: nil, lastVisitMs: nil)
    }

    static func visit(_ place: Int64, _ km: Double, day: Int64, from: Int64, to: Int64) -> VisitRow {
        let p = east(km)
        return VisitRow(id: place * 100 + day, deviceID: device, placeID: place, startMs: monday + day * 86_400_000 + from * hour,
                        endMs: monday + day * 86_400_000 + to * hour, startUTCOffset: 7200, endUTCOffset: 7200, lat: p.lat, lon: p.lon,
                        radiusM: 20, points: 10)
    }

    /// `near <locality> (… km E)`, as the places pass names a place `km` east of central Berlin.
    static func nearName(_ km: Double) -> String {
        let p = east(km), w = PlacesPass.whereIs(p.lat, p.lon)
        return "near " + (w.locality ?? "?") + w.offset
    }

    /// Seven places 1 km apart along a line east of central Berlin, each named as the places pass named it.
    static func input() -> PlaceNames.Input {
        let places = [
            place(1, 0, name: "Gym", dwellH: 5),  // the user renamed it so; Google calls it "Fitness First"
            place(2, 1, name: "Flat-3", ssid: "Flat-3", dwellH: 40),  // three nights: Home (before its wifi)
            place(3, 2, name: "CafeNet", ssid: "CafeNet", dwellH: 3),  // Google: "Cafe Luna" (before its wifi)
            place(4, 3, name: "Office-Net", ssid: "Office-Net", dwellH: 4),  // its wifi
            place(5, 4, name: "Office-Net", ssid: "Office-Net", dwellH: 2),  // the same wifi, less dwell: qualified
            place(6, 5, name: nearName(5), dwellH: 1),  // nothing: near its locality
            place(7, 6, name: nearName(6), dwellH: 1),  // inside an OwnTracks region "Studio"
        ]
        var visits: [VisitRow] = []
        for day: Int64 in 0..<3 {
            visits.append(visit(2, 1, day: day, from: -2, to: 6))  // 00:00–08:00 local
            visits.append(visit(1, 0, day: day, from: 16, to: 17))
        }
        visits.append(visit(3, 2, day: 0, from: 10, to: 11))
        visits.append(visit(4, 3, day: 1, from: 10, to: 12))
        visits.append(visit(5, 4, day: 2, from: 10, to: 11))
        visits.append(visit(6, 5, day: 3, from: 10, to: 11))
        visits.append(visit(7, 6, day: 4, from: 10, to: 11))
        visits.sort { ($0.startMs, $0.id!) < ($1.startMs, $1.id!) }
        let gym = east(0), cafe = east(2), studio = east(6)
        var input = PlaceNames.Input(
            places: places,
            edits: [PlaceEditRow(id: 1, deviceID: device, action: .rename, lat: gym.lat, lon: gym.lon, name: "Gym", createdMs: 1)],
            visits: visits)
        input.googleVisits = [
            (monday + 16 * hour, monday + 17 * hour, gym.lat, gym.lon, nil, "Fitness First", nil, nil),
            (monday + 10 * hour, monday + 11 * hour, cafe.lat, cafe.lon, nil, " Cafe Luna ", "Main St 1", nil),
            // A visit inside another one names nothing.
            (monday + 10 * hour, monday + 11 * hour, cafe.lat, cafe.lon, nil, "Table 4", nil, 1),
        ]
        input.ownTracks = [(kind: "waypoint", timeMs: monday, lat: studio.lat, lon: studio.lon, desc: "Studio", event: nil, radiusM: 150)]
        return input
    }

    @Test func namesFollowTheDocumentedOrder() {
        let (renames, rules) = PlaceNames.names(Self.input(), zones: LocalZones(), joinM: 75)
        let named = Dictionary(uniqueKeysWithValues: renames.map { ($0.id, $0.name) })
        #expect(named[1] == nil)  // the user's name stays: no rename
        #expect(named[2] == "Home")
        #expect(named[3] == "Cafe Luna")
        #expect(named[4] == nil)  // already "Office-Net"
        #expect(named[5] == "Office-Net (2)")
        #expect(named[6] == nil && Self.nearName(5).hasPrefix("near Berlin"))  // as it was
        #expect(named[7] == "Studio")
        #expect(renames.count == 4)
        #expect(rules == ["user": 1, "app": 2, "home": 1, "wifi": 2, "qualified": 1])
    }

    /// Without the user's edit the app's name wins there; without the nights no Home, and the wifi names the place.
    @Test func eachRuleGivesWayToTheOneBefore() {
        var input = Self.input()
        input.edits = []
        input.visits.removeAll { $0.placeID == 2 }
        let (renames, rules) = PlaceNames.names(input, zones: LocalZones(), joinM: 75)
        let named = Dictionary(uniqueKeysWithValues: renames.map { ($0.id, $0.name) })
        #expect(named[1] == "Fitness First")
        #expect(named[2] == nil)  // "Flat-3", its wifi, as it was
        #expect(rules["home"] == nil && rules["user"] == 0 && rules["app"] == 3 && rules["wifi"] == 3)
    }
}
