import TriplineCore
import TriplineImport
import TriplinePasses
import TriplineStore

/// The ground truth of the labelled real corpora used to score the rebuild (GeoLife `labels.txt`). The location
/// files themselves (`.plt`, GPX) are read by the importer, as a user's would be.
public enum CorpusReaders {
    /// `YYYY-MM-DD` + `HH:MM:SS[.fff]` (or `YYYY/MM/DD`), UTC, to ms.
    static func parseTime(date: Substring, time: Substring) -> Int64? {
        let d = date.split(whereSeparator: { $0 == "-" || $0 == "/" })
        let t = time.split(separator: ":")
        guard d.count == 3, t.count == 3, let y = Int(d[0]), let m = Int(d[1]), let day = Int(d[2]),
            let hh = Int(t[0]), let mm = Int(t[1]), let ss = Double(t[2])
        else { return nil }
        let days = CivilTime.daysFromCivil(year: y, month: m, day: day)
        return Int64(days) * 86_400_000 + Int64(hh * 3600 + mm * 60) * 1000 + Int64((ss * 1000).rounded())
    }

    /// A labelled GeoLife interval.
    public struct Label: Sendable {
        public var startMs: Int64
        public var endMs: Int64
        public var mode: String
        /// foot, bicycle or motorized.
        public var coarse: String {
            switch mode {
            case "walk", "run": return "foot"
            case "bike": return "bicycle"
            default: return "motorized"
            }
        }
        /// The rebuilt mode that names the label exactly.
        public var exact: String {
            switch mode {
            case "walk": return "walk"
            case "run": return "run"
            case "bike": return "cycle"
            case "bus": return "bus"
            case "taxi", "car": return "car"
            case "train", "subway", "railway": return "train"
            case "airplane": return "plane"
            case "boat": return "boat"
            default: return mode
            }
        }
    }

    /// `labels.txt`: a header line, then `start<TAB>end<TAB>mode` in GMT.
    public static func readLabels(_ path: String) throws -> [Label] {
        let text = String(decoding: try FileSystem.read(path), as: UTF8.self)
        var labels: [Label] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).dropFirst() {
            let f = line.split(separator: "\t")
            guard f.count >= 3 else { continue }
            let s = f[0].split(separator: " "), e = f[1].split(separator: " ")
            guard s.count == 2, e.count == 2, let a = parseTime(date: s[0], time: s[1]), let b = parseTime(date: e[0], time: e[1]) else { continue }
            labels.append(Label(startMs: a, endMs: b, mode: String(f[2]).trimmingCharacters(in: "\r ")))
        }
        return labels
    }

}

/// Three decimals (mode accuracies move by less than 0.01 between parameter choices).
public func format3(_ v: Double) -> String {
    let s = String((v * 1000).rounded() / 1000)
    guard let dot = s.firstIndex(of: ".") else { return s + ".000" }
    return s + String(repeating: "0", count: max(0, 3 - s.distance(from: dot, to: s.endIndex) + 1))
}

/// Scores on real labelled data.
public enum RealDataEvaluation {
    public struct GeoLifeScores: Sendable {
        public var points = 0
        public var truthTrips = 0, foundTrips = 0, matchedTrips = 0
        /// Trip scores over labelled time only: rebuilt trips that overlap no label are left out (the labeller skipped
        /// those files, so whether they are trips is unknown). This is how trackintel's reference F1 (0.913 on 020) is
        /// computed: counting its trips in unlabelled files too gives 0.857 (see docs/PASSES.md, "Scores").
        public var tripF1 = 0.0, tripPrecision = 0.0, tripRecall = 0.0
        /// Rebuilt trips that overlap at least one label.
        public var labelledFoundTrips = 0
        /// F1 with every rebuilt trip counted, those in unlabelled time as false positives.
        public var rawTripF1 = 0.0
        /// Share of observed labelled time (each fix weighs the time to the next, at most 60 s) whose rebuilt leg has
        /// the label's class (foot / bicycle / motorized).
        public var modeAccuracy = 0.0
        /// Share of labelled time whose rebuilt leg has the label's own mode (walk, bike→cycle, bus, taxi/car→car,
        /// train/subway→train).
        public var exactModeAccuracy = 0.0
        /// The labelled-time rule's misses by kind (``LabelledTimeScores/breakdown(labels:fixTimes:fixPositions:trips:visits:rule:)``).
        public var breakdown: [String: Int] = [:]
        /// Unmatched trips and each label's rebuilt modes (for `evaluate --details`).
        public var details: [String] = []
        /// The user (folder name), or `pooled`.
        public var user = ""
        /// Hours the labels were shifted to match the fixes' clock (see ``GeoLifeUser``).
        public var labelShiftH = 0
        /// Trip F1 with each rebuilt trip cut to its labelled part (unlabelled walks at its ends ignored), and its counts.
        public var clippedTripF1 = 0.0, matchedClipped = 0, clippedFound = 0
        /// The most trip F1 a rebuild can reach without inventing travel in silences: an oracle that knows the labels
        /// and outputs, for each true trip, its fixes' span cut at every silence of 30 min or more (the truth's own
        /// joining gap; see `score`), and its counts. It is not a strict bound (a rebuild may guess across a silence
        /// and be right), but a rebuild that does not invent travel in silences cannot beat it by much.
        public var ceilingTripF1 = 0.0, ceilingMatched = 0, ceilingFound = 0
        /// Labels moved to the fixes' clock.
        public var labelsShifted = 0
        /// Labels holding no fix, left out.
        public var labelsWithoutFixes = 0
        /// Whether the user's label file holds `walk` rows (most copies lost theirs: ../shared/corpus/PROVENANCE.md,
        /// section 4), so that a walk it does not label, outside its labelled time and within 300 m, counts as drift.
        public var labelsHoldWalks = false
        /// Labelled seconds, and those whose rebuilt leg has the right class / exact mode (pooling sums these).
        public var labelledS = 0.0, rightS = 0.0, exactS = 0.0
        /// 3-class accuracy over the labels' whole spans (silences included), and its sums.
        public var spanModeAccuracy = 0.0, spanLabelledS = 0.0, spanRightS = 0.0
        /// Seconds of labelled time by "label class → rebuilt class" (`none`: no leg).
        public var confusion: [String: Double] = [:]
        /// The headline: trips and modes scored on labelled time (``LabelledTimeScores``); the figures above are the
        /// strict ones, on shifted labels with every rebuilt trip that overlaps a label counted whole.
        public var labelledTime = LabelledTimeScores()
        public var report: String {
            labelledTime.line + "; strict: points \(points); trips: labelled \(truthTrips), rebuilt \(foundTrips) (\(labelledFoundTrips) in labelled time), "
                + "matched \(matchedTrips); precision \(NumberText.fixed(tripPrecision, decimals: 2)), recall \(NumberText.fixed(tripRecall, decimals: 2)), F1 \(NumberText.fixed(tripF1, decimals: 2)) "
                + "(raw F1 \(NumberText.fixed(rawTripF1, decimals: 2)) counting the \(foundTrips - labelledFoundTrips) rebuilt trips in unlabelled time); "
                + "3-class mode accuracy \(format3(modeAccuracy)), exact \(format3(exactModeAccuracy))"
        }
    }

    /// Imports a GeoLife user directory (`Trajectory/*.plt`, `labels.txt`) through the importer, rebuilds, and scores
    /// trips and modes (see ``GeoLifeUser``). Labelled legs less than `joinGapS` apart form one trip.
    public static func geolife(userDirectory dir: String, workDirectory: String, settings: PassSettings = PassSettings(), joinGapS: Double = 1800) throws -> GeoLifeScores {
        try GeoLifeUser(directory: dir, workDirectory: workDirectory).score(settings: settings, joinGapS: joinGapS)
    }

    public struct VisitScores: Sendable {
        public var expected = 0, found = 0, matched = 0
        public var precision = 0.0, recall = 0.0, f1 = 0.0
        public var details: [String] = []
        public var report: String {
            "visits: expected \(expected), rebuilt \(found), matched \(matched) (IoU ≥ 0.5 and centre within 150 m); "
                + "precision \(NumberText.fixed(precision, decimals: 2)), recall \(NumberText.fixed(recall, decimals: 2)), F1 \(NumberText.fixed(f1, decimals: 2))"
        }
    }

    /// Rebuilds GPX files as one device and scores visits against reitti's expectations
    /// (`EXPECTED_visits_trips_from_reitti_tests.csv` rows of `scenario`, places from `EXPECTED_places…`).
    public static func reitti(gpxFiles: [String], scenario: String, corpus: String, workDirectory: String, settings: PassSettings = PassSettings()) throws -> VisitScores {
        let store = try Store(path: workDirectory + "/reitti.sqlite")
        let summary = try Importer(store: store, options: ImportOptions(device: "gpslogger")).importPaths(gpxFiles)
        if let bad = summary.files.first(where: { $0.status == .failed }) { throw EvaluationError.importFailed(path: bad.path, message: bad.message) }
        var options = Rebuild.Options()
        options.settings = settings
        options.timeZoneName = "Europe/Berlin"
        options.full = true
        _ = try Rebuild(store: store, options: options).run()
        var places: [String: (Double, Double)] = [:]
        let placeText = String(decoding: try FileSystem.read(corpus + "/EXPECTED_places_from_reitti_tests.csv"), as: UTF8.self)
        for line in placeText.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            if f.count >= 3, let lat = Double(f[1]), let lon = Double(f[2]) { places[String(f[0])] = (lat, lon) }
        }
        var expected: [(Scoring.Interval, String)] = []
        let visitText = String(decoding: try FileSystem.read(corpus + "/EXPECTED_visits_trips_from_reitti_tests.csv"), as: UTF8.self)
        for line in visitText.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 6, f[0] == scenario, f[1] == "visit", let a = Timestamp.parseISO8601(String(f[3]))?.ms, let b = Timestamp.parseISO8601(String(f[4]))?.ms else { continue }
            expected.append((Scoring.Interval(startMs: a, endMs: b), String(f[5])))
        }
        let found: [(Scoring.Interval, Double, Double)] = try store.visits().map { v in (Scoring.Interval(startMs: v.startMs, endMs: v.endMs), v.lat, v.lon) }
        // One-to-one by IoU ≥ 0.5, then the place check.
        let pairs = Scoring.match(truth: expected.map(\.0), found: found.map(\.0))
        var s = VisitScores()
        s.expected = expected.count
        s.found = found.count
        var matchedT = Set<Int>()
        for (t, f) in pairs {
            guard let place = places[expected[t].1] else { continue }
            let d = Geo.distance(place.0, place.1, found[f].1, found[f].2)
            if d <= 150 { s.matched += 1; matchedT.insert(t) } else { s.details.append("visit \(t) centre \(Int(d)) m from \(expected[t].1)") }
        }
        for (t, e) in expected.enumerated() where !matchedT.contains(t) {
            s.details.append("missed \(e.1) \(CivilTime.iso8601(ms: e.0.startMs))–\(CivilTime.iso8601(ms: e.0.endMs))")
        }
        for f in found { s.details.append("rebuilt \(CivilTime.iso8601(ms: f.0.startMs))–\(CivilTime.iso8601(ms: f.0.endMs))") }
        (s.precision, s.recall, s.f1) = Scoring.prf(matched: s.matched, truth: s.expected, found: s.found)
        return s
    }
}
