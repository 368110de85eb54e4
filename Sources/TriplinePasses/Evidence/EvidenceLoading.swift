import TriplineCore
import TriplineGeography
import TriplineStore

// MARK: - Reading the evidence

extension EvidencePass {
    /// A span during which the device was at one spot, according to the app.
    public struct Presence: Sendable, Equatable {
        public var startMs: Int64
        public var endMs: Int64
        public var lat: Double
        public var lon: Double
        /// Stays and fixes within this distance (metres) are "there".
        public var reachM: Double
        /// The region's name (OwnTracks `desc`), for `inregions`; nil for visits and pauses.
        public var region: String?
        public var source: String
        /// When the app wrote it (an iOS visit without a departure: the phone was there then, so a stay that begins
        /// later is another visit).
        public var recordedMs: Int64? = nil
    }

    /// What the app recorded besides fixes, for one device's span.
    public struct Evidence {
        public var presences: [Presence] = []
        /// Point index → the centre of a region the fix says it is in (`inregions`).
        public var inRegion: [Int: (lat: Double, lon: Double)] = [:]
        /// Spans outside a region between a `leave` and the next `enter` (a stay across one is two stays).
        public var absences: [Presence] = []
        /// Point indices of the fixes published with a region event (`t:"c"`, at the event's time): taken while
        /// crossing the boundary, so never a stay of their own.
        public var crossings: Set<Int> = []
        /// Point index of the fix published with a region `leave` → that region's centre and radius (metres): iOS
        /// reports the exit `leave_lag_s` after the boundary was crossed, so the fix's distance beyond the boundary
        /// was covered in about that time (``EvidencePass/leavePace(_:_:evidence:_:)``).
        public var leaves: [Int: (lat: Double, lon: Double, radius: Double)] = [:]
        /// Point indices of the fixes an OwnTracks phone published in significant-changes mode as automatic updates
        /// (`m` = 1, no `t`): while the person is still, such a fix comes only with the still timer, 25–75 min after
        /// the last one, so one that follows another sooner was published while moving (``EvidencePass/triggerEdges(_:_:keepFirst:automatic:crossings:_:)``).
        /// Whether fix `i` is one: asked only of the fixes the rule weighs (a few per stay), each looked up when asked
        /// (``Store/significantChanges(device:fromMs:untilMs:)``), as reading every fix's record cost 9–14 % of a rebuild.
        public var automatic: (Int) -> Bool = { _ in false }
        public init() {}
    }

    /// How far (ms) before and after the span the app's records are read: a presence that began a day before the span
    /// (an `enter` last night) still covers its start.
    static let eventMarginMs: Int64 = 86_400_000

    /// Whether the app's records name a region with a position (an OwnTracks `waypoint`): only then are the fixes that
    /// say which regions they are in (`inregions`) worth reading.
    static func namesRegions(_ events: [EvidenceEvent]) -> Bool {
        events.contains { $0.kind == "waypoint" && $0.desc != nil && $0.lat != nil && $0.lon != nil }
    }

    /// The app's records of the span (``Store/evidenceEvents(device:fromMs:toMs:)``) and its fixes that name their
    /// regions (``Store/regionFixes(device:fromMs:untilMs:)``) as presence intervals, absences, crossings and fixes in
    /// regions.
    // Long by design: one scan of the device's app events and region fixes into the kinds of evidence (absences, presences, pauses, fixes in regions).
    static func evidence(
        _ w: DeviceWork, events: [EvidenceEvent], regionFixes: [RegionFix], significantChange: @escaping (Int64) -> Bool = { _ in false },
        earlier: EarlierFixes? = nil, _ p: Parameters
    ) -> Evidence {
        var evidence = Evidence()
        let time = w.time, count = w.count
        evidence.automatic = { i in i >= 0 && i < count && significantChange(time[i]) }
        var regions: [String: (lat: Double, lon: Double, radius: Double)] = [:]
        var transitions: [(time: Int64, enter: Bool, region: String, lat: Double, lon: Double)] = []
        var pauseAt: Int64? = nil
        // (pause start, or nil for a resume with no pause before it; resume time and position).
        var pauses: [(Int64?, Int64, Double?, Double?)] = []
        /// A pause ended by a fix far from it before `before` (the next pause or resume): that fix as its resume.
        func exited(_ start: Int64, before: Int64) -> Bool {
            guard let j = pauseExit(w, pause: start, before: before, p) else { return false }
            pauses.append((start, w.time[j], w.lat[j], w.lon[j]))
            return true
        }
        var lastResume: Int64? = nil
        for event in events {
            let time = event.timeMs
            switch event.kind {
            case "waypoint":
                if let desc = event.desc, let lat = event.lat, let lon = event.lon {
                    regions[desc] = (lat, lon, event.radiusM ?? 100)
                }
            case "transition":
                guard let kind = event.event, kind == "enter" || kind == "leave", let desc = event.desc else { continue }
                transitions.append((time, kind == "enter", desc, event.lat ?? .nan, event.lon ?? .nan))
            case "visit":
                guard let lat = event.lat, let lon = event.lon, let start = event.startMs else { continue }
                evidence.presences.append(Presence(
                    startMs: start, endMs: event.endMs ?? Int64.max, lat: lat, lon: lon, reachM: p.matchM, region: nil, source: "visit",
                    recordedMs: time))
            case "paused_location_updates":
                // A pause with no resume before this one: ended by a fix far from it, if any (else dropped).
                if let open = pauseAt { _ = exited(open, before: time) }
                // A pause with no kept fix loaded at or before it is one the fixes cannot place: taken as not in the
                // archive, so the resume after it is one without a pause (``pauseStart``). Its place and whether fixes
                // far from it ended it lie before the loaded span (an incremental rebuild loads two days before its
                // restart point, its events a day more), which one rebuild over everything judged with those fixes.
                pauseAt = w.lastKept(atOrBefore: lowerBound(w.time, time + 1) - 1) >= 0 ? time : nil
            default:  // resumed / exited pause region (Overland writes both at once)
                if let start = pauseAt, !exited(start, before: time) {
                    pauses.append((start, time, event.lat, event.lon))
                } else if lastResume != time, let lat = event.lat, let lon = event.lon {
                    // The pause this resume ends is not in the archive (it began before the first file, its batch
                    // was lost, or the day began paused), or the pause open was an older one that fixes far from it
                    // already ended (the app recorded again elsewhere, then paused with no record of it): it began
                    // at the last fix before the silence (``pauseStart``).
                    pauses.append((nil, time, lat, lon))
                }
                pauseAt = nil
                lastResume = time
            }
        }
        if let open = pauseAt { _ = exited(open, before: Int64.max) }
        // Absences: leave → the next enter of one region.
        var left: [String: Int64] = [:]
        for t in transitions {
            if t.enter, let l = left.removeValue(forKey: t.region), let region = regions[t.region] {
                evidence.absences.append(Presence(
                    startMs: l - Int64(p.leaveLagS * 1000), endMs: t.time - Int64(p.enterLagS * 1000), lat: region.lat, lon: region.lon,
                    reachM: region.radius + p.matchM, region: t.region, source: "absence"))
            } else if !t.enter {
                left[t.region] = t.time
            }
            let i = lowerBound(w.time, t.time - 2000)
            if i < w.count && abs(w.time[i] - t.time) <= 2000 {
                evidence.crossings.insert(i)
                if !t.enter, let region = regions[t.region] { evidence.leaves[i] = (region.lat, region.lon, region.radius) }
            }
        }
        // Fixes that say which region they are in: at the centre of the first region they name that has a position.
        if !regions.isEmpty {
            for fix in regionFixes {
                let i = lowerBound(w.time, fix.timeMs)
                guard i < w.count, w.time[i] == fix.timeMs else { continue }
                for name in fix.regions {
                    if let region = regions[name] { evidence.inRegion[i] = (region.lat, region.lon); break }
                }
            }
        }
        // Region presence: enter → leave of one region. A kept fix further away than the region's reach between them
        // (``farFix(_:inRegion:region:_:_:reach:after:before:last:_:)``) says the phone missed the transitions and
        // the person left: the `enter`'s presence ends at the last kept fix before the first such fix, the `leave`'s
        // begins at the first kept fix after the last one (algorithm version 36). So does an `enter` with a far fix
        // after it whatever follows (another `enter`, or nothing yet): what a later `leave` or `enter` makes of it
        // never reaches back past the last far fix (the incremental restart, ``Rebuild/openRecordMs``).
        var entered: [String: (Int64, Double, Double)] = [:]
        func far(_ name: String, _ centre: (Double, Double), _ reach: Double, after: Int64, before: Int64, last: Bool) -> Int64? {
            farFix(w, inRegion: evidence.inRegion, region: name, centre.0, centre.1, reach: reach, after: after, before: before, last: last, p)
        }
        func appendEntered(_ name: String, _ start: (Int64, Double, Double), until next: Int64, open: Bool) {
            let region = regions[name]
            let centre = region.map { ($0.lat, $0.lon) } ?? (start.1, start.2)
            guard !centre.0.isNaN else { return }
            let reach = (region?.radius ?? 150) + p.matchM
            // (Up to the last kept fix before the far one: when the person left in the silence between them is the
            // stays' own edges' to estimate.)
            // (An `enter` before the loaded points: its first far fix among the stored ones before them, if any.)
            let end = earlier?.far(name, centre, reach, after: start.0, before: next, last: false, p).map { max(start.0, $0.edge ?? start.0) }
                ?? far(name, centre, reach, after: start.0, before: next, last: false)
                .map { max(start.0, w.time[max(0, w.lastKept(atOrBefore: lowerBound(w.time, $0) - 1))]) }
            guard end != nil || open else { return }
            evidence.presences.append(Presence(
                startMs: start.0 - Int64(p.enterLagS * 1000), endMs: end ?? Int64.max, lat: centre.0, lon: centre.1,
                reachM: reach, region: name, source: "region"))
        }
        for t in transitions {
            let region = regions[t.region]
            if t.enter {
                // An `enter` after an `enter` (iOS lost the exit): the first one's presence up to its first far fix,
                // else none.
                if let first = entered[t.region] { appendEntered(t.region, first, until: t.time, open: false) }
                entered[t.region] = (t.time, t.lat, t.lon)
                continue
            }
            let start = entered.removeValue(forKey: t.region)
            let centre = region.map { ($0.lat, $0.lon) } ?? (t.lat, t.lon)
            guard !centre.0.isNaN else { continue }
            let reach = (region?.radius ?? 150) + p.matchM
            let endMs = t.time - Int64(p.leaveLagS * 1000)
            var startMs = start.map { $0.0 - Int64(p.enterLagS * 1000) } ?? Int64.min
            if let start {
                // The last far fix among the loaded fixes, else among the stored ones before them (an `enter` before the
                // loaded points): the presence begins at the first kept fix after it.
                var next: Int64? = nil
                if let lastFar = far(t.region, centre, reach, after: start.0, before: endMs, last: true) {
                    next = w.time[min(w.count - 1, w.firstKept(atOrAfter: lowerBound(w.time, lastFar) + 1))]
                } else if let lastFar = earlier?.far(t.region, centre, reach, after: start.0, before: endMs, last: true, p) {
                    next = lastFar.edge ?? w.time[min(w.count - 1, w.firstKept(atOrAfter: lowerBound(w.time, lastFar.at + 1)))]
                }
                if let next {
                    appendEntered(t.region, start, until: endMs, open: false)
                    startMs = min(endMs, next)
                }
            }
            evidence.presences.append(Presence(
                startMs: startMs, endMs: endMs, lat: centre.0, lon: centre.1, reachM: reach, region: t.region, source: "region"))
        }
        for (name, start) in entered { appendEntered(name, start, until: Int64.max, open: true) }
        // Pauses: at the last kept fix before the pause; departure = resume less the walk out at the next fix's speed.
        // (The closed iOS visits by arrival, for `visit_departs`: they follow each other without overlapping.)
        let closed = p.visitDeparts > 0 ? evidence.presences.filter { $0.source == "visit" && $0.endMs < Int64.max }.sorted { $0.startMs < $1.startMs } : []
        for (paused, resume, rlat, rlon) in pauses {
            guard let start = paused ?? pauseStart(w, resume: resume, rlat!, rlon!, p) else { continue }
            let i = w.lastKept(atOrBefore: lowerBound(w.time, start + 1) - 1)
            guard i >= 0, start - w.time[i] < 3_600_000 else { continue }
            var end = resume
            let j = w.firstKept(atOrAfter: lowerBound(w.time, resume))
            if let rlat, let rlon {
                let v = j < w.count ? travelSpeed(w, j, after: true, p) : p.defaultSpeedMps
                end = resume - Int64(Geo.distance(w.lat[i], w.lon[i], rlat, rlon) / v * 1000)
            }
            // An iOS visit at the place, open when the pause began and closed before `end`: the device left then
            // (``StayAmendment/endAtDeparture(_:)``), and the pause claims no stay after it. (The last visit to arrive
            // by the pause's last fix.)
            let open = partitionPoint(0..<closed.count) { closed[$0].startMs <= w.time[i] } - 1
            if open >= 0, closed[open].endMs < end, closed[open].endMs >= w.time[i],
               Geo.distance(closed[open].lat, closed[open].lon, w.lat[i], w.lon[i]) <= closed[open].reachM {
                end = closed[open].endMs
            }
            // Back over the still fixes near it to the arrival (the fixes before the pause), for the place's centre.
            var k = i, sumLat = 0.0, sumLon = 0.0, n = 0.0
            while k >= 0 {
                if w.flags[k] == 0 {
                    let far = Geo.distance(w.lat[k], w.lon[k], w.lat[i], w.lon[i]) > p.matchM && !outlier(w, k, w.lat[i], w.lon[i], p)
                    if far || (!w.speed[k].isNaN && w.speed[k] >= p.movingMps) { break }
                    sumLat += w.lat[k]
                    sumLon += Geo.unwrappedLongitude(w.lon[k], near: w.lon[i])
                    n += 1
                }
                if k > 0 && w.time[k] - w.time[k - 1] > 3_600_000 { break }
                k -= 1
            }
            let arrival = w.time[min(i, k + 1)]
            evidence.presences.append(Presence(
                startMs: arrival, endMs: max(w.time[i], end), lat: n > 0 ? sumLat / n : w.lat[i],
                lon: n > 0 ? Geo.normalizedLongitude(sumLon / n) : w.lon[i], reachM: p.matchM, region: nil, source: "pause"))
        }
        evidence.presences.sort { $0.startMs != $1.startMs ? $0.startMs < $1.startMs : $0.endMs < $1.endMs }
        return evidence
    }

    /// The distance (metres) of fix `i` from a position, as the presences weigh it: a fix inside the named region
    /// (`inregions`) counts as at its centre, and a still fix far off between two near ones (``outlier(_:_:_:_:_:)``)
    /// as there.
    static func regionDistance(_ w: DeviceWork, inRegion: [Int: (lat: Double, lon: Double)], _ i: Int, _ lat: Double, _ lon: Double,
                               region: String?, _ p: Parameters) -> Double {
        if region != nil, let c = inRegion[i], Geo.distance(c.lat, c.lon, lat, lon) < 1 { return 0 }
        let d = Geo.distance(w.lat[i], w.lon[i], lat, lon)
        if d > p.matchM && outlier(w, i, lat, lon, p) { return 0 }
        return d
    }

    /// The time of the first (or with `last`, the last) kept fix after `after` and before `before` further than
    /// `reach` from a region's centre (``regionDistance(_:inRegion:_:_:_:region:_:)``): a fix clearly outside the
    /// region. Nil when there is none among the loaded fixes.
    static func farFix(_ w: DeviceWork, inRegion: [Int: (lat: Double, lon: Double)], region: String, _ lat: Double, _ lon: Double,
                       reach: Double, after: Int64, before: Int64, last: Bool, _ p: Parameters) -> Int64? {
        let a = lowerBound(w.time, after + 1), b = lowerBound(w.time, before)
        guard a < b else { return nil }
        func isFar(_ i: Int) -> Bool { w.flags[i] == 0 && regionDistance(w, inRegion: inRegion, i, lat, lon, region: region, p) > reach }
        if last {
            var i = b - 1
            while i >= a { if isFar(i) { return w.time[i] }; i -= 1 }
        } else {
            for i in a..<b where isFar(i) { return w.time[i] }
        }
        return nil
    }

    /// The stored fixes between the earliest `enter` read before an incremental rebuild's loaded points and the first
    /// of them (the events are read a day before the points, ``eventMarginMs``): the rebuild over everything judges an
    /// `enter`'s first far fix (and a `leave`'s last one) among them, so an incremental one asks them too, as
    /// ``Rebuild/openRecordMs`` judges its restart (their stored clean flags and `inregions`). Without them, an `enter`
    /// that the person left in that gap took its first far fix from the loaded points, a later one, and its presence
    /// reached into the span (``evidence(_:events:regionFixes:significantChange:earlier:_:)``).
    struct EarlierFixes {
        let w: DeviceWork
        let inRegion: [Int: (lat: Double, lon: Double)]
        /// The first loaded point's bound (``DeviceWork/fromMs``): only fixes before it are judged here.
        let untilMs: Int64

        /// The first (or `last`) far fix after `after` and before `before` among these fixes before `untilMs`
        /// (``farFix(_:inRegion:region:_:_:reach:after:before:last:_:)``) and its edge: the last kept fix before it
        /// (first) or the first kept fix after it (`last`), nil when there is none among them.
        func far(_ region: String, _ centre: (Double, Double), _ reach: Double, after: Int64, before: Int64, last: Bool,
                 _ p: Parameters) -> (at: Int64, edge: Int64?)? {
            guard after < untilMs else { return nil }
            let cut = min(before, untilMs)
            guard let at = farFix(w, inRegion: inRegion, region: region, centre.0, centre.1, reach: reach, after: after, before: cut, last: last, p)
            else { return nil }
            let i = lowerBound(w.time, at)
            if last {
                let j = w.firstKept(atOrAfter: i + 1)
                return (at, j < w.count && w.time[j] < untilMs ? w.time[j] : nil)
            }
            let j = w.lastKept(atOrBefore: i - 1)
            return (at, j >= 0 ? w.time[j] : nil)
        }

        /// The stored fixes from the earliest `enter` among `events` before `work`'s loaded points up to them; nil
        /// when there is none (a rebuild over everything, or no such `enter`).
        static func load(_ work: DeviceWork, events: [EvidenceEvent], store: Store, _ p: Parameters) throws -> EarlierFixes? {
            guard work.fromMs > Int64.min,
                  let first = events.first(where: { $0.kind == "transition" && $0.event == "enter" && $0.desc != nil }),
                  first.timeMs < work.fromMs else { return nil }
            let (w, inRegion) = try storedFixes(
                store: store, deviceID: work.deviceID, deviceKey: work.deviceKey, fromMs: first.timeMs, toMs: work.fromMs, regions: regionPositions(events), zones: work.zones, p)
            return EarlierFixes(w: w, inRegion: inRegion, untilMs: work.fromMs)
        }
    }

    /// The regions' positions and radii as the evidence pass reads them (every `waypoint`, the last one of a name winning).
    static func regionPositions(_ events: [EvidenceEvent]) -> [String: (lat: Double, lon: Double, radius: Double)] {
        var regions: [String: (lat: Double, lon: Double, radius: Double)] = [:]
        for e in events where e.kind == "waypoint" {
            if let desc = e.desc, let lat = e.lat, let lon = e.lon { regions[desc] = (lat, lon, e.radiusM ?? 100) }
        }
        return regions
    }

    /// A device's stored fixes from `fromMs` to `toMs`, with their stored clean flags and the centres of the regions
    /// they name (`inregions`, the first with a position), loaded with `outlier_s` more on both sides so that a far
    /// fix's neighbours (which may make it an outlier) are read as the evidence pass reads them.
    static func storedFixes(
        store: Store, deviceID: Int64, deviceKey: UInt64, fromMs: Int64, toMs: Int64, regions: [String: (lat: Double, lon: Double, radius: Double)],
        zones: LocalZones, _ p: Parameters
    ) throws -> (DeviceWork, [Int: (lat: Double, lon: Double)]) {
        let margin = Int64(p.outlierS * 1000) + 1
        let w = DeviceWork(deviceID: deviceID, deviceKey: deviceKey, fromMs: fromMs - margin, toMs: toMs + margin, processFromMs: fromMs, zones: zones)
        try w.loadPoints(store: store)
        try w.loadFlags(store: store)
        var inRegion: [Int: (lat: Double, lon: Double)] = [:]
        for fix in try store.regionFixes(device: deviceID, fromMs: w.fromMs, untilMs: w.toMs) {
            let i = lowerBound(w.time, fix.timeMs)
            guard i < w.count, w.time[i] == fix.timeMs else { continue }
            if let named = fix.regions.first(where: { regions[$0] != nil }), let c = regions[named] { inRegion[i] = (c.lat, c.lon) }
        }
        return (w, inRegion)
    }

    /// Where a resume with no pause before it began: at the last kept fix before it, when that fix was still, a silence
    /// of at least `resume_gap_s` lies between them, and the resume is within `pause_reach_m` of it (Overland's largest
    /// "resume with geofence" radius, 2 km, plus the lag of the exit).
    static func pauseStart(_ w: DeviceWork, resume: Int64, _ rlat: Double, _ rlon: Double, _ p: Parameters) -> Int64? {
        let i = w.lastKept(atOrBefore: lowerBound(w.time, resume) - 1)
        guard i >= 0, Double(resume - w.time[i]) >= p.resumeGapS * 1000 else { return nil }
        guard w.speed[i].isNaN || w.speed[i] < p.movingMps else { return nil }
        guard Geo.distance(w.lat[i], w.lon[i], rlat, rlon) <= p.pauseReachM else { return nil }
        return w.time[i]
    }

    /// The first kept fix after a pause (and before `before`) further than `pause_exit_m` from the last kept fix before
    /// it (a wifi jump, ``outlier(_:_:_:_:_:)``, does not count), when the next kept fix follows it within a minute:
    /// the fix that ended a pause no resume ended. Nil when there is none, it is a lone fix, or the rule is off.
    static func pauseExit(_ w: DeviceWork, pause: Int64, before: Int64, _ p: Parameters) -> Int? {
        guard p.pauseExitM > 0 else { return nil }
        let i = w.lastKept(atOrBefore: lowerBound(w.time, pause + 1) - 1)
        guard i >= 0 else { return nil }
        var j = lowerBound(w.time, pause + 1)
        while j < w.count && w.time[j] < before {
            if w.flags[j] == 0 && Geo.distance(w.lat[i], w.lon[i], w.lat[j], w.lon[j]) > p.pauseExitM
                && !outlier(w, j, w.lat[i], w.lon[i], p) {
                let n = w.firstKept(atOrAfter: j + 1)
                return n < w.count && w.time[n] - w.time[j] <= 60_000 ? j : nil
            }
            j += 1
        }
        return nil
    }
}
