import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineSimulator
import TriplineTestSupport

@Suite struct SimulatorTests {
    @Test func sameSeedSameOutputDifferentSeedDifferent() {
        let a = Simulator(config: SimulatorConfig(seed: 5, days: 2, people: 2)).run()
        let b = Simulator(config: SimulatorConfig(seed: 5, days: 2, people: 2)).run()
        let c = Simulator(config: SimulatorConfig(seed: 6, days: 2, people: 2)).run()
        #expect(a.devices.map(\.points) == b.devices.map(\.points))
        #expect(SimulationWriter.truthJSON(a) == SimulationWriter.truthJSON(b))
        #expect(a.devices.map(\.points) != c.devices.map(\.points))
    }

    @Test func truthIsConsistent() {
        let r = Simulator(config: SimulatorConfig(seed: 11, days: 9, people: 2)).run()
        for device in r.devices {
            let times = device.points.map(\.timeMs)
            #expect(times == times.sorted() && Set(times).count == times.count, "points in time order, one per instant")
            let stays = r.truth.stays.filter { $0.device == device.name }
            let trips = r.truth.trips.filter { $0.device == device.name }
            #expect(stays.count == trips.count + 1, "a stay before and after every trip")
            for (k, trip) in trips.enumerated() {
                #expect(stays[k].endMs <= trip.startMs + 1000 && trip.endMs <= stays[k + 1].startMs + 1000)
                #expect(abs(trip.legs.reduce(0) { $0 + $1.distanceM } - trip.distanceM) < 0.01)
                #expect(trip.distanceM > 100)
            }
            // Overland points carry their local offset, OwnTracks points none.
            if device.app == .overland {
                #expect(device.points.allSatisfy { $0.utcOffsetS == 3600 || $0.utcOffsetS == 7200 })
            } else {
                #expect(device.points.allSatisfy { $0.utcOffsetS == nil })
            }
        }
        let modes = Set(r.truth.trips.flatMap { $0.legs.map(\.mode) })
        #expect(modes.isSuperset(of: [.walk, .car, .plane]), "\(modes)")
        #expect(r.truth.gaps.contains { $0.kind == "stay" })
        // Two shops about 200 m apart.
        let shopA = r.truth.places.first { $0.kind == "shop_a" }!, shopB = r.truth.places.first { $0.kind == "shop_b" }!
        let d = Geo.distance(shopA.lat, shopA.lon, shopB.lat, shopB.lon)
        #expect(d > 190 && d < 215)
        // Far-off fixes with kilometre accuracy exist.
        #expect(r.devices.contains { $0.points.contains { ($0.accuracyM ?? 0) >= 1000 && $0.speedMps == nil } })
    }

    @Test func dstFollowsTheEURule() {
        let zone = TimeZoneTable.centralEuropean(years: 2024...2024)
        #expect(zone.offset(at: 1_711_846_799_000) == 3600)  // 2024-03-31T00:59:59Z
        #expect(zone.offset(at: 1_711_846_800_000) == 7200)  // 01:00Z
        #expect(zone.offset(at: 1_729_990_800_000) == 3600)  // 2024-10-27T01:00Z
        if let berlin = TimeZoneTable.named("Europe/Berlin") {
            for ms in stride(from: Int64(1_704_067_200_000), to: 1_735_689_600_000, by: 3_600_000 * 7) {
                #expect(berlin.offset(at: ms) == zone.offset(at: ms))
            }
        }
    }

    @Test func writersProduceAppLikeFiles() throws {
        let r = Simulator(config: SimulatorConfig(seed: 3, days: 2, people: 2, movingIntervalS: 10)).run()
        let dir = try temporaryDirectory()
        let files = try SimulationWriter.write(r, to: dir)
        let overland = files.filter { $0.contains("/overland/") }
        let rec = files.filter { $0.hasSuffix(".rec") }
        #expect(!overland.isEmpty && rec.count == 1)
        let body = String(decoding: try FileSystem.read(overland[0]), as: UTF8.self)
        #expect(body.hasPrefix("{\"locations\":["))
        // Overland timestamps: offset without a colon.
        #expect(body.contains("\"timestamp\":\"2024-03-29T"))
        #expect(body.contains("+0100\""))
        let line = String(decoding: try FileSystem.read(rec[0]), as: UTF8.self).split(separator: "\n")[1]
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        #expect(fields.count == 3 && fields[1].count == 18 && fields[1].hasPrefix("*"))
        #expect(fields[2].contains("\"tst\":") && fields[2].contains("\"_type\":\"location\""))
        // Every archive is valid JSON (checked with Foundation's parser, in the test only).
        for path in overland {
            let object = try JSONSerialization.jsonObject(with: Data(try FileSystem.read(path))) as? [String: Any]
            let features = try #require(object?["locations"] as? [[String: Any]])
            #expect(features.count >= 1 && features.count <= 250)
            for f in features {
                let props = try #require(f["properties"] as? [String: Any])
                if props["type"] as? String == "trip" {
                    #expect(props["start"] is String && props["end"] is String && props["distance"] is NSNumber && props["mode"] is String)
                } else {
                    #expect((props["timestamp"] as? String)?.count == 24, "\(props["timestamp"] ?? "")")
                }
            }
        }
        for recLine in String(decoding: try FileSystem.read(rec[0]), as: UTF8.self).split(separator: "\n") {
            let json = recLine.split(separator: "\t", omittingEmptySubsequences: false)[2]
            #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
        }
        #expect(FileSystem.exists(dir + "/truth.json"))
        let truth = try TruthFile.read(dir + "/truth.json")
        #expect(truth.trips.count == r.truth.trips.count && truth.stays.count == r.truth.stays.count)
    }
}
