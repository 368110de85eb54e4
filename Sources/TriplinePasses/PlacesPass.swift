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

    public struct Parameters: PassParameters {
        /// A stay joins a place whose centre is within this distance (metres). Below half the 200 m between two
        /// neighbouring shops, above the scatter of one place's stay centres.
        public var radiusM: Double = 75
        public init() {}
        public static var keys: [String: WritableKeyPath<Parameters, Double>] { ["radius_m": \.radiusM] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

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
        let read = try store.db.prepare("SELECT id, start_ms, end_ms, lat, lon, radius_m, points FROM stays WHERE device_id = ? ORDER BY start_ms")
        read.reset()
        read.bindInt(work.deviceID, at: 1)
        var ids: [Int64] = []
        var stays: [(lat: Double, lon: Double, start: Int64, end: Int64)] = []
        var extents: [(radiusM: Double, points: Int)] = []
        while try read.step() {
            ids.append(read.int64(0))
            stays.append((read.double(3), read.double(4), read.int64(1), read.int64(2)))
            extents.append((read.double(5), read.int(6)))
        }
        var (places, assignment) = Self.cluster(stays, radius: parameters.radiusM)
        // Wifi seen during each visit.
        let ssidQuery = try store.db.prepare(
            "SELECT ssid, count(*) FROM points WHERE device_id = ? AND time_ms >= ? AND time_ms <= ? AND ssid IS NOT NULL AND ssid != '' GROUP BY ssid")
        let offsetQuery = try store.db.prepare("SELECT utc_offset_s, lat, lon FROM points WHERE device_id = ? AND time_ms = ?")
        /// The offset of the point at `ms` (a stay starts and ends at points): its own, else its zone's.
        func offset(_ ms: Int64) throws -> Int32 {
            offsetQuery.reset()
            offsetQuery.bindInt(work.deviceID, at: 1)
            offsetQuery.bindInt(ms, at: 2)
            guard try offsetQuery.step() else { return work.zones.offset(atMs: ms, latitude: .nan, longitude: .nan) }
            if !offsetQuery.isNull(0) { return Int32(truncatingIfNeeded: offsetQuery.int64(0)) }
            return work.zones.offset(atMs: ms, latitude: offsetQuery.double(1), longitude: offsetQuery.double(2))
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
        let tables = RebuildTables(store)
        try tables.deletePlacesAndVisits(device: work.deviceID)
        var placeIDs: [Int64] = []
        var named = 0
        for p in places {
            let ssid = p.ssidCounts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
            let name = ssid.map { "Wifi \"\($0)\"" } ?? Self.coordinateName(p.lat, p.lon)
            if ssid != nil { named += 1 }
            placeIDs.append(try tables.insert(
                PlaceRow(deviceID: work.deviceID, name: name, ssid: ssid, lat: p.lat, lon: p.lon, radiusM: p.radius, visits: p.visits,
                         totalDwellS: Int64(p.dwell.rounded()), firstVisitMs: p.first, lastVisitMs: p.last)))
        }
        var placeOfStay: [Int64: Int64] = [:]
        for (k, s) in stays.enumerated() {
            // A visit is its stay (same id) with a place and local offsets.
            try tables.insert(
                VisitRow(id: ids[k], deviceID: work.deviceID, placeID: placeIDs[assignment[k]], startMs: s.start, endMs: s.end,
                         startUTCOffsetS: Int(try offset(s.start)), endUTCOffsetS: Int(try offset(s.end)), lat: s.lat, lon: s.lon,
                         radiusM: extents[k].radiusM, points: extents[k].points))
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
