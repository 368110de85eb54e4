#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
import TriplineCore
import TriplineStore

/// The package root (the folder with Package.swift), found from this file's path.
package func packageRoot(_ file: String = #filePath) -> String {
    var dir = FileSystem.directoryName(file)
    while dir != "/" && !FileSystem.exists(dir + "/Package.swift") { dir = FileSystem.directoryName(dir) }
    return dir
}

/// `../shared` beside the package (real corpora, read only; never copied into the repo), or `$TRIPLINE_SHARED`
/// (set it to a missing folder to check that the suite passes without it, as in a fresh clone).
package func sharedRoot() -> String {
    if let raw = getenv("TRIPLINE_SHARED") { return String(cString: raw) }
    return packageRoot() + "/../shared"
}

/// `../shared/corpus/relative`.
package func corpusPath(_ relative: String) -> String {
    sharedRoot() + "/corpus/" + relative
}

/// Whether the real corpora are there. Tests that read them carry `.enabled(if: Corpus.available, Corpus.absent)`,
/// so in a clone without `../shared` they show as skipped, with this reason, instead of failing.
package enum Corpus {
    package static let available = FileSystem.exists(sharedRoot() + "/corpus")
    package static let absent: Comment = "needs ../shared/corpus (real archives, not part of the repository): absent here, skipped"
}

/// The shared corpus beside the package (`../shared/corpus`); nil when absent.
package func corpusDirectory() -> String? {
    Corpus.available ? sharedRoot() + "/corpus" : nil
}

/// The six header lines of a GeoLife `.plt` file (Microsoft Research GeoLife 1.3).
package let geoLifeHeader = "Geolife trajectory\r\nWGS 84\r\nAltitude is in Feet\r\nReserved 3\r\n0,2,255,My Track,0,0,2,8421376\r\n0\r\n"

/// A fixed "now" for importer and reader tests: 2026-01-01T00:00:00Z.
package let testNow: Int64 = 1_767_225_600_000

/// A fresh store in a fresh temporary directory.
package func freshStore() throws -> (Store, String) {
    let dir = try temporaryDirectory()
    return (try Store(path: dir + "/t.sqlite"), dir)
}

/// An Overland feature line.
package func overlandFeature(_ time: String, lat: Double, lon: Double, device: String = "phone", extra: String = "") -> String {
    "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"properties\":{\"timestamp\":\"\(time)\",\"device_id\":\"\(device)\",\"speed\":3,\"horizontal_accuracy\":10\(extra)}}"
}

package func overlandBody(_ features: [String]) -> String {
    "{\"locations\":[" + features.joined(separator: ",") + "]}"
}

/// Every point as "device|time|lat|lon", sorted: a device-id-independent picture of the points table.
package func pointSet(_ db: Database) throws -> [String] {
    let st = try db.prepare("SELECT d.name, p.time_ms, p.lat, p.lon FROM points p JOIN devices d ON d.id = p.device_id ORDER BY d.name, p.time_ms")
    var rows: [String] = []
    while try st.step() { rows.append("\(st.text(0)!)|\(st.int64(1))|\(st.double(2))|\(st.double(3))") }
    return rows
}

/// An archive of `files` JSON-lines files, each with `bodies` Overland bodies of 200 points, for 2 devices ("even"
/// and "odd"); each file re-sends the last 50 points of the previous one (Overland retries), so an archive holds
/// `files * bodies * 200 - (files - 1) * 50` distinct points.
package func makeArchive(_ dir: String, files: Int, bodies: Int) throws {
    try FileSystem.createDirectory(dir)
    var i = 0
    for f in 0..<files {
        var text = ""
        for _ in 0..<bodies {
            var features: [String] = []
            for _ in 0..<200 {
                features.append(overlandFeature(CivilTime.iso8601(ms: 1_704_067_200_000 + Int64(i) * 1000, offset: UTCOffset(seconds: 3600)),
                                                lat: 50 + Double(i % 997) / 10_000, lon: 8, device: i % 2 == 0 ? "even" : "odd"))
                i += 1
            }
            text += overlandBody(features) + "\n"
        }
        try FileSystem.write(text, to: dir + "/f\(f).json")
        i -= 50
    }
}
