import Testing
@testable import TriplineCore
@testable import TriplineImport
import TriplineTestSupport

@Suite struct ReaderFormatTests {
    @Test(.enabled(if: Corpus.available, Corpus.absent)) func overlandCorpusBody() throws {
        let data = try FileSystem.read(corpusPath("dawarich/overland/geodata.json"))
        let out = FormatDetector.parse(data, context: context("mine"))
        #expect(out.format == "overland/body")
        #expect(out.points.count == 1)
        let p = try #require(out.points.first)
        #expect(p.timeMs == 1_443_711_600_000)
        #expect(p.utcOffsetS == -25200)
        #expect(p.lat == 37.3318 && p.lon == -122.030581)
        #expect(p.vAccuracyM == nil)  // -1 = unknown
        #expect(p.accuracyM == 30)
        #expect(p.motion == "driving,stationary")
        #expect(p.ssid == "launchpad")
        #expect(p.batteryLevel == 0.89)
        // Empty device_id → the fallback name; the action record → an app event of device 'iphone'.
        #expect(out.devices[Int(p.deviceID)] == ParsedDevice(name: "mine", source: "overland", origin: .deviceOption))
        #expect(out.events.count == 1)
        #expect(out.events[0].kind == .other("will_terminate"))
        #expect(out.devices[out.events[0].device].name == "iphone")
        #expect(out.rejects.isEmpty)
    }

    @Test func overlandLayouts() {
        let f1 = overlandFeature("2024-01-01T10:00:00Z", lat: 50, lon: 8)
        let f2 = overlandFeature("2024-01-01T10:00:01Z", lat: 50.001, lon: 8)
        let jsonl = overlandBody([f1]) + "\n" + overlandBody([f2]) + "\n"
        let array = "[" + overlandBody([f1]) + "," + overlandBody([f2]) + "]"
        let fc = "{\"type\":\"FeatureCollection\",\"features\":[\(f1),\(f2)]}"
        let featureLines = f1 + "\n" + f2
        for (text, format) in [(jsonl, "overland/jsonl"), (array, "overland/array"), (fc, "overland/featurecollection"), (featureLines, "overland/jsonl")] {
            let out = parse(text)
            #expect(out.format == format)
            #expect(out.points.map(\.timeMs) == [1_704_103_200_000, 1_704_103_201_000], "\(format)")
            #expect(out.rejects.isEmpty)
        }
    }

    @Test func overlandTripsVisitsAndBatchObjects() {
        let trip = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.1,50.1]},\"properties\":{\"type\":\"trip\",\"mode\":\"bicycle\",\"start\":\"2024-01-01T09:00:00+01:00\",\"end\":\"2024-01-01T09:30:00+01:00\",\"distance\":5200.5,\"duration\":1800,\"device_id\":\"phone\"}}"
        let visit = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.2,50.2]},\"properties\":{\"action\":\"visit\",\"timestamp\":\"2024-01-01T12:00:00Z\",\"arrival_date\":\"2024-01-01T11:00:00Z\",\"departure_date\":null,\"device_id\":\"phone\"}}"
        let pause = "{\"type\":\"Feature\",\"properties\":{\"action\":\"paused_location_updates\",\"timestamp\":\"2024-01-01T13:00:00Z\",\"device_id\":\"phone\"}}"
        let body = "{\"locations\":[\(overlandFeature("2024-01-01T08:00:00Z", lat: 50, lon: 8)),\(trip),\(visit),\(pause)],"
            + "\"current\":\(overlandFeature("2024-01-01T14:00:00Z", lat: 51, lon: 9)),"
            + "\"trip\":{\"distance\":1000,\"mode\":\"car\",\"start\":\"2024-01-01T13:50:00Z\",\"current_location\":\(overlandFeature("2024-01-01T14:00:00Z", lat: 51, lon: 9)),\"start_location\":\(overlandFeature("2024-01-01T13:50:00Z", lat: 50.9, lon: 9))}}"
        let out = parse(body)
        #expect(out.points.count == 1)
        let kinds = out.events.map(\.kind)
        #expect(kinds == [.trip, .visit, .other("paused_location_updates"), .current, .tripProgress])
        let t = out.events[0]
        #expect(t.startMs == 1_704_096_000_000 && t.endMs == 1_704_097_800_000)
        #expect(t.distanceM == 5200.5 && t.mode == "bicycle" && t.lat == 50.1 && t.lon == 8.1)
        #expect(out.events[1].startMs == 1_704_106_800_000 && out.events[1].endMs == nil)
        #expect(out.events[2].lat == nil)
        #expect(out.events[4].mode == "car" && out.events[4].distanceM == 1000 && out.events[4].timeMs == 1_704_117_600_000)
        #expect(out.events.allSatisfy { out.devices[$0.device].name == "phone" })
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func ownTracksRecCorpusWithTabsAndSpaces() throws {
        let tabs = try FileSystem.read(corpusPath("dawarich/owntracks/2024-03.rec"))
        let out = FormatDetector.parse(tabs, context: context())
        #expect(out.format == "owntracks-rec")
        #expect(out.points.count == 9)  // the dedup happens in the database
        #expect(Set(out.events.map(\.kind)) == [.transition, .other("lwt"), .waypoint])
        #expect(out.events.count == 4)
        let first = out.points[0]
        #expect(first.timeMs == 1_709_283_789_000)
        #expect(first.speedMps == 5 / 3.6)  // vel km/h → m/s
        #expect(first.ssid == "Home Wifi" && first.bssid == "b0:f2:8:45:94:33" && first.conn == "w" && first.trigger == "p")
        #expect(first.batteryLevel == 0.94 && first.batteryState == "charging")
        #expect(first.extra?.contains("\"inregions\":[\"home\"]") == true)
        #expect(out.devices[Int(first.deviceID)].name == "test/iPhone 12 Pro")

        let spaces = try FileSystem.read(corpusPath("dawarich/owntracks/2023-02_old.rec"))
        let old = FormatDetector.parse(spaces, context: context())
        #expect(old.points.count == 10 && old.rejects.isEmpty)
        #expect(old.devices.map(\.name) == ["pixel6/pixel99"])

        let demo = try FileSystem.read(corpusPath("owntracks-recorder/demo-iphone.rec"))
        let d = FormatDetector.parse(demo, context: context())
        #expect(d.points.count == 23)
        #expect(d.events.map(\.kind) == [.other("lwt"), .other("lwt")])
        #expect(d.events[0].timeMs == 1_440_363_922_000)  // tst as a string
        #expect(d.points.contains { $0.speedMps == nil && $0.courseDeg == nil })  // vel/cog -1
        #expect(d.devices.map(\.name) == ["NE"])
    }

    @Test func recDeviceFromPathWins() {
        let line = "2024-03-01T09:03:09Z\t*                 \t{\"_type\":\"location\",\"tid\":\"RO\",\"topic\":\"owntracks/a/b\",\"lat\":52.2,\"lon\":13.3,\"tst\":1709283789}\n"
        let out = parse(line, path: "/srv/recorder/store/rec/jane/phone/2024-03.rec")
        #expect(out.devices.map(\.name) == ["jane/phone"])
        #expect(out.devices[0].origin == .path)
        // No tst: the line's receive time is used.
        let noTst = parse("2024-03-01T09:03:09Z  *  {\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.2,\"lon\":13.3}")
        #expect(noTst.points.first?.timeMs == 1_709_283_789_000)
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func ownTracksJSONForms() throws {
        let array = try FileSystem.read(corpusPath("owntracks-android/fixtures/location_multiple_messages.json"))
        let out = FormatDetector.parse(array, context: context())
        #expect(out.format == "owntracks-json/array")
        #expect(out.points.count == 2)
        let api = "{\"count\":2,\"data\":[{\"_type\":\"location\",\"lat\":48.1,\"lon\":11.5,\"tst\":1700000000,\"username\":\"jane\",\"device\":\"phone\",\"vel\":36},{\"_type\":\"location\",\"lat\":48.2,\"lon\":11.6,\"tst\":1700000060,\"username\":\"bob\",\"device\":\"tab\"}]}"
        let a = parse(api)
        #expect(a.devices.map(\.name) == ["jane/phone", "bob/tab"])
        #expect(a.points[0].speedMps == 10)
        let lines = "{\"_type\":\"location\",\"lat\":48.1,\"lon\":11.5,\"tst\":1700000000,\"tid\":\"jj\"}\n{\"_type\":\"transition\",\"event\":\"enter\",\"tst\":1700000100,\"tid\":\"jj\",\"lat\":48.1,\"lon\":11.5}\n"
        let l = parse(lines)
        #expect(l.format == "owntracks-json/jsonl")
        #expect(l.points.count == 1 && l.events.map(\.kind) == [.transition])
    }

    /// OwnTracks messages in a `locations` array (`{"count":N,"locations":[…]}`) are OwnTracks, not an Overland body.
    @Test func ownTracksLocationsArrayIsNotOverland() {
        let body = "{\"count\":2,\"locations\":[{\"_type\":\"location\",\"lat\":48.1,\"lon\":11.5,\"tst\":1700000000,\"tid\":\"jj\"},{\"_type\":\"location\",\"lat\":48.2,\"lon\":11.6,\"tst\":1700000060,\"tid\":\"jj\"}]}"
        let out = parse(body)
        #expect(out.format == "owntracks-json/locations")
        #expect(out.points.count == 2)
        #expect(out.devices.map(\.name) == ["jj"])
        #expect(out.events.isEmpty, "no Overland batch objects")
    }

    /// OwnTracks locations written without `_type` (GeoPulse's export: `lat`, `lon`, `tst`) are locations.
    @Test func ownTracksLocationsWithoutType() {
        let list = "[{\"lat\":52.5,\"lon\":13.4,\"tst\":1700000000,\"acc\":12},{\"lat\":52.51,\"lon\":13.41,\"tst\":1700000060}]"
        let out = parse(list)
        #expect(out.fatal == nil)
        #expect(out.format == "owntracks-json/array")
        #expect(out.points.map(\.timeMs) == [1_700_000_000_000, 1_700_000_060_000])
        #expect(out.points.first?.accuracyM == 12)
        // An object with no position or no time is still not a location.
        let other = parse("[{\"lat\":52.5,\"lon\":13.4,\"name\":\"x\"}]")
        #expect(other.points.isEmpty && other.fatal != nil)
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func gpxCorpus() throws {
        let gpx10 = try FileSystem.read(corpusPath("reitti/gpx/20250617.gpx"))
        let out = FormatDetector.parse(gpx10, context: context())
        #expect(out.format == "gpx/1.0")
        #expect(out.creator == "GPSLogger 133 - http://gpslogger.mendhak.com/")
        #expect(out.points.count == 2289 && out.rejects.isEmpty)
        #expect(out.points[0].timeMs == 1_750_111_209_154 && out.points[0].altitudeM == 54.5)
        let arc = try FileSystem.read(corpusPath("dawarich/gpx/arc_example.gpx"))
        let a = FormatDetector.parse(arc, context: context())
        #expect(a.format == "gpx/1.1" && a.creator == "Arc App")
        #expect(a.points.count == 6 && a.points[0].utcOffsetS == 25200)
        #expect(a.events.map(\.kind) == [.waypoint])
        let garmin = try FileSystem.read(corpusPath("dawarich/gpx/garmin_example.gpx"))
        let g = FormatDetector.parse(garmin, context: context())
        #expect(g.points.count == 1 && g.points[0].speedMps == 2.8)
        #expect(g.points[0].extra?.contains("\"hdop\":1.9") == true)
    }

    /// An attribute twice in one tag is not XML (`lat="48.1" lon="11.5" lat="49.0"` took the last): the fix is an
    /// `invalid_xml` reject, as a JSON record with a key twice is a `duplicate_key` one; the next fix reads on.
    /// A name with a prefix is another attribute: an extension's `g:lat` replaced the fix's latitude (read as `lat`).
    @Test func aGPXAttributeTwiceRejectsItsFix() {
        let gpx = "<gpx version=\"1.1\" creator=\"x\" xmlns:g=\"urn:x\"><trk><trkseg>"
            + "<trkpt lat=\"48.1\" lon=\"11.5\" lat=\"49.0\"><time>2024-01-01T10:00:00Z</time></trkpt>\n"
            + "<trkpt lat=\"48.2\" lon=\"11.5\" g:lat=\"1\"><time>2024-01-01T10:01:00Z</time></trkpt>\n"
            + "</trkseg></trk></gpx>"
        let out = parse(gpx)
        #expect(out.points.map(\.lat) == [48.2])
        #expect(out.rejects.map(\.reason) == [.invalidXML])
        #expect(out.rejects.first?.detail.contains("<trkpt> has the attribute 'lat' twice") == true, "\(out.rejects)")
    }

    /// A `<trkpt>` inside another's `<extensions>` (valid XML, not GPX: an extension holds other namespaces'
    /// elements) replaced the fix around it, which was rejected as "unclosed". The outer is the track's fix; the
    /// inner is skipped whole (its `<time>` must not become the outer's) with a row naming its line. A `<trkpt>`
    /// directly inside an open one still means the first was never closed.
    @Test func aGPXFixNestedInAnotherFixsExtensionsIsSkippedNotTaken() {
        let gpx = "<gpx version=\"1.1\" creator=\"x\"><trk><trkseg>\n"
            + "<trkpt lat=\"48.1\" lon=\"11.5\"><time>2024-01-01T10:00:00Z</time><extensions>\n"
            + "<trkpt lat=\"1\" lon=\"2\"><time>2024-01-01T11:00:00Z</time><extensions><wpt lat=\"3\" lon=\"3\"/></extensions></trkpt>\n"
            + "<x:speed>4</x:speed></extensions></trkpt>\n"
            + "<trkpt lat=\"48.2\" lon=\"11.5\"><time>2024-01-01T10:01:00Z</time></trkpt>\n"
            + "<trkpt lat=\"48.3\" lon=\"11.5\"><extensions><wpt lat=\"5\" lon=\"5\"/></extensions><time>2024-01-01T10:02:00Z</time></trkpt>\n"
            + "</trkseg></trk></gpx>"
        let out = parse(gpx)
        #expect(out.points.map(\.lat) == [48.1, 48.2, 48.3])
        #expect(out.points.map(\.timeMs) == [1_704_103_200_000, 1_704_103_260_000, 1_704_103_320_000])
        #expect(out.points.first?.speedMps == 4)
        #expect(out.events.isEmpty)
        #expect(out.rejects.map(\.reason) == [.unknownRecord, .unknownRecord], "\(out.rejects)")
        #expect(out.rejects.map(\.line) == [3, 6])
        #expect(out.rejects.first?.detail.contains("a <trkpt> inside <trkpt>'s <extensions> is not a fix") == true, "\(out.rejects)")
        // Not nested but unclosed: the first fix never closed, the next one read.
        let unclosed = parse("<gpx version=\"1.1\" creator=\"x\"><trk><trkseg>\n<trkpt lat=\"48.1\" lon=\"11.5\"><time>2024-01-01T10:00:00Z</time>\n"
            + "<trkpt lat=\"48.2\" lon=\"11.5\"><time>2024-01-01T10:01:00Z</time></trkpt>\n</trkseg></trk></gpx>")
        #expect(unclosed.points.map(\.lat) == [48.2])
        #expect(unclosed.rejects.first?.detail.contains("inside an unclosed <trkpt>") == true, "\(unclosed.rejects)")
    }

    @Test func emptyOverlandBodyAndGPXRoutes() {
        let empty = parse("{\"locations\":[]}")
        #expect(empty.fatal == nil && empty.points.isEmpty && empty.rejects.isEmpty)
        let route = parse("<gpx version=\"1.1\" creator=\"x\"><rte><rtept lat=\"50\" lon=\"8\"><time>2024-01-01T00:00:00Z</time></rtept></rte></gpx>")
        #expect(route.points.isEmpty && route.events.map(\.kind) == [.routePoint])
    }

    /// GPX from older Windows tools declares ISO-8859-1 (or declares nothing and writes Latin-1 anyway): its names are
    /// characters of that encoding, not invalid UTF-8 (which became "Caf\u{FFFD} M\u{FFFD}ller").
    @Test func latin1NamesInGPXAreRead() {
        func gpx(_ declaration: String, _ name: [UInt8]) -> [UInt8] {
            Array("\(declaration)<gpx version=\"1.1\" creator=\"x\"><wpt lat=\"52.53\" lon=\"13.4\"><time>2024-06-04T08:00:00Z</time><name>".utf8)
                + name + Array("</name></wpt><trk><trkseg><trkpt lat=\"52.53\" lon=\"13.4\"><time>2024-06-04T08:00:00Z</time><name>".utf8)
                + name + Array("</name></trkpt></trkseg></trk></gpx>".utf8)
        }
        let latin1: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x20, 0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x20, 0x80, 0x20, 0x96]  // "Café Müller € –"
        for declaration in ["<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>", "<?xml version='1.0' encoding='windows-1252'?>", ""] {
            let out = FormatDetector.parse(gpx(declaration, latin1), context: context())
            #expect(out.points.count == 1 && out.events.count == 1, "\(declaration)")
            #expect(out.points.first?.extra == "{\"name\":\"Café Müller € –\"}", "\(declaration)")
            #expect(out.events.first?.raw.contains("<name>Café Müller € –</name>") == true, "\(declaration)")
        }
        // Declared Latin-1, a character reference is its character, not its UTF-8 bytes read again as Latin-1.
        let reference = FormatDetector.parse(gpx("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>", Array("Caf&#233; M".utf8) + [0xFC]), context: context())
        #expect(reference.points.first?.extra == "{\"name\":\"Café Mü\"}")
        // UTF-8 stays UTF-8, declared or not.
        let utf8 = FormatDetector.parse(gpx("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", Array("Café Müller".utf8)), context: context())
        #expect(utf8.points.first?.extra == "{\"name\":\"Café Müller\"}")
    }

    /// A GPX or JSON file saved as UTF-16 (PowerShell 5's `>` writes it so) was "binary data, not a location archive",
    /// and inside a folder only listed as skipped: it fails now, saying what it is and how to convert it.
    @Test func utf16TextSaysSoAndFails() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><gpx version=\"1.1\" creator=\"x\"></gpx>"
        for (bom, bigEndian) in [([UInt8](arrayLiteral: 0xFF, 0xFE), false), ([0xFE, 0xFF], true)] {
            let units = text.utf16.flatMap { u in bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
            let out = FormatDetector.parse(bom + units, context: context())
            #expect(out.fatal?.contains("UTF-16 text") == true && out.fatal?.contains("iconv -f UTF-16 -t UTF-8") == true, "\(out.fatal ?? "")")
            #expect(!out.notArchive && out.points.isEmpty)
        }
    }

    @Test(.enabled(if: Corpus.available, Corpus.absent)) func notALocationArchiveIsOneClearError() throws {
        // (A Google Records.json was refused here before issue 12; it is an archive now: see TakeoutImportTests.)
        if FileSystem.exists(corpusPath("dawarich/google/records.json")) {
            let google = FormatDetector.parse(try FileSystem.read(corpusPath("dawarich/google/records.json")), context: context())
            #expect(google.fatal == nil && google.format == "google/records" && google.points.count == 3)
        }
        for (name, path) in [("unknown", "owntracks-android/fixtures/unknown_message.json")] {
            let out = FormatDetector.parse(try FileSystem.read(corpusPath(path)), context: context())
            #expect(out.fatal?.contains("not a location archive") == true, "\(name)")
            #expect(out.notArchive)
            #expect(out.points.isEmpty)
        }
        #expect(parse("<html><body>hi</body></html>").fatal?.contains("not GPX") == true)
        #expect(parse("hello world, not json").fatal != nil)
        var junk: [UInt8] = []
        var x: UInt32 = 7
        for _ in 0..<10_000 {
            x = x &* 1_103_515_245 &+ 12345
            junk.append(UInt8(truncatingIfNeeded: x >> 16))
        }
        junk[0] = 0x01
        #expect(FormatDetector.parse(junk, context: context()).fatal?.contains("binary") == true)
    }
}

@Suite struct BadInputTests {
    func one(_ props: String, geometry: String = "{\"type\":\"Point\",\"coordinates\":[8,50]}") -> ParseOutput {
        parse("{\"locations\":[{\"type\":\"Feature\",\"geometry\":\(geometry),\"properties\":{\(props)}}, \(overlandFeature("2024-05-01T00:00:00Z", lat: 1, lon: 1))]}")
    }

    func expectReject(_ out: ParseOutput, _ reason: RejectReason, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(out.rejects.map(\.reason) == [reason], sourceLocation: sourceLocation)
        #expect(out.points.count == 1, "the good record after the bad one still imports", sourceLocation: sourceLocation)
        #expect(out.rejects.first?.excerpt?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test func badFieldsBecomeRejects() {
        expectReject(one("\"device_id\":\"x\""), .missingTime)
        expectReject(one("\"timestamp\":\"yesterday\""), .invalidTime)
        expectReject(one("\"timestamp\":\"1999-12-31T23:59:59Z\""), .timeTooEarly)
        expectReject(one("\"timestamp\":\"2026-01-02T00:00:01Z\""), .timeInFuture)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "{\"type\":\"Point\",\"coordinates\":[8,91]}"), .latOutOfRange)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "{\"type\":\"Point\",\"coordinates\":[180.5,50]}"), .lonOutOfRange)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "{\"type\":\"Point\",\"coordinates\":[0,0]}"), .nullIsland)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "{\"type\":\"Point\",\"coordinates\":[NaN,50]}"), .invalidCoordinates)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "{\"type\":\"Point\",\"coordinates\":[\"8\",\"50\"]}"), .invalidCoordinates)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\"", geometry: "null"), .missingCoordinates)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\",\"timestamp\":\"2024-01-02T00:00:00Z\""), .duplicateKey)
        expectReject(one("\"timestamp\":\"2024-01-01T00:00:00Z\",\"wifi\":\"\\ud800\""), .invalidUTF8)
    }

    @Test func invalidUTF8BytesRejectOnlyTheirRecord() {
        var data = bytes("{\"locations\":[")
        data += bytes(overlandFeature("2024-01-01T00:00:00Z", lat: 50, lon: 8, extra: ",\"wifi\":\"caf"))
        data.removeLast(2)  // drop `"}`… of the properties' end to splice bad bytes into the wifi string
        data += [0xE9, 0x22] + bytes("}}")
        data += bytes("," + overlandFeature("2024-01-01T00:00:01Z", lat: 50, lon: 8) + "]}")
        let out = FormatDetector.parse(data, context: context())
        #expect(out.rejects.map(\.reason) == [.invalidUTF8])
        #expect(out.points.count == 1)
    }

    @Test func stringsAndNaNWhereNumbersBelongInOwnTracks() {
        let lines = [
            "{\"_type\":\"location\",\"lat\":\"52.1\",\"lon\":13.1,\"tst\":1700000000,\"tid\":\"a\"}",
            "{\"_type\":\"location\",\"lat\":NaN,\"lon\":13.1,\"tst\":1700000001,\"tid\":\"a\"}",
            "{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":\"soon\",\"tid\":\"a\"}",
            "{\"_type\":\"location\",\"lat\":52.1,\"lon\":13.1,\"tst\":1700000003,\"tid\":\"a\",\"vel\":\"fast\",\"acc\":-1}",
        ]
        let out = parse(lines.joined(separator: "\n"))
        // "lat":"52.1" (a string holding a number, as early OwnTracks apps wrote it) is accepted since issue 12; a
        // "vel":"fast" is dropped with a row (before, without one), the fix kept; an "acc" of -1 is "unknown", no row.
        #expect(out.rejects.map(\.reason) == [.invalidCoordinates, .invalidTime, .invalidMeasure])
        #expect(out.rejects.map(\.line) == [2, 3, 4])
        #expect(out.points.count == 2 && out.points[0].lat == 52.1)
        #expect(out.points[1].speedMps == nil && out.points[1].accuracyM == nil)
    }

    @Test func truncatedFilesKeepEverythingBeforeTheCut() {
        let full = overlandBody((0..<10).map { overlandFeature("2024-01-01T00:00:0\($0)Z", lat: 50, lon: 8) })
        let cut = String(full.prefix(full.count * 2 / 3))
        let out = parse(cut)
        #expect(out.rejects.map(\.reason) == [.truncated])
        #expect(out.points.count >= 5 && out.points.count < 10)
        // A truncated JSON-lines file: the last line is cut.
        let lines = (0..<4).map { overlandBody([overlandFeature("2024-01-01T00:00:0\($0)Z", lat: 50, lon: 8)]) }.joined(separator: "\n")
        let l = parse(String(lines.dropLast(30)))
        #expect(l.points.count == 3 && l.rejects.map(\.reason) == [.truncated])
        // GPX cut mid-trkpt.
        let gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"50\" lon=\"8\"><time>2024-01-01T00:00:00Z</time></trkpt><trkpt lat=\"50.1\" lon=\"8\"><time>2024-01"
        let g = parse(gpx)
        #expect(g.points.count == 1 && g.rejects.map(\.reason) == [.truncated])
        // A .rec cut mid-line.
        let rec = "2024-03-01T09:03:09Z\t*\t{\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.2,\"lon\":13.3,\"tst\":1709283789}\n2024-03-01T09:03:10Z\t*\t{\"_type\":\"loc"
        let r = parse(rec)
        #expect(r.points.count == 1 && r.rejects.map(\.reason) == [.truncated])
    }

    @Test func badLinesInJSONLinesAndRecFilesCostOneRejectEach() {
        let good = { (i: Int) in overlandBody([overlandFeature("2024-01-01T00:00:0\(i)Z", lat: 50, lon: 8)]) }
        let text = [good(1), "{\"locations\":[{oops", good(2), "\u{01}\u{02}binary\u{00}junk", good(3)].joined(separator: "\n")
        let out = parse(text)
        #expect(out.points.count == 3)
        #expect(out.rejects.map(\.reason) == [.invalidJSON, .binaryData])
        #expect(out.rejects.map(\.line) == [2, 4])
        let rec = "2024-03-01T09:03:09Z\t*\t{\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.2,\"lon\":13.3,\"tst\":1709283789}\ngarbage line\n2024-03-01T09:03:10Z\t*\tnot json\n2024-03-01T09:03:11Z\t*\t{\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.3,\"lon\":13.3,\"tst\":1709283791}\n"
        let r = parse(rec)
        #expect(r.points.count == 2)
        #expect(r.rejects.map(\.reason) == [.invalidLine, .invalidLine])
        #expect(r.rejects.map(\.line) == [2, 3])
    }

    /// Files saved each with a UTF-8 byte-order mark and joined by `cat`: a mark at the start of every line. Every
    /// line is read (the ninth hostile round: an Overland body a line, 60 of 180 fixes imported and "the rest of the
    /// file could not be read"; a `.rec` line lost as `invalid_line`), also after a bad line.
    @Test func byteOrderMarksAtTheStartOfEachLineCostNothing() {
        let bom = "\u{FEFF}"
        let good = { (i: Int) in bom + overlandBody([overlandFeature("2024-01-01T00:00:0\(i)Z", lat: 50, lon: 8)]) }
        let out = parse([good(1), good(2), bom + "{\"locations\":[{oops", good(3)].joined(separator: "\n") + "\n")
        #expect(out.points.count == 3 && out.format == "overland/jsonl", "\(out.format) \(out.rejects)")
        #expect(out.rejects.map(\.reason) == [.invalidJSON] && out.rejects.map(\.line) == [3])
        let line = { (s: Int) in bom + "2024-03-01T09:03:0\(s)Z\t*\t{\"_type\":\"location\",\"tid\":\"RO\",\"lat\":52.2,\"lon\":13.3,\"tst\":170928378\(s)}" }
        let rec = parse([line(1), line(2), line(3)].joined(separator: "\n") + "\n")
        #expect(rec.points.count == 3 && rec.rejects.isEmpty, "\(rec.rejects)")
    }

    @Test func aDamagedElementInsideOneDocumentCostsOnlyThatElement() {
        // Pretty-printed and compact bodies: the third feature is damaged mid-way; the rest still imports.
        let features = (0..<6).map { overlandFeature("2024-01-01T00:00:0\($0)Z", lat: 50, lon: 8) }
        var damaged = features
        damaged[2] = String(features[2].prefix(60)) + "@@@" + String(features[2].dropFirst(60))
        for separator in [",", ",\n    "] {
            let out = parse("{\"locations\":[" + damaged.joined(separator: separator) + "]}")
            #expect(out.points.count == 5, "separator \(separator.debugDescription)")
            #expect(out.rejects.map(\.reason) == [.invalidJSON])
        }
        // An array of OwnTracks messages.
        let messages = (0..<4).map { "{\"_type\":\"location\",\"tid\":\"ab\",\"lat\":52.1,\"lon\":13.\($0),\"tst\":170000000\($0)}" }
        var bad = messages
        bad[1] = "{\"_type\":\"location\",\"tid\":\"ab\",\"lat\":52.1,\"lon\":}"
        let o = parse("[" + bad.joined(separator: ",\n") + "]")
        #expect(o.points.count == 3 && o.rejects.map(\.reason) == [.invalidJSON])
    }

    @Test func emptyFiles() {
        #expect(parse("").rejects.map(\.reason) == [.emptyFile])
        #expect(parse("  \n\n ").rejects.map(\.reason) == [.emptyFile])
        #expect(parse("").fatal == nil)
    }

    @Test func aSingleHugeLineIsReadWithoutTrouble() {
        // One 20 MB line: a single body of ~60,000 features.
        var features: [String] = []
        var size = 0
        var i = 0
        while size < 20_000_000 {
            let f = overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(i) * 1000), lat: 50 + Double(i % 1000) / 10000, lon: 8,
                                    extra: ",\"pad\":\"" + String(repeating: "x", count: 200) + "\"")
            size += f.count + 1
            features.append(f)
            i += 1
        }
        let out = parse(overlandBody(features))
        #expect(out.points.count == features.count)
        #expect(out.rejects.isEmpty)
        // And a 20 MB line of junk is one reject, not a hang.
        let junk = "{\"locations\":[" + String(repeating: "x", count: 20_000_000)
        let j = parse(junk)
        #expect(j.points.isEmpty)
        #expect(j.fatal != nil || j.rejects.count == 1)
    }

    @Test func hugeObjectsAndManyUnknownRecordsStayFastAndBounded() {
        // 200,000 keys in one record: duplicate detection hashes, no quadratic blow-up.
        let keys = (0..<200_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let big = parse("{\"_type\":\"location\",\"tid\":\"ab\",\"lat\":52.1,\"lon\":13.1,\"tst\":1700000000," + keys + "}")
        #expect(big.points.count == 1)
        let dup = parse("{\"_type\":\"location\",\"tid\":\"ab\",\"lat\":52.1,\"lon\":13.1,\"tst\":1700000000," + keys + ",\"k5\":1}")
        #expect(dup.rejects.map(\.reason) == [.duplicateKey])
        // 100,000 JSON lines of something else: one clear error, not 100,000 rejects held in memory.
        let other = String(repeating: "{\"a\":1}\n", count: 100_000)
        let o = parse(other)
        #expect(o.fatal != nil && o.rejects.isEmpty)
    }

    @Test func deeplyNestedHostileInputIsRejectedNotACrash() {
        let deep = "{\"locations\":[" + String(repeating: "[", count: 200_000) + "]}"
        let out = parse(deep)
        #expect(out.points.isEmpty)
        #expect(out.fatal != nil || !out.rejects.isEmpty)
    }
}
