import TriplineCore
import TriplinePasses
import TriplineSimulator
import TriplineStore

/// Small readers for the labelled real corpora used to score the rebuild: GeoLife `.plt` + `labels.txt`, and GPX
/// track points (enough for the reitti recordings; the importer has the full GPX reader).
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

    /// `2025-06-16T22:00:09.154Z` or with a `±HH:MM` offset, to UTC ms.
    static func parseISO(_ s: Substring) -> Int64? {
        guard let tIndex = s.firstIndex(of: "T") else { return nil }
        let date = s[..<tIndex]
        var rest = s[s.index(after: tIndex)...]
        var offset = 0
        if rest.hasSuffix("Z") {
            rest = rest.dropLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let o = rest[rest.index(after: sign)...].split(separator: ":")
            if o.count >= 1, let h = Int(o[0].prefix(2)) {
                let m = o.count > 1 ? Int(o[1]) ?? 0 : Int(o[0].dropFirst(2)) ?? 0
                offset = (h * 3600 + m * 60) * (rest[sign] == "-" ? -1 : 1)
            }
            rest = rest[..<sign]
        }
        guard let ms = parseTime(date: date, time: rest) else { return nil }
        return ms - Int64(offset) * 1000
    }

    /// The points of a GeoLife `.plt` file (6 header lines; `lat,lon,0,alt_ft,days,date,time`, GMT; CRLF).
    public static func readPLT(_ path: String) throws -> [Point] {
        let text = String(decoding: try FileSystem.read(path), as: UTF8.self)
        var points: [Point] = []
        for (n, raw) in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() where n >= 6 {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            let f = line.split(separator: ",")
            guard f.count >= 7, let lat = Double(f[0]), let lon = Double(f[1]), let t = parseTime(date: f[5], time: f[6]) else { continue }
            let feet = Double(f[3]) ?? -777
            points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, altitudeM: feet == -777 ? nil : feet * 0.3048))
        }
        return points
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

    /// Every `<trkpt lat=".." lon="..">` with its `<time>` (and `<ele>`), by plain byte scanning.
    public static func readGPXTrackPoints(_ path: String) throws -> [Point] {
        let text = String(decoding: try FileSystem.read(path), as: UTF8.self)
        var points: [Point] = []
        var rest = text[...]
        func attribute(_ tag: Substring, _ name: String) -> Double? {
            guard let r = tag.range(of: name + "=\"") else { return nil }
            let after = tag[r.upperBound...]
            guard let q = after.firstIndex(of: "\"") else { return nil }
            return Double(after[..<q])
        }
        func element(_ body: Substring, _ name: String) -> Substring? {
            guard let a = body.range(of: "<" + name + ">"), let b = body.range(of: "</" + name + ">", range: a.upperBound..<body.endIndex) else { return nil }
            return body[a.upperBound..<b.lowerBound]
        }
        while let start = rest.range(of: "<trkpt") {
            guard let close = rest.range(of: "</trkpt>", range: start.upperBound..<rest.endIndex) else { break }
            let chunk = rest[start.lowerBound..<close.upperBound]
            let tagEnd = chunk.firstIndex(of: ">") ?? chunk.endIndex
            let tag = chunk[..<tagEnd]
            if let lat = attribute(tag, "lat"), let lon = attribute(tag, "lon"), let time = element(chunk, "time"), let t = parseISO(time) {
                let ele = element(chunk, "ele").flatMap { Double($0) }
                let acc = element(chunk, "accuracy").flatMap { Double($0) }
                let speed = element(chunk, "speed").flatMap { Double($0) }
                points.append(Point(deviceID: 0, timeMs: t, lat: lat, lon: lon, altitudeM: ele, speedMps: speed, accuracyM: acc))
            }
            rest = rest[close.upperBound...]
        }
        return points.sorted { $0.timeMs < $1.timeMs }
    }
}

extension Substring {
    /// The first occurrence of `needle` (compared as UTF-8 bytes), searched within `range` when given.
    func range(of needle: String, range: Range<Substring.Index>? = nil) -> Range<Substring.Index>? {
        let hay = range.map { self[$0] } ?? self[...]
        let n = Array(needle.utf8)
        guard let first = n.first else { return nil }
        let u = hay.utf8
        var ui = u.startIndex
        while ui != u.endIndex {
            if u[ui] == first {
                var j = ui, k = 0
                while k < n.count && j != u.endIndex && u[j] == n[k] {
                    j = u.index(after: j)
                    k += 1
                }
                if k == n.count { return ui..<j }
            }
            ui = u.index(after: ui)
        }
        return nil
    }
}

/// Three decimals (mode accuracies move by less than 0.01 between parameter choices).
func format3(_ v: Double) -> String {
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
        /// Share of labelled time whose rebuilt leg has the label's class (foot / bicycle / motorized).
        public var modeAccuracy = 0.0
        /// Share of labelled time whose rebuilt leg has the label's own mode (walk, bike→cycle, bus, taxi/car→car,
        /// train/subway→train).
        public var exactModeAccuracy = 0.0
        /// Unmatched trips and each label's rebuilt modes (for `evaluate --details`).
        public var details: [String] = []
        public var report: String {
            "points \(points); trips: labelled \(truthTrips), rebuilt \(foundTrips) (\(labelledFoundTrips) in labelled time), "
                + "matched \(matchedTrips); precision \(NumberText.fixed(tripPrecision, decimals: 2)), recall \(NumberText.fixed(tripRecall, decimals: 2)), F1 \(NumberText.fixed(tripF1, decimals: 2)) "
                + "(raw F1 \(NumberText.fixed(rawTripF1, decimals: 2)) counting the \(foundTrips - labelledFoundTrips) rebuilt trips in unlabelled time); "
                + "3-class mode accuracy \(format3(modeAccuracy)), exact \(format3(exactModeAccuracy))"
        }
    }

    /// Imports a GeoLife user directory (`Trajectory/*.plt`, `labels.txt`), rebuilds, and scores trips and modes.
    /// Labelled legs less than `joinGapS` apart form one trip.
    public static func geolife(userDirectory dir: String, workDirectory: String, settings: PassSettings = PassSettings(), joinGapS: Double = 1800) throws -> GeoLifeScores {
        var points: [Point] = []
        for name in try FileSystem.list(dir + "/Trajectory") where name.hasSuffix(".plt") {
            points += try CorpusReaders.readPLT(dir + "/Trajectory/" + name)
        }
        points.sort { $0.timeMs < $1.timeMs }
        let store = try Store(path: workDirectory + "/geolife.sqlite")
        try store.db.transaction {
            let id = try store.deviceID(named: "geolife", source: "geolife", origin: "test")
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = 1; return p })
        }
        var options = Rebuild.Options()
        options.settings = settings
        options.timeZoneName = "Asia/Shanghai"
        options.full = true
        _ = try Rebuild(store: store, options: options).run()
        guard let first = points.first?.timeMs, let last = points.last?.timeMs else { return GeoLifeScores() }
        let labels = try CorpusReaders.readLabels(dir + "/labels.txt").filter { $0.endMs >= first && $0.startMs <= last }.sorted { $0.startMs < $1.startMs }
        var truth: [Scoring.Interval] = []
        for l in labels {
            if let lastTrip = truth.last, Double(l.startMs - lastTrip.endMs) < joinGapS * 1000 {
                truth[truth.count - 1].endMs = max(lastTrip.endMs, l.endMs)
            } else {
                truth.append(Scoring.Interval(startMs: l.startMs, endMs: l.endMs))
            }
        }
        var found: [Scoring.Interval] = []
        let q = try store.db.prepare("SELECT start_ms, end_ms FROM trips ORDER BY start_ms")
        while try q.step() { found.append(Scoring.Interval(startMs: q.int64(0), endMs: q.int64(1))) }
        let pairs = Scoring.match(truth: truth, found: found)
        var s = GeoLifeScores()
        s.points = points.count
        s.truthTrips = truth.count
        s.foundTrips = found.count
        s.matchedTrips = pairs.count
        s.rawTripF1 = Scoring.prf(matched: pairs.count, truth: truth.count, found: found.count).f1
        s.labelledFoundTrips = found.filter { f in labels.contains { $0.startMs < f.endMs && $0.endMs > f.startMs } }.count
        (s.tripPrecision, s.tripRecall, s.tripF1) = Scoring.prf(matched: pairs.count, truth: truth.count, found: s.labelledFoundTrips)
        func iso(_ ms: Int64) -> String { CivilTime.iso8601(ms: ms) }
        let matchedT = Set(pairs.map(\.0)), matchedF = Set(pairs.map(\.1))
        for (t, trip) in truth.enumerated() where !matchedT.contains(t) {
            let modes = labels.filter { $0.startMs < trip.endMs && $0.endMs > trip.startMs }.map(\.mode)
            s.details.append("missed trip \(iso(trip.startMs))–\(iso(trip.endMs)) \(modes)")
        }
        for (f, trip) in found.enumerated() where !matchedF.contains(f) {
            let labelled = labels.contains { $0.startMs < trip.endMs && $0.endMs > trip.startMs }
            s.details.append("extra trip \(iso(trip.startMs))–\(iso(trip.endMs))\(labelled ? "" : " (no label overlaps it)")")
        }
        var legs: [(Int64, Int64, String)] = []
        let l = try store.db.prepare("SELECT start_ms, end_ms, mode FROM legs ORDER BY start_ms")
        while try l.step() { legs.append((l.int64(0), l.int64(1), l.text(2) ?? "")) }
        var total = 0.0, right = 0.0, exact = 0.0
        for label in labels {
            let length = Double(label.endMs - label.startMs)
            total += length
            var here = 0.0
            var seen: [String: Double] = [:]
            for leg in legs where leg.0 < label.endMs && leg.1 > label.startMs {
                let ov = Double(min(leg.1, label.endMs) - max(leg.0, label.startMs))
                seen[leg.2, default: 0] += ov
                if (TravelMode(rawValue: leg.2)?.coarseClass ?? "motorized") == label.coarse { right += ov; here += ov }
                if leg.2 == label.exact { exact += ov }
            }
            let parts = seen.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value / 1000)) s" }
            s.details.append(
                "label \(iso(label.startMs)) \(label.mode) \(Int(length / 1000)) s: \(NumberText.fixed(length > 0 ? here / length : 0, decimals: 2)) right; rebuilt \(parts)")
        }
        let trips = try store.db.prepare("SELECT id, start_ms, end_ms, distance_m FROM trips ORDER BY start_ms")
        let tripLegs = try store.db.prepare("SELECT start_ms, end_ms, mode, mode_source, distance_m FROM legs WHERE trip_id = ? ORDER BY start_ms")
        while try trips.step() {
            var line = "rebuilt trip \(iso(trips.int64(1)))–\(iso(trips.int64(2))) \(Int(trips.double(3))) m:"
            tripLegs.reset()
            tripLegs.bindInt(trips.int64(0), at: 1)
            while try tripLegs.step() {
                line += " \(tripLegs.text(2) ?? "")/\(tripLegs.text(3) ?? "") \((tripLegs.int64(1) - tripLegs.int64(0)) / 1000) s \(Int(tripLegs.double(4))) m;"
            }
            s.details.append(line)
        }
        s.modeAccuracy = total > 0 ? right / total : 0
        s.exactModeAccuracy = total > 0 ? exact / total : 0
        return s
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
        var points: [Point] = []
        for f in gpxFiles { points += try CorpusReaders.readGPXTrackPoints(f) }
        let store = try Store(path: workDirectory + "/reitti.sqlite")
        try store.db.transaction {
            let id = try store.deviceID(named: "gpslogger", source: "gpx", origin: "test")
            try store.insertPoints(points.map { var p = $0; p.deviceID = id; p.importID = 1; return p })
        }
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
            guard f.count >= 6, f[0] == scenario, f[1] == "visit", let a = CorpusReaders.parseISO(f[3]), let b = CorpusReaders.parseISO(f[4]) else { continue }
            expected.append((Scoring.Interval(startMs: a, endMs: b), String(f[5])))
        }
        var found: [(Scoring.Interval, Double, Double)] = []
        let q = try store.db.prepare("SELECT start_ms, end_ms, lat, lon FROM visits ORDER BY start_ms")
        while try q.step() { found.append((Scoring.Interval(startMs: q.int64(0), endMs: q.int64(1)), q.double(2), q.double(3))) }
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
