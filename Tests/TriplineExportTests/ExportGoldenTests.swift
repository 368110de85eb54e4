import Testing
@testable import TriplineCore
@testable import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Every (kind, format) pair an export supports.
let exportCases: [(ExportKind, ExportFormat)] = ExportKind.allCases.flatMap { kind in
    ExportFormat.allCases.compactMap { format in (kind == .days && format == .gpx) ? nil : (kind, format) }
}

/// Exports `kind` as `format` from the database at `path` into memory.
func exportBytes(_ path: String, _ kind: ExportKind, _ format: ExportFormat, filter: RecordFilter = RecordFilter()) throws -> (bytes: [UInt8], result: ExportResult) {
    let store = try Store(path: path, create: false)
    let writer = ByteWriter.memory()
    let result = try Exporter(store: store).export(kind, as: format, filter: filter, to: writer)
    return (writer.bytes, result)
}

@Suite struct ExportGoldenTests {

    /// Each export of the fixture is byte-identical to its golden file. With `TRIPLINE_UPDATE_GOLDEN=1` the golden
    /// files are rewritten instead (then review the diff by eye before committing).
    @Test(arguments: exportCases.map { "\($0.0.rawValue).\($0.1.rawValue)" })
    func matchesGoldenFile(_ name: String) throws {
        let parts = name.split(separator: ".")
        let kind = try #require(ExportKind(rawValue: String(parts[0])))
        let format = try #require(ExportFormat(rawValue: String(parts[1])))
        let fixture = try ExportFixture.temporary()
        let (bytes, result) = try exportBytes(fixture.path, kind, format)
        #expect(result.bytes == bytes.count)
        let golden = ExportFixture.goldenDirectory + "/" + name
        if getenv("TRIPLINE_UPDATE_GOLDEN") != nil {
            try FileSystem.createDirectory(ExportFixture.goldenDirectory)
            try FileSystem.write(bytes, to: golden)
            return
        }
        let expected = try FileSystem.read(golden)
        if bytes != expected {
            let actual = String(decoding: bytes, as: UTF8.self)
            Issue.record("\(name) differs from \(golden) (rerun with TRIPLINE_UPDATE_GOLDEN=1 to see the diff in git):\n\(actual)")
        }
    }

    /// The same database exported twice gives the same bytes, and a copy of it too.
    @Test func exportsAreDeterministic() throws {
        let a = try ExportFixture.temporary()
        let b = try ExportFixture.temporary()
        for (kind, format) in exportCases {
            let first = try exportBytes(a.path, kind, format).bytes
            let second = try exportBytes(a.path, kind, format).bytes
            let other = try exportBytes(b.path, kind, format).bytes
            #expect(first == second, "\(kind) \(format) differs between two runs")
            #expect(first == other, "\(kind) \(format) differs between two identical databases")
        }
    }
}
