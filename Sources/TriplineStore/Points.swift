import TriplineCore


extension Store {
    /// The id of the device named `name`, creating it (with `source` and how the name was found) when new.
    public func deviceID(named name: String, source: String, origin: DeviceOrigin, tid: String? = nil) throws -> Int64 {
        try DeviceTable(db).id(named: name, source: source, origin: origin, tid: tid)
    }

    /// Inserts points (each with its own `deviceID` and `importID`) through ``PointWriter``, skipping any whose
    /// (device, time) is already stored. Returns how many were new. The caller wraps this in a transaction.
    @discardableResult
    public func insertPoints<S: Sequence>(_ points: S) throws -> Int where S.Element == Point {
        let writer = try PointWriter(db)
        var inserted = 0
        for p in points where try writer.insert(p) { inserted += 1 }
        return inserted
    }
}
