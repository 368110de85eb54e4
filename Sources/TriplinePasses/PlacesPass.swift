import TriplineCore
import TriplineStore

/// Pass 3, `places`: clusters the device's stays into places and writes one visit per stay.
///
/// Stays are taken in time order; each joins the nearest place whose centre is within `radius_m`, else founds a new
/// one; a place's centre is the dwell-weighted mean of its visits. Repeated visits home become one place while two
/// shops 200 m apart stay two. A place is named after the wifi network most seen there (`Wifi "SSID"`), else its
/// coordinates. Places are per device and always recomputed from all of the device's stays (a few thousand at most).
public struct PlacesPass: Pass {
    public static let name = "places"

    public struct Parameters {
        /// A stay joins a place whose centre is within this distance (metres). Below half the 200 m between two
        /// neighbouring shops, above the scatter of one place's stay centres.
        public var radiusM: Double = 75
        public init() {}
        static var keys: [String: WritableKeyPath<Parameters, Double>] { ["radius_m": \.radiusM] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public init(settings: PassSettings) throws {
        var p = Parameters()
        try settings.apply(Self.name, to: &p, keys: Parameters.keys)
        parameters = p
    }

    public var parameterList: [(String, String)] {
        Parameters.keys.keys.sorted().map { ($0, formatParameter(parameters[keyPath: Parameters.keys[$0]!])) }
    }

    struct Place {
        var lat: Double
        var lon: Double
        var weight: Double
        var visits: Int = 0
        var dwell: Double = 0
        var first: Int64 = .max
        var last: Int64 = .min
        var ssidCounts: [String: Int] = [:]
        var radius: Double = 0
    }

    /// Assigns each stay (lat, lon, start, end) to a place; returns the places and the place index of each stay.
    static func cluster(_ stays: [(lat: Double, lon: Double, start: Int64, end: Int64)], radius: Double) -> ([Place], [Int]) {
        var places: [Place] = []
        var assignment: [Int] = []
        for s in stays {
            var best = -1
            var bestD = radius
            for (k, p) in places.enumerated() {
                let d = Geo.distance(p.lat, p.lon, s.lat, s.lon)
                if d <= bestD { bestD = d; best = k }
            }
            let w = max(Double(s.end - s.start) / 1000, 60)
            if best < 0 {
                places.append(Place(lat: s.lat, lon: s.lon, weight: 0))
                best = places.count - 1
            }
            var p = places[best]
            p.lat = (p.lat * p.weight + s.lat * w) / (p.weight + w)
            p.lon = (p.lon * p.weight + s.lon * w) / (p.weight + w)
            p.weight += w
            p.visits += 1
            p.dwell += Double(s.end - s.start) / 1000
            p.first = min(p.first, s.start)
            p.last = max(p.last, s.end)
            places[best] = p
            assignment.append(best)
        }
        return (places, assignment)
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        // All of the device's stays (not only the span): places are device-wide.
        let read = try store.db.prepare("SELECT id, start_ms, end_ms, lat, lon FROM stays WHERE device_id = ? ORDER BY start_ms")
        read.reset()
        read.bindInt(work.deviceID, at: 1)
        var ids: [Int64] = []
        var stays: [(lat: Double, lon: Double, start: Int64, end: Int64)] = []
        while try read.step() {
            ids.append(read.int64(0))
            stays.append((read.double(3), read.double(4), read.int64(1), read.int64(2)))
        }
        var (places, assignment) = Self.cluster(stays, radius: parameters.radiusM)
        // Wifi seen during each visit.
        let ssidQuery = try store.db.prepare(
            "SELECT ssid, count(*) FROM points WHERE device_id = ? AND time_ms >= ? AND time_ms <= ? AND ssid IS NOT NULL AND ssid != '' GROUP BY ssid")
        let offsetQuery = try store.db.prepare("SELECT utc_offset_s FROM points WHERE device_id = ? AND time_ms = ?")
        func offset(_ ms: Int64) throws -> Int32 {
            offsetQuery.reset()
            offsetQuery.bindInt(work.deviceID, at: 1)
            offsetQuery.bindInt(ms, at: 2)
            if try offsetQuery.step(), !offsetQuery.isNull(0) { return Int32(truncatingIfNeeded: offsetQuery.int64(0)) }
            return work.timeZone.offset(at: ms)
        }
        for (k, s) in stays.enumerated() {
            ssidQuery.reset()
            ssidQuery.bindInt(work.deviceID, at: 1)
            ssidQuery.bindInt(s.start, at: 2)
            ssidQuery.bindInt(s.end, at: 3)
            while try ssidQuery.step() {
                places[assignment[k]].ssidCounts[ssidQuery.text(0) ?? "", default: 0] += ssidQuery.int(1)
            }
            let p = places[assignment[k]]
            places[assignment[k]].radius = max(p.radius, Geo.distance(p.lat, p.lon, s.lat, s.lon))
        }
        try store.db.run("DELETE FROM visits WHERE device_id = ?", [.integer(work.deviceID)])
        try store.db.run("DELETE FROM places WHERE device_id = ?", [.integer(work.deviceID)])
        let insertPlace = try store.db.prepare(
            """
            INSERT INTO places(device_id, name, ssid, lat, lon, radius_m, visits, total_dwell_s, first_visit_ms, last_visit_ms)
            VALUES (?,?,?,?,?,?,?,?,?,?)
            """)
        var placeIDs: [Int64] = []
        var named = 0
        for p in places {
            let ssid = p.ssidCounts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
            let name = ssid.map { "Wifi \"\($0)\"" } ?? Self.coordinateName(p.lat, p.lon)
            if ssid != nil { named += 1 }
            insertPlace.reset()
            insertPlace.bindInt(work.deviceID, at: 1)
            insertPlace.bindText(name, at: 2)
            insertPlace.bindText(ssid, at: 3)
            insertPlace.bindDouble(p.lat, at: 4)
            insertPlace.bindDouble(p.lon, at: 5)
            insertPlace.bindDouble(p.radius, at: 6)
            insertPlace.bindInt(Int64(p.visits), at: 7)
            insertPlace.bindInt(Int64(p.dwell.rounded()), at: 8)
            insertPlace.bindInt(p.first, at: 9)
            insertPlace.bindInt(p.last, at: 10)
            _ = try insertPlace.step()
            placeIDs.append(store.db.lastInsertRowID)
        }
        let insertVisit = try store.db.prepare(
            """
            INSERT INTO visits(id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points)
            SELECT id, device_id, ?, start_ms, end_ms, ?, ?, lat, lon, radius_m, points FROM stays WHERE id = ?
            """)
        var placeOfStay: [Int64: Int64] = [:]
        for (k, s) in stays.enumerated() {
            insertVisit.reset()
            insertVisit.bindInt(placeIDs[assignment[k]], at: 1)
            insertVisit.bindInt(Int64(try offset(s.start)), at: 2)
            insertVisit.bindInt(Int64(try offset(s.end)), at: 3)
            insertVisit.bindInt(ids[k], at: 4)
            _ = try insertVisit.step()
            placeOfStay[ids[k]] = placeIDs[assignment[k]]
        }
        if var workStays = work.stays {
            for k in workStays.indices { workStays[k].placeID = placeOfStay[workStays[k].id] ?? 0 }
            work.stays = workStays
        }
        return [("places", String(places.count)), ("visits", String(stays.count)), ("named_by_wifi", String(named))]
    }

    static func coordinateName(_ lat: Double, _ lon: Double) -> String {
        func f(_ v: Double) -> String {
            let r = (v * 100_000).rounded() / 100_000
            var s = String(r)
            if let dot = s.firstIndex(of: ".") {
                let decimals = s.distance(from: dot, to: s.endIndex) - 1
                if decimals < 5 { s += String(repeating: "0", count: 5 - decimals) }
            }
            return s
        }
        return f(lat) + ", " + f(lon)
    }
}
