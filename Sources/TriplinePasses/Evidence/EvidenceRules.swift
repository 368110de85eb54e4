import TriplineCore
import TriplineStore

// MARK: - The rules: motion states, lone fixes, sparse edges

extension EvidencePass {
    /// A still fix far from a place whose kept neighbours, both within `outlier_s`, are near it: a wifi or cell fix
    /// off by hundreds of metres (an out-and-back jump too slow for the clean pass), counted as at the place.
    static func outlier(_ w: DeviceWork, _ i: Int, _ lat: Double, _ lon: Double, _ p: Parameters) -> Bool {
        guard w.speed[i].isNaN || w.speed[i] < p.movingMps else { return false }
        let h = w.lastKept(atOrBefore: i - 1)
        let j = w.firstKept(atOrAfter: i + 1)
        let window = Int64(p.outlierS * 1000)
        guard h >= 0, j < w.count, w.time[i] - w.time[h] <= window, w.time[j] - w.time[i] <= window else { return false }
        return Geo.distance(w.lat[h], w.lon[h], lat, lon) <= p.matchM && Geo.distance(w.lat[j], w.lon[j], lat, lon) <= p.matchM
    }

    /// A trip whose 1-Hz fixes stop while it is under way (a reported speed ≥ `moving_mps`: the phone died, the app was
    /// killed) and resume after a silence of at least `resume_gap_s` with a still fix (slower than `moving_mps`) more
    /// than `cluster_m` away that starts a 1-Hz track: the traveller reached that fix at the device's own pace and stayed
    /// there until it, when at least `lone_stay_s` of the silence is left over (the stop the silence hid at its end; the
    /// trips pass carries the trip through the travelled part, `trips.travel_min_mps`). Fixes without a reported speed
    /// (GPX, GeoLife) never count as under way, so those archives are left as they are.
    static func silentArrivals(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double, Int64) -> Double, _ p: Parameters
    ) -> [StayRecord] {
        var stays = input
        let gapMs = Int64(p.resumeGapS * 1000), leftMs = Int64(p.loneStayS * 1000)
        func nextKept(_ i: Int) -> Int {
            let j = w.firstKept(atOrAfter: i + 1)
            return j
        }
        var k = keepFirst
        var a = -1
        var b = max(lowerBound(w.time, w.processFromMs), keepFirst > 0 ? stays[keepFirst - 1].last + 1 : 0)
        while b < w.count {
            while k < stays.count && stays[k].last < b { k += 1 }
            if k < stays.count && b >= stays[k].first {
                a = -1
                b = stays[k].last + 1
                continue
            }
            if w.flags[b] != 0 { b += 1; continue }
            defer { a = b; b += 1 }
            guard a >= 0, w.time[b] - w.time[a] >= gapMs, Double(w.time[b] - w.time[a]) <= p.loneMaxS * 1000,
                  !w.speed[a].isNaN, w.speed[a] >= p.movingMps,
                  w.speed[b].isNaN || w.speed[b] < p.movingMps else { continue }
            let after = nextKept(b)
            guard after < w.count, k >= stays.count || after < stays[k].first, w.time[after] - w.time[b] <= 5000 else { continue }
            let d = Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b])
            guard d > p.clusterM else { continue }
            let arrive = w.time[a] + max(1000, Int64(d / speed(w.lat[a], w.lon[a], w.lat[b], w.lon[b], w.time[a]) * 1000))
            guard w.time[b] - arrive >= leftMs else { continue }
            stays.insert(StayRecord(
                first: b, last: b, startMs: arrive, endMs: w.time[b], lat: w.lat[b], lon: w.lon[b], radiusM: 0, points: 1,
                gapS: (w.time[b] - w.time[a]) / 1000), at: k)
            k += 1
        }
        return stays
    }

    /// The speed (m/s) of a departure from a stay to fix `i` (`after`; an arrival: from `i` to the stay): the median
    /// reported speed ≥ 0.5 m/s of the kept fixes within `speed_window_s` after (before) it, `i` included, else
    /// `default_speed_mps`. One fix's speed misleads: the first fix after a pause is often at a light.
    static func travelSpeed(_ w: DeviceWork, _ i: Int, after: Bool, _ p: Parameters) -> Double {
        let window = Int64(p.speedWindowS * 1000)
        var speeds: [Double] = []
        var k = i
        while k >= 0 && k < w.count && abs(w.time[k] - w.time[i]) <= window {
            if w.flags[k] == 0 && !w.speed[k].isNaN && w.speed[k] >= 0.5 { speeds.append(w.speed[k]) }
            k += after ? 1 : -1
        }
        guard !speeds.isEmpty else { return p.defaultSpeedMps }
        speeds.sort()
        // Never slower than walking: a car creeping at a light (0.5–0.7 m/s for two minutes) is not how the
        // traveller covered the way from the place (that put a departure 12 minutes early).
        return max(speeds[speeds.count / 2], p.travelMinSpeedMps)
    }

    /// Ends, straight-line distance and speed of the trips between consecutive stays that the fixes saw whole: at least 10
    /// kept fixes, none more than 5 min from the next or from the stays. The device's own pace, for trips no fix saw
    /// (``StayAmendment/typicalSpeed(_:_:_:_:at:)``: only those that ended within ``paceReachMs`` before the trip).
    static func observedTrips(_ w: DeviceWork, _ stays: [StayRecord], _ p: Parameters) -> [ObservedTrip] {
        var out: [ObservedTrip] = []
        for k in stays.indices.dropLast() {
            let a = stays[k], b = stays[k + 1]
            guard b.startMs > a.endMs, a.last < b.first else { continue }
            var n = 0, previous = a.endMs, whole = true, firstFix = -1, lastFix = -1
            for i in (a.last + 1)..<b.first where w.flags[i] == 0 && w.time[i] > a.endMs && w.time[i] < b.startMs {
                if w.time[i] - previous > 300_000 { whole = false; break }
                previous = w.time[i]
                if firstFix < 0 { firstFix = i }
                lastFix = i
                n += 1
            }
            guard whole, n >= 10, b.startMs - previous <= 300_000 else { continue }
            // The pace between the first and the last fix (the stays' edges may be estimates: an iOS pause).
            let d = Geo.distance(a.lat, a.lon, b.lat, b.lon), dFix = Geo.distance(w.lat[firstFix], w.lon[firstFix], w.lat[lastFix], w.lon[lastFix])
            let dt = Double(w.time[lastFix] - w.time[firstFix]) / 1000
            if d > 100 && dFix > 100 && dt > 0 { out.append((a.lat, a.lon, b.lat, b.lon, d, dFix / dt, w.time[lastFix])) }
        }
        return out
    }

    /// Stays followed by a long silence whose first fix is already moving by the motion states (see
    /// `resume_gap_s`): the stay lasts until that fix less the time to reach it at ``travelSpeed(_:_:after:_:)``.
    /// Only where the first fixes after the silence are a 1-Hz track (within 5 s of each other) and carry a motion
    /// state: archives without motion states (GPX, GeoLife, OwnTracks) are left as they are. Then the stops such a
    /// silence hid (``silencedStops(_:_:keepFirst:speed:_:)``).
    static func movingResumes(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double, Int64) -> Double, _ p: Parameters
    ) -> [StayRecord] {
        var stays = input
        let gapMs = Int64(p.resumeGapS * 1000)
        for k in stays.indices where k >= keepFirst {
            let limit = k + 1 < stays.count ? stays[k + 1].first : w.count
            var j = stays[k].last + 1
            while j < limit && (w.flags[j] != 0 || w.time[j] <= stays[k].endMs) { j += 1 }
            guard j < limit, w.time[j] - stays[k].endMs >= gapMs, movingTrackStarts(w, at: j, limit: limit) else { continue }
            let leave = departure(w, stays[k].lat, stays[k].lon, reaching: j, p)
            let nextStart = k + 1 < stays.count ? stays[k + 1].startMs - 1000 : Int64.max
            if leave > stays[k].endMs && leave < nextStart { stays[k].endMs = leave }
        }
        return silencedStops(w, stays, keepFirst: keepFirst, speed: speed, p)
    }

    /// The motion states that say a fix was moving.
    static let movingStates = MotionBits.walking | MotionBits.running | MotionBits.cycling | MotionBits.driving

    /// Fix `j` starts a moving 1-Hz track: it or a kept fix within a minute after it is moving by the motion states
    /// (iOS names the activity late: a trip's first fixes often still say `stationary`), and the next kept fix, before
    /// `limit`, is within 5 s of it.
    static func movingTrackStarts(_ w: DeviceWork, at j: Int, limit: Int) -> Bool {
        var q = j
        var moving = false
        while q < w.count && w.time[q] - w.time[j] <= 60_000 {
            if w.flags[q] == 0 && w.motion[q] & movingStates != 0 {
                moving = true
                break
            }
            q += 1
        }
        guard moving else { return false }
        let next = w.firstKept(atOrAfter: j + 1)
        return next < limit && w.time[next] - w.time[j] <= 5000
    }

    /// When the device left (lat, lon) to reach fix `j` at ``travelSpeed(_:_:after:_:)``: at least a second before it.
    static func departure(_ w: DeviceWork, _ lat: Double, _ lon: Double, reaching j: Int, _ p: Parameters) -> Int64 {
        let v = travelSpeed(w, j, after: true, p)
        return w.time[j] - max(1000, Int64(Geo.distance(lat, lon, w.lat[j], w.lon[j]) / v * 1000))
    }

    /// Fixes the motion states call `stationary` outside any stay (one, or a few within `cluster_m` of the first:
    /// too short for the stays pass), then a silence of `resume_gap_s`, then a moving 1-Hz resume or the next stay: a
    /// stop whose rest the silence hid (Overland's "discard stationary" reports a stop with its first point and then
    /// one an hour; with pauses, 5–15 s fixes until the app was killed or the phone died). It lasts until the resume
    /// less the travel to it at ``travelSpeed(_:_:after:_:)``, or until the next stay's start less the travel at the
    /// device's own pace between the two places (`speed`).
    static func silencedStops(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double, Int64) -> Double, _ p: Parameters
    ) -> [StayRecord] {
        var stays = input
        let gapMs = Int64(p.resumeGapS * 1000)
        let minMs = Int64(p.minStayS * 1000)
        /// A still fix: no moving state, slow, and `stationary` (`first`) or no state at all (8 % of fixes carry none).
        func still(_ i: Int, first: Bool = true) -> Bool {
            w.flags[i] == 0 && w.motion[i] & movingStates == 0 && (w.speed[i].isNaN || w.speed[i] < p.movingMps)
                && (w.motion[i] & MotionBits.stationary != 0 || (!first && w.motion[i] == 0))
        }
        var k = keepFirst
        var i = max(lowerBound(w.time, w.processFromMs), keepFirst > 0 ? stays[keepFirst - 1].last + 1 : 0)
        while i < w.count {
            while k < stays.count && stays[k].last < i { k += 1 }
            if k < stays.count && i >= stays[k].first { i = stays[k].last + 1; continue }
            guard still(i) else { i += 1; continue }
            // The run of still fixes near the first (flagged fixes skipped).
            var e = i, sumLat = w.lat[i], sumLon = w.lon[i], n = 1.0
            var j = i + 1
            while j < w.count && (k >= stays.count || j < stays[k].first) {
                if w.flags[j] != 0 { j += 1; continue }
                guard still(j, first: false), w.time[j] - w.time[e] < gapMs, Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j]) <= p.clusterM else { break }
                e = j
                sumLat += w.lat[j]
                sumLon += Geo.unwrappedLongitude(w.lon[j], near: w.lon[i])
                n += 1
                j += 1
            }
            defer { i = e + 1 }
            guard j < w.count, w.time[j] - w.time[e] >= gapMs, k == 0 || stays[k - 1].endMs < w.time[i] else { continue }
            let lat = sumLat / n, lon = Geo.normalizedLongitude(sumLon / n)
            var leave: Int64
            if k < stays.count && j >= stays[k].first {
                // The next stay: reached at the device's own pace.
                let d = Geo.distance(lat, lon, stays[k].lat, stays[k].lon)
                guard d > p.clusterM else { continue }
                leave = stays[k].startMs - max(1000, Int64(d / speed(lat, lon, stays[k].lat, stays[k].lon, w.time[e]) * 1000))
            } else {
                guard movingTrackStarts(w, at: j, limit: w.count) else { continue }
                leave = departure(w, lat, lon, reaching: j, p)
            }
            leave = min(leave, w.time[j] - 1000, k < stays.count ? stays[k].startMs - 1000 : Int64.max)
            guard leave - w.time[i] >= minMs else { continue }
            let acc = w.accuracy[i]
            stays.insert(StayRecord(
                first: i, last: e, startMs: w.time[i], endMs: leave, lat: lat, lon: lon, radiusM: acc.isNaN ? 0 : acc,
                points: Int(n), gapS: (w.time[j] - w.time[e]) / 1000), at: k)
            k += 1
        }
        return stays
    }

    /// Still fixes between stays next to long silences (see the type's documentation).
    // Long because of its nested `add`, which closes over the stays being built (see there).
    static func loneFixStays(_ w: DeviceWork, _ stays: [StayRecord], keepFirst: Int, crossings: Set<Int> = [], _ p: Parameters) -> [StayRecord] {
        guard !stays.isEmpty else { return stays }
        let gapMs = Int64(p.stillGapS * 1000), isolationMs = Int64(p.loneIsolationS * 1000)
        var out: [StayRecord] = Array(stays[..<keepFirst])
        /// Appends the lone-fix stays between `a` and `b` (either nil at the edges of the data).
        // Long by design: one scan of the fixes between two stays (sparse check, trip speed, still runs), in order over one cursor.
        func add(between a: StayRecord?, and b: StayRecord?) {
            // Only in sparsely sampled stretches (a dense track's silences are losses, and its stops show as
            // stays): the median interval between the fixes is at least `sparse_interval_s`, i.e. at most half of
            // the intervals are shorter (one scan, no sorting: this runs between every two stays).
            let minMs = Int64(p.sparseIntervalS * 1000)
            var previous: Int64? = a.map { w.time[$0.last] }
            var n = 0, short = 0
            var q = a.map { $0.last + 1 } ?? lowerBound(w.time, w.processFromMs)
            let stop = b?.first ?? w.count
            while q < stop {
                if w.flags[q] == 0 && w.time[q] >= w.processFromMs {
                    if let t = previous { n += 1; if w.time[q] - t < minMs { short += 1 } }
                    previous = w.time[q]
                }
                q += 1
            }
            if let b, let t = previous { n += 1; if w.time[b.first] - t < minMs { short += 1 } }
            guard n > 0, short <= n / 2 else { return }
            // Kept fixes strictly between the two stays, with the stays' edge fixes as neighbours.
            var pts: [Int] = []
            if let a { pts.append(a.last) }
            var i = a.map { $0.last + 1 } ?? lowerBound(w.time, w.processFromMs)
            let end = b?.first ?? w.count
            while i < end {
                if w.flags[i] == 0 && w.time[i] >= w.processFromMs { pts.append(i) }
                i += 1
            }
            if let b { pts.append(b.first) }
            let interiorFrom = a == nil ? 0 : 1, interiorTo = b == nil ? pts.count : pts.count - 1
            guard interiorTo > interiorFrom, pts.count >= 2 else { return }
            // The trip's own speed.
            var speeds: [Double] = []
            for k in 1..<pts.count {
                let dt = Double(w.time[pts[k]] - w.time[pts[k - 1]]) / 1000
                if dt > 0 && dt < p.stillGapS {
                    let d = Geo.distance(w.lat[pts[k - 1]], w.lon[pts[k - 1]], w.lat[pts[k]], w.lon[pts[k]])
                    if d > 50 { speeds.append(d / dt) }
                }
            }
            if speeds.isEmpty {
                for k in interiorFrom..<interiorTo where !w.speed[pts[k]].isNaN && w.speed[pts[k]] >= p.movingMps { speeds.append(w.speed[pts[k]]) }
            }
            speeds.sort()
            let v = speeds.isEmpty ? p.defaultSpeedMps : max(p.defaultSpeedMps * 0.5, speeds[speeds.count / 2])
            var lastEnd = a?.endMs ?? Int64.min
            func still(_ k: Int) -> Bool {
                let i = pts[k], s = w.speed[i]
                return !(!s.isNaN && s >= p.movingMps) && !crossings.contains(i)
            }
            var k = interiorFrom
            while k < interiorTo {
                guard still(k) else { k += 1; continue }
                // A run of still fixes within `cluster_m` of its first one (one fix, or a few minutes apart).
                var e = k
                while e + 1 < interiorTo && still(e + 1)
                    && Geo.distance(w.lat[pts[k]], w.lon[pts[k]], w.lat[pts[e + 1]], w.lon[pts[e + 1]]) <= p.clusterM { e += 1 }
                defer { k = e + 1 }
                let first = pts[k], last = pts[e]
                let h = k > 0 ? pts[k - 1] : nil, j = e + 1 < pts.count ? pts[e + 1] : nil
                // Time on either side that travel at the trip's speed does not explain was spent here.
                // (The stays' edge fixes count as neighbours too: which side of such a silence the time was spent
                // on, nothing says; counting only trip fixes scored lower on the development seeds, 550 → 538 of
                // 635 trips matched.)
                let before = h.map { w.time[first] - w.time[$0] } ?? 0, after = j.map { w.time[$0] - w.time[last] } ?? 0
                guard max(before, after) >= gapMs || e > k, min(before, after) >= isolationMs else { continue }
                var start = w.time[first], stop = w.time[last]
                if let h {
                    // Arrival: travel from the fix before, or from where the last stay was left.
                    let travel = max(1000, Int64(Geo.distance(w.lat[h], w.lon[h], w.lat[first], w.lon[first]) / v * 1000))
                    start = min(w.time[first], max(w.time[h], lastEnd) + travel)
                }
                if let j {
                    // Departure: the time trigger reports a phone that started moving `settle_lag_s` later (if its
                    // trip was too short for the distance trigger), so the next fix is at least that far from it.
                    let travel = Int64(Geo.distance(w.lat[last], w.lon[last], w.lat[j], w.lon[j]) / v * 1000)
                    stop = max(w.time[last], w.time[j] - max(travel, Int64(p.settleLagS * 1000), 1000))
                }
                // A silence longer than `lone_max_s` is a gap: the fix claims none of it.
                let claimMs = Int64(p.loneMaxS * 1000)
                if before > claimMs { start = w.time[first] }
                if after > claimMs { stop = w.time[last] }
                start = max(start, lastEnd + 1000)
                if let b { stop = min(stop, b.startMs - 1000) }
                guard stop - start >= Int64(p.loneStayS * 1000) else { continue }
                var sumLat = 0.0, sumLon = 0.0
                for q in k...e { sumLat += w.lat[pts[q]]; sumLon += Geo.unwrappedLongitude(w.lon[pts[q]], near: w.lon[pts[k]]) }
                let n = Double(e - k + 1)
                let acc = w.accuracy[first]
                out.append(StayRecord(
                    first: first, last: last, startMs: start, endMs: stop, lat: sumLat / n, lon: Geo.normalizedLongitude(sumLon / n), radiusM: acc.isNaN ? 0 : acc,
                    points: e - k + 1, gapS: max(before, after) / 1000))
                lastEnd = stop
            }
        }
        if keepFirst == 0 { add(between: nil, and: stays[0]) }
        for k in stays.indices {
            if k >= keepFirst { out.append(stays[k]) }
            add(between: stays[k], and: k + 1 < stays.count ? stays[k + 1] : nil)
        }
        return out
    }

    /// A stay next to a silence whose other side is a fix without a speed (significant changes: the last still fix
    /// may be an hour before the departure): the stay reaches to that fix less the time to cover its distance at the
    /// trip's own speed (as the stays pass does for fixes that report a speed). Only in sparsely sampled trips.
    static func sparseEdges(_ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, _ p: Parameters) -> [StayRecord] {
        var stays = input
        let minMs: Int64 = 120_000
        /// Kept fixes strictly between stays k and k + 1, when they are sparse (median interval at least
        /// `sparse_interval_s`: at most half of the intervals shorter; one scan before anything is allocated).
        func between(_ k: Int) -> [Int]? {
            let minMs = Int64(p.sparseIntervalS * 1000)
            var i = stays[k].last + 1
            let end = k + 1 < stays.count ? stays[k + 1].first : w.count
            var previous: Int64? = nil
            var n = 0, short = 0
            while i < end {
                if w.flags[i] == 0 {
                    if let t = previous { n += 1; if w.time[i] - t < minMs { short += 1 } }
                    previous = w.time[i]
                }
                i += 1
            }
            guard n > 0, short <= n / 2 else { return nil }
            var out: [Int] = []
            i = stays[k].last + 1
            while i < end { if w.flags[i] == 0 { out.append(i) }; i += 1 }
            return out
        }
        func tripSpeed(_ pts: [Int]) -> Double? {
            guard pts.count >= 2 else { return nil }
            var speeds: [Double] = []
            for k in 1..<pts.count {
                let dt = w.time[pts[k]] - w.time[pts[k - 1]]
                let d = Geo.distance(w.lat[pts[k - 1]], w.lon[pts[k - 1]], w.lat[pts[k]], w.lon[pts[k]])
                if dt > 0 && Double(dt) < p.stillGapS * 1000 && d > 50 { speeds.append(d / (Double(dt) / 1000)) }
            }
            speeds.sort()
            return speeds.isEmpty ? p.defaultSpeedMps : max(p.defaultSpeedMps * 0.5, speeds[speeds.count / 2])
        }
        for k in stays.indices where k + 1 < stays.count {
            guard let pts = between(k), let first = pts.first, let last = pts.last, let v = tripSpeed(pts) else { continue }
            // A silence longer than `lone_max_s` is a gap: neither stay reaches into it.
            let gapMs = Int64(p.loneMaxS * 1000)
            if k >= keepFirst, w.speed[first].isNaN, w.time[first] - stays[k].endMs > minMs, w.time[first] - w.time[stays[k].last] <= gapMs {
                let leave = w.time[first] - Int64(Geo.distance(stays[k].lat, stays[k].lon, w.lat[first], w.lon[first]) / v * 1000)
                if leave > stays[k].endMs { stays[k].endMs = min(leave, w.time[first] - 1000) }
            }
            let next = k + 1
            if w.speed[last].isNaN, stays[next].startMs - w.time[last] > minMs, w.time[stays[next].first] - w.time[last] <= gapMs {
                let arrive = w.time[last] + Int64(Geo.distance(stays[next].lat, stays[next].lon, w.lat[last], w.lon[last]) / v * 1000)
                if arrive < stays[next].startMs { stays[next].startMs = max(arrive, w.time[last] + 1000) }
            }
        }
        return stays
    }

    /// The amended stays that can have happened: one that the travel times to and from its neighbours left ending
    /// before it starts goes when no fix saw it (an iOS visit with no time left: a real Google history had two visits
    /// ending 11 and 28 s before they started, issue 28), else it ends when it starts. The kept first stay of an
    /// incremental rebuild is left alone.
    static func possible(_ stays: [StayRecord], keepFirst: Int) -> [StayRecord] {
        var out: [StayRecord] = []
        out.reserveCapacity(stays.count)
        for (k, s) in stays.enumerated() {
            if k < keepFirst || s.endMs >= s.startMs {
                out.append(s)
            } else if s.points > 0 {
                var t = s
                t.endMs = t.startMs
                out.append(t)
            }
        }
        return out
    }
}
