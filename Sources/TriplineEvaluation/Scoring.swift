import TriplineCore
import TriplineImport
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// Scores a rebuild against ground truth: trips and visits matched one to one by temporal overlap, distances, modes.
public enum Scoring {
    /// A time interval with an optional payload used by the matcher.
    public struct Interval: Sendable, Equatable {
        public var startMs: Int64
        public var endMs: Int64
        public init(startMs: Int64, endMs: Int64) {
            self.startMs = startMs
            self.endMs = endMs
        }
    }

    /// Temporal intersection over union.
    @inline(__always)
    public static func iou(_ a: Interval, _ b: Interval) -> Double {
        let inter = Double(max(0, min(a.endMs, b.endMs) - max(a.startMs, b.startMs)))
        let union = Double(max(a.endMs, b.endMs) - min(a.startMs, b.startMs))
        return union > 0 ? inter / union : (a.startMs == b.startMs ? 1 : 0)
    }

    /// One-to-one matching: pairs with IoU ≥ `threshold`, best first (greedy on IoU). Returns (truth index, found index).
    public static func match(truth: [Interval], found: [Interval], threshold: Double = 0.5) -> [(Int, Int)] {
        var candidates: [(Double, Int, Int)] = []
        let sortedFound = found.indices.sorted { found[$0].startMs < found[$1].startMs }
        for (t, a) in truth.enumerated() {
            // Only found intervals that overlap a.
            var lo = 0, hi = sortedFound.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if found[sortedFound[mid]].startMs < a.endMs { lo = mid + 1 } else { hi = mid }
            }
            var k = lo - 1
            while k >= 0 {
                let f = sortedFound[k]
                let v = iou(a, found[f])
                if v >= threshold { candidates.append((v, t, f)) }
                // Intervals starting much earlier cannot reach IoU ≥ threshold once they end before a starts.
                if found[f].startMs < a.startMs - 7 * 86_400_000 { break }
                k -= 1
            }
        }
        candidates.sort { $0.0 != $1.0 ? $0.0 > $1.0 : ($0.1 != $1.1 ? $0.1 < $1.1 : $0.2 < $1.2) }
        var usedT = Set<Int>(), usedF = Set<Int>()
        var pairs: [(Int, Int)] = []
        for (_, t, f) in candidates where !usedT.contains(t) && !usedF.contains(f) {
            usedT.insert(t)
            usedF.insert(f)
            pairs.append((t, f))
        }
        return pairs.sorted { $0.0 < $1.0 }
    }

    /// The q-quantile (0…1) of values (nearest rank); NaN when empty.
    public static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let s = values.sorted()
        let rank = Int((q * Double(s.count)).rounded(.up)) - 1
        return s[min(s.count - 1, max(0, rank))]
    }

    /// Precision, recall and F1 from counts.
    public static func prf(matched: Int, truth: Int, found: Int) -> (p: Double, r: Double, f1: Double) {
        let p = found > 0 ? Double(matched) / Double(found) : 0
        let r = truth > 0 ? Double(matched) / Double(truth) : 0
        return (p, r, p + r > 0 ? 2 * p * r / (p + r) : 0)
    }
}

/// The scores of one rebuild against one truth.
public struct SimulationScores: Sendable {
    public var truthTrips = 0, foundTrips = 0, matchedTrips = 0
    /// The truth's devices the database does not hold (not scored).
    public var missingDevices: [String] = []
    public var tripPrecision = 0.0, tripRecall = 0.0, tripF1 = 0.0
    public var medianStartErrorS = Double.nan, medianEndErrorS = Double.nan
    public var truthVisits = 0, foundVisits = 0, matchedVisits = 0
    public var visitPrecision = 0.0, visitRecall = 0.0, visitF1 = 0.0
    public var medianVisitCentreM = Double.nan
    /// Matched visits whose centre lies more than ``offPlaceM`` from the true place: matched by time, at the wrong
    /// place (the visit score itself matches by time only; reitti's and GeoLife's also check the place).
    public var offPlaceVisits = 0
    public static let offPlaceM = 150.0
    public var medianTripDistanceError = Double.nan, p90TripDistanceError = Double.nan
    public var medianDailyDistanceError = Double.nan, p90DailyDistanceError = Double.nan
    /// |Σ rebuilt − Σ true| / Σ true over all days.
    public var totalDistanceError = Double.nan
    /// Share of true leg time whose rebuilt leg has the same mode (exact) and the same foot/bicycle/motorized class.
    public var modeAccuracy = Double.nan, coarseModeAccuracy = Double.nan
    /// The seconds behind them (true leg time; of it, the same mode; the same class), to pool several runs.
    public var modeSeconds = 0.0, modeExactSeconds = 0.0, modeCoarseSeconds = 0.0
    /// Relative distance errors of the matched trips and of the days with true movement (to pool several runs).
    public var tripDistanceErrors: [Double] = [], dailyDistanceErrors: [Double] = []
    /// Lines describing what did not match and the worst distance errors (for `evaluate --details`).
    public var details: [String] = []
    /// True trips and visits inside a dead phone's or a killed app's silence, beyond any rebuild (``Observability``).
    public var hiddenTrips = 0, hiddenVisits = 0
    /// The hidden trips and those no guess across their silence matches (``Observability``, `beyond`).
    public var beyondTrips = 0
    /// Whether the database holds no points to tell what was recorded (a `merge --results-only` study): the hidden
    /// counts are then unknown, not "everything".
    public var recordsUnknown = false

    /// What no rebuild could find: the true trips and visits while nothing was recorded.
    var hiddenLine: String {
        func num(_ v: Double) -> String { v.isNaN ? "n/a" : NumberText.fixed(v, decimals: 2) }
        if recordsUnknown {
            return "hidden: not known (the database holds no points, as a study merged with --results-only: "
                + "score a shard, or a database with the points, for what was recorded)"
        }
        let trips = num(Observability.ceiling(truth: truthTrips, hidden: hiddenTrips))
        let visits = num(Observability.ceiling(truth: truthVisits, hidden: hiddenVisits))
        let beyond = num(Observability.ceiling(truth: truthTrips, hidden: beyondTrips))
        return "hidden: \(hiddenTrips) trips, \(hiddenVisits) visits during which nothing was recorded (ceiling F1 \(trips) / \(visits)); "
            + "\(beyondTrips) trips beyond a guess across their silence (trip ceiling F1 \(beyond))"
    }

    /// The scores as aligned text lines.
    public var report: String {
        func pct(_ v: Double) -> String { v.isNaN ? "n/a" : String(NumberText.fixed(v * 100, decimals: 2)) + " %" }
        func num(_ v: Double) -> String { v.isNaN ? "n/a" : NumberText.fixed(v, decimals: 2) }
        return """
            trips:  truth \(truthTrips), rebuilt \(foundTrips), matched \(matchedTrips) (IoU ≥ 0.5)
                    precision \(num(tripPrecision)), recall \(num(tripRecall)), F1 \(num(tripF1))
                    median start error \(num(medianStartErrorS)) s, median end error \(num(medianEndErrorS)) s
            visits: truth \(truthVisits) (stays ≥ 5 min), rebuilt \(foundVisits), matched \(matchedVisits)
                    precision \(num(visitPrecision)), recall \(num(visitRecall)), F1 \(num(visitF1))
                    median distance from visit centre to true place \(num(medianVisitCentreM)) m; \(offPlaceVisits) matched more than \(Int(Self.offPlaceM)) m from it
            distance per trip: median error \(pct(medianTripDistanceError)), p90 \(pct(p90TripDistanceError))
            distance per day:  median error \(pct(medianDailyDistanceError)), p90 \(pct(p90DailyDistanceError)), total \(pct(totalDistanceError))
            modes: exact \(pct(modeAccuracy)) of true leg time, foot/bicycle/motorized \(pct(coarseModeAccuracy))
            \(hiddenLine)

            """
    }
}

/// Loads simulated devices into a store, and scores the store's rebuild against the simulation's truth.
public enum SimulationEvaluation {
    /// Inserts the simulated devices' points and app trip records (as the importer would), one transaction.
    /// - Returns: device name → id.
    @discardableResult
    public static func load(_ result: SimulationResult, into store: Store, importID: Int64 = 1, filter: ((Point) -> Bool)? = nil) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        try store.transaction {
            for device in result.devices {
                let id = try store.deviceID(named: device.name, source: device.app.rawValue, origin: .simulator)
                ids[device.name] = id
                try store.insertPoints(device.points.lazy.filter { filter?($0) ?? true }.map { p in
                    var q = p
                    q.deviceID = id
                    q.importID = importID
                    return q
                })
                let events = try AppEventTable(store)
                for t in device.appTrips {
                    if let filter, !filter(Point(deviceID: 0, timeMs: t.endMs, lat: t.endLat, lon: t.endLon)) { continue }
                    try events.insert(AppEventRow(
                        deviceID: id, importID: importID, kind: .trip, timeMs: t.endMs, utcOffsetS: Int32(t.utcOffsetS),
                        lat: t.endLat, lon: t.endLon, startMs: t.startMs, endMs: t.endMs, distanceM: t.distanceM, mode: t.mode,
                        raw: SimulationWriter.overlandTrip(t, deviceName: device.name)))
                }
                // Other app events (transitions, waypoints, visits, pause actions), as the importer stores them.
                for e in device.events {
                    if let filter, !filter(Point(deviceID: 0, timeMs: e.timeMs, lat: e.lat ?? 0, lon: e.lon ?? 0)) { continue }
                    try events.insert(AppEventRow(
                        deviceID: id, importID: importID, kind: AppEventKind(rawValue: e.kind), timeMs: e.timeMs, utcOffsetS: e.utcOffsetS, lat: e.lat, lon: e.lon,
                        startMs: e.startMs, endMs: e.endMs, raw: e.raw))
                }
            }
        }
        return ids
    }

    /// Writes `result` as the apps' archives into `folder` (created; Overland POST bodies under `overland/`,
    /// OwnTracks Recorder files under `rec/`, GPS loggers' GPX under `gpx/`) and imports them with the ``Importer``, as a user's data arrives: whole
    /// seconds and whole km/h where the format has them. ``resolveDevice(_:store:)`` finds the devices it names.
    public static func importArchives(_ result: SimulationResult, into store: Store, folder: String) throws {
        try FileSystem.createDirectory(folder)
        try SimulationWriter.write(result, to: folder)
        let roots = ["overland", "rec", "gpx"].map { folder + "/" + $0 }.filter { FileSystem.kind($0) == .directory }
        _ = try Importer(store: store).importPaths(roots)
    }

    /// The database device of a simulated device: the same name, else (archives imported by the importer) the
    /// OwnTracks device under `rec/personN/…` or the Overland `device_id`.
    static func resolveDevice(_ name: String, store: Store) throws -> Int64? {
        if let id = try store.deviceNames().first(where: { $0.value == name })?.key { return id }
        if name.hasPrefix("owntracks-") {
            let person = "person" + name.dropFirst("owntracks-".count)
            return try store.firstDeviceID(nameLike: [person + "/%", person + "-%"], tid: "P" + name.dropFirst("owntracks-".count))
        }
        return try store.firstDeviceID(nameLike: ["%" + name + "%"])
    }

    /// The sums ``score(_:store:devices:)`` gathers over the devices before it summarises them.
    struct Tally {
        var s = SimulationScores()
        var startErrors: [Double] = [], endErrors: [Double] = [], distErrors: [Double] = [], centre: [Double] = []
        var dayErrors: [Double] = []
        var sumTrue = 0.0, sumFound = 0.0
        var modeTotal = 0.0, modeExact = 0.0, modeCoarse = 0.0
        var confusion: [String: Double] = [:]  // "true → rebuilt": seconds
    }

    /// Scores the rebuilt trips, visits and days of the simulated devices against the truth.
    /// - Throws: ``EvaluationError/noTruthDevice(_:)`` when the database holds none of the truth's devices (another
    ///   simulation's database, or none imported): a score of 0 would say the rebuild found nothing.
    public static func score(_ truth: SimulationTruth, store: Store, devices: [String]? = nil) throws -> SimulationScores {
        var tally = Tally()
        let deviceNames = devices ?? Array(Set(truth.trips.map(\.device)).union(truth.stays.map(\.device))).sorted()
        if !deviceNames.isEmpty, try deviceNames.allSatisfy({ try resolveDevice($0, store: store) == nil }) {
            throw EvaluationError.noTruthDevice(deviceNames)
        }
        let placeByID = Dictionary(uniqueKeysWithValues: truth.places.map { ($0.id, $0) })
        // A results-only study holds no points: what was recorded is not known there (the thirteenth hostile round:
        // every true trip was "hidden").
        tally.s.recordsUnknown = try store.holdsResultsOnly()
        for name in deviceNames {
            guard let deviceID = try resolveDevice(name, store: store) else {
                tally.s.details.append("\(name): no such device in the database (not scored)")
                tally.s.missingDevices.append(name)
                continue
            }
            let tTrips = truth.trips.filter { $0.device == name }
            try scoreTrips(tTrips, name, deviceID, store, &tally)
            try scoreModes(tTrips, deviceID, store, &tally)
            try scoreVisits(truth.stays.filter { $0.device == name && $0.durationS >= 300 }, placeByID, name, deviceID, store, &tally)
            try scoreDays(truth.days.filter { $0.device == name }, deviceID, store, &tally)
            guard !tally.s.recordsUnknown else { continue }
            let records = try store.recordTimes(device: deviceID).sorted()
            let hidden = Observability.hidden(trips: tTrips, stays: truth.stays.filter { $0.device == name }, records: records)
            tally.s.hiddenTrips += hidden.trips
            tally.s.hiddenVisits += hidden.visits
            tally.s.beyondTrips += hidden.beyond
            for (a, b) in hidden.silences {
                let from = a == Int64.min ? "the archive's start" : CivilTime.iso8601(ms: a), to = b == Int64.max ? "its end" : CivilTime.iso8601(ms: b)
                tally.s.details.append("\(name) nothing recorded from \(from) to \(to): the trips and visits inside are hidden from any rebuild")
            }
        }
        return summary(tally)
    }

    /// The three counts of one kind of record in ``SimulationScores``: true, rebuilt and matched.
    typealias Counts = (truth: WritableKeyPath<SimulationScores, Int>, found: WritableKeyPath<SimulationScores, Int>,
                        matched: WritableKeyPath<SimulationScores, Int>)

    /// Pairs `truth` with `found` one to one by overlap (``Scoring/match(truth:found:)``), adds them to the kind's
    /// `counts`, and notes in the details each true interval left unpaired (`missed`), then each found one (`extra`);
    /// returns the pairs (truth, found).
    static func pairAndNote(truth: [Scoring.Interval], found: [Scoring.Interval], _ s: inout SimulationScores, counts: Counts,
                            missed: (Int) -> String, extra: (Int) -> String) -> [(Int, Int)] {
        let pairs = Scoring.match(truth: truth, found: found)
        let pairedTruth = Set(pairs.map(\.0)), pairedFound = Set(pairs.map(\.1))
        for t in truth.indices where !pairedTruth.contains(t) { s.details.append(missed(t)) }
        for f in found.indices where !pairedFound.contains(f) { s.details.append(extra(f)) }
        s[keyPath: counts.truth] += truth.count
        s[keyPath: counts.found] += found.count
        s[keyPath: counts.matched] += pairs.count
        return pairs
    }

    static func iso(_ ms: Int64) -> String { CivilTime.iso8601(ms: ms) }

    /// Trips: matched one to one by overlap; start, end and distance errors of the pairs.
    static func scoreTrips(_ tTrips: [TruthTrip], _ name: String, _ deviceID: Int64, _ store: Store, _ tally: inout Tally) throws {
        let fTrips: [(Scoring.Interval, Double, Int64)] = try store.trips(device: deviceID).map { t in
            (Scoring.Interval(startMs: t.startMs, endMs: t.endMs), t.distanceM, t.id ?? 0)
        }
        let pairs = pairAndNote(
            truth: tTrips.map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }, found: fTrips.map(\.0), &tally.s,
            counts: (\.truthTrips, \.foundTrips, \.matchedTrips),
            missed: { t in "\(name) missed trip \(iso(tTrips[t].startMs))–\(iso(tTrips[t].endMs)) \(tTrips[t].legs.map(\.mode.rawValue)) \(Int(tTrips[t].distanceM)) m" },
            extra: { f in "\(name) extra trip \(iso(fTrips[f].0.startMs))–\(iso(fTrips[f].0.endMs)) \(Int(fTrips[f].1)) m" })
        for (t, f) in pairs {
            let e = tTrips[t].distanceM > 0 ? (fTrips[f].1 - tTrips[t].distanceM) / tTrips[t].distanceM : 0
            if abs(e) > 0.05 {
                tally.s.details.append("\(name) distance \(iso(tTrips[t].startMs)) \(tTrips[t].legs.map(\.mode.rawValue)) true \(Int(tTrips[t].distanceM)) m rebuilt \(Int(fTrips[f].1)) m (\(NumberText.fixed(e * 100, decimals: 2)) %), start \(NumberText.fixed(Double(fTrips[f].0.startMs - tTrips[t].startMs) / 1000, decimals: 2)) s end \(NumberText.fixed(Double(fTrips[f].0.endMs - tTrips[t].endMs) / 1000, decimals: 2)) s")
            }
        }
        for (t, f) in pairs {
            tally.startErrors.append(abs(Double(fTrips[f].0.startMs - tTrips[t].startMs)) / 1000)
            tally.endErrors.append(abs(Double(fTrips[f].0.endMs - tTrips[t].endMs)) / 1000)
            if tTrips[t].distanceM > 0 { tally.distErrors.append(abs(fTrips[f].1 - tTrips[t].distanceM) / tTrips[t].distanceM) }
        }
    }

    /// The leg-feature CSV rows (``GeoLifeUser/legFeatureHeader``, the training data of `scripts/train-modes.py`) of a
    /// simulated rebuild: one per logged leg (`log`) that overlaps true leg time, with the true seconds inside it per
    /// class (foot = walk and run, bicycle, motorised: ``TravelMode/coarseClass``, the 3-class score's classes) where
    /// the GeoLife rows have observed labelled seconds, and the true mode with the most of them as the label.
    /// `user` names the run (e.g. `sim-SEED`), so that a leave-one-user-out keeps each seed's legs together.
    public static func legFeatureRows(_ log: LegFeatureLog, truth: SimulationTruth, store: Store, user: String) throws -> [String] {
        var legsByDevice: [Int64: [TruthLeg]] = [:]
        for name in Set(truth.trips.map(\.device)).sorted() {
            guard let id = try resolveDevice(name, store: store) else { continue }
            legsByDevice[id, default: []] += truth.trips.filter { $0.device == name }.flatMap(\.legs)
        }
        for id in legsByDevice.keys { legsByDevice[id]!.sort { $0.startMs < $1.startMs } }
        let classes = ["foot", "bicycle", "motorized"]
        var out: [String] = []
        for leg in log.entries {
            var seconds = [0.0, 0.0, 0.0]
            var byMode: [String: Double] = [:]
            for t in legsByDevice[leg.deviceID] ?? [] where t.startMs < leg.endMs && t.endMs > leg.startMs {
                let overlap = Double(min(t.endMs, leg.endMs) - max(t.startMs, leg.startMs)) / 1000
                guard let k = classes.firstIndex(of: t.mode.coarseClass) else { continue }
                seconds[k] += overlap
                byMode[t.mode.rawValue, default: 0] += overlap
            }
            guard seconds.reduce(0, +) > 0 else { continue }
            let label = byMode.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? ""
            let numbers = (leg.features + leg.motion).map { ParameterText.format(($0 * 1e6).rounded() / 1e6) }
            out.append(([user, String(leg.startMs), String(leg.endMs), leg.ruleClass] + numbers + seconds.map { ParameterText.format($0) } + [label])
                .joined(separator: ","))
        }
        return out
    }

    /// Modes: overlap of true legs with rebuilt legs.
    static func scoreModes(_ tTrips: [TruthTrip], _ deviceID: Int64, _ store: Store, _ tally: inout Tally) throws {
        let fLegs: [(Int64, Int64, String)] = try store.legs(device: deviceID).map { l in (l.startMs, l.endMs, l.mode) }
        var cursor = 0
        for trip in tTrips {
            for leg in trip.legs {
                tally.modeTotal += Double(leg.endMs - leg.startMs)
                while cursor < fLegs.count && fLegs[cursor].1 < leg.startMs - 86_400_000 { cursor += 1 }
                var k = cursor
                while k < fLegs.count && fLegs[k].0 < leg.endMs {
                    let ov = Double(max(0, min(leg.endMs, fLegs[k].1) - max(leg.startMs, fLegs[k].0)))
                    if ov > 0 {
                        if fLegs[k].2 != leg.mode.rawValue { tally.confusion["\(leg.mode.rawValue) → \(fLegs[k].2)", default: 0] += ov / 1000 }
                        if fLegs[k].2 == leg.mode.rawValue { tally.modeExact += ov }
                        // `vehicle` (motorised, car or bus or train unknown) is no simulated mode but is of the motorised class.
                        if LabelledTimeScores.coarse(fLegs[k].2) == leg.mode.coarseClass { tally.modeCoarse += ov }
                    }
                    k += 1
                }
            }
        }
    }

    /// Visits: true stays of 5 min or more (`tStays`), matched one to one by overlap; centre errors of the pairs.
    static func scoreVisits(_ tStays: [TruthStay], _ placeByID: [Int: TruthPlace], _ name: String, _ deviceID: Int64, _ store: Store,
                            _ tally: inout Tally) throws {
        let fVisits: [(Scoring.Interval, Double, Double)] = try store.visits(device: deviceID).map { v in
            (Scoring.Interval(startMs: v.startMs, endMs: v.endMs), v.lat, v.lon)
        }
        let vp = pairAndNote(
            truth: tStays.map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }, found: fVisits.map(\.0), &tally.s,
            counts: (\.truthVisits, \.foundVisits, \.matchedVisits),
            missed: { t in "\(name) missed visit \(iso(tStays[t].startMs))–\(iso(tStays[t].endMs)) place \(tStays[t].placeID)" },
            extra: { f in "\(name) extra visit \(iso(fVisits[f].0.startMs))–\(iso(fVisits[f].0.endMs))" })
        for (t, f) in vp {
            if let place = placeByID[tStays[t].placeID] {
                tally.centre.append(Geo.distance(place.lat, place.lon, fVisits[f].1, fVisits[f].2))
            }
        }
    }

    /// Days: each true day's distance (`tDays`) against the rebuilt day's.
    static func scoreDays(_ tDays: [TruthDay], _ deviceID: Int64, _ store: Store, _ tally: inout Tally) throws {
        var found: [String: Double] = [:]
        try store.forEachDay(device: deviceID, fromDate: nil, toDate: nil) { found[$0.date] = $0.distanceM }
        for day in tDays where day.distanceM > 0 {
            let f = found[day.date] ?? 0
            tally.dayErrors.append(abs(f - day.distanceM) / day.distanceM)
            tally.sumTrue += day.distanceM
            tally.sumFound += f
        }
    }

    /// The scores from the devices' sums.
    static func summary(_ tally: Tally) -> SimulationScores {
        var s = tally.s
        for (pair, seconds) in tally.confusion.sorted(by: { $0.value > $1.value }) {
            s.details.append("mode \(pair): \(Int(seconds)) s of true leg time")
        }
        (s.tripPrecision, s.tripRecall, s.tripF1) = Scoring.prf(matched: s.matchedTrips, truth: s.truthTrips, found: s.foundTrips)
        (s.visitPrecision, s.visitRecall, s.visitF1) = Scoring.prf(matched: s.matchedVisits, truth: s.truthVisits, found: s.foundVisits)
        s.tripDistanceErrors = tally.distErrors
        s.dailyDistanceErrors = tally.dayErrors
        s.medianStartErrorS = Scoring.quantile(tally.startErrors, 0.5)
        s.medianEndErrorS = Scoring.quantile(tally.endErrors, 0.5)
        s.medianVisitCentreM = Scoring.quantile(tally.centre, 0.5)
        s.offPlaceVisits = tally.centre.filter { $0 > SimulationScores.offPlaceM }.count
        s.medianTripDistanceError = Scoring.quantile(tally.distErrors, 0.5)
        s.p90TripDistanceError = Scoring.quantile(tally.distErrors, 0.9)
        s.medianDailyDistanceError = Scoring.quantile(tally.dayErrors, 0.5)
        s.p90DailyDistanceError = Scoring.quantile(tally.dayErrors, 0.9)
        s.totalDistanceError = tally.sumTrue > 0 ? abs(tally.sumFound - tally.sumTrue) / tally.sumTrue : .nan
        s.modeAccuracy = tally.modeTotal > 0 ? tally.modeExact / tally.modeTotal : .nan
        s.coarseModeAccuracy = tally.modeTotal > 0 ? tally.modeCoarse / tally.modeTotal : .nan
        (s.modeSeconds, s.modeExactSeconds, s.modeCoarseSeconds) = (tally.modeTotal / 1000, tally.modeExact / 1000, tally.modeCoarse / 1000)
        return s
    }
}
