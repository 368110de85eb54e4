#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineTestSupport

/// The learned stop-or-traffic decision of the stays pass (``PauseDecision``, ``PauseModel``; docs/PASSES.md "Learned:
/// stop or traffic"), as a function on hand-built days without a database.
@Suite struct PauseCutTests {
    let t0: Int64 = 1_717_200_000_000  // 2024-06-01T00:00:00Z, 08:00 in Beijing
    let home = (lat: 39.9800, lon: 116.3200)

    /// GeoLife-like fixes (no reported speed or accuracy; speeds come from displacement), at Beijing's offset.
    func work(_ b: TrackBuilder) -> DeviceWork {
        EarlyPassesWork.of(b.points.map { var p = $0; p.speedMps = nil; p.accuracyM = nil; return p })
    }

    /// An hour at home from 18:00 local time; a bus 4 km north at 8 m/s; 12 minutes standing at a stop on the way (a
    /// transfer), the logger quiet for 7 of them (GeoLife's loggers often stop writing while still); a bus 4 km further
    /// north; an hour at the destination. (With fixes all through the wait, or at 08:00, the shipped model's traffic
    /// probability stays below its threshold, 0.10–0.18: see docs/PASSES.md, "Learned: stop or traffic".)
    func busWithAWait() -> DeviceWork {
        var b = TrackBuilder(startMs: t0 + 10 * 3_600_000, lat: home.lat, lon: home.lon, offset: 28_800)
        b.still(3600, every: 5, drift: 3...10)
        b.move(4000, bearing: 0, speed: 8, every: 2)
        b.still(150, every: 5, drift: 3...10)
        b.gap(420)
        b.still(150, every: 5, drift: 3...10)
        b.move(4000, bearing: 0, speed: 8, every: 2)
        b.still(3600, every: 5, drift: 3...10)
        return work(b)
    }

    /// An hour at home; a 600-m walk east; 12 minutes at a shop; 600 m further east on foot; an hour at a friend's.
    func walkWithAShop() -> DeviceWork {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon, offset: 28_800)
        b.still(3600, every: 5, drift: 3...10)
        b.move(600, bearing: 90, speed: 1.3, every: 2)
        b.still(720, every: 5, drift: 3...10)
        b.move(600, bearing: 90, speed: 1.3, every: 2)
        b.still(3600, every: 5, drift: 3...10)
        return work(b)
    }

    /// The stays of `w`; the model's tests leave the aboard rule out (`aboardMps` 0) unless they say otherwise.
    func stays(_ w: DeviceWork, model: PauseModel = .shipped, on: Bool = true, aboardMps: Double = 0) -> [StayRecord] {
        var p = StaysPass.Parameters()
        p.pauseModel = on ? 1 : 0
        p.aboardMps = aboardMps
        return StaysPass.stays(w, p, pauseModel: model)
    }

    /// An hour at home; 4 km north by car at 11 m/s; 12 minutes standing with fixes all through (a jam, or a stop with
    /// a walk of `walkM` metres to the door and back); 4 km north-east by car; an hour at the destination.
    func driveWithAStop(walkM: Double, speed: Double = 11) -> DeviceWork {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon, offset: 28_800)
        b.still(3600, every: 5, drift: 3...10)
        b.move(4000, bearing: 0, speed: speed, every: 2)
        if walkM > 0 { b.move(walkM, bearing: 90, speed: 1.3, every: 2) }
        b.still(720, every: 5, drift: 3...10)
        if walkM > 0 { b.move(walkM, bearing: 270, speed: 1.3, every: 2) }
        b.move(4000, bearing: 45, speed: speed, every: 2)
        b.still(3600, every: 5, drift: 3...10)
        return work(b)
    }

    let always = PauseModel(base: 20, stumps: [], threshold: 0.5)
    let never = PauseModel(base: -20, stumps: [], threshold: 0.5)

    /// The wait at the stop between two bus legs is no visit: one trip home → work. Without the model (or with it off)
    /// the wait is a stay of its own and cuts the ride in two.
    @Test func aWaitBetweenTwoBusLegsJoinsThem() {
        let w = busWithAWait()
        #expect(stays(w, on: false).count == 3)
        #expect(stays(w, model: never).count == 3)
        let joined = stays(w)
        #expect(joined.count == 2)
        guard joined.count == 2 else { return }
        #expect(Geo.distance(joined[0].lat, joined[0].lon, home.lat, home.lon) < 50)
        #expect(Geo.distance(joined[1].lat, joined[1].lon, home.lat, home.lon) > 7900)
        // The trips pass then makes one trip of both legs.
        let trips = TripsPass.detect(w, stays: joined, TripsPass.Parameters(), MetricsPass.Parameters())
        #expect(trips.count == 1)
    }

    /// A stop at a shop between two walks stays a visit: the shipped model keeps it (a model that joins every
    /// candidate would not: it is a candidate, decided by the model, not by the candidate bounds).
    @Test func aShopBetweenTwoWalksStays() {
        let w = walkWithAShop()
        #expect(stays(w).count == 3)
        #expect(stays(w, model: always).count == 2)
    }

    /// A car that stands 12 minutes with fixes all through, and drives on at its own speed, carried its traveller
    /// through: with the aboard rule (`stays.aboard_mps` 7.5 m/s; shipped until algorithm version 96, off since: a
    /// vehicle parked that long stopped there, `ParkedStopTests`) the stand is no stay, whatever the model
    /// says (a model that never joins; the shipped one keeps such a stand, probability ~0.1). Without the rule it
    /// cuts the drive in two.
    @Test func aStandAboardACarJoinsTheDrives() {
        let w = driveWithAStop(walkM: 0)
        #expect(stays(w, model: never).count == 3)
        let joined = stays(w, model: never, aboardMps: 7.5)
        #expect(joined.count == 2)
        let trips = TripsPass.detect(w, stays: joined, TripsPass.Parameters(), MetricsPass.Parameters())
        #expect(trips.count == 1)
    }

    /// The same drive with a 100-m walk from the car to the door and back is a stop: the minute before and after the
    /// stay are on foot, so the aboard rule keeps the visit (a bound below walking pace, 0.5 m/s, would not).
    @Test func aStopReachedOnFootStays() {
        let w = driveWithAStop(walkM: 100)
        #expect(stays(w, model: never, aboardMps: 7.5).count == 3)
        #expect(stays(w, model: never, aboardMps: 0.5).count == 2)
    }

    /// A cyclist rides up to the door at 5 m/s: the rule's bound (faster than any bicycle, `trips.cycle_max_mps`)
    /// keeps the shop visit, which a bound at walking pace (2.4 m/s) would join away.
    @Test func aBicycleToTheDoorStays() {
        let w = driveWithAStop(walkM: 0, speed: 5)
        #expect(stays(w, model: never, aboardMps: 7.5).count == 3)
        #expect(stays(w, model: never, aboardMps: 2.4).count == 2)
    }

    /// An out-and-back stop (the stays before and after it at one place) is never a candidate: a quick visit.
    @Test func anOutAndBackStopIsNoCandidate() {
        var b = TrackBuilder(startMs: t0, lat: home.lat, lon: home.lon, offset: 28_800)
        b.still(3600, every: 5, drift: 3...10)
        b.move(4000, bearing: 0, speed: 8, every: 2)
        b.still(720, every: 5, drift: 3...10)
        b.move(4000, bearing: 180, speed: 8, every: 2)
        b.still(3600, every: 5, drift: 3...10)
        let w = work(b)
        #expect(stays(w, model: always).count == 3)
        let log = PauseLog()
        _ = StaysPass.stays(w, StaysPass.Parameters(), pauseModel: always, pauseLog: log)
        #expect(log.take().isEmpty)
    }

    /// The features the decision logs for the bus wait: its 12 minutes, its 7-minute silence, the bus speed on both
    /// sides, straight on.
    @Test func featuresOfTheWait() {
        let log = PauseLog()
        var p = StaysPass.Parameters()
        p.pauseModel = 0
        p.aboardMps = 0
        let kept = StaysPass.stays(busWithAWait(), p, pauseLog: log)
        #expect(kept.count == 3)
        let entries = log.take()
        #expect(entries.count == 1)
        guard let e = entries.first else { return }
        #expect(!e.joined)
        func f(_ name: String) -> Double { e.features[PauseFeatures.names.firstIndex(of: name)!] }
        #expect(abs(exp(f("log_duration_s")) - 1 - 720) < 60)
        #expect(f("speed_p50_before_mps") > 6 && f("speed_p50_after_mps") > 6)
        #expect(f("turn_deg") < 10)
        #expect(abs(exp(f("log_longest_silence_s")) - 1 - 425) < 10)
        #expect(e.features.count == PauseFeatures.names.count)
    }

    /// The text form the training script writes reads back to the same model; errors name the file and line.
    @Test func textForm() throws {
        let text = "# comment\nbase -1.5\nthreshold 0.5\nstump log_duration_s 6.5 0.25 -0.5\nend 3\n"
        let m = try PauseModel(text: text, origin: "m.txt")
        #expect(m == PauseModel(base: -1.5, stumps: [.init(0, 6.5, 0.25, -0.5)], threshold: 0.5))
        #expect(throws: ModelFileError("m.txt", line: 3, "a stump is 'stump FEATURE SPLIT LEFT RIGHT' with a known feature name")) {
            try PauseModel(text: "base 0\nthreshold 0.5\nstump nonsense 1 2 3\nend 3\n", origin: "m.txt")
        }
    }
}
