import Foundation
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

/// The map's timeline (the side panel's list of each day's visits and trips) is the `day` report's: the same entries
/// in the same order with the same words, under the same device filter and privacy zones.
@Suite struct MapTimelineTests {
    /// An entry as the page's data block holds it: kind (0 visit, 1 trip), device, what, when, legs.
    struct Row: Equatable, CustomStringConvertible {
        var trip: Bool, device: String, what: String, when: String, legs: [String]
        var description: String { "\(trip ? "trip" : "visit") \(device) \(what) \(when) \(legs)" }
    }

    /// The page's timeline by local day, and each entry's index into the page's trips or visits.
    static func timeline(_ page: PageInspector) throws -> (days: [Int: [Row]], refs: [Int: [Int]]) {
        let data = try #require(page.data)
        let devices = try #require(data["tld"] as? [String])
        let days = try #require(data["tl"] as? [[Any]])
        var rows: [Int: [Row]] = [:]
        var refs: [Int: [Int]] = [:]
        for day in days {
            let number = try #require(day[0] as? Int)
            #expect(rows[number] == nil, "day \(number) twice")
            for entry in try #require(day[1] as? [[Any]]) {
                let kind = try #require(entry[0] as? Int)
                rows[number, default: []].append(
                    Row(
                        trip: kind == 1, device: devices[try #require(entry[2] as? Int)], what: try #require(entry[3] as? String),
                        when: try #require(entry[4] as? String), legs: try #require(entry[5] as? [String])))
                refs[number, default: []].append(try #require(entry[1] as? Int))
            }
        }
        return (rows, refs)
    }

    static func report(_ store: Store, day: Int, device: String? = nil, zones: PrivacyZones = PrivacyZones()) throws -> [Row] {
        let exporter = try Exporter(store: store, privacyZones: zones)
        // The page's one rule for characters no page may hold (XML 1.0 forbids C0 controls): U+FFFD, as everywhere on the map.
        func shown(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
        }
        return try DayTimeline.entries(exporter: exporter, day: day, device: device).map {
            Row(trip: $0.kind == .trip, device: shown($0.device), what: shown($0.what), when: $0.when, legs: $0.legs.map(shown))
        }
    }

    /// Every day the page lists equals the report of that day, and every day of the page's data with a report has
    /// its list.
    static func expectEqualToReport(_ store: Store, _ page: PageInspector, device: String? = nil, zones: PrivacyZones = PrivacyZones()) throws {
        let (days, _) = try timeline(page)
        let data = try #require(page.data)
        var dataDays = Set<Int>()
        for trip in try #require(data["t"] as? [[Any]]) { dataDays.insert(try #require(trip[0] as? Int)) }
        for visit in try #require(data["vs"] as? [[Any]]) { dataDays.insert(try #require(visit[0] as? Int)) }
        #expect(!dataDays.isEmpty)
        for day in dataDays.union(days.keys).sorted() {
            let expected = try report(store, day: day, device: device, zones: zones)
            #expect(days[day] ?? [] == expected, "day \(day)")
        }
    }

    @Test func theFixturesTimelineIsTheDayReport() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let page = PageInspector(try MapRenderer(store: store).render())
        try Self.expectEqualToReport(store, page)
        let (days, refs) = try Self.timeline(page)
        let march1 = CivilTime.daysFromCivil(year: 2024, month: 3, day: 1)
        #expect(
            days[march1] == [
                Row(trip: false, device: "phone", what: "Home", when: "01:00–09:00", legs: []),
                Row(trip: true, device: "phone", what: "walk 1.5 km", when: "09:00–09:10", legs: []),
                Row(trip: false, device: "phone", what: "Work", when: "09:10–18:00", legs: []),
                Row(trip: true, device: "phone", what: "car 4.2 km", when: "18:00–18:30", legs: ["walk 400 m", "car 3.8 km"]),
                Row(trip: false, device: "phone", what: "Home", when: "18:30–00:00", legs: []),
            ])
        // Each entry points at its trip or visit on the map (clicking it focuses there).
        let data = try #require(page.data)
        let trips = try #require(data["t"] as? [[Any]])
        let visits = try #require(data["vs"] as? [[Any]])
        let march1Refs = try #require(refs[march1])
        #expect(march1Refs.allSatisfy { $0 >= 0 })
        #expect(march1Refs[1] < trips.count && march1Refs[0] < visits.count)
        #expect(page.html.contains("<section id=\"timeline\""))
    }

    /// What the screenshots in docs/MAP.md show, as far as bytes can say it (the look itself is checked by eye in
    /// headless Chromium): the list sits in the side panel after the chart, a picked day's list moves above the
    /// summary, the script focuses an entry's trip or visit, and on a narrow screen the panel goes under the map.
    @Test func theTimelineIsInTheSidePanelAndTheScriptFocusesEntries() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let page = PageInspector(try MapRenderer(store: store).render())
        let html = page.html
        let chart = try #require(html.range(of: "<svg id=\"chart\""))
        let list = try #require(html.range(of: "<section id=\"timeline\""))
        let aside = try #require(html.range(of: "</aside>"))
        #expect(chart.lowerBound < list.lowerBound && list.upperBound < aside.lowerBound)
        let script = try #require(page.script)
        #expect(script.contains("side.insertBefore(tlBox,sum)") && script.contains("focusEntry(tlItems[") && script.contains("hash.tl"))
        // A name cut short by the panel's width is whole in the entry's tooltip (a property, never markup).
        #expect(script.contains("li.title=x[4]+"))
        #expect(html.contains("@media (max-width:760px){body{flex-direction:column}"))
        // Nothing to list, no list.
        let empty = PageInspector(try MapRenderer(store: store).render(filter: RecordFilter(fromDay: 0, toDay: 1)))
        #expect(!empty.html.contains("id=\"timeline\""))
    }

    @Test func aSimulatedWeeksTimelineIsTheDayReport() throws {
        let store = try MapFixture.synthetic(days: 7)
        let document = try MapRenderer(store: store).render()
        let page = PageInspector(document)
        try Self.expectEqualToReport(store, page)
        let (days, _) = try Self.timeline(page)
        #expect(days.count >= 7 && days.values.allSatisfy { !$0.isEmpty })
        // Hostile place names travel as data, the same text once parsed, never as markup.
        #expect(days.values.joined().contains { $0.what == "Home wifi \"<script>alert(1)</script>\"" })
        let json = try #require(page.dataJSON)
        #expect(!json.contains("<") && !json.contains(">") && !json.contains("\u{2028}"))
        for raw in ["<script>alert(1)</script>", "<script>alert(2)", "\u{1}", "\u{7F}"] {
            #expect(!page.html.contains(raw), "raw \(raw.debugDescription) in the page")
        }
        // Deterministic: the same database gives the same bytes.
        #expect(try MapRenderer(store: store).render().bytes == document.bytes)
    }

    @Test func oneDevicesTimelineIsThatDevicesReport() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let page = PageInspector(try MapRenderer(store: store).render(filter: RecordFilter(device: "tablet")))
        try Self.expectEqualToReport(store, page, device: "tablet")
        let (days, _) = try Self.timeline(page)
        #expect(!days.isEmpty && days.values.joined().allSatisfy { $0.device == "tablet" })
    }

    @Test func privacyZonesHideTheTimelinesVisitsAndCutItsTrips() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let zones = try PrivacyZones.resolve(["Home"], in: store)
        var parameters = MapParameters()
        parameters.privacyZones = zones
        let page = PageInspector(try MapRenderer(store: store, parameters: parameters).render())
        try Self.expectEqualToReport(store, page, zones: zones)
        let (days, _) = try Self.timeline(page)
        let march1 = try #require(days[CivilTime.daysFromCivil(year: 2024, month: 3, day: 1)])
        #expect(!march1.contains { $0.what.contains("Home") })
        #expect(march1.map(\.when).contains("09:02–09:10") && march1.map(\.when).contains("18:00–18:27"), "\(march1)")
        #expect(!page.html.contains("Home"))
    }

    /// The map reads every day at once; each day's entries are what the report reads for that day alone, including
    /// visits that span days ("all day", "until", "from").
    @Test func manyDaysAtOnceEqualEachDayAlone() throws {
        let store = try MapFixture.synthetic(days: 5)
        let exporter = try Exporter(store: store)
        let first = try #require(try store.db.scalarInt("SELECT MIN(start_ms) FROM visits")) / 86_400_000
        let days = Array(Int(first) - 1...Int(first) + 6)
        let together = try DayTimeline.entries(exporter: exporter, days: days)
        for day in days {
            #expect(together[day] ?? [] == (try DayTimeline.entries(exporter: exporter, day: day)), "day \(day)")
        }
        #expect(together.count >= 5)
    }
}
