import TriplineCore
import TriplineStore

/// Pass 3, `evidence` (after `stays`, before `places`): what the apps said besides their fixes, applied to the stays.
///
/// Sparse archives leave long silences: OwnTracks in significant-changes mode reports a still phone every 25–75 min,
/// Overland with iOS's automatic pauses reports nothing from ~10 min after arriving until the person is 100–250 m
/// away again. The fixes alone cannot say whether a silence was spent at the place or on the way. The apps' other
/// records can, and this pass uses them (all from `app_events` and `points.extra`, see docs/IMPORT.md):
/// - **Presence intervals.** OwnTracks region `transition` events: from an `enter` to the next `leave` of the same
///   region (`desc`) the phone was inside it (centre and radius from the `waypoint` messages; times corrected by
///   `enter_lag_s` / `leave_lag_s` for iOS's detection delay). Overland iOS `visit` records: from `arrival_date` to
///   `departure_date`. Overland pauses: from `paused_location_updates` to the next `resumed_location_updates` /
///   `exited_pause_region` the phone lay within its pause region (the departure is the resume time less the time to
///   walk from the place to the resume point at the next fix's speed). A pause no resume ended ends at the first fix
///   far from it when the app records again from there (`pause_exit_m`); an iOS arrival in a silence inside a stay at
///   its place splits the stay (`arrival_gap_s`).
/// - A stay whose centre lies within `match_m` (regions: their radius plus `match_m`) of a presence interval and
///   overlaps it in time is stretched to cover it, but never over a kept fix further away than that (trip fixes
///   win); stays of one interval are joined when nothing in between was further away. A fix that carries
///   `inregions` naming the region (OwnTracks) counts as being there, wherever its coordinates put it (wifi fixes
///   hundreds of metres off). An interval with fixes near it but no stay becomes a stay of its own (≥ `min_stay_s`).
/// - **Lone-fix stays.** Between two stays, a fix that did not move (no speed, or below `moving_mps`) next to a
///   silence of at least `still_gap_s` that travel at the trip's own speed explains only partly is a stay at that
///   fix when at least `lone_stay_s` remain (significant-change mode reports a stop with one fix, then nothing for
///   25–75 min). The trip's speed is the median of its fix-to-fix speeds over shorter silences (else reported
///   speeds, else `default_speed_mps`).
/// - **Motion states** (Overland): a stay before a long silence whose first fix starts a 1-Hz track the motion
///   states call moving lasts until that fix less the travel to it; a `stationary` fix (or a few) outside any stay
///   before such a silence is a stop (``movingResumes(_:_:keepFirst:speed:_:)``,
///   ``silencedStops(_:_:keepFirst:speed:_:)``). Travel times use the median speed of the fixes around a departure
///   (``travelSpeed(_:_:after:_:)``), and trips no fix saw the device's own pace (``observedTrips(_:_:_:)``).
/// With no app events, no motion states and no such silences (GPX, GeoLife), the stays pass's stays are kept
/// unchanged.
public struct EvidencePass: Pass {
    public static let name = "evidence"

    public struct Parameters: PassParameters {
        /// Stays within this distance (metres) of an interval's position belong to it (regions: radius + this).
        public var matchM: Double = 150
        /// iOS reports a region `leave` this long (seconds) after the person left the place (boundary crossing plus
        /// the monitor's delay); it reports `enter` about when the person arrives.
        public var leaveLagS: Double = 90
        public var enterLagS: Double = 0
        /// Presence intervals shorter than this (seconds) create no stay of their own.
        public var minStayS: Double = 300
        /// A silence this long (seconds) next to a still fix between stays …
        public var stillGapS: Double = 600
        /// … leaving at least this long (seconds) unexplained by travel makes the fix a stay.
        public var loneStayS: Double = 600
        /// … and only a fix this far (seconds) from both its neighbours: sparse sampling, not a dense track's
        /// stop at a traffic light just before the phone went silent.
        public var loneIsolationS: Double = 60
        /// A silence longer than this (seconds) is a gap, not presence: no rule here claims any of it for a stay (a
        /// lone fix, a sparse edge, an arrival a silence hid). As `stays.max_gap_s`, the longest silence one stay
        /// holds: a day covers a night and a day with the phone off; beyond, nothing says where the person was (one
        /// fix in California, the next 71 days later in Denmark was a 51-day visit in Denmark).
        public var loneMaxS: Double = 86_400
        /// A still fix far from a place between two near ones at most this far (seconds) away is at the place.
        public var outlierS: Double = 300
        /// Seconds between a departure and the next fix when the trip was too short for the distance trigger (the
        /// significant-changes time trigger fires 4–10 min after the phone starts moving: its middle).
        public var settleLagS: Double = 0
        /// A lone stay may be a run of still fixes this close (metres) to its first one (move mode's 180 s timer
        /// reports a 12-minute visit with three or four fixes: too short a span for the stays pass).
        public var clusterM: Double = 120
        /// Lone-fix stays only between stays whose fixes in between are this far apart (median, seconds).
        public var sparseIntervalS: Double = 30
        /// A fix at or above this reported speed (m/s) was moving.
        public var movingMps: Double = 0.7
        /// Speed (m/s) assumed when a trip shows none (walking).
        public var defaultSpeedMps: Double = 1.4
        /// The speed of a departure or arrival is the median reported speed (≥ 0.5 m/s) of the kept fixes this many
        /// seconds after (before) the fix next to the stay, not that fix's alone: the first fix after an iOS pause or
        /// a dead phone is often at a traffic light (0–1 m/s in a car that then drives at 14 m/s).
        public var speedWindowS: Double = 120
        /// … but never below this (m/s; 0 = no floor).
        public var travelMinSpeedMps: Double = 1.4
        /// A stay followed by a silence this long (seconds) whose first fix the motion coprocessor already calls
        /// moving (`walking`, `running`, `cycling`, `driving`) in a 1-Hz track ends that fix's distance from the
        /// stay before it, at the speed above (the app was killed or the phone dead while the person was still
        /// there: the stays pass leaves silences over `stays.extend_max_s` unclaimed).
        public var resumeGapS: Double = 600
        /// A trip with no fix at all (a dead phone, a killed app) between a stay and an iOS visit elsewhere takes the
        /// time to cover the distance at the median straight-line speed of this device's observed trips of similar
        /// length (half to twice, at least three of them), else this speed (m/s).
        public var unseenSpeedMps: Double = 5
        /// … except that a trip no fix saw shorter than this (metres, straight line) is taken as walked
        /// (`default_speed_mps`): most short trips are.
        public var unseenWalkMaxM: Double = 1500
        /// An Overland resume (`exited_pause_region`) with no pause before it in the archive belongs to the last
        /// still fix before it when it lies at most this far away (metres): the largest "resume with geofence"
        /// radius (2 km) plus the exit's lag.
        public var pauseReachM: Double = 2500
        /// An Overland pause with no resume before the next kept fix further than this (metres) from where it began
        /// ended at that fix, when the app records again from there (the next fix within a minute; 0 = off): the phone
        /// died or the app was killed while paused, and the app came back elsewhere without writing
        /// `resumed_location_updates`. The departure is that fix less the travel to it, as for a resume. (A lone fix
        /// after the silence, an hourly sample or the archive's last, leaves the pause as it was: 13 hours of
        /// "still at work" before it cost more than they gained on the development seeds.)
        public var pauseExitM: Double = 150
        /// An iOS visit whose arrival falls in a silence of at least this long (seconds) inside a stay at its place
        /// splits the stay there (0 = off): iOS saw the device arrive, so it was away before (a killed app or a dead
        /// phone hid the trips out and back).
        public var arrivalGapS: Double = 600
        /// The device's own pace (trips no fix saw, arrivals a silence hid) is learnt from the trips the fixes saw whole
        /// between the stays pass's stays, then (2) again between the amended stays, and the amendments are redone with
        /// it: a trip seen whole to a place whose stay only the evidence made (an iOS visit or a pause over a few fixes,
        /// too short for the stays pass) is this person's pace between those two places (1 = the first only).
        public var paceRounds: Double = 2
        /// The departure and arrival of a trip seen by few fixes come from the person's pace (1 = on, 0 = off;
        /// ``sparseTripEdges(_:_:keepFirst:speed:_:)``) …
        public var edgePace: Double = 1
        /// … when the silence between the last fix at the origin and the first moving fix (likewise at the
        /// destination) lasts at least this long (seconds).
        public var edgeMinS: Double = 120

        public init() {}

        public static var keys: Keys { [
            "match_m": \.matchM, "leave_lag_s": \.leaveLagS, "enter_lag_s": \.enterLagS, "min_stay_s": \.minStayS,
            "still_gap_s": \.stillGapS, "lone_stay_s": \.loneStayS, "lone_isolation_s": \.loneIsolationS, "lone_max_s": \.loneMaxS, "outlier_s": \.outlierS, "sparse_interval_s": \.sparseIntervalS, "settle_lag_s": \.settleLagS, "cluster_m": \.clusterM, "moving_mps": \.movingMps, "default_speed_mps": \.defaultSpeedMps,
            "speed_window_s": \.speedWindowS, "travel_min_speed_mps": \.travelMinSpeedMps, "resume_gap_s": \.resumeGapS, "unseen_speed_mps": \.unseenSpeedMps, "unseen_walk_max_m": \.unseenWalkMaxM, "pause_reach_m": \.pauseReachM, "pause_exit_m": \.pauseExitM, "arrival_gap_s": \.arrivalGapS, "pace_rounds": \.paceRounds,
            "edge_pace": \.edgePace, "edge_min_s": \.edgeMinS,
        ] }

        /// Valid values (docs/PASSES.md, "Valid ranges"): speeds the pass divides distances by are above 0; the
        /// speed window it scans around each fix is at most an hour; `pace_rounds` is a small whole number of rounds.
        public static var ranges: Ranges { [
            "match_m": .distanceOrOff, "leave_lag_s": .duration, "enter_lag_s": .duration, "min_stay_s": .duration,
            "still_gap_s": .duration, "lone_stay_s": .duration, "lone_isolation_s": .duration, "lone_max_s": .duration,
            "outlier_s": .duration, "sparse_interval_s": .duration, "settle_lag_s": .duration, "cluster_m": .distanceOrOff,
            "moving_mps": .speed, "default_speed_mps": .speed, "speed_window_s": .window, "travel_min_speed_mps": .speedOrOff,
            "resume_gap_s": .duration, "unseen_speed_mps": .speed, "unseen_walk_max_m": .distanceOrOff,
            "pause_reach_m": .distanceOrOff, "pause_exit_m": .distanceOrOff, "arrival_gap_s": .duration,
            "pace_rounds": ParameterRange(1, 10, whole: true),  // each round reruns the amendments
            "edge_pace": ParameterRange(0, 1, whole: true), "edge_min_s": .duration,
        ] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

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
    public struct Evidence: Sendable {
        public var presences: [Presence] = []
        /// Point index → the centre of a region the fix says it is in (`inregions`).
        public var inRegion: [Int: (lat: Double, lon: Double)] = [:]
        /// Spans outside a region between a `leave` and the next `enter` (a stay across one is two stays).
        public var absences: [Presence] = []
        /// Point indices of the fixes published with a region event (`t:"c"`, at the event's time): taken while
        /// crossing the boundary, so never a stay of their own.
        public var crossings: Set<Int> = []
        public init() {}
    }

    // MARK: Reading the evidence

    /// The value of `"key":` in a flat JSON object's text (a string's contents or a number's text).
    static func field(_ raw: [UInt8], _ key: String) -> String? {
        let needle = Array(("\"" + key + "\":").utf8)
        guard raw.count >= needle.count else { return nil }
        var i = 0
        while i + needle.count <= raw.count {
            if raw[i] == needle[0] && Array(raw[i..<(i + needle.count)]) == needle {
                var j = i + needle.count
                while j < raw.count && raw[j] == UInt8(ascii: " ") { j += 1 }
                guard j < raw.count else { return nil }
                if raw[j] == UInt8(ascii: "\"") {
                    var e = j + 1
                    while e < raw.count && raw[e] != UInt8(ascii: "\"") { e += raw[e] == UInt8(ascii: "\\") ? 2 : 1 }
                    return String(decoding: raw[(j + 1)..<min(e, raw.count)], as: UTF8.self)
                }
                var e = j
                while e < raw.count && raw[e] != UInt8(ascii: ",") && raw[e] != UInt8(ascii: "}") && raw[e] != UInt8(ascii: "]") { e += 1 }
                return String(decoding: raw[j..<e], as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    /// The names in `"inregions":["A","B"]`.
    static func regionNames(_ extra: [UInt8]) -> [String] {
        let needle = Array("\"inregions\":[".utf8)
        var i = 0
        while i + needle.count <= extra.count {
            if Array(extra[i..<(i + needle.count)]) == needle {
                var names: [String] = []
                var j = i + needle.count
                while j < extra.count && extra[j] != UInt8(ascii: "]") {
                    if extra[j] == UInt8(ascii: "\"") {
                        var e = j + 1
                        while e < extra.count && extra[e] != UInt8(ascii: "\"") { e += extra[e] == UInt8(ascii: "\\") ? 2 : 1 }
                        names.append(String(decoding: extra[(j + 1)..<min(e, extra.count)], as: UTF8.self))
                        j = e + 1
                    } else {
                        j += 1
                    }
                }
                return names
            }
            i += 1
        }
        return []
    }

    /// Reads the device's app events and `inregions` fixes around the span into presence intervals.
    // Long by design: one scan of the device's app events and region fixes into the kinds of evidence (absences, presences, pauses, fixes in regions).
    static func load(_ w: DeviceWork, store: Store, _ p: Parameters) throws -> Evidence {
        var evidence = Evidence()
        let margin: Int64 = 86_400_000
        let from = w.fromMs == Int64.min ? Int64.min : w.fromMs - margin
        let to = w.toMs == Int64.max ? Int64.max : w.toMs + margin
        let q = try store.db.prepare(
            """
            SELECT kind, time_ms, lat, lon, start_ms, end_ms, raw FROM app_events
            WHERE device_id = ? AND (kind = 'waypoint' OR (time_ms >= ? AND time_ms < ? AND kind IN
              ('transition', 'visit', 'paused_location_updates', 'resumed_location_updates', 'exited_pause_region')))
              -- Google's visits are its own reading of the days, placed by the timeline pass where the fixes made nothing.
              AND import_id NOT IN (SELECT id FROM imports WHERE format LIKE '%google/%')
            ORDER BY time_ms, id
            """)
        q.reset()
        q.bindInt(w.deviceID, at: 1)
        q.bindInt(from, at: 2)
        q.bindInt(to, at: 3)
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
        while try q.step() {
            let kind = q.text(0) ?? ""
            let time = q.int64(1)
            let raw = Array((q.text(6) ?? "").utf8)
            switch kind {
            case "waypoint":
                if let desc = field(raw, "desc"), !q.isNull(2), !q.isNull(3) {
                    regions[desc] = (q.double(2), q.double(3), field(raw, "rad").flatMap { Double($0) } ?? 100)
                }
            case "transition":
                guard let event = field(raw, "event"), event == "enter" || event == "leave", let desc = field(raw, "desc") else { continue }
                transitions.append((time, event == "enter", desc, q.isNull(2) ? .nan : q.double(2), q.isNull(3) ? .nan : q.double(3)))
            case "visit":
                guard !q.isNull(2), !q.isNull(3), !q.isNull(4) else { continue }
                let end = q.isNull(5) ? Int64.max : q.int64(5)
                evidence.presences.append(Presence(
                    startMs: q.int64(4), endMs: end, lat: q.double(2), lon: q.double(3), reachM: p.matchM, region: nil, source: "visit",
                    recordedMs: time))
            case "paused_location_updates":
                // A pause with no resume before this one: ended by a fix far from it, if any (else dropped).
                if let open = pauseAt { _ = exited(open, before: time) }
                pauseAt = time
            default:  // resumed / exited pause region (Overland writes both at once)
                if let start = pauseAt {
                    if !exited(start, before: time) {
                        pauses.append((start, time, q.isNull(2) ? nil : q.double(2), q.isNull(3) ? nil : q.double(3)))
                    }
                    pauseAt = nil
                } else if lastResume != time, !q.isNull(2), !q.isNull(3) {
                    // The pause itself is not in the archive (it began before the first file, its batch was lost, or
                    // the day began paused): it began at the last fix before the silence (``pauseStart``).
                    pauses.append((nil, time, q.double(2), q.double(3)))
                }
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
            if i < w.count && abs(w.time[i] - t.time) <= 2000 { evidence.crossings.insert(i) }
        }
        // Region presence: enter → leave of one region.
        var entered: [String: (Int64, Double, Double)] = [:]
        for t in transitions {
            let region = regions[t.region]
            if t.enter {
                entered[t.region] = (t.time, t.lat, t.lon)
                continue
            }
            let start = entered.removeValue(forKey: t.region)
            let centre = region.map { ($0.lat, $0.lon) } ?? (t.lat, t.lon)
            guard !centre.0.isNaN else { continue }
            let reach = (region?.radius ?? 150) + p.matchM
            evidence.presences.append(Presence(
                startMs: start.map { $0.0 - Int64(p.enterLagS * 1000) } ?? Int64.min, endMs: t.time - Int64(p.leaveLagS * 1000),
                lat: centre.0, lon: centre.1, reachM: reach, region: t.region, source: "region"))
        }
        for (name, start) in entered {
            let region = regions[name]
            let centre = region.map { ($0.lat, $0.lon) } ?? (start.1, start.2)
            guard !centre.0.isNaN else { continue }
            evidence.presences.append(Presence(
                startMs: start.0 - Int64(p.enterLagS * 1000), endMs: Int64.max, lat: centre.0, lon: centre.1,
                reachM: (region?.radius ?? 150) + p.matchM, region: name, source: "region"))
        }
        // Pauses: at the last kept fix before the pause; departure = resume less the walk out at the next fix's speed.
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
            // Back over the still fixes near it to the arrival (the fixes before the pause), for the place's centre.
            var k = i, sumLat = 0.0, sumLon = 0.0, n = 0.0
            while k >= 0 {
                if w.flags[k] == 0 {
                    let far = Geo.distance(w.lat[k], w.lon[k], w.lat[i], w.lon[i]) > p.matchM && !outlier(w, k, w.lat[i], w.lon[i], p)
                    if far || (!w.speed[k].isNaN && w.speed[k] >= p.movingMps) { break }
                    sumLat += w.lat[k]
                    sumLon += w.lon[k]
                    n += 1
                }
                if k > 0 && w.time[k] - w.time[k - 1] > 3_600_000 { break }
                k -= 1
            }
            let arrival = w.time[min(i, k + 1)]
            evidence.presences.append(Presence(
                startMs: arrival, endMs: max(w.time[i], end), lat: n > 0 ? sumLat / n : w.lat[i], lon: n > 0 ? sumLon / n : w.lon[i],
                reachM: p.matchM, region: nil, source: "pause"))
        }
        evidence.presences.sort { $0.startMs != $1.startMs ? $0.startMs < $1.startMs : $0.endMs < $1.endMs }
        // Fixes that say which region they are in.
        if !regions.isEmpty {
            // The device's key range of `points_hot`; `extra` lives in the cold JSON (docs/SCHEMA.md).
            let r = try store.db.prepare(
                "SELECT key, json_extract(cold, '$.extra') FROM points_hot WHERE key BETWEEN ? AND ? AND cold LIKE '%inregions%'")
            let keys = PointKey.range(device: w.deviceID, fromMs: w.fromMs, untilMs: w.toMs)
            r.reset()
            r.bindInt(keys.lower, at: 1)
            r.bindInt(keys.upper, at: 2)
            while try r.step() {
                guard (r.text(1) ?? "").contains("\"inregions\":[\"") else { continue }
                let i = lowerBound(w.time, PointKey.time(r.int64(0)))
                guard i < w.count, w.time[i] == PointKey.time(r.int64(0)) else { continue }
                for name in regionNames(Array((r.text(1) ?? "").utf8)) {
                    if let region = regions[name] { evidence.inRegion[i] = (region.lat, region.lon); break }
                }
            }
        }
        return evidence
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

    // MARK: Applying it

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

    /// The stays amended by the evidence (the previous window's stay, when there is one, is left as it is), in
    /// `pace_rounds` rounds: each learns the device's pace from the stays of the one before.
    public static func apply(_ w: DeviceWork, stays input: [StayRecord], evidence: Evidence, _ p: Parameters) -> [StayRecord] {
        var observed = observedTrips(w, input, p)
        var amended = amend(w, stays: input, evidence: evidence, observed: observed, p)
        for _ in 1..<max(1, Int(p.paceRounds)) {
            let again = observedTrips(w, amended, p)
            // The same trips seen whole: the same pace, the same amendments (archives without app events).
            if again.count == observed.count && zip(again, observed).allSatisfy({ $0.speed == $1.speed && $0.distance == $1.distance }) { break }
            observed = again
            amended = amend(w, stays: input, evidence: evidence, observed: observed, p)
        }
        return amended
    }

    /// The stays amended by the evidence, with the device's pace from the trips `observed` (``observedTrips(_:_:_:)``).
    // Long by design: the amendments run in order on one array of stays and share the local helpers (distance, reindex, firstFar) that close over the evidence.
    static func amend(_ w: DeviceWork, stays input: [StayRecord], evidence: Evidence,
                      observed: [(aLat: Double, aLon: Double, bLat: Double, bLon: Double, distance: Double, speed: Double)], _ p: Parameters) -> [StayRecord] {
        let keepFirst = w.previousStay != nil && !input.isEmpty ? 1 : 0
        var stays = input
        let processFrom = w.processFromMs
        func kept(_ i: Int) -> Bool { w.flags[i] == 0 }
        /// Distance of fix `i` from a position; a fix inside the named region counts as at its centre.
        func distance(_ i: Int, _ lat: Double, _ lon: Double, region: String?) -> Double {
            if region != nil, let c = evidence.inRegion[i], Geo.distance(c.lat, c.lon, lat, lon) < 1 { return 0 }
            let d = Geo.distance(w.lat[i], w.lon[i], lat, lon)
            if d > p.matchM && outlier(w, i, lat, lon, p) { return 0 }
            return d
        }
        /// The device's own straight-line speed between two positions (``observedTrips(_:_:_:)``): over the seen
        /// trips between the same two places (either way, ends within `match_m`), else over those of about the same
        /// length (half to twice, at least three), else `unseen_speed_mps`.
        func typicalSpeed(_ aLat: Double, _ aLon: Double, _ bLat: Double, _ bLon: Double) -> Double {
            func near(_ lat: Double, _ lon: Double, _ qLat: Double, _ qLon: Double) -> Bool { Geo.distance(lat, lon, qLat, qLon) <= p.matchM }
            let same = observed.filter { o in
                (near(o.aLat, o.aLon, aLat, aLon) && near(o.bLat, o.bLon, bLat, bLon)) || (near(o.aLat, o.aLon, bLat, bLon) && near(o.bLat, o.bLon, aLat, aLon))
            }.map(\.speed).sorted()
            if !same.isEmpty { return same[same.count / 2] }
            let d = Geo.distance(aLat, aLon, bLat, bLon)
            let similar = observed.filter { $0.distance >= d / 2 && $0.distance <= d * 2 }.map(\.speed).sorted()
            if similar.count >= 3 { return similar[similar.count / 2] }
            return d < p.unseenWalkMaxM ? p.defaultSpeedMps : p.unseenSpeedMps
        }
        func reindex(_ s: inout StayRecord) {
            s.first = lowerBound(w.time, s.startMs)
            s.last = max(s.first, lowerBound(w.time, s.endMs + 1) - 1)
            if s.first >= w.count { s.first = w.count - 1; s.last = w.count - 1 }
            var n = 0
            if s.first <= s.last { for i in s.first...s.last where kept(i) { n += 1 } }
            s.points = max(n, 1)
        }
        /// An iOS arrival in a silence inside a stay at the place (`arrival_gap_s`): the stay ends at its last fix before
        /// the silence and begins again at the arrival.
        func splitAtArrival(_ e: Presence) {
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
            reindex(&a)
            reindex(&b)
            stays.replaceSubrange(k...k, with: [a, b])
        }
        // A stay across a leave → enter of its region is two stays with a trip (and maybe more) in between.
        for e in evidence.absences where e.endMs > processFrom {
            guard let k = stays.indices.first(where: { k in
                k >= keepFirst && stays[k].startMs < e.startMs && stays[k].endMs > e.endMs
                    && Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM
            }) else { continue }
            var a = stays[k], b = stays[k]
            a.endMs = e.startMs
            b.startMs = e.endMs
            reindex(&a)
            reindex(&b)
            let parts = [a, b].filter { $0.endMs - $0.startMs >= Int64(p.minStayS * 1000) }
            stays.replaceSubrange(k...k, with: parts)
        }
        for e in evidence.presences {
            guard e.endMs > processFrom else { continue }
            if e.source == "visit" { splitAtArrival(e) }
            // Stays of this presence (an interval open at one end: only the stay next to its known end).
            var members = stays.indices.filter { k in
                k >= keepFirst && stays[k].startMs <= e.endMs && stays[k].endMs >= e.startMs
                    && Geo.distance(stays[k].lat, stays[k].lon, e.lat, e.lon) <= e.reachM
            }
            let openStart = e.startMs == Int64.min
            if e.endMs == Int64.max, let recorded = e.recordedMs { members = members.filter { stays[$0].startMs <= recorded } }
            if e.endMs == Int64.max, let k = members.first { members = [k] }
            // The first kept fix further away after a time (stays of one presence join only when there is none).
            func firstFar(after t: Int64) -> Int64 {
                var i = lowerBound(w.time, t + 1)
                while i < w.count {
                    if kept(i) && distance(i, e.lat, e.lon, region: e.region) > e.reachM { return w.time[i] }
                    if w.time[i] > e.endMs { break }
                    i += 1
                }
                return Int64.max
            }
            /// The kept fix next to a stay (before its start, or after its end), skipping fixes the evidence puts at
            /// the place (`inregions`): the stay may reach no further than that fix less the time to get there from
            /// the place at the fix's speed (else `default_speed_mps`).
            /// (Never short of a fix the evidence puts at the place: the person was there then.)
            func bound(_ t: Int64, after: Bool, _ lat: Double, _ lon: Double) -> Int64 {
                var i = after ? lowerBound(w.time, t + 1) : lowerBound(w.time, t) - 1
                var there: Int64? = nil
                while i >= 0 && i < w.count {
                    if kept(i) && !(e.region != nil && distance(i, e.lat, e.lon, region: e.region) == 0) {
                        let v = travelSpeed(w, i, after: after, p)
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
            if openStart, var k = members.last {
                // Open at its start (a leave with no enter before it): the stays before the leave, back as far as
                // nothing in between was further away.
                var run = [k]
                while let prev = members.last(where: { $0 < k }), prev == k - 1, firstFar(after: stays[prev].endMs) >= stays[k].startMs {
                    run.insert(prev, at: 0)
                    k = prev
                }
                members = run
            }
            if let a = members.first {
                var s = stays[a]
                // Join the presence's stays when nothing in between was further away.
                var joinTo = a
                for k in members.dropFirst() {
                    if firstFar(after: stays[joinTo].endMs) < stays[k].startMs { break }
                    joinTo = k
                }
                if joinTo > a {
                    let t = stays[joinTo]
                    let wa = Double(s.endMs - s.startMs) + 1, wb = Double(t.endMs - t.startMs) + 1
                    s.lat = (s.lat * wa + t.lat * wb) / (wa + wb)
                    s.lon = (s.lon * wa + t.lon * wb) / (wa + wb)
                    s.radiusM = max(s.radiusM, t.radiusM)
                    s.gapS = max(s.gapS, t.gapS)
                    s.endMs = t.endMs
                }
                let earliest = max(e.startMs, bound(s.startMs, after: false, s.lat, s.lon), a > 0 ? stays[a - 1].endMs + 1000 : Int64.min)
                if earliest < s.startMs && earliest >= processFrom && earliest > Int64.min / 2 { s.startMs = earliest }
                let latest = min(e.endMs, bound(s.endMs, after: true, s.lat, s.lon), joinTo + 1 < stays.count ? stays[joinTo + 1].startMs - 1000 : Int64.max)
                if latest > s.endMs && latest < Int64.max / 2 { s.endMs = latest }
                reindex(&s)
                stays.replaceSubrange(a...joinTo, with: [s])
            } else if e.startMs > Int64.min && e.endMs < Int64.max && e.startMs >= processFrom {
                // No stay yet: one of its own from the still fixes near it, stretched as far as the fixes around
                // them allow (travel-aware, as above).
                var lo = lowerBound(w.time, e.startMs), hi = lowerBound(w.time, e.endMs + 1) - 1
                func still(_ i: Int) -> Bool {
                    kept(i) && distance(i, e.lat, e.lon, region: e.region) <= e.reachM && (w.speed[i].isNaN || w.speed[i] < p.movingMps)
                }
                while lo <= hi && !still(lo) { lo += 1 }
                while hi >= lo && !still(hi) { hi -= 1 }
                guard lo <= hi else {
                    // No fix at all while the app says the phone was there (a dead phone, then a `visit` record):
                    // a stay without fixes, and the stays around it no longer claim that time.
                    // (iOS reports departures minutes late: the stay ends where the first fix after its start says.)
                    let endMs = min(e.endMs, bound(e.startMs, after: true, e.lat, e.lon))
                    let a = lowerBound(w.time, e.startMs), b = lowerBound(w.time, endMs + 1)
                    guard e.source == "visit", a == b, a >= 1, a < w.count, endMs - e.startMs >= Int64(p.minStayS * 1000) else { continue }
                    let k = stays.firstIndex { $0.startMs > e.startMs } ?? stays.count
                    if k < keepFirst { continue }
                    if k > 0 && stays[k - 1].last >= a { continue }
                    if k < stays.count && stays[k].first < a { continue }
                    // The trips to and from it hold no fix either: each takes the time to cover its distance.
                    func unseen(_ s: StayRecord) -> Int64 {
                        max(1000, Int64(Geo.distance(s.lat, s.lon, e.lat, e.lon) / typicalSpeed(s.lat, s.lon, e.lat, e.lon) * 1000))
                    }
                    if k > 0 {
                        let end = min(stays[k - 1].endMs, max(w.time[stays[k - 1].last], e.startMs - unseen(stays[k - 1])))
                        // The visit an incremental rebuild kept is never changed: the stay goes in after it only when
                        // it already ends in time (as it does when an earlier rebuild saw this record).
                        if k - 1 < keepFirst {
                            if end != stays[k - 1].endMs { continue }
                        } else {
                            stays[k - 1].endMs = end
                        }
                    }
                    if k < stays.count { stays[k].startMs = max(stays[k].startMs, min(w.time[stays[k].first], endMs + unseen(stays[k]))) }
                    // Its point indices are those of the fix before it (the trips pass takes the points strictly between
                    // two stays, so the fixes after it start the next trip).
                    let s = StayRecord(first: a - 1, last: a - 1, startMs: e.startMs, endMs: endMs, lat: e.lat, lon: e.lon, radiusM: 0, points: 0, gapS: (endMs - e.startMs) / 1000)
                    stays.insert(s, at: k)
                    continue
                }
                if (lo...hi).contains(where: { kept($0) && !still($0) }) { continue }
                let start = max(e.startMs, bound(w.time[lo], after: false, e.lat, e.lon))
                let end = min(e.endMs, bound(w.time[hi], after: true, e.lat, e.lon))
                guard end - start >= Int64(p.minStayS * 1000) else { continue }
                let k = stays.firstIndex { $0.startMs > start } ?? stays.count
                // A stay elsewhere that reaches into the interval only with its silent edge (no fix of its own there:
                // a departure or arrival estimated across a silence) gives way: the app says the phone was here.
                // It keeps its own fixes and the travel time between the two places.
                func travel(_ t: StayRecord) -> Int64 {
                    max(1000, Int64(Geo.distance(t.lat, t.lon, e.lat, e.lon) / typicalSpeed(t.lat, t.lon, e.lat, e.lon) * 1000))
                }
                let far = { (t: StayRecord) in Geo.distance(t.lat, t.lon, e.lat, e.lon) > e.reachM }
                if k > 0, k - 1 >= keepFirst, stays[k - 1].endMs >= start, far(stays[k - 1]), w.time[stays[k - 1].last] < start - travel(stays[k - 1]) {
                    stays[k - 1].endMs = start - travel(stays[k - 1])
                }
                if k < stays.count, stays[k].startMs <= end, far(stays[k]), w.time[stays[k].first] > end + travel(stays[k]) {
                    stays[k].startMs = end + travel(stays[k])
                }
                if k > 0 && stays[k - 1].endMs >= start { continue }
                if k < stays.count && stays[k].startMs <= end { continue }
                var s = StayRecord(first: lo, last: hi, startMs: start, endMs: end, lat: e.lat, lon: e.lon, radiusM: 0, points: 0, gapS: 0)
                reindex(&s)
                stays.insert(s, at: k)
            }
        }
        stays = movingResumes(w, stays, keepFirst: keepFirst, speed: typicalSpeed, p)
        stays = silentArrivals(w, stays, keepFirst: keepFirst, speed: typicalSpeed, p)
        stays = loneFixStays(w, stays, keepFirst: keepFirst, crossings: evidence.crossings, p)
        stays = sparseEdges(w, stays, keepFirst: keepFirst, p)
        stays = sparseTripEdges(w, stays, keepFirst: keepFirst, speed: typicalSpeed, p)
        return absentStops(w, stays, absences: evidence.absences, keepFirst: keepFirst, speed: typicalSpeed, p)
    }

    /// A trip whose 1-Hz fixes stop while it is under way (a reported speed ≥ `moving_mps`: the phone died, the app was
    /// killed) and resume after a silence of at least `resume_gap_s` with a still fix (slower than `moving_mps`) more
    /// than `cluster_m` away that starts a 1-Hz track: the traveller reached that fix at the device's own pace and stayed
    /// there until it, when at least `lone_stay_s` of the silence is left over (the stop the silence hid at its end; the
    /// trips pass carries the trip through the travelled part, `trips.travel_min_mps`). Fixes without a reported speed
    /// (GPX, GeoLife) never count as under way, so those archives are left as they are.
    static func silentArrivals(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double) -> Double, _ p: Parameters
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
            let arrive = w.time[a] + max(1000, Int64(d / speed(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) * 1000))
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
    /// kept fixes, none more than 5 min from the next or from the stays. The device's own pace, for trips no fix saw.
    static func observedTrips(_ w: DeviceWork, _ stays: [StayRecord], _ p: Parameters)
        -> [(aLat: Double, aLon: Double, bLat: Double, bLon: Double, distance: Double, speed: Double)] {
        var out: [(aLat: Double, aLon: Double, bLat: Double, bLon: Double, distance: Double, speed: Double)] = []
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
            if d > 100 && dFix > 100 && dt > 0 { out.append((a.lat, a.lon, b.lat, b.lon, d, dFix / dt)) }
        }
        return out
    }

    /// Stays followed by a long silence whose first fix is already moving by the motion states (see
    /// `resume_gap_s`): the stay lasts until that fix less the time to reach it at ``travelSpeed(_:_:after:_:)``.
    /// Only where the first fixes after the silence are a 1-Hz track (within 5 s of each other) and carry a motion
    /// state: archives without motion states (GPX, GeoLife, OwnTracks) are left as they are. Then the stops such a
    /// silence hid (``silencedStops(_:_:keepFirst:speed:_:)``).
    static func movingResumes(
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double) -> Double, _ p: Parameters
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
        _ w: DeviceWork, _ input: [StayRecord], keepFirst: Int, speed: (Double, Double, Double, Double) -> Double, _ p: Parameters
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
                sumLon += w.lon[j]
                n += 1
                j += 1
            }
            defer { i = e + 1 }
            guard j < w.count, w.time[j] - w.time[e] >= gapMs, k == 0 || stays[k - 1].endMs < w.time[i] else { continue }
            let lat = sumLat / n, lon = sumLon / n
            var leave: Int64
            if k < stays.count && j >= stays[k].first {
                // The next stay: reached at the device's own pace.
                let d = Geo.distance(lat, lon, stays[k].lat, stays[k].lon)
                guard d > p.clusterM else { continue }
                leave = stays[k].startMs - max(1000, Int64(d / speed(lat, lon, stays[k].lat, stays[k].lon) * 1000))
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
                for q in k...e { sumLat += w.lat[pts[q]]; sumLon += w.lon[pts[q]] }
                let n = Double(e - k + 1)
                let acc = w.accuracy[first]
                out.append(StayRecord(
                    first: first, last: last, startMs: start, endMs: stop, lat: sumLat / n, lon: sumLon / n, radiusM: acc.isNaN ? 0 : acc,
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

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        try work.ensureFlags(store: store)
        let stays: [StayRecord]
        if let s = work.stays { stays = s } else { stays = try StaysPass.load(work, store: store) }
        let evidence = try Self.load(work, store: store, parameters)
        var amended = Self.apply(work, stays: stays, evidence: evidence, parameters).filter { $0.startMs < work.keepFromMs || $0 == work.previousStay }
        let keepFirst = work.previousStay != nil && !stays.isEmpty ? 1 : 0
        amended = Self.possible(amended, keepFirst: keepFirst)
        // Replace this span's stays with the amended ones.
        let tables = RebuildTables(store)
        for s in stays[keepFirst...] { try tables.deleteStay(id: s.id) }
        var out = amended
        for k in out.indices where k >= keepFirst {
            out[k].id = try tables.insert(out[k].row(device: work.deviceID))
        }
        // Point ranges from the times, as the next rebuild reads them back (``StayRecord/indexed(in:)``).
        for k in out.indices where k >= keepFirst { out[k] = out[k].indexed(in: work.time) }
        work.stays = out
        let changed = zip(stays, out).filter { $0.0.startMs != $0.1.startMs || $0.0.endMs != $0.1.endMs }.count + abs(stays.count - out.count)
        return [("presences", String(evidence.presences.count)), ("stays", String(out.count - keepFirst)), ("changed", String(changed))]
    }
}
