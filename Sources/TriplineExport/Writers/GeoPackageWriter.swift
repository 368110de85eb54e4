#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TriplineCore
import TriplineStore

/// What a GeoPackage export wrote: the records of each layer, in the order written, and the file's size.
public struct GeoPackageResult: Sendable, Equatable {
    public var layers: [(kind: ExportKind, records: Int)]
    public var bytes: Int

    public static func == (a: GeoPackageResult, b: GeoPackageResult) -> Bool {
        a.bytes == b.bytes && a.layers.map(\.kind) == b.layers.map(\.kind) && a.layers.map(\.records) == b.layers.map(\.records)
    }

    /// Records of all layers together.
    public var records: Int { layers.reduce(0) { $0 + $1.records } }
}

extension Exporter {
    /// Writes the selected records of `kinds` (each once, in `ExportKind` order) as one OGC GeoPackage 1.3 file at
    /// `path`: a layer per kind, named after it (`trips`, `legs`, `visits`, `places`, `points`: features in EPSG:4326
    /// with an R-tree index; `days`: an attribute table), with the CSV contract's columns (docs/EXPORTS.md).
    ///
    /// The file is built as a temporary SQLite file beside `path` and renamed over it when complete, so a reader never
    /// sees half a GeoPackage and a failed export leaves the old file as it was. The same database always gives the
    /// same bytes (no clock is read: `gpkg_contents.last_change` is the latest time of the layer's own records).
    /// - Throws: ``ExportError`` for a bad filter, ``FileError``, ``DatabaseError``.
    public func exportGeoPackage(_ kinds: [ExportKind] = ExportKind.allCases, filter: RecordFilter = RecordFilter(), toFile path: String) throws -> GeoPackageResult {
        let selection = try select(filter)
        try OutputFiles.checkReplaceable(path)
        let directory = FileSystem.directoryName(path)
        let base = FileSystem.baseName(path)
        guard let temporary = OutputFiles.createTemporary(template: "\(directory)/.\(base).tripline-XXXXXX") else {
            throw FileError(path: path, reason: "cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        // Created 0666 less the umask; a replaced regular file's mode (and, as root, owner) carried over, as every
        // other output (docs/RELIABILITY.md, issue 21 hole 6).
        OutputFiles.keepMode(of: path, on: temporary.descriptor)
        close(temporary.descriptor)
        func discard() {
            unlink(temporary.path)
            OutputFiles.unregister(temporary.token)
        }
        do {
            let ordered = ExportKind.allCases.filter { kinds.contains($0) }
            let layers = try GeoPackageWriter(exporter: self, selection: selection, path: temporary.path).write(ordered)
            // The connection is closed: make the bytes durable, then rename them into place.
            let fd = open(temporary.path, O_RDONLY)
            guard fd >= 0 else { throw FileError(path: path, errno: errno) }
            let synced = fsync(fd) == 0
            let code = errno
            close(fd)
            guard synced else { throw FileError(path: path, errno: code) }
            let bytes = FileSystem.size(temporary.path) ?? 0
            try OutputFiles.checkReplaceable(path)
            guard rename(temporary.path, path) == 0 else { throw FileError(path: path, errno: errno) }
            OutputFiles.unregister(temporary.token)
            return GeoPackageResult(layers: layers, bytes: Int(bytes))
        } catch let error as DatabaseError where error.isFull {
            // Only the GeoPackage is written here (the database is read): the full disk is the output's, and SQLite's
            // own hint would speak of the database.
            discard()
            throw FileError(path: path, reason: "the disk is full, so the GeoPackage was not written (free some space and run "
                            + "the command again; a file that was there is unchanged)")
        } catch {
            discard()
            throw error
        }
    }
}

/// Writes an OGC GeoPackage 1.3 (http://www.opengis.net/doc/IS/geopackage/1.3) with one layer per export kind.
///
/// - The SQLite header says GeoPackage: `application_id` 'GPKG' (0x47504B47), `user_version` 10300.
/// - `gpkg_spatial_ref_sys` holds the two rows every GeoPackage must (-1 undefined Cartesian, 0 undefined geographic)
///   and EPSG:4326; `gpkg_contents` one row per layer with its extent; `gpkg_geometry_columns` one row per feature
///   layer; `gpkg_extensions` one `gpkg_rtree_index` row per feature layer.
/// - Geometries are GeoPackageBinary: `GP`, version 0, flags 0x03 (little-endian, envelope [minx, maxx, miny, maxy]),
///   srs_id 4326, the envelope, then little-endian WKB. Trips and legs are MULTILINESTRING (the GeoJSON export's
///   lines: broken at recording gaps and cut at the antimeridian, one part when it has a LineString); a trip with
///   no line has a NULL geometry. Visits, places and points are POINT.
/// - Each feature layer has its R-tree (`rtree_<layer>_geom`), filled here, with the spec's six triggers
///   (insert, update1–4, delete) created after the rows, so a GIS that edits the file keeps the index right.
/// - The primary key `fid` is the record's id (trips, visits, places) or its rank in export order (legs, points,
///   days); the columns are the CSV's, with times as ISO 8601 text at the local offset, numbers rounded as the CSV
///   rounds them and coordinates exact.
struct GeoPackageWriter {
    let exporter: Exporter
    let selection: Exporter.Selection
    let path: String

    static let wgs84WKT =
        #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]"#

    /// The columns of each layer after `fid` (and `geom`, for feature layers): the CSV contract's, with their types.
    static let columns: [ExportKind: [(name: String, type: String)]] = [
        .trips: [
            ("trip_id", "INTEGER"), ("device", "TEXT"), ("start_time", "TEXT"), ("end_time", "TEXT"), ("duration_s", "REAL"),
            ("moving_s", "REAL"), ("distance_m", "REAL"), ("avg_speed_mps", "REAL"), ("max_speed_mps", "REAL"), ("mode", "TEXT"),
            ("legs", "INTEGER"), ("from_place_id", "INTEGER"), ("to_place_id", "INTEGER"), ("start_lat", "REAL"),
            ("start_lon", "REAL"), ("end_lat", "REAL"), ("end_lon", "REAL"), ("points", "INTEGER"), ("gaps", "INTEGER"),
            ("from_place", "TEXT"), ("to_place", "TEXT"), ("line_distance_m", "REAL"), ("distance_method", "TEXT"),
            ("source", "TEXT"), ("line_method", "TEXT"),
        ],
        .legs: [
            ("trip_id", "INTEGER"), ("leg", "INTEGER"), ("mode", "TEXT"), ("start_time", "TEXT"), ("end_time", "TEXT"),
            ("distance_m", "REAL"), ("duration_s", "REAL"), ("device", "TEXT"), ("mode_source", "TEXT"), ("points", "INTEGER"),
            ("source", "TEXT"), ("line_method", "TEXT"),
        ],
        .visits: [
            ("visit_id", "INTEGER"), ("device", "TEXT"), ("place_id", "INTEGER"), ("place_name", "TEXT"), ("start_time", "TEXT"),
            ("end_time", "TEXT"), ("duration_s", "REAL"), ("lat", "REAL"), ("lon", "REAL"), ("radius_m", "REAL"),
            ("points", "INTEGER"), ("country_code", "TEXT"), ("country", "TEXT"), ("locality", "TEXT"), ("source", "TEXT"),
        ],
        .places: [
            ("place_id", "INTEGER"), ("device", "TEXT"), ("name", "TEXT"), ("lat", "REAL"), ("lon", "REAL"), ("radius_m", "REAL"),
            ("visits", "INTEGER"), ("total_dwell_s", "INTEGER"), ("first_visit", "TEXT"), ("last_visit", "TEXT"), ("ssid", "TEXT"),
            ("country_code", "TEXT"), ("country", "TEXT"), ("locality", "TEXT"), ("source", "TEXT"),
        ],
        .days: [
            ("date", "TEXT"), ("device", "TEXT"), ("distance_m", "REAL"), ("moving_s", "REAL"), ("trips", "INTEGER"),
            ("visits", "INTEGER"), ("places", "INTEGER"), ("line_distance_m", "REAL"),
        ],
        .points: [
            ("device", "TEXT"), ("time", "TEXT"), ("lat", "REAL"), ("lon", "REAL"), ("altitude_m", "REAL"), ("speed_mps", "REAL"),
            ("course_deg", "REAL"), ("accuracy_m", "REAL"), ("motion", "TEXT"), ("flags", "INTEGER"), ("ssid", "TEXT"),
        ],
    ]

    /// The geometry type each feature layer declares (days have none).
    static func geometryType(_ kind: ExportKind) -> String? {
        switch kind {
        case .trips, .legs: return "MULTILINESTRING"
        case .visits, .places, .points: return "POINT"
        case .days: return nil
        }
    }

    func write(_ kinds: [ExportKind]) throws -> [(kind: ExportKind, records: Int)] {
        let db = try Database(path: path)
        // Fixed settings, so the bytes do not depend on a build's defaults; no journal file beside the target
        // (a failed export removes the whole temporary file).
        try db.execute(
            """
            PRAGMA page_size = 4096; PRAGMA encoding = 'UTF-8'; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
            PRAGMA application_id = 1196444487; PRAGMA user_version = 10300;
            """)
        var written: [(kind: ExportKind, records: Int)] = []
        try db.transaction {
            try db.execute(
                """
                CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL,srs_id INTEGER NOT NULL PRIMARY KEY,organization TEXT NOT NULL,organization_coordsys_id INTEGER NOT NULL,definition  TEXT NOT NULL,description TEXT);
                CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY,data_type TEXT NOT NULL,identifier TEXT UNIQUE,description TEXT DEFAULT '',last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),min_x DOUBLE, min_y DOUBLE,max_x DOUBLE, max_y DOUBLE,srs_id INTEGER,CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
                CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL,column_name TEXT NOT NULL,geometry_type_name TEXT NOT NULL,srs_id INTEGER NOT NULL,z TINYINT NOT NULL,m TINYINT NOT NULL,CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),CONSTRAINT uk_gc_table_name UNIQUE (table_name),CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
                CREATE TABLE gpkg_extensions (table_name TEXT,column_name TEXT,extension_name TEXT NOT NULL,definition TEXT NOT NULL,scope TEXT NOT NULL,CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
                INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined Cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined Cartesian coordinate reference system');
                INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
                """)
            try db.run(
                "INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 geodetic', 4326, 'EPSG', 4326, ?, 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')",
                [.text(GeoPackageWriter.wgs84WKT)])
            for kind in kinds {
                written.append((kind, try writeLayer(kind, db)))
            }
        }
        return written
    }

    /// Creates and fills one layer; returns its record count.
    func writeLayer(_ kind: ExportKind, _ db: Database) throws -> Int {
        let table = kind.rawValue
        let geometryType = GeoPackageWriter.geometryType(kind)
        var definition = "\"fid\" INTEGER PRIMARY KEY NOT NULL"
        if let geometryType { definition += ", \"geom\" \(geometryType)" }
        for column in GeoPackageWriter.columns[kind]! { definition += ", \"\(column.name)\" \(column.type)" }
        try db.execute("CREATE TABLE \"\(table)\" (\(definition))")
        let count = GeoPackageWriter.columns[kind]!.count + (geometryType == nil ? 1 : 2)
        let insert = try db.prepare("INSERT INTO \"\(table)\" VALUES (" + Array(repeating: "?", count: count).joined(separator: ",") + ")")
        let rtreeName = "rtree_\(table)_geom"
        var rtree: Statement?
        if geometryType != nil {
            try db.execute("CREATE VIRTUAL TABLE \"\(rtreeName)\" USING rtree(id, minx, maxx, miny, maxy)")
            rtree = try db.prepare("INSERT INTO \"\(rtreeName)\" VALUES (?,?,?,?,?)")
        }
        let layer = try LayerWriter(exporter: exporter, insert: insert, rtree: rtree)
        let records: Int
        if kind == .points {
            records = try layer.writePoints(selection)
        } else {
            records = try exporter.writeRecords(kind, selection, with: layer)
        }
        let extent = layer.extent
        try db.run(
            "INSERT INTO gpkg_contents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(table), .text(geometryType == nil ? "attributes" : "features"), .text(table),
                .text(GeoPackageWriter.descriptions[kind]!), .text(GeoPackageWriter.lastChange(layer.latestMs)),
                .optional(extent.map { $0.minX }), .optional(extent.map { $0.minY }),
                .optional(extent.map { $0.maxX }), .optional(extent.map { $0.maxY }),
                geometryType == nil ? .null : .integer(4326),
            ])
        if let geometryType {
            try db.run("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, 4326, 0, 0)", [.text(table), .text(geometryType)])
            try db.run(
                "INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')",
                [.text(table)])
            try db.execute(GeoPackageWriter.rtreeTriggers(table: table))
        }
        return records
    }

    static let descriptions: [ExportKind: String] = [
        .trips: "Trips found by tripline rebuild: the device's cleaned points between their start and end",
        .legs: "Legs of the trips, one mode each",
        .visits: "Visits: stays at a place, at their centre",
        .places: "Places: where visits cluster, at their centre",
        .points: "Every recorded point, flagged ones too (flags != 0)",
        .days: "Daily totals per device",
    ]

    /// The spec's triggers of the `gpkg_rtree_index` extension (GeoPackage 1.3, Annex F.3), for a layer whose
    /// primary key is `fid` and geometry `geom`.
    static func rtreeTriggers(table t: String) -> String {
        let r = "\"rtree_\(t)_geom\""
        let values = "VALUES (NEW.\"fid\",ST_MinX(NEW.\"geom\"), ST_MaxX(NEW.\"geom\"),ST_MinY(NEW.\"geom\"), ST_MaxY(NEW.\"geom\"))"
        let name = "rtree_\(t)_geom"
        return """
            CREATE TRIGGER "\(name)_insert" AFTER INSERT ON "\(t)" WHEN (new."geom" NOT NULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN INSERT OR REPLACE INTO \(r) \(values); END;
            CREATE TRIGGER "\(name)_update1" AFTER UPDATE OF "geom" ON "\(t)" WHEN OLD."fid" = NEW."fid" AND (NEW."geom" NOTNULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN INSERT OR REPLACE INTO \(r) \(values); END;
            CREATE TRIGGER "\(name)_update2" AFTER UPDATE OF "geom" ON "\(t)" WHEN OLD."fid" = NEW."fid" AND (NEW."geom" ISNULL OR ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM \(r) WHERE id = OLD."fid"; END;
            CREATE TRIGGER "\(name)_update3" AFTER UPDATE ON "\(t)" WHEN OLD."fid" != NEW."fid" AND (NEW."geom" NOTNULL AND NOT ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM \(r) WHERE id = OLD."fid"; INSERT OR REPLACE INTO \(r) \(values); END;
            CREATE TRIGGER "\(name)_update4" AFTER UPDATE ON "\(t)" WHEN OLD."fid" != NEW."fid" AND (NEW."geom" ISNULL OR ST_IsEmpty(NEW."geom")) BEGIN DELETE FROM \(r) WHERE id IN (OLD."fid", NEW."fid"); END;
            CREATE TRIGGER "\(name)_delete" AFTER DELETE ON "\(t)" WHEN old."geom" NOT NULL BEGIN DELETE FROM \(r) WHERE id = OLD."fid"; END;
            """
    }

    /// `gpkg_contents.last_change`: the latest time the layer's records reach, UTC with milliseconds (the epoch for
    /// an empty layer), so the file does not change with the clock.
    static func lastChange(_ ms: Int64?) -> String {
        let ms = ms ?? 0
        let day = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let inDay = ms - day * 86_400_000
        let date = CivilTime.localDate(ms: ms, offset: .utc)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let millis = inDay % 1000
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(date)T\(two(inDay / 3_600_000)):\(two(inDay / 60_000 % 60)):\(two(inDay / 1000 % 60)).\(millisText)Z"
    }
}

/// The bounding box of what a layer holds, in degrees.
struct Envelope: Equatable {
    var minX: Double, maxX: Double, minY: Double, maxY: Double

    init(lon: Double, lat: Double) {
        minX = lon
        maxX = lon
        minY = lat
        maxY = lat
    }

    mutating func add(_ other: Envelope) {
        minX = Swift.min(minX, other.minX)
        maxX = Swift.max(maxX, other.maxX)
        minY = Swift.min(minY, other.minY)
        maxY = Swift.max(maxY, other.maxY)
    }
}

/// GeoPackageBinary geometries (GeoPackage 1.3 §2.1.3): a header with the envelope, then little-endian WKB.
enum GeoPackageBinary {
    /// `GP`, version 0, flags 0b0000_0011 (standard binary, not empty, envelope [minx, maxx, miny, maxy],
    /// little-endian), srs_id, envelope.
    static func header(_ envelope: Envelope, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: [0x47, 0x50, 0x00, 0x03])
        append(UInt32(4326), &bytes)
        append(envelope.minX, &bytes)
        append(envelope.maxX, &bytes)
        append(envelope.minY, &bytes)
        append(envelope.maxY, &bytes)
    }

    static func append(_ value: UInt32, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func append(_ value: Double, _ bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func point(lon: Double, lat: Double) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(61)
        header(Envelope(lon: lon, lat: lat), into: &bytes)
        bytes.append(1)  // little-endian WKB
        append(UInt32(1), &bytes)  // Point
        append(lon, &bytes)
        append(lat, &bytes)
        return bytes
    }

    /// A MultiLineString of `parts` (each `[lon, lat, lon, lat, …]`, at least two positions), with its envelope.
    static func multiLineString(_ parts: [[Double]]) -> (bytes: [UInt8], envelope: Envelope) {
        var envelope = Envelope(lon: parts[0][0], lat: parts[0][1])
        for part in parts {
            for i in stride(from: 0, to: part.count, by: 2) { envelope.add(Envelope(lon: part[i], lat: part[i + 1])) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + parts.count * 9 + parts.reduce(0) { $0 + $1.count * 8 })
        header(envelope, into: &bytes)
        bytes.append(1)
        append(UInt32(5), &bytes)  // MultiLineString
        append(UInt32(parts.count), &bytes)
        for part in parts {
            bytes.append(1)
            append(UInt32(2), &bytes)  // LineString
            append(UInt32(part.count / 2), &bytes)
            for value in part { append(value, &bytes) }
        }
        return (bytes, envelope)
    }
}

/// Writes one layer's rows: the record writer ``Exporter/writeRecords(_:_:with:)`` calls, keeping the layer's
/// extent and latest time for `gpkg_contents`.
final class LayerWriter: RecordWriter {
    let exporter: Exporter
    let insert: Statement
    let rtree: Statement?
    let lineReader: Exporter.PointReader
    var extent: Envelope?
    var latestMs: Int64?
    var rank: Int64 = 0
    let scratch = TextBuffer(capacity: 256)

    init(exporter: Exporter, insert: Statement, rtree: Statement?) throws {
        self.exporter = exporter
        self.insert = insert
        self.rtree = rtree
        lineReader = try Exporter.PointReader(exporter.store, positionOnly: true, zones: exporter.privacyZones)
    }

    // MARK: Values

    func time(_ ms: Int64?, offset: UTCOffset?, resolved: Bool = false) throws -> SQLValue {
        guard let ms else { return .null }
        scratch.clear()
        scratch.append(time: ms, offset: resolved ? offset : exporter.localTime.offset(offset, atMs: ms))
        return .text(scratch.text)
    }

    /// A number as the CSV writes it (at most 3 decimals), or NULL when unknown or not finite.
    func number(_ value: Double?) -> SQLValue {
        guard let value, value.isFinite else { return .null }
        return .real(Double(NumberText.fixed(value, decimals: 3)) ?? value)
    }

    func coordinate(_ value: Double?) -> SQLValue {
        guard let value, value.isFinite else { return .null }
        return .real(value)
    }

    func seen(_ ms: Int64?) {
        guard let ms else { return }
        latestMs = Swift.max(latestMs ?? ms, ms)
    }

    /// Inserts a row: `fid`, the geometry (nil: NULL, or none for the attribute table), then `values`; indexes the
    /// geometry in the R-tree.
    func row(fid: Int64, geometry: (bytes: [UInt8], envelope: Envelope)?, _ values: [SQLValue]) throws {
        insert.reset()
        try insert.bind(.integer(fid), at: 1)
        var index: Int32 = 2
        if rtree != nil {
            try insert.bind(geometry.map { .blob($0.bytes) } ?? .null, at: 2)
            index = 3
        }
        for value in values {
            try insert.bind(value, at: index)
            index += 1
        }
        while try insert.step() {}
        guard let rtree, let geometry else { return }
        let e = geometry.envelope
        extent = extent.map { var x = $0; x.add(e); return x } ?? e
        rtree.reset()
        try rtree.bind([.integer(fid), .real(e.minX), .real(e.maxX), .real(e.minY), .real(e.maxY)])
        while try rtree.step() {}
    }

    func pointGeometry(lon: Double, lat: Double) -> (bytes: [UInt8], envelope: Envelope)? {
        guard lon.isFinite, lat.isFinite else { return nil }
        return (GeoPackageBinary.point(lon: lon, lat: lat), Envelope(lon: lon, lat: lat))
    }

    /// The unflagged points of `device` in `[startMs, endMs]` as the GeoJSON export draws them: broken where
    /// consecutive points are more than the gap apart and the rebuild did not measure the way (``LineJoins``), cut at the antimeridian (at the crossing latitude), runs of
    /// a single position left out. Nil when no line is left.
    /// `appLine`: the line of a trip or leg taken from Google's timeline instead (``Exporter/appLine(tripID:source:leg:)``).
    func lineGeometry(device: Int64, startMs: Int64, endMs: Int64, appLine: [[LineVertex]]? = nil) throws -> (bytes: [UInt8], envelope: Envelope)? {
        var parts: [[Double]] = []
        var current: [Double] = []
        var lastTime = Int64.min
        var lastLon = 0.0
        var lastLat = 0.0
        var lastSkips = lineReader.zoneSkips
        func closeLine() {
            if current.count >= 4 { parts.append(current) }
            current.removeAll(keepingCapacity: true)
        }
        /// Adds a position; `breaks`: a new part starts at it.
        func add(lon: Double, lat: Double, breaks: Bool) {
            if !current.isEmpty && breaks { closeLine() }
            if !current.isEmpty && (lon - lastLon).magnitude > 180 {
                let edge = lastLon > 0 ? 180.0 : -180.0
                let unwrapped = lastLon > 0 ? lon + 360 : lon - 360
                let crossing = lastLat + (lat - lastLat) * (edge - lastLon) / (unwrapped - lastLon)
                current.append(contentsOf: [edge, crossing])
                closeLine()
                current.append(contentsOf: [-edge, crossing])
            }
            current.append(contentsOf: [lon, lat])
            lastLon = lon
            lastLat = lat
        }
        if let appLine {
            for run in appLine {
                for (k, v) in run.enumerated() { add(lon: v.lon, lat: v.lat, breaks: k == 0) }
            }
        } else {
            let joins = try exporter.lineJoins()
            var fromLat = 0.0, fromLon = 0.0
            try lineReader.read(device: device, startMs: startMs, endMs: endMs) { s, time, flags in
                guard flags == 0 else { return }
                let lat = s.double(Exporter.PointColumn.lat), lon = s.double(Exporter.PointColumn.lon)
                var breaks = lastTime == Int64.min || lineReader.zoneSkips != lastSkips
                if !breaks && time - lastTime > joins.gapMs {
                    breaks = try joins.breaks(device: device, fromMs: lastTime, toMs: time) { Geo.distance(fromLat, fromLon, lat, lon) }
                }
                lastSkips = lineReader.zoneSkips
                (lastTime, fromLat, fromLon) = (time, lat, lon)
                add(lon: lon, lat: lat, breaks: breaks)
            }
        }
        closeLine()
        return parts.isEmpty ? nil : GeoPackageBinary.multiLineString(parts)
    }

    // MARK: Records

    func writeTrip(_ t: TripListing) throws {
        seen(t.endMs)
        let name = exporter.deviceName(t.deviceID)
        try row(
            fid: t.id,
            geometry: try lineGeometry(device: t.deviceID, startMs: t.startMs, endMs: t.endMs, appLine: try exporter.appLine(tripID: t.id, source: t.source)),
            [
                .integer(t.id), .text(name), try time(t.startMs, offset: t.startOffset), try time(t.endMs, offset: t.endOffset),
                number(t.durationS), number(t.movingS), number(t.distanceM), number(t.avgSpeedMps), number(t.maxSpeedMps),
                .text(t.mode), .integer(Int64(t.legs)), .optional(t.fromPlaceID), .optional(t.toPlaceID),
                coordinate(t.startLat), coordinate(t.startLon), coordinate(t.endLat), coordinate(t.endLon),
                .integer(Int64(t.points)), .integer(Int64(t.gaps)), .optional(t.fromPlace), .optional(t.toPlace),
                number(t.lineDistanceM), .optional(t.distanceMethod), .text(t.source),
                .optional(try exporter.lineMethod(tripID: t.id, source: t.source)),
            ])
    }

    func writeLeg(_ l: LegListing) throws {
        seen(l.endMs)
        rank += 1
        try row(
            fid: rank,
            geometry: try lineGeometry(
                device: l.deviceID, startMs: l.startMs, endMs: l.endMs, appLine: try exporter.appLine(tripID: l.tripID, source: l.source, leg: l.leg)),
            [
                .integer(l.tripID), .integer(Int64(l.leg)), .text(l.mode),
                try time(l.startMs, offset: exporter.legOffset(l, atMs: l.startMs, isStart: true), resolved: true),
                try time(l.endMs, offset: exporter.legOffset(l, atMs: l.endMs, isStart: false), resolved: true),
                number(l.distanceM), number(l.durationS), .text(exporter.deviceName(l.deviceID)), .text(l.modeSource),
                .integer(Int64(l.points)), .text(l.source), .optional(try exporter.lineMethod(tripID: l.tripID, source: l.source, leg: l.leg)),
            ])
    }

    func writeVisit(_ v: VisitListing) throws {
        seen(v.endMs)
        try row(
            fid: v.id, geometry: pointGeometry(lon: v.lon, lat: v.lat),
            [
                .integer(v.id), .text(exporter.deviceName(v.deviceID)), .optional(v.placeID), .optional(v.placeName),
                try time(v.startMs, offset: v.startOffset), try time(v.endMs, offset: v.endOffset),
                number(Double(v.endMs - v.startMs) / 1000), coordinate(v.lat), coordinate(v.lon), number(v.radiusM),
                .integer(Int64(v.points)), .optional(v.countryCode), .optional(v.country), .optional(v.locality), .text(v.source),
            ])
    }

    func writePlace(_ p: PlaceListing) throws {
        seen(p.lastVisitMs)
        try row(
            fid: p.id, geometry: pointGeometry(lon: p.lon, lat: p.lat),
            [
                .integer(p.id), .text(exporter.deviceName(p.deviceID)), .text(p.name), coordinate(p.lat), coordinate(p.lon),
                number(p.radiusM), .integer(Int64(p.visits)), .integer(p.totalDwellS),
                try time(p.firstVisitMs, offset: p.firstOffset), try time(p.lastVisitMs, offset: p.lastOffset),
                .optional(p.ssid), .optional(p.countryCode), .optional(p.country), .optional(p.locality), .text(p.source),
            ])
    }

    func writeDay(_ d: DayRow) throws {
        if let day = CivilTime.parseDate(d.date) { seen(Int64(day) * 86_400_000) }
        rank += 1
        try row(
            fid: rank, geometry: nil,
            [
                .text(d.date), .text(exporter.deviceName(d.deviceID)), number(d.distanceM), number(d.movingS),
                .integer(Int64(d.trips)), .integer(Int64(d.visits)), .integer(Int64(d.places)), number(d.lineDistanceM),
            ])
    }

    /// Every point of the selection (flagged ones too, with their `flags`), by device then time.
    func writePoints(_ selection: Exporter.Selection) throws -> Int {
        try exporter.forEachLocalPoint(selection, name: { try $0.append(raw: $1) }) { s, time, offset, flags, name in
            seen(time)
            rank += 1
            scratch.clear()
            scratch.append(time: time, offset: offset)
            let timeText = scratch.text
            let lat = s.double(Exporter.PointColumn.lat)
            let lon = s.double(Exporter.PointColumn.lon)
            try row(
                fid: rank, geometry: pointGeometry(lon: lon, lat: lat),
                [
                    .text(String(decoding: name, as: UTF8.self)), .text(timeText), coordinate(lat), coordinate(lon),
                    number(s.double(Exporter.PointColumn.altitude)), number(s.double(Exporter.PointColumn.speed)),
                    number(s.double(Exporter.PointColumn.course)), number(s.double(Exporter.PointColumn.accuracy)),
                    .optional(s.text(Exporter.PointColumn.motion)), .integer(flags), .optional(s.text(Exporter.PointColumn.ssid)),
                ])
        }
        return Int(rank)
    }
}
