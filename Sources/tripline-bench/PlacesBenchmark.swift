// Is one place one place (issue 29 item 1, docs/PASSES.md "places"): the rebuilt places against Google's place ids
// and against the simulator's truth places.
// `swift run -c release tripline-bench places [--corpus PATH]... [--seeds A-B] [--days N] [--people N] [--set pass.key=v]...
//  [--profiles P,...] [--details] [--keep DIR]` (`--keep`: each simulated database and its truth.json stay in DIR/<n>/).
// Each `--corpus` path (a Google export, a folder of them) is imported alone into a fresh database and rebuilt; its
// Google visits (place id, time) are the reference. Each seed is simulated in the four profiles (truth places the
// reference) and as a Google Takeout (`Records.json` fixes every 30 s and Semantic Location History with the truth
// places' ids, imported into one device per person, as a phone's Takeout is).
import TriplineCore
import TriplineStore
import TriplineImport
import TriplinePasses
import TriplineSimulator
import TriplineEvaluation

enum PlacesBenchmark {
    static func run(_ args: [String]) throws {
        var corpus: [String] = []
        var seeds: ClosedRange<UInt64> = 1...10
        var days = 28
        var people = 2
        var settings = PassSettings()
        var details = false
        var profiles = SimulationProfile.allCases.map(\.rawValue)
        var takeout = true
        var keep: String? = nil
        var k = 0
        func value() throws -> String {
            k += 1
            guard k < args.count else { throw BenchmarkFailure("\(args[k - 1]) needs a value") }
            return args[k]
        }
        while k < args.count {
            switch args[k] {
            case "--corpus": corpus.append(try value())
            case "--seeds":
                let v = try value()
                let parts = v.split(separator: "-").compactMap { UInt64($0) }
                guard parts.count == 1 || parts.count == 2, parts.first! <= parts.last! else { throw BenchmarkFailure("--seeds A-B, not \(v)") }
                seeds = parts.first!...parts.last!
            case "--days": days = Int(try value()) ?? days
            case "--people": people = Int(try value()) ?? people
            case "--set": try settings.set(try value(), origin: "--set")
            case "--details": details = true
            case "--keep": keep = try value()
            case "--profiles":
                let v = try value()
                profiles = v.split(separator: ",").map(String.init).filter { $0 != "takeout" }
                takeout = v.split(separator: ",").contains("takeout")
            default: throw BenchmarkFailure("unknown option \(args[k])")
            }
            k += 1
        }
        // `--keep DIR`: each simulated database is left in DIR/<seed>-<profile>/ with its truth.json, for a closer look.
        let work = try keep ?? FileSystem.temporaryDirectory(prefix: "tripline-bench-places")
        if keep != nil { try FileSystem.createDirectory(work) }
        defer { if keep == nil { FileSystem.removeTree(work) } }
        var n = 0
        func fresh() throws -> (String, Store) {
            n += 1
            let dir = work + "/\(n)"
            try FileSystem.createDirectory(dir)
            return (dir, try Store(path: dir + "/t.sqlite"))
        }
        func rebuild(_ store: Store, zone: String?) throws {
            var options = Rebuild.Options()
            options.settings = settings
            options.timeZoneName = zone
            _ = try Rebuild(store: store, options: options).run()
        }

        var googleTotal = PlaceAgreement(), crowdTotal = PlaceCrowding()
        for path in corpus {
            let (_, store) = try fresh()
            _ = try Importer(store: store).importPaths([path])
            try rebuild(store, zone: nil)
            let a = try PlaceAgreement.againstGoogle(store: store), c = try PlaceCrowding.of(store: store)
            googleTotal = googleTotal + a
            crowdTotal = crowdTotal + c
            print("\(path)\n  google: \(a)\n  \(c)")
        }
        if !corpus.isEmpty { print("corpus total\n  google: \(googleTotal)\n  \(crowdTotal)") }

        var profileTotals: [String: (PlaceAgreement, PlaceCrowding, PlaceAgreement)] = [:]
        var takeoutGoogle = PlaceAgreement(), takeoutTruth = PlaceAgreement(), takeoutCrowd = PlaceCrowding()
        for seed in seeds {
            for profile in SimulationProfile.allCases where profiles.contains(profile.rawValue) {
                var config = SimulatorConfig(seed: seed, days: days, people: people)
                config.profile = profile
                let result = Simulator(config: config).run()
                let (dir, store) = try fresh()
                if keep != nil { try FileSystem.write(SimulationWriter.truthJSON(result), to: dir + "/truth.json"); print("kept \(dir): seed \(seed) \(profile.rawValue)") }
                _ = try SimulationEvaluation.load(result, into: store)
                try rebuild(store, zone: result.truth.timeZoneName)
                let a = try PlaceAgreement.againstTruth(result.truth, store: store), c = try PlaceCrowding.of(store: store)
                let r = try PlaceAgreement.againstTruth(result.truth, store: store, recorded: true)
                let t = profileTotals[profile.rawValue] ?? (PlaceAgreement(), PlaceCrowding(), PlaceAgreement())
                profileTotals[profile.rawValue] = (t.0 + a, t.1 + c, t.2 + r)
                print("seed \(seed) \(profile.rawValue)\n  truth: \(a)\n  recorded: \(r)\n  \(c)")
                if details { try PlaceLosses.print(result.truth, store: store) }
            }
            guard takeout else { continue }
            // The same people's Google Takeout: fixes every 30 s and Google's visits with the truth places' ids.
            let result = Simulator(config: SimulatorConfig(seed: seed, days: days, people: people)).run()
            let (dir, store) = try fresh()
            for device in result.devices {
                let folder = dir + "/" + device.name
                try TakeoutWriter.write(result, device: device, layout: .records, to: folder)
                try TakeoutWriter.write(result, device: device, layout: .semantic, to: folder)
                _ = try Importer(store: store, options: ImportOptions(device: device.name)).importPaths([folder])
            }
            try rebuild(store, zone: result.truth.timeZoneName)
            let g = try PlaceAgreement.againstGoogle(store: store), t = try PlaceAgreement.againstTruth(result.truth, store: store)
            let c = try PlaceCrowding.of(store: store)
            takeoutGoogle = takeoutGoogle + g
            takeoutTruth = takeoutTruth + t
            takeoutCrowd = takeoutCrowd + c
            print("seed \(seed) takeout\n  google: \(g)\n  truth: \(t)\n  \(c)")
        }
        print("simulated, seeds \(seeds.lowerBound)-\(seeds.upperBound), \(days) days, \(people) people")
        for profile in SimulationProfile.allCases where profiles.contains(profile.rawValue) {
            guard let t = profileTotals[profile.rawValue] else { continue }
            print("  \(profile.rawValue): truth: \(t.0); \(t.1)\n    recorded stays only: \(t.2)")
        }
        print("  takeout: google: \(takeoutGoogle); truth: \(takeoutTruth); \(takeoutCrowd)")
    }
}

/// Where purity and completeness are lost (`--details`): every true stay (5 minutes or more) whose rebuilt visit is
/// not in its true place's most frequent rebuilt place, or whose rebuilt place is mostly another true place's, with
/// what the rebuilt visit is: which true stays it overlaps (kind, seconds), its fixes, radius and distance from the
/// true place; `hidden` marks a true stay that the recorded-stays score leaves out (``Observability/hidden``).
enum PlaceLosses {
    static func print(_ truth: SimulationTruth, store: Store) throws {
        let places = Dictionary(uniqueKeysWithValues: truth.places.map { ($0.id, $0) })
        let names = try store.deviceNames()
        for name in Set(truth.stays.map(\.device)).sorted() {
            guard let device = names.first(where: { $0.value == name })?.key else { continue }
            let all = truth.stays.filter { $0.device == name }
            let reference = all.filter { $0.durationS >= 300 }
            let visits = try store.visits(device: device).filter { $0.placeID != nil }
            let records = try store.recordTimes(device: device).sorted()
            let silences = Observability.hidden(trips: truth.trips.filter { $0.device == name }, stays: all, records: records).silences
            func hidden(_ s: TruthStay) -> Bool { silences.contains { $0.0 < s.startMs && $0.1 > s.endMs } }
            func match(_ r: TruthStay) -> VisitRow? {
                var best: (Int64, VisitRow)? = nil
                for v in visits {
                    let o = min(v.endMs, r.endMs) - max(v.startMs, r.startMs)
                    if o > 0 && (best == nil || o > best!.0) { best = (o, v) }
                }
                return best?.1
            }
            var table: [Int: [Int64: Int]] = [:]
            var matched: [(TruthStay, VisitRow)] = []
            for r in reference {
                guard let v = match(r) else { continue }
                matched.append((r, v))
                table[r.placeID, default: [:]][v.placeID!, default: 0] += 1
            }
            var byPlace: [Int64: [Int: Int]] = [:]
            for (ref, row) in table { for (p, c) in row { byPlace[p, default: [:]][ref] = c } }
            func top<K: Comparable>(_ row: [K: Int]) -> K { row.max { ($0.value, $1.key) < ($1.value, $0.key) }!.key }
            for (r, v) in matched {
                let incomplete = top(table[r.placeID]!) != v.placeID!
                let impure = top(byPlace[v.placeID!]!) != r.placeID
                guard incomplete || impure else { continue }
                let tp = places[r.placeID]!
                let overlaps = all.filter { min($0.endMs, v.endMs) - max($0.startMs, v.startMs) > 0 }
                    .map { "\(places[$0.placeID]!.kind) \((min($0.endMs, v.endMs) - max($0.startMs, v.startMs)) / 1000)s" }
                let home = byPlace[v.placeID!]!.map { "\(places[$0.key]!.kind)×\($0.value)" }.sorted().joined(separator: " ")
                let mark = (hidden(r) ? "hidden " : "") + (incomplete ? "incomplete" : "")
                Swift.print("  \(mark)\(incomplete && impure ? "+" : "")\(impure ? "impure" : "") \(name) true \(tp.kind) \(Int(r.durationS))s"
                    + " | visit \((v.endMs - v.startMs) / 1000)s pts \(v.points) r \(Int(v.radiusM)) d \(Int(Geo.distance(v.lat, v.lon, tp.lat, tp.lon)))m"
                    + " overlaps [\(overlaps.joined(separator: ", "))] | place holds [\(home)]")
            }
        }
    }
}
