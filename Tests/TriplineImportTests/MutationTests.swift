import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

/// Random damage to real files: every reader must return (no crash, no hang) and only ever produce valid points
/// and well-placed rejects.
@Suite struct MutationTests {
    static let seeds = [
        "dawarich/overland/geodata.json", "dawarich/owntracks/2024-03.rec", "dawarich/owntracks/2023-02_old.rec",
        "owntracks-android/fixtures/location_multiple_messages.json", "dawarich/gpx/arc_example.gpx",
        "dawarich/gpx/garmin_example.gpx", "trackintel/gpx_data/track2.gpx",
    ]

    @Test(.enabled(if: Corpus.available, Corpus.absent), arguments: seeds)
    func mutatedFilesNeverBreakTheReaders(_ seed: String) throws {
        let original = try FileSystem.read(corpusPath(seed))
        var state: UInt64 = UInt64(seed.utf8.count) &* 2_654_435_761
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
        let noise: [UInt8] = [0x00, 0xFF, 0xC3, 0xED, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3C, 0x3E, 0x0A, 0x2C, 0x3A, 0x2D, 0x30, 0x4E]
        for _ in 0..<400 {
            var data = original
            for _ in 0..<(1 + next(4)) {
                guard !data.isEmpty else { break }
                let at = next(data.count)
                switch next(4) {
                case 0: data[at] = noise[next(noise.count)]
                case 1: data.insert(noise[next(noise.count)], at: at)
                case 2: data.removeSubrange(at..<min(data.count, at + 1 + next(20)))
                default: data.removeSubrange(at...)  // truncation
                }
            }
            let out = FormatDetector.parse(data, context: context())
            for p in out.points {
                #expect(p.lat >= -90 && p.lat <= 90 && p.lon >= -180 && p.lon <= 180 && !(p.lat == 0 && p.lon == 0))
                #expect(p.timeMs >= Timestamp.earliestMs && p.timeMs <= testNow + 86_400_000)
                #expect(Int(p.deviceID) < out.devices.count)
            }
            for r in out.rejects { #expect(r.byteOffset >= 0 && r.byteOffset <= data.count) }
            #expect(out.points.count == out.positions.count)
            #expect(out.events.allSatisfy { $0.device < out.devices.count })
        }
    }
}
