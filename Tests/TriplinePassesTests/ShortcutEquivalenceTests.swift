import Testing
@testable import TriplineCore
@testable import TriplinePasses
import TriplineGeography

/// The rebuild's shortcuts give what the rules written plainly give, to the bit: the trips pass's highest speed skips
/// the haversine of a chord that cannot beat it (``TripsPass/maxSpeed(_:_:)``), and the clean pass's source rule keeps
/// each source's last fixes in one flat array and accepts the next fix of a track without a cosine
/// (``CleanPass/sources(_:_:_:)``). The plain rules are written out below as they were before the shortcuts; the tracks
/// are random, where the bounds are tightest (the equator crossed, near a pole, across the antimeridian, fixes apart).
@Suite struct ShortcutEquivalenceTests {
    /// A random track of `n` fixes from (`lat`, `lon`): steps of up to `stepM` metres every 1–30 s (some 0 s apart, as
    /// duplicates are), some with a reported speed (the highest speed starts from them), some with none.
    static func track(_ rng: inout SplitMix64, n: Int, lat: Double, lon: Double, stepM: Double, speeds: Bool) -> DeviceWork {
        let w = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
        var t: Int64 = 1_717_200_000_000, la = lat, lo = lon
        for _ in 0..<n {
            w.time.append(t)
            w.lat.append(la)
            w.lon.append(lo)
            w.accuracy.append(rng.chance(0.2) ? .nan : rng.uniform(3, 300))
            w.speed.append(speeds && rng.chance(0.5) ? rng.uniform(0, stepM / 10) : .nan)
            t += rng.chance(0.05) ? 0 : Int64(rng.uniform(1, 30) * 1000)
            let d = rng.uniform(0, stepM) / Geo.metresPerDegree, bearing = rng.uniform(0, 360)  // degrees
            la = min(90, max(-90, la + d * Geo.cosLatitude(bearing)))
            lo += d * Geo.cosLatitude(bearing - 90) / max(0.01, Geo.cosLatitude(la))
            if lo > 180 { lo -= 360 } else if lo < -180 { lo += 360 }
        }
        w.offset = [Int32](repeating: 0, count: n)
        w.motion = [UInt8](repeating: 0, count: n)
        w.tripMode = [UInt16](repeating: 0, count: n)
        w.flags = [UInt8](repeating: 0, count: n)
        w.flagsLoaded = true
        return w
    }

    /// ``TripsPass/maxSpeed(_:_:)`` as written before the shortcut: every chord's haversine.
    static func plainMaxSpeed(_ w: DeviceWork, _ pts: [Int]) -> Double? {
        var best = -1.0
        // The reported speeds that hold (``TripsPass/reportedSpeedHolds``, tested on its own), every one of them.
        for (k, i) in pts.enumerated() where !w.speed[i].isNaN && w.speed[i] >= 0 && TripsPass.reportedSpeedHolds(k, pts, w.time, w.lat, w.lon, w.speed) {
            best = max(best, w.speed[i])
        }
        let m = pts.count
        guard m >= 2 else { return best >= 0 ? best : nil }
        var b = 1
        for a in 0..<(m - 1) {
            if b <= a { b = a + 1 }
            while b < m - 1 && w.time[pts[b]] - w.time[pts[a]] < 10_000 { b += 1 }
            let ms = w.time[pts[b]] - w.time[pts[a]]
            guard ms >= 10_000 || (a == 0 && b == m - 1 && ms > 0) else { continue }
            best = max(best, Geo.distance(w.lat[pts[a]], w.lon[pts[a]], w.lat[pts[b]], w.lon[pts[b]]) / (Double(ms) / 1000))
        }
        return best >= 0 ? best : nil
    }

    /// ``CleanPass/sources(_:_:_:)`` as written before the shortcut: an array of last fixes per source, the
    /// cosine in every bound.
    static func plainSources(_ w: DeviceWork, _ kept: [Int], _ p: CleanPass.Parameters) -> [Int32] {
        func reachable(_ a: Int, _ b: Int) -> Bool {
            let seconds = max(0.001, Double(w.time[b] - w.time[a]) / 1000)
            let ra = w.accuracy[a].isNaN ? p.unknownAccuracyM : w.accuracy[a], rb = w.accuracy[b].isNaN ? p.unknownAccuracyM : w.accuracy[b]
            let reach = p.maxMps * seconds + ra + rb
            let dLat = abs(w.lat[b] - w.lat[a]) * 111_195
            if dLat > reach { return false }
            let dLon = abs(w.lon[b] - w.lon[a])
            if dLon < 180 && (dLat + dLon * 111_195 * Geo.cosLatitude(w.lat[a])) * 1.0001 <= reach { return true }
            return Geo.distance(w.lat[a], w.lon[a], w.lat[b], w.lon[b]) <= reach
        }
        var source = [Int32](repeating: 0, count: kept.count)
        var recent: [[Int]] = []
        var active: [Int] = []
        for (k, i) in kept.enumerated() {
            var best = -1, bestD = Double.infinity
            if active.count == 1 {
                if recent[active[0]].reversed().contains(where: { reachable($0, i) }) { best = active[0] }
            } else {
                for s in active.reversed() {
                    for j in recent[s].reversed() where reachable(j, i) {
                        let d = Geo.distance(w.lat[j], w.lon[j], w.lat[i], w.lon[i])
                        if d < bestD { (best, bestD) = (s, d) }
                    }
                }
            }
            if best < 0 {
                best = recent.count
                recent.append([i])
                active.append(best)
                if active.count > CleanPass.activeSources { active.removeFirst() }
            } else {
                recent[best].append(i)
                if recent[best].count > CleanPass.sourceMemory { recent[best].removeFirst() }
                if active.last != best {
                    active.removeAll { $0 == best }
                    active.append(best)
                }
            }
            source[k] = Int32(best)
        }
        return source
    }

    /// Where the tracks start: Berlin, on the equator, near the north pole, at the antimeridian, far south.
    static let starts: [(Double, Double)] = [(52.52, 13.405), (0.0005, 30), (-0.001, -60), (89.95, 10), (-12, 179.999), (-89.9, 0)]

    @Test func theHighestSpeedIsThatOfEveryChord() {
        var rng = SplitMix64(seed: 7)
        var compared = 0
        for (lat, lon) in Self.starts {
            for stepM in [5.0, 60, 400, 30_000, 3_000_000] {
                for speeds in [false, true] {
                    let w = Self.track(&rng, n: 400, lat: lat, lon: lon, stepM: stepM, speeds: speeds)
                    // The whole track, a piece, every other fix, two fixes, one.
                    for pts in [Array(0..<400), Array(50..<90), Array(stride(from: 0, to: 400, by: 2)), [3, 4], [7]] {
                        let fast = TripsPass.maxSpeed(w, pts), plain = Self.plainMaxSpeed(w, pts)
                        #expect(fast == plain, "start \(lat), \(lon), step \(stepM) m, speeds \(speeds), \(pts.count) fixes")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == Self.starts.count * 5 * 2 * 5)
    }

    @Test func theSourcesAreThoseOfTheRuleWrittenPlainly() {
        var rng = SplitMix64(seed: 11)
        for (lat, lon) in Self.starts {
            for stepM in [5.0, 400, 30_000] {
                // One track, then two phones far apart writing one file (their fixes interleaved), then lone fixes on
                // other continents in between.
                let a = Self.track(&rng, n: 300, lat: lat, lon: lon, stepM: stepM, speeds: false)
                let b = Self.track(&rng, n: 300, lat: -lat / 2, lon: lon > 0 ? lon - 120 : lon + 120, stepM: stepM, speeds: false)
                let mixed = DeviceWork(deviceID: 1, deviceKey: testDeviceKey, fromMs: 0, toMs: Int64.max, processFromMs: 0, zones: LocalZones())
                var ka = 0, kb = 0
                while ka < 300 || kb < 300 {
                    let fromA = kb >= 300 || (ka < 300 && (rng.chance(0.6) || a.time[ka] <= b.time[kb]))
                    let (src, k) = fromA ? (a, ka) : (b, kb)
                    mixed.time.append(max(src.time[k], mixed.time.last ?? 0))
                    if rng.chance(0.01) {
                        mixed.lat.append(rng.uniform(-80, 80))
                        mixed.lon.append(rng.uniform(-180, 180))
                    } else {
                        mixed.lat.append(src.lat[k])
                        mixed.lon.append(src.lon[k])
                    }
                    mixed.accuracy.append(src.accuracy[k])
                    if fromA { ka += 1 } else { kb += 1 }
                }
                for w in [a, mixed] {
                    var slow = CleanPass.Parameters()
                    slow.maxMps = 5
                    for p in [CleanPass.Parameters(), slow] {
                        let kept = Array(0..<w.count)
                        let fast = CleanPass.sources(w, kept, p), plain = Self.plainSources(w, kept, p)
                        #expect(fast == plain, "start \(lat), \(lon), step \(stepM) m, \(w.count) fixes, max_mps \(p.maxMps)")
                        if w === mixed && p.maxMps > 5 { #expect(Set(fast).count >= 2) }  // the interleaved sources were told apart
                    }
                }
            }
        }
    }
}
