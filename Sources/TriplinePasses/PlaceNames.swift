import TriplineCore
import TriplineGeography
import TriplineStore

/// The display names of a device's places, given once every place of the device is written (the end of the
/// `timeline` pass, which runs after `places` and adds the places Google's visits founded). In this order
/// (docs/PASSES.md, "Place names"):
/// 1. the user's own name (`tripline places rename`, already applied by the places and timeline passes);
/// 2. the app's name for the place: Google's (a Google visit at the place: `Home`/`Work` from its semantic type, else
///    its `location.name`, else its address), OwnTracks' (a `transition` into a region during a visit, a `waypoint`
///    whose region holds the centre: its `desc`), the name given most dwell (Google) or most often (OwnTracks) winning;
/// 3. `Home` / `Work` from when the time is spent (``inferHomeAndWork``);
/// 4. the wifi network most seen there;
/// 5. `near <locality>` (with its distance and direction), else the coordinates.
/// Two places of one device never share a name: the place with the user's name, else the most dwell, else the lower
/// id keeps it; the others are qualified ` (2)`, ` (3)`, … in that order.
enum PlaceNames {
    /// A night is 00:00–06:00 local time; a place's night counts when at least `minOverlapS` of it is spent there.
    static let nightHours = (0, 6)
    /// A working day is Monday to Friday, 09:00–17:00 local time.
    static let workHours = (9, 17)
    /// Time inside a window that makes it count for the place (2 hours).
    static let minOverlapS: Int64 = 7200
    /// `Home` needs this many nights, `Work` this many working days.
    static let minNights = 3
    static let minWorkDays = 3

    struct Place {
        var id: Int64
        var name: String
        var ssid: String?
        var lat: Double
        var lon: Double
        var radius: Double
        var dwell: Int64
        var userNamed = false
        var appVotes: [String: Double] = [:]
    }

    struct Visit {
        var place: Int64
        var start: Int64
        var end: Int64
        var lat: Double
        var lon: Double
    }

    /// Names every place of `device` (see the type's comment); returns how many were named by each rule.
    @discardableResult
    static func assign(device: Int64, store: Store, zones: LocalZones, joinM: Double) throws -> [String: Int] {
        var places: [Place] = []
        let p = try store.db.prepare(
            "SELECT id, name, ssid, lat, lon, radius_m, total_dwell_s FROM places WHERE device_id = ? ORDER BY id")
        p.bindInt(device, at: 1)
        while try p.step() {
            places.append(Place(id: p.int64(0), name: p.text(1) ?? "", ssid: p.text(2), lat: p.double(3), lon: p.double(4),
                                radius: p.double(5), dwell: p.int64(6)))
        }
        guard !places.isEmpty else { return [:] }
        var index: [Int64: Int] = [:]
        for (k, e) in places.enumerated() { index[e.id] = k }
        // 1. The user's names: a rename edit whose name the place bears, made at (within reach of) its centre.
        for edit in try PlacesPass.edits(device: device, store: store) where edit.action == .rename {
            guard let name = edit.name else { continue }
            for k in places.indices where places[k].name == name
                && Geo.distance(places[k].lat, places[k].lon, edit.lat, edit.lon) <= max(joinM, places[k].radius) {
                places[k].userNamed = true
            }
        }
        var visits: [Visit] = []
        let v = try store.db.prepare(
            "SELECT place_id, start_ms, end_ms, lat, lon FROM visits WHERE device_id = ? AND place_id IS NOT NULL ORDER BY start_ms, id")
        v.bindInt(device, at: 1)
        while try v.step() { visits.append(Visit(place: v.int64(0), start: v.int64(1), end: v.int64(2), lat: v.double(3), lon: v.double(4))) }
        let starts = visits.map(\.start)
        let longest = visits.map { $0.end - $0.start }.max() ?? 0
        /// The visits overlapping `[s, e)`, with the overlap.
        func overlapping(_ s: Int64, _ e: Int64) -> [(Visit, Int64)] {
            var out: [(Visit, Int64)] = []
            var k = lowerBound(starts, e) - 1
            while k >= 0 && visits[k].start >= s - longest {
                let o = min(e, visits[k].end) - max(s, visits[k].start)
                if o > 0 { out.append((visits[k], o)) }
                k -= 1
            }
            return out
        }
        // 2. Google's visits: the name of each (semantic type, name, address) goes to the places of the visits it
        // overlaps at its position (the timeline pass's own visits, and those of the fixes that saw it).
        let g = try store.db.prepare(
            """
            SELECT e.start_ms, e.end_ms, e.lat, e.lon,
              coalesce(json_extract(e.raw, '$.placeVisit.location.semanticType'), json_extract(e.raw, '$.visit.topCandidate.semanticType')),
              json_extract(e.raw, '$.placeVisit.location.name'), json_extract(e.raw, '$.placeVisit.location.address'),
              json_extract(e.raw, '$.visit.hierarchyLevel')
            FROM app_events e JOIN imports i ON i.id = e.import_id
            WHERE e.device_id = ? AND e.kind = 'visit' AND i.format LIKE '%google/%' AND e.end_ms > e.start_ms
              AND e.lat IS NOT NULL AND e.lon IS NOT NULL AND json_valid(e.raw)
            ORDER BY e.start_ms, e.end_ms, e.raw
            """)
        g.bindInt(device, at: 1)
        while try g.step() {
            if !g.isNull(7), g.double(7) > 0 { continue }  // a visit inside another one
            let semantic = TimelinePass.semanticName(g.text(4))
            let label = semantic ?? [g.text(5), g.text(6)].compactMap { $0?.trimmingCharacters(in: " \t\r\n") }.first { !$0.isEmpty }
            guard let label else { continue }
            let lat = g.double(2), lon = g.double(3)
            for (visit, o) in overlapping(g.int64(0), g.int64(1)) {
                guard let k = index[visit.place], Geo.distance(visit.lat, visit.lon, lat, lon) <= max(joinM, places[k].radius) else { continue }
                places[k].appVotes[label, default: 0] += Double(o) / 1000
            }
        }
        // OwnTracks: a transition into a region during a visit (its position at the place), a waypoint (a region the
        // user defined) whose circle holds the place's centre.
        let o = try store.db.prepare(
            """
            SELECT kind, time_ms, lat, lon, json_extract(raw, '$.desc'), json_extract(raw, '$.event'), json_extract(raw, '$.rad')
            FROM app_events WHERE device_id = ? AND kind IN ('transition', 'waypoint') AND json_valid(raw)
            ORDER BY time_ms, raw
            """)
        o.bindInt(device, at: 1)
        while try o.step() {
            guard let desc = o.text(4)?.trimmingCharacters(in: " \t\r\n"), !desc.isEmpty, !o.isNull(2), !o.isNull(3) else { continue }
            let lat = o.double(2), lon = o.double(3)
            if o.text(0) == "waypoint" {
                let reach = max(joinM, o.isNull(6) ? 0 : o.double(6))
                for k in places.indices where Geo.distance(places[k].lat, places[k].lon, lat, lon) <= reach {
                    places[k].appVotes[desc, default: 0] += 1
                }
            } else if o.text(5) == "enter", !o.isNull(1) {
                let t = o.int64(1)
                // The visit it falls in, else the one that begins within 15 minutes (the app's geofence fires first).
                let hits = overlapping(t, t + 1) + overlapping(t, t + 900_000)
                if let (visit, _) = hits.first, let k = index[visit.place],
                   Geo.distance(places[k].lat, places[k].lon, lat, lon) <= max(joinM, places[k].radius) * 4 {
                    places[k].appVotes[desc, default: 0] += 1
                }
            }
        }
        func best(_ votes: [String: Double]) -> String? {
            votes.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
        }
        // The names by rule.
        var names: [String?] = places.map { $0.userNamed ? $0.name : nil }
        var rules: [String: Int] = ["user": names.compactMap { $0 }.count]
        for k in places.indices where names[k] == nil {
            if let a = best(places[k].appVotes) { names[k] = a; rules["app", default: 0] += 1 }
        }
        // 3. Home and Work from the time spent, unless the app already names a place so.
        let (home, work) = inferHomeAndWork(visits, zones: zones)
        for (label, id) in [("Home", home), ("Work", work)] {
            guard let id, let k = index[id], names[k] == nil, !names.contains(label) else { continue }
            names[k] = label
            rules[label.lowercased(), default: 0] += 1
        }
        // 4. and 5.
        for k in places.indices where names[k] == nil {
            if let ssid = places[k].ssid, !ssid.isEmpty {
                names[k] = ssid
                rules["wifi", default: 0] += 1
                continue
            }
            let w = PlacesPass.whereIs(places[k].lat, places[k].lon)
            names[k] = w.locality.map { "near " + $0 + w.offset } ?? PlacesPass.coordinateName(places[k].lat, places[k].lon)
        }
        // One name per place: the user's first, then most dwell, then the lower id keeps it.
        let order = places.indices.sorted {
            let a = places[$0], b = places[$1]
            if a.userNamed != b.userNamed { return a.userNamed }
            if a.dwell != b.dwell { return a.dwell > b.dwell }
            return a.id < b.id
        }
        let tables = RebuildTables(store)
        var taken = Set<String>()
        for k in order {
            let base = names[k]!
            var name = base
            var n = 2
            while taken.contains(name) {
                name = base + " (" + String(n) + ")"
                n += 1
            }
            taken.insert(name)
            if name != places[k].name { try tables.renamePlace(id: places[k].id, name: name) }
            if name != base { rules["qualified", default: 0] += 1 }
        }
        return rules
    }

    /// The local day (days since 1970-01-01) and the UTC instant of `hour`:00 local on it at a position: the zone's
    /// offset at that instant (found by two steps, so a night across a clock change is measured in real hours).
    static func utc(day: Int64, hour: Int, lat: Double, lon: Double, zones: LocalZones) -> Int64 {
        let local = day * 86_400_000 + Int64(hour) * 3_600_000
        var guess = local - Int64(zones.offset(atMs: local, latitude: lat, longitude: lon)) * 1000
        guess = local - Int64(zones.offset(atMs: guess, latitude: lat, longitude: lon)) * 1000
        return local - Int64(zones.offset(atMs: guess, latitude: lat, longitude: lon)) * 1000
    }

    /// `Home`: the place of most night-time dwell (00:00–06:00 local, in the zone of the visit's position) among those
    /// with at least `minNights` nights of `minOverlapS` or more. `Work`: of the other places, the one of most
    /// working-day dwell (Monday–Friday 09:00–17:00 local) among those with at least `minWorkDays` such days; no Work
    /// without a Home (two days at a hotel abroad are no work place). Ties go to the lower place id.
    static func inferHomeAndWork(_ visits: [Visit], zones: LocalZones) -> (home: Int64?, work: Int64?) {
        var night: [Int64: (dwell: Int64, days: Set<Int64>)] = [:]
        var day: [Int64: (dwell: Int64, days: Set<Int64>)] = [:]
        for v in visits where v.end > v.start {
            let offset0 = Int64(zones.offset(atMs: v.start, latitude: v.lat, longitude: v.lon)) * 1000
            let first = Int64((Double(v.start + offset0) / 86_400_000).rounded(.down)) - 1
            let offset1 = Int64(zones.offset(atMs: v.end, latitude: v.lat, longitude: v.lon)) * 1000
            let last = min(Int64((Double(v.end + offset1) / 86_400_000).rounded(.down)) + 1, first + 800)
            var d = first
            while d <= last {
                let a = utc(day: d, hour: nightHours.0, lat: v.lat, lon: v.lon, zones: zones)
                let b = utc(day: d, hour: nightHours.1, lat: v.lat, lon: v.lon, zones: zones)
                let o = min(b, v.end) - max(a, v.start)
                if o > 0 {
                    night[v.place, default: (0, [])].dwell += o
                    if o >= minOverlapS * 1000 { night[v.place, default: (0, [])].days.insert(d) }
                }
                let weekday = ((d % 7) + 7 + 3) % 7  // 0 = Monday (1970-01-01 was a Thursday)
                if weekday < 5 {
                    let a = utc(day: d, hour: workHours.0, lat: v.lat, lon: v.lon, zones: zones)
                    let b = utc(day: d, hour: workHours.1, lat: v.lat, lon: v.lon, zones: zones)
                    let o = min(b, v.end) - max(a, v.start)
                    if o > 0 {
                        day[v.place, default: (0, [])].dwell += o
                        if o >= minOverlapS * 1000 { day[v.place, default: (0, [])].days.insert(d) }
                    }
                }
                d += 1
            }
        }
        func pick(_ table: [Int64: (dwell: Int64, days: Set<Int64>)], min: Int, except: Int64?) -> Int64? {
            table.filter { $0.key != except && $0.value.days.count >= min }
                .max { a, b in a.value.dwell != b.value.dwell ? a.value.dwell < b.value.dwell : a.key > b.key }?.key
        }
        // Work is where the days go away from home: without a home (a trip's hotel, a short history) there is none.
        guard let home = pick(night, min: minNights, except: nil) else { return (nil, nil) }
        return (home, pick(day, min: minWorkDays, except: home))
    }
}
