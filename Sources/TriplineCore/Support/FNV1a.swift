/// 64-bit FNV-1a (Fowler–Noll–Vo): a small, fast, deterministic hash of bytes, the same on every machine and in every
/// run (Swift's `Hasher` is seeded per process). Not cryptographic: it tells apart names, keys and files, and every
/// user of it handles the rare collision (a second comparison, a collision rule, a digest that only names).
/// Used by device ids (``StableID/deviceKey(name:)``), long device names cut to size, shard plan digests and the JSON
/// readers' duplicate-key check.
public struct FNV1a: Sendable {
    @usableFromInline var state: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The hash of the bytes added so far.
    public var value: UInt64 { state }

    public init() {}

    @inlinable @inline(__always)
    public mutating func add(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// The hash of `bytes`.
    @inlinable
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var h = FNV1a()
        for b in bytes { h.add(b) }
        return h.value
    }

    /// The hash of `bytes` as 16 lower-case hex digits.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
