import TriplineCore

// `places`: where a device's visits cluster. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `places`: where a device's visits cluster.
public struct PlaceRow: Sendable, Equatable {
    /// A stable id (``StableID``); nil takes the next free row id.
    public var id: Int64?
    public var deviceID: Int64
    public var name: String
    public var ssid: String?
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var visits: Int
    public var totalDwellS: Int64
    public var firstVisitMs: Int64?
    public var lastVisitMs: Int64?
    /// Where the centre is (migration 3): ISO 3166-1 alpha-2, English country name, nearest populated place.
    public var countryCode: String?
    public var country: String?
    public var locality: String?
    /// `points` (rebuilt from fixes) or `app` (an app's own timeline, migration 9); read back, not written by the
    /// plain insert (the timeline pass's inserts mark their rows `app`).
    public var source: String

    public init(
        id: Int64? = nil, deviceID: Int64, name: String, ssid: String?, lat: Double, lon: Double, radiusM: Double, visits: Int, totalDwellS: Int64,
        firstVisitMs: Int64?, lastVisitMs: Int64?, countryCode: String? = nil, country: String? = nil, locality: String? = nil,
        source: String = "points"
    ) {
        self.source = source
        self.id = id
        self.countryCode = countryCode
        self.country = country
        self.locality = locality
        self.deviceID = deviceID
        self.name = name
        self.ssid = ssid
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.visits = visits
        self.totalDwellS = totalDwellS
        self.firstVisitMs = firstVisitMs
        self.lastVisitMs = lastVisitMs
    }
}

extension RebuildTables {
    /// Deletes all of a device's places and visits (places are device-wide, so the places pass rewrites them all).
    public func deletePlacesAndVisits(device: Int64) throws {
        try db.run("DELETE FROM visits WHERE device_id = ?", [.integer(device)])
        try db.run("DELETE FROM places WHERE device_id = ?", [.integer(device)])
    }

    /// Inserts a place and returns its id.
    @discardableResult
    public func insert(_ r: PlaceRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO places(id, device_id, name, ssid, lat, lon, radius_m, visits, total_dwell_s, first_visit_ms, last_visit_ms,
              country_code, country, locality)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        return try insert(s, id: r.id, "places", [.integer(r.deviceID), .text(r.name), .optional(r.ssid), .real(r.lat), .real(r.lon), .real(r.radiusM),
                                                .integer(Int64(r.visits)), .integer(r.totalDwellS), .optional(r.firstVisitMs), .optional(r.lastVisitMs),
                                                .optional(r.countryCode), .optional(r.country), .optional(r.locality)])
    }

    /// Sets a place's visit totals (for writers that learn them after the place's visits).
    public func updateTotals(place id: Int64, visits: Int, totalDwellS: Int64, firstVisitMs: Int64?, lastVisitMs: Int64?) throws {
        let s = try statement("UPDATE places SET visits = ?, total_dwell_s = ?, first_visit_ms = ?, last_visit_ms = ? WHERE id = ?")
        try s.bind([.integer(Int64(visits)), .integer(totalDwellS), .optional(firstVisitMs), .optional(lastVisitMs), .integer(id)])
        _ = try s.step()
    }
}

// MARK: Reading places

/// A place as the exports read it: its row (fields read through) and the offsets of its first visit's start and its
/// last visit's end.
@dynamicMemberLookup
public struct PlaceListing: Sendable, Equatable {
    public var row: PlaceRow
    public var firstUTCOffset: UTCOffset?
    public var lastUTCOffset: UTCOffset?

    /// The stored id (a row read back always has one).
    public var id: Int64 { row.id ?? 0 }

    public init(row: PlaceRow, firstUTCOffset: UTCOffset?, lastUTCOffset: UTCOffset?) {
        self.row = row
        self.firstUTCOffset = firstUTCOffset
        self.lastUTCOffset = lastUTCOffset
    }

    public subscript<T>(dynamicMember key: WritableKeyPath<PlaceRow, T>) -> T {
        get { row[keyPath: key] }
        set { row[keyPath: key] = newValue }
    }
}

extension Store {
    /// The places of `device` (every device when nil), by first visit then id.
    public func forEachPlace(device: Int64?, _ body: (PlaceListing) throws -> Void) throws {
        let s = try db.prepare(
            """
            SELECT p.id, p.device_id, p.name, p.ssid, p.lat, p.lon, p.radius_m, p.visits, p.total_dwell_s,
                   p.first_visit_ms, p.last_visit_ms,
                   (SELECT v.start_utc_offset_s FROM visits v WHERE v.place_id = p.id AND v.start_ms = p.first_visit_ms LIMIT 1),
                   (SELECT coalesce(v.end_utc_offset_s, v.start_utc_offset_s) FROM visits v
                     WHERE v.place_id = p.id AND (v.end_ms = p.last_visit_ms OR v.start_ms = p.last_visit_ms) LIMIT 1),
                   p.country_code, p.country, p.locality, p.source
            FROM places p
            WHERE (?1 IS NULL OR p.device_id = ?1)
            ORDER BY p.first_visit_ms, p.id
            """)
        s.bindInt(device, at: 1)
        while try s.step() {
            let row = PlaceRow(
                id: s.int64(0), deviceID: s.int64(1), name: s.text(2) ?? "", ssid: s.text(3), lat: s.double(4), lon: s.double(5),
                radiusM: s.double(6), visits: s.int(7), totalDwellS: s.int64(8), firstVisitMs: s.optionalInt64(9),
                lastVisitMs: s.optionalInt64(10), countryCode: s.text(13), country: s.text(14), locality: s.text(15),
                source: s.text(16) ?? "points")
            try body(PlaceListing(row: row, firstUTCOffset: s.optionalInt64(11).map(UTCOffset.init(stored:)),
                                  lastUTCOffset: s.optionalInt64(12).map(UTCOffset.init(stored:))))
        }
    }

    /// The places named `nameOrID`, or whose id it is, by id (the privacy zones' `PLACE`).
    public func places(namedOrID nameOrID: String) throws -> [(id: Int64, name: String, lat: Double, lon: Double)] {
        let s = try db.prepare("SELECT id, name, lat, lon FROM places WHERE name = ?1 OR CAST(id AS TEXT) = ?1 ORDER BY id")
        try s.bind([.text(nameOrID)])
        var out: [(id: Int64, name: String, lat: Double, lon: Double)] = []
        while try s.step() { out.append((s.int64(0), s.text(1) ?? nameOrID, s.double(2), s.double(3))) }
        return out
    }

    /// Every place's centre, by id.
    public func placeCentres() throws -> [(id: Int64, lat: Double, lon: Double)] {
        let s = try db.prepare("SELECT id, lat, lon FROM places ORDER BY id")
        var out: [(id: Int64, lat: Double, lon: Double)] = []
        while try s.step() { out.append((s.int64(0), s.double(1), s.double(2))) }
        return out
    }
}

/// A place as `tripline places` lists it: with its device's name.
public struct PlaceSummary: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var device: String
    public var deviceID: Int64
    public var visits: Int
    public var dwellS: Int64
    public var lat: Double
    public var lon: Double
}

extension Store {
    /// The place `id`, or the places of the device named `device`, or every place (when both are nil): by device name,
    /// then longest total dwell, then id.
    public func placeSummaries(id: Int64? = nil, device: String? = nil) throws -> [PlaceSummary] {
        var sql = """
            SELECT p.id, p.name, d.name, p.device_id, p.visits, p.total_dwell_s, p.lat, p.lon
            FROM places p JOIN devices d ON d.id = p.device_id
            """
        var values: [SQLValue] = []
        if let id { sql += " WHERE p.id = ?"; values.append(.integer(id)) } else if let device { sql += " WHERE d.name = ?"; values.append(.text(device)) }
        sql += " ORDER BY d.name, p.total_dwell_s DESC, p.id"
        let st = try db.prepare(sql)
        try st.bind(values)
        var out: [PlaceSummary] = []
        while try st.step() {
            out.append(
                PlaceSummary(id: st.int64(0), name: st.text(1) ?? "", device: st.text(2) ?? "", deviceID: st.int64(3), visits: st.int(4),
                             dwellS: st.int64(5), lat: st.double(6), lon: st.double(7)))
        }
        return out
    }
}

extension Store {
    /// The place `id`'s name and centre, or nil when there is none.
    public func placeNameAndCentre(id: Int64) throws -> (name: String, lat: Double, lon: Double)? {
        let s = try db.prepare("SELECT name, lat, lon FROM places WHERE id = ?")
        s.bindInt(id, at: 1)
        guard try s.step() else { return nil }
        return (s.text(0) ?? "", s.double(1), s.double(2))
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// How many places `device` has (only those from `source` when given; only those named by a wifi network when
    /// `namedByWifi`).
    public func placeCount(device: Int64, source: String? = nil, namedByWifi: Bool = false) throws -> Int {
        Int(try db.scalarInt(
            "SELECT count(*) FROM places WHERE device_id = ?1 AND (?2 IS NULL OR source = ?2) AND (?3 = 0 OR ssid IS NOT NULL)",
            [.integer(device), .optional(source), .integer(namedByWifi ? 1 : 0)]) ?? 0)
    }
}

// MARK: Read by the timeline pass

extension Store {
    /// Every place of `device`, by id (the timeline pass joins Google's visits to them and names them all).
    public func places(device: Int64) throws -> [PlaceRow] {
        let s = try db.prepare(
            """
            SELECT id, name, ssid, lat, lon, radius_m, visits, total_dwell_s, first_visit_ms, last_visit_ms, country_code, country, locality, source
            FROM places WHERE device_id = ? ORDER BY id
            """)
        s.bindInt(device, at: 1)
        var out: [PlaceRow] = []
        while try s.step() {
            out.append(
                PlaceRow(id: s.int64(0), deviceID: device, name: s.text(1) ?? "", ssid: s.text(2), lat: s.double(3), lon: s.double(4),
                         radiusM: s.double(5), visits: s.int(6), totalDwellS: s.int64(7), firstVisitMs: s.optionalInt64(8),
                         lastVisitMs: s.optionalInt64(9), countryCode: s.text(10), country: s.text(11), locality: s.text(12),
                         source: s.text(13) ?? "points"))
        }
        return out
    }
}
