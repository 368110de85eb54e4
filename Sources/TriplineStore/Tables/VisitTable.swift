import TriplineCore

// `visits`: stays assigned to places, with their local offsets. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `visits`: a stay assigned to a place, with its local offsets.
public struct VisitRow: Sendable, Equatable {
    /// The stay's id when the visit is a stay (the places pass); nil for a new id.
    public var id: Int64?
    public var deviceID: Int64
    public var placeID: Int64?
    public var startMs: Int64
    public var endMs: Int64
    public var startUTCOffset: UTCOffset?
    public var endUTCOffset: UTCOffset?
    public var lat: Double
    public var lon: Double
    public var radiusM: Double
    public var points: Int
    /// Where the visit's centre is (migration 3), as for places.
    public var countryCode: String?
    public var country: String?
    public var locality: String?
    /// `points` (rebuilt from fixes) or `app` (an app's own timeline, migration 9); read back, not written by the
    /// plain insert (the timeline pass's inserts mark their rows `app`).
    public var source: String

    public init(
        id: Int64? = nil, deviceID: Int64, placeID: Int64?, startMs: Int64, endMs: Int64, startUTCOffset: UTCOffset?, endUTCOffset: UTCOffset?,
        lat: Double, lon: Double, radiusM: Double, points: Int, countryCode: String? = nil, country: String? = nil, locality: String? = nil,
        source: String = "points"
    ) {
        self.source = source
        self.countryCode = countryCode
        self.country = country
        self.locality = locality
        self.id = id
        self.deviceID = deviceID
        self.placeID = placeID
        self.startMs = startMs
        self.endMs = endMs
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
        self.points = points
    }
}

extension RebuildTables {
    /// The local offsets of a device's visits that start before `beforeMs`, by visit id, with the times they were
    /// worked out for.
    public func visitOffsets(device: Int64, beforeMs: Int64) throws -> [Int64: (startMs: Int64, endMs: Int64, start: UTCOffset?, end: UTCOffset?)] {
        let q = try db.prepare("SELECT id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s FROM visits WHERE device_id = ? AND start_ms < ?")
        q.reset()
        q.bindInt(device, at: 1)
        q.bindInt(beforeMs, at: 2)
        var out: [Int64: (startMs: Int64, endMs: Int64, start: UTCOffset?, end: UTCOffset?)] = [:]
        while try q.step() {
            out[q.int64(0)] = (q.int64(1), q.int64(2), q.isNull(3) ? nil : UTCOffset(stored: q.int64(3)), q.isNull(4) ? nil : UTCOffset(stored: q.int64(4)))
        }
        return out
    }

    /// Deletes a device's places, and those of its visits that start in `fromMs ..< toMs` or whose stay is gone;
    /// returns the ids of the visits left.
    public func deletePlacesAndVisits(device: Int64, startingFromMs fromMs: Int64, toMs: Int64) throws -> Set<Int64> {
        try db.run(
            "DELETE FROM visits WHERE device_id = ? AND ((start_ms >= ? AND start_ms < ?) OR id NOT IN (SELECT id FROM stays WHERE device_id = ?))",
            [.integer(device), .integer(fromMs), .integer(toMs), .integer(device)])
        try db.run("DELETE FROM places WHERE device_id = ?", [.integer(device)])
        let left = try db.prepare("SELECT id FROM visits WHERE device_id = ?")
        left.reset()
        left.bindInt(device, at: 1)
        var ids = Set<Int64>()
        while try left.step() { ids.insert(left.int64(0)) }
        return ids
    }

    /// Inserts a visit and returns its id (the row's own id when given).
    @discardableResult
    public func insert(_ r: VisitRow) throws -> Int64 {
        let s = try statement(
            """
            INSERT INTO visits(id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points,
              country_code, country, locality)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        try s.bind([.optional(r.id), .integer(r.deviceID), .optional(r.placeID), .integer(r.startMs), .integer(r.endMs),
                    .optional(r.startUTCOffset.map(\.seconds64)), .optional(r.endUTCOffset.map(\.seconds64)), .real(r.lat), .real(r.lon),
                    .real(r.radiusM), .integer(Int64(r.points)), .optional(r.countryCode), .optional(r.country), .optional(r.locality)])
        _ = try s.step()
        return db.lastInsertRowID
    }
}

// MARK: Reading visits

/// A visit as the exports read it: its row (fields read through) and its place's name.
@dynamicMemberLookup
public struct VisitListing: Sendable, Equatable {
    public var row: VisitRow
    public var placeName: String?

    /// The stored id (a row read back always has one).
    public var id: Int64 { row.id ?? 0 }

    public init(row: VisitRow, placeName: String?) {
        self.row = row
        self.placeName = placeName
    }

    public subscript<T>(dynamicMember key: WritableKeyPath<VisitRow, T>) -> T {
        get { row[keyPath: key] }
        set { row[keyPath: key] = newValue }
    }
}

extension Store {
    /// The visits of `device` (every device when nil) that start in `[fromMs, throughMs]`, by start time then id,
    /// with their place's name.
    public func forEachVisit(device: Int64?, startingFromMs fromMs: Int64, throughMs: Int64, _ body: (VisitListing) throws -> Void) throws {
        let s = try db.prepare(
            """
            SELECT v.id, v.device_id, v.place_id, p.name, v.start_ms, v.end_ms, v.start_utc_offset_s,
                   v.end_utc_offset_s, v.lat, v.lon, v.radius_m, v.points, v.country_code, v.country, v.locality, v.source
            FROM visits v LEFT JOIN places p ON p.id = v.place_id
            WHERE (?1 IS NULL OR v.device_id = ?1) AND v.start_ms BETWEEN ?2 AND ?3
            ORDER BY v.start_ms, v.id
            """)
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(throughMs, at: 3)
        while try s.step() {
            let row = VisitRow(
                id: s.int64(0), deviceID: s.int64(1), placeID: s.optionalInt64(2), startMs: s.int64(4), endMs: s.int64(5),
                startUTCOffset: s.optionalInt64(6).map(UTCOffset.init(stored:)), endUTCOffset: s.optionalInt64(7).map(UTCOffset.init(stored:)),
                lat: s.double(8), lon: s.double(9), radiusM: s.double(10), points: s.int(11),
                countryCode: s.text(12), country: s.text(13), locality: s.text(14), source: s.text(15) ?? "points")
            try body(VisitListing(row: row, placeName: s.text(3)))
        }
    }
}

extension Store {
    /// The visits of `device` (every device when nil), by start time (the scorers' read).
    public func visits(device: Int64? = nil) throws -> [VisitRow] {
        let s = try db.prepare(
            """
            SELECT \(VisitRow.columns)
            FROM visits WHERE ?1 IS NULL OR device_id = ?1 ORDER BY start_ms
            """)
        s.bindInt(device, at: 1)
        var out: [VisitRow] = []
        while try s.step() {
            out.append(VisitRow(reading: s))
        }
        return out
    }
}

// MARK: Read by the rebuild runner

extension Store {
    /// The place of visit `id`; nil when there is no such visit.
    public func placeID(ofVisit id: Int64) throws -> Int64? {
        try db.scalarInt("SELECT place_id FROM visits WHERE id = ?", [.integer(id)])
    }

    /// How many visits `device` has (only those from `source` when given: `app`, `points`).
    public func visitCount(device: Int64, source: String? = nil) throws -> Int {
        Int(try db.scalarInt(
            "SELECT count(*) FROM visits WHERE device_id = ?1 AND (?2 IS NULL OR source = ?2)", [.integer(device), .optional(source)]) ?? 0)
    }
}

// MARK: Read by the timeline pass

extension Store {
    /// Every visit of `device`, by start time then id (the timeline pass's claims and links, and the place names).
    public func visitsInOrder(device: Int64) throws -> [VisitRow] {
        let s = try db.prepare(
            """
            SELECT \(VisitRow.columns)
            FROM visits WHERE device_id = ? ORDER BY start_ms, id
            """)
        s.bindInt(device, at: 1)
        var out: [VisitRow] = []
        while try s.step() {
            out.append(VisitRow(reading: s))
        }
        return out
    }
}

// MARK: Read by the metrics pass

extension RebuildTables {
    /// The device's visits (of any source) that overlap `[fromMs, toMs)` (`end_ms >= fromMs`, `start_ms < toMs`), in
    /// no particular order.
    public func visits(device: Int64, overlappingFromMs fromMs: Int64, beforeMs toMs: Int64) throws -> [VisitRow] {
        let s = try statement(
            """
            SELECT \(VisitRow.columns)
            FROM visits WHERE device_id = ? AND end_ms >= ? AND start_ms < ?
            """)
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(toMs, at: 3)
        var out: [VisitRow] = []
        while try s.step() {
            out.append(VisitRow(reading: s))
        }
        return out
    }
}

// MARK: Read by the paths pass

extension RebuildTables {
    /// The place of each of the visits `ids` that is stored with one, by visit id.
    public func visitPlaces(ids: [Int64]) throws -> [Int64: Int64] {
        let s = try statement("SELECT place_id FROM visits WHERE id = ?")
        var out: [Int64: Int64] = [:]
        for id in ids where out[id] == nil {
            s.reset()
            s.bindInt(id, at: 1)
            if try s.step(), !s.isNull(0) { out[id] = s.int64(0) }
        }
        return out
    }
}

// MARK: Reading a row

extension VisitRow {
    /// The columns of a `visits` row, in the order ``init(reading:)`` reads them.
    static let columns = """
        id, device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points,
        country_code, country, locality, source
        """

    /// The row at the current step of a statement that selects ``columns`` first.
    init(reading s: Statement) {
        self.init(
            id: s.int64(0), deviceID: s.int64(1), placeID: s.optionalInt64(2), startMs: s.int64(3), endMs: s.int64(4),
            startUTCOffset: s.optionalInt64(5).map(UTCOffset.init(stored:)), endUTCOffset: s.optionalInt64(6).map(UTCOffset.init(stored:)),
            lat: s.double(7), lon: s.double(8), radiusM: s.double(9), points: s.int(10), countryCode: s.text(11),
            country: s.text(12), locality: s.text(13), source: s.text(14) ?? "points")
    }
}
