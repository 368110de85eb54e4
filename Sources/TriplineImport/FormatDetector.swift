/// The kind of file, told from its content (never its name).
public enum DetectedFormat: String, Sendable {
    /// JSON: Overland or OwnTracks (the JSON reader tells which from the records).
    case json
    /// An OwnTracks Recorder `.rec` file (lines starting with an ISO 8601 time).
    case ownTracksRec = "owntracks-rec"
    /// XML (GPX when its root is `<gpx>`).
    case xml
    /// A GeoLife `.plt` trajectory (first line `Geolife trajectory`).
    case geolifePLT = "geolife-plt"
    /// Nothing but whitespace.
    case empty
    /// Anything else: binary junk or text of another kind.
    case unknown
}

/// Tells formats apart by their first bytes, and runs the matching reader.
public enum FormatDetector {
    /// Looks at the first non-blank bytes (after a UTF-8 byte order mark):
    /// `{` or `[` → JSON; `<` → XML; `YYYY-MM-DDT` → Recorder `.rec`; `Geolife trajectory` → GeoLife `.plt`;
    /// only whitespace → empty.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> DetectedFormat {
        var i = 0
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < n, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        guard i < n else { return .empty }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        case UInt8(ascii: "<"): return .xml
        default:
            if PLTReader.isHeader(bytes, at: i) { return .geolifePLT }
            // 2024-03-01T09:03:09Z
            if i + 11 <= n {
                let d = { (k: Int) in bytes[i + k] &- UInt8(ascii: "0") < 10 }
                if d(0), d(1), d(2), d(3), bytes[i + 4] == UInt8(ascii: "-"), d(5), d(6), bytes[i + 7] == UInt8(ascii: "-"), d(8), d(9),
                    bytes[i + 10] == UInt8(ascii: "T")
                {
                    return .ownTracksRec
                }
            }
            return .unknown
        }
    }

    /// Detects the format and parses the bytes with the matching reader (pure; no database).
    /// A file that is not a location archive comes back with ``ParseOutput/fatal`` set.
    public static func parse(_ bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink? = nil) -> ParseOutput {
        func read<Reader: ArchiveReader>(_: Reader.Type) -> ParseOutput {
            var reader = Reader(bytes: bytes, context: context, sink: sink)
            return reader.read()
        }
        switch detect(bytes) {
        case .json: return read(JSONArchiveReader.self)
        case .ownTracksRec: return read(RecReader.self)
        case .xml: return read(GPXReader.self)
        case .geolifePLT: return read(PLTReader.self)
        case .empty:
            var out = ParseOutput()
            out.format = "empty"
            out.rejects.append(RejectRecord(line: nil, byteOffset: 0, reason: .emptyFile, detail: emptyDetail(byteCount: bytes.count), excerpt: nil))
            return out
        case .unknown:
            var out = ParseOutput()
            let sample = bytes.prefix(4096)
            let binary = sample.contains(0) || sample.filter { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }.count > sample.count / 20
            out.notArchive = true
            if let packed = unreadContainer(bytes) {
                out.fatal = packed
                return out
            }
            if let utf16 = utf16Text(bytes) {
                // Likely an archive saved by a Windows tool (PowerShell 5's `>` writes UTF-16): it fails, also inside a
                // folder, where a file that is no archive is only listed as skipped.
                out.fatal = utf16
                out.notArchive = false
                return out
            }
            out.fatal = binary
                ? "binary data, not a location archive (expected Overland/OwnTracks JSON, a Recorder .rec file, GPX or GeoLife .plt)"
                : "text that is not a location archive (expected Overland/OwnTracks JSON, a Recorder .rec file, GPX or GeoLife .plt)"
            return out
        }
    }

    /// What an `empty_file` reject says of a file that ``detect(_:)`` found `.empty`: "the file is empty" only when it
    /// has no byte; one of white space (300 MB of line ends) "holds only white space", which is what it is.
    static func emptyDetail(byteCount: Int) -> String {
        byteCount == 0 ? "the file is empty" : "the file holds only white space (\(byteCount) bytes), no record"
    }

    /// What to do with a file of UTF-16 text (a byte order mark `FF FE` or `FE FF`); nil for anything else.
    static func utf16Text(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) else { return nil }
        let order = bytes[0] == 0xFF ? "little-endian" : "big-endian"
        return "UTF-16 text (\(order), as Windows tools save it); Tripline reads UTF-8: convert it first "
            + "(iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8) and import that"
    }

    /// What a file of a compressor or archive Tripline does not unpack is, by its magic bytes, and what to do; nil
    /// for anything else. (Before, each was "binary data, not a location archive", which did not say why.)
    static func unreadContainer(_ bytes: UnsafeRawBufferPointer) -> String? {
        func starts(_ magic: [UInt8]) -> Bool { bytes.count >= magic.count && zip(bytes, magic).allSatisfy { $0 == $1 } }
        let named: (String, String)
        if starts(Array("BZh".utf8)), bytes.count > 3, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[3]) {
            named = ("bzip2", "bunzip2")
        } else if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
            named = ("xz", "unxz")
        } else if starts([0x28, 0xB5, 0x2F, 0xFD]) {
            named = ("zstd", "unzstd")
        } else if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) {
            named = ("7z", "7z x")
        } else if starts(Array("Rar!".utf8) + [0x1A, 0x07]) {
            named = ("rar", "unrar x")
        } else if starts(Array("SQLite format 3".utf8) + [0]) {
            return "an SQLite database, not a location archive (a Tripline database is not imported; 'tripline merge' folds in the shards of a plan)"
        } else {
            return nil
        }
        return "\(named.0)-compressed data, not a location archive as it is (Tripline unpacks gzip, zip and tar): "
            + "unpack it first (\(named.1)) and import what it holds"
    }

    /// ``parse(_:context:sink:)`` on an array (tests, fuzzing).
    public static func parse(_ bytes: [UInt8], context: ReadContext = .memory()) -> ParseOutput {
        bytes.withUnsafeBytes { parse($0, context: context) }
    }
}

/// A reader of one format: bytes in, points, app events and rejects out (``FormatDetector/parse`` picks it).
public protocol ArchiveReader {
    init(bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink?)
    mutating func read() -> ParseOutput
}

extension ArchiveReader {
    /// Parses `bytes` (pure; no database).
    public static func parse(_ bytes: [UInt8], context: ReadContext = .memory()) -> ParseOutput {
        bytes.withUnsafeBytes { raw in
            var reader = Self(bytes: raw, context: context, sink: nil)
            return reader.read()
        }
    }
}

extension JSONArchiveReader: ArchiveReader {}
extension RecReader: ArchiveReader {}
extension GPXReader: ArchiveReader {}
extension PLTReader: ArchiveReader {}
