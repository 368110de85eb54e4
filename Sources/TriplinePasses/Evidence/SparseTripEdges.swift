import TriplineCore
import TriplineStore

// MARK: - Departures and arrivals of sparsely seen trips

extension EvidencePass {
    /// The departure and arrival of each trip seen by few fixes (issue 23).
    ///
    /// A phone in significant-changes mode reports a moving person every 400–1200 m or 4–10 min and a still one every
    /// 25–75 min, so a trip is seen from its first moving fix to its last: the departure lies in the silence between
    /// the last fix at the origin and the first moving fix, the arrival between the last moving fix and the first fix
    /// at the destination. Each is estimated from the person's pace: the departure is the first moving fix less the
    /// time to cover its straight-line distance from the origin's centre, the arrival the last moving fix plus the
    /// time to reach the destination's centre. The pace is the trip's own (the median straight-line speed between its
    /// consecutive fixes that moved more than 50 m within `still_gap_s`), else this device's pace between these two
    /// places or over trips of about the same length (`speed`, ``observedTrips(_:_:_:)``). A region `leave` or
    /// `enter` (OwnTracks `t:"c"`) publishes a fix at the event's time, so it is one of those fixes and pins the edge
    /// as closely as it lies to the place. Each estimate stays inside its silence (a second after the last fix at the
    /// origin, a second before the first moving fix; likewise at the destination) and replaces the edge the stays
    /// pass extrapolated from one fix's reported speed (a bus at a stop reports 0 m/s, a car at 14 m/s on a trip
    /// whose pace is 8). A trip with no pace of its own whose first fix is a region `leave`'s takes that fix's pace
    /// (``leavePace(_:_:leaves:_:)``). Only between stays whose fixes in between are sparse (median interval at least
    /// `sparse_interval_s`) and silences of at least `edge_min_s`; dense tracks and archives without such silences
    /// are left as they are. An arrival at a region's stay that began at or after the end of one of the region's
    /// `absences` (its `enter`) stays at or after that end: the phone said the person was out of the region until then
    /// (a lunch out whose afternoon at work an arrival estimate moved back over the lunch; `enter_bound`, algorithm
    /// version 32). `edge_pace` = 0 turns it off.
    static func sparseTripEdges(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, leaves: [Int: (lat: Double, lon: Double, radius: Double)] = [:],
        absences: [Presence] = [], speed: (Double, Double, Double, Double, Int64) -> Double, _ p: Parameters
    ) -> [StayRecord] {
        guard p.edgePace > 0, input.count >= 2 else { return input }
        var stays = input
        let minSilenceMs = Int64(p.edgeMinS * 1000), gapMs = Int64(p.loneMaxS * 1000)
        for k in 0..<(stays.count - 1) {
            let a = stays[k], b = stays[k + 1]
            // A stay without a fix of its own (an iOS visit on a dead phone) has no last fix to bound its edge.
            guard a.points > 0, b.points > 0, a.last < b.first, b.first < w.count else { continue }
            let pts = sparseFixes(w, from: a.last + 1, to: b.first, p)
            guard let first = pts.first, let last = pts.last else { continue }
            let origin = w.time[a.last], destination = w.time[b.first]
            let v = pace(w, pts, p) ?? leavePace(w, first, leaves: leaves, p) ?? speed(a.lat, a.lon, b.lat, b.lon, origin)
            guard v > 0 else { continue }
            // Departure: between the last fix at the origin and the first moving fix.
            let leaveSilence = w.time[first] - origin
            if k >= keepFirst, leaveSilence >= minSilenceMs, leaveSilence <= gapMs {
                let travel = Int64(Geo.distance(a.lat, a.lon, w.lat[first], w.lon[first]) / v * 1000)
                let leave = min(max(w.time[first] - travel, origin + 1000, a.startMs), w.time[first] - 1000)
                stays[k].endMs = leave
            }
            // Arrival: between the last moving fix and the first fix at the destination.
            let arriveSilence = destination - w.time[last]
            if k + 1 >= keepFirst, arriveSilence >= minSilenceMs, arriveSilence <= gapMs {
                let travel = Int64(Geo.distance(b.lat, b.lon, w.lat[last], w.lon[last]) / v * 1000)
                var arrive = max(min(w.time[last] + travel, destination - 1000, b.endMs), w.time[last] + 1000)
                if p.enterBound > 0 {
                    // Never back into an absence of the stay's own region that ended (`enter`) before the stay began.
                    for e in absences where e.endMs <= b.startMs && e.endMs > arrive && e.startMs < b.startMs
                        && Geo.distance(b.lat, b.lon, e.lat, e.lon) <= e.reachM { arrive = e.endMs }
                }
                stays[k + 1].startMs = arrive
            }
        }
        return stays
    }

    /// A stop hidden inside a region absence: the phone left a region (`leave`) and came back (`enter`) with so few
    /// fixes in between that no stay was seen elsewhere (a 20-minute errand 500 m from home, lunch near work: the
    /// still timer's 25–75 min never fired there). When the stays before and after the absence are both at the region,
    /// no other stay lies between them, and the longest silence between the departure, the fixes in between and the
    /// return leaves at least `lone_stay_s` once the trips out and back are taken off, that silence was spent at a
    /// place: a stay at the farther of the two fixes around it. Each trip takes the time seen to reach that fix plus
    /// the time to cover its distance from the region again at the device's pace (a fix seen on the way lies about
    /// half way: the first fix of a short walk is often the region's own `leave`, 100–300 m out). A stay at the region
    /// that starts inside the absence starts at the `enter` (the phone said it was away). The trips' pace is the
    /// `leave` fix's when the absence's first fix is it and lies beyond the region's edge by more than twice its
    /// accuracy (``leavePace(_:_:leaves:_:resolved:)``; `absent_pace`), else the device's. When that
    /// estimate leaves less than `lone_stay_s` but both fixes around the silence moved and the silence outlasts
    /// `still_gap_s` by `min_stay_s` (the time trigger fires at least that often while the person moves), the stop is
    /// proven: at the farther fix, from it to the other fix less the way between them at their reported speeds
    /// (`proven_stops`). An absence shorter than twice `lone_stay_s` whose only fix is the region's own `leave` is a
    /// short errand (`errand_stops`, algorithm version 72): a stop at that fix, each way as long as the way to the fix
    /// took, shortened when the stop would last less than `min_stay_s` down to the fix's distance from the region's
    /// centre at the trips' pace. `edge_pace` = 0 turns it all off.
    static func absentStops(
        _ w: DeviceWork, _ input: [StayRecord], absences: [Presence], keepFirst: Int,
        leaves: [Int: (lat: Double, lon: Double, radius: Double)] = [:], speed: (Double, Double, Double, Double, Int64) -> Double, _ p: Parameters
    ) -> [StayRecord] {
        guard p.edgePace > 0, input.count >= 2 else { return input }
        var stays = input
        let leftMs = Int64(p.loneStayS * 1000), provenMs = Int64((p.stillGapS + p.minStayS) * 1000), minStayMs = Int64(p.minStayS * 1000)
        func moving(_ i: Int) -> Bool { !w.speed[i].isNaN && w.speed[i] >= p.movingMps }
        let shortestMs = p.errandStops > 0 ? min(minStayMs, 2 * leftMs) : 2 * leftMs
        for e in absences where e.startMs >= w.processFromMs && e.endMs - e.startMs >= shortestMs {
            guard let a = stays.lastIndex(where: { $0.startMs < e.startMs }), a >= keepFirst, a + 1 < stays.count else { continue }
            let b = a + 1
            func there(_ s: StayRecord) -> Bool { Geo.distance(s.lat, s.lon, e.lat, e.lon) <= e.reachM }
            guard there(stays[a]), there(stays[b]), stays[a].endMs <= e.endMs, stays[b].endMs > e.endMs,
                  stays[b].points > 0, w.time[stays[b].first] >= e.endMs - 1000 else { continue }
            let depart = stays[a].endMs, back = max(stays[b].startMs, e.endMs)
            var times: [Int64] = [depart], idx: [Int] = [-1]
            for i in max(0, stays[a].last + 1)..<stays[b].first where w.flags[i] == 0 && w.time[i] > depart && w.time[i] < back {
                times.append(w.time[i])
                idx.append(i)
            }
            times.append(back)
            idx.append(-1)
            guard times.count > 2 else { continue }
            if p.errandStops > 0, e.endMs - e.startMs < 2 * leftMs, times.count == 3, let region = leaves[idx[1]] {
                // A short errand (`errand_stops`): the only fix while away is the region's own `leave`. Each way takes as
                // long as the way to that fix took (iOS reports the exit 30–150 s after the boundary, often once the
                // person is there), shortened, when the absence would hold less than `min_stay_s`, down to the fix's
                // distance from the region's centre at the trips' pace; the stop holds the fix.
                let i = idx[1]
                let d = Geo.distance(w.lat[i], w.lon[i], region.lat, region.lon)
                let v = leavePace(w, i, leaves: leaves, p, resolved: p.absentPace > 0) ?? speed(e.lat, e.lon, w.lat[i], w.lon[i], depart)
                let reach = Int64(d / max(0.1, v) * 1000), seen = w.time[i] - depart
                let way = max(0, min(seen, max(reach, (back - depart - minStayMs) / 2)))
                let start = depart + way, end = max(back - way, w.time[i])
                guard end - start >= minStayMs else { continue }
                stays[b].startMs = back
                stays.insert(StayRecord(first: i, last: i, startMs: start, endMs: end, lat: w.lat[i], lon: w.lon[i], radiusM: 0, points: 1,
                                        gapS: (back - w.time[i]) / 1000), at: b)
                continue
            }
            guard e.endMs - e.startMs >= 2 * leftMs else { continue }
            // The longest silence, and the farther of the fixes around it.
            var g = 0
            for k in 1..<(times.count - 1) where times[k + 1] - times[k] > times[g + 1] - times[g] { g = k }
            let candidates = [g, g + 1].filter { idx[$0] >= 0 }
            guard let f = candidates.max(by: {
                Geo.distance(w.lat[idx[$0]], w.lon[idx[$0]], e.lat, e.lon) < Geo.distance(w.lat[idx[$1]], w.lon[idx[$1]], e.lat, e.lon)
            }) else { continue }
            let i = idx[f]
            let d = Geo.distance(w.lat[i], w.lon[i], e.lat, e.lon)
            // The trips' pace: a `leave` fix's own when the fix resolves it (``leavePace(_:_:leaves:_:resolved:)``), else
            // the device's. A fix within its own accuracy of the edge tells no pace: its floor made a 350-m lunch walk
            // 13 minutes each way and left no stop (`absent_pace`, algorithm version 32).
            let firstFix = idx.first { $0 >= 0 } ?? i
            let v = leavePace(w, firstFix, leaves: leaves, p, resolved: p.absentPace > 0) ?? speed(e.lat, e.lon, w.lat[i], w.lon[i], depart)
            let travel = Int64(d / max(0.1, v) * 1000)
            let out = (f == g ? w.time[i] - depart : back - w.time[i]) + travel
            var start = max(times[g], depart + out), end = min(times[g + 1], back - out)
            if end - start < leftMs {
                // A stop the time trigger proves: both fixes around the silence were moving, and significant changes
                // report a moving phone at least every `still_gap_s`, so at least the silence less that was spent
                // still. The stop is at the farther fix (the person went on from it, or came back to it); the way
                // between the two fixes is covered at their reported speeds.
                let j = f == g ? idx[g + 1] : idx[g]
                guard p.provenStops > 0, j >= 0, moving(i), moving(j), times[g + 1] - times[g] >= provenMs else { continue }
                let pace = max(p.travelMinSpeedMps, (w.speed[i] + w.speed[j]) / 2)
                let between = Int64(Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j]) / pace * 1000)
                (start, end) = f == g ? (times[g], times[g + 1] - between) : (times[g] + between, times[g + 1])
                guard end - start >= minStayMs else { continue }
            }
            stays[b].startMs = back
            let stay = StayRecord(first: i, last: i, startMs: start, endMs: end, lat: w.lat[i], lon: w.lon[i], radiusM: 0, points: 1,
                                  gapS: (times[g + 1] - times[g]) / 1000)
            stays.insert(stay, at: b)
        }
        return stays
    }

    /// The pace (m/s) told by a region `leave` (issue 23): iOS reports the exit about `leave_lag_s` after the person
    /// crossed the boundary, and the fix published with it lies where they were then, so the way from the boundary to
    /// that fix took about that long (a bicycle 600 m from home when the exit of a 100-m region is reported has
    /// ridden 500 m in 90 s: 5.6 m/s, where a walking pace put the departure 8 minutes early). Nil when `i` is no
    /// `leave` fix, or the fix lies inside its region; at least half of `default_speed_mps`. `resolved`: nil too when
    /// the fix lies less than twice its reported accuracy beyond the edge, or the pace would be below that floor (the
    /// stops in a region absence, ``absentStops(_:_:absences:keepFirst:leaves:speed:_:)``).
    static func leavePace(_ w: DeviceWork, _ i: Int, leaves: [Int: (lat: Double, lon: Double, radius: Double)], _ p: Parameters,
                          resolved: Bool = false) -> Double? {
        guard p.leavePace > 0, p.leaveLagS > 0, let region = leaves[i] else { return nil }
        let beyond = Geo.distance(region.lat, region.lon, w.lat[i], w.lon[i]) - region.radius
        guard beyond > 0 else { return nil }
        if resolved {
            // The fix's position is known to about its accuracy (iOS: a radius of roughly one standard deviation), so
            // the distance beyond the edge, and the pace, are measured only when it exceeds twice that; and a pace
            // below the floor is none.
            let accuracy = i < w.accuracy.count ? w.accuracy[i] : .nan
            guard accuracy.isNaN || beyond > 2 * accuracy, beyond / p.leaveLagS > p.defaultSpeedMps * 0.5 else { return nil }
        }
        return max(p.defaultSpeedMps * 0.5, beyond / p.leaveLagS)
    }

    /// The kept fixes in `from..<to` when they are sparse (median interval between them at least `sparse_interval_s`;
    /// one fix counts as sparse), else none.
    static func sparseFixes(_ w: DeviceWork, from: Int, to: Int, _ p: Parameters) -> [Int] {
        var out: [Int] = []
        var i = from
        while i < to {
            if w.flags[i] == 0 { out.append(i) }
            i += 1
        }
        guard out.count >= 2 else { return out }
        let minMs = Int64(p.sparseIntervalS * 1000)
        var short = 0
        for k in 1..<out.count where w.time[out[k]] - w.time[out[k - 1]] < minMs { short += 1 }
        return short <= (out.count - 1) / 2 ? out : []
    }

    /// A trip's own pace (m/s): the median straight-line speed between consecutive fixes that moved more than 50 m
    /// within `still_gap_s`, at least half of `default_speed_mps`; nil when no two fixes qualify.
    static func pace(_ w: DeviceWork, _ pts: [Int], _ p: Parameters) -> Double? {
        guard pts.count >= 2 else { return nil }
        var speeds: [Double] = []
        for k in 1..<pts.count {
            let dt = Double(w.time[pts[k]] - w.time[pts[k - 1]]) / 1000
            guard dt > 0, dt < p.stillGapS else { continue }
            let d = Geo.distance(w.lat[pts[k - 1]], w.lon[pts[k - 1]], w.lat[pts[k]], w.lon[pts[k]])
            if d > 50 { speeds.append(d / dt) }
        }
        guard !speeds.isEmpty else { return nil }
        speeds.sort()
        return max(p.defaultSpeedMps * 0.5, speeds[speeds.count / 2])
    }
}

// MARK: - Stops on the way the time trigger proves

extension EvidencePass {
    /// A stop on the way that only a silence shows (issue 23). In significant-changes mode an OwnTracks phone publishes
    /// a moving person at least every `still_gap_s` (the time trigger, 4–10 min after they set off), and a still one
    /// only with the still timer, 25–75 min on. So when two consecutive kept fixes of one trip (between two stays,
    /// neither of them a stay's own) are both automatic updates (`m` = 1, no `t`) and the silence between them
    /// outlasts `still_gap_s` by `min_stay_s`, the person stood still somewhere in between: an errand chain (the
    /// pharmacy, then the supermarket) that no fix saw at either shop was one trip with no visit. The stop is a stay
    /// without fixes at the fix before the silence (the person stopped less than the time trigger's delay after it;
    /// where is not known better: the shop lies between the two fixes or off the line joining them). Each way takes
    /// `time_trigger_s` or, when longer, half the straight line between the two fixes at their reported speeds (at
    /// least `travel_min_speed_mps`); a stop that leaves less than `min_stay_s` so is none. A silence inside a region
    /// absence is ``absentStops(_:_:absences:keepFirst:leaves:speed:_:)``'s, which ran before. `way_stops` = 0 turns it
    /// off (algorithm version 71).
    static func wayStops(_ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, automatic: (Int) -> Bool, _ p: Parameters) -> [StayRecord] {
        guard p.wayStops > 0, input.count >= 2 else { return input }
        let provenMs = Int64((p.stillGapS + p.minStayS) * 1000), minStayMs = Int64(p.minStayS * 1000)
        let triggerMs = Int64(p.timeTriggerS * 1000)
        var out: [StayRecord] = []
        out.reserveCapacity(input.count)
        for k in input.indices {
            out.append(input[k])
            guard k >= keepFirst, k + 1 < input.count else { continue }
            let a = input[k], b = input[k + 1]
            guard a.last < w.count, b.first <= w.count else { continue }
            var i = w.firstKept(atOrAfter: max(0, a.last + 1))
            while i < b.first {
                let j = w.firstKept(atOrAfter: i + 1)
                guard j < b.first else { break }
                // (`automatic` last: it may read the fix's record, ``Evidence/automatic``.)
                if w.time[i] > a.endMs, w.time[j] < b.startMs, w.time[j] - w.time[i] >= provenMs, automatic(i), automatic(j) {
                    let speeds = [w.speed[i], w.speed[j]].filter { !$0.isNaN }
                    let pace = max(p.travelMinSpeedMps, speeds.isEmpty ? 0 : speeds.reduce(0, +) / Double(speeds.count), 0.1)
                    let half = Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j]) / 2 / pace
                    let way = max(triggerMs, Int64(half * 1000))
                    let start = w.time[i] + way, end = w.time[j] - way
                    if end - start >= minStayMs {
                        out.append(StayRecord(first: i, last: i, startMs: start, endMs: end, lat: w.lat[i], lon: w.lon[i],
                                              radiusM: 0, points: 0, gapS: (w.time[j] - w.time[i]) / 1000))
                    }
                }
                i = j
            }
        }
        return out
    }
}

// MARK: - Edges the phone's triggers bound

extension EvidencePass {
    /// The stay edges an OwnTracks phone's triggers bound in significant-changes mode (issue 23). That mode publishes
    /// an automatic update (`m` = 1, no `t`) of a still person only with the still timer, 25–75 min after the last
    /// fix; of a moving one once they are 400–1200 m from the last fix (at least `distance_trigger_m`), or with the
    /// time trigger, which starts when they start moving and fires 4–10 min later (at least `time_trigger_s`, at most
    /// `still_gap_s`). So:
    /// - **A lone fix after a moving one is no arrival**: a stay of one fix (a lone fix before a silence, a stop in a
    ///   region absence) whose fix is an automatic update at most `still_gap_s` after the kept fix before it was
    ///   published while the person moved, so the stay starts no earlier than that fix. (Before, it started at the
    ///   fix before plus the way at the trip's pace, minutes before the person stopped: a 12-minute walk seen by two
    ///   fixes was rebuilt as 4.)
    /// - **A departure the time trigger saw**: when the first kept fix after a stay is an automatic update after a
    ///   silence of at least `still_gap_s` and nearer than `distance_trigger_m` to the stay's last fix, the time
    ///   trigger published it, at least `time_trigger_s` after the person set off: the stay ends by then (never
    ///   before its last fix). (Before, the departure was that fix less the way at the trip's pace, a minute or two:
    ///   the time trigger fires minutes after a walk starts while the walker is still near.)
    /// Only times change: no stay is added, dropped or moved, and each keeps its fixes. `trigger_edges` = 0 turns it off.
    static func triggerEdges(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, automatic: (Int) -> Bool, crossings: Set<Int>, _ p: Parameters
    ) -> [StayRecord] {
        guard p.triggerEdges > 0 else { return input }
        var stays = input
        let timerMs = Int64(p.stillGapS * 1000), settleMs = Int64(p.timeTriggerS * 1000)
        for k in stays.indices where k >= keepFirst {
            let s = stays[k]
            guard s.points > 0, s.first >= 0, s.last < w.count, s.first <= s.last else { continue }
            // Arrival: a stay of one fix the phone published while moving.
            let i = s.first
            // (`automatic` last: it may read the fix's record, ``Evidence/automatic``.)
            if s.points == 1, !crossings.contains(i), s.startMs < w.time[i] {
                let h = w.lastKept(atOrBefore: i - 1)
                if h >= 0, w.time[i] - w.time[h] <= timerMs, automatic(i) { stays[k].startMs = w.time[i] }
            }
            // Departure: the next fix is the time trigger's.
            let f = s.last, g = w.firstKept(atOrAfter: f + 1)
            guard g < w.count, w.time[g] > s.endMs, k + 1 >= stays.count || w.time[g] < stays[k + 1].startMs,
                  !crossings.contains(g), w.time[g] - w.time[f] >= timerMs,
                  Geo.distance(w.lat[f], w.lon[f], w.lat[g], w.lon[g]) < p.distanceTriggerM, automatic(g) else { continue }
            let leave = max(w.time[f] + 1000, w.time[g] - settleMs)
            if leave < stays[k].endMs { stays[k].endMs = leave }
        }
        return stays
    }
}
