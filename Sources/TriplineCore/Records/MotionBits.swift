/// Motion states an app reports with a fix (Overland's `motion`, OwnTracks' `m`), as bits: what the passes read.
public enum MotionBits {
    public static let walking: UInt8 = 1
    public static let running: UInt8 = 2
    public static let cycling: UInt8 = 4
    public static let driving: UInt8 = 8
    public static let stationary: UInt8 = 16

    /// Parses `walking,stationary` (or OwnTracks-style lists) from the raw bytes of the stored text.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> UInt8 {
        var bits: UInt8 = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "w"): bits |= walking
            case UInt8(ascii: "r"): bits |= running
            case UInt8(ascii: "c"): bits |= cycling
            case UInt8(ascii: "d"), UInt8(ascii: "a"): bits |= driving  // driving, automotive
            case UInt8(ascii: "s"): bits |= stationary
            default: break
            }
            while i < n && bytes[i] != UInt8(ascii: ",") { i += 1 }
            i += 1
        }
        return bits
    }
}
