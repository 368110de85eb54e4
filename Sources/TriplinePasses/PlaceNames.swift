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
    /// A long day at a place: this much of a local day there (4 hours).
    static let restDayS: Int64 = 14_400
    /// The place of most dwell over its long days is `Home` instead of the place of most night-time dwell when it
    /// holds this many times as much time, in stays this many times as long on average (a night shift: 100 h at home
    /// against 53 at the hospital, 14.5 h a stay against 8.8).
    static let livesShare = 1.5

    struct Place {
        var id: Int64
        var name: String
        var ssid: String?
        var lat: Double
        var lon: Double
        var radius: Double
        var dwell: Int64
        /// The user's name for the place (``userNamed``): the edit's name, which the place may bear qualified.
        var userName: String?
        var userNamed: Bool { userName != nil }
        var appVotes: [String: Double] = [:]
    }

    struct Visit {
        var place: Int64
        var start: Int64
        var end: Int64
        var lat: Double
        var lon: Double
    }

    /// What the names are chosen from (``assign(device:store:zones:joinM:centreMinM:)`` loads it).
    struct Input {
        /// Every place of the device, by id.
        var places: [PlaceRow]
        /// The user's place edits, oldest first.
        var edits: [PlaceEditRow]
        /// Every visit of the device (those without a place are passed over), by start then id.
        var visits: [VisitRow]
        /// Google's names of its visits (``Store/googleVisitSegments(device:fromMs:toMs:)``), in time order, each at
        /// the position the timeline pass gives it (``TimelinePass/position(_:centreMinM:)``).
        var googleVisits: [(startMs: Int64, endMs: Int64, lat: Double, lon: Double, semanticType: String?, name: String?, address: String?,
                            hierarchyLevel: Double?)] = []
        /// OwnTracks' transitions and waypoints (``Store/ownTracksRegionEvents(device:)``), in time order.
        var ownTracks: [(kind: String?, timeMs: Int64?, lat: Double?, lon: Double?, desc: String?, event: String?, radiusM: Double?)] = []
    }

    /// Names every place of `device` (see the type's comment): loads what ``names(_:zones:joinM:)`` chooses from and
    /// renames the places whose name changes; returns how many were named by each rule.
    @discardableResult
    static func assign(device: Int64, store: Store, zones: LocalZones, joinM: Double, centreMinM: Double) throws -> [String: Int] {
        let places = try store.places(device: device)
        guard !places.isEmpty else { return [:] }
        let google = try store.googleVisitSegments(device: device, fromMs: Int64.min, toMs: Int64.max).compactMap { g in
            TimelinePass.position(g, centreMinM: centreMinM).map {
                (g.startMs, g.endMs, $0.at.lat, $0.at.lon, g.semanticType, g.name, g.address, g.hierarchyLevel)
            }
        }
        let input = Input(places: places, edits: try store.placeEdits(device: device), visits: try store.visitsInOrder(device: device),
                          googleVisits: google, ownTracks: try store.ownTracksRegionEvents(device: device))
        let (renames, rules) = names(input, zones: zones, joinM: joinM)
        let tables = RebuildTables(store)
        for (id, name) in renames { try tables.renamePlace(id: id, name: name) }
        return rules
    }

    /// The name of every place of `input` (see the type's comment): the places whose name changes (by id, in the
    /// order the names were given out) and how many were named by each rule.
    static func names(_ input: Input, zones: LocalZones, joinM: Double) -> (renames: [(id: Int64, name: String)], rules: [String: Int]) {
        var places = input.places.map {
            Place(id: $0.id ?? 0, name: $0.name, ssid: $0.ssid, lat: $0.lat, lon: $0.lon, radius: $0.radiusM, dwell: $0.totalDwellS)
        }
        guard !places.isEmpty else { return ([], [:]) }
        var index: [Int64: Int] = [:]
        for (k, e) in places.enumerated() { index[e.id] = k }
        // 1. The user's names: a rename edit whose name the place bears, made at (within reach of) its centre. The
        // name may be borne qualified (`Cafe (2)`: another place of the device has it), as a naming before this one
        // left it: the place is still the user's and is qualified again below. (Before, a second naming, which
        // `places rename` of any place and `rebuild --pass timeline` run, took such a place for unnamed and gave it
        // `near …`, while a full rebuild gave `Cafe (2)`.)
        for edit in input.edits where edit.action == .rename {
            guard let name = edit.name else { continue }
            for k in places.indices where bears(places[k].name, name)
                && Geo.distance(places[k].lat, places[k].lon, edit.lat, edit.lon) <= max(joinM, places[k].radius) {
                places[k].userName = name
            }
        }
        let visits = input.visits.compactMap { v in
            v.placeID.map { Visit(place: $0, start: v.startMs, end: v.endMs, lat: v.lat, lon: v.lon) }
        }
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
        for g in input.googleVisits {
            if let level = g.hierarchyLevel, level > 0 { continue }  // a visit inside another one
            let semantic = TimelinePass.semanticName(g.semanticType)
            let label = semantic ?? NameText.imported(g.name) ?? NameText.imported(g.address)
            guard let label else { continue }
            for (visit, o) in overlapping(g.startMs, g.endMs) {
                guard let k = index[visit.place], Geo.distance(visit.lat, visit.lon, g.lat, g.lon) <= max(joinM, places[k].radius) else { continue }
                places[k].appVotes[label, default: 0] += Double(o) / 1000
            }
        }
        // OwnTracks: a transition into a region during a visit (its position at the place), a waypoint (a region the
        // user defined) whose circle holds the place's centre.
        for o in input.ownTracks {
            guard let desc = NameText.imported(o.desc), let lat = o.lat, let lon = o.lon else { continue }
            if o.kind == "waypoint" {
                let reach = max(joinM, o.radiusM ?? 0)
                for k in places.indices where Geo.distance(places[k].lat, places[k].lon, lat, lon) <= reach {
                    places[k].appVotes[desc, default: 0] += 1
                }
            } else if o.event == "enter", let t = o.timeMs {
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
        var names: [String?] = places.map(\.userName)
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
            if let ssid = NameText.imported(places[k].ssid) {
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
        var renames: [(id: Int64, name: String)] = []
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
            if name != places[k].name { renames.append((places[k].id, name)) }
            if name != base { rules["qualified", default: 0] += 1 }
        }
        return (renames, rules)
    }

    /// Whether a place's stored name is `name`, or `name` qualified as two places of one device are (`name (N)`).
    static func bears(_ stored: String, _ name: String) -> Bool {
        if stored == name { return true }
        guard stored.hasPrefix(name + " ("), stored.hasSuffix(")") else { return false }
        let number = stored.utf8.dropFirst(name.utf8.count + 2).dropLast()
        return !number.isEmpty && number.count <= 9 && number.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
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
    /// with at least `minNights` nights of `minOverlapS` or more; but the place of most dwell among those with at
    /// least `minNights` days of `restDayS` there when it holds `livesShare` times the time of that one, in stays
    /// `livesShare` times as long on average (a night shift's home). `Work`: of the other places, the one of most
    /// working-day dwell (Monday–Friday 09:00–17:00 local) among those with at least `minWorkDays` such days; no Work
    /// without a Home (two days at a hotel abroad are no work place). Ties go to the lower place id.
    static func inferHomeAndWork(_ visits: [Visit], zones: LocalZones) -> (home: Int64?, work: Int64?) {
        var night: [Int64: (dwell: Int64, days: Set<Int64>)] = [:]
        var day: [Int64: (dwell: Int64, days: Set<Int64>)] = [:]
        /// Each place's dwell by local day (midnights at the visit's start offset): the long days of ``restDayS``.
        var perDay: [Int64: [Int64: Int64]] = [:]
        var stays: [Int64: Int] = [:]
        for v in visits where v.end > v.start {
            stays[v.place, default: 0] += 1
            let local = Int64(zones.offset(atMs: v.start, latitude: v.lat, longitude: v.lon)) * 1000
            var from = v.start
            for _ in 0..<800 where from < v.end {  // at most 800 days of one visit, as the windows below
                let d = Int64((Double(from + local) / 86_400_000).rounded(.down))
                let to = min(v.end, (d + 1) * 86_400_000 - local)
                perDay[v.place, default: [:]][d, default: 0] += to - from
                from = to
            }
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
        guard var home = pick(night, min: minNights, except: nil) else { return (nil, nil) }
        // Where the person lives holds far more of their time than where they spend the nights, on at least
        // `minNights` long days: a night shift's (a nurse at the hospital 21:40–06:30, at home 07:00–21:30, was `Home`
        // at the hospital and `Work` at home; the year in review, by dwell, said otherwise).
        var rest: [Int64: (dwell: Int64, days: Set<Int64>)] = [:]
        for (place, days) in perDay {
            rest[place] = (days.values.reduce(0, +), Set(days.filter { $0.value >= restDayS * 1000 }.keys))
        }
        // Its stays are longer too (home 14.5 h a day against the shift's 8.8): a logger switched off at home (GeoLife
        // 097, 115) holds more time at the lab, in shorter stays, and its nights at home keep `Home` there.
        func meanStay(_ place: Int64) -> Double { Double(rest[place]?.dwell ?? 0) / Double(max(1, stays[place] ?? 0)) }
        if let lives = pick(rest, min: minNights, except: nil), lives != home,
           Double(rest[lives]!.dwell) >= livesShare * Double(rest[home]?.dwell ?? 0), meanStay(lives) >= livesShare * meanStay(home) {
            home = lives
        }
        return (home, pick(day, min: minWorkDays, except: home))
    }
}
