/// Deterministic row ids for rebuilt records: the same device and start give the same id in every rebuild, so a
/// trip, visit or place can be referred to over time (exports, reports, `tripline places rename ID`).
///
/// The id is a 64-bit mix (SplitMix64 finaliser) of a kind tag, the device id and the start time, cut to 53 bits so it
/// survives JSON readers that hold numbers as doubles (JavaScript's `Number.MAX_SAFE_INTEGER` is 2^53 − 1), and never 0.
/// Two records of one kind and device never share a start, so ids differ unless the 53-bit mixes collide (about one
/// chance in 10^5 for a million records); the writer then takes the next free id (`RebuildTables`).
public enum StableID {
    /// What the id names; part of the mix, so a trip and a stay starting together get different ids.
    public enum Kind: UInt64, Sendable {
        case stay = 1  // a visit has its stay's id
        case trip = 2
        case place = 3
        /// A visit taken from an app's own timeline (Google's), which has no stay.
        case appVisit = 4
    }

    public static func make(_ kind: Kind, device: Int64, startMs: Int64) -> Int64 {
        var h = mix(kind.rawValue &* 0x9E37_79B9_7F4A_7C15)
        h = mix(h ^ UInt64(bitPattern: device))
        h = mix(h ^ UInt64(bitPattern: startMs))
        let id = Int64(h & ((1 << 53) - 1))
        return id == 0 ? 1 : id
    }

    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
