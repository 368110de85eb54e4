import Testing
@testable import TriplineCore

/// `FNV1a`, the one deterministic hash of bytes (device ids, cut device names, plan digests, duplicate JSON keys).
@Suite struct FNV1aTests {
    /// The published 64-bit FNV-1a test vectors (Fowler, Noll, Vo: "FNV test vectors"), and the hex form.
    @Test func matchesTheReferenceVectors() {
        #expect(FNV1a.hash([UInt8]()) == 0xCBF2_9CE4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xAF63_DC4C_8601_EC8C)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_F739_67E8)
        #expect(FNV1a.hex("a".utf8) == "af63dc4c8601ec8c" && FNV1a.hex([UInt8]()).count == 16)
        var h = FNV1a()
        for b in "foobar".utf8 { h.add(b) }
        #expect(h.value == FNV1a.hash("foobar".utf8))
    }
}
