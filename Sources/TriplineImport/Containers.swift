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
/// Containers nest (a `.tar.gz`, a `.gz` inside a zip) up to ``maxDepth`` levels. Inflated content is capped at
/// ``maxRatio`` times the compressed size plus 1 GiB (a decompression bomb stops with a message, not a full disk).
enum Containers {
    enum Kind: String { case gzip, tar, zip }

    static let maxDepth = 3
    static let maxRatio = 1000

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
    /// archive order. `body` returns false to stop.
    @discardableResult
    static func expand(path: String, bytes: FileBytes, via: String = "", depth: Int = 0, _ body: (Entry) -> Bool) -> Bool {
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
                let (inner, notes) = try gunzip(bytes, path: path)
                if !notes.isEmpty, Containers.kind(inner.buffer) == nil {
                    return body(.file(path: path, bytes: inner, via: chain, notes: notes))
                }
                return expand(path: path, bytes: inner, via: chain, depth: depth + 1, body)
            } catch {
                return body(.failed(path: path, message: "\(error)"))
            }
        case .tar:
            return untar(bytes, path: path) { entry in
                switch entry {
                case .file(let p, let b, _, _): return expand(path: p, bytes: b, via: chain, depth: depth + 1, body)
                default: return body(entry)
                }
            }
        case .zip:
            return unzip(bytes, path: path) { entry in
                switch entry {
                case .file(let p, let b, _, _): return expand(path: p, bytes: b, via: chain, depth: depth + 1, body)
                default: return body(entry)
                }
            }
        }
    }

    struct ContainerError: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: zlib

    /// Inflates `input` (gzip when `raw` is false, else a raw deflate stream) into `fd`. Returns the bytes written,
    /// how much input was used, and whether the stream ended properly (false: the input ran out first).
    /// `consumed` is told, every 8 MiB, how much input was used (so the caller can let those mapped pages go).
    static func inflate(_ input: UnsafeRawBufferPointer, raw: Bool, into fd: Int32, limit: Int, path: String,
                        crc: UnsafeMutablePointer<UInt>? = nil, consumed report: ((Int) -> Void)? = nil) throws -> (written: Int, used: Int, complete: Bool) {
        var stream = z_stream()
        guard tripline_inflate_init2(&stream, raw ? -15 : 15 + 16) == Z_OK else {
            throw ContainerError(description: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        let chunk = 1 << 20
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { out.deallocate() }
        var written = 0
        var consumed = 0
        var complete = false
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
                if let crc { crc.pointee = CZlib.crc32(crc.pointee, out, UInt32(produced)) }
                written += produced
                if written > limit {
                    throw ContainerError(description: "inflates to more than \(limit >> 20) MiB (over \(maxRatio) times its size: a decompression bomb?); not read")
                }
                try FileBytes.writeAll(fd, UnsafeRawBufferPointer(start: out, count: produced), path: "temporary file (inflating \(path))")
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
        return (written, consumed - Int(stream.avail_in), complete)
    }

    /// The content of a gzip file (all its members, one after the other), in an unlinked temporary file.
    static func gunzip(_ bytes: FileBytes, path: String) throws -> (FileBytes, [RejectRecord]) {
        var notes: [RejectRecord] = []
        let limit = bytes.count &* maxRatio &+ (1 << 30)
        let inner = try FileBytes.spooled("tripline-gunzip", path: path) { fd in
            var offset = 0
            var total = 0
            while offset < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes.buffer[offset...])
                let start = offset
                let (written, used, complete) = try inflate(rest, raw: false, into: fd, limit: limit - total, path: path,
                                                            consumed: { bytes.release(before: start + $0) })
                total += written
                offset += used
                if !complete {
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

    /// Calls `body` for each file of a zip archive (from its central directory).
    // Long by design: the zip's records read in the order the format lays them out (end record, zip64 locator and record, entries with their extra fields).
    static func unzip(_ bytes: FileBytes, path: String, _ body: (Entry) -> Bool) -> Bool {
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
        var p = cdOffset
        for _ in 0..<entries {
            guard p + 46 <= cdEnd, u32(b, p) == 0x0201_4B50 else {
                return body(.failed(path: path, message: "a damaged zip central directory at byte \(p)"))
            }
            let flags = u16(b, p + 8)
            let method = u16(b, p + 10)
            let crc = u32(b, p + 16)
            var compressed = u32(b, p + 20)
            var size = u32(b, p + 24)
            let nameLength = u16(b, p + 28)
            let extraLength = u16(b, p + 30)
            let commentLength = u16(b, p + 32)
            var local = u32(b, p + 42)
            guard p + 46 + nameLength + extraLength <= cdEnd else { return body(.failed(path: path, message: "a damaged zip central directory at byte \(p)")) }
            let name = Array(b[(p + 46)..<(p + 46 + nameLength)])
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
            p += 46 + nameLength + extraLength + commentLength
            let entryPath = path + "/" + displayName(name)
            if name.last == UInt8(ascii: "/") { continue }  // a directory
            if flags & 1 != 0 {
                if !body(.skipped(path: entryPath, message: "an encrypted zip entry; Tripline cannot decrypt it")) { return false }
                continue
            }
            guard local >= 0, local <= b.count - 30, u32(b, local) == 0x0403_4B50 else {
                if !body(.failed(path: entryPath, message: "the zip entry's local header is missing or damaged")) { return false }
                continue
            }
            let dataStart = local + 30 + u16(b, local + 26) + u16(b, local + 28)
            guard compressed >= 0, size >= 0, dataStart <= b.count, compressed <= b.count - dataStart else {
                if !body(.failed(path: entryPath, message: "the zip entry runs past the end of the file (cut mid-write?)")) { return false }
                continue
            }
            let data = UnsafeRawBufferPointer(rebasing: b[dataStart..<(dataStart + compressed)])
            switch method {
            case 0:
                guard compressed == size else {
                    if !body(.failed(path: entryPath, message: "a stored zip entry whose sizes disagree")) { return false }
                    continue
                }
                if !body(.file(path: entryPath, bytes: FileBytes(view: bytes, offset: dataStart, count: size), via: "", notes: [])) { return false }
            case 8:
                do {
                    var sum: UInt = 0
                    let inner = try FileBytes.spooled("tripline-unzip", path: entryPath) { fd in
                        let (written, _, complete) = try inflate(data, raw: true, into: fd, limit: compressed &* maxRatio &+ (1 << 30), path: entryPath,
                                                                 crc: &sum, consumed: { bytes.release(before: dataStart + $0) })
                        guard complete else { throw ContainerError(description: "the deflated data ends early (damaged or cut)") }
                        guard written == size, Int(sum) == crc else {
                            throw ContainerError(description: "the inflated entry does not match its size or CRC-32 (damaged)")
                        }
                    }
                    bytes.release(before: dataStart + compressed)
                    if !body(.file(path: entryPath, bytes: inner, via: "", notes: [])) { return false }
                } catch {
                    if !body(.failed(path: entryPath, message: "\(error)")) { return false }
                }
            default:
                let names = [9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "zstd", 95: "xz", 98: "PPMd"]
                if !body(.failed(path: entryPath, message: "zip compression method \(names[method] ?? String(method)) is not supported (only stored and deflate)")) { return false }
            }
        }
        return true
    }
}
