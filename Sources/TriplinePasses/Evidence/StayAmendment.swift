import TriplineCore
import TriplineStore

// MARK: - Amending the stays

extension EvidencePass {
    /// A trip between two stays that the fixes saw whole (``observedTrips(_:_:_:)``): its ends, straight-line
    /// distance (metres), pace (m/s) and the time of its last fix (ms).
    typealias ObservedTrip = (aLat: Double, aLon: Double, bLat: Double, bLon: Double, distance: Double, speed: Double, atMs: Int64)

    /// How far back (ms) the device's pace for a trip no fix saw is learnt: from the trips seen whole whose last fix
    /// lies at most this long before the trip (``StayAmendment/typicalSpeed(_:_:_:_:at:)``). Never from trips after
    /// it, nor from further back: a window, or an incremental rebuild, sees exactly those trips (its own, and the
    /// stored stays of the two days of context it loads before its restart point), so it learns the pace one
    /// rebuild over everything learns (docs/PASSES.md, "How the runner works"). A day and a half leaves half a day of
    /// the context for the stay before the earliest such trip.
    public static let paceReachMs: Int64 = 36 * 3_600_000

    /// The stays amended by the evidence (the previous window's stay, when there is one, is left as it is), in
    /// `pace_rounds` rounds: each learns the device's pace from the stays of the one before. `context`: the stored
    /// stays before the span (ending before its first stay starts), whose trips teach the pace too and are never
    /// amended.
    public static func apply(_ w: DeviceWork, stays input: [StayRecord], context: [StayRecord] = [], evidence: Evidence, _ p: Parameters) -> [StayRecord] {
        let before = context.filter { s in input.first.map { s.endMs < $0.startMs } ?? true }
        var observed = observedTrips(w, before + input, p)
        var amended = StayAmendment(w, stays: input, evidence: evidence, observed: observed, p).amended()
        for _ in 1..<max(1, Int(p.paceRounds)) {
            let again = observedTrips(w, before + amended, p)
            // The same trips seen whole: the same pace, the same amendments (archives without app events).
            if again.count == observed.count && zip(again, observed).allSatisfy({ $0.speed == $1.speed && $0.distance == $1.distance && $0.atMs == $1.atMs }) { break }
            observed = again
            amended = StayAmendment(w, stays: input, evidence: evidence, observed: observed, p).amended()
        }
        return amended
    }
}

extension StayRecord {
    /// The stay with its point range from its times (``indexed(in:)``, as a stay with fixes), kept inside the span's
    /// fixes, and its `points` counted again: the kept fixes in that range, at least one. A stay the evidence cut,
    /// joined or stretched, or made from the fixes near a presence.
    func reindexed(in w: DeviceWork) -> StayRecord {
        var s = self
        s.points = 1  // (a stay without fixes points at the fix before it; these have fixes)
        s = s.indexed(in: w.time)
        if s.first >= w.count { s.first = w.count - 1; s.last = w.count - 1 }
        var n = 0
        if s.first <= s.last { for i in s.first...s.last where w.flags[i] == 0 { n += 1 } }
        s.points = max(n, 1)
        return s
    }
}

/// One round of the evidence pass's amendments of a device's stays (``EvidencePass/apply(_:stays:evidence:_:)``), in
/// order on one array of stays: a stay across a region absence is split; each presence interval splits a stay at an
/// iOS arrival, joins and stretches its stays, or makes a stay of its own; then the rules that need no app event
/// (``EvidencePass/movingResumes(_:_:keepFirst:speed:_:)`` and the others after it).
struct StayAmendment {
    typealias Presence = EvidencePass.Presence

    let w: DeviceWork
    let evidence: EvidencePass.Evidence
    /// The trips the fixes saw whole: the device's own pace (``typicalSpeed(_:_:_:_:at:)``).
    let observed: [EvidencePass.ObservedTrip]
    let p: EvidencePass.Parameters
    /// 1 when the first stay is the visit an earlier window or rebuild kept (never changed), else 0.
    let keepFirst: Int
    let processFrom: Int64
    /// The stays being amended.
    var stays: [StayRecord]

    init(_ w: DeviceWork, stays: [StayRecord], evidence: EvidencePass.Evidence, observed: [EvidencePass.ObservedTrip],
         _ p: EvidencePass.Parameters) {
        self.w = w
        self.evidence = evidence
        self.observed = observed
        self.p = p
        self.keepFirst = w.previousStay != nil && !stays.isEmpty ? 1 : 0
        self.processFrom = w.processFromMs
        self.stays = stays
    }

    /// The stays amended by the evidence, with the device's pace from the trips `observed`.
    func amended() -> [StayRecord] {
        var a = self
        a.splitAtAbsences()
        for e in evidence.presences where e.endMs > processFrom {
            if e.source == "visit" { a.splitAtArrival(e) }
            a.apply(e)
        }
        for e in evidence.presences where e.source == "visit" { a.endAtDeparture(e) }
        var stays = a.stays
        let speed = { typicalSpeed($0, $1, $2, $3, at: $4) }
        stays = EvidencePass.movingResumes(w, stays, keepFirst: keepFirst, speed: speed, p)
        stays = EvidencePass.silentArrivals(w, stays, keepFirst: keepFirst, speed: speed, p)
        stays = EvidencePass.loneFixStays(w, stays, keepFirst: keepFirst, crossings: evidence.crossings, p)
        stays = EvidencePass.sparseEdges(w, stays, keepFirst: keepFirst, p)
        stays = EvidencePass.sparseTripEdges(w, stays, keepFirst: keepFirst, leaves: evidence.leaves, absences: evidence.absences, speed: speed, p)
        stays = EvidencePass.absentStops(w, stays, absences: evidence.absences, keepFirst: keepFirst, leaves: evidence.leaves, speed: speed, p)
        stays = EvidencePass.wayStops(w, stays, keepFirst: keepFirst, automatic: evidence.automatic, p)
        return EvidencePass.triggerEdges(w, stays, keepFirst: keepFirst, automatic: evidence.automatic, crossings: evidence.crossings, p)
    }

    // MARK: Distances and speeds

    func kept(_ i: Int) -> Bool { w.flags[i] == 0 }

    /// Distance of fix `i` from a position; a fix inside the named region counts as at its centre.
    func distance(_ i: Int, _ lat: Double, _ lon: Double, region: String?) -> Double {
        EvidencePass.regionDistance(w, inRegion: evidence.inRegion, i, lat, lon, region: region, p)
    }

    /// The device's own straight-line speed between two positions for a trip at time `at` (ms)
    /// (``EvidencePass/observedTrips(_:_:_:)``), learnt from the seen trips whose last fix lies in the
    /// ``EvidencePass/paceReachMs`` up to `at`: over those between the same two places (either way, ends within
    /// `match_m`), else over those of about the same length (half to twice, at least three), else `unseen_speed_mps`
    /// (`default_speed_mps` under `unseen_walk_max_m`).
    func typicalSpeed(_ aLat: Double, _ aLon: Double, _ bLat: Double, _ bLon: Double, at: Int64) -> Double {
        func near(_ lat: Double, _ lon: Double, _ qLat: Double, _ qLon: Double) -> Bool { Geo.distance(lat, lon, qLat, qLon) <= p.matchM }
        let observed = self.observed.filter { $0.atMs <= at && $0.atMs >= at - EvidencePass.paceReachMs }
        let same = observed.filter { o in
            (near(o.aLat, o.aLon, aLat, aLon) && near(o.bLat, o.bLon, bLat, bLon)) || (near(o.aLat, o.aLon, bLat, bLon) && near(o.bLat, o.bLon, aLat, aLon))
        }.map(\.speed).sorted()
        if !same.isEmpty { return same[same.count / 2] }
        let d = Geo.distance(aLat, aLon, bLat, bLon)
        let similar = observed.filter { $0.distance >= d / 2 && $0.distance <= d * 2 }.map(\.speed).sorted()
        if similar.count >= 3 { return similar[similar.count / 2] }
        return d < p.unseenWalkMaxM ? p.defaultSpeedMps : p.unseenSpeedMps
    }

    /// The time (ms, at least a second) to cover the way between a stay and a presence at the device's own pace (for a
    /// trip at time `at`).
    func unseenTravel(_ s: StayRecord, _ e: Presence, at: Int64) -> Int64 {
        max(1000, Int64(Geo.distance(s.lat, s.lon, e.lat, e.lon) / typicalSpeed(s.lat, s.lon, e.lat, e.lon, at: at) * 1000))
    }

    /// The first kept fix further from presence `e` than its reach after a time, up to the end of `e` (stays of one
    /// presence join only when there is none) or before `before`; `Int64.max` when there is none.
    func firstFar(after t: Int64, _ e: Presence, before: Int64 = Int64.max) -> Int64 {
        var i = lowerBound(w.time, t + 1)
        while i < w.count && w.time[i] < before {
            if kept(i) && distance(i, e.lat, e.lon, region: e.region) > e.reachM { return w.time[i] }
            if w.time[i] > e.endMs { break }
            i += 1
        }
        return Int64.max
    }

    /// The kept fix next to a stay (before its start, or after its end), skipping fixes presence `e` puts at the place
    /// (`inregions`): the stay may reach no further than that fix less the time to get there from the place at the
    /// fix's speed (else `default_speed_mps`). (Never short of a fix the evidence puts at the place: the person was
    /// there then.)
    func bound(_ t: Int64, after: Bool, _ lat: Double, _ lon: Double, _ e: Presence) -> Int64 {
        var i = after ? lowerBound(w.time, t + 1) : lowerBound(w.time, t) - 1
        var there: Int64? = nil
        while i >= 0 && i < w.count {
            if kept(i) && !(e.region != nil && distance(i, e.lat, e.lon, region: e.region) == 0) {
                let v = EvidencePass.travelSpeed(w, i, after: after, p)
                let travel = max(1000, Int64(Geo.distance(w.lat[i], w.lon[i], lat, lon) / v * 1000))
                let b = after ? w.time[i] - travel : w.time[i] + travel
                guard let there else { return b }
                return after ? max(b, there) : min(b, there)
            }
            if kept(i) { there = w.time[i] }
            i += after ? 1 : -1
        }
        return after ? Int64.max : Int64.min
    }

    // MARK: Splits

    /// A stay across a leave → enter of its region is two stays with a trip (and maybe more) in between; a stay at the
    /// region that begins inside the absence (at the `leave` fix itself, or at a fix after it) and runs past the `enter`
    /// begins at the `enter`: the phone said the person was out of the region until then (`absence_starts`).
    mutating func splitAtAbsences() {
        for e in evidence.absences where e.endMs > processFrom {
            func there(_ k: Int) -> Bool { Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM }
            if let k = stays.indices.first(where: { k in k >= keepFirst && stays[k].startMs < e.startMs && stays[k].endMs > e.endMs && there(k) }) {
                var a = stays[k], b = stays[k]
                a.endMs = e.startMs
                b.startMs = e.endMs
                a = a.reindexed(in: w)
                b = b.reindexed(in: w)
                let parts = [a, b].filter { $0.endMs - $0.startMs >= Int64(p.minStayS * 1000) }
                stays.replaceSubrange(k...k, with: parts)
            } else if p.absenceStarts > 0, let k = stays.indices.first(where: { k in
                k >= keepFirst && stays[k].startMs >= e.startMs && stays[k].startMs < e.endMs && stays[k].endMs > e.endMs && there(k)
            }) {
                var b = stays[k]
                b.startMs = e.endMs
                b = b.reindexed(in: w)
                stays.replaceSubrange(k...k, with: b.endMs - b.startMs >= Int64(p.minStayS * 1000) ? [b] : [])
            }
        }
    }

    /// An iOS arrival in a silence inside a stay at the place (`arrival_gap_s`): the stay ends at its last fix before
    /// the silence and begins again at the arrival.
    mutating func splitAtArrival(_ e: Presence) {
        guard p.arrivalGapS > 0, e.startMs > Int64.min, e.startMs >= processFrom else { return }
        guard let k = stays.indices.first(where: { k in
            k >= keepFirst && stays[k].startMs < e.startMs && stays[k].endMs > e.startMs
                && Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM
        }) else { return }
        let h = w.lastKept(atOrBefore: lowerBound(w.time, e.startMs + 1) - 1)
        let j = w.firstKept(atOrAfter: lowerBound(w.time, e.startMs + 1))
        // (The stay before the silence a stay of its own: a first fix an hour before the next one is the arrival.)
        guard h >= stays[k].first, j <= stays[k].last, Double(w.time[j] - w.time[h]) >= p.arrivalGapS * 1000,
              w.time[h] - stays[k].startMs >= Int64(p.minStayS * 1000) else { return }
        var a = stays[k], b = stays[k]
        a.endMs = w.time[h]
        b.startMs = e.startMs
        stays.replaceSubrange(k...k, with: [a.reindexed(in: w), b.reindexed(in: w)])
    }

    /// An iOS visit's departure in the silence after its stay's last kept fix ends the stay there (`visit_departs`):
    /// the end the stays pass or a pause placed in that silence (the next fix less the way to it at its pace, the
    /// resume less the way out of the pause region) is an estimate, and both signs of leaving come late.
    mutating func endAtDeparture(_ e: Presence) {
        guard p.visitDeparts > 0, e.endMs < Int64.max, e.endMs >= processFrom else { return }
        // The stays run in time order without overlapping: the one holding the departure is the last to begin before it.
        let k = partitionPoint(keepFirst..<stays.count) { stays[$0].startMs < e.endMs } - 1
        guard k >= keepFirst, stays[k].endMs > e.endMs, Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM,
              stays[k].last < w.count, w.time[stays[k].last] <= e.endMs else { return }
        stays[k].endMs = e.endMs
        stays[k] = stays[k].reindexed(in: w)
    }

    // MARK: Presences

    /// Presence `e` applied: its stays joined and stretched over it, else a stay of its own.
    mutating func apply(_ e: Presence) {
        // Stays of this presence (an interval open at one end: only the stay next to its known end).
        var members = stays.indices.filter { k in
            k >= keepFirst && stays[k].startMs <= e.endMs && stays[k].endMs >= e.startMs
                && Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM
        }
        if e.endMs == Int64.max, let recorded = e.recordedMs { members = members.filter { stays[$0].startMs <= recorded } }
        if p.absenceStarts > 0, let region = e.region {
            // A stay wholly between a `leave` of the region and its next `enter` was outside it (a lunch out seen by
            // the `leave` fix and the `enter` fix): no stay of the region's presence.
            members = members.filter { k in
                !evidence.absences.contains { a in a.region == region && a.startMs <= stays[k].startMs && stays[k].endMs <= a.endMs }
            }
        }
        if e.endMs == Int64.max, var k = members.first {
            // Open at its end (an `enter` with no `leave` after it: the archive ends inside the region): the stays
            // after the enter, on as far as nothing in between was further away (a wifi fix 300–500 m off that still
            // says it is in the region split an evening at home into two visits and a one-second trip).
            var run = [k]
            while let next = members.first(where: { $0 > k }), next == k + 1,
                  firstFar(after: stays[k].endMs, e, before: stays[next].startMs) >= stays[next].startMs {
                run.append(next)
                k = next
            }
            members = run
        }
        if e.startMs == Int64.min, var k = members.last {
            // Open at its start (a leave with no enter before it): the stays before the leave, back as far as
            // nothing in between was further away.
            var run = [k]
            while let prev = members.last(where: { $0 < k }), prev == k - 1, firstFar(after: stays[prev].endMs, e) >= stays[k].startMs {
                run.insert(prev, at: 0)
                k = prev
            }
            members = run
        }
        if !members.isEmpty {
            // Each run of the presence's stays with nothing further away between them is one stay, the runs after a
            // far fix as well as the first: a restart inside the presence (the visit kept a far stay between two runs)
            // sees only the later runs, and joined them where the first run's end left them apart.
            var rest = members
            while let first = rest.first {
                let last = join(rest, e)
                rest = rest.filter { $0 > last }.map { $0 - (last - first) }
            }
        } else if e.startMs > Int64.min && e.endMs < Int64.max && e.startMs >= processFrom {
            addStay(e)
        }
    }

    /// The stays of presence `e` (`members`, from the first) joined while nothing in between was further away (and no
    /// walk out lies between them, `walk_apart`), and
    /// stretched over the presence as far as the fixes around them allow (travel-aware, ``bound(_:after:_:_:_:)``).
    /// Returns the index (before the join) of the last stay joined.
    @discardableResult
    mutating func join(_ members: [Int], _ e: Presence) -> Int {
        let a = members[0]
        var s = stays[a]
        // Join the presence's stays when nothing in between was further away.
        var joinTo = a
        for k in members.dropFirst() {
            if firstFar(after: stays[joinTo].endMs, e) < stays[k].startMs { break }
            // (Nor across a walk out the fixes recorded: `walk_apart`.)
            if p.walkApart > 0, StaysPass.walkedOut(stays[joinTo], stays[k], w, seconds: p.walkOut.seconds, metres: p.walkOut.metres) { break }
            joinTo = k
        }
        if joinTo > a {
            let t = stays[joinTo]
            let wa = Double(s.endMs - s.startMs) + 1, wb = Double(t.endMs - t.startMs) + 1
            s.lat = (s.lat * wa + t.lat * wb) / (wa + wb)
            s.lon = Geo.meanLongitude(s.lon, wa, t.lon, wb)
            s.radiusM = max(s.radiusM, t.radiusM)
            s.gapS = max(s.gapS, t.gapS)
            s.endMs = t.endMs
        }
        let earliest = max(e.startMs, bound(s.startMs, after: false, s.lat, s.lon, e), a > 0 ? stays[a - 1].endMs + 1000 : Int64.min)
        if earliest < s.startMs && earliest >= processFrom && earliest > Int64.min / 2 { s.startMs = earliest }
        let latest = min(e.endMs, bound(s.endMs, after: true, s.lat, s.lon, e), joinTo + 1 < stays.count ? stays[joinTo + 1].startMs - 1000 : Int64.max)
        if latest > s.endMs && latest < Int64.max / 2 { s.endMs = latest }
        stays.replaceSubrange(a...joinTo, with: [s.reindexed(in: w)])
        return joinTo
    }

    /// No stay yet for presence `e` (closed at both ends, in the recomputed span): one of its own from the still fixes
    /// near it, stretched as far as the fixes around them allow (travel-aware, as ``join(_:_:)``); with no fix at all,
    /// ``addUnseenVisit(_:)``.
    mutating func addStay(_ e: Presence) {
        var lo = lowerBound(w.time, e.startMs), hi = lowerBound(w.time, e.endMs + 1) - 1
        func still(_ i: Int) -> Bool {
            kept(i) && distance(i, e.lat, e.lon, region: e.region) <= e.reachM && (w.speed[i].isNaN || w.speed[i] < p.movingMps)
        }
        while lo <= hi && !still(lo) { lo += 1 }
        while hi >= lo && !still(hi) { hi -= 1 }
        guard lo <= hi else { return addUnseenVisit(e) }
        if (lo...hi).contains(where: { kept($0) && !still($0) }) { return }
        let start = max(e.startMs, bound(w.time[lo], after: false, e.lat, e.lon, e))
        let end = min(e.endMs, bound(w.time[hi], after: true, e.lat, e.lon, e))
        guard end - start >= Int64(p.minStayS * 1000) else { return }
        let k = stays.firstIndex { $0.startMs > start } ?? stays.count
        // A stay elsewhere that reaches into the interval only with its silent edge (no fix of its own there:
        // a departure or arrival estimated across a silence) gives way: the app says the phone was here.
        // It keeps its own fixes and the travel time between the two places.
        let far = { (t: StayRecord) in Geo.distance(t.lat, t.lon, e.lat, e.lon) > e.reachM }
        if k > 0, k - 1 >= keepFirst, stays[k - 1].endMs >= start, far(stays[k - 1]), w.time[stays[k - 1].last] < start - unseenTravel(stays[k - 1], e, at: e.startMs) {
            stays[k - 1].endMs = start - unseenTravel(stays[k - 1], e, at: e.startMs)
        }
        if k < stays.count, stays[k].startMs <= end, far(stays[k]), w.time[stays[k].first] > end + unseenTravel(stays[k], e, at: e.startMs) {
            stays[k].startMs = end + unseenTravel(stays[k], e, at: e.startMs)
        }
        if k > 0 && stays[k - 1].endMs >= start { return }
        if k < stays.count && stays[k].startMs <= end { return }
        let s = StayRecord(first: lo, last: hi, startMs: start, endMs: end, lat: e.lat, lon: e.lon, radiusM: 0, points: 0, gapS: 0)
        stays.insert(s.reindexed(in: w), at: k)
    }

    /// No fix at all while the app says the phone was there (a dead phone, then an iOS `visit` record): a stay
    /// without fixes, and the stays around it no longer claim that time. (iOS reports departures minutes late: the
    /// stay ends where the first fix after its start says.)
    mutating func addUnseenVisit(_ e: Presence) {
        let endMs = min(e.endMs, bound(e.startMs, after: true, e.lat, e.lon, e))
        let a = lowerBound(w.time, e.startMs), b = lowerBound(w.time, endMs + 1)
        guard e.source == "visit", a == b, a >= 1, a < w.count, endMs - e.startMs >= Int64(p.minStayS * 1000) else { return }
        let k = stays.firstIndex { $0.startMs > e.startMs } ?? stays.count
        if k < keepFirst { return }
        if k > 0 && stays[k - 1].last >= a { return }
        if k < stays.count && stays[k].first < a { return }
        // The trips to and from it hold no fix either: each takes the time to cover its distance.
        if k > 0 {
            let end = min(stays[k - 1].endMs, max(w.time[stays[k - 1].last], e.startMs - unseenTravel(stays[k - 1], e, at: e.startMs)))
            // The visit an incremental rebuild kept is never changed: the stay goes in after it only when
            // it already ends in time (as it does when an earlier rebuild saw this record).
            if k - 1 < keepFirst {
                if end != stays[k - 1].endMs { return }
            } else {
                stays[k - 1].endMs = end
            }
        }
        if k < stays.count { stays[k].startMs = max(stays[k].startMs, min(w.time[stays[k].first], endMs + unseenTravel(stays[k], e, at: e.startMs))) }
        // Its point indices are those of the fix before it (the trips pass takes the points strictly between
        // two stays, so the fixes after it start the next trip).
        let s = StayRecord(first: a - 1, last: a - 1, startMs: e.startMs, endMs: endMs, lat: e.lat, lon: e.lon, radiusM: 0, points: 0, gapS: (endMs - e.startMs) / 1000)
        stays.insert(s, at: k)
    }
}
