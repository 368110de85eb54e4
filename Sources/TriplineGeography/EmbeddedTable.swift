import CTriplineGeographyData

/// Read-only view of one embedded table: a pointer into the binary's read-only data and its length.
///
/// `@unchecked Sendable`: the bytes are in the executable's `.rodata`, never written and never freed, so any thread
/// may read them at any time.
struct EmbeddedTable: @unchecked Sendable {
    let base: UnsafeRawPointer?
    let count: Int

    enum Which: Int32 {
        case zones = 0, countries = 1, places = 2, base = 3
    }

    init(_ which: Which) {
        var size = 0
        let pointer = tripline_geography_table(which.rawValue, &size)
        base = UnsafeRawPointer(pointer)
        count = pointer == nil ? 0 : size
    }

    init(base: UnsafeRawPointer?, count: Int) {
        self.base = base
        self.count = count
    }

    /// Little-endian unsigned integers at a byte offset; 0 when the read would leave the table.
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        guard let base, offset >= 0, offset &+ 4 <= count else { return 0 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        guard let base, offset >= 0, offset &+ 2 <= count else { return 0 }
        return UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always) func u8(_ offset: Int) -> UInt8 {
        guard let base, offset >= 0, offset < count else { return 0 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always) func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }

    @inline(__always) func f32(_ offset: Int) -> Float { Float(bitPattern: u32(offset)) }

    func magic(_ text: StaticString) -> Bool {
        guard count >= 4 else { return false }
        let expected = text.utf8Start
        for k in 0..<4 where u8(k) != expected[k] { return false }
        return true
    }

    /// UTF-8 text of `length` bytes at `offset` (empty if out of range; invalid UTF-8 is repaired).
    func string(_ offset: Int, _ length: Int) -> String {
        guard let base, offset >= 0, length >= 0, offset &+ length <= count else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: base + offset, count: length), as: UTF8.self)
    }

    /// A string table (u32 count, u32 offsets[count + 1], bytes) decoded in full.
    func strings(at offset: Int) -> [String] {
        let n = Int(u32(offset))
        guard n > 0, offset + 4 + 4 * (n + 1) <= count else { return [] }
        let bytes = offset + 4 + 4 * (n + 1)
        var out: [String] = []
        out.reserveCapacity(n)
        for k in 0..<n {
            let start = Int(u32(offset + 4 + 4 * k)), end = Int(u32(offset + 8 + 4 * k))
            out.append(end >= start ? string(bytes + start, end - start) : "")
        }
        return out
    }
}
