import Testing
import TriplineCore
@testable import TriplineStore
import TriplinePasses
import TriplineTestSupport

/// Google's own timeline (Semantic Location History, Timeline.json, the phone exports) as visits and trips where the
/// fixes made nothing (the `timeline` pass, docs/PASSES.md).
@Suite struct GoogleTimelineTests {
    /// A Semantic Location History `placeVisit`.
    func visit(_ placeID: String?, name: String?, lat: Double, lon: Double, from: String, to: String) -> String {
        let id = placeID.map { ",\"placeId\":\"\($0)\"" } ?? ""
        let label = name.map { ",\"name\":\"\($0)\"" } ?? ""
        return """
            {"placeVisit":{"location":{"latitudeE7":\(Int(lat * 1e7)),"longitudeE7":\(Int(lon * 1e7))\(id)\(label)},
             "duration":{"startTimestamp":"\(from)","endTimestamp":"\(to)"}}}
            """
    }

    /// A Semantic Location History `activitySegment`; `path` as `simplifiedRawPath` points.
    func activity(_ type: String, from: String, to: String, start: (Double, Double), end: (Double, Double), distance: Int?,
                  path: [(Double, Double)] = []) -> String {
        let d = distance.map { ",\"distance\":\($0)" } ?? ""
        let p = path.isEmpty ? "" : ",\"simplifiedRawPath\":{\"points\":[" + path.map {
            "{\"latE7\":\(Int($0.0 * 1e7)),\"lngE7\":\(Int($0.1 * 1e7))}"
        }.joined(separator: ",") + "]}"
        return """
            {"activitySegment":{"startLocation":{"latitudeE7":\(Int(start.0 * 1e7)),"longitudeE7":\(Int(start.1 * 1e7))},
             "endLocation":{"latitudeE7":\(Int(end.0 * 1e7)),"longitudeE7":\(Int(end.1 * 1e7))},
             "duration":{"startTimestamp":"\(from)","endTimestamp":"\(to)"},"activityType":"\(type)"\(d)\(p)}}
            """
    }

    func semantic(_ objects: [String]) -> String { "{\"timelineObjects\":[" + objects.joined(separator: ",") + "]}" }

    let home = (52.5200, 13.3800), cafe = (52.5000, 13.4000), work = (52.5000, 13.4295), museum = (52.5300, 13.4500)

    /// Overland fixes of 2024-05-01 (UTC): at the café 10:00–10:40, a 2-km drive east, at work 10:43:20–11:30.
    func morningFixes() -> String {
        var features: [String] = []
        var t: Int64 = 1_714_557_600_000  // 2024-05-01T10:00:00Z
        func add(_ lat: Double, _ lon: Double, speed: Double) {
            features.append(
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"properties\":{\"timestamp\":\""
                    + CivilTime.iso8601(ms: t, offset: UTCOffset(seconds: 7200)) + "\",\"speed\":\(speed),\"horizontal_accuracy\":10}}")
        }
        for _ in 0..<240 { add(cafe.0, cafe.1, speed: 0); t += 10_000 }
        for k in 1...200 { add(cafe.0, cafe.1 + (work.1 - cafe.1) * Double(k) / 200, speed: 10); t += 1000 }
        for _ in 0..<280 { add(work.0, work.1, speed: 0); t += 10_000 }
        return "{\"locations\":[" + features.joined(separator: ",") + "]}"
    }

    /// Google's day of 2024-05-01 around the same fixes.
    func googleDay() -> String {
        semantic([
            visit("PH", name: "Home Place", lat: home.0, lon: home.1, from: "2024-05-01T00:00:00Z", to: "2024-05-01T07:30:00Z"),
            activity("WALKING", from: "2024-05-01T07:30:00Z", to: "2024-05-01T08:00:00Z", start: home, end: cafe, distance: 1800),
            // The fixes saw these three: their visits and trip win.
            visit("PA", name: "Cafe Alpha", lat: cafe.0, lon: cafe.1, from: "2024-05-01T08:00:00Z", to: "2024-05-01T10:38:00Z"),
            activity("IN_PASSENGER_VEHICLE", from: "2024-05-01T10:38:00Z", to: "2024-05-01T10:44:00Z", start: cafe, end: work, distance: 2100),
            visit("PW", name: "Office", lat: work.0, lon: work.1, from: "2024-05-01T10:44:00Z", to: "2024-05-01T11:30:00Z"),
            // After the fixes: Google's own.
            visit("PW2", name: nil, lat: work.0 + 0.0002, lon: work.1, from: "2024-05-01T11:40:00Z", to: "2024-05-01T12:30:00Z"),
            activity("IN_BUS", from: "2024-05-01T12:30:00Z", to: "2024-05-01T13:30:00Z", start: work, end: museum, distance: nil,
                     path: [(52.51, 13.44), (52.52, 13.45)]),
            visit("PM", name: "Museum", lat: museum.0, lon: museum.1, from: "2024-05-01T13:30:00Z", to: "2024-05-01T15:00:00Z"),
            activity("FLYING_SAUCER", from: "2024-05-01T15:00:00Z", to: "2024-05-01T16:00:00Z", start: museum, end: home, distance: nil),
            visit("PH", name: "Home Place", lat: home.0, lon: home.1, from: "2024-05-01T16:00:00Z", to: "2024-05-01T21:00:00Z"),
        ])
    }

    func database(_ files: [(String, String)]) throws -> (String, Store) {
        let dir = try temporaryDirectory()
        for (name, text) in files {
            try FileSystem.write(text, to: dir + "/" + name)
            let r = runCLI(["import", "--db", dir + "/t.sqlite", "--device", "g", dir + "/" + name])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let r = runCLI(["rebuild", "--db", dir + "/t.sqlite"])
        #expect(r.status == 0, "\(r.stderr)")
        return (dir + "/t.sqlite", try Store(path: dir + "/t.sqlite"))
    }

    func rows(_ store: Store, _ sql: String) throws -> [String] {
        let st = try store.db.prepare(sql)
        var out: [String] = []
        while try st.step() {
            out.append((0..<st.columnCount).map { st.text(Int32($0)) ?? "NULL" }.joined(separator: "|"))
        }
        return out
    }

    @Test func pointsWinWhereTheyCoverAndGoogleFillsTheRest() throws {
        let (db, store) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", googleDay())])
        // Visits: the café and work from the fixes; Google's home (twice), the work visit after the fixes and the museum,
        // and the café's first two hours, before the fixes began (08:00–10:00 of Google's 08:00–10:38: most of it).
        #expect(try rows(store, "SELECT source, count(*) FROM visits GROUP BY source ORDER BY source") == ["app|5", "points|2"])
        #expect(try rows(store, "SELECT app_place_id FROM visits WHERE source = 'app' ORDER BY start_ms") == ["PH", "PA", "PW2", "PM", "PH"])
        #expect(try rows(store, "SELECT start_ms, end_ms FROM visits WHERE app_place_id = 'PA'") == ["1714550400000|1714557600000"])
        // Google's office visit and its drive, which the fixes saw whole, are not used.
        #expect(try store.db.scalarInt("SELECT count(*) FROM visits WHERE app_place_id = 'PW'") == 0)
        // One place per Google place id, named as Google names it; a Google visit at a place of the fixes joins it.
        #expect(try rows(store, "SELECT source, app_place_id, name, visits FROM places WHERE source = 'app' ORDER BY name")
            == ["app|PH|Home Place|2", "app|PM|Museum|1"])
        let workPlace = try store.db.scalarInt("SELECT place_id FROM visits WHERE source = 'points' ORDER BY start_ms DESC LIMIT 1")
        #expect(try store.db.scalarInt("SELECT place_id FROM visits WHERE app_place_id = 'PW2'") == workPlace)
        #expect(try store.db.scalarInt("SELECT visits FROM places WHERE id = ?", [.integer(workPlace!)]) == 2)
        // Trips: the drive from the fixes; Google's walk (its distance), bus (its path) and an activity of no known mode.
        #expect(try rows(store, "SELECT source, mode, distance_method, legs FROM trips ORDER BY start_ms")
            == ["app|walk|app|1", "points|car|track|1", "app|bus|app_path|1", "app|unknown|app_line|1"])
        #expect(try rows(store, "SELECT source, mode, mode_source, app_activity FROM legs WHERE source = 'app' ORDER BY start_ms")
            == ["app|walk|app|WALKING", "app|bus|app|IN_BUS", "app|unknown|app|FLYING_SAUCER"])
        #expect(try store.db.scalarInt("SELECT count(*) FROM legs WHERE source = 'points' AND app_activity IS NULL") == 1)
        let walk = try #require(try store.db.scalarText("SELECT distance_m FROM trips WHERE mode = 'walk'").flatMap(Double.init))
        #expect(walk == 1800)
        let bus = try #require(try store.db.scalarText("SELECT distance_m FROM trips WHERE mode = 'bus'").flatMap(Double.init))
        let chain = Geo.distance(work.0, work.1, 52.51, 13.44) + Geo.distance(52.51, 13.44, 52.52, 13.45) + Geo.distance(52.52, 13.45, museum.0, museum.1)
        #expect(abs(bus - chain) < 0.01)
        // Google's trips leave and reach the visits next to them.
        #expect(try rows(store, """
            SELECT f.app_place_id, t.app_place_id FROM trips JOIN visits f ON f.id = trips.from_visit_id JOIN visits t ON t.id = trips.to_visit_id
            WHERE trips.mode = 'bus'
            """) == ["PW2|PM"])
        // Local offsets from the zone where and when (Berlin, summer time), not 0.
        #expect(try rows(store, "SELECT DISTINCT start_utc_offset_s, end_utc_offset_s FROM visits WHERE source = 'app'") == ["7200|7200"])
        #expect(try rows(store, "SELECT DISTINCT start_utc_offset_s FROM trips WHERE source = 'app'") == ["7200"])
        // The day counts Google's trips and visits and their distance.
        #expect(try rows(store, "SELECT date, trips, visits FROM days") == ["2024-05-01|4|7"])
        let day = try #require(try store.db.scalarText("SELECT distance_m FROM days").flatMap(Double.init))
        let appDistance = try #require(try store.db.scalarText("SELECT total(distance_m) FROM trips WHERE source = 'app'").flatMap(Double.init))
        #expect(day > appDistance + 1900)
        // Stable ids: a full rebuild gives the same rows.
        let before = try rows(store, "SELECT id, place_id, start_ms FROM visits ORDER BY id") + rows(store, "SELECT id, from_visit_id FROM trips ORDER BY id")
        #expect(runCLI(["rebuild", "--db", db, "--full"]).status == 0)
        #expect(try rows(store, "SELECT id, place_id, start_ms FROM visits ORDER BY id") + rows(store, "SELECT id, from_visit_id FROM trips ORDER BY id") == before)
    }

    /// The places of the fixes that Google's visits saw take Google's names (docs/PASSES.md, "Place names").
    @Test func googleNamesThePlacesOfTheFixes() throws {
        let (_, store) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", googleDay())])
        #expect(try rows(store, "SELECT name FROM places WHERE source = 'points' ORDER BY first_visit_ms") == ["Cafe Alpha", "Office"])
        #expect(try store.db.scalarInt("SELECT count(*) - count(DISTINCT name) FROM places") == 0)
    }

    @Test func aGoogleOnlyDeviceRebuilds() throws {
        let (db, store) = try database([("2024_MAY.json", googleDay())])
        #expect(try store.db.scalarInt("SELECT count(*) FROM points_hot") == 0)
        #expect(try rows(store, "SELECT source, count(*) FROM visits GROUP BY source") == ["app|6"])
        #expect(try rows(store, "SELECT source, count(*) FROM trips GROUP BY source") == ["app|4"])
        #expect(try rows(store, "SELECT date, trips, visits FROM days") == ["2024-05-01|4|6"])
        // The office visit after the fixes' work visit is its own place now (no place of the fixes to join).
        #expect(try store.db.scalarInt("SELECT count(*) FROM places") == 5)
        // Exports say where each row came from.
        for what in ["trips", "legs", "visits", "places"] {
            let csv = runCLI(["export", "--db", db, "--format", "csv", "--what", what])
            #expect(csv.status == 0, "\(csv.stderr)")
            let lines = csv.stdout.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let column = lines.first?.firstIndex(of: "source")
            #expect(column != nil && lines.count > 1 && lines.dropFirst().allSatisfy { $0[column ?? 0] == "app" }, "\(what): \(csv.stdout)")
            let json = runCLI(["export", "--db", db, "--format", "geojson", "--what", what])
            #expect(json.stdout.contains("\"source\":\"app\"") && !json.stdout.contains("\"source\":\"points\""), "\(what)")
        }
    }

    /// A Semantic Location History visit whose place lies 13.5 km from its own centre and fixes (a real export's
    /// "Humboldt University of Berlin" for lectures at its Adlershof campus) is at its centre, under Google's name, and
    /// Google's walk away from it starts there (algorithm version 81, `timeline.centre_min_m`); a centre that is no
    /// position (text, out of range) is passed over and the visit stays at its place.
    @Test func aVisitIsAtItsCentreWhereItsFixesWere() throws {
        let campus = (52.4303, 13.5300), lab = (52.4333, 13.5295), main = (52.5179, 13.3937)
        func lecture(centre: (String, String)) -> String {
            """
            {"placeVisit":{"location":{"latitudeE7":\(Int(main.0 * 1e7)),"longitudeE7":\(Int(main.1 * 1e7)),"placeId":"PHU",
             "name":"Humboldt University of Berlin"},"centerLatE7":\(centre.0),"centerLngE7":\(centre.1),
             "simplifiedRawPath":{"points":[{"latE7":524302377,"lngE7":135308607},{"latE7":524294192,"lngE7":135300054},{"latE7":"x"}]},
             "duration":{"startTimestamp":"2024-05-01T08:00:00Z","endTimestamp":"2024-05-01T10:00:00Z"}}}
            """
        }
        func day(_ centre: (String, String)) -> String {
            semantic([
                lecture(centre: centre),
                activity("WALKING", from: "2024-05-01T10:00:00Z", to: "2024-05-01T10:04:00Z", start: main, end: lab, distance: 13_234),
                visit("PL", name: "Physics", lat: lab.0, lon: lab.1, from: "2024-05-01T10:04:00Z", to: "2024-05-01T12:00:00Z"),
            ])
        }
        let (_, store) = try database([("2024_MAY.json", day((String(Int(campus.0 * 1e7)), String(Int(campus.1 * 1e7)))))])
        let visits = try rows(store, "SELECT round(lat, 4), round(lon, 4) FROM visits ORDER BY start_ms")
        #expect(visits == ["52.4303|13.53", "52.4333|13.5295"])
        let places = try rows(store, "SELECT name, round(lat, 4) FROM places ORDER BY first_visit_ms")
        #expect(places == ["Humboldt University of Berlin|52.4303", "Physics|52.4333"])
        // The walk: from the campus, Google's impossible 13,234 m in 4 minutes replaced by the line to the lab.
        let walk = Geo.distance(campus.0, campus.1, lab.0, lab.1)
        let legs = try rows(store, "SELECT mode, CAST(round(distance_m) AS INTEGER) FROM legs")
        #expect(legs == ["walk|\(Int(walk.rounded()))"], "\(legs)")
        for bad in [("\"north\"", "135300000"), ("9000000000", "135300000"), ("-950000000", "135300000")] {
            let (_, other) = try database([("2024_MAY.json", day(bad))])
            #expect(try rows(other, "SELECT round(lat, 4) FROM visits ORDER BY start_ms") == ["52.5179", "52.4333"], "\(bad)")
            #expect(try rows(other, "SELECT mode FROM legs") == ["vehicle"], "\(bad)")
        }
    }

    @Test func googleVisitsAndTripsPartlyCoveredAreClipped() throws {
        // A Google visit of 08:00–12:00 at a museum while the fixes sat at the café 10:00–10:40 and drove on: it
        // keeps 08:00–10:00 (more than half of it) and the rest stays the fixes'.
        let day = semantic([
            visit("PM", name: "Museum", lat: museum.0, lon: museum.1, from: "2024-05-01T06:00:00Z", to: "2024-05-01T10:20:00Z"),
        ])
        let (_, store) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", day)])
        #expect(try rows(store, "SELECT start_ms, end_ms FROM visits WHERE source = 'app'") == ["1714543200000|1714557600000"])
        let short = semantic([
            visit("PM", name: "Museum", lat: museum.0, lon: museum.1, from: "2024-05-01T09:50:00Z", to: "2024-05-01T10:20:00Z"),
        ])
        let (_, other) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", short)])
        #expect(try other.db.scalarInt("SELECT count(*) FROM visits WHERE source = 'app'") == 0)
    }

    /// Google's own visits (`hierarchyLevel` 0) and activities in a database, the visits and trips rebuilt, and the
    /// journeys shown: a leg for each of Google's activities used (a journey of several is one trip), a trip for each
    /// of the fixes.
    func counts(_ store: Store) throws -> (googleVisits: Int64, googleTrips: Int64, visits: Int64, trips: Int64, shown: Int64) {
        let google = "FROM app_events e JOIN imports i ON i.id = e.import_id WHERE i.format LIKE '%google/%' AND "
        let shown = "SELECT (SELECT count(*) FROM legs WHERE source = 'app') + (SELECT count(*) FROM trips WHERE source = 'points')"
        let googleVisits = try store.db.scalarInt(
            "SELECT count(*) " + google + "e.kind = 'visit' AND coalesce(CAST(json_extract(e.raw, '$.visit.hierarchyLevel') AS INTEGER), 0) = 0")
        let googleTrips = try store.db.scalarInt("SELECT count(*) " + google + "e.kind = 'trip'")
        let visits = try store.db.scalarInt("SELECT count(*) FROM visits")
        let trips = try store.db.scalarInt("SELECT count(*) FROM trips")
        return (googleVisits ?? 0, googleTrips ?? 0, visits ?? 0, trips ?? 0, try store.db.scalarInt(shown) ?? 0)
    }

    func importAndRebuild(_ path: String) throws -> Store {
        let db = try temporaryDirectory() + "/t.sqlite"
        let imported = runCLI(["import", "--db", db, "--device", "g", path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let rebuilt = runCLI(["rebuild", "--db", db])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        return try Store(path: db)
    }

    /// Every real Google file with semantic data shows at least 90 % of Google's visits and activities as visits and
    /// trips, or legs of a trip (docs/PASSES.md, "timeline": 0 of 552 and 0 of 615 for iannellif before); every trip
    /// leaves a visit that ends before it and reaches one that starts after it.
    @Test(.enabled(if: Corpus.available, Corpus.absent), arguments: [
        "google-real/iannellif-geoloc", "google-real/kavuru04-cs6501/location-history.json",
        "reitti/google/timeline_from_ios_randomized.json", "reitti/google/timeline_from_android_randomized.json",
        "dawarich/google/semantic_history.json", "dawarich/google/edge_cases/semantic_history_with_bom.json",
        "dawarich/google/timeline_new_format.json", "dawarich/google/location-history.json",
        "dawarich/google/phone-takeout_w_3_duplicates.json",
    ])
    func corpusGoogleFilesShowGooglesVisitsAndTrips(_ file: String) throws {
        let store = try importAndRebuild(corpusPath(file))
        let c = try counts(store)
        #expect(c.googleVisits + c.googleTrips > 0, "\(file) holds no Google visit or activity")
        #expect(Double(c.visits) >= 0.9 * Double(c.googleVisits), "\(file): \(c.visits) visits of Google's \(c.googleVisits)")
        #expect(Double(c.shown) >= 0.9 * Double(c.googleTrips), "\(file): \(c.shown) trips and legs of Google's \(c.googleTrips) activities")
        let backwards = try store.db.scalarInt(
            """
            SELECT count(*) FROM trips t WHERE (SELECT end_ms FROM visits WHERE id = t.from_visit_id) > t.start_ms
                OR (SELECT start_ms FROM visits WHERE id = t.to_visit_id) < t.end_ms
            """)
        #expect(backwards == 0, "\(file): \(backwards ?? -1) trips leave a visit after them or reach one before them")
    }

    /// Simulated Semantic Location History (no fix at all): Google's visits and activities are the result, one for one
    /// (an activity a leg), and they score against the simulation's truth as Google wrote them.
    @Test func simulatedSemanticHistoryBecomesVisitsAndTrips() throws {
        let dir = try temporaryDirectory()
        #expect(runCLI(["simulate", "-o", dir, "--google", "--days", "3", "--people", "2", "--seed", "101"]).status == 0)
        let db = dir + "/t.sqlite"
        for device in ["overland-1", "owntracks-2"] {
            let r = runCLI(["import", "--db", db, "--device", device, dir + "/google/" + device + "/Takeout/Location History/Semantic Location History"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(runCLI(["rebuild", "--db", db]).status == 0)
        let store = try Store(path: db)
        let c = try counts(store)
        #expect(c.googleVisits > 10 && c.googleTrips > 10)
        // Google writes a journey of several modes as several activities (walk, train, walk): each is a leg, and
        // the journey is one trip, as the truth has it (the score below).
        #expect(c.visits == c.googleVisits && c.shown == c.googleTrips && c.trips < c.googleTrips)
        #expect(try store.db.scalarInt("SELECT count(*) FROM trips WHERE source != 'app' OR start_utc_offset_s IS NULL") == 0)
        let score = runCLI(["score", "--db", db, "--truth", dir + "/truth.json"])
        #expect(score.status == 0, "\(score.stderr)")
        #expect(score.stdout.contains("precision 1.00, recall 1.00, F1 1.00"), "\(score.stdout)")
    }

    /// `--pass paths` run alone (say after `--set paths.circuity=…`) measures the trips rebuilt from the fixes and
    /// leaves Google's own trips with the distance Google gave: it once re-measured them along the fixes
    /// (`distance_method` `app`, `app_path` or `app_line` → `track`). On a fully rebuilt store it changes no trip.
    @Test func thePathsPassAloneKeepsTheAppsDistances() throws {
        let (db, store) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", googleDay())])
        let sql = "SELECT t.id, t.source, t.distance_m, t.distance_method, group_concat(l.distance_m) FROM trips t "
            + "LEFT JOIN legs l ON l.trip_id = t.id GROUP BY t.id ORDER BY t.id"
        let full = try rows(store, sql)
        #expect(try store.db.scalarInt("SELECT count(*) FROM trips WHERE source = 'app' AND distance_method LIKE 'app%'") ?? 0 >= 3, "\(full)")
        let r = runCLI(["rebuild", "--db", db, "--pass", "paths"])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try rows(store, sql)
        #expect(after == full, "changed: \(after.filter { !full.contains($0) }), before: \(full.filter { !after.contains($0) })")
    }

    /// Google's months imported one at a time, with a rebuild after each (incremental: the restarts app events
    /// trigger), give the rows of one full rebuild, ids included.
    @Test func monthByMonthEqualsFull() throws {
        let second = semantic([
            activity("CYCLING", from: "2024-05-02T07:00:00Z", to: "2024-05-02T07:20:00Z", start: home, end: museum, distance: 4200),
            visit("PM", name: "Museum", lat: museum.0, lon: museum.1, from: "2024-05-02T07:20:00Z", to: "2024-05-02T09:00:00Z"),
        ])
        let dir = try temporaryDirectory()
        try FileSystem.write(googleDay(), to: dir + "/2024_MAY_1.json")
        try FileSystem.write(second, to: dir + "/2024_MAY_2.json")
        for name in ["2024_MAY_1.json", "2024_MAY_2.json"] {
            #expect(runCLI(["import", "--db", dir + "/step.sqlite", "--device", "g", dir + "/" + name]).status == 0)
            let r = runCLI(["rebuild", "--db", dir + "/step.sqlite"])
            #expect(r.status == 0 && !r.stdout.contains("up to date"), "\(r.stdout)")
            #expect(runCLI(["import", "--db", dir + "/full.sqlite", "--device", "g", dir + "/" + name]).status == 0)
        }
        #expect(runCLI(["rebuild", "--db", dir + "/full.sqlite", "--full"]).status == 0)
        let step = try Store(path: dir + "/step.sqlite"), full = try Store(path: dir + "/full.sqlite")
        for table in ["visits", "trips", "legs", "places", "days"] {
            let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
            #expect(try rows(step, sql) == rows(full, sql), "\(table)")
        }
        // The second day's ride leaves the first day's last home visit (2024-05-01 21:00 → 2024-05-02 07:00 is more than
        // link_s, so it leaves none) and reaches the museum.
        #expect(try rows(step, "SELECT t.app_place_id FROM trips JOIN visits t ON t.id = trips.to_visit_id WHERE trips.mode = 'cycle'") == ["PM"])
        #expect(try rows(step, "SELECT date, trips, visits FROM days ORDER BY date") == ["2024-05-01|4|6", "2024-05-02|1|1"])
    }

    /// A phone's own Timeline export (the iOS top-level array): `timelinePath` points inside Google's visits and
    /// activities are Google's summary of those segments, not fixes that cover them, so Google's segments are the
    /// result; path points outside every segment stay points. Google's visits are not iOS visits for the evidence pass.
    @Test func timelinePathPointsInsideGoogleSegmentsDoNotCover() throws {
        func bin(_ start: String, _ end: String, _ points: [(minutes: Int, lat: Double, lon: Double)]) -> String {
            "{\"startTime\":\"\(start)\",\"endTime\":\"\(end)\",\"timelinePath\":[" + points.map {
                "{\"point\":\"geo:\($0.lat),\($0.lon)\",\"durationMinutesOffsetFromStartTime\":\"\($0.minutes)\"}"
            }.joined(separator: ",") + "]}"
        }
        let a = (38.0300, -78.4800), b = (38.0600, -78.5000), c = (38.1000, -78.4000)
        let export = "[" + [
            """
            {"startTime":"2025-02-04T08:00:00.000-05:00","endTime":"2025-02-04T12:00:00.000-05:00","visit":{"hierarchyLevel":"0",
             "topCandidate":{"placeID":"PA","semanticType":"Home","placeLocation":"geo:\(a.0),\(a.1)"}}}
            """,
            """
            {"startTime":"2025-02-04T12:00:00.000-05:00","endTime":"2025-02-04T12:30:00.000-05:00","activity":{"start":"geo:\(a.0),\(a.1)",
             "end":"geo:\(b.0),\(b.1)","topCandidate":{"type":"in passenger vehicle","probability":"0.9"},"distanceMeters":"5200.000000"}}
            """,
            """
            {"startTime":"2025-02-04T12:30:00.000-05:00","endTime":"2025-02-04T17:00:00.000-05:00","visit":{"hierarchyLevel":"0",
             "topCandidate":{"placeID":"PB","placeLocation":"geo:\(b.0),\(b.1)"}}}
            """,
            bin("2025-02-04T13:00:00.000Z", "2025-02-04T15:00:00.000Z", (0..<12).map { ($0 * 10, a.0, a.1) }),
            bin("2025-02-04T15:00:00.000Z", "2025-02-04T17:00:00.000Z",
                (0..<6).map { ($0 * 10, a.0, a.1) } + [(70, 38.045, -78.49)] + (0..<4).map { (90 + $0 * 10, b.0, b.1) }),
            bin("2025-02-04T23:00:00.000Z", "2025-02-05T01:00:00.000Z", [(10, c.0, c.1), (40, c.0 + 0.02, c.1)]),
        ].joined(separator: ",") + "]"
        let (_, store) = try database([("location-history.json", export)])
        #expect(try store.db.scalarInt("SELECT count(*) FROM points_hot") == 25)
        #expect(try rows(store, "SELECT source, count(*) FROM visits GROUP BY source") == ["app|2"])
        #expect(try rows(store, "SELECT source, mode, distance_m, distance_method FROM trips WHERE source = 'app'") == ["app|car|5200.0|app"])
        #expect(try rows(store, "SELECT app_place_id, name FROM places WHERE app_place_id = 'PA'") == ["PA|Home"])
        // The 23 path points inside Google's segments carry the clean flag 16; the two after them do not.
        #expect(try store.db.scalarInt("SELECT count(*) FROM point_flags WHERE flags & 16 != 0") == 23)
        #expect(try store.db.scalarInt("SELECT count(*) FROM point_flags WHERE flags & 16 != 0 AND time_ms >= 1738710000000") == 0)
    }

    /// `tripline places rename|merge|forget` reach the places Google's visits founded, and stay applied through rebuilds.
    @Test func placeEditsReachGooglesPlaces() throws {
        let (db, store) = try database([("2024_MAY.json", googleDay())])
        func place(_ appID: String) throws -> String { String(try #require(try store.db.scalarInt("SELECT id FROM places WHERE app_place_id = ?", [.text(appID)]))) }
        #expect(runCLI(["places", "rename", try place("PH"), "Home", "--db", db]).status == 0)
        #expect(runCLI(["places", "merge", try place("PW2"), try place("PW"), "--db", db]).status == 0)
        #expect(runCLI(["places", "forget", try place("PA"), "--db", db]).status == 0)
        for _ in 0..<2 {
            #expect(try rows(store, "SELECT name, visits FROM places WHERE app_place_id = 'PH'") == ["Home|2"])
            #expect(try rows(store, "SELECT app_place_id, visits FROM places WHERE app_place_id IN ('PW', 'PW2', 'PA')") == ["PW|2"])
            #expect(try rows(store, "SELECT p.app_place_id FROM visits v JOIN places p ON p.id = v.place_id WHERE v.app_place_id = 'PW2'") == ["PW"])
            #expect(try store.db.scalarInt("SELECT count(*) FROM visits") == 5)
            #expect(try rows(store, "SELECT visits FROM days") == ["5"])
            #expect(runCLI(["rebuild", "--db", db, "--full"]).status == 0)
        }
    }

    /// Fixes that arrive after Google's day (the evening at home) rebuild incrementally to what one full rebuild gives:
    /// the new points' visit wins over Google's, and Google's rows elsewhere keep their ids.
    @Test func laterFixesIncrementallyEqualFull() throws {
        var evening: [String] = []
        var t: Int64 = 1_714_586_400_000  // 2024-05-01T18:00:00Z, inside Google's evening at home
        for _ in 0..<200 {
            evening.append(
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(home.1),\(home.0)]},\"properties\":{\"timestamp\":\""
                    + CivilTime.iso8601(ms: t, offset: UTCOffset(seconds: 7200)) + "\",\"speed\":0,\"horizontal_accuracy\":10}}")
            t += 30_000
        }
        let dir = try temporaryDirectory()
        let files = [("fixes.json", morningFixes()), ("2024_MAY.json", googleDay()), ("evening.json", "{\"locations\":[" + evening.joined(separator: ",") + "]}")]
        for (name, text) in files { try FileSystem.write(text, to: dir + "/" + name) }
        for (k, (name, _)) in files.enumerated() {
            #expect(runCLI(["import", "--db", dir + "/step.sqlite", "--device", "g", dir + "/" + name]).status == 0)
            if k > 0 { #expect(runCLI(["rebuild", "--db", dir + "/step.sqlite"]).status == 0) }
            #expect(runCLI(["import", "--db", dir + "/full.sqlite", "--device", "g", dir + "/" + name]).status == 0)
        }
        #expect(runCLI(["rebuild", "--db", dir + "/full.sqlite", "--full"]).status == 0)
        let step = try Store(path: dir + "/step.sqlite"), full = try Store(path: dir + "/full.sqlite")
        for table in ["visits", "trips", "legs", "places", "days"] {
            let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
            #expect(try rows(step, sql) == rows(full, sql), "\(table)")
        }
        // The evening's fixes made a visit at home, which Google's evening visit (same place) yields to: the fixes saw
        // 100 of its 300 minutes, and neither part they did not see is most of it.
        #expect(try rows(step, "SELECT source, count(*) FROM visits GROUP BY source ORDER BY source") == ["app|4", "points|3"])
    }

    /// Each table of the rebuild is written by the one pass that owns it (docs/ARCHITECTURE.md, "One owner per
    /// table"): the trips pass leaves its trips to the paths pass, which stores them measured; the places pass leaves
    /// pointing the trips at their places to the timeline pass. The one exception: the timeline pass writes Google's own
    /// rows (`source = 'app'`) into places, visits, trips and legs, names every place and points the trips at their
    /// places after adding its visits. In windows (several per device) and in one.
    @Test(arguments: [250_000, 300])
    func eachTableIsWrittenByThePassThatOwnsIt(windowPoints: Int) throws {
        let (_, store) = try database([("fixes.json", morningFixes()), ("2024_MAY.json", googleDay())])
        let log = store.recordTableWrites()
        var options = Rebuild.Options()
        options.full = true
        options.windowPoints = windowPoints
        let reports = try Rebuild(store: store, options: options).run()
        let windows = reports.first { $0.pass == "load" }?.stats.first { $0.0 == "windows" }?.1
        #expect(windowPoints > 1000 ? windows == nil : Int(windows ?? "") ?? 0 > 1)
        let owners = ["point_flags": "clean", "stays": "evidence", "places": "places", "visits": "places", "trips": "paths", "legs": "paths",
                      "days": "metrics", "app_trip_matches": "apptrips",
        ]
        let googleRows: Set<String> = ["places", "visits", "trips", "legs"]
        let byPasses = log.writers.mapValues { $0.subtracting([TableWriteLog.runner]) }.filter { !$0.value.isEmpty }
        for (table, writers) in byPasses.sorted(by: { $0.key < $1.key }) {
            let expected: Set<String> = googleRows.contains(table) ? [owners[table]!, TimelinePass.name] : [owners[table] ?? "no pass"]
            #expect(writers == expected, "\(table) written by \(writers.sorted())")
        }
        #expect(Set(byPasses.keys).isSuperset(of: ["point_flags", "stays", "places", "visits", "trips", "legs", "days"]))
        // Between the passes, only the runner's own records.
        #expect(Set(log.writers.filter { $0.value.contains(TableWriteLog.runner) }.keys).isSubset(of: ["pass_runs", "rebuild_state", "settings"]))
    }

    /// Google's flight from Haneda 17:00 +09:00 landing at LAX 10:00 −08:00 the same date (the eleventh hostile round):
    /// `days` and `report day` put 2,640 km of it on the next day, spent at home (Tokyo's clock ran past midnight);
    /// on the local clock moving from the one offset to the other it is all on 2024-11-03.
    @Test func googlesFlightEastOverTheDateLineIsOnItsOneDate() throws {
        let haneda = (35.5494, 139.7798), lax = (33.9416, -118.4085), la = (34.0522, -118.2437)
        let (db, store) = try database([("2024_NOVEMBER.json", semantic([
            visit("HND", name: "Haneda", lat: haneda.0, lon: haneda.1, from: "2024-11-03T06:00:00Z", to: "2024-11-03T08:00:00Z"),
            activity("FLYING", from: "2024-11-03T08:00:00Z", to: "2024-11-03T18:00:00Z", start: haneda, end: lax, distance: 8_800_000),
            visit("LAX", name: "LAX", lat: lax.0, lon: lax.1, from: "2024-11-03T18:00:00Z", to: "2024-11-03T19:00:00Z"),
            activity("IN_PASSENGER_VEHICLE", from: "2024-11-03T19:00:00Z", to: "2024-11-03T20:00:00Z", start: lax, end: la, distance: 30000),
            visit("HOME", name: "Home", lat: la.0, lon: la.1, from: "2024-11-03T20:00:00Z", to: "2024-11-04T16:00:00Z"),
        ]))])
        #expect(try rows(store, "SELECT date, round(distance_m), trips FROM days ORDER BY date") == ["2024-11-03|8830000.0|2", "2024-11-04|0.0|0"])
        let day = runCLI(["report", "day", "--db", db, "--date", "2024-11-04"])
        #expect(day.status == 0 && !day.stdout.contains("plane"), "\(day.stdout)")
    }

    /// Google's `STILL` segment between two visits at home (the eleventh hostile round) was a trip of `unknown` 0 m
    /// and 30 min of moving time: it is no travel.
    @Test func googlesStillIsNoTrip() throws {
        let (_, store) = try database([("2024_JUNE.json", semantic([
            visit("HOME", name: "Home", lat: home.0, lon: home.1, from: "2024-06-10T08:00:00Z", to: "2024-06-10T12:00:00Z"),
            activity("STILL", from: "2024-06-10T12:00:00Z", to: "2024-06-10T12:30:00Z", start: home, end: home, distance: 0),
            visit("HOME", name: "Home", lat: home.0, lon: home.1, from: "2024-06-10T12:30:00Z", to: "2024-06-10T20:00:00Z"),
        ]))])
        #expect(try rows(store, "SELECT count(*) FROM trips") == ["0"])
        #expect(try rows(store, "SELECT date, distance_m, moving_s, trips FROM days") == ["2024-06-10|0.0|0.0|0"])
    }
}
