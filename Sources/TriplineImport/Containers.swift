import CZlib
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// Compressed files and archives of files, read as the files they hold (see docs/IMPORT.md, "Compressed input").
///
/// - gzip (`.gz`, told by its magic bytes `1F 8B`, several members allowed): inflated by the system zlib into an
///   unlinked temporary file, which is then read like any file; the fingerprint, byte offsets and lines are those
///   of the inner file, so `f.json.gz` and `f.json` are the same import.
/// - tar (POSIX ustar, GNU and pax; `ustar` at byte 257): each regular file is read in place (a view into the
///   mapped tar, or into the inflated `.tar.gz`); its path is `archive.tar/inner/path`. Directories, links and device
///   entries are passed over.
/// - zip (`PK\3\4`, zip64 included): the central directory lists the entries; stored entries are read in place, deflated ones
///   inflated (zlib raw inflate) into a temporary file, with the CRC-32 and size checked.
/// - Not supported, with a message saying so: encrypted zip entries,
///   zip methods other than stored and deflate (bzip2, LZMA, zstd, deflate64), bzip2/xz/zstd/7z files, and
///   multi-volume archives.
///
/// Containers nest (a `.tar.gz`, a `.gz` inside a zip) up to ``maxDepth`` levels. Everything inflated from one input,
/// over all its layers together, is held to one ``InflateBudget`` (a decompression bomb stops with a message, not a
/// full disk); inflated content that is neither a container nor a format Tripline reads is not inflated past its
/// first bytes; zip entries whose data overlap are refused.
enum Containers {
    enum Kind: String { case gzip, tar, zip }

    static let maxDepth = 3

    /// The container kind of `bytes`, told by its magic bytes, or nil for a plain file.
    static func kind(_ bytes: UnsafeRawBufferPointer) -> Kind? {
        let n = bytes.count
        if n >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B { return .gzip }
        if n >= 4, bytes[0] == 0x50, bytes[1] == 0x4B, bytes[2] == 0x03 || bytes[2] == 0x05, bytes[3] == 0x04 || bytes[3] == 0x06 { return .zip }
        if n >= 512, bytes[257] == UInt8(ascii: "u"), bytes[258] == UInt8(ascii: "s"), bytes[259] == UInt8(ascii: "t"),
           bytes[260] == UInt8(ascii: "a"), bytes[261] == UInt8(ascii: "r") { return .tar }
        return nil
    }

    /// What expanding a container produced for one inner file.
    enum Entry {
        /// A file to import: its display path, bytes, and notes (e.g. a gzip stream cut short) to add as rejects.
        case file(path: String, bytes: FileBytes, via: String, notes: [RejectRecord])
        /// An entry that could not be read, with the reason.
        case failed(path: String, message: String)
        /// An entry passed over on purpose (a directory, a link, an unsupported entry), with the reason.
        case skipped(path: String, message: String)
    }

    /// Calls `body` for the file itself (when it is no container) or for each file inside it, depth first, in
    /// archive order. `body` returns false to stop. `budget` bounds what may be inflated from `bytes` over all its
    /// layers (nil: ``InflateBudget/standard(inputSize:)`` of its size).
    @discardableResult
    static func expand(path: String, bytes: FileBytes, via: String = "", depth: Int = 0, budget: InflateBudget? = nil,
                       _ body: (Entry) -> Bool) -> Bool {
        let budget = budget ?? InflateBudget.standard(inputSize: bytes.count)
        guard let kind = kind(bytes.buffer) else {
            return body(.file(path: path, bytes: bytes, via: via, notes: []))
        }
        guard depth < maxDepth else {
            return body(.failed(path: path, message: "\(kind.rawValue) nested more than \(maxDepth) levels deep; not read"))
        }
        let chain = via.isEmpty ? kind.rawValue : via + "+" + kind.rawValue
        switch kind {
        case .gzip:
            do {
                let (inner, notes) = try gunzip(bytes, path: path, budget: budget)
                if !notes.isEmpty, Containers.kind(inner.buffer) == nil {
                    return body(.file(path: path, bytes: inner, via: chain, notes: notes))
                }
                return expand(path: path, bytes: inner, via: chain, depth: depth + 1, budget: budget, body)
            } catch {
                return body(.failed(path: path, message: "\(error)"))
            }
        case .tar:
            return untar(bytes, path: path) { entry in
                switch entry {
                case .file(let p, let b, _, _): return expand(path: p, bytes: b, via: chain, depth: depth + 1, budget: budget, body)
                default: return body(entry)
                }
            }
        case .zip:
            return unzip(bytes, path: path, budget: budget) { entry in
                switch entry {
                case .file(let p, let b, _, _): return expand(path: p, bytes: b, via: chain, depth: depth + 1, budget: budget, body)
                default: return body(entry)
                }
            }
        }
    }

    struct ContainerError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: zlib

    /// How much inflated content is looked at before deciding whether the rest is worth inflating.
    static let sniffBytes = 64 << 10

    /// Whether inflated content that starts with `prefix` may be worth inflating further: a container, a format
    /// Tripline reads, or (so far) only whitespace. Anything else is refused as "binary data" or "text that is not a
    /// location archive" whatever follows, so the rest is not inflated (a bomb of zeros stops here).
    static func worthInflating(_ prefix: UnsafeRawBufferPointer) -> Bool {
        kind(prefix) != nil || FormatDetector.detect(prefix) != .unknown
    }

    /// What ``inflate(_:raw:into:budget:path:expected:crc:sniff:consumed:)`` did.
    struct Inflated {
        /// Bytes written.
        var written: Int
        /// Input bytes used.
        var used: Int
        /// The stream ended properly (false: the input ran out first, or it was stopped).
        var complete: Bool
        /// Stopped after its first bytes, which are no archive (``worthInflating(_:)``).
        var stopped: Bool
    }

    /// Inflates `input` (gzip when `raw` is false, else a raw deflate stream) into `fd`, charging every byte to
    /// `budget` before it is written. `expected` (a zip entry's declared size) stops an entry that inflates to more.
    /// With `sniff`, the first ``sniffBytes`` are checked (``worthInflating(_:)``) before more is inflated.
    /// `consumed` is told, every 8 MiB, how much input was used (so the caller can let those mapped pages go).
    // Long by design: zlib's inflate loop, with the budget, the declared size and the first bytes checked as it goes.
    static func inflate(_ input: UnsafeRawBufferPointer, raw: Bool, into fd: Int32, budget: InflateBudget, path: String,
                        expected: Int? = nil, crc: UnsafeMutablePointer<UInt>? = nil, sniff: Bool = false,
                        consumed report: ((Int) -> Void)? = nil) throws -> Inflated {
        var stream = z_stream()
        guard tripline_inflate_init2(&stream, raw ? -15 : 15 + 16) == Z_OK else {
            throw ContainerError(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        // Checked before the layer is inflated at all: a budget already spent by the layers before stops it here.
        try budget.charge(0)
        let chunk = 1 << 20
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { out.deallocate() }
        var written = 0
        var consumed = 0
        var complete = false
        var prefix: [UInt8] = []
        var sniffing = sniff
        let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        while true {
            if stream.avail_in == 0 {
                let remaining = input.count - consumed
                if remaining == 0 { break }
                report?(consumed)
                let take = min(remaining, 8 << 20)
                stream.next_in = UnsafeMutablePointer(mutating: base! + consumed)
                stream.avail_in = UInt32(take)
                consumed += take
            }
            stream.next_out = out
            stream.avail_out = UInt32(chunk)
            let rc = CZlib.inflate(&stream, Z_NO_FLUSH)
            let produced = chunk - Int(stream.avail_out)
            if produced > 0 {
                if let expected, written + produced > expected {
                    throw ContainerError(description: "the entry inflates to more than the \(expected) bytes it declares (damaged, or a decompression bomb); not read")
                }
                try budget.charge(produced)
                if let crc { crc.pointee = CZlib.crc32(crc.pointee, out, UInt32(produced)) }
                written += produced
                try FileBytes.writeAll(fd, UnsafeRawBufferPointer(start: out, count: produced), path: "temporary file (inflating \(path))")
                if sniffing {
                    prefix.append(contentsOf: UnsafeBufferPointer(start: out, count: min(produced, sniffBytes - prefix.count)))
                    if prefix.count >= sniffBytes {
                        sniffing = false
                        if !prefix.withUnsafeBytes({ worthInflating($0) }) {
                            return Inflated(written: written, used: consumed - Int(stream.avail_in), complete: false, stopped: true)
                        }
                    }
                }
            }
            if rc == Z_STREAM_END {
                complete = true
                break
            }
            if rc == Z_BUF_ERROR && stream.avail_in == 0 && consumed == input.count { break }
            if rc != Z_OK && rc != Z_BUF_ERROR {
                let message = stream.msg.map { String(cString: $0) } ?? "error \(rc)"
                throw ContainerError(description: "damaged \(raw ? "deflate" : "gzip") data at compressed byte \(consumed - Int(stream.avail_in)): \(message)")
            }
        }
        return Inflated(written: written, used: consumed - Int(stream.avail_in), complete: complete, stopped: false)
    }

    /// The content of a gzip file (all its members, one after the other), in an unlinked temporary file.
    static func gunzip(_ bytes: FileBytes, path: String, budget: InflateBudget) throws -> (FileBytes, [RejectRecord]) {
        var notes: [RejectRecord] = []
        let inner = try FileBytes.spooled("tripline-gunzip", path: path, origin: bytes) { fd in
            var offset = 0
            var total = 0
            while offset < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes.buffer[offset...])
                let start = offset
                let run = try inflate(rest, raw: false, into: fd, budget: budget, path: path, sniff: total == 0,
                                      consumed: { bytes.release(before: start + $0) })
                total += run.written
                offset += run.used
                if run.stopped { break }  // not an archive: its first bytes are enough to say so
                if !run.complete {
                    notes.append(RejectRecord(line: nil, byteOffset: total, reason: .truncated,
                                              detail: "the gzip data ends early (cut mid-write?): the \(total) bytes inflated before the cut were read",
                                              excerpt: nil))
                    break
                }
                bytes.release(before: offset)
                // Another member follows only when the next bytes are a gzip header; trailing zeros (padding) end it.
                guard offset + 1 < bytes.count, bytes.buffer[offset] == 0x1F, bytes.buffer[offset + 1] == 0x8B else { break }
            }
        }
        return (inner, notes)
    }

    // MARK: tar

    /// An octal (or GNU base-256) number field of a tar header.
    static func tarNumber(_ b: UnsafeRawBufferPointer, _ offset: Int, _ length: Int) -> Int? {
        if b[offset] & 0x80 != 0 {
            var v = 0
            for i in 1..<length {
                guard v < Int.max >> 8 else { return nil }
                v = v << 8 | Int(b[offset + i])
            }
            return v
        }
        var v = 0
        var i = offset
        while i < offset + length, b[i] == 0x20 { i += 1 }
        var digits = 0
        while i < offset + length, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "7") {
            guard v < Int.max >> 3 else { return nil }
            v = v * 8 + Int(b[i] - UInt8(ascii: "0"))
            i += 1
            digits += 1
        }
        return digits > 0 ? v : (b[offset] == 0 ? 0 : nil)
    }

    static func cString(_ b: UnsafeRawBufferPointer, _ offset: Int, _ length: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in offset..<offset + length {
            if b[i] == 0 { break }
            out.append(b[i])
        }
        return out
    }

    /// Calls `body` for each entry of a tar archive.
    static func untar(_ bytes: FileBytes, path: String, _ body: (Entry) -> Bool) -> Bool {
        let b = bytes.buffer
        var offset = 0
        var longName: [UInt8]?
        var paxPath: [UInt8]?
        while offset + 512 <= b.count {
            let header = UnsafeRawBufferPointer(rebasing: b[offset..<offset + 512])
            if header.allSatisfy({ $0 == 0 }) { return true }  // the end-of-archive blocks
            // The checksum: the sum of the header's bytes with the checksum field read as spaces.
            var sum = 0
            for i in 0..<512 { sum += (i >= 148 && i < 156) ? 0x20 : Int(header[i]) }
            guard let stored = tarNumber(header, 148, 8), stored == sum, let size = tarNumber(header, 124, 12), size >= 0 else {
                return body(.failed(path: path, message: "damaged tar header at byte \(offset) (bad checksum or size); the rest of the archive was not read"))
            }
            let dataStart = offset + 512
            guard dataStart + size <= b.count || header[156] == UInt8(ascii: "5") else {
                _ = body(.failed(path: path, message: "the tar archive ends inside an entry at byte \(offset) (cut mid-write?)"))
                return true
            }
            let type = header[156]
            var name = cString(header, 0, 100)
            if header[257..<262].elementsEqual("ustar".utf8) {
                let prefix = cString(header, 345, 155)
                if !prefix.isEmpty { name = prefix + [UInt8(ascii: "/")] + name }
            }
            if let long = longName { name = long; longName = nil }
            if let pax = paxPath { name = pax; paxPath = nil }
            let next = dataStart + ((size + 511) / 512) * 512
            let data = UnsafeRawBufferPointer(rebasing: b[dataStart..<min(dataStart + size, b.count)])
            let entryPath = path + "/" + displayName(name)
            switch type {
            case UInt8(ascii: "L"):
                longName = Array(data.prefix(while: { $0 != 0 }))
            case UInt8(ascii: "x"):
                paxPath = paxValue(data, key: "path")
            case UInt8(ascii: "g"), UInt8(ascii: "5"):
                break  // global pax header, directory
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                if !body(.file(path: entryPath, bytes: FileBytes(view: bytes, offset: dataStart, count: size), via: "", notes: [])) { return false }
            default:
                if !body(.skipped(path: entryPath, message: "a tar entry that is not a regular file (type '\(Character(Unicode.Scalar(type)))': link, device or FIFO)")) { return false }
            }
            offset = next
        }
        return true
    }

    /// The value of `key` in a pax extended header (`"<len> key=value\n"` records).
    static func paxValue(_ data: UnsafeRawBufferPointer, key: String) -> [UInt8]? {
        var i = 0
        let want = Array((key + "=").utf8)
        while i < data.count {
            var length = 0
            var j = i
            while j < data.count, data[j] >= UInt8(ascii: "0"), data[j] <= UInt8(ascii: "9") {
                guard length <= data.count else { return nil }  // longer than the header: a lie (and no overflow)
                length = length * 10 + Int(data[j] - UInt8(ascii: "0"))
                j += 1
            }
            guard length > 0, i + length <= data.count, j < data.count, data[j] == 0x20, j + 1 <= i + length - 1 else { return nil }
            let record = data[(j + 1)..<(i + length - 1)]  // without the newline
            if record.starts(with: want) { return Array(record.dropFirst(want.count)) }
            i += length
        }
        return nil
    }

    /// A name from an archive as text: valid UTF-8 as it is, other bytes as `\xNN`, control characters escaped.
    static func displayName(_ name: [UInt8]) -> String {
        Terminal.escapedPathBytes(name)
    }

    // MARK: zip

    static func u16(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    static func u32(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int { u16(b, i) | u16(b, i + 2) << 16 }
    /// A little-endian 64-bit field, nil when it does not fit an `Int` (no archive is that large).
    static func u64(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int? {
        guard i >= 0, i + 8 <= b.count else { return nil }
        let high = u32(b, i + 4)
        guard high < 0x8000_0000 else { return nil }
        return u32(b, i) | high << 32
    }

    /// One entry of a zip's central directory.
    struct ZipEntry {
        var name: [UInt8]
        var flags: Int
        var method: Int
        var crc: Int
        var compressed: Int
        var size: Int
        /// The offset of its local header.
        var local: Int
    }

    /// Calls `body` for each file of a zip archive (from its central directory). Deflated entries are inflated
    /// within `budget`; entries whose bytes (local header and data) overlap another entry's are refused, since no
    /// zip tool writes them and they let a small archive inflate the same data many times.
    // Long by design: the zip's records read in the order the format lays them out (end record, zip64 locator and record, entries with their extra fields).
    static func unzip(_ bytes: FileBytes, path: String, budget: InflateBudget, _ body: (Entry) -> Bool) -> Bool {
        let b = bytes.buffer
        // The end-of-central-directory record: within the last 64 KiB + 22 bytes.
        var eocd = -1
        var i = b.count - 22
        while i >= max(0, b.count - 22 - 65_535) {
            if b[i] == 0x50, b[i + 1] == 0x4B, b[i + 2] == 0x05, b[i + 3] == 0x06 {
                eocd = i
                break
            }
            i -= 1
        }
        guard eocd >= 0 else {
            return body(.failed(path: path, message: "a zip file without its central directory (cut mid-write, or not a zip file); not read"))
        }
        var entries = u16(b, eocd + 10)
        var cdSize = u32(b, eocd + 12)
        var cdOffset = u32(b, eocd + 16)
        if u16(b, eocd + 4) != 0 || u16(b, eocd + 6) != 0 {
            return body(.failed(path: path, message: "a multi-volume zip archive is not supported"))
        }
        // Zip64 (archives over 4 GiB or 65,535 entries, and some tools always): the real values are in the zip64
        // end record, found through the locator just before the classic one.
        var cdEnd = eocd
        if entries == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            let locator = eocd - 20
            guard locator >= 0, u32(b, locator) == 0x0706_4B50, let record = u64(b, locator + 8), record >= 0, record + 56 <= locator,
                  u32(b, record) == 0x0606_4B50, let n = u64(b, record + 32), let size = u64(b, record + 40), let offset = u64(b, record + 48)
            else {
                return body(.failed(path: path, message: "a damaged zip64 archive: its zip64 end record is missing or damaged"))
            }
            entries = n
            cdSize = size
            cdOffset = offset
            cdEnd = record
        }
        guard cdOffset >= 0, cdSize >= 0, cdOffset <= cdEnd, cdSize <= cdEnd - cdOffset else {
            return body(.failed(path: path, message: "a damaged zip file: the central directory lies outside the file"))
        }
        // The central directory first (all of it, so entries that share bytes are known before any is read); a
        // damaged record ends it, and the entries before it are still read.
        var list: [ZipEntry] = []
        var damage: String?
        var p = cdOffset
        for _ in 0..<entries {
            guard p + 46 <= cdEnd, u32(b, p) == 0x0201_4B50 else {
                damage = "a damaged zip central directory at byte \(p)"
                break
            }
            var compressed = u32(b, p + 20)
            var size = u32(b, p + 24)
            let nameLength = u16(b, p + 28)
            let extraLength = u16(b, p + 30)
            let commentLength = u16(b, p + 32)
            var local = u32(b, p + 42)
            guard p + 46 + nameLength + extraLength <= cdEnd else {
                damage = "a damaged zip central directory at byte \(p)"
                break
            }
            // The zip64 extra field (id 1) holds, in this order, each of size, compressed size and local header
            // offset that the entry wrote as 0xFFFFFFFF.
            if size == 0xFFFF_FFFF || compressed == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
                var e = p + 46 + nameLength
                let end = e + extraLength
                while e + 4 <= end {
                    let id = u16(b, e), length = u16(b, e + 2)
                    if id == 1 {
                        var f = e + 4
                        if size == 0xFFFF_FFFF, f + 8 <= e + 4 + length, let v = u64(b, f) { size = v; f += 8 }
                        if compressed == 0xFFFF_FFFF, f + 8 <= e + 4 + length, let v = u64(b, f) { compressed = v; f += 8 }
                        if local == 0xFFFF_FFFF, f + 8 <= e + 4 + length, let v = u64(b, f) { local = v; f += 8 }
                        break
                    }
                    e += 4 + length
                }
            }
            list.append(ZipEntry(name: Array(b[(p + 46)..<(p + 46 + nameLength)]), flags: u16(b, p + 8), method: u16(b, p + 10),
                                 crc: u32(b, p + 16), compressed: compressed, size: size, local: local))
            p += 46 + nameLength + extraLength + commentLength
        }
        // Where each file entry's bytes lie (local header to the end of its data); those that overlap another's.
        func dataStart(_ e: ZipEntry) -> Int? {
            guard e.local >= 0, e.local <= b.count - 30, u32(b, e.local) == 0x0403_4B50 else { return nil }
            return e.local + 30 + u16(b, e.local + 26) + u16(b, e.local + 28)
        }
        var spans: [(start: Int, end: Int, index: Int)] = []
        for (index, e) in list.enumerated() where e.name.last != UInt8(ascii: "/") {
            guard let start = dataStart(e), e.compressed >= 0, start <= b.count, e.compressed <= b.count - start else { continue }
            spans.append((e.local, start + e.compressed, index))
        }
        spans.sort { ($0.start, $0.index) < ($1.start, $1.index) }
        var overlapping = Set<Int>()
        var reach = (end: -1, index: -1)  // the furthest end among the spans so far, and whose it is
        for span in spans {
            if span.start < reach.end {
                overlapping.insert(span.index)
                overlapping.insert(reach.index)
            }
            if span.end > reach.end { reach = (span.end, span.index) }
        }
        for (index, e) in list.enumerated() {
            let entryPath = path + "/" + displayName(e.name)
            if e.name.last == UInt8(ascii: "/") { continue }  // a directory
            if e.flags & 1 != 0 {
                if !body(.skipped(path: entryPath, message: "an encrypted zip entry; Tripline cannot decrypt it")) { return false }
                continue
            }
            guard let start = dataStart(e) else {
                if !body(.failed(path: entryPath, message: "the zip entry's local header is missing or damaged")) { return false }
                continue
            }
            let (compressed, size) = (e.compressed, e.size)
            guard compressed >= 0, size >= 0, start <= b.count, compressed <= b.count - start else {
                if !body(.failed(path: entryPath, message: "the zip entry runs past the end of the file (cut mid-write?)")) { return false }
                continue
            }
            if overlapping.contains(index) {
                let message = "the zip entry's data overlaps another entry's (several entries pointing at the same bytes are how a small "
                    + "zip bomb inflates the same data many times; no zip tool writes them); not read"
                if !body(.failed(path: entryPath, message: message)) { return false }
                continue
            }
            let data = UnsafeRawBufferPointer(rebasing: b[start..<(start + compressed)])
            switch e.method {
            case 0:
                guard compressed == size else {
                    if !body(.failed(path: entryPath, message: "a stored zip entry whose sizes disagree")) { return false }
                    continue
                }
                if !body(.file(path: entryPath, bytes: FileBytes(view: bytes, offset: start, count: size), via: "", notes: [])) { return false }
            case 8:
                do {
                    // Checked before it is inflated: an entry that says it is larger than what is left is not started.
                    guard size <= budget.remaining else { throw ContainerError(description: budget.refusal(declared: size)) }
                    var sum: UInt = 0
                    let inner = try FileBytes.spooled("tripline-unzip", path: entryPath, origin: bytes) { fd in
                        let run = try inflate(data, raw: true, into: fd, budget: budget, path: entryPath, expected: size, crc: &sum, sniff: true,
                                              consumed: { bytes.release(before: start + $0) })
                        if run.stopped { return }  // not an archive: its first bytes are enough to say so
                        guard run.complete else { throw ContainerError(description: "the deflated data ends early (damaged or cut)") }
                        guard run.written == size, Int(sum) == e.crc else {
                            throw ContainerError(description: "the inflated entry does not match its size or CRC-32 (damaged)")
                        }
                    }
                    bytes.release(before: start + compressed)
                    if !body(.file(path: entryPath, bytes: inner, via: "", notes: [])) { return false }
                } catch {
                    if !body(.failed(path: entryPath, message: "\(error)")) { return false }
                }
            default:
                let names = [9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "zstd", 95: "xz", 98: "PPMd"]
                if !body(.failed(path: entryPath, message: "zip compression method \(names[e.method] ?? String(e.method)) is not supported (only stored and deflate)")) { return false }
            }
        }
        if let damage { return body(.failed(path: path, message: damage)) }
        return true
    }
}

/// The one bound on what importing one input may inflate into temporary files, over all its layers together
/// (a `.gz` in a `.gz`, a tar in a gzip file, every entry of a zip, a `.gz` inside a zip): ``ratio`` times the
/// input's size plus ``allowance``. Every inflated byte is charged before it is written, and a zip entry that
/// declares more than is left is not started, so a decompression bomb stops with a message and no more than the
/// bound on disk, however it nests (docs/IMPORT.md, "Compressed input").
public final class InflateBudget: @unchecked Sendable {
    /// Location archives compress 5 to 25 times with gzip or zip (JSON of Google's `Records.json` ~15×, Overland
    /// JSON lines ~10×, GPX ~8×); 100 leaves room for the most repetitive real file. A deflate stream can reach
    /// about 1030×, and a nested one about 1030² — those are bombs, not archives.
    public static let ratio = 100
    /// What any input, however small, may inflate to: 256 MiB (a small real archive never needs more).
    public static let allowance = 256 << 20

    /// At most this many bytes may be inflated.
    public let limit: Int
    /// Bytes inflated so far.
    public private(set) var used = 0
    /// How the limit was chosen, for the message.
    let rule: String

    /// A budget of exactly `limit` bytes.
    public init(limit: Int, rule: String? = nil) {
        self.limit = max(0, limit)
        self.rule = rule ?? "the bound set for this import"
    }

    /// ``ratio`` times `inputSize` plus ``allowance``.
    public static func standard(inputSize: Int) -> InflateBudget {
        let (scaled, overflow) = max(0, inputSize).multipliedReportingOverflow(by: ratio)
        let limit = overflow ? Int.max : scaled.addingReportingOverflow(allowance).overflow ? Int.max : scaled + allowance
        return InflateBudget(limit: limit, rule: "\(ratio) times the input's \(InflateBudget.size(inputSize)) plus \(InflateBudget.size(allowance))")
    }

    var remaining: Int { max(0, limit - used) }

    /// Counts `n` more inflated bytes, or throws (and counts nothing) when they do not fit.
    func charge(_ n: Int) throws {
        // `charge(0)` asks whether anything is left at all (before a layer is started).
        guard n <= limit - used, n > 0 || used < limit else { throw Containers.ContainerError(description: refusal()) }
        used += n
    }

    /// The sentence of a refusal.
    func refusal(declared: Int? = nil) -> String {
        let what = declared.map { "the zip entry declares \(InflateBudget.size($0)) inflated, more than the \(InflateBudget.size(remaining)) left of" }
            ?? "it inflates to more than"
        return "\(what) the \(InflateBudget.size(limit)) that importing this input may inflate (\(rule), counted over all its "
            + "layers together: a decompression bomb?); not read further. A real archive that compresses this well: "
            + "decompress it first (zcat, unzip) and import the result"
    }

    /// `n` bytes as shown: whole MiB, KiB or bytes.
    static func size(_ n: Int) -> String {
        if n >= 1 << 20 { return "\(n >> 20) MiB" }
        if n >= 1 << 10 { return "\(n >> 10) KiB" }
        return "\(n) bytes"
    }
}
