import TriplineCore

/// A quirk of real histories (issue 28): two phones writing one file without a device tag, as a Google
/// `Records.json` of two devices does. The fixes of a second person's phone, far away, interleave with the first
/// person's in one device.
///
/// - The host keeps every fix, event and app trip of its own.
/// - The guest phone adds every `keepEvery`th of its fixes (a phone that samples less often), moved by
///   (`shiftLatDeg`, `shiftLonDeg`) — about 6,000 km: another continent — and 500 ms later, so that no two fixes share
///   an instant (a fix at the same millisecond as one of the host's is left out). They carry position, accuracy and
///   speed only: no wifi, motion, trip or offset, as a Google record gives.
/// - **Truth**: the host's trips, stays and days unchanged (the guest's fixes are not the person's), and the times
///   of the guest's fixes (`foreignTimes`), which the clean pass should flag out of reach (`point_flags` 8).
public enum InterleavedPhones {
    public static let shiftLatDeg = -10.0
    public static let shiftLonDeg = -75.0
    public static let keepEvery = 3

    /// `result` with device `guest`'s fixes written into device `host`, and the guest device gone.
    /// - Returns: the merged simulation (truth: the host's only) and the times of the guest's fixes in it.
    public static func apply(_ result: SimulationResult, host: Int = 0, guest: Int = 1) -> (result: SimulationResult, foreignTimes: Set<Int64>) {
        var out = result
        var merged = result.devices[host]
        let own = Set(merged.points.map(\.timeMs))
        var foreign = Set<Int64>()
        for (k, p) in result.devices[guest].points.enumerated() where k % keepEvery == 0 {
            let t = p.timeMs + 500
            guard !own.contains(t) else { continue }
            var lon = p.lon + shiftLonDeg
            if lon < -180 { lon += 360 }
            merged.points.append(Point(deviceID: p.deviceID, timeMs: t, lat: max(-89.9, min(89.9, p.lat + shiftLatDeg)), lon: lon,
                                       speedMps: p.speedMps, accuracyM: p.accuracyM))
            foreign.insert(t)
        }
        merged.points.sort { $0.timeMs < $1.timeMs }
        let name = merged.name
        out.devices = [merged]
        out.truth.trips = result.truth.trips.filter { $0.device == name }
        out.truth.stays = result.truth.stays.filter { $0.device == name }
        out.truth.days = result.truth.days.filter { $0.device == name }
        out.truth.gaps = result.truth.gaps.filter { $0.device == name }
        return (out, foreign)
    }

    /// `result` with device `host` alone (its truth only): what the merged device should score like.
    public static func single(_ result: SimulationResult, host: Int = 0) -> SimulationResult {
        var out = result
        let name = result.devices[host].name
        out.devices = [result.devices[host]]
        out.truth.trips = result.truth.trips.filter { $0.device == name }
        out.truth.stays = result.truth.stays.filter { $0.device == name }
        out.truth.days = result.truth.days.filter { $0.device == name }
        out.truth.gaps = result.truth.gaps.filter { $0.device == name }
        return out
    }
}
