import TriplineCore

// `place_edits`: the user's renames, merges and forgets of places. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `place_edits`: the user's own rename, merge or forget of a place, found again in every rebuild by the
/// centre the place had when it was edited (the nearest place within `places.radius_m` of it).
public struct PlaceEditRow: Sendable, Equatable {
    public enum Action: String, Sendable { case rename, merge, forget }
    public var id: Int64?
    public var deviceID: Int64
    public var action: Action
    public var lat: Double
    public var lon: Double
    /// rename: the new name.
    public var name: String?
    /// merge: the centre of the place the visits join.
    public var intoLat: Double?
    public var intoLon: Double?
    public var createdMs: Int64

    public init(id: Int64? = nil, deviceID: Int64, action: Action, lat: Double, lon: Double, name: String? = nil, intoLat: Double? = nil,
                intoLon: Double? = nil, createdMs: Int64) {
        self.id = id
        self.deviceID = deviceID
        self.action = action
        self.lat = lat
        self.lon = lon
        self.name = name
        self.intoLat = intoLat
        self.intoLon = intoLon
        self.createdMs = createdMs
    }
}

extension RebuildTables {
    /// Records a user's edit of a place and returns its id (`tripline places rename|merge|forget`).
    @discardableResult
    public func insert(_ r: PlaceEditRow) throws -> Int64 {
        try db.run(
            "INSERT INTO place_edits(id, device_id, action, lat, lon, name, into_lat, into_lon, created_ms) VALUES (?,?,?,?,?,?,?,?,?)",
            [.optional(r.id), .integer(r.deviceID), .text(r.action.rawValue), .real(r.lat), .real(r.lon), .optional(r.name), .optional(r.intoLat),
             .optional(r.intoLon), .integer(r.createdMs)])
        return db.lastInsertRowID
    }

    /// Removes a user's edit of a place (`tripline places undo`); false when there is none with that id.
    public func deletePlaceEdit(id: Int64) throws -> Bool {
        try db.run("DELETE FROM place_edits WHERE id = ?", [.integer(id)])
        return db.changes > 0
    }
}

// MARK: Read by the places and timeline passes

extension Store {
    /// Every place edit (of `device` when given), oldest first (`tripline places edits`; an action this version does
    /// not know is left out).
    public func allPlaceEdits(device: Int64? = nil) throws -> [PlaceEditRow] {
        let st = try db.prepare(
            """
            SELECT id, device_id, action, lat, lon, name, into_lat, into_lon, created_ms FROM place_edits
            WHERE ?1 IS NULL OR device_id = ?1 ORDER BY id
            """)
        try st.bind([.optional(device)])
        var out: [PlaceEditRow] = []
        while try st.step() {
            guard let action = PlaceEditRow.Action(rawValue: st.text(2) ?? "") else { continue }
            out.append(PlaceEditRow(id: st.int64(0), deviceID: st.int64(1), action: action, lat: st.double(3), lon: st.double(4), name: st.text(5),
                                    intoLat: st.optionalDouble(6), intoLon: st.optionalDouble(7), createdMs: st.int64(8)))
        }
        return out
    }

    /// A device's place edits, oldest first (an edit whose action this version does not know is left out).
    public func placeEdits(device: Int64) throws -> [PlaceEditRow] {
        let st = try db.prepare(
            "SELECT id, action, lat, lon, name, into_lat, into_lon, created_ms FROM place_edits WHERE device_id = ? ORDER BY id")
        st.bindInt(device, at: 1)
        var out: [PlaceEditRow] = []
        while try st.step() {
            guard let action = PlaceEditRow.Action(rawValue: st.text(1) ?? "") else { continue }
            out.append(PlaceEditRow(id: st.int64(0), deviceID: device, action: action, lat: st.double(2), lon: st.double(3), name: st.text(4),
                                    intoLat: st.optionalDouble(5), intoLon: st.optionalDouble(6), createdMs: st.int64(7)))
        }
        return out
    }
}
