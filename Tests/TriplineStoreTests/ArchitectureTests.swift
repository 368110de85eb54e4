import Foundation
import Testing
import TriplineCore
import TriplineTestSupport

/// The claims of docs/ARCHITECTURE.md that grep can check, by `scripts/check-architecture.sh`: the store owns every
/// read (no `SELECT` or `prepare(` outside `Sources/TriplineStore` but the user's own SQL), `import CSQLite` only in
/// the store, each target imports only what `Package.swift` lets it, and no stage reaches the store's connection
/// (`.db`, which is internal as well).
@Suite struct ArchitectureTests {
    /// Runs the script on `root`; its exit status and what it printed.
    static func check(_ root: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [packageRoot() + "/scripts/check-architecture.sh", root]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }

    @Test func theSourcesKeepTheLayers() throws {
        let result = try Self.check(packageRoot())
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    /// The script finds each kind of breach (so the test above can fail): a tree with a read in the exports and in a
    /// pass, an `import CSQLite` in the CLI and in the passes, the store importing a stage, Foundation in Core and the
    /// connection in the CLI and in a pass.
    @Test func theCheckFindsEachBreach() throws {
        let root = try temporaryDirectory()
        func write(_ path: String, _ text: String) throws {
            try FileSystem.createDirectory(root + "/" + FileSystem.directoryName(path))
            try FileSystem.write(text, to: root + "/" + path)
        }
        try write("Sources/TriplineStore/Tables/Fine.swift", "import CSQLite\nlet sql = \"SELECT 1\"\n")
        try write("Sources/TriplinePasses/Raw.swift", "import CSQLite\nlet s = try store.db.prepare(\"SELECT 1\")\n")
        try write("Sources/TriplineExport/Reader.swift", "import TriplineStore\n// SELECT in a comment is fine\nlet s = try db.prepare(sql)\n")
        try write("Sources/TriplineCLI/Commands/Raw.swift", "import CSQLite\nlet hint = \"SELECT * FROM rejects\"  // not a read: a hint\n")
        try write("Sources/TriplineStore/Up.swift", "import TriplineExport\n")
        try write("Sources/TriplineCore/Text/Slow.swift", "import Foundation\n")
        try write(
            "Sources/TriplineCLI/Commands/Direct.swift", "// store.db in a comment is fine\ntry exporter.store.db.execute(text)\nlet path = CommonOptions.db\n")
        let result = try Self.check(root)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 10, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("Sources/TriplinePasses/Raw.swift:2:") && $0.contains("a read outside TriplineStore") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplinePasses/Raw.swift:2:") && $0.contains("the store's connection outside TriplineStore") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplinePasses/Raw.swift:1:") && $0.contains("import CSQLite outside TriplineStore") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplinePasses/Raw.swift: import CSQLite") && $0.contains("does not depend on") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineExport/Reader.swift:3:") && $0.contains("a read outside TriplineStore") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineCLI/Commands/Raw.swift:1:") && $0.contains("import CSQLite outside TriplineStore") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineCLI/Commands/Raw.swift: import CSQLite") && $0.contains("does not depend on") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineStore/Up.swift: import TriplineExport") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineCore/Text/Slow.swift: import Foundation") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineCLI/Commands/Direct.swift:2:") && $0.contains("the store's connection outside TriplineStore") })
    }

    /// The script finds each false claim of the manifest and of docs/ARCHITECTURE.md it checks: an edge Package.swift
    /// declares that LAYERS does not (and a target LAYERS lacks), a file the doc names that is not there, a table file
    /// the doc does not list and a table it lists with no file, an error type it names that nobody declares and a
    /// public one it does not name.
    @Test func theCheckFindsFalseDocClaims() throws {
        let root = try temporaryDirectory()
        func write(_ path: String, _ text: String) throws {
            try FileSystem.createDirectory(root + "/" + FileSystem.directoryName(path))
            try FileSystem.write(text, to: root + "/" + path)
        }
        try write("Package.swift", """
            .target(name: "TriplineCore", swiftSettings: layered),
            .target(name: "TriplineStore", dependencies: ["TriplineCore", "CSQLite"], swiftSettings: layered),
            .target(
                name: "TriplineExport",
                dependencies: ["TriplineCore", "TriplineStore", "TriplineImport"],
                swiftSettings: layered
            ),
            .executableTarget(name: "tripline-extra", dependencies: ["TriplineCore"]),
            .testTarget(name: "TriplineCoreTests", dependencies: ["TriplineCore", "TriplineExport"]),
            """)
        try write("Sources/TriplineCore/Fine.swift", "public struct FileError: Error {}\npublic enum LostError: Error, Sendable {}\n")
        try write("Sources/TriplineStore/Tables/PointTable.swift", "")
        try write("Sources/TriplineStore/Tables/OrphanTable.swift", "")
        try write("Sources/TriplineExport/Writers/Exporter.swift", "import TriplineStore\n")
        try write("Sources/tripline-extra/main.swift", "")
        try write("docs/ARCHITECTURE.md", """
            Start at `Sources/TriplineCore`, `Writers/Exporter.swift` and `Fine.swift`; not `Sources/TriplineGone/Old.swift`.
            Tables: `PointTable`, `GhostTable`. Errors: `FileError`, `GhostError.someCase`. SwiftPM's `SQLite.swift`.
            """)
        let result = try Self.check(root)
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("Package.swift: TriplineExport depends on:") && $0.contains("TriplineImport") })
        #expect(lines.contains { $0.hasPrefix("Package.swift: tripline-extra") && $0.contains("LAYERS") })
        #expect(lines.contains { $0.hasPrefix("docs/ARCHITECTURE.md: `Sources/TriplineGone/Old.swift`") })
        #expect(lines.contains { $0.hasPrefix("docs/ARCHITECTURE.md: `GhostTable`") })
        #expect(lines.contains { $0.hasPrefix("Sources/TriplineStore/Tables/OrphanTable.swift") })
        #expect(lines.contains { $0.hasPrefix("docs/ARCHITECTURE.md: `GhostError`") })
        #expect(lines.contains { $0.hasPrefix("Sources: LostError") })
    }
}
