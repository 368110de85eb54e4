/// Reads OwnTracks Recorder `.rec` files: one line per message,
/// `<UTC ISO time> <sep> <topic field, padded to 18> <sep> <JSON object>`, where the separators are tabs or (in
/// older files) runs of spaces.
///
/// The line's time is the Recorder's receive time; the JSON `tst` (the fix time, a number or a string) wins, and
/// the line time is used only when `tst` is missing. Each line is parsed on its own, so a bad line costs one
/// reject. The device is user/device from a `rec/<user>/<device>/` path, else the message's `topic`, else `tid`.
public struct RecReader {
    var builder: RecordBuilder
    let bytes: UnsafeRawBufferPointer
    let pathDevice: ParsedDevice?

    public init(bytes: UnsafeRawBufferPointer, context: ReadContext, sink: BatchSink? = nil) {
        self.bytes = bytes
        builder = RecordBuilder(context: context, bytes: bytes, sink: sink)
        pathDevice = RecReader.deviceFromPath(context.path)
    }

    /// Parses `bytes` (pure; no database).
    public static func parse(_ bytes: [UInt8], context: ReadContext = .memory()) -> ParseOutput {
        bytes.withUnsafeBytes { raw in
            var reader = RecReader(bytes: raw, context: context)
            return reader.read()
        }
    }

    /// `user/device` when the path has the Recorder's layout `…/rec/<user>/<device>/<file>`.
    public static func deviceFromPath(_ path: String) -> ParsedDevice? {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 4, parts[parts.count - 4] == "rec" else { return nil }
        return ParsedDevice(name: parts[parts.count - 3] + "/" + parts[parts.count - 2], source: "owntracks", origin: .path)
    }

    public mutating func read() -> ParseOutput {
        let base = builder.base
        let count = builder.count
        var tape = JSONTape()
        var lineStart = 0
        var lineNumber = 0
        var anyLine = false
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { lineStart = 3 }
        while lineStart < count {
            lineNumber += 1
            var lineEnd = lineStart
            // A line ends at LF, or at a CR no LF follows (files saved with classic Mac line ends).
            while lineEnd < count, base[lineEnd] != 0x0A, base[lineEnd] != 0x0D || (lineEnd + 1 < count && base[lineEnd + 1] == 0x0A) { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var e = lineEnd
            while e > lineStart, base[e - 1] == 0x0D || base[e - 1] == 0x20 || base[e - 1] == 0x09 { e -= 1 }
            if e == lineStart { continue }
            anyLine = true
            builder.lineOffset = lineStart
            builder.lineNumber = lineNumber
            // A byte-order mark at the start of a later line: files saved with one each and joined by `cat`.
            let textStart = e - lineStart >= 3 && base[lineStart] == 0xEF && base[lineStart + 1] == 0xBB && base[lineStart + 2] == 0xBF
                ? lineStart + 3 : lineStart
            // The receive time.
            var i = textStart
            while i < e, base[i] != 0x20, base[i] != 0x09 { i += 1 }
            guard let lineTime = Timestamp.parseISO8601(base + textStart, i - textStart) else {
                let binary = (lineStart..<min(e, lineStart + 4096)).contains { base[$0] == 0 }
                builder.reject(binary ? .binaryData : .invalidLine, "the line does not start with the Recorder's ISO 8601 time",
                               start: lineStart, end: e)
                continue
            }
            // Separator, topic field, separator.
            while i < e, base[i] == 0x20 || base[i] == 0x09 { i += 1 }
            while i < e, base[i] != 0x20, base[i] != 0x09, base[i] != UInt8(ascii: "{") { i += 1 }
            while i < e, base[i] == 0x20 || base[i] == 0x09 { i += 1 }
            guard i < e, base[i] == UInt8(ascii: "{") else {
                builder.reject(.invalidLine, "no JSON object after the time and topic fields", start: lineStart, end: e)
                continue
            }
            let jsonStart = i
            var p = JSONParser(UnsafeRawBufferPointer(start: base, count: e), start: jsonStart, lenient: true)
            tape.removeAll()
            do throws(JSONError) {
                try p.parseValue(into: &tape)
                p.skipWhitespace()
                guard p.atEnd else { throw p.fail("unexpected data after the JSON object") }
            } catch {
                let cut = lineEnd >= count && error.atEnd
                // The parser sees only this line: an end of input before the file's end is a line cut short.
                let detail = cut ? "the file ends inside this line (cut mid-write?): \(error.message)"
                    : error.atEnd ? "the line ends inside its JSON object (a write cut short?): " + error.message.replacing(" (the file looks truncated)", with: "")
                    : "\(error.message) at byte \(error.offset)"
                builder.reject(cut ? .truncated : .invalidJSON, detail, start: lineStart, end: e)
                continue
            }
            builder.ownTracksMessage(p, tape, 0, start: lineStart, end: e, pathDevice: pathDevice, lineTimeMs: lineTime.ms)
            builder.flushIfFull()
        }
        var out = builder.out
        out.format = "owntracks-rec"
        if !anyLine {
            out.rejects.append(RejectRecord(line: nil, byteOffset: 0, reason: .emptyFile, detail: "the file holds no line", excerpt: nil))
        }
        builder.out = ParseOutput()
        return out
    }
}
