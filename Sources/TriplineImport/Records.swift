import TriplineCore
import TriplineStore

/// Why a record was not imported. The raw values are what `rejects.reason` holds (documented in docs/SCHEMA.md).
public enum RejectReason: String, Sendable, CaseIterable {
    /// The bytes are not valid JSON (a syntax error), or a line is not a valid record line.
    case invalidJSON = "invalid_json"
    /// The file ends in the middle of a record (cut mid-write); everything before it was read.
    case truncated = "truncated"
    /// A string holds bytes that are not UTF-8, or an unpaired surrogate escape.
    case invalidUTF8 = "invalid_utf8"
    /// An object has the same key twice: which value the app meant is unknowable.
    case duplicateKey = "duplicate_key"
    /// No timestamp.
    case missingTime = "missing_time"
    /// A timestamp that cannot be parsed.
    case invalidTime = "invalid_time"
    /// Before 2000-01-01T00:00:00Z.
    case timeTooEarly = "time_too_early"
    /// More than one day after the import ran.
    case timeInFuture = "time_in_future"
    /// No coordinates (and not an app event).
    case missingCoordinates = "missing_coordinates"
    /// Coordinates that are not numbers (strings, NaN, Infinity) or have the wrong shape.
    case invalidCoordinates = "invalid_coordinates"
    /// Latitude outside ±90.
    case latOutOfRange = "lat_out_of_range"
    /// Longitude outside ±180.
    case lonOutOfRange = "lon_out_of_range"
    /// Exactly (0, 0): a fix the app never had.
    case nullIsland = "null_island"
    /// Same device and time as a stored point but a different position; the first one is kept.
    case conflictingDuplicate = "conflicting_duplicate"
    /// A JSON value that is not a record Tripline knows (in a file that otherwise is an archive); a GPX fix element
    /// inside another fix's `<extensions>`.
    case unknownRecord = "unknown_record"
    /// An OwnTracks `encrypted` payload (Tripline cannot decrypt it).
    case encrypted = "encrypted"
    /// Bytes that are not text (NUL bytes, binary junk) where a record should be.
    case binaryData = "binary_data"
    /// A GPX/XML syntax error.
    case invalidXML = "invalid_xml"
    /// The file is empty (or holds only whitespace).
    case emptyFile = "empty_file"
    /// A Recorder `.rec` line that does not have the `time  topic  {json}` shape.
    case invalidLine = "invalid_line"
    /// An altitude outside ``Validate/altitudeRange``: the point is kept without it, and this row says what was dropped.
    case altitudeOutOfRange = "altitude_out_of_range"
    /// A speed above ``Validate/maxSpeedMps`` or an accuracy above ``Validate/maxAccuracyM``: the point is kept
    /// without it, and this row says what was dropped.
    case measureOutOfRange = "measure_out_of_range"
    /// A measure (accuracy, altitude, speed, heading, an event's distance) that is there but is no number (`"x"`,
    /// `true`, `{}`): the point or event is kept without it, and this row names the field and the value.
    case invalidMeasure = "invalid_measure"
}

/// A record that was not imported: where it was, why, and what it looked like.
public struct RejectRecord: Sendable, Equatable {
    /// 1-based line number, where the format is line-oriented or the line is known.
    public var line: Int?
    /// Byte offset of the record's start in the file.
    public var byteOffset: Int
    public var reason: RejectReason
    /// A sentence saying what exactly is wrong.
    public var detail: String
    /// Up to 200 bytes of the raw record (invalid UTF-8 replaced).
    public var excerpt: String?
    // Built by the readers only (the memberwise initialiser).
}

/// A device a parsed record belongs to, and how its name was found.
public struct ParsedDevice: Sendable, Equatable, Hashable {
    public var name: String
    /// `overland`, `owntracks` or `gpx`.
    public var source: String
    /// How the name was chosen.
    public var origin: DeviceOrigin
    public var tid: String?

    public init(name: String, source: String, origin: DeviceOrigin, tid: String? = nil) {
        self.name = name
        self.source = source
        self.origin = origin
        self.tid = tid
    }

    /// The longest device name stored, in UTF-8 bytes (`--device` is refused beyond it).
    public static let maxNameBytes = 255

    /// `name` as stored: unchanged up to ``maxNameBytes``; a longer name (a file can say anything) becomes its first
    /// whole characters, `…` and 16 hex digits of a 64-bit FNV-1a hash of the whole name, 255 bytes at most, so two
    /// long names that differ anywhere stay two devices and the same name always gives the same device.
    public static func storedName(_ name: String) -> String {
        let bytes = name.utf8
        guard bytes.count > maxNameBytes else { return name }
        let suffix = "…" + FNV1a.hex(bytes)
        var prefix = ""
        var used = 0
        for c in name.unicodeScalars {
            let n = String(c).utf8.count
            if used + n > maxNameBytes - suffix.utf8.count { break }
            prefix.unicodeScalars.append(c)
            used += n
        }
        return prefix + suffix
    }
}

/// A non-location record kept in `app_events`: the row it becomes, read and written through its fields
/// (`event.kind`, `event.lat = …`), and the device it belongs to as an index into ``ParseOutput/devices``
/// until the importer resolves it (and sets the row's `deviceID` and `importID`).
@dynamicMemberLookup
public struct ParsedEvent: Sendable, Equatable {
    /// Index into ``ParseOutput/devices``.
    public var device: Int
    public var row: AppEventRow

    public init(device: Int, kind: AppEventKind, timeMs: Int64? = nil, utcOffsetS: Int32? = nil, startMs: Int64? = nil, endMs: Int64? = nil,
                raw: String) {
        self.device = device
        row = AppEventRow(deviceID: nil, importID: 0, kind: kind, timeMs: timeMs, utcOffsetS: utcOffsetS, startMs: startMs, endMs: endMs,
                          raw: raw)
    }

    public subscript<T>(dynamicMember field: WritableKeyPath<AppEventRow, T>) -> T {
        get { row[keyPath: field] }
        set { row[keyPath: field] = newValue }
    }
}

/// Where a point came from in its file (for `conflicting_duplicate` rejects).
public struct SourcePosition: Sendable, Equatable {
    /// 1-based line, or 0 when unknown.
    public var line: Int32
    public var byteOffset: Int64
    /// Length of the record's bytes (to cut an excerpt).
    public var length: Int32
    /// Where the point's encoded `cold` object is in ``ParseOutput/cold`` (with ``ReadContext/encodeCold``; an empty
    /// span is NULL), or -1 when it was not encoded.
    public var coldOffset: Int32 = -1
    public var coldLength: Int32 = 0
}

/// What reading one file produced, without any database: the pure result of a reader.
///
/// `points[i].deviceID` is an index into `devices` (not a database id) until the importer resolves it;
/// `positions[i]` says where `points[i]` was in the file.
public struct ParseOutput: Sendable {
    /// The detected format: `overland`, `owntracks-rec`, `owntracks-json` or `gpx`, with the layout after a
    /// slash (`overland/body`, `overland/jsonl`, `overland/array`, `overland/featurecollection`, …).
    public var format: String?
    /// GPX `creator`, where given.
    public var creator: String?
    public var devices: [ParsedDevice] = []
    public var points: [Point] = []
    public var positions: [SourcePosition] = []
    /// The points' `cold` objects, encoded on the parsing thread (``ReadContext/encodeCold``), one after the other;
    /// ``SourcePosition/coldOffset`` says which bytes are whose.
    public var cold: [UInt8] = []
    public var events: [ParsedEvent] = []
    public var rejects: [RejectRecord] = []
    /// Set when the file as a whole could not be read as a location archive (binary, or JSON/XML of another kind).
    public var fatal: String?
    /// With ``fatal``: the file is of another kind altogether (binary, other text, other JSON or XML), not a damaged
    /// archive. Inside a folder or an archive such a file is listed as skipped, not as a failure.
    public var notArchive = false
    /// Records seen (points + events + rejects), for progress.
    public var bytesRead: Int = 0

    public init() {}

    /// Index of `device`, adding it when new, its name cut to ``ParsedDevice/maxNameBytes``
    /// (``ParsedDevice/storedName(_:)``). A hash of the names, so a file naming 100,000 devices stays linear.
    public mutating func deviceIndex(_ device: ParsedDevice) -> Int {
        // Most records name the device the record before them named.
        if lastIndex < devices.count && devices[lastIndex].name == device.name { return lastIndex }
        var device = device
        device.name = ParsedDevice.storedName(device.name)
        if indexedCount != devices.count {  // `devices` was set from outside
            indexByName = Dictionary(devices.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            indexedCount = devices.count
        }
        if let i = indexByName[device.name] {
            lastIndex = i
            return i
        }
        devices.append(device)
        indexByName[device.name] = devices.count - 1
        indexedCount = devices.count
        lastIndex = devices.count - 1
        return lastIndex
    }

    /// ``devices`` by name (``deviceIndex(_:)``), how many of them it holds, and the last one found.
    private var indexByName: [String: Int] = [:]
    private var indexedCount = 0
    private var lastIndex = 0
}

/// What the reader needs to know beyond the bytes.
public struct ReadContext: Sendable {
    /// The file's path (or `-` for standard input), for device names taken from the path.
    public var path: String
    /// The device name when the data does not carry one: `--device`, else the folder or file name.
    public var fallbackDevice: (name: String, origin: DeviceOrigin)
    /// Now, in UTC ms: points more than a day later are rejected.
    public var nowMs: Int64
    /// How many points to collect before handing a batch on (the importer's pipeline); 0 = never.
    public var batchSize: Int
    /// For a file given on its own (fallback origin `file`): the name of the folder that holds it. GPX files take
    /// it, so `tripline import gpxdir/*.gpx` makes one device `gpxdir`, not one a file.
    public var folderDevice: String?
    /// Encode the `cold` column (`PointWriter`'s JSON of the fields nothing reads) of Overland points into
    /// ``ParseOutput/cold`` as they are parsed: the importer sets it so that this work is done on the parsing thread,
    /// the lighter one for Overland, not on the writing one. The points keep their fields either way; points of other
    /// formats are encoded by the writer (their ``SourcePosition/coldOffset`` is -1).
    public var encodeCold = false
    /// Lets the kernel drop the mapped pages of a byte range of the file (the importer's ``FileBytes``; nil for bytes
    /// in memory): a reader that scans ahead of the parse, as the `Records.json` device-tag count does, lets go
    /// behind itself so a huge file is not held in memory.
    public var dropPages: (@Sendable (_ from: Int, _ to: Int) -> Void)?

    public init(path: String, fallbackDevice: (name: String, origin: DeviceOrigin), nowMs: Int64, batchSize: Int = 0, folderDevice: String? = nil) {
        self.path = path
        self.fallbackDevice = fallbackDevice
        self.folderDevice = folderDevice
        self.nowMs = nowMs
        self.batchSize = batchSize
    }

    /// A context for parsing bytes in memory (tests, fuzzing): device `unnamed`, now = the wall clock.
    public static func memory(device: String = "unnamed") -> ReadContext {
        ReadContext(path: device, fallbackDevice: (device, .deviceOption), nowMs: Clock.nowMs())
    }
}

/// Where a reader hands its output when a batch is full (the importer's pipeline). Readers call it with the
/// output; the sink takes what it wants and empties the arrays it consumed.
public typealias BatchSink = (inout ParseOutput) -> Void

/// Shared checks for every reader.
enum Validate {
    /// Altitudes a fix can have, in metres: from below the deepest ocean floor (−11,000 m) to the edge of space
    /// (100 km; balloons reach 40 km, airliners 13 km). Anything else is a broken value, not a place.
    static let altitudeRange: ClosedRange<Double> = -12_000...100_000

    /// The fastest speed a fix may report, in m/s (3,600 km/h; an airliner flies at 250 m/s): the GPX and Overland
    /// readers' bound. Above it the value is broken (`vel` 1e308 would be a 309-digit number in every export).
    static let maxSpeedMps = 1_000.0

    /// The largest accuracy (horizontal or vertical) a fix may report, in metres: half the Earth's circumference, so
    /// no position error can be larger.
    static let maxAccuracyM = 20_000_000.0

    /// The first failed check of a fix's time and position, or nil when it is acceptable.
    @inline(__always)
    static func point(timeMs: Int64, lat: Double, lon: Double, nowMs: Int64) -> (RejectReason, String)? {
        if let (reason, detail) = time(timeMs, nowMs: nowMs) { return (reason, "time " + detail) }
        return position(lat: lat, lon: lon)
    }

    /// Why a time is none a fix can have (before 2000, or more than a day after the import), or nil.
    @inline(__always)
    static func time(_ ms: Int64, nowMs: Int64) -> (RejectReason, String)? {
        if ms < Timestamp.earliestMs { return (.timeTooEarly, "\(CivilTime.iso8601(ms: ms)) is before 2000-01-01") }
        if ms > nowMs + 86_400_000 { return (.timeInFuture, "\(CivilTime.iso8601(ms: ms)) is more than a day after the import") }
        return nil
    }

    /// The first failed check of an app event (docs/IMPORT.md, "App events are checked as points are"): its own time
    /// as a point's, its position (when it has one) as a point's, and an end before its start. Its start and end
    /// alone are checked by the caller, which keeps the event without them.
    static func event(_ e: AppEventRow, nowMs: Int64) -> (RejectReason, String)? {
        if let ms = e.timeMs, let (reason, detail) = time(ms, nowMs: nowMs) { return (reason, "time " + detail) }
        if let s = e.startMs, let t = e.endMs, t < s {
            return (.invalidTime, "the \(e.kind.rawValue) ends (\(CivilTime.iso8601(ms: t))) before it starts (\(CivilTime.iso8601(ms: s)))")
        }
        if e.lat != nil || e.lon != nil {
            guard let lat = e.lat, let lon = e.lon else { return (.invalidCoordinates, "the \(e.kind.rawValue) has a latitude or a longitude, not both") }
            return position(lat: lat, lon: lon)
        }
        return nil
    }

    /// Why an event's distance is none a journey can have, or nil: negative, not finite, or faster than
    /// ``maxSpeedMps`` over the event's span (at least a second; a day when its start or end is unknown, so that only
    /// an absurd distance goes).
    static func eventDistance(_ m: Double, startMs: Int64?, endMs: Int64?) -> String? {
        guard m.isFinite, m >= 0 else { return "\(m) m is not a length" }
        var seconds = 86_400.0
        if let s = startMs, let t = endMs, t >= s { seconds = max(1, Double(t - s) / 1000) }
        guard m <= maxSpeedMps * seconds else {
            return "\(m) m is more than \(Int(maxSpeedMps)) m/s over \(Int(seconds.rounded())) s"
        }
        return nil
    }

    /// The first failed check of a position, or nil.
    @inline(__always)
    static func position(lat: Double, lon: Double) -> (RejectReason, String)? {
        if !lat.isFinite || !lon.isFinite { return (.invalidCoordinates, "coordinates are not finite numbers") }
        if lat < -90 || lat > 90 { return (.latOutOfRange, "latitude \(lat) is outside ±90") }
        if lon < -180 || lon > 180 { return (.lonOutOfRange, "longitude \(lon) is outside ±180") }
        if lat == 0 && lon == 0 { return (.nullIsland, "position is exactly (0, 0), a fix the device never had") }
        return nil
    }

    /// A short, printable excerpt of raw bytes (at most `limit` bytes; invalid UTF-8 and control bytes replaced).
    static func excerpt(_ p: UnsafePointer<UInt8>, _ count: Int, limit: Int = 200) -> String {
        let n = min(max(count, 0), limit)
        var bytes = [UInt8](UnsafeBufferPointer(start: p, count: n))
        for i in bytes.indices where bytes[i] < 0x20 && bytes[i] != 0x09 { bytes[i] = UInt8(ascii: "?") }
        var text = String(decoding: bytes, as: UTF8.self)
        if count > limit { text += "…" }
        return text
    }

    /// The 1-based line of `offset`, counting newlines from `from` (a known line start at `fromLine`).
    static func line(of offset: Int, in p: UnsafePointer<UInt8>, from: Int = 0, fromLine: Int = 1) -> Int {
        var line = fromLine
        var i = from
        while i < offset {
            if p[i] == 0x0A { line += 1 }
            i += 1
        }
        return line
    }
}
