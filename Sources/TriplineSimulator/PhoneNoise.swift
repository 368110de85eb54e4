#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore

/// What a real phone adds, while moving, to the smooth error the classic model gives every fix (a Gauss–Markov
/// error of σ 0.4 × the reported accuracy, correlation 90 s): urban multipath, rare outliers and a fast jitter
/// (docs/SIMULATOR.md, "Sampling profiles", "Moving fixes as noisy as real phones"). Used by the Overland and
/// OwnTracks regimes of the non-classic profiles; the classic profile never draws it, so `SampleData/` and the tests
/// built on it stay as they are. It draws from its own generator (seed, person, day), so adding it changed no other
/// draw of the regimes: the same fixes at the same times with the same reported speeds, only further off.
///
/// - **Multipath**: on the ground outside trains (streets between buildings), on average one episode per 10 min of
///   moving, each 15–90 s of an extra error of σ 6–20 m correlated over 30 s — the GPS logger's episodes
///   (`GPSLogger.swift`: σ 8–30 m) scaled by 0.7 for the phone's filter, which fuses wifi and the motion sensors;
///   a wander of tens of metres for tens of seconds, not a jump per fix. The phone sees some of it: its reported
///   accuracy grows by 30–100 % of the episode's σ.
/// - **Outliers**: a fix 50–400 m off (log-uniform: median 141 m), in 0.1 % of 1 Hz fixes (about one per 17 min
///   of moving) and 1 % of the sparse fixes OwnTracks takes from a GPS woken for them; not in a plane. iOS reports a
///   large accuracy for most of them (75 %: 0.5–1.5 × the offset, at least 65 m), not for all (25 % keep the fix's
///   ordinary accuracy).
/// - **Fast jitter** at 1 Hz: a Gauss–Markov error correlated over 3 s, σ 0.15 × the reported accuracy on foot
///   (the phone swings with each step; 0.6–1.9 m) and 0.08 × in a vehicle or on a bicycle.
struct PhoneNoise {
    var rng: SplitMix64
    /// Multipath: until when the episode lasts, its σ, its error (m, east / north) and when it was last stepped.
    var until = -1e18, sigma = 0.0, mx = 0.0, my = 0.0, lastT = -1e18
    /// Multipath as the fixes show it, after the phone's filter.
    var fx = 0.0, fy = 0.0
    /// Fast jitter (m, east / north) and when it was last stepped.
    var jx = 0.0, jy = 0.0, jitterT = -1e18

    /// Episodes per second of moving on the ground (one per 10 min).
    static let multipathRate = 1.0 / 600
    /// Outliers: the share of 1 Hz fixes and of sparse (OwnTracks) fixes.
    static let denseOutlierShare = 0.001
    static let sparseOutlierShare = 0.01
    /// The phone's position filter (s): how fast a fix follows the reflections' error.
    static let filterS = 8.0

    init(rng: SplitMix64) { self.rng = rng }

    /// The multipath error at `t` (nil when there is none) and how much it adds to the reported accuracy. Works for
    /// fixes a second or minutes apart: an episode covers `t` when one began in the last 90 s (at the rate above)
    /// and lasts past `t`. The reflections' error (Gauss–Markov, correlation 30 s) reaches the fix through the
    /// phone's position filter (a first-order lag of `filterS`): a smooth wander in and out of the episode, not a
    /// Gauss–Markov step of several metres every second.
    mutating func multipath(t: Double, urban: Bool) -> (offset: Simulator.XY, accuracy: Double)? {
        let dt = max(0, t - lastT)
        lastT = t
        if !urban { until = -1e18 }
        var active = t < until
        if active {
            let r = exp(-min(dt, 120) / 30)
            let k = (1 - r * r).squareRoot() * sigma
            mx = r * mx + k * rng.normal()
            my = r * my + k * rng.normal()
        } else if urban {
            let window = min(dt, 90)
            if rng.chance(window * Self.multipathRate) {
                let end = t - rng.uniform(0, window) + rng.uniform(15, 90)
                if end > t {
                    until = end
                    sigma = rng.uniform(6, 20)
                    mx = rng.normal() * sigma
                    my = rng.normal() * sigma
                    active = true
                }
            }
        }
        // The filter follows the reflections' error during an episode and returns to nothing after it.
        let f = exp(-dt / Self.filterS)
        let tx = active ? mx : 0, ty = active ? my : 0
        fx = tx + (fx - tx) * f
        fy = ty + (fy - ty) * f
        if !active && fx * fx + fy * fy < 0.01 {
            fx = 0
            fy = 0
            return nil
        }
        return (Simulator.XY(x: fx, y: fy), active ? sigma * rng.uniform(0.3, 1) : 0)
    }

    /// The fast jitter at `t` (1 Hz fixes): σ `sigma`, correlation 3 s.
    mutating func jitter(t: Double, sigma: Double) -> Simulator.XY {
        let dt = max(0, t - jitterT)
        jitterT = t
        let r = exp(-dt / 3)
        let k = (1 - r * r).squareRoot() * sigma
        jx = r * jx + k * rng.normal()
        jy = r * jy + k * rng.normal()
        return Simulator.XY(x: jx, y: jy)
    }

    /// With probability `share`, an outlier: its offset and the accuracy the phone reports for it (`accuracy`, the
    /// fix's ordinary one, for a quarter of them).
    mutating func outlier(share: Double, accuracy: Double) -> (offset: Simulator.XY, accuracy: Double)? {
        guard rng.chance(share) else { return nil }
        let a = rng.uniform(0, 2 * .pi), r = 50 * pow(8, rng.double())
        let reported = rng.chance(0.75) ? max(65, r * rng.uniform(0.5, 1.5), accuracy) : accuracy
        return (Simulator.XY(x: cos(a) * r, y: sin(a) * r), reported)
    }
}
