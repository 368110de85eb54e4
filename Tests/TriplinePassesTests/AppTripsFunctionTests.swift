import Testing
@testable import TriplinePasses
import TriplineStore

/// The apptrips pass as a function (issue 24): ``AppTripsPass/match`` pairs each app trip record with the rebuilt
/// trip that overlaps it most, with no database.
@Suite struct AppTripsFunctionTests {
    let t0: Int64 = 1_717_228_800_000  // 2024-06-01T08:00:00Z
    let min: Int64 = 60_000

    func trip(_ id: Int64, _ from: Int64, _ to: Int64, _ metres: Double, _ mode: String) -> TripRow {
        TripRow(id: id, deviceID: 1, startMs: t0 + from * min, endMs: t0 + to * min, startUTCOffset: 0, endUTCOffset: 0, durationS: 0, movingS: 0,
                distanceM: metres, avgSpeedMps: nil, maxSpeedMps: nil, mode: mode, legs: 1, fromVisitID: nil, toVisitID: nil, fromPlaceID: nil,
                toPlaceID: nil, startLat: nil, startLon: nil, endLat: nil, endLon: nil, points: 2, gaps: 0)
    }

    @Test func theMostOverlappingTripMatches() throws {
        let event = AppTripEvent(id: 77, startMs: t0, endMs: t0 + 30 * min, distanceM: 5000, mode: "automotive")
        // A: −10 … 20 min (IoU 20/40 = 0.5); B: 5 … 30 min (IoU 25/30).
        let c = AppTripsPass.Candidate(event: event, trips: [trip(1, -10, 20, 4000, "walk"), trip(2, 5, 30, 5200, "car")])
        let rows = AppTripsPass.match([c], device: 1, AppTripsPass.Parameters())
        try #require(rows.count == 1)
        let r = rows[0]
        #expect(r.eventID == 77 && r.deviceID == 1 && r.tripID == 2 && r.tripMode == "car" && r.appMode == "automotive")
        #expect(r.overlap.map { abs($0 - 25.0 / 30) < 1e-12 } == true)
        #expect(r.startDiffS == 300 && r.endDiffS == 0)
        #expect(r.distanceDiffM.map { abs($0 - 200) < 1e-9 } == true)
    }

    @Test func belowTheLeastOverlapNoTrip() throws {
        let event = AppTripEvent(id: 78, startMs: t0, endMs: t0 + 30 * min, distanceM: nil, mode: nil)
        // 28 … 60 min: IoU 2/60, below min_overlap 0.1; no candidate at all for the second record.
        let rows = AppTripsPass.match(
            [AppTripsPass.Candidate(event: event, trips: [trip(3, 28, 60, 1000, "walk")]), AppTripsPass.Candidate(event: event, trips: [])],
            device: 1, AppTripsPass.Parameters())
        #expect(rows.count == 2)
        for r in rows {
            #expect(r.tripID == nil && r.overlap == nil && r.startDiffS == nil && r.distanceDiffM == nil && r.tripMode == nil)
        }
        var loose = AppTripsPass.Parameters()
        loose.minOverlap = 0.01
        let matched = AppTripsPass.match([AppTripsPass.Candidate(event: event, trips: [trip(3, 28, 60, 1000, "walk")])], device: 1, loose)
        #expect(matched[0].tripID == 3 && matched[0].distanceDiffM == nil)  // the app gave no distance
    }

    /// Two equal overlaps: the first read wins.
    @Test func aTieKeepsTheFirst() {
        let event = AppTripEvent(id: 79, startMs: t0, endMs: t0 + 20 * min, distanceM: nil, mode: nil)
        let rows = AppTripsPass.match(
            [AppTripsPass.Candidate(event: event, trips: [trip(4, -10, 10, 0, "walk"), trip(5, 10, 30, 0, "car")])], device: 1, AppTripsPass.Parameters())
        #expect(rows[0].tripID == 4)
    }

    /// Google writes a journey as an activity per mode (walk, train, walk): an activity covering less than half of the
    /// rebuilt trip is compared with the leg it overlaps most (its mode, ends and distance); one covering most of the
    /// trip, as an Overland trip record does, with the trip. Before, every part of the journey was compared with the
    /// trip's mode (a walk to the station "disagreed" with its `train` trip).
    @Test func aPartOfATripIsComparedWithItsLeg() throws {
        var journey = trip(6, 0, 60, 13_000, "train")
        journey.legs = 3
        func leg(_ n: Int, _ from: Int64, _ to: Int64, _ metres: Double, _ mode: String) -> LegRow {
            LegRow(tripID: 6, leg: n, deviceID: 1, mode: mode, modeSource: "rules", startMs: t0 + from * min, endMs: t0 + to * min,
                   distanceM: metres, durationS: Double((to - from) * 60), points: 10)
        }
        let legs = [leg(0, 0, 10, 700, "walk"), leg(1, 10, 52, 11_800, "train"), leg(2, 52, 60, 500, "walk")]
        let walk = AppTripEvent(id: 80, startMs: t0 - min, endMs: t0 + 11 * min, distanceM: 800, mode: "walk")
        let whole = AppTripEvent(id: 81, startMs: t0, endMs: t0 + 58 * min, distanceM: 12_500, mode: "train")
        let rows = AppTripsPass.match(
            [walk, whole].map { AppTripsPass.Candidate(event: $0, trips: [journey], legs: [6: legs]) }, device: 1, AppTripsPass.Parameters())
        try #require(rows.count == 2)
        #expect(rows[0].tripID == 6 && rows[0].tripMode == "walk" && rows[0].startDiffS == 60 && rows[0].endDiffS == -60)
        #expect(rows[0].distanceDiffM == -100 && rows[0].overlap.map { abs($0 - 11.0 / 61) < 1e-12 } == true)
        #expect(rows[1].tripID == 6 && rows[1].tripMode == "train" && rows[1].endDiffS == 120 && rows[1].distanceDiffM == 500)
        // Without its legs read, the part is compared with the trip, as before.
        let bare = AppTripsPass.match([AppTripsPass.Candidate(event: walk, trips: [journey])], device: 1, AppTripsPass.Parameters())
        #expect(bare[0].tripMode == "train")
    }
}
