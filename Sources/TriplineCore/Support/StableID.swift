/// Deterministic row ids for rebuilt records: the same device and start give the same id in every rebuild, so a
/// trip, visit or place can be referred to over time (exports, reports, `tripline places rename ID`).
///
/// The id is a 64-bit mix (SplitMix64 finaliser) of a kind tag, the device's key (``deviceKey(name:)``, from its
/// name) and the start time, cut to 53 bits so it survives JSON readers that hold numbers as doubles (JavaScript's
/// `Number.MAX_SAFE_INTEGER` is 2^53 − 1), and never 0. The device enters by its name, not its database id (the order
/// devices were first imported in), so the same files imported in any order, or in shards and merged, give the same
/// ids. Two records of one kind and device never share a start, so ids differ unless the 53-bit mixes collide (about
/// one chance in 10^5 for a million records); the writer then takes the next free id (`RebuildTables`).
public enum StableID {
    /// The key a device's ids are mixed from: 64-bit FNV-1a of its name's UTF-8, through the SplitMix64 finaliser.
    /// Names are unique in a database and in a merged study; two names sharing a key (about n² / 2⁶⁵ for n devices)
    /// only make their records of equal start collide, which the writers resolve as any collision.
    public static func deviceKey(name: String) -> UInt64 { mix(FNV1a.hash(name.utf8)) }

    /// What the id names; part of the mix, so a trip and a stay starting together get different ids.
    public enum Kind: UInt64, Sendable {
        case stay = 1  // a visit has its stay's id
        case trip = 2
        case place = 3
        /// A visit taken from an app's own timeline (Google's), which has no stay.
        case appVisit = 4
    }

    /// The id of a record of `kind` of the device whose key is `deviceKey` (``deviceKey(name:)``) starting at `startMs`.
    public static func make(_ kind: Kind, deviceKey: UInt64, startMs: Int64) -> Int64 {
        var h = mix(kind.rawValue &* 0x9E37_79B9_7F4A_7C15)
        h = mix(h ^ deviceKey)
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
