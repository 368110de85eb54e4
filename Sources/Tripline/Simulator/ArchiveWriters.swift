/// Writers that turn a simulation into the files the apps (and their servers) really produce, plus `truth.json`.
///
/// - Overland: POST bodies `{"locations":[…]}` of about 200 features, timestamps like `2015-10-01T08:00:00-0700`,
///   `"type":"trip"` records after a recorded trip's last point, and some batches sent twice (a retry after a lost reply).
/// - OwnTracks Recorder: `rec/<user>/<device>/YYYY-MM.rec`, lines `ISO-receive-time \t topic-suffix(18) \t JSON`,
///   with `tst` in epoch seconds, `vel` in km/h, `acc` in metres, zero-valued fields omitted, an `lwt` line now and then.
public enum SimulationWriter {
    /// Writes every device's archive and `truth.json` under `directory`. Returns the files written.
    @discardableResult
    public static func write(_ result: SimulationResult, to directory: String) throws -> [String] {
        var files: [String] = []
        var rng = SplitMix64.derived(result.config.seed, 0xF11E5)
        for device in result.devices {
            switch device.app {
            case .overland: files += try writeOverland(device, directory: directory, rng: &rng)
            case .owntracks: files += try writeOwnTracks(device, directory: directory, rng: &rng)
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

    static func string(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    /// `2015-10-01T08:00:00-0700`: Overland's timestamp, the offset without a colon.
    static func overlandTime(_ ms: Int64, _ offset: Int32) -> String {
        var text = CivilTime.iso8601(ms: ms, offsetSeconds: Int(offset))
        if text.count >= 3 {
            let idx = text.index(text.endIndex, offsetBy: -3)
            if text[idx] == ":" { text.remove(at: idx) }
        }
        return text
    }

    // MARK: Overland

    static func overlandFeature(_ p: Point, deviceName: String) -> String {
        var props: [String] = []
        props.append("\"timestamp\":" + string(overlandTime(p.timeMs, p.utcOffsetS ?? 0)))
        if let a = p.altitudeM { props.append("\"altitude\":" + number(a, decimals: 1)) }
        props.append("\"speed\":" + (p.speedMps.map { number($0, decimals: 2) } ?? "-1"))
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

    static func overlandTrip(_ t: AppTripRecord, deviceName: String) -> String {
        func location(_ lat: Double, _ lon: Double, _ ms: Int64) -> String {
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(lon, decimals: 7)),\(number(lat, decimals: 7))]},\"properties\":{\"timestamp\":\(string(overlandTime(ms, t.utcOffsetS)))}}"
        }
        let props = [
            "\"type\":\"trip\"", "\"mode\":" + string(t.mode), "\"start\":" + string(overlandTime(t.startMs, t.utcOffsetS)),
            "\"end\":" + string(overlandTime(t.endMs, t.utcOffsetS)), "\"duration\":" + String((t.endMs - t.startMs) / 1000),
            "\"distance\":" + number(t.distanceM, decimals: 1), "\"start_location\":" + location(t.startLat, t.startLon, t.startMs),
            "\"end_location\":" + location(t.endLat, t.endLon, t.endMs), "\"steps\":0", "\"stopped_automatically\":false",
            "\"device_id\":" + string(deviceName), "\"wifi\":\"\"",
        ]
        return "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(t.endLon, decimals: 7)),\(number(t.endLat, decimals: 7))]},\"properties\":{\(props.joined(separator: ","))}}"
    }

    static func writeOverland(_ device: SimulatedDevice, directory: String, rng: inout SplitMix64) throws -> [String] {
        let dir = directory + "/overland/" + device.name
        try FileSystem.createDirectory(dir)
        // Features in time order; a trip record follows the trip's last point.
        var features: [String] = []
        var trips = device.appTrips.sorted { $0.endMs < $1.endMs }[...]
        for p in device.points {
            while let t = trips.first, t.endMs <= p.timeMs {
                features.append(overlandTrip(t, deviceName: device.name))
                trips = trips.dropFirst()
            }
            features.append(overlandFeature(p, deviceName: device.name))
        }
        for t in trips { features.append(overlandTrip(t, deviceName: device.name)) }
        var files: [String] = []
        var index = 0
        var sequence = 0
        while index < features.count {
            let size = 150 + rng.int(101)
            let batch = features[index..<min(features.count, index + size)]
            let body = "{\"locations\":[\n" + batch.joined(separator: ",\n") + "\n]}\n"
            let copies = rng.chance(0.06) ? 2 : 1  // a retry after the server's reply was lost
            for _ in 0..<copies {
                sequence += 1
                let path = dir + "/batch-" + CivilTime.pad(sequence, 5) + ".json"
                try FileSystem.write(body, to: path)
                files.append(path)
            }
            index += size
        }
        return files
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
        fields.append("\"m\":1")
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

    static func writeOwnTracks(_ device: SimulatedDevice, directory: String, rng: inout SplitMix64) throws -> [String] {
        let user = "person\(device.person + 1)"
        let deviceDir = "iphone"
        let dir = directory + "/rec/" + user + "/" + deviceDir
        try FileSystem.createDirectory(dir)
        let tid = "P\(device.person + 1)"
        let topic = "owntracks/\(user)/\(deviceDir)"
        var months: [String: String] = [:]
        var order: [String] = []
        let field = "*" + String(repeating: " ", count: 17)
        var delayedUntil: Int64 = 0
        for p in device.points {
            // The prefix is the recorder's receive time: a little after tst, or much later when the phone was offline.
            var receive = p.timeMs / 1000 + Int64(rng.int(20))
            if rng.chance(0.01) { delayedUntil = receive + Int64(rng.uniform(120, 900)) }
            if receive < delayedUntil { receive = delayedUntil }
            let month = String(CivilTime.iso8601(ms: p.timeMs).prefix(7))
            if months[month] == nil {
                order.append(month)
                months[month] = CivilTime.iso8601(ms: (receive - 3600) * 1000) + "\t-" + String(repeating: " ", count: 17)
                    + "\t{\"_type\":\"lwt\",\"tst\":\"\(receive - 3600)\"}\n"
            }
            months[month]! += CivilTime.iso8601(ms: receive * 1000) + "\t" + field + "\t" + ownTracksJSON(p, tid: tid, topic: topic) + "\n"
        }
        var files: [String] = []
        for month in order {
            let path = dir + "/" + month + ".rec"
            try FileSystem.write(months[month]!, to: path)
            files.append(path)
        }
        return files
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
        out += "\"devices\":[" + result.devices.map { "{\"name\":\(string($0.name)),\"app\":\(string($0.app.rawValue)),\"person\":\($0.person),\"points\":\($0.points.count),\"app_trips\":\($0.appTrips.count)}" }.joined(separator: ",") + "],\n"
        out += "\"places\":[\n" + t.places.map { p in
            "{\"id\":\(p.id),\"person\":\(p.person),\"kind\":\(string(p.kind)),\"lat\":\(number(p.lat, decimals: 7)),\"lon\":\(number(p.lon, decimals: 7))" + (p.ssid.map { ",\"ssid\":" + string($0) } ?? "") + "}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"stays\":[\n" + t.stays.map { s in
            "{\"device\":\(string(s.device)),\"place\":\(s.placeID),\"start_ms\":\(s.startMs),\"end_ms\":\(s.endMs),\"start\":\(iso(s.startMs)),\"end\":\(iso(s.endMs))}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"trips\":[\n" + t.trips.map { trip in
            let legs = trip.legs.map { l in
                "{\"mode\":\(string(l.mode.rawValue)),\"start_ms\":\(l.startMs),\"end_ms\":\(l.endMs),\"distance_m\":\(number(l.distanceM, decimals: 1))}"
            }.joined(separator: ",")
            return "{\"device\":\(string(trip.device)),\"start_ms\":\(trip.startMs),\"end_ms\":\(trip.endMs),\"start\":\(iso(trip.startMs)),\"end\":\(iso(trip.endMs)),\"from_place\":\(trip.fromPlaceID),\"to_place\":\(trip.toPlaceID),\"distance_m\":\(number(trip.distanceM, decimals: 1)),\"stops\":\(trip.stops),\"legs\":[\(legs)]}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"gaps\":[\n" + t.gaps.map { g in
            "{\"device\":\(string(g.device)),\"kind\":\(string(g.kind)),\"start_ms\":\(g.startMs),\"end_ms\":\(g.endMs)}"
        }.joined(separator: ",\n") + "],\n"
        out += "\"days\":[\n" + t.days.map { d in
            "{\"device\":\(string(d.device)),\"date\":\(string(d.date)),\"distance_m\":\(number(d.distanceM, decimals: 1)),\"trips\":\(d.trips)}"
        }.joined(separator: ",\n") + "]\n}\n"
        return out
    }
}
