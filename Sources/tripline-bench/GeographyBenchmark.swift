// Geography benchmark: ns per lookup of time zone, country and nearest place; optional accuracy check.
import TriplineCore
import TriplineGeography
import TriplineImport

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `tripline-bench geography [--points N] [--check FILE] [--only LABEL-PREFIX] [--at LAT,LON]`
///
/// Builds N (default 1,000,000) query points, land-biased and deterministic: 80 % are a GeoNames place (taken from
/// `nearestPlace` of a uniform random point) moved by up to ±0.5°, 20 % uniform on the sphere. Times first use of each
/// table (the lazy load), then each lookup over all points, best of 3 runs, single thread, and prints ns per lookup.
///
/// `--check FILE` reads the CSV that `scripts/build-geography.py --check-csv FILE` writes (every GeoNames place
/// ≥ 1000 people with the zone of the unsimplified timezone-boundary-builder polygons and GeoNames' country code) and
/// prints how often the embedded tables agree, with examples of disagreement.
enum GeographyBenchmark {
    static func run(_ args: [String]) throws {
        var count = 1_000_000
        var check: String?
        var only: String?
        var options = BenchOptions(args)
        while let option = options.next() {
            switch option {
            case "--points": count = options.value(or: count)
            case "--check": check = options.value()
            case "--only": only = options.value()
            case "--at":
                // Print every lookup for one point and stop: `--at 52.52,13.405`.
                let parts = options.value()?.split(separator: ",").compactMap { Double($0) } ?? []
                guard parts.count == 2 else { print("--at LAT,LON"); exit(64) }
                describe(parts[0], parts[1])
                return
            default: print("unknown option \(option)"); exit(64)
            }
        }
        // First use of each table, in a fresh process: what the lazy load costs.
        var t = Clock.monotonic()
        _ = Geography.zoneID(latitude: 52.52, longitude: 13.405)
        print("first use: zones \(ms(Clock.monotonic() - t))", terminator: "")
        t = Clock.monotonic()
        _ = Geography.country(latitude: 52.52, longitude: 13.405)
        print(", countries \(ms(Clock.monotonic() - t))", terminator: "")
        t = Clock.monotonic()
        _ = Geography.nearestPlace(latitude: 52.52, longitude: 13.405)
        print(", places \(ms(Clock.monotonic() - t))", terminator: "")
        t = Clock.monotonic()
        _ = Geography.baseLayer(.borders, detail: .low, in: GeoBox(minLatitude: 0, minLongitude: 0, maxLatitude: 1, maxLongitude: 1))
        print(", base layer \(ms(Clock.monotonic() - t))")

        let (lats, lons) = points(count)
        print("\(count) points (80 % within ±0.5° of a GeoNames place, 20 % uniform), best of 3, one thread; load average \(loadAverage()):")
        measure("zoneID (no String)", lats, lons, only: only) { la, lo in Int(Geography.zoneID(latitude: la, longitude: lo)?.raw ?? 0) }
        measure("zone (String name)", lats, lons, only: only) { la, lo in Geography.zone(latitude: la, longitude: lo)?.utf8.count ?? 0 }
        measure("country", lats, lons, only: only) { la, lo in Geography.country(latitude: la, longitude: lo)?.name.utf8.count ?? 0 }
        measure("nearestPlace", lats, lons, only: only) { la, lo in
            Int(Geography.nearestPlace(latitude: la, longitude: lo)?.distanceMeters ?? 0)
        }
        measure("nearestPlace ≥ 50k", lats, lons, only: only) { la, lo in
            Int(Geography.nearestPlace(latitude: la, longitude: lo, minimumPopulation: 50_000)?.distanceMeters ?? 0)
        }
        var box = 0
        t = Clock.monotonic()
        for k in 0..<1000 {
            let la = lats[k] - 1, lo = lons[k] - 1.5
            let b = GeoBox(minLatitude: la, minLongitude: lo, maxLatitude: la + 2, maxLongitude: lo + 3)
            for kind in BaseLayerKind.allCases { box &+= Geography.baseLayer(kind, detail: .high, in: b).count }
        }
        print("baseLayer, \(BaseLayerKind.allCases.count) layers, high detail, 2° × 3° box: \(fixed((Clock.monotonic() - t) / 1000 * 1e6, 1)) µs per box (\(box) shapes)")
        if let check { try accuracy(check) }
    }

    static func describe(_ la: Double, _ lo: Double) {
        print("zone: \(Geography.zone(latitude: la, longitude: lo) ?? "nil")")
        if let c = Geography.country(latitude: la, longitude: lo) { print("country: \(c.code ?? "-") \(c.name)") } else { print("country: nil") }
        for minimum in [0, 50_000] {
            if let p = Geography.nearestPlace(latitude: la, longitude: lo, minimumPopulation: minimum) {
                print("nearest place (population ≥ \(max(minimum, 1000))): \(p.name), \(p.admin1 ?? "-"), \(p.countryCode), population \(p.population), \(fixed(p.distanceMeters / 1000, 2)) km")
            }
        }
    }

    static func measure(_ label: String, _ lats: [Double], _ lons: [Double], only: String?,
                        _ body: (Double, Double) -> Int) {
        if let only, !label.hasPrefix(only) { return }
        var best = Double.infinity, bestCPU = Double.infinity
        var sink = 0
        for _ in 0..<3 {
            let started = Clock.monotonic(), cpu = threadCPUSeconds()
            for k in 0..<lats.count { sink &+= body(lats[k], lons[k]) }
            best = min(best, Clock.monotonic() - started)
            bestCPU = min(bestCPU, threadCPUSeconds() - cpu)
        }
        let n = Double(lats.count)
        print("  \(label.padding(20)) \(fixed(best / n * 1e9, 1)) ns wall, \(fixed(bestCPU / n * 1e9, 1)) ns CPU per lookup   (checksum \(sink))")
    }

    /// Deterministic land-biased points (a 64-bit LCG, the same every run).
    static func points(_ n: Int) -> ([Double], [Double]) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        func uniform() -> (Double, Double) { (asin(2 * next() - 1) * 180 / .pi, next() * 360 - 180) }
        // 4096 anchor places, then jittered copies.
        var anchors: [(Double, Double)] = []
        while anchors.count < 4096 {
            let (la, lo) = uniform()
            if let p = Geography.nearestPlace(latitude: la, longitude: lo) { anchors.append((p.location.latitude, p.location.longitude)) }
        }
        var lats: [Double] = [], lons: [Double] = []
        lats.reserveCapacity(n)
        lons.reserveCapacity(n)
        for _ in 0..<n {
            if next() < 0.8 {
                let a = anchors[Int(next() * 4096) & 4095]
                lats.append(max(-90, min(90, a.0 + next() - 0.5)))
                var lo = a.1 + next() - 0.5
                if lo > 180 { lo -= 360 }
                if lo < -180 { lo += 360 }
                lons.append(lo)
            } else {
                let (la, lo) = uniform()
                lats.append(la)
                lons.append(lo)
            }
        }
        return (lats, lons)
    }

    static func accuracy(_ path: String) throws {
        guard let file = fopen(path, "r") else { print("cannot open \(path)"); exit(1) }
        defer { fclose(file) }
        var zoneTotal = 0, zoneSame = 0, countryTotal = 0, countrySame = 0, countryNil = 0, geonamesZoneSame = 0
        var zoneExamples: [String] = [], countryExamples: [String] = []
        var zonePairs: [String: Int] = [:], countryPairs: [String: Int] = [:]
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        _ = getline(&line, &capacity, file)  // header
        while getline(&line, &capacity, file) > 0, let line {
            let fields = String(decoding: UnsafeRawBufferPointer(start: line, count: strlen(line)), as: UTF8.self)
                .split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != "\n" }) }
            guard fields.count >= 5, let la = Double(fields[0]), let lo = Double(fields[1]) else { continue }
            let zone = Geography.zone(latitude: la, longitude: lo) ?? ""
            if !fields[2].isEmpty {
                zoneTotal += 1
                if zone == fields[2] {
                    zoneSame += 1
                } else {
                    zonePairs["\(zone) for \(fields[2])", default: 0] += 1
                    if zoneExamples.count < 5 { zoneExamples.append("\(fields[0]),\(fields[1]): \(zone) (exact: \(fields[2]))") }
                }
                if zone == fields[4] { geonamesZoneSame += 1 }
            }
            if !fields[3].isEmpty {
                countryTotal += 1
                let code = Geography.country(latitude: la, longitude: lo)?.code
                if code == fields[3] {
                    countrySame += 1
                } else if code == nil {
                    countryNil += 1
                } else {
                    countryPairs["\(code ?? "-") for \(fields[3])", default: 0] += 1
                    if countryExamples.count < 5 { countryExamples.append("\(fields[0]),\(fields[1]): \(code ?? "-") (GeoNames: \(fields[3]))") }
                }
            }
        }
        print("accuracy on \(zoneTotal) GeoNames places:")
        print("  zone = unsimplified timezone-boundary-builder zone: \(zoneSame) (\(fixed(100 * Double(zoneSame) / Double(max(zoneTotal, 1)), 3)) %)")
        print("  zone = GeoNames' own zone of the place:          \(geonamesZoneSame) (\(fixed(100 * Double(geonamesZoneSame) / Double(max(zoneTotal, 1)), 3)) %)")
        print("  country = GeoNames country code: \(countrySame) of \(countryTotal) (\(fixed(100 * Double(countrySame) / Double(max(countryTotal, 1)), 3)) %); no country (sea by Natural Earth): \(countryNil)")
        for e in zoneExamples { print("    zone differs: \(e)") }
        let topZones = zonePairs.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(15)
        print("    most frequent zone differences: " + topZones.map { "\($0.key) ×\($0.value)" }.joined(separator: "; "))
        for e in countryExamples { print("    country differs: \(e)") }
        let topCountries = countryPairs.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(15)
        print("    most frequent country differences: " + topCountries.map { "\($0.key) ×\($0.value)" }.joined(separator: "; "))
    }

    static func loadAverage() -> String {
        var l = [0.0, 0.0, 0.0]
        return getloadavg(&l, 3) == 3 ? "\(fixed(l[0], 2))" : "?"
    }

    static func ms(_ seconds: Double) -> String { fixed(seconds * 1000, 2) + " ms" }

}

extension String {
    fileprivate func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
