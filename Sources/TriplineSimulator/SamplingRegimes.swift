#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

/// How a simulation's phones sample (`tripline simulate --profile`, docs/SIMULATOR.md "Sampling profiles").
public enum SimulationProfile: String, Sendable, CaseIterable {
    /// The original model: 1 Hz (or `movingIntervalS`) while moving; even people Overland, odd OwnTracks. Kept
    /// byte for byte so `SampleData/` and the tests built on it stay as they are.
    case classic
    /// Every person carries OwnTracks on iOS; each day is in significant-changes mode or move mode (half each).
    case sparseOwnTracks = "sparse-owntracks"
    /// Every person carries Overland; each day with iOS's automatic pauses (75 %) or "discard stationary" (25 %).
    case denseOverland = "dense-overland"
    /// Even people Overland, odd people OwnTracks, each with the regimes of its app (OwnTracks 50 % significant).
    case mixed
    /// Every person carries a GPS logger or a GPX tracking app (`GPSLogger.swift`): a fix every 1–15 s while it
    /// logs, no reported speed, accuracy or motion, no app events; logged by hand trip by trip on most days (the stays
    /// are the silences between tracks), left on all day on the others. Written as GPX files.
    case logger
}

/// How one device samples on one day.
public enum SamplingRegime: String, Sendable, CaseIterable {
    /// OwnTracks `m=1`: while moving a fix once it is 400–1200 m from the last one and at least 60 s after it, or
    /// 4–10 min after it (only while moving); while still one fix every 25–75 min after the last one. Region
    /// enter/leave `transition` events at home and work.
    case ownTracksSignificant = "owntracks-significant"
    /// OwnTracks `m=2`: a fix every 200 m (`locatorDisplacement`) or 180 s (`locatorInterval`, `t:"t"`).
    case ownTracksMove = "owntracks-move"
    /// Overland with "pause updates automatically": fixes every 5–15 s after arriving, paused 8–15 min after
    /// stopping (`paused_location_updates`), resumed only 100–250 m away (`exited_pause_region`,
    /// `resumed_location_updates`); 1 Hz while moving, stops included; iOS `visit` records.
    case overlandPauses = "overland-pauses"
    /// Overland with "discard stationary" (the classic model): one fix an hour while still; `visit` records.
    case overlandDiscardStationary = "overland-discard-stationary"
    /// A GPS logger switched on by hand for each trip and off after it (`GPSLogger.swift`): tracks only, nothing
    /// while still; late starts, cold-start jumps, forgotten stops and forgotten starts.
    case loggerTracks = "logger-tracks"
    /// A GPS logger left on all day: still fixes through a 10–25 m distance filter, indoors often none.
    case loggerAllDay = "logger-all-day"
}

extension Simulator {
    /// A day's timeline for the regime samplers.
    enum RegimeSegment {
        case stay(place: Int, start: Double, end: Double)
        case trip(samples: [Sample], legs: [PlannedLeg], from: Int, to: Int)
    }

    /// The sampling regime of `person`'s device on `day` (drawn from its own generator, so it never changes the
    /// day's plan).
    public func regime(person: Int, day: Int) -> SamplingRegime {
        var rng = SplitMix64.derived(config.seed, UInt64(person), UInt64(day), 0x5E61)
        switch app(person: person) {
        case .owntracks: return rng.chance(0.5) ? .ownTracksSignificant : .ownTracksMove
        case .overland: return rng.chance(0.75) ? .overlandPauses : .overlandDiscardStationary
        case .logger: return rng.chance(0.7) ? .loggerTracks : .loggerAllDay
        }
    }

    /// The regions an OwnTracks phone monitors: home (100 m) and work (150 m), centred on the true places.
    func monitoredRegions(_ w: PersonWorld) -> [(name: String, place: Int, radius: Double)] {
        [("Home", w.home, 100), ("Work", w.work, 150)]
    }

    /// The fixes and app events of one day under the device's regime, with the damage of real phones: a battery
    /// that dies (8 % of days, 1.5–6 h of nothing), cell fixes kilometres off, wifi fixes hundreds of metres off at
    /// home and work, 20–80 m of indoor drift; plus the night and work gaps of the classic model (`blackouts`).
    func regimeFixes(person: Int, day: Int, world w: PersonWorld, segments: [RegimeSegment], blackouts: [(Double, Double)], out: inout DayOutput) {
        let regime = self.regime(person: person, day: day)
        var rng = SplitMix64.derived(config.seed, UInt64(person), UInt64(day), 0x5E62)
        var dark = blackouts
        guard case .stay(_, let dayStart, _)? = segments.first, case .stay(_, _, let dayEnd)? = segments.last else { return }
        if config.gaps && rng.chance(0.08) {
            let a = dayStart + rng.uniform(7, 18) * 3600
            let b = a + rng.uniform(1.5, 6) * 3600
            dark.append((a, b))
            out.gaps.append(TruthGap(device: deviceName(person: person), startMs: Int64(a * 1000), endMs: Int64(b * 1000), kind: "dead"))
        }
        // The classic night and work gaps are in the truth when they lie inside one stay; here they silence trips
        // too (the app killed at 10–11 h while the person walks to lunch): those are in the truth as `killed`.
        for g in blackouts where !segments.contains(where: { seg in
            if case .stay(_, let start, let end) = seg { return g.0 >= start + 60 && g.1 <= end - 60 }
            return false
        }) {
            out.gaps.append(TruthGap(device: deviceName(person: person), startMs: Int64(g.0 * 1000), endMs: Int64(g.1 * 1000), kind: "killed"))
        }
        for k in out.days.indices { out.days[k].regime = regime.rawValue }
        var maker = RegimeFixMaker(sim: self, world: w, person: person, day: day, regime: regime, rng: rng, dark: dark)
        // The edges of the archive: the app was started at the beginning (it records as after an arrival), and the
        // archive was taken at the end, when the phone reported where it was (so the last stay is seen to last).
        // (A GPS logger writes nothing of the kind: its archive is its tracks.)
        maker.startsArchive = day == 0 && app(person: person) != .logger
        maker.endsArchive = day == config.days - 1 && app(person: person) != .logger
        if day == 0 && app(person: person) == .owntracks { maker.waypoints(at: dayStart - 600) }
        for (k, seg) in segments.enumerated() {
            switch seg {
            case .stay(let place, let start, let end):
                maker.stay(place: place, start: start, end: end, first: k == 0, last: k == segments.count - 1)
            case .trip(let samples, let legs, _, _):
                maker.trip(samples: samples, legs: legs)
            }
        }
        let archiveEnd = maker.endsArchive ? Int64((dayEnd - 30).rounded()) * 1000 : Int64.max
        func lit(_ ms: Int64) -> Bool {
            if ms == archiveEnd { return true }  // the phone was on when the archive was taken
            let t = Double(ms) / 1000
            return !dark.contains { t >= $0.0 && t < $0.1 }
        }
        for g in maker.offGaps {
            out.gaps.append(TruthGap(device: deviceName(person: person), startMs: Int64(g.0 * 1000), endMs: Int64(g.1 * 1000), kind: "off"))
        }
        out.points = maker.points.filter { lit($0.timeMs) }
        out.events = maker.events.filter { lit($0.timeMs) }
        // A trip the app recorded needs the app running at both of its ends (nothing is recorded on a dead phone).
        out.appTrips = maker.appTrips.filter { t in !dark.contains { Double(t.endMs) / 1000 > $0.0 && Double(t.startMs) / 1000 < $0.1 } }
    }
}

/// Turns a day's true movement into the fixes and events of one sampling regime.
struct RegimeFixMaker {
    let sim: Simulator
    let world: Simulator.PersonWorld
    let person: Int
    let regime: SamplingRegime
    var rng: SplitMix64
    let dark: [(Double, Double)]
    let app: SimulatedApp
    let deviceName: String
    let regions: [(name: String, place: Int, radius: Double)]
    var points: [Point] = []
    var events: [SimulatedEvent] = []
    var appTrips: [AppTripRecord] = []
    /// 1 Hz trips and classic stays for Overland.
    var classic: FixMaker
    var battery: Double
    /// OwnTracks: the last fix (time, true position) and the next time-triggered fix.
    var lastFixT = -1e18
    var lastFixP = Simulator.XY(x: 0, y: 0)
    var timerT = Double.infinity
    /// Overland with pauses: where updates were paused (centre) and how far the person must go to resume them.
    var paused: (centre: Simulator.XY, radius: Double)? = nil
    var startsArchive = false
    var endsArchive = false
    /// Indoor drift (metres east/north of the place) and its last update.
    var indoor = IndoorDrift(dx: 0, dy: 0, lastT: -1e18)
    /// GPS loggers (`GPSLogger.swift`): the device's settings and the receiver's state.
    var logger: LoggerState
    /// GPS loggers: trips the user forgot to log (truth gaps `off`).
    var offGaps: [(Double, Double)] = []
    /// Overland and OwnTracks: multipath, outliers and fast jitter on the moving fixes (its own generator).
    var phone: PhoneNoise

    init(sim: Simulator, world: Simulator.PersonWorld, person: Int, day: Int, regime: SamplingRegime, rng: SplitMix64, dark: [(Double, Double)]) {
        self.sim = sim
        self.world = world
        self.person = person
        self.regime = regime
        self.rng = rng
        self.dark = dark
        app = sim.app(person: person)
        deviceName = sim.deviceName(person: person)
        regions = sim.monitoredRegions(world)
        classic = FixMaker(sim: sim, app: app, rng: SplitMix64.derived(sim.config.seed, UInt64(person), 0x5E63, UInt64(rng.state)), zone: sim.config.timeZone)
        phone = PhoneNoise(rng: SplitMix64.derived(sim.config.seed, UInt64(person), UInt64(day), 0x5E64))
        battery = self.rng.uniform(0.4, 1.0)
        logger = LoggerState(settings: LoggerSettings(seed: sim.config.seed, person: person))
    }

    var tid: String { "P\(person + 1)" }
    var topic: String { "owntracks/person\(person + 1)/iphone" }
    var monitoringMode: Int { regime == .ownTracksMove ? 2 : 1 }

    func ssid(_ place: Int) -> String? { world.places.first(where: { $0.id == place })?.ssid }

    func offset(_ t: Double) -> Int32? { app == .overland ? sim.config.timeZone.offset(at: Int64(t.rounded()) * 1000) : nil }

    func number(_ v: Double, _ decimals: Int) -> String { SimulationWriter.number(v, decimals: decimals) }

    /// The regions containing the true position `p`.
    func inRegions(_ p: Simulator.XY) -> [String] {
        regions.filter { (p - world.xy[$0.place]!).length < $0.radius }.map(\.name)
    }

    mutating func point(t: Double, p: Simulator.XY, accuracy: Double, speed: Double?, course: Double?, regionsAt: Simulator.XY?) -> Point {
        let ll = sim.latLon(p)
        var q = Point(
            deviceID: 0, timeMs: Int64(t.rounded()) * 1000, utcOffsetS: offset(t), lat: (ll.lat * 1e7).rounded() / 1e7,
            lon: (ll.lon * 1e7).rounded() / 1e7, altitudeM: 35 + rng.normal() * 3, speedMps: speed.map { ($0 * 100).rounded() / 100 },
            courseDeg: course, accuracyM: accuracy.rounded(), vAccuracyM: 4)
        q.batteryLevel = (battery * 100).rounded() / 100
        battery = max(0.05, battery - 0.0005)
        if app == .owntracks {
            var extra = "{\"m\":\(monitoringMode)"
            if let at = regionsAt {
                let names = inRegions(at)
                if !names.isEmpty { extra += ",\"inregions\":[" + names.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]" }
            }
            q.extra = extra + "}"
        }
        return q
    }

    // MARK: Events

    /// The regions as OwnTracks publishes them (`waypoint` messages), once at the start.
    mutating func waypoints(at t: Double) {
        for r in regions {
            let ll = sim.latLon(world.xy[r.place]!)
            let tst = Int64(t)
            let raw = "{\"_type\":\"waypoint\",\"desc\":\"\(r.name)\",\"lat\":\(number(ll.lat, 6)),\"lon\":\(number(ll.lon, 6)),\"rad\":\(Int(r.radius)),\"tid\":\"\(tid)\",\"tst\":\(tst)}"
            events.append(SimulatedEvent(kind: "waypoint", timeMs: tst * 1000, lat: (ll.lat * 1e6).rounded() / 1e6, lon: (ll.lon * 1e6).rounded() / 1e6, raw: raw))
        }
    }

    /// A region `enter`/`leave`: the `transition` message and the location published with it (`t:"c"`).
    mutating func transition(_ region: (name: String, place: Int, radius: Double), enter: Bool, t: Double, p: Simulator.XY) {
        let acc = rng.uniform(10, 65)
        let noisy = p + Simulator.XY(x: rng.normal() * acc * 0.4, y: rng.normal() * acc * 0.4)
        let ll = sim.latLon(noisy)
        let tst = Int64(t.rounded())
        let lat = (ll.lat * 1e7).rounded() / 1e7, lon = (ll.lon * 1e7).rounded() / 1e7
        let raw = "{\"_type\":\"transition\",\"acc\":\(Int(acc.rounded())),\"desc\":\"\(region.name)\",\"event\":\"\(enter ? "enter" : "leave")\",\"lat\":\(number(lat, 7)),\"lon\":\(number(lon, 7)),\"rad\":\(Int(region.radius)),\"t\":\"c\",\"tid\":\"\(tid)\",\"topic\":\"\(topic)/event\",\"tst\":\(tst),\"wtst\":\(tst - 86_400 * 30)}"
        events.append(SimulatedEvent(kind: "transition", timeMs: tst * 1000, lat: lat, lon: lon, raw: raw))
        var q = point(t: t, p: noisy, accuracy: acc, speed: nil, course: nil, regionsAt: p)
        q.trigger = "c"
        q.conn = "m"
        points.append(q)
        lastFixT = t
        lastFixP = p
    }

    /// An Overland action record (`paused_location_updates`, `exited_pause_region`, `resumed_location_updates`).
    mutating func action(_ name: String, t: Double, at p: Simulator.XY?) {
        let ms = Int64(t.rounded()) * 1000
        let time = SimulationWriter.overlandTime(ms, offset(t) ?? 0)
        var lat: Double? = nil, lon: Double? = nil
        var geometry = ""
        if let p {
            let ll = sim.latLon(p)
            lat = (ll.lat * 1e7).rounded() / 1e7
            lon = (ll.lon * 1e7).rounded() / 1e7
            geometry = ",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(lon!, 7)),\(number(lat!, 7))]}"
        }
        let raw = "{\"type\":\"Feature\"\(geometry),\"properties\":{\"action\":\"\(name)\",\"timestamp\":\"\(time)\",\"battery_state\":\"unplugged\",\"battery_level\":\(number((battery * 100).rounded() / 100, 2)),\"wifi\":\"\",\"device_id\":\"\(deviceName)\"}}"
        events.append(SimulatedEvent(kind: name, timeMs: ms, utcOffsetS: offset(t), lat: lat, lon: lon, raw: raw))
    }

    /// An iOS visit as Overland records it (arrival, departure or `null` while still there).
    mutating func visit(place: Int, arrival: Double, departure: Double?, recordedAt t: Double) {
        let c = world.xy[place]! + Simulator.XY(x: rng.normal() * 15, y: rng.normal() * 15)
        let ll = sim.latLon(c)
        let lat = (ll.lat * 1e7).rounded() / 1e7, lon = (ll.lon * 1e7).rounded() / 1e7
        func iso(_ s: Double) -> String { "\"" + SimulationWriter.overlandTime(Int64(s.rounded()) * 1000, offset(s) ?? 0) + "\"" }
        let ms = Int64(t.rounded()) * 1000
        let raw = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(lon, 7)),\(number(lat, 7))]},\"properties\":{\"action\":\"visit\",\"arrival_date\":\(iso(arrival)),\"departure_date\":\(departure.map(iso) ?? "null"),\"timestamp\":\(iso(t)),\"horizontal_accuracy\":\(Int(rng.uniform(30, 80))),\"wifi\":\"\(ssid(place) ?? "")\",\"device_id\":\"\(deviceName)\"}}"
        events.append(SimulatedEvent(
            kind: "visit", timeMs: ms, utcOffsetS: offset(t), lat: lat, lon: lon, startMs: Int64(arrival.rounded()) * 1000,
            endMs: departure.map { Int64($0.rounded()) * 1000 }, raw: raw))
    }

    // MARK: Stays

    /// Indoor drift around the place (``IndoorDrift``).
    mutating func drift(_ t: Double) -> (Simulator.XY, Double) { indoor.step(to: t, &rng) }

    /// One still fix at `place`: indoor drift, or now and then a cell fix kilometres off or a wifi fix hundreds of
    /// metres off (only where there is wifi).
    mutating func stillFix(place: Int, t: Double, cellShare: Double, wifiShare: Double) {
        let centre = world.xy[place]!
        let network = ssid(place)
        var q: Point
        if rng.chance(cellShare) {
            let a = rng.uniform(0, 2 * .pi), r = rng.uniform(500, 3000)
            q = point(t: t, p: centre + Simulator.XY(x: cos(a) * r, y: sin(a) * r), accuracy: rng.uniform(1000, 3000), speed: nil, course: nil, regionsAt: centre)
            q.altitudeM = nil
            q.vAccuracyM = nil
            q.conn = "m"
        } else if network != nil && rng.chance(wifiShare) {
            let a = rng.uniform(0, 2 * .pi), r = rng.uniform(150, 500)
            q = point(t: t, p: centre + Simulator.XY(x: cos(a) * r, y: sin(a) * r), accuracy: rng.uniform(30, 65), speed: nil, course: nil, regionsAt: centre)
            q.altitudeM = nil
            q.vAccuracyM = nil
            q.ssid = network
            q.conn = "w"
        } else {
            var (off, acc) = drift(t)
            if regime == .ownTracksSignificant && rng.chance(0.4) { acc = 65 }
            q = point(t: t, p: centre + off, accuracy: acc, speed: app == .overland ? 0 : nil, course: nil, regionsAt: centre)
            q.ssid = network
            q.conn = app == .owntracks ? (network != nil ? "w" : "m") : nil
        }
        if app == .overland {
            q.motion = rng.chance(0.9) ? "stationary" : nil
            q.batteryState = network != nil ? "charging" : "unplugged"
        } else {
            if q.trigger == nil && regime == .ownTracksMove { q.trigger = "t" }
            if regime == .ownTracksSignificant && rng.chance(0.3) { q.trigger = "p" }
        }
        if q.ssid != nil { q.bssid = "3c:22:fb:1a:00:\(String(place % 100, radix: 16))" }
        points.append(q)
        lastFixT = t
        lastFixP = centre
    }

    mutating func stay(place: Int, start: Double, end: Double, first: Bool, last: Bool) {
        stayFixes(place: place, start: start, end: end, first: first && !startsArchive, last: last)
        if last && endsArchive {
            // The archive is taken: one last fix.
            stillFix(place: place, t: end - 30, cellShare: 0, wifiShare: 0)
        }
    }

    mutating func stayFixes(place: Int, start: Double, end: Double, first: Bool, last: Bool) {
        switch regime {
        case .ownTracksSignificant:
            // The time trigger fires only while the phone moves: once the person stops, the next fix is the still
            // timer's, 25–75 min after the last one (the last moving fix, minutes before the arrival). So a trip is
            // seen from its first moving fix to its last, and its departure and arrival lie in silences on either
            // side (issue 23).
            var t = first || lastFixT < start - 6 * 3600 ? start - rng.uniform(0, 25 * 60) : lastFixT
            timerT = .infinity
            while true {
                t += rng.uniform(25, 75) * 60
                if t >= end - 5 { break }
                if t <= start { continue }
                stillFix(place: place, t: t, cellShare: 0.015, wifiShare: 0.02)
            }
        case .ownTracksMove:
            var t = first ? start + rng.uniform(0, 180) : max(start + 5, lastFixT + 180)
            while t < end - 5 {
                stillFix(place: place, t: t, cellShare: 0.005, wifiShare: 0.01)
                t += 180 + rng.uniform(-5, 5)
            }
        case .overlandPauses:
            if first {
                paused = (world.xy[place]!, rng.uniform(100, 250))
            } else if paused == nil {
                // (Still paused, the trip here never left the pause region: iOS holds the updates, nothing is written.)
                let pauseAfter = rng.uniform(8, 15) * 60
                var t = start + rng.uniform(2, 6)
                while t < min(end - 5, start + pauseAfter) {
                    stillFix(place: place, t: t, cellShare: 0, wifiShare: 0.002)
                    t += rng.uniform(5, 15)
                }
                if start + pauseAfter < end - 5 {
                    action("paused_location_updates", t: start + pauseAfter, at: nil)
                    paused = (world.xy[place]!, rng.uniform(100, 250))
                }
            }
            visitRecord(place: place, start: start, end: end, first: first, last: last)
        case .loggerTracks, .loggerAllDay:
            loggerStay(place: place, start: start, end: end, first: first, last: last)
        case .overlandDiscardStationary:
            var into: [Point] = []
            classic.stay(place: place, world: world, start: start, end: end, gaps: dark, farOff: sim.config.farOffFixes, into: &into)
            points += into
            visitRecord(place: place, start: start, end: end, first: first, last: last)
        }
    }

    /// Overland's iOS visits (visit tracking on): 80 % of the stays that begin with an arrival that day.
    mutating func visitRecord(place: Int, start: Double, end: Double, first: Bool, last: Bool) {
        guard !first, end - start >= 600, rng.chance(0.8) else { return }
        let arrival = start + rng.uniform(-60, 180)
        if last {
            visit(place: place, arrival: arrival, departure: nil, recordedAt: arrival + rng.uniform(180, 600))
        } else {
            let departure = end + rng.uniform(0, 240)
            visit(place: place, arrival: arrival, departure: departure, recordedAt: departure + rng.uniform(10, 120))
        }
    }

    // MARK: Trips

    mutating func trip(samples: [Simulator.Sample], legs: [Simulator.PlannedLeg]) {
        guard !samples.isEmpty else { return }
        switch regime {
        case .ownTracksSignificant, .ownTracksMove: ownTracksTrip(samples, legs)
        case .overlandPauses, .overlandDiscardStationary: overlandTrip(samples, legs)
        case .loggerTracks, .loggerAllDay: loggerTrip(samples, legs)
        }
    }

    mutating func ownTracksTrip(_ samples: [Simulator.Sample], _ legs: [Simulator.PlannedLeg]) {
        let significant = regime == .ownTracksSignificant
        // Region crossings of the true track fire after iOS's delay (leave 30–150 s, enter 10–90 s).
        var inside = regions.map { (samples[0].p - world.xy[$0.place]!).length < $0.radius }
        var crossings: [(t: Double, region: Int, enter: Bool)] = []
        for s in samples {
            for (k, r) in regions.enumerated() {
                let now = (s.p - world.xy[r.place]!).length < r.radius
                if now != inside[k] {
                    inside[k] = now
                    crossings.append((s.t + (now ? rng.uniform(10, 90) : rng.uniform(30, 150)), k, now))
                }
            }
        }
        var nextCrossing = 0
        var anchor = lastFixP
        var threshold = significant ? rng.uniform(400, 1200) : 200
        timerT = samples[0].t + (significant ? rng.uniform(240, 600) : 180)
        let last = samples[samples.count - 1]
        let accuracy = rng.uniform(5, 12)
        for s in samples {
            while nextCrossing < crossings.count && crossings[nextCrossing].t <= s.t {
                let c = crossings[nextCrossing]
                transition(regions[c.region], enter: c.enter, t: s.t, p: s.p)
                anchor = s.p
                nextCrossing += 1
            }
            if s.tunnel || s.t <= lastFixT { continue }
            let moved = (s.p - anchor).length
            let byDistance = moved >= threshold && s.t - lastFixT >= (significant ? 60 : 1)
            let byTime = s.t >= timerT
            guard byDistance || byTime else { continue }
            let acc = significant ? (rng.chance(0.4) ? 65 : rng.uniform(5, 16)) : accuracy * rng.uniform(0.8, 1.25)
            var noisy = s.p + Simulator.XY(x: rng.normal() * acc * 0.4, y: rng.normal() * acc * 0.4)
            let reportsSpeed = !significant || acc < 20
            let mode = legs[s.leg].mode
            var reported = acc
            if let m = phone.multipath(t: s.t, urban: mode != .plane && mode != .train) {
                noisy = noisy + m.offset
                reported += m.accuracy
            }
            if mode != .plane, let o = phone.outlier(share: PhoneNoise.sparseOutlierShare, accuracy: reported) {
                noisy = noisy + o.offset
                reported = o.accuracy
            }
            var q = point(t: s.t, p: noisy, accuracy: reported, speed: reportsSpeed ? max(0, s.speed + rng.normal() * 0.25) : nil,
                          course: reportsSpeed && s.speed > 0.5 ? s.course.rounded() : nil, regionsAt: s.p)
            q.conn = "m"
            if !significant && byTime && !byDistance { q.trigger = "t" }
            points.append(q)
            lastFixT = s.t
            lastFixP = s.p
            anchor = s.p
            threshold = significant ? rng.uniform(400, 1200) : 200
            timerT = s.t + (significant ? rng.uniform(240, 600) : 180)
        }
        // Crossings that fire after the trip's last second happen at the destination.
        for c in crossings[nextCrossing...] { transition(regions[c.region], enter: c.enter, t: c.t, p: last.p) }
        if !significant { timerT = .infinity }
    }

    /// The motion states as iOS's motion coprocessor (CMMotionActivity) reports them during a trip, replacing the
    /// classic model's exact ones (`classic` keeps those): each activity is recognised late — a leg's first 5–30 s
    /// (walk), 10–40 s (run), 30–180 s (bicycle) or 30–120 s (car, bus, train) still carry the activity before it
    /// (`stationary` at the start of a trip); a bicycle ride is taken for `driving` in 15 % and for `walking` in 10 %
    /// of its minutes, a run for `walking` in 15 %; after 20 s stopped in a vehicle or on a bicycle half the fixes
    /// say `stationary` alone (at lights the automotive flag drops), the others `driving,stationary`. Fixes that
    /// carried no motion (8 %) still carry none.
    mutating func iosMotion(_ fixes: inout [Point], samples: [Simulator.Sample], legs: [Simulator.PlannedLeg]) {
        guard !fixes.isEmpty, !samples.isEmpty else { return }
        func word(_ m: TravelMode) -> String? {
            switch m {
            case .walk: return "walking"
            case .run: return "running"
            case .cycle: return "cycling"
            case .car, .bus, .train: return "driving"
            case .plane: return nil
            }
        }
        var lag: [Double] = []
        for leg in legs {
            switch leg.mode {
            case .walk: lag.append(rng.uniform(5, 30))
            case .run: lag.append(rng.uniform(10, 40))
            case .cycle: lag.append(rng.uniform(30, 180))
            default: lag.append(rng.uniform(30, 120))
            }
        }
        var legStart = [Double](repeating: .infinity, count: legs.count)
        for smp in samples where smp.t < legStart[smp.leg] { legStart[smp.leg] = smp.t }
        var k = 0
        var block = (leg: -1, minute: -1), blockWord: String? = nil
        for f in fixes.indices {
            let t = Double(fixes[f].timeMs) / 1000
            while k + 1 < samples.count && samples[k + 1].t <= t + 0.5 { k += 1 }
            guard fixes[f].motion != nil else { continue }
            let smp = samples[k]
            let mode = legs[smp.leg].mode
            guard var now = word(mode) else { continue }
            let intoLeg = t - legStart[smp.leg]
            if intoLeg < lag[smp.leg] {
                // Not recognised yet: the activity before this leg.
                now = smp.leg == 0 ? "stationary" : (word(legs[smp.leg - 1].mode) ?? "stationary")
            } else if mode == .cycle || mode == .run {
                let minute = Int(intoLeg / 60)
                if block.leg != smp.leg || block.minute != minute {
                    block = (smp.leg, minute)
                    let u = rng.double()
                    blockWord = mode == .cycle ? (u < 0.15 ? "driving" : (u < 0.25 ? "walking" : nil)) : (u < 0.15 ? "walking" : nil)
                }
                if let w = blockWord { now = w }
            }
            if smp.stopped && now != "stationary" {
                if mode != .walk && mode != .run && smp.stopS > 20 && rng.chance(0.5) { now = "stationary" } else { now += ",stationary" }
            }
            fixes[f].motion = now
        }
    }

    mutating func overlandTrip(_ samples: [Simulator.Sample], _ legs: [Simulator.PlannedLeg]) {
        var tail = samples[...]
        if regime == .overlandPauses, let pause = paused {
            // Updates resume only once the person is out of the pause region, a little later still.
            guard let k = samples.firstIndex(where: { ($0.p - pause.centre).length >= pause.radius }) else { return }
            let resume = samples[k].t + rng.uniform(5, 60)
            guard let r = samples.firstIndex(where: { $0.t >= resume }) else { return }
            action("exited_pause_region", t: samples[r].t, at: samples[r].p)
            action("resumed_location_updates", t: samples[r].t, at: samples[r].p)
            tail = samples[r...]
            paused = nil
        }
        classic.discardStops = regime == .overlandDiscardStationary
        let recordTrip = rng.chance(0.3)
        let a = samples.first!, b = samples.last!
        let zone = sim.config.timeZone
        let tripID = recordTrip ? CivilTime.iso8601(ms: Int64(a.t * 1000), offset: UTCOffset(seconds: zone.offset(at: Int64(a.t * 1000)))) : nil
        let mainMode = legs.max(by: { sim.legLength($0) < sim.legLength($1) })!.mode
        var into: [Point] = []
        classic.phone = phone
        classic.trip(samples: Array(tail), legs: legs, world: world, tripID: tripID, tripMode: recordTrip ? mainMode.overlandTripMode : nil, into: &into)
        phone = classic.phone!
        iosMotion(&into, samples: samples, legs: legs)
        points += into
        if recordTrip {
            var truth = 0.0
            for k in 1..<samples.count { truth += (samples[k].p - samples[k - 1].p).length }
            let la = sim.latLon(a.p), lb = sim.latLon(b.p)
            appTrips.append(AppTripRecord(
                startMs: Int64((a.t - rng.uniform(0, 60)) * 1000), endMs: Int64((b.t + rng.uniform(0, 90)) * 1000),
                utcOffsetS: zone.offset(at: Int64(b.t * 1000)), distanceM: truth * rng.uniform(0.97, 1.06),
                mode: mainMode.overlandTripMode, endLat: lb.lat, endLon: lb.lon, startLat: la.lat, startLon: la.lon))
        }
        if let last = into.last { lastFixT = Double(last.timeMs) / 1000 }
    }
}
