/// A remembered privacy zone (`tripline privacy add`; table `privacy_zones`, migration 10).
public struct PrivacyZoneRow: Sendable, Equatable {
    public var id: Int64
    /// The place's name (or id) when the zone was added: shown by `privacy list`, never exported.
    public var label: String
    /// The place the zone was made from (its centre is kept, so the zone outlives a rebuild that drops the place).
    public var placeID: Int64?
    public var lat: Double
    public var lon: Double
    public var radiusM: Double

    public init(id: Int64 = 0, label: String, placeID: Int64?, lat: Double, lon: Double, radiusM: Double) {
        self.id = id
        self.label = label
        self.placeID = placeID
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
    }
}

/// The one writer and reader of `privacy_zones`.
public enum PrivacyZoneTable {
    /// Every remembered zone, by id; none in a database from before migration 10 (opened read-only, not migrated).
    public static func all(_ db: Database) throws -> [PrivacyZoneRow] {
        guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'privacy_zones'") == 1 else { return [] }
        let statement = try db.prepare("SELECT id, label, place_id, lat, lon, radius_m FROM privacy_zones ORDER BY id")
        var rows: [PrivacyZoneRow] = []
        while try statement.step() {
            rows.append(
                PrivacyZoneRow(
                    id: statement.int64(0), label: statement.text(1) ?? "", placeID: statement.optionalInt64(2),
                    lat: statement.double(3), lon: statement.double(4), radiusM: statement.double(5)))
        }
        return rows
    }

    /// Adds a zone; returns its id.
    @discardableResult
    public static func insert(_ row: PrivacyZoneRow, _ db: Database) throws -> Int64 {
        try db.run(
            "INSERT INTO privacy_zones(label, place_id, lat, lon, radius_m) VALUES (?, ?, ?, ?, ?)",
            [.text(row.label), .optional(row.placeID), .real(row.lat), .real(row.lon), .real(row.radiusM)])
        return db.lastInsertRowID
    }

    /// Removes the zone `id`; returns whether there was one.
    @discardableResult
    public static func delete(id: Int64, _ db: Database) throws -> Bool {
        try db.run("DELETE FROM privacy_zones WHERE id = ?", [.integer(id)])
        return db.changes > 0
    }
}

extension Store {
    /// Every remembered privacy zone, by id (``PrivacyZoneTable/all(_:)``).
    public func privacyZones() throws -> [PrivacyZoneRow] {
        try PrivacyZoneTable.all(db)
    }

    /// Adds the zones in one transaction; returns their ids, in order.
    public func insertPrivacyZones(_ rows: [PrivacyZoneRow]) throws -> [Int64] {
        try db.transaction { try rows.map { try PrivacyZoneTable.insert($0, db) } }
    }

    /// Removes the zone `id` in its own transaction; returns whether there was one.
    public func deletePrivacyZone(id: Int64) throws -> Bool {
        try db.transaction { try PrivacyZoneTable.delete(id: id, db) }
    }
}
