import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplineSimulator
import TriplineTestSupport

/// Google location history (Records.json, Semantic Location History, Timeline.json, iOS location-history.json),
/// written by the simulator's `TakeoutWriter` and imported back.
@Suite struct TakeoutImportTests {
    static let simulation: SimulationResult = Simulator(config: SimulatorConfig(seed: 7, days: 2, people: 1)).run()

    func importFolder(_ layout: TakeoutWriter.Layout) throws -> (Store, ImportSummary, SimulatedDevice) {
        let (store, dir) = try freshStore()
        let device = Self.simulation.devices[0]
        try TakeoutWriter.write(Self.simulation, device: device, layout: layout, to: dir + "/alice")
        let summary = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/alice"])
        return (store, summary, device)
    }

    /// "time|lat|lon" with seven decimals, as Google stores positions.
    func key(_ ms: Int64, _ lat: Double, _ lon: Double) -> String {
        "\(ms)|\(Int64((lat * 1e7).rounded()))|\(Int64((lon * 1e7).rounded()))"
    }

    func storedKeys(_ store: Store) throws -> [String] {
        let st = try store.db.prepare("SELECT time_ms, lat, lon FROM points ORDER BY time_ms")
        var out: [String] = []
        while try st.step() { out.append(key(st.int64(0), st.double(1), st.double(2))) }
        return out
    }

    @Test func recordsJSONStoresEveryFixExactlyOnce() throws {
        let (store, summary, device) = try importFolder(.records)
        let expected = TakeoutWriter.sampled(device.points)
        #expect(summary.failed == 0 && summary.rejected == 0)
        #expect(summary.files.map(\.format) == ["google/records"])
        #expect(try storedKeys(store) == expected.map { key($0.timeMs, $0.lat, $0.lon) })
        // The device is the folder given; deviceTag, source and platform are kept in extra; activity → motion.
        #expect(try store.db.scalarText("SELECT group_concat(name || ':' || source || ':' || name_origin) FROM devices") == "alice:google:folder")
        #expect(try store.db.scalarText("SELECT extra FROM points ORDER BY time_ms LIMIT 1") == "{\"source\":\"WIFI\",\"deviceTag\":1000000,\"platformType\":\"ANDROID\"}")
        #expect(try store.db.scalarInt("SELECT count(*) FROM points WHERE motion IS NOT NULL") ?? 0 > 0)
        let first = expected[0]
        #expect(try store.db.scalarInt("SELECT CAST(round(accuracy_m) AS INTEGER) FROM points ORDER BY time_ms LIMIT 1") == Int64((first.accuracyM ?? 20).rounded()))
        // Importing again is skipped; the same fixes in another file are duplicates, not new points.
        #expect(try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([summary.files[0].path]).files[0].status == .skipped)
        let compact = "{\"locations\":[" + expected.prefix(50).map {
            "{\"latitudeE7\":\(Int64(($0.lat * 1e7).rounded())),\"longitudeE7\":\(Int64(($0.lon * 1e7).rounded())),\"timestampMs\":\"\($0.timeMs)\"}"
        }.joined(separator: ",") + "]}"
        let again = FileSystem.directoryName(summary.files[0].path) + "/../../Records-again.json"
        try FileSystem.write(compact, to: again)
        let folder = FileSystem.directoryName(FileSystem.directoryName(FileSystem.directoryName(summary.files[0].path)))  // …/alice
        let second = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([folder])
        #expect(second.pointsNew == 0 && second.pointsDuplicate == 50 && second.rejected == 0)
    }

    /// One account, two devices: a tablet left at home and the phone on the road, interleaved by time. Each
    /// `deviceTag` is a device; the one with the most fixes keeps the export's name, wherever it first appears.
    @Test func recordsJSONSplitsItsDeviceTags() throws {
        let (store, dir) = try freshStore()
        func fix(_ s: Int, _ lat: Double, _ tag: String?) -> String {
            "{\"latitudeE7\": \(Int64(lat * 1e7)), \"longitudeE7\": 134000000, \"timestamp\": \"2024-05-01T10:00:\(s < 10 ? "0" : "")\(s)Z\""
                + (tag.map { ", \"deviceTag\" : \($0)" } ?? "") + "}"
        }
        let records = "{\"locations\": [" + [
            fix(0, 52.5, "-551234"), fix(1, 52.6, "977"), fix(2, 52.5, "-551234"), fix(3, 52.7, "977"), fix(4, 52.8, "977"),
            fix(5, 52.9, nil),
        ].joined(separator: ",\n") + "]}"
        try FileSystem.createDirectory(dir + "/fam/Takeout/Location History")
        try FileSystem.write(records, to: dir + "/fam/Takeout/Location History/Records.json")
        let summary = try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([dir + "/fam"])
        #expect(summary.failed == 0 && summary.rejected == 0 && summary.pointsNew == 6)
        let st = try store.db.prepare(
            "SELECT d.name, count(*), min(p.lat) FROM points p JOIN devices d ON d.id = p.device_id GROUP BY d.name ORDER BY d.name")
        var rows: [String] = []
        while try st.step() { rows.append("\(st.text(0) ?? ""):\(st.int64(1)):\(st.double(2))") }
        // The untagged fix stays with the export's name; the phone (3 fixes) keeps it, the tablet is fam#-551234.
        #expect(rows == ["fam:4:52.6", "fam#-551234:2:52.5"])
        #expect(try store.db.scalarText("SELECT name_origin FROM devices WHERE name = 'fam#-551234'")
            == "deviceTag -551234 in Records.json (fam is the tag with the most fixes)")
    }

    @Test func semanticHistoryBecomesVisitAndTripEvents() throws {
        let (store, summary, device) = try importFolder(.semantic)
        #expect(summary.failed == 0 && summary.rejected == 0 && summary.pointsNew == 0)
        #expect(summary.files.allSatisfy { $0.format == "google/semantic" })
        #expect(summary.files.allSatisfy { $0.path.contains("/Semantic Location History/2024/2024_") })
        let stays = Self.simulation.truth.stays.filter { $0.device == device.name }
        // Google writes a trip of several modes as an activity per mode (walk, train, walk).
        let trips = Self.simulation.truth.trips.filter { $0.device == device.name }.flatMap(TakeoutWriter.activities)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'visit'") == Int64(stays.count))
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'trip'") == Int64(trips.count))
        // Trips carry what the apptrips pass compares: start, end, distance and a Tripline mode.
        let st = try store.db.prepare("SELECT start_ms, end_ms, distance_m, mode FROM app_events WHERE kind = 'trip' ORDER BY start_ms")
        var i = 0
        while try st.step() {
            guard i < trips.count else { break }
            #expect(st.int64(0) == trips[i].startMs && st.int64(1) == trips[i].endMs)
            #expect(st.double(2) == trips[i].distanceM.rounded())
            #expect(["walk", "run", "cycle", "car", "bus", "train", "plane"].contains(st.text(3) ?? ""))
            i += 1
        }
        #expect(i == trips.count)
    }

    @Test func phoneTimelineJSONStoresPathPointsRawSignalsAndSegments() throws {
        let (store, summary, device) = try importFolder(.timeline)
        #expect(summary.failed == 0 && summary.rejected == 0)
        #expect(summary.files.map(\.format) == ["google/timeline"])
        let path = Set(TakeoutWriter.sampled(device.points).map { key($0.timeMs, $0.lat, $0.lon) })
        let lastDay = device.points.last!.timeMs - 86_400_000
        let signals = Set(device.points.filter { $0.timeMs >= lastDay && $0.timeMs % 10_000 < 1000 }.map { key($0.timeMs, $0.lat, $0.lon) })
        let stored = try storedKeys(store)
        #expect(Set(stored) == path.union(signals))
        #expect(stored.count == path.union(signals).count)
        #expect(try store.db.scalarInt("SELECT count(*) FROM points WHERE trigger = 'rawSignal'") == Int64(signals.subtracting(path).count))
        // Local offsets come from the times ("+01:00"/"+02:00").
        #expect(try store.db.scalarInt("SELECT count(*) FROM points WHERE utc_offset_s IS NULL") == 0)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'trip' AND mode IS NOT NULL AND lat IS NOT NULL") ==
                Int64(Self.simulation.truth.trips.filter { $0.device == device.name }.flatMap(TakeoutWriter.activities).count))
    }

    @Test func iosLocationHistoryUsesGeoStringsAndMinuteOffsets() throws {
        let (store, summary, device) = try importFolder(.ios)
        #expect(summary.failed == 0 && summary.rejected == 0)
        #expect(summary.files.map(\.format) == ["google/ios"])
        // Path points are timed to the minute from their segment's start.
        var expected: [String] = []
        var lastMinute = Int64.min
        for p in TakeoutWriter.sampled(device.points) {
            let window = (p.timeMs / 7_200_000) * 7_200_000
            let minute = window + (p.timeMs - window) / 60_000 * 60_000
            if minute != lastMinute { expected.append(key(minute, p.lat, p.lon)) }
            lastMinute = minute
        }
        #expect(try storedKeys(store) == expected)
        #expect(try store.db.scalarInt("SELECT count(*) FROM app_events WHERE kind = 'visit' AND lat IS NOT NULL") ==
                Int64(Self.simulation.truth.stays.filter { $0.device == device.name }.count))
    }

    @Test func badGoogleRecordsAreRejectedOneByOne() throws {
        let text = """
        {"locations":[
          {"latitudeE7":523000000,"longitudeE7":134000000,"timestamp":"2024-01-01T10:00:00.000Z","accuracy":10},
          {"latitudeE7":523000000,"longitudeE7":134000000,"timestampMs":"1704103260000"},
          {"latitudeE7":523000000,"longitudeE7":134000000},
          {"latitudeE7":523000000,"longitudeE7":134000000,"timestamp":"2024-13-01T10:00:00Z"},
          {"latitudeE7":"x","longitudeE7":134000000,"timestamp":"2024-01-01T10:03:00Z"},
          {"longitudeE7":134000000,"timestamp":"2024-01-01T10:04:00Z"},
          {"latitudeE7":0,"longitudeE7":0,"timestamp":"2024-01-01T10:05:00Z"},
          {"latitudeE7":4294967295,"longitudeE7":4294000000,"timestamp":"2024-01-01T10:06:00Z"},
          {"latitudeE7":523000000,"longitudeE7":134000000,"timestamp":"1999-01-01T10:06:00Z"},
          {"latitudeE7":523000000,"latitudeE7":523000001,"longitudeE7":134000000,"timestamp":"2024-01-01T10:07:00Z"}
        ]}
        """
        let out = parse(text)
        #expect(out.format == "google/records")
        #expect(out.points.map(\.timeMs) == [1_704_103_200_000, 1_704_103_260_000, 1_704_103_560_000])
        // 2^32 - 1 is -1 wrapped around: -0.0000001°, and 4294000000 is -0.0967296°.
        #expect(out.points[2].lat == -1e-7 && out.points[2].lon == -967_296 / 1e7)
        #expect(out.rejects.map(\.reason) == [.missingTime, .invalidTime, .invalidCoordinates, .missingCoordinates, .nullIsland, .timeTooEarly, .duplicateKey])
        #expect(out.rejects.map(\.line) == [4, 5, 6, 7, 8, 10, 11])
    }

    @Test func aRecordsFileCutMidWriteKeepsEveryCompleteFix() throws {
        let fixes = (0..<50).map { i in
            "{\"latitudeE7\":\(520000000 + i),\"longitudeE7\":130000000,\"timestamp\":\"\(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(i) * 60_000))\"}"
        }
        let whole = "{\"locations\":[" + fixes.joined(separator: ",") + "]}"
        let cut = String(whole.prefix(whole.count - 40))
        let out = parse(cut)
        #expect(out.points.count == 49)
        #expect(out.rejects.map(\.reason) == [.truncated])
    }

    @Test func positionStrings() {
        func parsed(_ s: String) -> [Double]? {
            var s = s
            return s.withUTF8 { RecordBuilder.latLng($0).map { [$0.lat, $0.lon] } }
        }
        #expect(parsed("geo:48.1234567,11.5") == [48.1234567, 11.5])
        #expect(parsed("48.1234567°, -11.5°") == [48.1234567, -11.5])
        #expect(parsed("-33.9,151.2") == [-33.9, 151.2])
        #expect(parsed("geo:48.1") == nil)
        #expect(parsed("48.1°, 11.5°, 3") == nil)
        #expect(parsed("north, south") == nil)
        #expect(parsed("") == nil)
    }

    @Test func googleModesMapOntoTriplineModes() {
        #expect(RecordBuilder.googleMode("IN_PASSENGER_VEHICLE") == "car")
        #expect(RecordBuilder.googleMode("in passenger vehicle") == "car")
        #expect(RecordBuilder.googleMode("IN_SUBWAY") == "train")
        #expect(RecordBuilder.googleMode("walking") == "walk")
        #expect(RecordBuilder.googleMode("SKIING") == "skiing")
    }
}

/// The real Google exports in `../shared/corpus` (dawarich's and reitti's test fixtures).
@Suite(.enabled(if: Corpus.available, Corpus.absent)) struct TakeoutCorpusTests {
    func importFile(_ relative: String) throws -> (ImportSummary, Store)? {
        let path = corpusPath(relative)
        guard FileSystem.exists(path) else {
            print("skipped: \(relative) not found (../shared/corpus is absent in this checkout)")
            return nil
        }
        let (store, _) = try freshStore()
        return (try Importer(store: store, options: ImportOptions(nowMs: testNow)).importPaths([path]), store)
    }

    @Test(arguments: [
        ("reitti/google/Records.json", "google/records", 95, 0, 0),
        ("reitti/google/timeline_from_android_randomized.json", "google/timeline", 78, 12, 5),
        ("reitti/google/timeline_from_ios_randomized.json", "google/ios", 0, 50, 0),
        ("dawarich/google/location-history.json", "google/ios", 7, 1, 3),
        ("dawarich/google/records.json", "google/records", 3, 0, 0),
        ("dawarich/google/phone-takeout_w_3_duplicates.json", "google/timeline", 3, 1, 0),
        ("dawarich/google/semantic_history.json", "google/semantic", 0, 3, 0),
        ("dawarich/google/timeline_new_format.json", "google/timeline", 3, 2, 0),
        ("dawarich/google/edge_cases/phone_takeout_array_timeline_path.json", "google/ios", 3, 0, 0),
        ("dawarich/google/edge_cases/semantic_history_with_bom.json", "google/semantic", 0, 1, 0),
    ])
    func realGoogleExportsImport(_ file: String, _ format: String, _ points: Int, _ events: Int, _ duplicates: Int) throws {
        guard let (summary, _) = try importFile(file) else { return }
        #expect(summary.files.map(\.format) == [format])
        #expect(summary.pointsNew == points && summary.events == events && summary.pointsDuplicate == duplicates && summary.rejected == 0)
    }
}

/// The byte scan that counts a `Records.json`'s device tags before the parse reaches them.
@Suite struct GoogleDeviceTagsTests {
    func primary(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { GoogleDeviceTags(countingIn: $0).primary.map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func theTagWithTheMostFixesIsPrimary() {
        #expect(primary(#"[{"deviceTag" : -5},{"deviceTag":7},{"deviceTag":  7}]"#) == "7")
        // Strings count as they stand; a "deviceTag" that is a value, not a key, does not count.
        #expect(primary(#"[{"deviceTag":"ab"},{"note":"deviceTag"},{"note":"deviceTag"},{"deviceTag":3}]"#) == "3")
        // A tie goes to the first in byte order, whatever the order in the file.
        #expect(primary(#"[{"deviceTag":9},{"deviceTag":12}]"#) == "12")
        #expect(primary(#"[{"deviceTag":12},{"deviceTag":9}]"#) == "12")
        #expect(primary(#"{"locations":[{"latitudeE7":1,"heading":"g"}]}"#) == nil)
    }

    /// A file over 32 MiB is scanned in 8-MiB windows, its pages let go behind the scan; a key across a window's edge
    /// still counts.
    @Test func largeFilesAreScannedInWindowsThatLetGo() {
        final class Drops: @unchecked Sendable { var ranges: [(Int, Int)] = [] }
        var bytes = [UInt8](repeating: 0x20, count: 40 << 20)
        let entry = Array(#""deviceTag" : 42"#.utf8)
        for at in [100, (8 << 20) - 5, (16 << 20) - 9, (40 << 20) - 30] { bytes.replaceSubrange(at..<(at + entry.count), with: entry) }
        let other = Array(#""deviceTag":1"#.utf8)
        for at in [1000, 2000, 3000] { bytes.replaceSubrange(at..<(at + other.count), with: other) }
        let drops = Drops()
        let tags = bytes.withUnsafeBytes { GoogleDeviceTags(countingIn: $0, dropPages: { drops.ranges.append(($0, $1)) }) }
        #expect(tags.primary.map { String(decoding: $0, as: UTF8.self) } == "42")
        #expect(drops.ranges.count >= 4)
        #expect(drops.ranges.last?.1 == 40 << 20)
        #expect(zip(drops.ranges, drops.ranges.dropFirst()).allSatisfy { $0.1 == $1.0 })
    }
}
