import TriplineCore
import TriplineStore

/// Where a trip's or leg's line goes on across a recording gap: where the rebuild measured the way across it.
///
/// The metrics pass counts the way between two kept fixes of a trip that are at most `metrics.bridge_max_s` apart,
/// and the straight line of a longer silence the trip crossed under way
/// (``TrackMotion/crossedSilence(seconds:accuracyBefore:accuracy:bridgeMaxS:splitGapS:minPaceMps:metres:)``: longer
/// than `trips.split_gap_s`, or crossed at `metrics.moving_mps` or faster). A line is drawn where its distance was
/// measured, so a metro ride under the ground or a car through a tunnel is one line, its straight part the silence
/// it counted, and it breaks only at a gap longer than ``ExportParameters/gapSeconds`` whose way was not measured
/// (docs/EXPORTS.md, "Line geometry"). The parameters are those the device was rebuilt with.
final class LineJoins {
    private let settings: MetricsSettings.Cache
    private let fixes: FixFinder
    let gapMs: Int64

    init(store: Store, gapSeconds: Int64) throws {
        settings = MetricsSettings.Cache(store)
        fixes = try FixFinder(store)
        gapMs = gapSeconds * 1000
    }

    /// Whether the line of `device` breaks between its fix at `fromMs` and its next at `toMs`, the two `metres` apart
    /// (read only for a silence the rule must measure).
    func breaks(device: Int64, fromMs: Int64, toMs: Int64, metres: () -> Double) throws -> Bool {
        let dtMs = toMs - fromMs
        guard dtMs > gapMs else { return false }
        let p = try settings.of(device: device)
        let seconds = Double(dtMs) / 1000
        if seconds <= p.bridgeMaxS { return false }
        let crossed = try TrackMotion.crossedSilence(
            seconds: seconds, accuracyBefore: fixes.accuracy(device: device, atMs: fromMs), accuracy: fixes.accuracy(device: device, atMs: toMs),
            bridgeMaxS: p.bridgeMaxS, splitGapS: p.splitGapS, minPaceMps: p.movingMps, metres: metres)
        return !crossed
    }
}
