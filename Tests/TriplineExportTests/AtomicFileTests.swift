import Testing
import TriplineCore
import TriplineStore
@testable import TriplineExport
import TriplineTestSupport

@Suite struct AtomicFileTests {
    @Test func failedExportLeavesNoTemporaryFile() throws {
        let fixture = try ExportFixture.temporary()
        let store = try Store(path: fixture.path, create: false)
        let target = fixture.directory + "/out/days.gpx"
        try FileSystem.createDirectory(fixture.directory + "/out")
        try FileSystem.write("previous\n", to: target)
        #expect(throws: ExportError.noGeometry(kind: .days, format: .gpx)) {
            try Exporter(store: store).export(.days, as: .gpx, toFile: target, stdout: OutputStream { _ in })
        }
        #expect(try FileSystem.list(fixture.directory + "/out") == ["days.gpx"])
        #expect(String(decoding: try FileSystem.read(target), as: UTF8.self) == "previous\n")
    }
}
