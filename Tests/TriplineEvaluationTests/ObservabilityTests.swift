import Testing
import TriplineEvaluation
@testable import TriplineSimulator

/// What no rebuild can see (`Observability`), on a hand-made day.
@Suite struct ObservabilityTests {
    let minute: Int64 = 60_000

    func stay(_ place: Int, _ a: Int64, _ b: Int64) -> TruthStay {
        TruthStay(device: "d", placeID: place, startMs: a * minute, endMs: b * minute)
    }

    func trip(_ from: Int, _ to: Int, _ a: Int64, _ b: Int64) -> TruthTrip {
        TruthTrip(device: "d", startMs: a * minute, endMs: b * minute, fromPlaceID: from, toPlaceID: to, legs: [], distanceM: 1000, stops: 0)
    }

    /// Home → shop → home inside a silence that starts and ends at home: both trips and the shop visit are hidden.
    /// The same silence ending at work implies one trip, so one of its trips is within reach. A visit whose silence
    /// holds no unseen trip is not hidden (the fixes on both sides are at it or on the trips to and from it).
    @Test func roundTripInASilenceIsHidden() {
        let stays = [stay(1, 0, 60), stay(2, 70, 100), stay(1, 110, 200)]
        let trips = [trip(1, 2, 60, 70), trip(2, 1, 100, 110)]
        let records: [Int64] = [10, 50, 150, 190].map { $0 * minute }
        let h = Observability.hidden(trips: trips, stays: stays, records: records)
        #expect(h.trips == 2)
        #expect(h.visits == 1)
        #expect(h.silences.count == 1)
        #expect(abs(Observability.ceiling(truth: 2, hidden: 2)) < 1e-12)

        let toWork = [stay(1, 0, 60), stay(2, 70, 100), stay(3, 110, 200)]
        let h2 = Observability.hidden(trips: [trip(1, 2, 60, 70), trip(2, 3, 100, 110)], stays: toWork, records: records)
        #expect(h2.trips == 1)

        let seenTrips = [trip(1, 2, 60, 70), trip(2, 3, 100, 110)]
        let h3 = Observability.hidden(trips: seenTrips, stays: toWork, records: [10, 65, 105, 190].map { $0 * minute })
        #expect(h3.visits == 0)
        #expect(h3.trips == 0)
        #expect(h3.beyond == 0)
        #expect(h.beyond == 2)
    }

    /// The trip a silence implies is within reach of a guess across the silence only when it lasts at least half of
    /// it: a 10-min trip from home to work inside a silence of 90 min is beyond it (a trip spanning the silence has
    /// IoU 0.11), inside one of 15 min it is not (0.67); neither is hidden.
    @Test func aShortTripInALongSilenceIsBeyondAGuess() {
        let stays = [stay(1, 0, 60), stay(3, 70, 200)]
        let commute = [trip(1, 3, 60, 70)]
        let long = Observability.hidden(trips: commute, stays: stays, records: [10, 20, 110, 190].map { $0 * minute })
        #expect(long.trips == 0 && long.beyond == 1)
        let short = Observability.hidden(trips: commute, stays: stays, records: [10, 58, 73, 190].map { $0 * minute })
        #expect(short.trips == 0 && short.beyond == 0)
        #expect(Observability.ceiling(truth: 1, hidden: long.beyond) == 0)
    }
}
