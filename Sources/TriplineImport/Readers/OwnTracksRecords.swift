#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore
import TriplineStore

extension RecordBuilder {
    // MARK: OwnTracks

    /// Whether the object at `index` is an OwnTracks message: it has an OwnTracks `_type`, or it is a location
    /// written without one (`lat`, `lon` and `tst` and no `_type`, as GeoPulse's export writes OwnTracks locations).
    func isOwnTracks(_ p: JSONParser, _ tape: JSONTape, _ index: Int) -> Bool {
        guard tape.nodes[index].kind == .object else { return false }
        if member(p, tape, index, "_type") != nil { return true }
        return member(p, tape, index, "tst") != nil && member(p, tape, index, "lat") != nil && member(p, tape, index, "lon") != nil
    }

    /// The device of an OwnTracks message: `username`/`device` (Recorder API), else the `.rec` path's user/device,
    /// else the `topic` (`owntracks/user/device`), else `tid`, else --device / the file or folder name.
    mutating func ownTracksDevice(_ p: JSONParser, _ tape: JSONTape, _ index: Int, pathDevice: ParsedDevice?) -> Int {
        let user = text(p, tape, member(p, tape, index, "username"))
        let dev = text(p, tape, member(p, tape, index, "device"))
        let tid = text(p, tape, member(p, tape, index, "tid"))
        if let user, let dev {
            return out.deviceIndex(ParsedDevice(name: user + "/" + dev, source: "owntracks", origin: .usernameDevice, tid: tid))
        }
        if let pathDevice { return out.deviceIndex(pathDevice) }
        if let topic = text(p, tape, member(p, tape, index, "topic")) {
            var parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "owntracks" { parts.removeFirst() }
            if parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty {
                return out.deviceIndex(ParsedDevice(name: parts[0] + "/" + parts[1], source: "owntracks", origin: .topic, tid: tid))
            }
        }
        if let tid { return out.deviceIndex(ParsedDevice(name: tid, source: "owntracks", origin: .tid, tid: tid)) }
        // A message that names no device (an `lwt`, a waypoint) belongs to the device last seen in this file.
        if let lastOwnTracksDevice { return lastOwnTracksDevice }
        return fallbackDevice(source: "owntracks")
    }

    /// One OwnTracks message. `lineTimeMs` is the Recorder's receive time (used only when `tst` is missing).
    // Long by design: a parser's single pass over one message's many keys, kept in one function for speed (no call or allocation per key or point).
    mutating func ownTracksMessage(_ p: JSONParser, _ tape: JSONTape, _ index: Int, start: Int, end: Int,
                                   pathDevice: ParsedDevice?, lineTimeMs: Int64?) {
        sawOwnTracks = true
        recognized += 1
        if rejectProblems(tape, start: start, end: end) { return }
        var type: Int?, tst: Int?, lat: Int?, lon: Int?, acc: Int?, alt: Int?, vac: Int?, vel: Int?, cog: Int?
        var batt: Int?, bs: Int?, trigger: Int?, conn: Int?, ssid: Int?, bssid: Int?, motion: Int?
        members(tape, index) { k, v in
            switch k.end - k.start {
            case 1:
                if p.equals(k, "t") { trigger = v }
            case 3:
                if p.equals(k, "tst") { tst = v } else if p.equals(k, "lat") { lat = v } else if p.equals(k, "lon") { lon = v }
                else if p.equals(k, "acc") { acc = v } else if p.equals(k, "alt") { alt = v } else if p.equals(k, "vac") { vac = v }
                else if p.equals(k, "vel") { vel = v } else if p.equals(k, "cog") { cog = v }
            case 2:
                if p.equals(k, "bs") { bs = v }
            case 4:
                if p.equals(k, "batt") { batt = v } else if p.equals(k, "conn") { conn = v } else if p.equals(k, "SSID") { ssid = v }
            case 5:
                if p.equals(k, "_type") { type = v } else if p.equals(k, "BSSID") { bssid = v }
            case 16:
                if p.equals(k, "motionactivities") { motion = v }
            default: break
            }
        }
        // A message without `_type` that `isOwnTracks` took for one is a location (lat, lon and tst).
        let kind = type == nil ? "location" : string(p, tape, type) ?? ""
        if kind == "encrypted" {
            reject(.encrypted, "an encrypted OwnTracks payload; Tripline cannot decrypt it", start: start, end: end)
            return
        }
        let device = ownTracksDevice(p, tape, index, pathDevice: pathDevice)
        lastOwnTracksDevice = device
        // tst: the fix time, a number or a string of digits.
        var timeMs: Int64?
        var badTime = false
        if let tst {
            let node = tape.nodes[tst]
            if node.kind == .number || node.kind == .string {
                timeMs = Timestamp.parseEpoch(p.base + node.start, node.end - node.start)
            }
            badTime = timeMs == nil
        }
        if kind != "location" {
            var event = ParsedEvent(device: device, kind: kind.isEmpty ? .unknown : AppEventKind(rawValue: kind), timeMs: timeMs ?? lineTimeMs,
                                    raw: rawText(start, end))
            event.lat = number(p, tape, lat)
            event.lon = number(p, tape, lon)
            addEvent(event, start: start, end: end)
            return
        }
        if badTime {
            reject(.invalidTime, "tst \(p.rawText(tape.nodes[tst!]).prefix(60)) is not epoch seconds", start: start, end: end)
            return
        }
        guard let time = timeMs ?? lineTimeMs else {
            reject(.missingTime, "the location has no 'tst'", start: start, end: end)
            return
        }
        guard lat != nil, lon != nil else {
            reject(.missingCoordinates, "the location has no 'lat'/'lon'", start: start, end: end)
            return
        }
        // Numbers, or (early OwnTracks apps: "lat":"52.19","lon":"7.68") strings that hold a decimal number.
        let latNode = tape.nodes[lat!], lonNode = tape.nodes[lon!]
        guard latNode.kind == .number || latNode.kind == .string, lonNode.kind == .number || lonNode.kind == .string,
              let latParsed = latNode.kind == .number ? p.double(latNode) : number(p, tape, lat),
              let lonParsed = lonNode.kind == .number ? p.double(lonNode) : number(p, tape, lon)
        else {
            reject(.invalidCoordinates, "'lat'/'lon' are not numbers (or strings holding a number)", start: start, end: end)
            return
        }
        let latValue = latParsed
        let lonValue = lonParsed
        guard acceptPoint(timeMs: time, lat: latValue, lon: lonValue, start: start, end: end) else { return }
        // Extra fields worth keeping, copied as raw JSON.
        members(tape, index) { k, v in
            switch k.end - k.start {
            case 1:
                if p.equals(k, "m") || p.equals(k, "p") { self.extra(p, k, tape.nodes[v]) }
            case 3:
                if p.equals(k, "tid") || p.equals(k, "poi") || p.equals(k, "tag") { self.extra(p, k, tape.nodes[v]) }
            case 6:
                if p.equals(k, "inrids") { self.extra(p, k, tape.nodes[v]) }
            case 9:
                if p.equals(k, "inregions") { self.extra(p, k, tape.nodes[v]) }
            case 10:
                if p.equals(k, "created_at") { self.extra(p, k, tape.nodes[v]) }
            default: break
            }
        }
        // A value that is no number leaves an `invalid_measure` row; one out of range, `addPoint`'s row.
        var speed: Double?
        if let kmh = checkedNumber(p, tape, vel, field: "vel", start: start, end: end), kmh >= 0 { speed = kmh / 3.6 }
        let course = checkedNumber(p, tape, cog, field: "cog", start: start, end: end)
        var battery: Double?
        if let b = checkedNumber(p, tape, batt, field: "batt", start: start, end: end), b >= 0, b <= 100 { battery = b / 100 }
        var batteryState: String?
        if let s = number(p, tape, bs) {
            switch s {
            case 1: batteryState = "unplugged"
            case 2: batteryState = "charging"
            case 3: batteryState = "full"
            default: batteryState = "unknown"
            }
        }
        let point = Point(
            deviceID: Int64(device), timeMs: time, utcOffsetS: nil, lat: latValue, lon: lonValue,
            altitudeM: checkedNumber(p, tape, alt, field: "alt", start: start, end: end), speedMps: speed, courseDeg: course,
            accuracyM: checkedMeasure(p, tape, acc, field: "acc", start: start, end: end),
            vAccuracyM: checkedMeasure(p, tape, vac, field: "vac", start: start, end: end), motion: joined(p, tape, motion), batteryLevel: battery, batteryState: batteryState,
            ssid: text(p, tape, ssid), bssid: text(p, tape, bssid), appTripID: nil, appTripMode: nil,
            trigger: text(p, tape, trigger), conn: text(p, tape, conn), extra: takeExtra())
        addPoint(point, start: start, end: end)
    }
}
