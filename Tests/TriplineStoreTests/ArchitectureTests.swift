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
}
