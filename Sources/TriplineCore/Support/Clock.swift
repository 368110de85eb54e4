#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Wall-clock time, for bookkeeping columns only (never for anything that must be deterministic).
public enum Clock {
    public static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Monotonic seconds, for measuring durations.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
