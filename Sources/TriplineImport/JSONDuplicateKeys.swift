#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

extension JSONParser {
    /// A 128-bit filter of the keys of one object, for finding duplicate keys without a set: a key whose bit is
    /// already set may repeat an earlier one and is compared with them; a key whose bit was clear is new (a duplicate
    /// always finds its bit set).
    struct KeyFilter {
        var low: UInt64 = 0
        var high: UInt64 = 0

        /// Sets the bit of `hash` (bit 6 picks the word, bits 0–5 the bit) and says whether it was set already.
        @inline(__always)
        mutating func insert(_ hash: UInt64) -> Bool {
            let bit: UInt64 = 1 << (hash & 63)
            if hash & 64 != 0 {
                defer { high |= bit }
                return high & bit != 0
            }
            defer { low |= bit }
            return low & bit != 0
        }
    }

    /// The filter hash of the key bytes `start..<end`: its length and its first 8 bytes (fewer when shorter) and its
    /// last byte, mixed; bit 6 picks the filter word, bits 0–5 the bit.
    @inline(__always)
    func keyFilterHash(_ start: Int, _ end: Int) -> UInt64 {
        let length = end - start
        var w: UInt64 = 0
        if length >= 8 {
            w = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            w ^= UInt64(base[end - 1]) << 3
        } else if length > 0 {
            if start + 8 <= count {  // one load, the bytes after the key masked off
                w = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self) & (UInt64.max >> (64 - 8 * UInt64(length)))
            } else {
                var k = 0
                while k < length {
                    w |= UInt64(base[start + k]) << (8 * UInt64(k))
                    k += 1
                }
            }
        }
        var h = (w ^ UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        return h >> 57
    }

    func hasDuplicateKeys(_ tape: JSONTape, object: Int) -> Bool {
        let n = Int(tape.nodes[object].count)
        if n <= 64 {
            // A 128-bit filter on (length, first and last bytes): only when a key's bit is already set is it
            // compared with the keys before it. No allocation; a duplicate always sets an already-set bit.
            return tape.nodes.withUnsafeBufferPointer { nodes in
                var filter = KeyFilter()
                var i = object + 1
                for _ in 0..<n {
                    let k = nodes[i]
                    let length = k.end - k.start
                    var h = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
                    if length > 0 {
                        h ^= UInt64(base[k.start]) &* 0xC2B2_AE3D_27D4_EB4F
                        h ^= UInt64(base[k.end - 1]) &* 0x1656_67B1_9E37_79F9
                        h ^= UInt64(base[k.start + length / 2]) &* 0x27D4_EB2F_1656_67C5
                    }
                    h ^= h >> 29
                    let seen = filter.insert(h)
                    let escaped = k.flags & JSONNode.Flags.escaped != 0
                    if escaped || seen {
                        var j = object + 1
                        while j < i {
                            if sameKey(tape, i, j) { return true }
                            j = Int(nodes[j + 1].next)
                        }
                        if escaped {
                            // An escaped key may equal any later plain key: compare it with those too.
                            var later = Int(nodes[i + 1].next)
                            while later < nodes[object].next {
                                if sameKey(tape, i, later) { return true }
                                later = Int(nodes[later + 1].next)
                            }
                        }
                    }
                    i = Int(nodes[i + 1].next)
                }
                return false
            }
        }
        var keys: [Int] = []
        keys.reserveCapacity(n)
        var child = object + 1
        for _ in 0..<n {
            keys.append(child)
            child = Int(tape.nodes[child + 1].next)
        }
        var seen: [UInt64: [Int]] = [:]
        for k in keys {
            let h = keyHash(tape, k)
            if let others = seen[h], others.contains(where: { sameKey(tape, $0, k) }) { return true }
            seen[h, default: []].append(k)
        }
        return false
    }

    func keyHash(_ tape: JSONTape, _ k: Int) -> UInt64 {
        let node = tape.nodes[k]
        if node.flags & JSONNode.Flags.escaped != 0 { return FNV1a.hash(decodedBytes(node)) }
        var h = FNV1a()
        for i in node.start..<node.end { h.add(base[i]) }
        return h.value
    }

    func sameKey(_ tape: JSONTape, _ a: Int, _ b: Int) -> Bool {
        let x = tape.nodes[a]
        let y = tape.nodes[b]
        if (x.flags | y.flags) & JSONNode.Flags.escaped != 0 { return decodedBytes(x) == decodedBytes(y) }
        guard x.end - x.start == y.end - y.start else { return false }
        return memcmp(base + x.start, base + y.start, x.end - x.start) == 0
    }
}
