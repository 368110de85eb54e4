#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension Simulator {
    func weekday(_ dayNumber: Int) -> Int { ((dayNumber % 7) + 10) % 7 }  // 0 = Monday (1970-01-01 was a Thursday)

    /// Simulates one local day (03:00 → 03:00) of one person.
    // Long by design: the day is built in order (timeline, gaps, truth, fixes) from one random stream whose draw order fixes every seed's output; its steps share that state.
    func simulateDay(person: Int, day: Int) -> DayOutput {
        let w = worlds[person]
        var rng = SplitMix64.derived(config.seed, UInt64(person), UInt64(day))
        let dayNumber = config.startDay + day
        let zone = config.timeZone
        // Local midnight in UTC seconds: offsets at 03:00 local are what matter; take the offset before the day.
        func utc(localS: Double) -> Double {
            let guess = Double(dayNumber) * 86_400 + localS - 3600
            let off = Double(zone.offset(at: Int64((guess - 3600) * 1000)))
            let first = Double(dayNumber) * 86_400 + localS - off
            let off2 = Double(zone.offset(at: Int64(first * 1000)))
            return Double(dayNumber) * 86_400 + localS - off2
        }
        let dayStart = utc(localS: 3 * 3600)
        let dayEnd = utc(localS: 27 * 3600)
        let plans = config.world == .varied
            ? variedPlan(w, day: day, weekday: weekday(dayNumber), rng: &rng)
            : plan(w, day: day, weekday: weekday(dayNumber), rng: &rng)
        let device = deviceName(person: person)
        var out = DayOutput()

        // The day as a timeline of segments: stays at places, and trips of legs (sampled each second).
        enum Segment {
            case stay(place: Int, start: Double, end: Double)
            case trip(samples: [Sample], legs: [PlannedLeg], from: Int, to: Int, stops: Int)
        }
        var segments: [Segment] = []
        var place = w.home
        var t = dayStart
        for p in plans {
            let depart = p.afterStayS.map { t + $0 } ?? max(utc(localS: p.departLocalS), t + 720)
            if depart >= dayEnd - 1800 { break }
            segments.append(.stay(place: place, start: t, end: depart))
            var samples: [Sample] = []
            var stops = 0
            var clock = depart
            for (i, leg) in p.legs.enumerated() {
                stops += move(leg, legIndex: i, start: clock, samples: &samples, rng: &rng, allowTunnel: true)
                clock = samples.last!.t
            }
            // A short loss of signal inside some trips.
            if config.gaps && samples.count > 900 && rng.chance(0.06) {
                let a = 200 + rng.int(samples.count - 700)
                let len = 120 + rng.int(180)
                for k in a..<min(samples.count - 200, a + len) { samples[k].tunnel = true }
            }
            segments.append(.trip(samples: samples, legs: p.legs, from: place, to: p.place, stops: stops))
            t = clock
            place = p.place
        }
        if t < dayEnd { segments.append(.stay(place: place, start: t, end: dayEnd)) }

        // Missing-data gaps inside stays: phone off at night, app killed at work.
        var stayGaps: [(Double, Double)] = []
        if config.gaps {
            if rng.chance(0.3) {
                let a = utc(localS: 24.5 * 3600 + rng.uniform(0, 3600))
                stayGaps.append((a, a + rng.uniform(2, 5) * 3600))
            }
            if rng.chance(0.15) {
                let a = utc(localS: rng.uniform(10, 11) * 3600)
                stayGaps.append((a, a + rng.uniform(1, 2.5) * 3600))
            }
        }

        // Truth.
        let app = self.app(person: person)
        var dayDistance: [String: Double] = [:]
        var dayTrips: [String: Int] = [:]
        func localDate(_ ts: Double) -> String {
            let ms = Int64(ts * 1000)
            return CivilTime.localDate(ms: ms, offset: UTCOffset(seconds: zone.offset(at: ms)))
        }
        for seg in segments {
            switch seg {
            case .stay(let place, let start, let end):
                out.stays.append(TruthStay(device: device, placeID: place, startMs: Int64(start * 1000), endMs: Int64(end * 1000)))
                for g in stayGaps where g.0 >= start + 60 && g.1 <= end - 60 {
                    out.gaps.append(TruthGap(device: device, startMs: Int64(g.0 * 1000), endMs: Int64(g.1 * 1000), kind: "stay"))
                }
            case .trip(let samples, let legs, let from, let to, let stops):
                var truthLegs: [TruthLeg] = []
                var dist = [Double](repeating: 0, count: legs.count)
                var legStart = [Double](repeating: -1, count: legs.count)
                var legEnd = [Double](repeating: 0, count: legs.count)
                var prev: (Double, Double)? = nil
                var gapStart: Double? = nil
                var gapKind = "tunnel"
                for s in samples {
                    let ll = latLon(s.p)
                    if let prev {
                        let d = Geo.distance(prev.0, prev.1, ll.lat, ll.lon)
                        dist[s.leg] += d
                        dayDistance[localDate(s.t), default: 0] += d
                    }
                    prev = (ll.lat, ll.lon)
                    if legStart[s.leg] < 0 { legStart[s.leg] = s.t }
                    legEnd[s.leg] = s.t
                    if s.tunnel && gapStart == nil {
                        gapStart = s.t
                        gapKind = legs[s.leg].mode == .car || legs[s.leg].mode == .train ? "tunnel" : "trip"
                    }
                    if !s.tunnel, let g = gapStart {
                        out.gaps.append(TruthGap(device: device, startMs: Int64(g * 1000), endMs: Int64(s.t * 1000), kind: gapKind))
                        gapStart = nil
                    }
                }
                // Leg boundaries: a leg ends where the next begins (waits belong to the leg they precede ending… see docs).
                for i in legs.indices {
                    let end = i + 1 < legs.count ? legStart[i + 1] + legs[i + 1].waitS : legEnd[i]
                    let start = i == 0 ? legStart[0] : legStart[i] + legs[i].waitS
                    truthLegs.append(TruthLeg(
                        mode: legs[i].mode, startMs: Int64(start * 1000), endMs: Int64(end * 1000), distanceM: dist[i], habit: legs[i].habit))
                }
                let startT = samples.first!.t, endT = samples.last!.t
                dayTrips[localDate(startT), default: 0] += 1
                out.trips.append(TruthTrip(
                    device: device, startMs: Int64(startT * 1000), endMs: Int64(endT * 1000), fromPlaceID: from, toPlaceID: to,
                    legs: truthLegs, distanceM: dist.reduce(0, +), stops: stops))
            }
        }
        for date in Set(dayDistance.keys).union(dayTrips.keys).union([localDate(dayStart + 3600)]).sorted() {
            out.days.append(TruthDay(device: device, date: date, distanceM: dayDistance[date] ?? 0, trips: dayTrips[date] ?? 0))
        }

        if config.profile != .classic {
            let plain = segments.map { seg -> RegimeSegment in
                switch seg {
                case .stay(let place, let start, let end): return .stay(place: place, start: start, end: end)
                case .trip(let samples, let legs, let from, let to, _): return .trip(samples: samples, legs: legs, from: from, to: to)
                }
            }
            regimeFixes(person: person, day: day, world: w, segments: plain, blackouts: stayGaps, out: &out)
            return out
        }

        // Fixes.
        var fixes = FixMaker(sim: self, app: app, rng: SplitMix64.derived(config.seed, UInt64(person), UInt64(day), 0xF1), zone: zone)
        for seg in segments {
            switch seg {
            case .stay(let place, let start, let end):
                fixes.stay(place: place, world: w, start: start, end: end, gaps: stayGaps, farOff: config.farOffFixes, into: &out.points)
            case .trip(let samples, let legs, _, _, _):
                let tripIndex = out.appTrips.count
                _ = tripIndex
                let recordTrip = app == .overland && rng.chance(0.3)
                let tripID = recordTrip ? CivilTime.iso8601(ms: Int64(samples[0].t * 1000), offset: UTCOffset(seconds: zone.offset(at: Int64(samples[0].t * 1000)))) : nil
                let mainMode = legs.max(by: { a, b in legLength(a) < legLength(b) })!.mode
                fixes.trip(samples: samples, legs: legs, world: w, tripID: tripID, tripMode: recordTrip ? mainMode.overlandTripMode : nil, into: &out.points)
                if recordTrip {
                    let a = samples.first!, b = samples.last!
                    let la = latLon(a.p), lb = latLon(b.p)
                    let truthDistance = out.trips.first(where: { $0.startMs == Int64(a.t * 1000) })?.distanceM ?? 0
                    out.appTrips.append(AppTripRecord(
                        startMs: Int64((a.t - rng.uniform(0, 60)) * 1000), endMs: Int64((b.t + rng.uniform(0, 90)) * 1000),
                        utcOffsetS: zone.offset(at: Int64(b.t * 1000)), distanceM: truthDistance * rng.uniform(0.97, 1.06),
                        mode: mainMode.overlandTripMode, endLat: lb.lat, endLon: lb.lon, startLat: la.lat, startLon: la.lon))
                }
            }
        }
        return out
    }

    func legLength(_ leg: PlannedLeg) -> Double {
        var d = 0.0
        for i in 1..<leg.path.count { d += (leg.path[i] - leg.path[i - 1]).length }
        return d
    }
}
