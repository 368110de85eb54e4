// Words of the domain that are stored as text: the types say which values Tripline itself writes and compares, and
// `rawValue` is the text in the database (docs/SCHEMA.md), unchanged.

/// What an app recorded besides fixes: the `kind` of an `app_events` row (docs/SCHEMA.md, "app_events").
///
/// The kinds Tripline writes itself or decides by have a case; an app may write any other word (an Overland action
/// name, an OwnTracks `_type`), kept as it is in ``other(_:)``. Make values from text with ``init(rawValue:)``, which
/// never gives `.other` for a word that has a case, so equal text is an equal kind.
public enum AppEventKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// A trip the app summarised: Overland `"type":"trip"`, Google `activitySegment` or `activity` segment.
    case trip
    /// A stay the app recorded: Google `placeVisit` or `visit` segment, Overland's `visit` action.
    case visit
    /// The `current` location of an Overland POST body: a real fix the app sends again later.
    case current
    /// The `trip` object of an Overland POST body (the trip in progress).
    case tripProgress
    /// An Overland feature with an `action` property that names nothing.
    case action
    /// An OwnTracks region event (`_type` `transition`).
    case transition
    /// A GPX `<wpt>`, or an OwnTracks `_type` `waypoint`.
    case waypoint
    /// A GPX `<rtept>`: a planned route, not a recording.
    case routePoint
    /// An OwnTracks message with an empty `_type`.
    case unknown
    /// Any other word an app wrote, as written.
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "trip": self = .trip
        case "visit": self = .visit
        case "current": self = .current
        case "trip_progress": self = .tripProgress
        case "action": self = .action
        case "transition": self = .transition
        case "waypoint": self = .waypoint
        case "route_point": self = .routePoint
        case "unknown": self = .unknown
        default: self = .other(rawValue)
        }
    }

    /// The stored text.
    public var rawValue: String {
        switch self {
        case .trip: return "trip"
        case .visit: return "visit"
        case .current: return "current"
        case .tripProgress: return "trip_progress"
        case .action: return "action"
        case .transition: return "transition"
        case .waypoint: return "waypoint"
        case .routePoint: return "route_point"
        case .unknown: return "unknown"
        case .other(let word): return word
        }
    }

    public var description: String { rawValue }
}

/// How a device's name was chosen: `devices.name_origin` (docs/SCHEMA.md), and what `tripline import` says of each
/// device it names (docs/IMPORT.md, "Device naming").
public enum DeviceOrigin: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The record's own device field (Overland `device_id`).
    case deviceID
    /// `tripline import --device NAME`.
    case deviceOption
    /// The folder given to `import`: the data carries no device.
    case folder
    /// The folder holding the file, inside the folder given.
    case subfolder
    /// The file's name.
    case file
    /// Standard input (`import -`): named `stdin`.
    case stdin
    /// The archive's name (a file inside a zip or tar).
    case archive
    /// The folder of the file (GPX, which carries no device).
    case folderOfTheFile
    /// Google's files with nothing better: `google`.
    case googleDefault
    /// A Google `deviceTag` of `Records.json` other than the one with the most fixes, which keeps the base name.
    case googleDeviceTag(tag: String, base: String)
    /// An OwnTracks `.rec` file's `rec/<user>/<device>` path.
    case path
    /// OwnTracks `username/device` fields.
    case usernameDevice
    /// An OwnTracks MQTT topic.
    case topic
    /// An OwnTracks tracker id.
    case tid
    /// A GeoLife `<user>/Trajectory/` folder.
    case geoLifeUserFolder
    /// Loaded from the simulator (evaluation).
    case simulator
    /// Written by `SyntheticTravel` (the map's fixture).
    case synthetic
    /// Written by a benchmark.
    case benchmark
    /// A value this build does not know (a newer Tripline wrote it), as stored.
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "device_id": self = .deviceID
        case "--device": self = .deviceOption
        case "folder": self = .folder
        case "subfolder": self = .subfolder
        case "file": self = .file
        case "stdin": self = .stdin
        case "archive": self = .archive
        case "folder of the file": self = .folderOfTheFile
        case "default for Google files": self = .googleDefault
        case "path": self = .path
        case "username/device": self = .usernameDevice
        case "topic": self = .topic
        case "tid": self = .tid
        case "GeoLife user folder": self = .geoLifeUserFolder
        case "simulator": self = .simulator
        case "synthetic": self = .synthetic
        case "benchmark": self = .benchmark
        default:
            if let tag = Self.googleTag(rawValue) {
                self = .googleDeviceTag(tag: tag.tag, base: tag.base)
            } else {
                self = .other(rawValue)
            }
        }
    }

    /// The stored text.
    public var rawValue: String {
        switch self {
        case .deviceID: return "device_id"
        case .deviceOption: return "--device"
        case .folder: return "folder"
        case .subfolder: return "subfolder"
        case .file: return "file"
        case .stdin: return "stdin"
        case .archive: return "archive"
        case .folderOfTheFile: return "folder of the file"
        case .googleDefault: return "default for Google files"
        case .googleDeviceTag(let tag, let base): return "deviceTag \(tag) in Records.json (\(base) is the tag with the most fixes)"
        case .path: return "path"
        case .usernameDevice: return "username/device"
        case .topic: return "topic"
        case .tid: return "tid"
        case .geoLifeUserFolder: return "GeoLife user folder"
        case .simulator: return "simulator"
        case .synthetic: return "synthetic"
        case .benchmark: return "benchmark"
        case .other(let text): return text
        }
    }

    public var description: String { rawValue }

    /// Whether the name came from outside the data (an option, a file or folder name, a default), not from a
    /// device field of the records: the importer gives such a device's app events to the file's one point device.
    public var isFallback: Bool {
        switch self {
        case .deviceOption, .folder, .subfolder, .file, .stdin, .archive, .folderOfTheFile, .googleDefault: return true
        default: return false
        }
    }

    /// The tag and base name of a stored `deviceTag …` origin.
    private static func googleTag(_ text: String) -> (tag: String, base: String)? {
        let prefix = "deviceTag ", middle = " in Records.json (", suffix = " is the tag with the most fixes)"
        guard text.hasPrefix(prefix), text.hasSuffix(suffix) else { return nil }
        let inner = text.dropFirst(prefix.count).dropLast(suffix.count)
        var index = inner.startIndex
        while index < inner.endIndex {
            if inner[index...].hasPrefix(middle) {
                return (String(inner[..<index]), String(inner[index...].dropFirst(middle.count)))
            }
            index = inner.index(after: index)
        }
        return nil
    }
}
