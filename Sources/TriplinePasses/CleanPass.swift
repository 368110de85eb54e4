import TriplineCore
import TriplineStore


/// Pass 1, `clean`: flags (never deletes) points that should not count, in `point_flags`.
///
/// A point is flagged when its accuracy is worse than `max_accuracy_m`; when it is an out-and-back jump (far from
/// both neighbours, which are close to each other, at an impossible speed: the wifi or cell fixes kilometres off; or,
/// without a speed of its own, between two fixes that report standing still: a wifi fix a few hundred metres off);
/// or when it duplicates the previous point at (almost) the same instant.
public struct CleanPass: Pass {
    public static let name = "clean"

    /// The bits of `point_flags.flags`.
    public enum Flag {
        /// `accuracy_m` worse than `max_accuracy_m`.
        public static let lowAccuracy: UInt8 = 1
        /// An out-and-back jump: far from both neighbours at an impossible speed, while they are close together.
        public static let jump: UInt8 = 2
        /// Within `duplicate_ms` of the previous kept point.
        public static let duplicate: UInt8 = 4
        /// A Google `timelinePath` point inside one of Google's own segments (``TimelinePass/pathFlag``).
        public static let timelinePath: UInt8 = TimelinePass.pathFlag
    }

    public struct Parameters: PassParameters {
        /// Points with a reported accuracy worse than this (metres) are left out. 200 m keeps indoor drift
        /// (20–100 m) and drops wifi/cell fixes (1–3 km).
        public var maxAccuracyM: Double = 200
        /// An out-and-back jump must be this far (metres) from both neighbours.
        public var jumpMinM: Double = 300
        /// … and reached at more than this speed (m/s) — faster than a car, slower than any real teleport.
        public var jumpSpeedMps: Double = 60
        /// … while the neighbours are within this share of the jump distance of each other.
        public var jumpReturnRatio: Double = 0.35
        /// Points closer than this (ms) to the previous kept point are duplicates.
        public var duplicateMs: Double = 500
        /// A point without a reported speed between two that report standing still (below `still_mps`, at most
        /// `still_jump_s` apart) is a jump when it lies this far (metres) from both (and they are close together, as
        /// above): a wifi or cell fix a few hundred metres off while the phone lay still. 0 = off.
        public var stillJumpMinM: Double = 150
        public var stillJumpS: Double = 300
        public var stillMps: Double = 0.5

        public init() {}

        public static var keys: Keys { [
            "max_accuracy_m": \.maxAccuracyM, "jump_min_m": \.jumpMinM, "jump_speed_mps": \.jumpSpeedMps,
            "jump_return_ratio": \.jumpReturnRatio, "duplicate_ms": \.duplicateMs, "still_jump_min_m": \.stillJumpMinM,
            "still_jump_s": \.stillJumpS, "still_mps": \.stillMps,
        ] }
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Computes the flags of every point in `work`.
    /// - Complexity: O(n).
    public static func flags(_ work: DeviceWork, _ p: Parameters) -> [UInt8] {
        let n = work.count
        var flags = [UInt8](repeating: 0, count: n)
        var lastKept = -1
        for i in 0..<n {
            let acc = work.accuracy[i]
            if !acc.isNaN && acc > p.maxAccuracyM { flags[i] |= Flag.lowAccuracy; continue }
            if lastKept >= 0 && Double(work.time[i] - work.time[lastKept]) < p.duplicateMs {
                flags[i] |= Flag.duplicate
                continue
            }
            lastKept = i
        }
        // Out-and-back jumps among the remaining points.
        var kept: [Int] = []
        kept.reserveCapacity(n)
        for i in 0..<n where flags[i] == 0 { kept.append(i) }
        if kept.count >= 3 {
            // The reference latitude is the point's own, rounded to 0.1°: the same for a point whatever span is loaded
            // (so incremental and windowed rebuilds flag exactly as a full one).
            var latRef = Double.nan
            var cosLat = 1.0
            for k in 1..<(kept.count - 1) {
                let a = kept[k - 1], b = kept[k], c = kept[k + 1]
                let rounded = (work.lat[a] * 10).rounded() / 10
                if rounded != latRef {
                    latRef = rounded
                    cosLat = Geo.cosLatitude(latRef)
                }
                let dab = Geo.fastDistance(work.lat[a], work.lon[a], work.lat[b], work.lon[b], cosLat: cosLat)
                // Between two fixes that report standing still, a fix without a speed need not be fast to be a jump.
                let still = p.stillJumpMinM > 0 && work.speed[b].isNaN && work.speed[a] < p.stillMps && work.speed[c] < p.stillMps
                    && Double(work.time[c] - work.time[a]) <= p.stillJumpS * 1000
                let minM = still ? min(p.stillJumpMinM, p.jumpMinM) : p.jumpMinM
                if dab < minM { continue }
                let dbc = Geo.distance(work.lat[b], work.lon[b], work.lat[c], work.lon[c])
                if dbc < minM { continue }
                let dac = Geo.distance(work.lat[a], work.lon[a], work.lat[c], work.lon[c])
                if dac > p.jumpReturnRatio * min(dab, dbc) { continue }
                let tin = max(1, Double(work.time[b] - work.time[a]) / 1000)
                let tout = max(1, Double(work.time[c] - work.time[b]) / 1000)
                if still || dab / tin > p.jumpSpeedMps || dbc / tout > p.jumpSpeedMps { flags[b] |= Flag.jump }
            }
        }
        return flags
    }

    public mutating func run(_ work: DeviceWork, store: Store) throws -> [(String, String)] {
        var flags = Self.flags(work, parameters)
        let pathPoints = try TimelinePass.flagPathPoints(work, store: store, flags: &flags)
        // Points before the recomputed span keep the flags stored for them.
        let firstNew = lowerBound(work.time, work.processFromMs)
        if firstNew > 0 {
            try work.loadFlags(store: store)
            for i in 0..<firstNew { flags[i] = work.flags[i] }
        }
        work.flags = flags
        work.flagsLoaded = true
        let tables = RebuildTables(store)
        try tables.deleteFlags(device: work.deviceID, fromMs: max(work.fromMs, work.processFromMs), toMs: work.replaceToMs)
        var counts = [0, 0, 0]
        for i in firstNew..<flags.count where flags[i] != 0 && work.time[i] < work.keepFromMs {
            try tables.setFlags(device: work.deviceID, timeMs: work.time[i], flags: flags[i])
            if flags[i] & Flag.lowAccuracy != 0 { counts[0] += 1 }
            if flags[i] & Flag.jump != 0 { counts[1] += 1 }
            if flags[i] & Flag.duplicate != 0 { counts[2] += 1 }
        }
        return [("points", String(flags.count - firstNew)), ("low_accuracy", String(counts[0])), ("jumps", String(counts[1])), ("duplicates", String(counts[2])), ("timeline_path", String(pathPoints))]
    }
}
