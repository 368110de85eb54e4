import TriplineCore
import TriplineImport
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// A labelled GeoLife user read through the real importer (``PLTReader``), ready to be rebuilt and scored as often as
/// a tuning run needs.
///
/// Scoring (as in the GeoLife tests): true trips are the labelled legs joined while less than `joinGapS` apart; rebuilt
/// trips match them one to one by temporal IoU ≥ 0.5; rebuilt trips that overlap no label are left out (the labeller
/// skipped that time, so whether they are trips is unknown). Mode accuracy is the share of labelled time whose rebuilt
/// leg has the label's class (foot / bicycle / motorized), or its exact mode.
///
/// Label clock: GeoLife `.plt` times are GMT, but some labels (whole users, or some months of a user) are 8 h off (Beijing
/// time). A label that covers no fix is moved by ±8 h when that lines its start and end up with recorded fixes (see
/// `init`); the same rule for every label of every user, reported with the scores (`labelsShifted`). Labels that hold
/// no fix at all (their recording is not in the data set) are left out (`labelsWithoutFixes`).
public final class GeoLifeUser {
    public let name: String
    public let directory: String
    public let store: Store
    public let points: Int
    /// The fixes' times, ascending, and their positions.
    let times: [Int64]
    let positions: [(lat: Double, lon: Double)]
    /// Labels within the points' time span, after the clock shift, sorted by start.
    public let labels: [CorpusReaders.Label]
    /// Mean hours added to the moved labels' times (0 when none moved).
    public let labelShiftH: Int
    /// Labels moved to the fixes' clock.
    public let labelsShifted: Int
    /// Labels within the data's span that hold no fix (left out).
    public let labelsWithoutFixes: Int
    /// Every label as written (no clock shift), sorted by start: what the labelled-time rule scores against
    /// (``LabelledTimeScores``), as an independent scorer reads the files.
    public let writtenLabels: [CorpusReaders.Label]

    /// The database file (and its `-wal`/`-shm`) this user was imported into.
    public var databasePath: String { store.path }

    /// Deletes the database files (the store stays usable until it is released; Linux keeps unlinked files open).
    public func discardFiles() {
        for suffix in ["", "-wal", "-shm", "-journal"] { FileSystem.remove(store.path + suffix) }
    }

    /// Imports `directory/Trajectory` (every `.plt`) into a fresh database in `workDirectory`, and reads `labels.txt`.
    public init(directory: String, workDirectory: String) throws {
        self.directory = directory
        name = FileSystem.baseName(directory)
        let path = workDirectory + "/geolife-" + name + ".sqlite"
        for suffix in ["", "-wal", "-shm"] where FileSystem.exists(path + suffix) { FileSystem.remove(path + suffix) }
        store = try Store(path: path)
        let importer = Importer(store: store, options: ImportOptions(device: "geolife-" + name))
        let summary = try importer.importPaths([directory + "/Trajectory"])
        if let bad = summary.files.first(where: { $0.status == .failed }) {
            throw EvaluationError.importFailed(path: bad.path, message: bad.message)
        }
        var times: [Int64] = []
        var positions: [(lat: Double, lon: Double)] = []
        // One device per user, so key order is time order.
        try store.forEachPointPosition { time, lat, lon in
            times.append(time)
            positions.append((lat, lon))
        }
        points = times.count
        self.times = times
        self.positions = positions
        let all = try CorpusReaders.readLabels(directory + "/labels.txt").sorted { $0.startMs < $1.startMs }
        writtenLabels = all
        // A label with no fix inside it is moved by ±8 h (Beijing time written as GMT, or the reverse) when that puts a
        // fix within a minute of both its start and its end and at least one inside it; labels are drawn on the
        // recorded track, so such a match is no accident. Other labels stay where they are.
        func fixes(_ a: Int64, _ b: Int64) -> Int { lowerBound(times, b + 1) - lowerBound(times, a) }
        func near(_ t: Int64) -> Bool { fixes(t - 60_000, t + 60_000) > 0 }
        var shifted: [CorpusReaders.Label] = []
        var moved = 0, shiftSum = 0
        let hours = [8, -8]
        for l in all {
            var m = l
            if fixes(l.startMs, l.endMs) == 0 {
                for h in hours {
                    let d = Int64(h) * 3_600_000
                    if near(l.startMs + d) && near(l.endMs + d) && fixes(l.startMs + d, l.endMs + d) > 0 {
                        m.startMs += d
                        m.endMs += d
                        moved += 1
                        shiftSum += h
                        break
                    }
                }
            }
            shifted.append(m)
        }
        labelShiftH = moved > 0 ? shiftSum / moved : 0
        labelsShifted = moved
        let first = times.first ?? 0, last = times.last ?? 0
        // Labels with no fix inside (the recording of that leg is not in the data set) cannot be rebuilt by anyone:
        // they are left out and counted.
        let inSpan = shifted.sorted { $0.startMs < $1.startMs }.filter { $0.endMs >= first && $0.startMs <= last }
        labels = inSpan.filter { fixes($0.startMs, $0.endMs) > 0 }
        labelsWithoutFixes = inSpan.count - labels.count
    }

    /// Rebuilds with `settings` and scores trips and modes.
    /// `modeModel`: other coefficients for the learned mode model (a leave-one-user-out fold's); `featureLog`: collects
    /// the per-leg features (``legFeatureRows(_:)``).
    public func score(settings: PassSettings = PassSettings(), joinGapS: Double = 1800, details: Bool = true, modeModel: ModeModel? = nil,
                      featureLog: LegFeatureLog? = nil) throws -> RealDataEvaluation.GeoLifeScores {
        var options = Rebuild.Options()
        options.settings = settings
        options.modeModel = modeModel
        options.legFeatures = featureLog
        options.timeZoneName = "Asia/Shanghai"
        options.full = true
        _ = try Rebuild(store: store, options: options).run()
        let truth = truthTrips(joinGapS)
        let trips = try store.trips()
        let found = trips.map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }
        let legs: [(Int64, Int64, String)] = try store.legs().map { ($0.startMs, $0.endMs, $0.mode) }
        var s = RealDataEvaluation.GeoLifeScores.score(
            truth: truth, found: found, labels: labels, legs: legs, fixTimes: times, fixPositions: positions,
            travelMinMps: settings.values["trips.travel_min_mps"].flatMap(Double.init) ?? TripsPass.Parameters().travelMinMps, details: details)
        s.user = name
        s.points = points
        s.labelShiftH = labelShiftH
        s.labelsShifted = labelsShifted
        s.labelsWithoutFixes = labelsWithoutFixes
        s.labelsHoldWalks = writtenLabels.contains { $0.mode == "walk" }
        s.labelledTime = LabelledTimeScores.score(labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: found, legs: legs)
        let visits = try store.visits().map { Scoring.Interval(startMs: $0.startMs, endMs: $0.endMs) }.sorted { $0.startMs < $1.startMs }
        s.breakdown = LabelledTimeScores.breakdown(
            labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: found.sorted { $0.startMs < $1.startMs }, visits: visits)
        if details {
            for trip in trips {
                var line = "rebuilt trip \(CivilTime.iso8601(ms: trip.startMs))–\(CivilTime.iso8601(ms: trip.endMs)) \(Int(trip.distanceM)) m:"
                for leg in try store.legs(trip: trip.id ?? 0) {
                    line += " \(leg.mode)/\(leg.modeSource) \((leg.endMs - leg.startMs) / 1000) s \(Int(leg.distanceM)) m;"
                }
                s.details.append(line)
            }
        }
        return s
    }

    /// The header of ``legFeatureRows(_:)``: user, the leg's span and the rules' class, its features and motion shares,
    /// then the observed labelled seconds inside it per class and the label mode with the most of them.
    public static let legFeatureHeader = (["user", "start_ms", "end_ms", "rule_class"] + ModeFeatures.names + ModeFeatures.motionNames
        + ["foot_s", "bicycle_s", "motorised_s", "label"]).joined(separator: ",")

    /// One CSV row per logged leg (``legFeatureHeader``) that holds observed labelled time, measured as the headline's
    /// 3-class accuracy measures it (``LabelledTimeScores``): labels as written, spans between consecutive fixes of a
    /// label at most `observedGapS` apart, each given to the leg at its first fix.
    public func legFeatureRows(_ log: LegFeatureLog, observedGapS: Double = LabelledTimeScores.Rule().observedGapS) -> [String] {
        let legs = log.entries
        let starts = legs.map(\.startMs)
        var seconds = [[Double]](repeating: [0, 0, 0], count: legs.count)
        var byMode = [[String: Double]](repeating: [:], count: legs.count)
        for label in writtenLabels {
            var i = lowerBound(times, label.startMs)
            while i + 1 < times.count && times[i + 1] <= label.endMs {
                let t = times[i], gap = Double(times[i + 1] - t) / 1000
                i += 1
                guard gap > 0, gap <= observedGapS else { continue }
                let k = lowerBound(starts, t + 1) - 1
                guard k >= 0, legs[k].endMs > t else { continue }
                seconds[k][label.coarse == "foot" ? 0 : label.coarse == "bicycle" ? 1 : 2] += gap
                byMode[k][label.mode, default: 0] += gap
            }
        }
        var out: [String] = []
        for (k, leg) in legs.enumerated() where seconds[k].reduce(0, +) > 0 {
            let label = byMode[k].max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? ""
            let numbers = (leg.features + leg.motion).map { ParameterText.format(($0 * 1e6).rounded() / 1e6) }
            out.append(([name, String(leg.startMs), String(leg.endMs), leg.ruleClass] + numbers + seconds[k].map { ParameterText.format($0) } + [label])
                .joined(separator: ","))
        }
        return out
    }

    /// Scores trackintel's defaults (``TrackintelReference``) on the same fixes with the same scorer.
    public func scoreTrackintel(_ parameters: TrackintelReference.Parameters = .init(), joinGapS: Double = 1800) throws -> RealDataEvaluation.GeoLifeScores {
        var t: [Int64] = [], lat: [Double] = [], lon: [Double] = []
        // One device per user, so key order is time order.
        try store.forEachPointPosition { time, la, lo in
            t.append(time)
            lat.append(la)
            lon.append(lo)
        }
        let out = TrackintelReference.run(time: t, lat: lat, lon: lon, parameters)
        var s = RealDataEvaluation.GeoLifeScores.score(
            truth: truthTrips(joinGapS), found: out.trips.map { Scoring.Interval(startMs: $0.0, endMs: $0.1) }, labels: labels, legs: out.legs,
            fixTimes: times, details: false)
        s.user = name
        s.points = points
        s.labelShiftH = labelShiftH
        s.labelsShifted = labelsShifted
        s.labelsWithoutFixes = labelsWithoutFixes
        s.labelsHoldWalks = writtenLabels.contains { $0.mode == "walk" }
        s.labelledTime = LabelledTimeScores.score(
            labels: writtenLabels, fixTimes: times, fixPositions: positions, trips: out.trips.map { Scoring.Interval(startMs: $0.0, endMs: $0.1) },
            legs: out.legs)
        return s
    }

    /// True trips: labelled legs less than `joinGapS` apart, joined.
    func truthTrips(_ joinGapS: Double) -> [Scoring.Interval] {
        var truth: [Scoring.Interval] = []
        for l in labels {
            if let lastTrip = truth.last, Double(l.startMs - lastTrip.endMs) < joinGapS * 1000 {
                truth[truth.count - 1].endMs = max(lastTrip.endMs, l.endMs)
            } else {
                truth.append(Scoring.Interval(startMs: l.startMs, endMs: l.endMs))
            }
        }
        return truth
    }

    /// The user folders under `paths`: a folder with a `Trajectory` subfolder is one user; any other folder stands for
    /// the user folders in it (sorted by name).
    public static func userDirectories(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        for p in paths {
            let dir = p.hasSuffix("/") && p.count > 1 ? String(p.dropLast()) : p
            if FileSystem.exists(dir + "/Trajectory") { out.append(dir); continue }
            guard FileSystem.kind(dir) == .directory else { throw EvaluationError.notGeoLife(folder: dir, exists: false) }
            let users = try FileSystem.list(dir).sorted().filter { FileSystem.exists(dir + "/" + $0 + "/Trajectory") }
            if users.isEmpty { throw EvaluationError.notGeoLife(folder: dir, exists: true) }
            out += users.map { dir + "/" + $0 }
        }
        return out
    }
}

extension RealDataEvaluation.GeoLifeScores {
    /// Scores rebuilt trips and legs against labels (see ``GeoLifeUser``).
    // Long: its figures share the matching and the sorted labels, each with its rationale; not split in the structural clean-up (it scores the real corpora).
    static func score(truth: [Scoring.Interval], found: [Scoring.Interval], labels: [CorpusReaders.Label], legs: [(Int64, Int64, String)], fixTimes: [Int64],
                      fixPositions: [(lat: Double, lon: Double)]? = nil, travelMinMps: Double = 0, silenceS: Double = 1800, details: Bool) -> Self {
        var s = Self()
        let pairs = Scoring.match(truth: truth, found: found)
        s.truthTrips = truth.count
        s.foundTrips = found.count
        s.matchedTrips = pairs.count
        s.rawTripF1 = Scoring.prf(matched: pairs.count, truth: truth.count, found: found.count).f1
        // Labels sorted by start: a rebuilt interval overlaps a label when some label starting before its end ends after its start.
        var labelEndMax: [Int64] = []
        for lab in labels { labelEndMax.append(max(labelEndMax.last ?? Int64.min, lab.endMs)) }
        let labelStarts = labels.map(\.startMs)
        func overlapsLabel(_ a: Int64, _ b: Int64) -> Bool {
            let k = lowerBound(labelStarts, b) - 1
            guard k >= 0 else { return false }
            // Any label with start < b and end > a.
            var j = k
            while j >= 0 && labelEndMax[j] > a {
                if labels[j].endMs > a { return true }
                j -= 1
            }
            return false
        }
        s.labelledFoundTrips = found.filter { overlapsLabel($0.startMs, $0.endMs) }.count
        (s.tripPrecision, s.tripRecall, s.tripF1) = Scoring.prf(matched: pairs.count, truth: truth.count, found: s.labelledFoundTrips)
        // A secondary figure: each rebuilt trip cut to its labelled part (from the first to the last labelled instant
        // inside it), so that unlabelled walks to and from a labelled vehicle leg do not count against it. Many
        // GeoLife users label only their vehicle legs.
        var clipped: [Scoring.Interval] = []
        for f in found where overlapsLabel(f.startMs, f.endMs) {
            var a = Int64.max, b = Int64.min
            var j = lowerBound(labelStarts, f.endMs) - 1
            while j >= 0 && labelEndMax[j] > f.startMs {
                if labels[j].endMs > f.startMs {
                    a = min(a, max(f.startMs, labels[j].startMs))
                    b = max(b, min(f.endMs, labels[j].endMs))
                }
                j -= 1
            }
            if a < b { clipped.append(Scoring.Interval(startMs: a, endMs: b)) }
        }
        s.matchedClipped = Scoring.match(truth: truth, found: clipped).count
        s.clippedTripF1 = Scoring.prf(matched: s.matchedClipped, truth: truth.count, found: clipped.count).f1
        s.clippedFound = clipped.count
        // The ceiling: an oracle that knows every label but, like any honest rebuild, cannot tell what happened in a
        // silence of `silenceS` or more (the truth's own joining gap). It outputs each true trip's fixes, from the first
        // to the last, cut at those silences. A label that spans a working day with the phone off (a 12-h "car" label
        // over a morning and an evening drive) is then two pieces that each cover less than half of it: no rebuild
        // that does not invent eleven hours of driving can match it. It does what the rebuild may do across a
        // silence: go on when the traveller plainly moved through it (its ends at least `travelMinMps` × its length
        // apart, `trips.travel_min_mps`; `fixPositions` given).
        var pieces: [Scoring.Interval] = []
        func crossed(_ i: Int) -> Bool {
            guard let fixPositions, travelMinMps > 0, i > 0 else { return false }
            let a = fixPositions[i - 1], b = fixPositions[i]
            return Geo.distance(a.lat, a.lon, b.lat, b.lon) >= travelMinMps * Double(fixTimes[i] - fixTimes[i - 1]) / 1000
        }
        for t in truth {
            var i = lowerBound(fixTimes, t.startMs)
            var start: Int64?, previous: Int64 = 0
            while i < fixTimes.count && fixTimes[i] <= t.endMs {
                let x = fixTimes[i]
                if let a = start, Double(x - previous) >= silenceS * 1000, !crossed(i) {
                    pieces.append(Scoring.Interval(startMs: a, endMs: previous))
                    start = x
                } else if start == nil {
                    start = x
                }
                previous = x
                i += 1
            }
            if let a = start, a < previous { pieces.append(Scoring.Interval(startMs: a, endMs: previous)) }
        }
        s.ceilingMatched = Scoring.match(truth: truth, found: pieces).count
        s.ceilingFound = pieces.count
        s.ceilingTripF1 = Scoring.prf(matched: s.ceilingMatched, truth: truth.count, found: pieces.count).f1
        func iso(_ ms: Int64) -> String { CivilTime.iso8601(ms: ms) }
        if details {
            let matchedT = Set(pairs.map(\.0)), matchedF = Set(pairs.map(\.1))
            for (t, trip) in truth.enumerated() where !matchedT.contains(t) {
                let modes = labels.filter { $0.startMs < trip.endMs && $0.endMs > trip.startMs }.map(\.mode)
                s.details.append("missed trip \(iso(trip.startMs))–\(iso(trip.endMs)) \(modes)")
            }
            for (f, trip) in found.enumerated() where !matchedF.contains(f) {
                s.details.append("extra trip \(iso(trip.startMs))–\(iso(trip.endMs))\(overlapsLabel(trip.startMs, trip.endMs) ? "" : " (no label overlaps it)")")
            }
        }
        // Mode accuracy over observed labelled time: each fix inside a label weighs the time to the next fix, at most
        // `observedCapMs` (a label may span a whole day of silence; that time says nothing about the mode). The old
        // figure, over the labels' whole spans, is kept as `spanModeAccuracy`.
        let observedCapMs: Int64 = 60_000
        var total = 0.0, right = 0.0, exact = 0.0
        var spanTotal = 0.0, spanRight = 0.0
        var cursor = 0
        func coarseOf(_ mode: String) -> String { LegMode(rawValue: mode)?.coarse?.rawValue ?? LegMode.Coarse.motorized.rawValue }
        for label in labels {
            let length = Double(label.endMs - label.startMs)
            spanTotal += length
            var here = 0.0, observed = 0.0
            var seen: [String: Double] = [:]
            while cursor < legs.count && legs[cursor].1 <= label.startMs - 86_400_000 { cursor += 1 }
            var k = cursor
            while k < legs.count && legs[k].0 < label.endMs {
                let leg = legs[k]
                k += 1
                guard leg.1 > label.startMs else { continue }
                let ov = Double(min(leg.1, label.endMs) - max(leg.0, label.startMs))
                seen[leg.2, default: 0] += ov
                if coarseOf(leg.2) == label.coarse { spanRight += ov }
            }
            // Observed time, fix by fix, against the leg covering each fix.
            var f = lowerBound(fixTimes, label.startMs)
            var legIndex = cursor
            while f < fixTimes.count && fixTimes[f] <= label.endMs {
                let t = fixTimes[f]
                let next = f + 1 < fixTimes.count ? fixTimes[f + 1] : t + 1000
                let wt = Double(max(0, min(next, label.endMs, t + observedCapMs) - t))
                f += 1
                guard wt > 0 else { continue }
                while legIndex < legs.count && legs[legIndex].1 <= t { legIndex += 1 }
                var mode: String? = nil
                var j = legIndex
                while j < legs.count && legs[j].0 <= t {
                    if legs[j].1 > t { mode = legs[j].2; break }
                    j += 1
                }
                observed += wt
                let coarse = mode.map(coarseOf) ?? "none"
                s.confusion[label.coarse + " → " + coarse, default: 0] += wt / 1000
                if coarse == label.coarse { right += wt; here += wt }
                if let mode, mode == label.exact { exact += wt }
            }
            total += observed
            if details {
                let parts = seen.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value / 1000)) s" }
                s.details.append("label \(iso(label.startMs)) \(label.mode) \(Int(length / 1000)) s (observed \(Int(observed / 1000)) s): \(NumberText.fixed(observed > 0 ? here / observed : 0, decimals: 2)) right; rebuilt \(parts)")
            }
        }
        s.spanLabelledS = spanTotal / 1000
        s.spanRightS = spanRight / 1000
        s.spanModeAccuracy = spanTotal > 0 ? spanRight / spanTotal : 0
        s.labelledS = total / 1000
        s.rightS = right / 1000
        s.exactS = exact / 1000
        s.modeAccuracy = total > 0 ? right / total : 0
        s.exactModeAccuracy = total > 0 ? exact / total : 0
        return s
    }

    /// Pooled scores: counts and labelled time summed over users, then the ratios.
    public static func pooled(_ users: [Self]) -> Self {
        var s = Self()
        s.user = "pooled"
        for u in users {
            s.points += u.points
            s.truthTrips += u.truthTrips
            s.foundTrips += u.foundTrips
            s.matchedTrips += u.matchedTrips
            s.labelledFoundTrips += u.labelledFoundTrips
            s.labelsShifted += u.labelsShifted
            s.labelsWithoutFixes += u.labelsWithoutFixes
            s.matchedClipped += u.matchedClipped
            s.clippedFound += u.clippedFound
            s.ceilingMatched += u.ceilingMatched
            s.ceilingFound += u.ceilingFound
            s.labelledS += u.labelledS
            s.rightS += u.rightS
            s.exactS += u.exactS
            s.spanLabelledS += u.spanLabelledS
            s.spanRightS += u.spanRightS
            for (k, v) in u.confusion { s.confusion[k, default: 0] += v }
            for (k, v) in u.breakdown { s.breakdown[k, default: 0] += v }
        }
        s.labelledTime = LabelledTimeScores.pooled(users.map(\.labelledTime))
        (s.tripPrecision, s.tripRecall, s.tripF1) = Scoring.prf(matched: s.matchedTrips, truth: s.truthTrips, found: s.labelledFoundTrips)
        s.rawTripF1 = Scoring.prf(matched: s.matchedTrips, truth: s.truthTrips, found: s.foundTrips).f1
        s.clippedTripF1 = Scoring.prf(matched: s.matchedClipped, truth: s.truthTrips, found: s.clippedFound).f1
        s.ceilingTripF1 = Scoring.prf(matched: s.ceilingMatched, truth: s.truthTrips, found: s.ceilingFound).f1
        s.modeAccuracy = s.labelledS > 0 ? s.rightS / s.labelledS : 0
        s.exactModeAccuracy = s.labelledS > 0 ? s.exactS / s.labelledS : 0
        s.spanModeAccuracy = s.spanLabelledS > 0 ? s.spanRightS / s.spanLabelledS : 0
        return s
    }

    /// One aligned table row: user, points, trips (labelled / rebuilt in labelled time / matched), P, R, F1, modes.
    public var row: String {
        func pad(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
        return pad(user, 6) + pad(NumberText.fixed(labelledTime.f1, decimals: 3), 7) + pad(NumberText.fixed(labelledTime.oracleF1, decimals: 3), 7)
            + pad(NumberText.fixed(labelledTime.modeAccuracy, decimals: 3), 7) + "  |" + pad(String(points), 8) + pad(String(truthTrips), 6) + pad(String(labelledFoundTrips), 6) + pad(String(matchedTrips), 6)
            + pad(NumberText.fixed(tripPrecision, decimals: 2), 6) + pad(NumberText.fixed(tripRecall, decimals: 2), 6) + pad(NumberText.fixed(tripF1, decimals: 2), 6)
            + pad(format3(modeAccuracy), 7) + pad(format3(exactModeAccuracy), 7) + pad(String(Int(labelledS / 60)), 7) + pad(format3(spanModeAccuracy), 7) + pad(NumberText.fixed(clippedTripF1, decimals: 2), 6)
            + pad(NumberText.fixed(ceilingTripF1, decimals: 2), 7)
            + (labelsShifted > 0 ? "  \(labelsShifted) labels moved ±8 h" : "")
            + (labelsWithoutFixes > 0 ? "  \(labelsWithoutFixes) labels without fixes left out" : "")
    }

    public static let header = "  user  ltF1  oracle  obs3  |  points truth found match     P     R    F1  3-cls  exact obs_min span3 clipF1 ceilF1"
}
