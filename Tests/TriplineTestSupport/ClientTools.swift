import Foundation
import Testing
import TriplineCore

/// Runs real client programs (GDAL's ogrinfo, gpsbabel, xmllint, jq) on exports.
///
/// A test that needs one carries `ClientTools.installed("xmllint")`. On a machine without the program (a fresh
/// machine with only Swift) the test shows as skipped, with the package to install. CI's `.ci/run` installs them and
/// sets `TRIPLINE_REQUIRE_TOOLS=1`: there every such test runs, and a missing program is a failure, never a skip.
package enum ClientTools {
    package static let packages = ["ogrinfo": "gdal-bin", "ogr2ogr": "gdal-bin", "gpsbabel": "gpsbabel", "xmllint": "libxml2-utils", "jq": "jq"]

    /// Whether the environment says the programs must be there (`TRIPLINE_REQUIRE_TOOLS=1`, set by `.ci/run`).
    package static var required: Bool { ProcessInfo.processInfo.environment["TRIPLINE_REQUIRE_TOOLS"] == "1" }

    /// The trait of a test that runs `names`: enabled when they are all installed or when they are required, else
    /// skipped with the reason and the Debian packages that bring them.
    package static func installed(_ names: String...) -> ConditionTrait {
        let missing = names.filter { find($0) == nil }
        let install = missing.map { packages[$0] ?? $0 }.joined(separator: " ")
        let reason = missing.isEmpty
            ? "needs \(names.joined(separator: ", ")), installed"
            : "needs \(missing.joined(separator: ", ")), not installed here: skipped (apt-get install -y \(install); CI's .ci/run installs it and sets TRIPLINE_REQUIRE_TOOLS=1, which makes a missing program a failure)"
        return .enabled(if: missing.isEmpty || required, Comment(rawValue: reason))
    }

    /// A Python with GDAL's bindings (Debian's `python3-gdal`): the interpreter and the folder of its `osgeo_utils`,
    /// or nil. Every `python3` on `$PATH` is tried, then `/usr/bin/python3` (Debian's package installs for that one,
    /// which a pyenv or venv earlier on the path does not see).
    package static let gdalPython: (interpreter: String, utilities: String)? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/python3" } + ["/usr/bin/python3"]
        for python in candidates where FileManager.default.isExecutableFile(atPath: python) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", "import osgeo, osgeo_utils, os; print(os.path.dirname(osgeo_utils.__file__))"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let bytes = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let folder = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if process.terminationStatus == 0 && !folder.isEmpty { return (python, folder) }
        }
        return nil
    }()

    /// The trait of a test that runs GDAL's Python utilities (`validate_gpkg.py`): as ``installed(_:)``, for
    /// `python3 -c 'import osgeo'`.
    package static var gdalPythonInstalled: ConditionTrait {
        let there = gdalPython != nil
        let reason = there
            ? "needs python3 with osgeo (GDAL), installed"
            : "needs python3 with osgeo (GDAL), not installed here: skipped (apt-get install -y python3-gdal; CI's .ci/run installs it and sets TRIPLINE_REQUIRE_TOOLS=1, which makes it a failure)"
        return .enabled(if: there || required, Comment(rawValue: reason))
    }

    /// The full path of `name` on `$PATH`, or nil.
    package static func find(_ name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The program's path, or a recorded failure naming the Debian package to install.
    package static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        if let path = find(name) { return path }
        Issue.record(
            "\(name) is not installed, so the export cannot be checked with it: apt-get install -y \(packages[name] ?? name) (CI's .ci/run installs it)",
            sourceLocation: sourceLocation)
        return nil
    }

    /// Runs `name` with `arguments`; returns its exit status and output.
    package static func run(
        _ name: String, _ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (status: Int32, stdout: String, stderr: String)? {
        guard let executable = require(name, sourceLocation: sourceLocation) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        // Standard error goes to a file, so neither stream can fill up and block the tool.
        let errPath = try temporaryDirectory() + "/stderr"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let err = try #require(FileHandle(forWritingAtPath: errPath))
        process.standardOutput = out
        process.standardError = err
        var input: Pipe?
        if stdin != nil {
            input = Pipe()
            process.standardInput = input
        }
        try process.run()
        if let stdin, let input {
            // Small inputs only (tests): written whole before the output is read.
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let outBytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try err.close()
        let errBytes = FileManager.default.contents(atPath: errPath) ?? Data()
        return (process.terminationStatus, String(decoding: outBytes, as: UTF8.self), String(decoding: errBytes, as: UTF8.self))
    }

    /// `ogrinfo -ro -al -so FILE`: the feature count of each layer, by layer name.
    package static func ogrFeatureCounts(_ file: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Int]? {
        guard let result = try run("ogrinfo", ["-ro", "-al", "-so", file], sourceLocation: sourceLocation) else { return nil }
        #expect(result.status == 0, "ogrinfo failed on \(file): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("ERROR"), "ogrinfo reported an error on \(file): \(result.stderr)", sourceLocation: sourceLocation)
        var counts: [String: Int] = [:]
        var layer = ""
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("Layer name: ") { layer = String(line.dropFirst("Layer name: ".count)) }
            if line.hasPrefix("Feature Count: ") { counts[layer] = Int(line.dropFirst("Feature Count: ".count)) }
        }
        return counts
    }

    /// The path of the GPX 1.1 schema, kept in the repository: `docs/schemas/gpx-1.1.xsd` (TopoGrafix's, byte for
    /// byte; see docs/schemas/README.md).
    package static var gpxSchema: String { packageRoot() + "/docs/schemas/gpx-1.1.xsd" }
}
