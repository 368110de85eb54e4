#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The fuzz targets. Each parses the input with a pure parse entry point (bytes in, `ParseOutput` out, no database)
/// and then checks the invariants every reader promises, trapping (a fuzzer finding) when one is broken.
enum FuzzTargets {
    /// A fixed "now" (2026-01-01T00:00:00Z) so results do not depend on the wall clock.
    static let now: Int64 = 1_767_225_600_000

    static func context(_ path: String) -> ReadContext {
        ReadContext(path: path, fallbackDevice: ("fuzz", .deviceOption), nowMs: now)
    }

    /// Overland JSON (and any JSON archive): the archive reader, then the strict tree parser on the same bytes.
    static func overlandJSON(_ raw: UnsafeRawBufferPointer) {
        var ctx = context("fuzz/overland.json")
        ctx.encodeCold = true
        var reader = JSONArchiveReader(bytes: raw, context: ctx)
        let out = reader.read()
        check(out, raw.count)
        // The direct Overland scanner is a shortcut: with it off, the tape path must read the bytes exactly alike.
        var tapeOnly = JSONArchiveReader(bytes: raw, context: ctx)
        tapeOnly.useScanner = false
        let tape = tapeOnly.read()
        require(out.points == tape.points && out.positions == tape.positions && out.cold == tape.cold, "scanner and tape path differ in points")
        require(out.rejects == tape.rejects && out.events == tape.events && out.devices == tape.devices && out.format == tape.format
                    && out.fatal == tape.fatal, "scanner and tape path differ in rejects, events, devices or format")
        _ = try? JSONValue.parse(Array(raw))
    }

    /// OwnTracks JSON: the whole detect-and-parse path (as the importer runs it), with a Recorder-style path so
    /// path-derived device names are exercised too.
    static func ownTracksJSON(_ raw: UnsafeRawBufferPointer) {
        check(FormatDetector.parse(raw, context: context("fuzz/rec/user/device/2024-01.json")), raw.count)
    }

    /// OwnTracks Recorder `.rec` lines.
    static func recLines(_ raw: UnsafeRawBufferPointer) {
        check(RecReader.parse(Array(raw), context: context("fuzz/rec/user/device/2024-01.rec")), raw.count)
    }

    /// GPX 1.0/1.1.
    static func gpx(_ raw: UnsafeRawBufferPointer) {
        var reader = GPXReader(bytes: raw, context: context("fuzz/track.gpx"))
        check(reader.read(), raw.count)
    }

    /// The timestamp parsers: any accepted ISO 8601 time must format back to the same instant, and epochs must be
    /// non-negative.
    static func timestamp(_ raw: UnsafeRawBufferPointer) {
        let bytes = Array(raw)
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            if let t = Timestamp.parseISO8601(base, b.count) {
                if let o = t.offsetSeconds { require(abs(Int(o)) <= 18 * 3600, "offset beyond ±18 h: \(o)") }
                let text = CivilTime.iso8601(ms: t.ms, offset: UTCOffset(seconds: t.offsetSeconds ?? 0))
                let again = Timestamp.parseISO8601(text)
                require(again?.ms == t.ms, "\(String(decoding: bytes, as: UTF8.self)) → \(t.ms) → \(text) → \(String(describing: again?.ms))")
            }
            if let e = Timestamp.parseEpoch(base, b.count) { require(e >= 0, "negative epoch \(e)") }
        }
    }

    /// gzip, tar and zip files (issue 12): expanding must return whatever the bytes, every view must lie inside the
    /// input, and every inner file must parse with the usual invariants.
    static func containers(_ raw: UnsafeRawBufferPointer) {
        let bytes = FileBytes(bytes: Array(raw))
        var entries = 0
        Containers.expand(path: "fuzz.bin", bytes: bytes) { entry in
            entries += 1
            if case .file(_, let inner, _, _) = entry {
                if let p = inner.pointer, let base = bytes.pointer, p >= base, p < base + bytes.count {
                    require(p + inner.count <= base + bytes.count, "a container entry runs past the input")
                }
                check(FormatDetector.parse(inner.buffer, context: context("fuzz/inner.json")), inner.count)
            }
            return entries < 10_000
        }
    }

    /// The invariants of a `ParseOutput`.
    /// `--set` / `--config` values: the input is a config file's text; each assignment's value is parsed against
    /// every shared range (and a whole-number one). An accepted value is finite, inside its range, whole where the
    /// range wants it, converts to milliseconds without overflow, and formats back to text that parses to itself.
    static let parameterRanges: [ParameterRange] = [
        .speed, .speedOrOff, .distance, .distanceOrOff, .duration, .positiveDuration, .window, .share, .flag,
        ParameterRange(1, 10, whole: true), ParameterRange(0, 3_600_000), ParameterRange(1, 100),
    ]

    static func parameters(_ raw: UnsafeRawBufferPointer) {
        let text = String(decoding: raw, as: UTF8.self)
        for (line, assignment) in ParameterText.lines(text) {
            require(line >= 1, "line numbers start at 1")
            guard case .success(let (key, value)) = ParameterText.assignment(assignment) else { continue }
            require(key.contains("."), "a key without a pass was accepted: \(key)")
            for range in parameterRanges {
                switch ParameterText.number(value, key: key, range: range) {
                case .success(let v):
                    require(v.isFinite && range.contains(v), "'\(value)' accepted as \(v) outside \(range)")
                    require(!range.whole || v == v.rounded(), "'\(value)' accepted as \(v), not whole")
                    require(abs(v) * 1000 < 9.2e18, "'\(value)' would overflow a millisecond conversion")
                    _ = Int64((v * 1000).rounded())
                    let again = ParameterText.number(ParameterText.format(v), key: key, range: range)
                    require((try? again.get()) == v, "'\(value)' → \(v) → '\(ParameterText.format(v))' does not parse back")
                case .failure(let error):
                    require(error.message.contains(range.description), "a refusal without the range: \(error.message)")
                    require(!error.message.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) },
                            "a refusal carries a control character")
                }
            }
        }
    }

    static func check(_ out: ParseOutput, _ size: Int) {
        require(out.points.count == out.positions.count, "points and positions differ in count")
        for (p, pos) in zip(out.points, out.positions) {
            require(p.deviceID >= 0 && Int(p.deviceID) < out.devices.count, "device index \(p.deviceID) out of range")
            require(p.lat.isFinite && abs(p.lat) <= 90 && p.lon.isFinite && abs(p.lon) <= 180, "position out of range")
            require(p.timeMs >= 946_684_800_000 && p.timeMs <= now + 86_400_000, "time out of range: \(p.timeMs)")
            require(pos.byteOffset >= 0 && Int(pos.byteOffset) <= size, "position offset outside the input")
        }
        for e in out.events { require(e.device >= 0 && e.device < out.devices.count, "event device out of range") }
        for r in out.rejects { require(r.byteOffset >= 0 && r.byteOffset <= size, "reject offset \(r.byteOffset) outside the input (\(size))") }
        for d in out.devices { require(!d.name.isEmpty, "empty device name") }
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition {
            fputs("fuzz invariant broken: \(message())\n", stderr)
            abort()
        }
    }
}
