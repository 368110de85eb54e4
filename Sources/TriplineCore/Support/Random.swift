#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, seeded generator. The simulator uses it instead of any
/// system randomness so that one seed always gives the same archives and the same truth on every platform.
public struct SplitMix64: Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator derived from this seed and a list of keys (person, day, …), independent of call order elsewhere.
    public static func derived(_ seed: UInt64, _ keys: UInt64...) -> SplitMix64 {
        var g = SplitMix64(seed: seed)
        for k in keys { g = SplitMix64(seed: g.next() ^ (k &* 0x9E37_79B9_7F4A_7C15)) }
        return g
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    @inline(__always)
    public mutating func double() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [a, b).
    @inline(__always)
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * double() }

    /// Uniform integer in 0..<n.
    public mutating func int(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    /// True with probability p.
    public mutating func chance(_ p: Double) -> Bool { double() < p }

    /// Standard normal (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(double(), 1e-300)
        let u2 = double()
        return sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
    }

    /// Exponential with the given mean.
    public mutating func exponential(mean: Double) -> Double { -mean * log(max(1 - double(), 1e-300)) }
}
