import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplinePasses
import TriplineTestSupport

/// The legs (mode, start ms, end ms, metres) of the one trip a full rebuild of `points` makes with `sets`; they
/// add up to the trip's distance.
private func legs(_ points: [Point], _ sets: [String] = []) throws -> [(mode: String, start: Int64, end: Int64, metres: Double)] {
    let store = try storeWith([("phone", points)])
    try rebuild(store, sets: sets)
    #expect(try count(store, "SELECT count(*) FROM trips") == 1)
    let trip = try store.db.prepare("SELECT sum(distance_m) FROM trips")
    _ = try trip.step()
    let total = trip.double(0)
    let q = try store.db.prepare("SELECT mode, start_ms, end_ms, distance_m FROM legs ORDER BY start_ms")
    var rows: [(mode: String, start: Int64, end: Int64, metres: Double)] = []
    while try q.step() { rows.append((q.text(0) ?? "", q.int64(1), q.int64(2), q.double(3))) }
    #expect(abs(rows.reduce(0) { $0 + $1.metres } - total) < 1, "\(rows) against \(total) m")
    return rows
}

/// A walk to a train seen by a sparse phone (algorithm version 69; docs/PASSES.md "A train between sparse fixes"): a
/// fix every 3 min on foot, a few fixes on board. The train's own fixes span less than `min_leg_s`, so it joined the
/// walk (`trips.vehicle_hold_m`), and the hop from the last walking fix to the first on board was the walk's whole
/// (`trips.hop_split_s`).
@Suite struct SparseChangeTests {
    let t0: Int64 = 1_717_200_000_000

    /// Home, a walk of 700 m (a fix every 3 min), 60 s more on foot, the train at 22 m/s with its first fix 101 s after
    /// the change and four fixes on board 20 s apart, 4 min more on board without a fix, a walk of 540 m, then still.
    /// Returns the points and the time of the change from the walk to the train.
    func toTheTrain() -> (points: [Point], changeMs: Int64) {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 300, drift: 2...5)
        b.move(700, bearing: 90, speed: 1.3, every: 180)
        b.gap(60, moving: 78, bearing: 90)
        let change = b.t
        b.gap(81, moving: 81 * 22, bearing: 90)
        b.move(80 * 22, bearing: 90, speed: 22, every: 20)
        b.gap(240, moving: 240 * 22, bearing: 90)
        b.move(540, bearing: 90, speed: 1.3, every: 180)
        b.still(3600, every: 300, drift: 2...5)
        return (b.points, change)
    }

    @Test func aTrainSeenByFourFixesIsALeg() throws {
        let (points, _) = toTheTrain()
        let found = try legs(points)
        #expect(found.count == 3 && found.first?.mode == "walk" && found.last?.mode == "walk", "\(found)")
        if found.count == 3 { #expect(LegMode(rawValue: found[1].mode)?.isMotorised == true, "\(found)") }
        // Off: the 60 s of fixes on board are shorter than `min_leg_s`, and the whole trip was a walk.
        #expect(try legs(points, ["trips.vehicle_hold_m=0"]).map(\.mode) == ["walk"])
    }

    @Test func theChangeLiesInsideTheHop() throws {
        let (points, change) = toTheTrain()
        let found = try legs(points)
        guard found.count == 3 else {
            Issue.record("\(found)")
            return
        }
        // The paces place the change within seconds of the truth (the train's first fix came 101 s after it).
        #expect(abs(found[0].end - change) <= 10_000, "\(found[0].end - change) ms")
        // The walk walked: its way over its time is a walker's pace, not the train's 1.8 km of the hop.
        let pace = found[0].metres / (Double(found[0].end - found[0].start) / 1000)
        #expect(pace < 2, "walk at \(pace) m/s")
        // Off: the walk ends at the train's first fix, with the hop's way.
        let off = try legs(points, ["trips.hop_split_s=0"])
        #expect(off.count == 3 && off[0].end == change + 101_000, "\(off)")
        if off.count == 3 { #expect(off[0].metres / (Double(off[0].end - off[0].start) / 1000) > 2.4, "\(off)") }
    }

    /// A silence longer than `split_gap_s` crossed at a car's pace is a leg of its own (`unknown`, ``TripsPass/crossedSilences``):
    /// the change from the walk is not looked for inside it, which left that leg a second long and gave its 40 min to
    /// the car.
    @Test func aCrossedSilenceKeepsItsLeg() throws {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(3600, every: 300, drift: 2...5)
        b.move(700, bearing: 90, speed: 1.3, every: 180)
        let silence = b.t
        b.gap(2400, moving: 2400 * 16, bearing: 90)
        b.move(3000, bearing: 90, speed: 16, every: 20)
        b.move(300, bearing: 90, speed: 1.3, every: 60)
        b.still(3600, every: 300, drift: 2...5)
        let found = try legs(b.points)
        let unknown = found.filter { $0.mode == "unknown" }
        #expect(unknown.count == 1 && unknown.first.map { $0.start == silence && $0.end == silence + 2_420_000 } == true, "\(found)")
    }
}

/// A train that stops at a station, then runs on under the ground with the phone silent, and the walk after it
/// (algorithm version 70, `trips.fast_hop`; docs/PASSES.md "A train between sparse fixes"). The fixes at the station
/// are slow, a run of their own shorter than `min_leg_s`, and joined the longer neighbour, the walk: the walk then
/// held the 3 km the train ran unseen.
@Suite struct SilentTrainTests {
    let t0: Int64 = 1_717_200_000_000

    /// Home, a walk of 600 m, 3 km by train, a stop at a station (slowing down, 20 s standing), 180 s on under the
    /// ground and 60 s on foot with no fix, a walk of 700 m, then still (1 Hz). Returns the points and the time the
    /// walk began, unseen.
    func underground() -> (points: [Point], changeMs: Int64) {
        var b = TrackBuilder(startMs: t0, lat: 52.5200, lon: 13.4050)
        b.still(1800, every: 10, drift: 2...5)
        b.move(600, bearing: 90, speed: 1.3)
        b.move(3000, bearing: 90, speed: 20)
        b.move(50, bearing: 90, speed: 3)
        b.still(20, every: 1)
        b.gap(180, moving: 3000, bearing: 90)
        let change = b.t
        b.gap(60, moving: 78, bearing: 90)
        b.move(700, bearing: 90, speed: 1.3)
        b.still(1800, every: 10, drift: 2...5)
        return (b.points, change)
    }

    @Test func theTrainKeepsWhatItRanUnseen() throws {
        let (points, change) = underground()
        let found = try legs(points)
        try #require(found.count == 3, "\(found)")
        #expect(found[0].mode == "walk" && found[2].mode == "walk" && LegMode(rawValue: found[1].mode)?.isMotorised == true, "\(found)")
        // The walk begins inside the silence, within a minute of the truth by the paces, and walks at a walker's pace.
        #expect(abs(found[2].start - change) <= 60_000, "\(Double(found[2].start - change) / 1000) s")
        #expect(found[2].metres / (Double(found[2].end - found[2].start) / 1000) < 2, "\(found)")
        // Off: the walk began at the station, 240 s earlier, with the train's 3 km.
        let off = try legs(points, ["trips.fast_hop=0"])
        try #require(off.count == 3, "\(off)")
        #expect(off[2].start < change - 180_000 && off[2].metres > 3_000, "\(off)")
    }
}
