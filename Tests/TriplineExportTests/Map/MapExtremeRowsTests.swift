import Foundation
import Testing

@testable import TriplineCore
@testable import TriplineExport
@testable import TriplineStore
import TriplineTestSupport

/// The map over stored rows with values no rebuild writes (an edited database): longitudes of 1e300 or -inf,
/// infinite distances, times of `Int64.min`, offsets of a century. A seeded property test (the map stands on the
/// embedded geography, so it cannot be compiled into the fuzz module): every page is rendered, its data block is
/// valid JSON, and impossible rows are counted as left out; never a hang, a trap or a NaN in the page.
@Suite struct MapExtremeRowsTests {
    /// `LongitudeWrap.wrap` is total: it used to step by 360° until it arrived, for ever at 1e300 or -inf.
    @Test func longitudeWrapIsTotal() {
        for west in [-180.0, -30.5, 170] {
            for lon in [1e300, -1e300, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 1e17 + 3, -7_200_000.25, 540, -540] {
                let w = LongitudeWrap.wrap(lon, west: west)
                #expect(w >= west && w <= west + 360, "\(lon) from \(west) → \(w)")
            }
            // Real longitudes keep the turn-by-turn arithmetic, so pages stay byte for byte as they were.
            #expect(LongitudeWrap.wrap(179.5, west: west) == { var l = 179.5; while l < west { l += 360 }; while l > west + 360 { l -= 360 }; return l }())
            #expect(LongitudeWrap.wrap(.infinity, west: west) == .infinity)
            #expect(LongitudeWrap.wrap(-.infinity, west: west) == -.infinity)
            #expect(LongitudeWrap.wrap(.nan, west: west).isNaN)
        }
        let west = LongitudeWrap.west(for: [1e300, -.infinity, .nan, 10, 20])
        #expect(west >= -360 && west <= 180)
    }

    /// One trip whose points include longitudes of 1e300 and -inf (the reproduction): the finite far one is
    /// wrapped onto the map, the infinite ones are left out and counted.
    @Test func farAndInfiniteLongitudesAreLeftOut() throws {
        let store = try Store(path: try temporaryDirectory() + "/m.sqlite")
        let device = try MapFixture.device(store)
        let t0: Int64 = 1_710_000_000_000
        try MapFixture.trip(store, device: device, startMs: t0, start: (52.5, 13.4), step: (0.001, 0.001), legs: [("walk", 20)])
        try store.db.run("UPDATE points_hot SET lon = 1e300 WHERE key = ?", [.integer(device << 42 | (t0 + 3000))])
        try store.db.run("UPDATE points_hot SET lon = ? WHERE key = ?", [.real(-.infinity), .integer(device << 42 | (t0 + 5000))])
        try store.db.run("UPDATE points_hot SET lat = ? WHERE key = ?", [.real(.infinity), .integer(device << 42 | (t0 + 7000))])
        let document = try MapRenderer(store: store).render()
        #expect(document.tripsDrawn == 1)
        #expect(document.skipped == 2)
        #expect(document.pointsRead == 18)
        try checkData(document)
    }

    @Test func randomExtremeRowsNeverBreakTheMap() throws {
        for seed in UInt64(1)...6 {
            let store = try Store(path: try temporaryDirectory() + "/extreme-\(seed).sqlite")
            var random = SplitMix64(seed: seed)
            try Self.fill(store, &random)
            for filter in [RecordFilter(), try RecordFilter.parse(device: "phone", from: "2024-03-09", to: "2024-03-10")] {
                let document = try MapRenderer(store: store).render(filter: filter)
                try checkData(document, "seed \(seed)")
                if filter.device == nil { #expect(document.skipped > 0, "seed \(seed): some rows are impossible") }
            }
        }
    }

    static let doubles: [Double] = [
        0, -0.0, 1, -1, 13.4, 52.5, 89.9, -89.9, 90, 180, -180, 181, 1e300, -1e300, .infinity, -.infinity, .nan,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e17, 1e15 + 1, 4e6,
    ]
    static let base: Int64 = 1_710_000_000_000  // 2024-03-09
    static let times: [Int64] = [
        .min, .max, 0, -1, base, base + 60_000, base + 3_600_000, (1 << 42) - 1, 1 << 42, 253_402_300_800_000,
        -62_167_219_200_001, 8_640_000_000_000_000, -8_640_000_000_000_000,
    ]
    static let offsets: [Int64] = [.min, .max, 0, 3600, -3600, 64_801, -64_800, 3_153_600_000, 7]

    /// A value for a REAL column: NaN (which SQLite cannot store) as text, as an edited file might hold.
    static func real(_ v: Double) -> SQLValue { v.isNaN ? .text("nan") : .real(v) }

    static func pick<T>(_ values: [T], _ random: inout SplitMix64, normal: T, often: Bool = true) -> T {
        let r = random.next() % 4
        return r == 0 || (!often && r == 1) ? values[Int(random.next() % UInt64(values.count))] : normal
    }

    /// Trips with legs and points, visits with places, and daily totals: each value normal most of the time,
    /// extreme otherwise.
    static func fill(_ store: Store, _ random: inout SplitMix64) throws {
        let device = try MapFixture.device(store, "phone")
        let other = try MapFixture.device(store, "other")
        for k in 0..<16 {
            let dev = k % 3 == 0 ? other : device
            let start = base + Int64(k) * 7_200_000
            let startMs = pick(times, &random, normal: start)
            let endMs = pick(times, &random, normal: start + 600_000)
            try store.db.run(
                """
                INSERT INTO trips(device_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, duration_s, moving_s, distance_m,
                  mode, legs, start_lat, start_lon, end_lat, end_lon, points)
                VALUES (?,?,?,?,?,?,?,?,?,2,?,?,?,?,10)
                """,
                [.integer(dev), .integer(startMs), .integer(endMs), .integer(pick(offsets, &random, normal: 3600)),
                 .integer(pick(offsets, &random, normal: 3600)), real(pick(doubles, &random, normal: 600)),
                 real(pick(doubles, &random, normal: 500)), real(pick(doubles, &random, normal: 2000)), .text(k % 2 == 0 ? "walk" : "car"),
                 real(pick(doubles, &random, normal: 52.5)), real(pick(doubles, &random, normal: 13.4)),
                 real(pick(doubles, &random, normal: 52.51)), real(pick(doubles, &random, normal: 13.41))])
            let trip = store.db.lastInsertRowID
            for leg in 0..<2 {
                try store.db.run(
                    "INSERT INTO legs(trip_id, leg, device_id, mode, mode_source, start_ms, end_ms, distance_m, duration_s, points) VALUES (?,?,?,?,'test',?,?,?,?,5)",
                    [.integer(trip), .integer(Int64(leg)), .integer(dev), .text(leg == 0 ? "walk" : "bus"),
                     .integer(pick(times, &random, normal: start + Int64(leg) * 300_000, often: false)),
                     .integer(pick(times, &random, normal: start + Int64(leg + 1) * 300_000, often: false)),
                     real(pick(doubles, &random, normal: 1000, often: false)), real(pick(doubles, &random, normal: 300, often: false))])
            }
            for p in 0..<10 {
                let time = start + Int64(p) * 60_000
                try store.db.run(
                    "INSERT OR IGNORE INTO points_hot(key, lat, lon, import_id) VALUES (?,?,?,0)",
                    [.integer(dev << 42 | time), real(pick(doubles, &random, normal: 52.5 + Double(p) * 0.001, often: false)),
                     real(pick(doubles, &random, normal: 13.4 + Double(p) * 0.001, often: false))])
            }
            try store.db.run(
                "INSERT INTO places(device_id, name, lat, lon, radius_m, visits, total_dwell_s) VALUES (?,?,?,?,30,1,600)",
                [.integer(dev), .text("place \(k)"), real(pick(doubles, &random, normal: 52.5)), real(pick(doubles, &random, normal: 13.4))])
            let place = store.db.lastInsertRowID
            try store.db.run(
                """
                INSERT INTO visits(device_id, place_id, start_ms, end_ms, start_utc_offset_s, end_utc_offset_s, lat, lon, radius_m, points)
                VALUES (?,?,?,?,?,?,?,?,30,5)
                """,
                [.integer(dev), .integer(place), .integer(pick(times, &random, normal: start - 600_000)),
                 .integer(pick(times, &random, normal: start)), .integer(pick(offsets, &random, normal: 3600)),
                 .integer(pick(offsets, &random, normal: 3600)), real(pick(doubles, &random, normal: 52.5)),
                 real(pick(doubles, &random, normal: 13.4))])
        }
        for (k, date) in ["2024-03-09", "2024-03-10", "0000-01-01", "9999-12-31", "2024-02-30", "1970-01-01"].enumerated() {
            try store.db.run(
                "INSERT OR IGNORE INTO days(device_id, date, distance_m, moving_s, trips, visits, places) VALUES (?,?,?,?,1,1,1)",
                [.integer(k % 2 == 0 ? device : other), .text(date), real(pick(doubles, &random, normal: 5000)), real(pick(doubles, &random, normal: 900))])
        }
    }

    /// The page's data block is JSON (so no NaN or infinity reached it: JSON has neither), and the page ends.
    func checkData(_ document: MapDocument, _ context: String = "") throws {
        let page = String(decoding: document.bytes, as: UTF8.self)
        #expect(page.hasSuffix("</html>\n"), "\(context)")
        let open = "<script type=\"application/json\" id=\"data\">"
        let start = try #require(page.range(of: open), "\(context)")
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex), "\(context)")
        let data = Data(page[start.upperBound..<end.lowerBound].utf8)
        #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(context): the data block is not JSON")
    }
}
