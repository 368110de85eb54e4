import Foundation
import Testing
@testable import TriplineStore
@testable import TriplineCore
@testable import TriplineExport
import TriplineTestSupport

/// A place named `<script>&"'`, an SSID with emoji, quotes, a comma, control characters and U+2028, a device whose
/// name is a spreadsheet formula and a name holding a lone surrogate go through every format, and every client
/// still reads them back as the same text (or, where the format cannot hold a character, U+FFFD).
@Suite struct HostileTextTests {
    static let place = "<script>&\"'"
    static let ssid = "Café 📶\u{01}\u{07}\t\"q\",\u{2028}"
    static let device = "=HYPERLINK(\"http://x\")"
    /// `Work` + the bytes ED A0 80: each byte of an invalid sequence becomes one U+FFFD (Unicode's "maximal subpart" rule).
    static let work = "Work\u{FFFD}\u{FFFD}\u{FFFD}"
    /// A locality as a hostile geography table (or a user's UPDATE) could hold it.
    static let locality = "<b>Zürich</b>, \"Ω\";\u{2028}="

    static func writeAll() throws -> [(kind: ExportKind, format: ExportFormat, path: String, result: ExportResult)] {
        var names = ExportFixture.Names()
        names.phone = device
        names.home = place
        names.homeSSID = ssid
        names.pointSSID = ssid
        names.locality = locality
        let exports = try ExportClientTests.writeAll(names: names, prepare: { store in
            // A lone surrogate (U+D800 as CESU bytes), which no UTF-8 output may contain.
            try store.db.run("UPDATE places SET name = 'Work' || CAST(x'EDA080' AS TEXT) WHERE id = 2")
        })
        return exports
    }

    @Test func geojsonKeepsEveryCharacterEscaped() throws {
        for export in try HostileTextTests.writeAll() where export.format == .geojson {
            let bytes = try FileSystem.read(export.path)
            #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A }, "\(export.path) holds a raw control character")
            #expect(String(validating: bytes, as: UTF8.self) != nil, "\(export.path) is not valid UTF-8")
        }
    }

    /// jq reads the same GeoJSON back to the hostile text that went in.
    @Test(ClientTools.installed("jq")) func jqReadsTheHostileGeoJSONBack() throws {
        for export in try HostileTextTests.writeAll() where export.format == .geojson {
            let parsed = try #require(try ClientTools.run("jq", ["-e", ".features | length", export.path]))
            #expect(parsed.status == 0, "jq could not parse \(export.path): \(parsed.stderr)")
            if export.kind == .places {
                let names = try #require(try ClientTools.run("jq", ["-j", ".features[] | .properties.name, \"\\u0000\", .properties.ssid // \"\", \"\\u0000\", .properties.device, \"\\u0000\"", export.path]))
                let fields = names.stdout.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
                #expect(fields[0] == HostileTextTests.place)
                #expect(fields[1] == HostileTextTests.ssid)
                #expect(fields[2] == HostileTextTests.device)
                #expect(fields[3] == HostileTextTests.work)
                let locality = try #require(try ClientTools.run("jq", ["-j", ".features[0].properties.locality", export.path]))
                #expect(locality.stdout == HostileTextTests.locality)
            }
            if export.kind == .points {
                let ssid = try #require(try ClientTools.run("jq", ["-j", ".features[0].properties.ssid", export.path]))
                #expect(ssid.stdout == HostileTextTests.ssid)
            }
        }
    }

    @Test(ClientTools.installed("xmllint", "gpsbabel")) func gpxStaysValidAndReadsBack() throws {
        let xmlSSID = "Café 📶\u{FFFD}\u{FFFD}\t\"q\",\u{2028}"  // XML 1.0 cannot hold U+0001 or U+0007
        for export in try HostileTextTests.writeAll() where export.format == .gpx {
            let valid = try #require(try ClientTools.run("xmllint", ["--noout", "--schema", ClientTools.gpxSchema, export.path]))
            #expect(valid.status == 0, "\(export.path) is not valid GPX 1.1: \(valid.stderr)")
            let babel = try #require(try ClientTools.run("gpsbabel", ["-i", "gpx", "-f", export.path, "-o", "gpx", "-F", export.path + ".babel"]))
            #expect(babel.status == 0, "gpsbabel failed on \(export.path): \(babel.stderr)")
            if export.kind == .places {
                let name = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='wpt'][1]/*[local-name()='name'])", export.path]))
                #expect(name.stdout == HostileTextTests.place + "\n")
                let ssid = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='ssid'][1])", export.path]))
                #expect(ssid.stdout == xmlSSID + "\n")
                let work = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='wpt'][2]/*[local-name()='name'])", export.path]))
                #expect(work.stdout == HostileTextTests.work + "\n")
                let locality = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='locality'][1])", export.path]))
                #expect(locality.stdout == HostileTextTests.locality + "\n")
            }
            if export.kind == .points {
                let ssid = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='ssid'][1])", export.path]))
                #expect(ssid.stdout == xmlSSID + "\n")
                let track = try #require(try ClientTools.run("xmllint", ["--xpath", "string(//*[local-name()='trk'][1]/*[local-name()='name'])", export.path]))
                #expect(track.stdout == HostileTextTests.device + "\n")
            }
        }
    }

    @Test func csvQuotesAndDefusesFormulas() throws {
        for export in try HostileTextTests.writeAll() where export.format == .csv {
            let text = String(decoding: try FileSystem.read(export.path), as: UTF8.self)
            // The device's name is a formula: written as text with a leading apostrophe, quoted for its quotes.
            if export.kind != .days && export.kind != .legs {
                #expect(text.contains("\"'=HYPERLINK(\"\"http://x\"\")\""), "\(export.path) lets a formula through")
            }
            if export.kind == .points {
                // Negative numbers are numbers, not formulas: no apostrophe.
                #expect(text.contains(",-2.25,8,225.5,8,automotive,0,"))
            }
        }
    }

    /// GDAL reads the same CSV files back to the hostile text that went in.
    @Test(ClientTools.installed("ogrinfo")) func ogrinfoReadsTheHostileCSVBack() throws {
        let csvSSID = "Café 📶\u{FFFD}\u{FFFD}\t\"q\",\u{2028}"  // C0 controls other than tab, CR, LF become U+FFFD
        for export in try HostileTextTests.writeAll() where export.format == .csv {
            let info = try #require(try ClientTools.run("ogrinfo", ["-ro", "-al", export.path]))
            #expect(info.status == 0, "ogrinfo failed on \(export.path): \(info.stderr)")
            if export.kind == .places {
                #expect(info.stdout.contains("name (String) = \(HostileTextTests.place)\n"))
                #expect(info.stdout.contains("ssid (String) = \(csvSSID)\n"))
                #expect(info.stdout.contains("name (String) = \(HostileTextTests.work)\n"))
                #expect(info.stdout.contains("device (String) = '=HYPERLINK(\"http://x\")\n"))
            }
            if export.kind == .points {
                #expect(info.stdout.contains("ssid (String) = \(csvSSID)\n"))
            }
        }
    }
}
