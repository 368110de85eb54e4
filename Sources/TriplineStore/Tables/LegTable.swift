import TriplineCore

// `legs`: one mode's part of a trip. Its writes are methods of ``RebuildTables`` (one statement cache per
// transaction); docs/SCHEMA.md has every column.

/// A row of `legs`: one mode's part of a trip.
public struct LegRow: Sendable, Equatable {
    public var tripID: Int64
    /// 0, 1, … in time order within the trip.
    public var leg: Int
    public var deviceID: Int64
    public var mode: String
    /// What decided the mode: `speed`, `motion`, `app`, `synthetic`.
    public var modeSource: String
    public var startMs: Int64
    public var endMs: Int64
    public var distanceM: Double
    public var durationS: Double
    public var points: Int
    /// `points` (rebuilt from fixes) or `app` (an app's own timeline, migration 9); read back, not written by the
    /// plain insert (the timeline pass's inserts mark their rows `app`).
    public var source: String
    /// The leg's straight lines as the trips pass measured them (``distanceM`` before the paths pass gave the leg its
    /// share of the trip's path): the shares a `--pass paths` run starts from, as a full rebuild does (migration 11).
    /// For the app's own legs the straight lines along their ``AppLine`` (its share when the activity was clipped;
    /// nil before algorithm version 52).
    public var lineDistanceM: Double?

    public init(
        tripID: Int64, leg: Int, deviceID: Int64, mode: String, modeSource: String, startMs: Int64, endMs: Int64, distanceM: Double,
        durationS: Double, points: Int, source: String = "points", lineDistanceM: Double? = nil
    ) {
        self.source = source
        self.lineDistanceM = lineDistanceM
        self.tripID = tripID
        self.leg = leg
        self.deviceID = deviceID
        self.mode = mode
        self.modeSource = modeSource
        self.startMs = startMs
        self.endMs = endMs
        self.distanceM = distanceM
        self.durationS = durationS
        self.points = points
    }
}

extension RebuildTables {
    /// Writes a stored leg's distance (the paths pass run alone: its legs add up to its trip's measured distance).
    public func setDistance(_ r: LegRow) throws {
        let s = try statement("UPDATE legs SET distance_m = ? WHERE trip_id = ? AND leg = ?")
        try s.bind([.real(r.distanceM), .integer(r.tripID), .integer(Int64(r.leg))])
        _ = try s.step()
    }

    /// Inserts a leg.
    public func insert(_ r: LegRow) throws {
        let s = try statement(
            """
            INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points, line_distance_m)
            VALUES (?,?,?,?,?,?,?,?,?,?,?)
            """)
        try s.bind([.integer(r.tripID), .integer(Int64(r.leg)), .integer(r.deviceID), .text(r.mode), .text(r.modeSource), .integer(r.startMs),
                    .integer(r.endMs), .real(r.distanceM), .real(r.durationS), .integer(Int64(r.points)), .optional(r.lineDistanceM)])
        _ = try s.step()
    }
}

// MARK: Reading legs

/// A leg as the exports read it: its row (fields read through) and its trip's offsets, start and end (legs have no
/// offsets of their own).
@dynamicMemberLookup
public struct LegListing: Sendable, Equatable {
    public var row: LegRow
    public var tripStartUTCOffset: UTCOffset?
    public var tripEndUTCOffset: UTCOffset?
    public var tripStartMs: Int64
    public var tripEndMs: Int64

    public init(row: LegRow, tripStartUTCOffset: UTCOffset?, tripEndUTCOffset: UTCOffset?, tripStartMs: Int64, tripEndMs: Int64) {
        self.row = row
        self.tripStartUTCOffset = tripStartUTCOffset
        self.tripEndUTCOffset = tripEndUTCOffset
        self.tripStartMs = tripStartMs
        self.tripEndMs = tripEndMs
    }

    public subscript<T>(dynamicMember key: WritableKeyPath<LegRow, T>) -> T {
        get { row[keyPath: key] }
        set { row[keyPath: key] = newValue }
    }
}

extension Store {
    /// The legs of the trips ``forEachTrip(device:startingFromMs:throughMs:_:)`` reads, by trip (in its order), then
    /// leg number.
    public func forEachLeg(device: Int64?, tripsStartingFromMs fromMs: Int64, throughMs: Int64, _ body: (LegListing) throws -> Void) throws {
        let s = try db.prepare(
            """
            SELECT l.trip_id, l.leg, l.device_id, l.mode, l.mode_source, l.start_ms, l.end_ms, l.distance_m,
                   l.duration_s, l.points, t.start_utc_offset_s, t.end_utc_offset_s, t.start_ms, t.end_ms, l.source
            FROM legs l JOIN trips t ON t.id = l.trip_id
            WHERE (?1 IS NULL OR t.device_id = ?1) AND t.start_ms BETWEEN ?2 AND ?3
            ORDER BY t.start_ms, t.id, l.leg
            """)
        s.bindInt(device, at: 1)
        s.bindInt(fromMs, at: 2)
        s.bindInt(throughMs, at: 3)
        while try s.step() {
            let row = LegRow(
                tripID: s.int64(0), leg: s.int(1), deviceID: s.int64(2), mode: s.text(3) ?? "", modeSource: s.text(4) ?? "",
                startMs: s.int64(5), endMs: s.int64(6), distanceM: s.double(7), durationS: s.double(8), points: s.int(9),
                source: s.text(14) ?? "points")
            try body(
                LegListing(
                    row: row, tripStartUTCOffset: s.optionalInt64(10).map(UTCOffset.init(stored:)),
                    tripEndUTCOffset: s.optionalInt64(11).map(UTCOffset.init(stored:)),
                    tripStartMs: s.int64(12), tripEndMs: s.int64(13)))
        }
    }
}

extension Store {
    /// The legs of `device` (every device when nil), or of the trip `trip`, by start time (the scorers' read).
    public func legs(device: Int64? = nil, trip: Int64? = nil) throws -> [LegRow] {
        let s = try db.prepare(
            """
            SELECT \(LegRow.columns) FROM legs
            WHERE (?1 IS NULL OR device_id = ?1) AND (?2 IS NULL OR trip_id = ?2) ORDER BY start_ms
            """)
        s.bindInt(device, at: 1)
        s.bindInt(trip, at: 2)
        var out: [LegRow] = []
        while try s.step() {
            out.append(LegRow(reading: s))
        }
        return out
    }
}

extension Store {
    /// The legs of one trip, by leg number (the map's read).
    public func legs(ofTrip trip: Int64) throws -> [LegRow] {
        let s = try db.prepare(
            "SELECT \(LegRow.columns) FROM legs WHERE trip_id = ? ORDER BY leg")
        s.bindInt(trip, at: 1)
        var out: [LegRow] = []
        while try s.step() {
            out.append(LegRow(reading: s))
        }
        return out
    }
}

// MARK: Read by the metrics pass

extension RebuildTables {
    /// The legs of trip `id`, by leg number (also the paths pass's, run alone).
    public func legs(ofTrip id: Int64) throws -> [LegRow] {
        let s = try statement(
            "SELECT \(LegRow.columns) FROM legs WHERE trip_id = ? ORDER BY leg")
        s.bindInt(id, at: 1)
        var out: [LegRow] = []
        while try s.step() {
            out.append(LegRow(reading: s))
        }
        return out
    }
}

// MARK: Reading a row

extension LegRow {
    /// The columns of a `legs` row, in the order ``init(reading:)`` reads them.
    static let columns = "trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points, source, line_distance_m"

    /// The row at the current step of a statement that selects ``columns`` first.
    init(reading s: Statement) {
        self.init(
            tripID: s.int64(0), leg: s.int(1), deviceID: s.int64(2), mode: s.text(3) ?? "", modeSource: s.text(4) ?? "",
            startMs: s.int64(5), endMs: s.int64(6), distanceM: s.double(7), durationS: s.double(8), points: s.int(9),
            source: s.text(10) ?? "points", lineDistanceM: s.optionalDouble(11))
    }
}

// MARK: The lines of the app's own legs

/// The line of a leg taken from an app's timeline (`legs.app_line`, migration 12): Google's start position, its path
/// points in order and its end position. Not fixes: Google's inferred path, with times only at its ends (the leg's).
public struct AppLine: Sendable, Equatable {
    /// Latitude, longitude, latitude, longitude, … (WGS 84 degrees).
    public var coordinates: [Double]

    public init(coordinates: [Double] = []) { self.coordinates = coordinates }

    public init(_ positions: [(lat: Double, lon: Double)]) {
        coordinates = []
        coordinates.reserveCapacity(positions.count * 2)
        for p in positions { coordinates += [p.lat, p.lon] }
    }

    public var count: Int { coordinates.count / 2 }
    public var isEmpty: Bool { coordinates.count < 2 }
    public func lat(_ i: Int) -> Double { coordinates[2 * i] }
    public func lon(_ i: Int) -> Double { coordinates[2 * i + 1] }

    /// The sum of the great-circle distances between consecutive positions, in metres.
    public var lengthM: Double {
        var total = 0.0
        var i = 1
        while i < count {
            total += Geo.distance(lat(i - 1), lon(i - 1), lat(i), lon(i))
            i += 1
        }
        return total
    }

    /// As stored: each number a little-endian 64-bit float.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(coordinates.count * 8)
        for value in coordinates {
            let bits = value.bitPattern
            for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        }
        return out
    }

    /// From the stored bytes (a length not a multiple of 16 drops the incomplete tail; a position that is not finite or
    /// outside ±90/±180 is left out: a database is a file anyone can edit).
    public init(bytes: [UInt8]) {
        var values: [Double] = []
        let n = bytes.count / 16 * 2
        values.reserveCapacity(n)
        for v in 0..<n {
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[v * 8 + k]) << (8 * UInt64(k)) }
            values.append(Double(bitPattern: bits))
        }
        coordinates = []
        coordinates.reserveCapacity(n)
        var i = 0
        while i + 1 < values.count {
            let lat = values[i], lon = values[i + 1]
            if lat.isFinite, lon.isFinite, lat.magnitude <= 90, lon.magnitude <= 180 { coordinates += [lat, lon] }
            i += 2
        }
    }
}

/// Reads the lines of a trip's legs taken from an app's timeline (``AppLine``), one prepared statement reused: the
/// exports' and the map's one read of `legs.app_line`.
public final class AppLineReader {
    let statement: Statement

    public init(_ store: Store) throws {
        statement = try store.db.prepare("SELECT leg, app_line FROM legs WHERE trip_id = ? AND source = 'app' ORDER BY leg")
    }

    /// The lines of the app legs of trip `tripID`, by leg number (a leg without one: an empty line).
    public func lines(trip tripID: Int64) throws -> [(leg: Int, line: AppLine)] {
        statement.reset()
        statement.bindInt(tripID, at: 1)
        var out: [(leg: Int, line: AppLine)] = []
        while try statement.step() {
            var line = AppLine()
            if case .blob(let bytes) = statement.value(1) { line = AppLine(bytes: bytes) }
            out.append((statement.int(0), line))
        }
        return out
    }
}
