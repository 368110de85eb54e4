// Is one place one place (issue 29 item 1, docs/PASSES.md "places"): the rebuilt places against Google's place ids
// and against the simulator's truth places.
// `swift run -c release tripline-bench places [--corpus PATH]... [--seeds A-B] [--days N] [--people N] [--set pass.key=v]...`
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
            default: throw BenchmarkFailure("unknown option \(args[k])")
            }
            k += 1
        }
        let work = try FileSystem.temporaryDirectory(prefix: "tripline-bench-places")
        defer { FileSystem.removeTree(work) }
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

        var profileTotals: [String: (PlaceAgreement, PlaceCrowding)] = [:]
        var takeoutGoogle = PlaceAgreement(), takeoutTruth = PlaceAgreement(), takeoutCrowd = PlaceCrowding()
        for seed in seeds {
            for profile in SimulationProfile.allCases {
                var config = SimulatorConfig(seed: seed, days: days, people: people)
                config.profile = profile
                let result = Simulator(config: config).run()
                let (_, store) = try fresh()
                _ = try SimulationEvaluation.load(result, into: store)
                try rebuild(store, zone: result.truth.timeZoneName)
                let a = try PlaceAgreement.againstTruth(result.truth, store: store), c = try PlaceCrowding.of(store: store)
                let t = profileTotals[profile.rawValue] ?? (PlaceAgreement(), PlaceCrowding())
                profileTotals[profile.rawValue] = (t.0 + a, t.1 + c)
                print("seed \(seed) \(profile.rawValue)\n  truth: \(a)\n  \(c)")
            }
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
        for profile in SimulationProfile.allCases {
            guard let t = profileTotals[profile.rawValue] else { continue }
            print("  \(profile.rawValue): truth: \(t.0); \(t.1)")
        }
        print("  takeout: google: \(takeoutGoogle); truth: \(takeoutTruth); \(takeoutCrowd)")
    }
}
