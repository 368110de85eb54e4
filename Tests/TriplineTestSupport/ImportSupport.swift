#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineImport
@testable import TriplinePasses
@testable import TriplineExport
@testable import TriplineSimulator
@testable import TriplineEvaluation
@testable import TriplineCLI

/// The package root (the folder with Package.swift), found from this file's path.
func packageRoot(_ file: String = #filePath) -> String {
    var dir = FileSystem.directoryName(file)
    while dir != "/" && !FileSystem.exists(dir + "/Package.swift") { dir = FileSystem.directoryName(dir) }
    return dir
}

/// `../shared` beside the package (real corpora, read only; never copied into the repo), or `$TRIPLINE_SHARED`
/// (set it to a missing folder to check that the suite passes without it, as in a fresh clone).
func sharedRoot() -> String {
    if let raw = getenv("TRIPLINE_SHARED") { return String(cString: raw) }
    return packageRoot() + "/../shared"
}

/// `../shared/corpus/relative`.
func corpusPath(_ relative: String) -> String {
    sharedRoot() + "/corpus/" + relative
}

/// Whether the real corpora are there. Tests that read them carry `.enabled(if: Corpus.available, Corpus.absent)`,
/// so in a clone without `../shared` they show as skipped, with this reason, instead of failing.
enum Corpus {
    static let available = FileSystem.exists(sharedRoot() + "/corpus")
    static let absent: Comment = "needs ../shared/corpus (real archives, not part of the repository): absent here, skipped"
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A fixed "now" for reader tests: 2026-01-01T00:00:00Z.
let testNow: Int64 = 1_767_225_600_000

func context(_ device: String = "dev", path: String? = nil) -> ReadContext {
    ReadContext(path: path ?? device, fallbackDevice: (device, "--device"), nowMs: testNow)
}

func parse(_ text: String, _ device: String = "dev", path: String? = nil) -> ParseOutput {
    FormatDetector.parse(bytes(text), context: context(device, path: path))
}

/// A fresh store in a fresh temporary directory.
func freshStore() throws -> (Store, String) {
    let dir = try temporaryDirectory()
    return (try Store(path: dir + "/t.sqlite"), dir)
}

/// An Overland feature line.
func overlandFeature(_ time: String, lat: Double, lon: Double, device: String = "phone", extra: String = "") -> String {
    "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"properties\":{\"timestamp\":\"\(time)\",\"device_id\":\"\(device)\",\"speed\":3,\"horizontal_accuracy\":10\(extra)}}"
}

func overlandBody(_ features: [String]) -> String {
    "{\"locations\":[" + features.joined(separator: ",") + "]}"
}

/// Every point as "device|time|lat|lon", sorted: a device-id-independent picture of the points table.
func pointSet(_ db: Database) throws -> [String] {
    let st = try db.prepare("SELECT d.name, p.time_ms, p.lat, p.lon FROM points p JOIN devices d ON d.id = p.device_id ORDER BY d.name, p.time_ms")
    var rows: [String] = []
    while try st.step() { rows.append("\(st.text(0)!)|\(st.int64(1))|\(st.double(2))|\(st.double(3))") }
    return rows
}
