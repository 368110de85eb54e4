import TriplineCore

/// Writes a simulation the way Google location history exports it, in its four layouts (see docs/IMPORT.md):
///
/// - `Takeout/Location History/Records.json`: every fix kept by Google's sampling (one every `intervalS` seconds),
///   pretty-printed the way Takeout does it (`"key" : value`, two-space indent), `latitudeE7`/`longitudeE7`,
///   ISO `timestamp` with milliseconds (or, with `oldStyle`, `timestampMs` strings as exports before 2022 had),
///   `accuracy`, `altitude`, `velocity`, `heading`, an `activity` reading now and then, `source`, `deviceTag`.
/// - `Takeout/Location History/Semantic Location History/YYYY/YYYY_MONTH.json`: `placeVisit` for each true stay and
///   `activitySegment` for each run of a true trip's legs of one activity type (a journey by train: walk, train, walk,
///   abutting), with `simplifiedRawPath` and `waypointPath`, which are not raw fixes.
/// - `Timeline.json` (the phone's export): `semanticSegments` (visits, activities, `timelinePath` with `"lat°, lon°"`
///   points) and `rawSignals` positions.
/// - `location-history.json` (the iOS app's export): a top-level array of segments with `"geo:lat,lon"` strings and
///   numbers written as strings; path points timed by `durationMinutesOffsetFromStartTime`.
public enum TakeoutWriter {
    public enum Layout: String, Sendable, CaseIterable {
        case records, semantic, timeline, ios
    }

    /// Seconds between the fixes kept (Google records far less often than the apps' 1 Hz).
    public static let intervalS: Int64 = 30

    static func e7(_ v: Double) -> String { String(Int64((v * 1e7).rounded())) }

    static func iso(_ ms: Int64, _ offset: Int32?) -> String {
        CivilTime.iso8601(ms: ms, offset: offset.map(UTCOffset.init(seconds:)), alwaysMilliseconds: true)
    }

    /// The fixes Google would have kept: the first, then one at least `intervalS` after the last kept.
    static func sampled(_ points: [Point]) -> [Point] {
        var kept: [Point] = []
        var last = Int64.min
        for p in points where last == .min || p.timeMs - last >= intervalS * 1000 {
            kept.append(p)
            last = p.timeMs
        }
        return kept
    }

    /// The Google activity type of a fix's motion (the simulator's Overland words).
    static func activityType(_ motion: String?) -> String {
        switch motion?.split(separator: ",").first.map(String.init) ?? "" {
        case "stationary": return "STILL"
        case "walking": return "WALKING"
        case "running": return "RUNNING"
        case "cycling": return "ON_BICYCLE"
        case "driving", "automotive": return "IN_VEHICLE"
        default: return "UNKNOWN"
        }
    }

    static func tripType(_ mode: TravelMode) -> String {
        switch mode {
        case .walk: return "WALKING"
        case .run: return "RUNNING"
        case .cycle: return "CYCLING"
        case .car: return "IN_PASSENGER_VEHICLE"
        case .bus: return "IN_BUS"
        case .train: return "IN_TRAIN"
        case .plane: return "FLYING"
        }
    }

    /// A true trip as Google's activities: one per run of legs Google calls by one type (a walk to the station, the
    /// train, a walk to the office: three activities that abut, with no visit between), with its span and distance.
    static func activities(_ t: TruthTrip) -> [(startMs: Int64, endMs: Int64, type: String, distanceM: Double)] {
        var out: [(startMs: Int64, endMs: Int64, type: String, distanceM: Double)] = []
        for leg in t.legs {
            let type = tripType(leg.mode)
            if let last = out.last, last.type == type, last.endMs == leg.startMs {
                out[out.count - 1].endMs = leg.endMs
                out[out.count - 1].distanceM += leg.distanceM
            } else {
                out.append((leg.startMs, leg.endMs, type, leg.distanceM))
            }
        }
        if out.isEmpty { out.append((t.startMs, t.endMs, "WALKING", t.distanceM)) }
        // The activities tile the trip.
        out[0].startMs = t.startMs
        out[out.count - 1].endMs = t.endMs
        return out
    }

    /// One element of `Records.json`'s `locations`, pretty-printed (four-space indent, as inside the array).
    /// `index` decides the occasional extras deterministically.
    public static func recordsElement(_ p: Point, index: Int, deviceTag: Int64, oldStyle: Bool = false) -> String {
        var lines: [String] = []
        lines.append("\"latitudeE7\" : \(e7(p.lat))")
        lines.append("\"longitudeE7\" : \(e7(p.lon))")
        lines.append("\"accuracy\" : \(Int((p.accuracyM ?? 20).rounded()))")
        if let s = p.speedMps { lines.append("\"velocity\" : \(Int(s.rounded()))") }
        if let c = p.courseDeg { lines.append("\"heading\" : \(Int(c.rounded()))") }
        if let a = p.altitudeM { lines.append("\"altitude\" : \(Int(a.rounded()))") }
        if let v = p.vAccuracyM { lines.append("\"verticalAccuracy\" : \(Int(v.rounded()))") }
        if index % 5 == 0 {
            let at = oldStyle ? "\"timestampMs\" : \"\(p.timeMs - 1500)\"" : "\"timestamp\" : \"\(iso(p.timeMs - 1500, nil))\""
            lines.append("\"activity\" : [ {\n        \"activity\" : [ {\n          \"type\" : \"\(activityType(p.motion))\",\n          \"confidence\" : 77\n        }, {\n          \"type\" : \"TILTING\",\n          \"confidence\" : 10\n        } ],\n        \(at)\n      } ]")
        }
        lines.append("\"source\" : \"\(index % 3 == 0 ? "WIFI" : "GPS")\"")
        lines.append("\"deviceTag\" : \(deviceTag)")
        lines.append("\"platformType\" : \"ANDROID\"")
        lines.append(oldStyle ? "\"timestampMs\" : \"\(p.timeMs)\"" : "\"timestamp\" : \"\(iso(p.timeMs, nil))\"")
        return "{\n      " + lines.joined(separator: ",\n      ") + "\n    }"
    }

    /// Writes one device's history in `layout` under `directory`. Returns the files written. With `root` (a leading
    /// part of `directory`), no symbolic link below it is followed (``FileSystem/createDirectory(_:inside:)``).
    // Long by design: one case per Takeout layout, each short, sharing the device's fixes, stays, trips and offsets.
    @discardableResult
    public static func write(_ result: SimulationResult, device: SimulatedDevice, layout: Layout, to directory: String, inside root: String? = nil) throws -> [String] {
        let points = sampled(device.points)
        let stays = result.truth.stays.filter { $0.device == device.name }
        let trips = result.truth.trips.filter { $0.device == device.name }
        let places = Dictionary(result.truth.places.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func offset(_ ms: Int64) -> Int32 { result.config.timeZone.offset(at: ms) }
        switch layout {
        case .records:
            let dir = directory + "/Takeout/Location History"
            try FileSystem.createDirectory(dir, inside: root ?? directory)
            let tag = Int64(1_000_000 + device.person * 7919)
            let body = points.enumerated().map { recordsElement($0.element, index: $0.offset, deviceTag: tag, oldStyle: $0.offset % 2 == 1) }
            let path = dir + "/Records.json"
            try FileSystem.write("{\n  \"locations\" : [ " + body.joined(separator: ", ") + " ]\n}\n", to: path)
            return [path]
        case .semantic:
            // One file per UTC month of the events' start, as Takeout splits them.
            var months: [String: [(Int64, String)]] = [:]
            let names = ["JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"]
            func key(_ ms: Int64) -> String {
                let c = CivilTime.civilFromDays(Int((ms / 1000).quotientAndRemainder(dividingBy: 86_400).quotient))
                return "\(c.year)/\(c.year)_\(names[c.month - 1])"
            }
            for s in stays {
                guard let place = places[s.placeID] else { continue }
                let text = """
                {
                  "placeVisit" : {
                    "location" : {
                      "latitudeE7" : \(e7(place.lat)),
                      "longitudeE7" : \(e7(place.lon)),
                      "placeId" : "ChIJsim\(place.id)",
                      "address" : "\(place.kind) street \(place.id)",
                      "name" : "\(place.kind)",
                      "semanticType" : "\(place.kind == "home" ? "TYPE_HOME" : (place.kind == "work" ? "TYPE_WORK" : "TYPE_UNKNOWN"))",
                      "sourceInfo" : { "deviceTag" : 1234 },
                      "locationConfidence" : 88.5
                    },
                    "duration" : {
                      "startTimestamp" : "\(iso(s.startMs, nil))",
                      "endTimestamp" : "\(iso(s.endMs, nil))"
                    },
                    "placeConfidence" : "HIGH_CONFIDENCE",
                    "centerLatE7" : \(e7(place.lat)),
                    "centerLngE7" : \(e7(place.lon)),
                    "visitConfidence" : 95,
                    "otherCandidateLocations" : [ ],
                    "editConfirmationStatus" : "NOT_CONFIRMED"
                  }
                }
                """
                months[key(s.startMs), default: []].append((s.startMs, text))
            }
            for a in trips.flatMap(activities) {
                let t = (startMs: a.startMs, endMs: a.endMs, distanceM: a.distanceM)
                let inTrip = device.points.filter { $0.timeMs >= t.startMs && $0.timeMs <= t.endMs }
                guard let first = inTrip.first, let last = inTrip.last else { continue }
                let step = max(1, inTrip.count / 6)
                let path = stride(from: 0, to: inTrip.count, by: step).map { inTrip[$0] }
                let raw = path.map { "{ \"latE7\" : \(e7($0.lat)), \"lngE7\" : \(e7($0.lon)), \"accuracyMeters\" : 10, \"timestamp\" : \"\(iso($0.timeMs, nil))\" }" }
                let way = path.map { "{ \"latE7\" : \(e7($0.lat)), \"lngE7\" : \(e7($0.lon)) }" }
                let mode = a.type
                let text = """
                {
                  "activitySegment" : {
                    "startLocation" : { "latitudeE7" : \(e7(first.lat)), "longitudeE7" : \(e7(first.lon)), "sourceInfo" : { "deviceTag" : 1234 } },
                    "endLocation" : { "latitudeE7" : \(e7(last.lat)), "longitudeE7" : \(e7(last.lon)), "sourceInfo" : { "deviceTag" : 1234 } },
                    "duration" : {
                      "startTimestamp" : "\(iso(t.startMs, nil))",
                      "endTimestamp" : "\(iso(t.endMs, nil))"
                    },
                    "distance" : \(Int(t.distanceM.rounded())),
                    "activityType" : "\(mode)",
                    "confidence" : "HIGH",
                    "activities" : [ { "activityType" : "\(mode)", "probability" : 91.2 }, { "activityType" : "WALKING", "probability" : 5.1 } ],
                    "waypointPath" : { "waypoints" : [ \(way.joined(separator: ", ")) ], "source" : "INFERRED", "distanceMeters" : \(Int(t.distanceM.rounded())), "travelMode" : "DRIVE", "confidence" : 0.9 },
                    "simplifiedRawPath" : { "points" : [ \(raw.joined(separator: ", ")) ] }
                  }
                }
                """
                months[key(t.startMs), default: []].append((t.startMs, text))
            }
            var files: [String] = []
            for (month, items) in months.sorted(by: { $0.key < $1.key }) {
                let dir = directory + "/Takeout/Location History/Semantic Location History/" + String(month.split(separator: "/")[0])
                try FileSystem.createDirectory(dir, inside: root ?? directory)
                let path = directory + "/Takeout/Location History/Semantic Location History/" + month + ".json"
                let body = items.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: ", ")
                try FileSystem.write("{\n  \"timelineObjects\" : [ " + body + " ]\n}\n", to: path)
                files.append(path)
            }
            return files
        case .timeline, .ios:
            let ios = layout == .ios
            func position(_ lat: Double, _ lon: Double) -> String {
                ios ? "\"geo:\(format7(lat)),\(format7(lon))\"" : "\"\(format7(lat))°, \(format7(lon))°\""
            }
            func num(_ v: Double) -> String { ios ? "\"\(v)\"" : "\(v)" }
            var segments: [(Int64, String)] = []
            for s in stays {
                guard let place = places[s.placeID] else { continue }
                let location = ios ? "\"placeLocation\":\(position(place.lat, place.lon))" : "\"placeLocation\":{\"latLng\":\(position(place.lat, place.lon))}"
                segments.append((s.startMs, "{\"startTime\":\"\(iso(s.startMs, offset(s.startMs)))\",\"endTime\":\"\(iso(s.endMs, offset(s.endMs)))\","
                    + (ios ? "" : "\"startTimeTimezoneUtcOffsetMinutes\":\(offset(s.startMs) / 60),\"endTimeTimezoneUtcOffsetMinutes\":\(offset(s.endMs) / 60),")
                    + "\"visit\":{\"hierarchyLevel\":\(ios ? "\"0\"" : "0"),\"probability\":\(num(0.85)),\"topCandidate\":{\"placeId\":\"ChIJsim\(place.id)\",\"semanticType\":\"\(place.kind == "home" ? "HOME" : "UNKNOWN")\",\"probability\":\(num(0.9)),\(location)}}}"))
            }
            for a in trips.flatMap(activities) {
                let t = (startMs: a.startMs, endMs: a.endMs, distanceM: a.distanceM)
                let inTrip = device.points.filter { $0.timeMs >= t.startMs && $0.timeMs <= t.endMs }
                guard let first = inTrip.first, let last = inTrip.last else { continue }
                let mode = a.type
                let startPosition = ios ? position(first.lat, first.lon) : "{\"latLng\":\(position(first.lat, first.lon))}"
                let endPosition = ios ? position(last.lat, last.lon) : "{\"latLng\":\(position(last.lat, last.lon))}"
                let type = ios ? mode.lowercased().replacingUnderscores() : mode
                segments.append((t.startMs + 1, "{\"startTime\":\"\(iso(t.startMs, offset(t.startMs)))\",\"endTime\":\"\(iso(t.endMs, offset(t.endMs)))\","
                    + "\"activity\":{\"start\":\(startPosition),\"end\":\(endPosition),\"distanceMeters\":\(num(t.distanceM.rounded())),\"probability\":\(num(0.9)),"
                    + "\"topCandidate\":{\"type\":\"\(type)\",\"probability\":\(num(0.8))}}}"))
            }
            // timelinePath segments: the kept fixes in two-hour windows (iOS: minute offsets from the start).
            var i = 0
            while i < points.count {
                let windowStart = (points[i].timeMs / 7_200_000) * 7_200_000
                var chunk: [Point] = []
                while i < points.count, points[i].timeMs < windowStart + 7_200_000 {
                    // iOS's minute offsets cannot tell two fixes in one minute apart: keep the first.
                    if !ios || chunk.last.map({ ($0.timeMs - windowStart) / 60_000 != (points[i].timeMs - windowStart) / 60_000 }) ?? true {
                        chunk.append(points[i])
                    }
                    i += 1
                }
                let items = chunk.map { p in
                    ios
                        ? "{\"point\":\(position(p.lat, p.lon)),\"durationMinutesOffsetFromStartTime\":\"\((p.timeMs - windowStart) / 60_000)\"}"
                        : "{\"point\":\(position(p.lat, p.lon)),\"time\":\"\(iso(p.timeMs, offset(p.timeMs)))\"}"
                }
                segments.append((windowStart + 2, "{\"startTime\":\"\(iso(windowStart, offset(windowStart)))\",\"endTime\":\"\(iso(windowStart + 7_200_000, offset(windowStart)))\",\"timelinePath\":[\(items.joined(separator: ","))]}"))
            }
            segments.sort { $0.0 < $1.0 }
            let path: String
            let text: String
            if ios {
                path = directory + "/location-history.json"
                text = "[" + segments.map(\.1).joined(separator: ",") + "]\n"
            } else {
                path = directory + "/Timeline.json"
                // rawSignals: the last day's fixes at full rate, as the phone keeps only recent raw positions.
                let lastDay = device.points.last.map { $0.timeMs - 86_400_000 } ?? 0
                let signals = device.points.filter { $0.timeMs >= lastDay && $0.timeMs % 10_000 < 1000 }.map { p in
                    "{\"position\":{\"LatLng\":\(position(p.lat, p.lon)),\"accuracyMeters\":\(Int((p.accuracyM ?? 20).rounded())),\"altitudeMeters\":\(p.altitudeM ?? 40),\"source\":\"GPS\",\"timestamp\":\"\(iso(p.timeMs, offset(p.timeMs)))\",\"speedMetersPerSecond\":\(p.speedMps ?? 0)}}"
                } + ["{\"activityRecord\":{\"probableActivities\":[{\"type\":\"STILL\",\"confidence\":0.9}],\"timestamp\":\"\(iso(lastDay, nil))\"}}",
                     "{\"wifiScan\":{\"deliveryTime\":\"\(iso(lastDay, nil))\",\"devicesRecords\":[{\"mac\":123456,\"rawRssi\":-60}]}}"]
                text = "{\n  \"semanticSegments\": [\n    " + segments.map(\.1).joined(separator: ",\n    ") + "\n  ],\n  \"rawSignals\": [\n    "
                    + signals.joined(separator: ",\n    ") + "\n  ],\n  \"userLocationProfile\": {\"frequentPlaces\": [], \"persona\": {\"travelModeAffinities\": []}}\n}\n"
            }
            try FileSystem.createDirectory(directory, inside: root)
            try FileSystem.write(text, to: path)
            return [path]
        }
    }

    /// Seven decimals, as Google writes positions.
    static func format7(_ v: Double) -> String {
        let scaled = Int64((v * 1e7).rounded())
        let sign = scaled < 0 ? "-" : ""
        let a = scaled.magnitude
        let frac = String(a % 10_000_000)
        return sign + String(a / 10_000_000) + "." + String(repeating: "0", count: 7 - frac.count) + frac
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
}
