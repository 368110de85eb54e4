import TriplineCore
import TriplineStore

/// Each local day's share of a trip's distance, as the metrics pass spreads it over the days it touches
/// (`days.distance_m`, docs/PASSES.md "metrics"), so that a day's timeline (``DayTimeline``) shows a trip over
/// midnight with that day's part and its lines add up to the day's distance.
///
/// The rule is the metrics pass's, read back from the stored fixes and legs: a leg with fixes is split in proportion
/// to the straight-line increments of its kept fixes on each local day (a fix's increment, the way since the anchor
/// before it once at least `metrics.min_step_m` from it, belongs to the leg whose span (start, end] holds the fix and
/// to the fix's own local day, or by time over the days between it and the fix before when a local midnight lies
/// between them; a silence over `metrics.bridge_max_s` the trip crossed under way, its straight line by time,
/// ``TrackMotion/crossedSilence(seconds:accuracyBefore:accuracy:bridgeMaxS:splitGapS:minPaceMps:metres:)``); a leg no fix saw by its time on
/// each day, midnights at the offset where it began (that of the fix taken then, else the zone's at the first fix
/// after it, as the pass takes it), or, where it ends at another offset, on the local clock moving evenly from the one
/// to the other (``UTCOffset/dayShares(startMs:endMs:start:end:)``). Google's own trips (`source = 'app'`) by time, as the timeline pass spreads them.
/// The parameters are those the device was rebuilt with (`rebuild_state.parameters`). Without privacy zones the parts
/// equal `days.distance_m` (`RealAnswerInvariantTests`, "day parts = days", on every corpus archive and simulator
/// profile); a zone's fixes are passed over, so a trip it cuts is spread by its part outside.
struct TripDayShares {
    let exporter: Exporter
    /// The exports' reader: fixes inside a privacy zone are passed over (a trip cut by a zone is shown, and spread,
    /// by its part outside).
    let reader: Exporter.PointReader
    /// The metrics pass's parameters per device.
    private let settings: MetricsSettings.Cache

    init(exporter: Exporter) throws {
        self.exporter = exporter
        reader = try Exporter.PointReader(exporter.store, zones: exporter.privacyZones)
        settings = MetricsSettings.Cache(exporter.store)
    }

    /// The trip's metres on each local day (days since 1970-01-01) it touches; they add up to the trip's distance
    /// (its legs', `legs` in time order; the trip's own span and distance when it has none).
    mutating func shares(_ t: TripRow, legs given: [(start: Int64, end: Int64, metres: Double)]) throws -> [Int: Double] {
        var legs = given.filter { $0.metres.isFinite }
        if legs.isEmpty { legs = [(t.startMs, t.endMs, t.distanceM)] }
        var out: [Int: Double] = [:]
        // The leg's start offset when no fix is read: the trip's recorded one, else the zone's.
        let startOffset = exporter.localTime.offset(t.startUTCOffset, atMs: t.startMs) ?? .utc
        if t.source == "app" {
            // A leg that ends the trip at another offset (a flight) on the local clock moving from the one to the
            // other, as the timeline pass spreads it.
            let endOffset = exporter.localTime.offset(t.endUTCOffset, atMs: t.endMs) ?? startOffset
            for l in legs {
                if l.end == t.endMs && endOffset != startOffset && l.end > l.start {
                    for (d, share) in UTCOffset.dayShares(startMs: l.start, endMs: l.end, start: startOffset, end: endOffset) {
                        out[d, default: 0] += l.metres * share
                    }
                } else {
                    byTime(l.start, l.end, l.metres, offset: startOffset, into: &out)
                }
            }
            return out
        }
        let p = try settings.of(device: t.deviceID)
        // The trip's fixes as the metrics pass finds them from its times (``TripsPass/interior``): after the departure
        // fix when it left a visit, before the arrival fix when it reached one; kept ones only.
        var time: [Int64] = [], lat: [Double] = [], lon: [Double] = [], day: [Int] = [], accuracy: [Double] = []
        var offsets: [UTCOffset] = []
        // Every fix read, kept or not: where each leg no fix saw began (its offset, as the metrics pass finds it).
        var every: [(time: Int64, lat: Double, lon: Double, offset: UTCOffset?)] = []
        var local = exporter.localTime
        try reader.read(device: t.deviceID, startMs: t.startMs, endMs: t.endMs) { s, ms, flags in
            let recorded = PointRangeReader.Column.recordedOffset(s)
            let y = s.double(PointRangeReader.Column.lat), x = s.double(PointRangeReader.Column.lon)
            every.append((ms, y, x, recorded))
            if t.fromVisitID != nil && ms == t.startMs { return }
            if t.toVisitID != nil && ms == t.endMs { return }
            guard flags == 0 else { return }
            time.append(ms)
            lat.append(y)
            lon.append(x)
            let a = s.double(PointRangeReader.Column.accuracy)
            accuracy.append(a.isFinite ? a : .nan)
            let offset = local.offset(recorded, atMs: ms, latitude: y, longitude: x)
            offsets.append(offset)
            day.append(LocalTime.day(ms: ms, offset: offset))
        }
        // Straight-line increments per leg and day (MetricsPass.increments, the distance part).
        var perLeg = [[Int: Double]](repeating: [:], count: legs.count)
        if var anchor = time.indices.first {
            var latRef = lat[anchor], cosLat = Geo.cosLatitude(latRef)
            var leg = 0
            let bridgeMs = Int64(p.bridgeMaxS * 1000)
            for i in time.indices.dropFirst() {
                while leg + 1 < legs.count && time[i] > legs[leg].end { leg += 1 }
                if time[i] - time[i - 1] > bridgeMs {
                    anchor = i
                    let line = Geo.distance(lat[i - 1], lon[i - 1], lat[i], lon[i])
                    let crossed = TrackMotion.crossedSilence(
                        seconds: Double(time[i] - time[i - 1]) / 1000, accuracyBefore: accuracy[i - 1], accuracy: accuracy[i], bridgeMaxS: p.bridgeMaxS,
                        splitGapS: p.splitGapS, minPaceMps: p.movingMps) { line }
                    if crossed { spread(time[i - 1], time[i], line, offsets[i - 1], offsets[i], into: &perLeg[leg]) }
                    continue
                }
                if abs(lat[i] - latRef) > 0.2 {
                    latRef = lat[i]
                    cosLat = Geo.cosLatitude(latRef)
                }
                let d = Geo.fastDistance(lat[anchor], lon[anchor], lat[i], lon[i], cosLat: cosLat)
                guard d >= p.minStepM else { continue }
                anchor = i
                if time[i - 1] < (Int64(day[i]) * 86_400 - Int64(offsets[i].seconds64)) * 1000 {
                    // A local midnight between the two fixes: by time over the days between them.
                    spread(time[i - 1], time[i], d, offsets[i - 1], offsets[i], into: &perLeg[leg])
                } else {
                    perLeg[leg][day[i], default: 0] += d
                }
            }
        }
        for (n, l) in legs.enumerated() where l.metres > 0 {
            let line = perLeg[n].values.reduce(0, +)
            if line > 0 {
                for (d, part) in perLeg[n] { out[d, default: 0] += l.metres * part / line }
                continue
            }
            // Midnights at the offset where the leg began (``MetricsPass/tally``): that of the fix taken then, else
            // the zone's then at the first fix at or after it; the trip's start offset when the trip has no such fix.
            var offset = startOffset
            var low = 0, high = every.count
            while low < high {
                let mid = (low + high) / 2
                if every[mid].time < l.start { low = mid + 1 } else { high = mid }
            }
            if low < every.count {
                let f = every[low]
                offset = local.offset(f.time == l.start ? f.offset : nil, atMs: l.start, latitude: f.lat, longitude: f.lon)
            }
            // Where it ended: the fix taken then, else the zone's then at the last fix before it.
            var endOffset = offset
            if l.end > l.start, !every.isEmpty {
                var k = low
                while k < every.count && every[k].time < l.end { k += 1 }
                if k >= every.count || every[k].time != l.end { k -= 1 }
                let f = every[min(max(k, 0), every.count - 1)]
                endOffset = local.offset(f.time == l.end ? f.offset : nil, atMs: l.end, latitude: f.lat, longitude: f.lon)
            }
            if endOffset != offset {
                for (d, share) in UTCOffset.dayShares(startMs: l.start, endMs: l.end, start: offset, end: endOffset) { out[d, default: 0] += l.metres * share }
                continue
            }
            byTime(l.start, l.end, l.metres, offset: offset, into: &out)
        }
        return out
    }

    /// Spreads `amount` over `start ..< end` by time on each local day, midnights at `offset`, or where it ends at
    /// another offset (`end`), on the local clock moving evenly from the one to the other.
    func spread(_ start: Int64, _ end: Int64, _ amount: Double, _ offset: UTCOffset, _ endOffset: UTCOffset, into sums: inout [Int: Double]) {
        guard endOffset != offset, end > start else { return byTime(start, end, amount, offset: offset, into: &sums) }
        for (d, share) in UTCOffset.dayShares(startMs: start, endMs: end, start: offset, end: endOffset) { sums[d, default: 0] += amount * share }
    }

    /// Spreads `amount` over `start ..< end` by time on each local day, midnights at `offset`.
    func byTime(_ start: Int64, _ end: Int64, _ amount: Double, offset: UTCOffset, into sums: inout [Int: Double]) {
        let first = LocalTime.day(ms: start, offset: offset), last = LocalTime.day(ms: max(start, end - 1), offset: offset)
        if first == last || end <= start {
            sums[first, default: 0] += amount
            return
        }
        var from = start
        for d in first...last {
            let midnight = d == last ? end : Int64(d + 1) * 86_400_000 - Int64(offset.seconds64) * 1000
            let to = min(max(midnight, from), end)
            sums[d, default: 0] += amount * Double(to - from) / Double(end - start)
            from = to
        }
    }
}
