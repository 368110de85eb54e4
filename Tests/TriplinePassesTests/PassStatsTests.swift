import Testing
import TriplineCore
@testable import TriplinePasses

/// The one way a pass's figures are written: `tripline rebuild`'s line and the JSON of `pass_runs.stats` and
/// `rebuild --json`, in the order the pass gave them.
@Suite struct PassStatsTests {
    @Test func figuresAreWrittenInOrderAsCountsAndMeasures() {
        var stats: PassStats = ["trips": .count(26), "legs": .count(90), "distance_km": .measure(659.43), "dwell_h": .measure(2)]
        stats.append("ms", .count(50))
        #expect(stats.text == "trips 26, legs 90, distance_km 659.43, dwell_h 2, ms 50")
        #expect(stats.json == #"{"trips":26,"legs":90,"distance_km":659.43,"dwell_h":2,"ms":50}"#)
        #expect(stats["legs"] == .count(90))
        #expect(stats["distance_km"]?.number == 659.43)
        #expect(stats["nope"] == nil)
        #expect(stats.map { $0.0 } == ["trips", "legs", "distance_km", "dwell_h", "ms"])
        #expect(PassStats().text.isEmpty && PassStats().json == "{}")
    }

    /// Windows add up by name: counts stay counts (the clean pass's `impossible` is read back as one), measures
    /// are summed and printed to hundredths, new names go last.
    @Test func windowsAddUpByName() {
        var total: PassStats = ["impossible": .count(2), "distance_km": .measure(1.005)]
        total.add(["impossible": .count(3), "distance_km": .measure(2.001), "ms": .count(7)])
        #expect(total["impossible"] == .count(5))
        #expect(total.entries.map(\.name) == ["impossible", "distance_km", "ms"])
        #expect(total["distance_km"]?.toHundredths.text == "3.01")
        #expect(PassStats.Figure.count(12).toHundredths == .count(12))
    }
}
