import TriplineCore

/// Writers that turn a simulation into the files the apps (and their servers) really produce, plus `truth.json`.
///
/// - Overland: POST bodies `{"locations":[…]}` of about 200 features, timestamps like `2015-10-01T08:00:00-0700`,
///   `"type":"trip"` records after a recorded trip's last point, and some batches sent twice (a retry after a lost reply).
/// - OwnTracks Recorder: `rec/<user>/<device>/YYYY-MM.rec`, lines `ISO-receive-time \t topic-suffix(18) \t JSON`,
///   with `tst` in epoch seconds, `vel` in km/h, `acc` in metres, zero-valued fields omitted, an `lwt` line now and then.
public enum SimulationWriter {
    /// How the archives are written.
    public struct Options: Sendable {
        /// Damage and quirks that real archives have (on for `SampleData/`, off for the scored tests): a handful
        /// each of truncation, partial re-sends, action and visit records, `Z` timestamps with fractional seconds,
        /// out-of-range / (0,0) / pre-2000 records, `"NaN"` strings, space-separated and string-`tst` Recorder
        /// lines, duplicate and broken lines, `lwt`/`transition`/`waypoint` messages (see docs/SIMULATOR.md).
        /// Injected junk is never a real position (it is rejected, or a duplicate of a fix written intact), and
        /// every real fix still arrives intact at least once, so `truth.json` still holds.
        public var quirks: Bool

        public init(quirks: Bool = false) {
            self.quirks = quirks
        }
    }

    /// Writes every device's archive and `truth.json` under `directory`. Returns the files written.
    @discardableResult
    public static func write(_ result: SimulationResult, to directory: String, options: Options = Options()) throws -> [String] {
        var files: [String] = []
        for device in result.devices {
            // One generator per device: a device's files do not depend on the others' (and a month file written
            // from the first part of a simulation is a prefix of the whole one's).
            var rng = SplitMix64.derived(result.config.seed, 0xF11E5, UInt64(device.person))
            switch device.app {
            case .overland:
                files += try writeOverland(device, directory: directory, rng: &rng, quirks: options.quirks, deferred: result.config.profile != .classic)
            case .owntracks: files += try writeOwnTracks(device, directory: directory, rng: &rng, quirks: options.quirks)
            case .logger: files += try writeGPX(device, directory: directory)
            }
        }
        let truthPath = directory + "/truth.json"
        try FileSystem.write(truthJSON(result), to: truthPath)
        files.append(truthPath)
        return files
    }

    // MARK: JSON helpers

    static func number(_ value: Double, decimals: Int) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (value * scale).rounded() / scale
        var text = String(r)
        if text.contains("e") { text = String(Int64(r)) }
        return text
    }

    /// A JSON string literal, through the one JSON escaper (``JSONText/quoted(_:)``).
    static func string(_ s: String) -> String { JSONText.quoted(s) }

    /// `2015-10-01T08:00:00-0700`: Overland's timestamp, the offset without a colon; with `zulu`,
    /// `2015-10-01T15:00:00.000Z` (UTC with milliseconds, as some app builds and servers write it).
    static func overlandTime(_ ms: Int64, _ offset: Int32, zulu: Bool = false) -> String {
        if zulu { return CivilTime.iso8601(ms: ms, alwaysMilliseconds: true) }
        var text = CivilTime.iso8601(ms: ms, offset: UTCOffset(seconds: offset))
        if text.count >= 3 {
            let idx = text.index(text.endIndex, offsetBy: -3)
            if text[idx] == ":" { text.remove(at: idx) }
        }
        return text
    }

    // MARK: Overland

    static func overlandFeature(_ p: Point, deviceName: String, zulu: Bool = false, nanSpeed: Bool = false) -> String {
        var props: [String] = []
        props.append("\"timestamp\":" + string(overlandTime(p.timeMs, p.utcOffsetS ?? 0, zulu: zulu)))
        if let a = p.altitudeM { props.append("\"altitude\":" + number(a, decimals: 1)) }
        props.append("\"speed\":" + (nanSpeed ? "\"NaN\"" : p.speedMps.map { number($0, decimals: 2) } ?? "-1"))
        if let c = p.courseDeg { props.append("\"course\":" + number(c, decimals: 0)) }
        props.append("\"horizontal_accuracy\":" + number(p.accuracyM ?? 65, decimals: 0))
        props.append("\"vertical_accuracy\":" + (p.vAccuracyM.map { number($0, decimals: 0) } ?? "-1"))
        let motion = (p.motion ?? "").split(separator: ",").map { string(String($0)) }.joined(separator: ",")
        props.append("\"motion\":[\(motion)]")
        props.append("\"battery_state\":" + string(p.batteryState ?? "unknown"))
        props.append("\"battery_level\":" + number(p.batteryLevel ?? -1, decimals: 2))
        props.append("\"device_id\":" + string(deviceName))
        props.append("\"wifi\":" + string(p.ssid ?? ""))
        if let tripID = p.appTripID { props.append("\"trip_id\":" + string(tripID)) }
        if let mode = p.appTripMode { props.append("\"trip_mode\":" + string(mode)) }
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(p.lon, decimals: 7)),\(number(p.lat, decimals: 7))]},\"properties\":{\(props.joined(separator: ","))}}"
    }

    package static func overlandTrip(_ t: AppTripRecord, deviceName: String, zulu: Bool = false) -> String {
        func location(_ lat: Double, _ lon: Double, _ ms: Int64) -> String {
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(lon, decimals: 7)),\(number(lat, decimals: 7))]},\"properties\":{\"timestamp\":\(string(overlandTime(ms, t.utcOffsetS, zulu: zulu)))}}"
        }
        let props = [
            "\"type\":\"trip\"", "\"mode\":" + string(t.mode), "\"start\":" + string(overlandTime(t.startMs, t.utcOffsetS, zulu: zulu)),
            "\"end\":" + string(overlandTime(t.endMs, t.utcOffsetS, zulu: zulu)), "\"duration\":" + String((t.endMs - t.startMs) / 1000),
            "\"distance\":" + number(t.distanceM, decimals: 1), "\"start_location\":" + location(t.startLat, t.startLon, t.startMs),
            "\"end_location\":" + location(t.endLat, t.endLon, t.endMs), "\"steps\":0", "\"stopped_automatically\":false",
            "\"device_id\":" + string(deviceName), "\"wifi\":\"\"",
        ]
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(t.endLon, decimals: 7)),\(number(t.endLat, decimals: 7))]},\"properties\":{\(props.joined(separator: ","))}}"
    }

    /// One record of an Overland archive before it is rendered into a batch.
    enum OverlandItem {
        /// A real fix (`nanSpeed`: its unknown speed written as the string `"NaN"`).
        case point(Point, nanSpeed: Bool)
        case trip(AppTripRecord)
        /// An injected record (action, visit, junk), already rendered.
        case raw(String)
    }

    static func render(_ item: OverlandItem, deviceName: String, zulu: Bool) -> String {
        switch item {
        case .point(let p, let nanSpeed): return overlandFeature(p, deviceName: deviceName, zulu: zulu, nanSpeed: nanSpeed)
        case .trip(let t): return overlandTrip(t, deviceName: deviceName, zulu: zulu)
        case .raw(let text): return text
        }
    }

    /// - Parameter deferred: the profiles other than `classic`: batches posted as the app's send queue posts them
    ///   (``overlandUploads(_:isPoint:rng:)``): late, after offline spells, `points_per_batch` at most, with `current`.
    // Long by design: items in time order, then batches (two ways), then the files with the retries and quirks of each.
    static func writeOverland(_ device: SimulatedDevice, directory: String, rng: inout SplitMix64, quirks: Bool = false, deferred: Bool = false) throws -> [String] {
        let dir = directory + "/overland/" + device.name
        try FileSystem.createDirectory(dir, inside: directory)
        // Features in time order; a trip record follows the trip's last point.
        var items: [OverlandItem] = []
        var times: [Int64] = []
        var trips = device.appTrips.sorted { $0.endMs < $1.endMs }[...]
        var events = device.events[...]
        for p in device.points {
            while let t = trips.first, t.endMs <= p.timeMs {
                items.append(.trip(t))
                times.append(t.endMs)
                trips = trips.dropFirst()
            }
            while let e = events.first, e.timeMs <= p.timeMs {
                items.append(.raw(e.raw))
                times.append(e.timeMs)
                events = events.dropFirst()
            }
            items.append(.point(p, nanSpeed: false))
            times.append(p.timeMs)
        }
        for t in trips { items.append(.trip(t)); times.append(t.endMs) }
        for e in events { items.append(.raw(e.raw)); times.append(e.timeMs) }
        if quirks { injectOverlandQuirks(&items, deviceName: device.name) }
        // The batches: item ranges, each with the `current` point sent along (deferred uploads only).
        var uploads: [(range: Range<Int>, current: Int?)] = []
        if deferred {
            // Quirks insert records without a time of their own: they take the time of the item before them.
            if times.count != items.count {
                times = []
                var last: Int64 = 0
                for item in items {
                    switch item {
                    case .point(let p, _): last = p.timeMs
                    case .trip(let t): last = t.endMs
                    case .raw: break
                    }
                    times.append(last)
                }
            }
            let isPoint = items.map { if case .point = $0 { return true } else { return false } }
            uploads = overlandUploads(times, isPoint: isPoint, rng: &rng)
        } else {
            var index = 0
            var batches = 0
            while index < items.count {
                let size = 150 + rng.int(101)
                uploads.append((index..<min(items.count, index + size), nil))
                batches += 1
                index += size
                // Quirks: every 5th batch from the 5th on, the next one re-sends the last 20–59 features (a batch that
                // was partly acknowledged), so they arrive twice in different files.
                if quirks && batches % 5 == 0 && index < items.count { index -= 20 + rng.int(40) }
            }
        }
        var files: [String] = []
        var sequence = 0
        var batches = 0
        var lastBody = ""
        for upload in uploads {
            let batch = items[upload.range]
            batches += 1
            // Quirks: the 3rd batch written with UTC `Z` timestamps and milliseconds.
            let zulu = quirks && batches == 3
            var body = "{\"locations\":[\n" + batch.map { render($0, deviceName: device.name, zulu: zulu) }.joined(separator: ",\n") + "\n]"
            if let c = upload.current { body += ",\n\"current\":" + render(items[c], deviceName: device.name, zulu: zulu) }
            body += "}\n"
            let copies = rng.chance(0.06) ? 2 : 1  // a retry after the server's reply was lost
            for _ in 0..<copies {
                sequence += 1
                let path = dir + "/batch-" + CivilTime.pad(sequence, 5) + ".json"
                try FileSystem.write(body, to: path)
                files.append(path)
            }
            lastBody = body
        }
        if quirks && !lastBody.isEmpty {
            // The last file: a retry of the last batch cut mid-write (the server died while saving it). Its complete
            // features are duplicates; the one cut in two is rejected as truncated.
            var cut = Array(lastBody.utf8)
            cut.removeLast(cut.count * 2 / 5)
            sequence += 1
            let path = dir + "/batch-" + CivilTime.pad(sequence, 5) + ".json"
            try FileSystem.write(cut, to: path)
            files.append(path)
        }
        return files
    }

    /// An index drawn with the given weights (summing to 1).
    static func pick(_ weights: [Double], _ rng: inout SplitMix64) -> Int {
        var u = rng.double()
        for (k, w) in weights.enumerated() {
            if u < w { return k }
            u -= w
        }
        return weights.count - 1
    }

    /// How Overland's send queue posts an archive's items (in time order; `times` their record times): the batches
    /// as item ranges, in the order the server received them, each with the index of the `current` point sent along.
    ///
    /// Per device, the app's settings (../shared/formats/overland-settings.txt, overland-api.txt): "Locations per
    /// Batch" (`points_per_batch`) 50 / 100 / **200** / 500 / 1000 (10 / 15 / 55 / 15 / 5 %) and a send interval of
    /// 1, 5, 10 or 30 min (20 / 40 / 25 / 15 %). Every interval, while the app is awake (it recorded something in the
    /// last 2 min: iOS suspends it during a pause and while the phone is dead) and online, it flushes its queue,
    /// oldest first, in requests of at most a batch's size; a request made while more than two batches wait carries
    /// the newest queued point as `current` (not one of the batch's: it arrives again, later, in its own batch).
    /// Offline spells (35 % of days, 20 min–5 h: no signal, data off, a flight) hold everything back, so hours of
    /// fixes arrive late, in full batches, in one burst. When the archive is taken, the queue has been flushed.
    static func overlandUploads(_ times: [Int64], isPoint: [Bool], rng: inout SplitMix64) -> [(range: Range<Int>, current: Int?)] {
        let n = times.count
        guard n > 0 else { return [] }
        let batch = [50, 100, 200, 500, 1000][pick([0.10, 0.15, 0.55, 0.15, 0.05], &rng)]
        let interval = Int64([60, 300, 600, 1800][pick([0.20, 0.40, 0.25, 0.15], &rng)]) * 1000
        // Offline spells, one day at a time over the archive's span.
        var offline: [(Int64, Int64)] = []
        let first = times.min()!, last = times.max()!
        var day = first
        while day <= last {
            if rng.chance(0.35) {
                let a = day + Int64(rng.uniform(0, 86_400) * 1000)
                offline.append((a, a + Int64(rng.uniform(0.33, 5) * 3_600_000)))
            }
            day += 86_400_000
        }
        var uploads: [(range: Range<Int>, current: Int?)] = []
        var sent = 0, recorded = 0
        var lastPoint: Int? = nil
        var t = times[0] + interval
        func flush() {
            while sent < recorded {
                let size = min(batch, recorded - sent)
                var current: Int? = nil
                if recorded - sent > 2 * batch, let c = lastPoint, c >= sent + size { current = c }
                uploads.append((sent..<(sent + size), current))
                sent += size
            }
        }
        while sent < n {
            while recorded < n && times[recorded] <= t {
                if isPoint[recorded] { lastPoint = recorded }
                recorded += 1
            }
            if recorded == n {
                flush()  // the archive is taken after the last upload
                break
            }
            let awake = recorded > 0 && t - times[recorded - 1] <= 120_000
            if awake && !offline.contains(where: { t >= $0.0 && t < $0.1 }) { flush() }
            // Suspended: the next send is an interval after the app wakes up again.
            t = awake ? t + interval : max(t + interval, times[recorded] + interval)
        }
        return uploads
    }

    /// Inserts, a handful each, the Overland records real archives have besides fixes: pause/resume and
    /// `will_terminate` actions (the pause and the termination without geometry), `visit` records, still fixes with
    /// `"speed":"NaN"`, and junk that the importer must reject: a latitude out of range, fixes at (0,0) and a time
    /// before 2000 (a GPS week-rollover clock). None of them is a new position.
    static func injectOverlandQuirks(_ items: inout [OverlandItem], deviceName: String) {
        // The still fixes (speed unknown or below 0.3 m/s, not far off), by item index: the injections go right after
        // some of them.
        let still = items.indices.filter {
            if case .point(let p, _) = items[$0], p.speedMps ?? 0 < 0.3, p.accuracyM ?? 0 < 200 { return true } else { return false }
        }
        guard still.count >= 20 else { return }
        func at(_ fraction: Double) -> (Int, Point) {
            let i = still[min(still.count - 1, Int(Double(still.count) * fraction))]
            guard case .point(let p, _) = items[i] else { fatalError("still fixes are points") }
            return (i, p)
        }
        func feature(_ geometry: String?, _ props: [String]) -> String {
            let g = geometry.map { ",\"geometry\":{\"type\":\"Point\",\"coordinates\":" + $0 + "}" } ?? ""
            return "{\"type\":\"Feature\"" + g + ",\"properties\":{" + (props + ["\"device_id\":" + string(deviceName)]).joined(separator: ",") + "}}"
        }
        func coords(_ p: Point) -> String { "[\(number(p.lon, decimals: 7)),\(number(p.lat, decimals: 7))]" }
        func time(_ ms: Int64, _ p: Point) -> String { string(overlandTime(ms, p.utcOffsetS ?? 0)) }
        var inserts: [(Int, OverlandItem)] = []
        // Action records carry UTC `Z` times, as in the app's own example (`will_terminate`, PROVENANCE §1).
        func zulu(_ ms: Int64) -> String { string(CivilTime.iso8601(ms: ms / 1000 * 1000)) }
        for (n, fraction) in [0.12, 0.52].enumerated() {
            let (i, p) = at(fraction)
            inserts.append((i, .raw(feature(nil, ["\"action\":\"paused_location_updates\"", "\"timestamp\":" + zulu(p.timeMs + 40_000), "\"battery_state\":\"unplugged\"", "\"battery_level\":0.6\(n)", "\"wifi\":\"\""]))))
            inserts.append((i, .raw(feature(coords(p), ["\"action\":\"resumed_location_updates\"", "\"timestamp\":" + zulu(p.timeMs + 95_000), "\"battery_state\":\"unplugged\"", "\"battery_level\":0.6\(n)", "\"wifi\":\"\""]))))
        }
        do {
            let (i, p) = at(0.95)
            inserts.append((i, .raw(feature(nil, ["\"wifi\":\"\"", "\"timestamp\":" + zulu(p.timeMs + 20_000), "\"battery_state\":\"unplugged\"", "\"battery_level\":0.55", "\"action\":\"will_terminate\""]))))
        }
        for (fraction, stay) in [(0.33, Int64?.none), (0.71, 1_200_000)] {
            let (i, p) = at(fraction)
            let departure = stay.map { time(p.timeMs + $0, p) } ?? "null"
            inserts.append((i, .raw(feature(coords(p), ["\"action\":\"visit\"", "\"arrival_date\":" + time(p.timeMs - 60_000, p), "\"departure_date\":" + departure, "\"timestamp\":" + time(p.timeMs + 5_000, p), "\"horizontal_accuracy\":" + number(p.accuracyM ?? 65, decimals: 0), "\"wifi\":" + string(p.ssid ?? "")]))))
        }
        for fraction in [0.27, 0.81] {
            // The speed of a still fix written as "NaN": read as unknown, like the -1 it stands for.
            var (i, p) = at(fraction)
            p.speedMps = nil
            items[i] = .point(p, nanSpeed: true)
        }
        // Junk: a garbled latitude, a fix at (0,0), a 1999 clock.
        let junk: [(Double, (Point) -> (String, String))] = [
            (0.21, { p in ("[\(number(p.lon, decimals: 7)),\(number(p.lat + 71.3, decimals: 7))]", time(p.timeMs + 2_000, p)) }),
            (0.44, { p in ("[0,0]", time(p.timeMs + 3_000, p)) }),
            (0.63, { p in (coords(p), string("1999-08-22T00:00:0" + String(p.timeMs % 10) + "Z")) }),
            (0.9, { p in ("[0.0,0.0]", time(p.timeMs + 1_000, p)) }),
        ]
        for (fraction, make) in junk {
            let (i, p) = at(fraction)
            let (geometry, ts) = make(p)
            inserts.append((i, .raw(feature(geometry, ["\"timestamp\":" + ts, "\"speed\":-1", "\"horizontal_accuracy\":65", "\"vertical_accuracy\":-1", "\"motion\":[]", "\"wifi\":\"\""]))))
        }
        // From the end, so indices stay valid; records after the same fix keep their order.
        for (_, (i, item)) in inserts.enumerated().sorted(by: { $0.1.0 != $1.1.0 ? $0.1.0 > $1.1.0 : $0.0 > $1.0 }) {
            items.insert(item, at: i + 1)
        }
    }

    // MARK: OwnTracks

    static func ownTracksJSON(_ p: Point, tid: String, topic: String) -> String {
        var fields: [String] = ["\"_type\":\"location\""]
        if let acc = p.accuracyM, acc.rounded() != 0 { fields.append("\"acc\":" + String(Int(acc.rounded()))) }
        if let alt = p.altitudeM, alt.rounded() != 0 { fields.append("\"alt\":" + String(Int(alt.rounded()))) }
        if let b = p.batteryLevel { fields.append("\"batt\":" + String(Int((b * 100).rounded()))) }
        fields.append("\"bs\":" + (p.ssid != nil ? "2" : "1"))
        if let c = p.courseDeg, c.rounded() != 0 { fields.append("\"cog\":" + String(Int(c.rounded()))) }
        if let conn = p.conn { fields.append("\"conn\":" + string(conn)) }
        fields.append("\"lat\":" + number(p.lat, decimals: 7))
        fields.append("\"lon\":" + number(p.lon, decimals: 7))
        if let extra = p.extra, extra.hasPrefix("{"), extra.hasSuffix("}"), extra.count > 2 {
            // The simulator's own fields (`m`, `inregions`), written where OwnTracks writes `m`.
            fields.append(String(extra.dropFirst().dropLast()))
        } else {
            fields.append("\"m\":1")
        }
        if let t = p.trigger { fields.append("\"t\":" + string(t)) }
        fields.append("\"tid\":" + string(tid))
        fields.append("\"topic\":" + string(topic))
        fields.append("\"tst\":" + String(p.timeMs / 1000))
        if let v = p.vAccuracyM, v.rounded() != 0 { fields.append("\"vac\":" + String(Int(v.rounded()))) }
        if let s = p.speedMps, (s * 3.6).rounded() != 0 { fields.append("\"vel\":" + String(Int((s * 3.6).rounded()))) }
        if let ssid = p.ssid {
            fields.append("\"SSID\":" + string(ssid))
            if let bssid = p.bssid { fields.append("\"BSSID\":" + string(bssid)) }
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    // Long by design: the recorder files written in time order; quirks, region events and lines share one random stream and the file being written.
    static func writeOwnTracks(_ device: SimulatedDevice, directory: String, rng: inout SplitMix64, quirks: Bool = false) throws -> [String] {
        let user = "person\(device.person + 1)"
        let deviceDir = "iphone"
        let dir = directory + "/rec/" + user + "/" + deviceDir
        try FileSystem.createDirectory(dir, inside: directory)
        let tid = "P\(device.person + 1)"
        let topic = "owntracks/\(user)/\(deviceDir)"
        var months: [String: String] = [:]
        var order: [String] = []
        let field = "*" + String(repeating: " ", count: 17)
        var delayedUntil: Int64 = 0
        // Quirks: which fixes get which treatment (by index among the fixes; a handful each).
        let n = device.points.count
        func picks(_ fractions: [Double]) -> Set<Int> { n < 100 ? [] : Set(fractions.map { Int(Double(n) * $0) }) }
        let stringTst = quirks ? picks([0.08, 0.29, 0.47, 0.66, 0.88]) : []
        let duplicated = quirks ? picks([0.17, 0.58, 0.79]) : []
        let broken = quirks ? picks([0.38, 0.92]) : []
        // Leaving and entering the watched region round home (where each day starts): the first leave after a
        // quarter of the fixes, and the enter that follows.
        var transitions: [Int: String] = [:]
        if quirks, let home = device.points.first, n >= 100 {
            var inside = true
            // Out beyond 300 m, back within 100 m (indoor drift and far-off wifi/cell fixes trigger nothing).
            for (k, p) in device.points.enumerated() where p.accuracyM ?? 0 < 50 {
                let d = Geo.distance(home.lat, home.lon, p.lat, p.lon)
                let now = inside ? d < 300 : d < 100
                defer { inside = now }
                guard now != inside, k >= n / 4 else { continue }
                if !now && transitions.isEmpty { transitions[k] = "leave" }
                if now && !transitions.isEmpty {
                    transitions[k] = "enter"
                    break
                }
            }
        }
        // The first day's lines come from an older recorder that separated the fields with runs of spaces.
        let oldFormatUntil = quirks ? (device.points.first.map { $0.timeMs / 86_400_000 * 86_400_000 + 86_400_000 } ?? 0) : 0
        var events = device.events[...]
        func writeEvent(_ e: SimulatedEvent) {
            let month = String(CivilTime.iso8601(ms: e.timeMs).prefix(7))
            if months[month] == nil {
                order.append(month)
                months[month] = CivilTime.iso8601(ms: e.timeMs - 3_600_000) + "\t" + "-" + String(repeating: " ", count: 17) + "\t" + "{\"_type\":\"lwt\",\"tst\":\"\(e.timeMs / 1000 - 3600)\"}\n"
            }
            let field = e.kind == "waypoint" ? "waypoints" + String(repeating: " ", count: 9) : "event" + String(repeating: " ", count: 13)
            months[month]! += CivilTime.iso8601(ms: e.timeMs + Int64(1 + rng.int(5)) * 1000) + "\t" + field + "\t" + e.raw + "\n"
        }
        for (k, p) in device.points.enumerated() {
            // App events (profiles other than `classic`) go in before the first fix after them, on the `event`
            // topic field (`waypoints` for the regions), received a few seconds after they happened.
            while let e = events.first, e.timeMs <= p.timeMs {
                events = events.dropFirst()
                writeEvent(e)
            }
            // The prefix is the recorder's receive time: a little after tst, or much later when the phone was offline.
            var receive = p.timeMs / 1000 + Int64(rng.int(20))
            if rng.chance(0.01) { delayedUntil = receive + Int64(rng.uniform(120, 900)) }
            if receive < delayedUntil { receive = delayedUntil }
            let month = String(CivilTime.iso8601(ms: p.timeMs).prefix(7))
            let old = receive * 1000 < oldFormatUntil
            func line(_ time: Int64, _ topicField: String, _ json: String) -> String {
                old ? CivilTime.iso8601(ms: time * 1000) + "  " + topicField + "  " + json + "\n"
                    : CivilTime.iso8601(ms: time * 1000) + "\t" + topicField + "\t" + json + "\n"
            }
            if months[month] == nil {
                order.append(month)
                months[month] = line(receive - 3600, "-" + String(repeating: " ", count: 17), "{\"_type\":\"lwt\",\"tst\":\"\(receive - 3600)\"}")
                if quirks && order.count == 1 {
                    // The region the phone watches, as the app published it.
                    months[month]! += line(receive - 3500, "waypoints" + String(repeating: " ", count: 9),
                        "{\"_type\":\"waypoint\",\"desc\":\"Home\",\"lat\":\(number(p.lat, decimals: 4)),\"lon\":\(number(p.lon, decimals: 4)),\"rad\":120,\"tst\":\(receive - 3500)}")
                }
            }
            var json = ownTracksJSON(p, tid: tid, topic: topic)
            if stringTst.contains(k) {
                json = json.replacing("\"tst\":\(p.timeMs / 1000)", with: "\"tst\":\"\(p.timeMs / 1000)\"", maxReplacements: 1)
            }
            let text = line(receive, field, json)
            months[month]! += text
            if duplicated.contains(k) { months[month]! += text }  // the same line twice, byte for byte
            if broken.contains(k) {
                // A line cut short inside its JSON (an interrupted write), then the recorder went on.
                months[month]! += String(text.prefix(text.count * 3 / 5)) + "\n"
            }
            if let event = transitions[k] {
                // A transition event, once on the `event` topic field and once on the `*` field with the topic
                // ending in /event (both happen in real files).
                let message = "{\"_type\":\"transition\",\"acc\":\(Int((p.accuracyM ?? 10).rounded())),\"desc\":\"Home\",\"event\":\"\(event)\",\"lat\":\(number(p.lat, decimals: 7)),\"lon\":\(number(p.lon, decimals: 7)),\"t\":\"c\",\"tid\":\(string(tid)),\"topic\":\(string(topic + "/event")),\"tst\":\(p.timeMs / 1000 + 1),\"wtst\":\(device.points[0].timeMs / 1000)}"
                months[month]! += line(receive + 1, event == "leave" ? "event" + String(repeating: " ", count: 13) : field, message)
            }
        }
        for e in events { writeEvent(e) }
        var files: [String] = []
        for month in order {
            let path = dir + "/" + month + ".rec"
            try FileSystem.write(months[month]!, to: path)
            files.append(path)
        }
        return files
    }

    // MARK: GPX (GPS loggers)

    /// A GPS logger's tracks as GPX 1.1 files, `gpx/<device>/YYYY-MM-DD.gpx` (one per UTC day, as loggers that start
    /// a new file each day write them; the folder names the device on import): one `<trk>` per stretch of logging
    /// (a new one after a silence of more than 10 min), each `<trkpt>` with `ele`, `time` (UTC, whole seconds), and
    /// the `hdop` and `sat` loggers write; no speed or course.
    static func writeGPX(_ device: SimulatedDevice, directory: String) throws -> [String] {
        let dir = directory + "/gpx/" + device.name
        try FileSystem.createDirectory(dir, inside: directory)
        var files: [String] = []
        var k = 0
        let points = device.points
        while k < points.count {
            let day = String(CivilTime.iso8601(ms: points[k].timeMs).prefix(10))
            var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Tripline simulator (GPS logger)\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
            var open = false
            var lastMs = Int64.min
            while k < points.count, CivilTime.iso8601(ms: points[k].timeMs).hasPrefix(day) {
                let p = points[k]
                if !open || p.timeMs - lastMs > 600_000 {
                    if open { text += "</trkseg></trk>\n" }
                    text += "<trk><name>\(CivilTime.iso8601(ms: p.timeMs))</name><trkseg>\n"
                    open = true
                }
                text += "<trkpt lat=\"\(number(p.lat, decimals: 7))\" lon=\"\(number(p.lon, decimals: 7))\">"
                if let e = p.altitudeM { text += "<ele>\(number(e, decimals: 1))</ele>" }
                text += "<time>\(CivilTime.iso8601(ms: p.timeMs))</time>" + gpxExtras(p.extra) + "</trkpt>\n"
                lastMs = p.timeMs
                k += 1
            }
            if open { text += "</trkseg></trk>\n" }
            text += "</gpx>\n"
            let path = dir + "/" + day + ".gpx"
            try FileSystem.write(text, to: path)
            files.append(path)
        }
        return files
    }

    /// `<hdop>` and `<sat>` from a logger fix's `extra` (`{"hdop":1.2,"sat":9}`), in that order.
    static func gpxExtras(_ extra: String?) -> String {
        guard let extra, extra.hasPrefix("{\"hdop\":"), let comma = extra.firstIndex(of: ",") else { return "" }
        let hdop = extra[extra.index(extra.startIndex, offsetBy: 8)..<comma]
        let sat = extra[extra.index(comma, offsetBy: 7)..<extra.index(before: extra.endIndex)]
        return "<hdop>\(hdop)</hdop><sat>\(sat)</sat>"
    }

    // MARK: truth.json

    /// The exact ground truth as JSON (times as UTC ms and as ISO text).
    public static func truthJSON(_ result: SimulationResult) -> String {
        let t = result.truth
        func iso(_ ms: Int64) -> String { string(CivilTime.iso8601(ms: ms)) }
        var out = "{\n"
        out += "\"generator\":\"tripline simulate\",\"seed\":\(result.config.seed),\"days\":\(result.config.days),"
        out += "\"people\":\(result.config.people),\"moving_interval_s\":\(result.config.movingIntervalS),"
        out += "\"time_zone\":\(string(t.timeZoneName)),\n"
        if result.config.profile != .classic { out += "\"profile\":\(string(result.config.profile.rawValue)),\n" }
        if result.config.world != .standard { out += "\"world\":\(string(result.config.world.rawValue)),\n" }
        out += "\"devices\":[" + result.devices.map { "{\"name\":\(string($0.name)),\"app\":\(string($0.app.rawValue)),\"person\":\($0.person),\"points\":\($0.points.count),\"app_trips\":\($0.appTrips.count)}" }.joined(separator: ",") + "],\n"
        out += "\"places\":[\n" + t.places.map { p in
            "{\"id\":\(p.id),\"person\":\(p.person),\"kind\":\(string(p.kind)),\"lat\":\(number(p.lat, decimals: 7)),\"lon\":\(number(p.lon, decimals: 7))" + (p.ssid.map { ",\"ssid\":" + string($0) } ?? "") + "}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"stays\":[\n" + t.stays.map { s in
            "{\"device\":\(string(s.device)),\"place\":\(s.placeID),\"start_ms\":\(s.startMs),\"end_ms\":\(s.endMs),\"start\":\(iso(s.startMs)),\"end\":\(iso(s.endMs))}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"trips\":[\n" + t.trips.map { trip in
            let legs = trip.legs.map { l in
                "{\"mode\":\(string(l.mode.rawValue)),\"start_ms\":\(l.startMs),\"end_ms\":\(l.endMs),\"distance_m\":\(number(l.distanceM, decimals: 1))"
                    + (l.habit.map { ",\"habit\":" + string($0) } ?? "") + "}"
            }.joined(separator: ",")
            return "{\"device\":\(string(trip.device)),\"start_ms\":\(trip.startMs),\"end_ms\":\(trip.endMs),\"start\":\(iso(trip.startMs)),\"end\":\(iso(trip.endMs)),\"from_place\":\(trip.fromPlaceID),\"to_place\":\(trip.toPlaceID),\"distance_m\":\(number(trip.distanceM, decimals: 1)),\"stops\":\(trip.stops),\"legs\":[\(legs)]}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"gaps\":[\n" + t.gaps.map { g in
            "{\"device\":\(string(g.device)),\"kind\":\(string(g.kind)),\"start_ms\":\(g.startMs),\"end_ms\":\(g.endMs)}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"days\":[\n" + t.days.map { d in
            "{\"device\":\(string(d.device)),\"date\":\(string(d.date)),\"distance_m\":\(number(d.distanceM, decimals: 1)),\"trips\":\(d.trips)" + (d.regime.map { ",\"regime\":" + string($0) } ?? "") + "}"
        }.joined(separator: ",\n") + "]\n}\n"
        return out
    }
}

