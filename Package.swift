// swift-tools-version:6.0
import PackageDescription

// The targets are layers: each imports only the targets it declares below. The compiler alone does not keep that
// (SwiftPM lets a target import any module built before it); scripts/check-architecture.sh does, and checks that these
// dependencies are its list of edges.
//
//   CSQLite ─ TriplineCore ─ TriplineStore ─ TriplineImport ─ TriplinePasses ─ TriplineExport   (the product's stages)
//   CTriplineGeographyData ─ TriplineGeography (offline zones, countries, places, base layer; needs only TriplineCore;
//                                               imported by Passes and Export)
//                                          └ TriplineSimulator ─ TriplineEvaluation           (never imported by a stage)
//   CZlib (the system zlib) is used by TriplineImport only (gzip files, zip entries).
//   TriplineCLI (every command) ─ tripline (the thin executable), tripline-bench
//
// docs/ARCHITECTURE.md draws the same graph and says what lives where.
// Release builds optimise across the layers as if they were one module (calls into TriplineCore's byte writers and
// TriplineStore's column reads sit in the hot loops of every stage); debug builds keep per-module compilation.
let layered: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "Tripline",
    products: [
        .executable(name: "tripline", targets: ["tripline"]),
        .library(name: "TriplineCLI", targets: ["TriplineCLI"]),
    ],
    targets: [
        // The system SQLite, reached through a module map (no package dependencies).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The system zlib (gzip files and zip entries), reached the same way.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Records, time, geometry, byte-level text and number formatting, file helpers: no SQLite, and no Foundation but
        // Time/TimeZoneTable.swift (the system's zone database, read once at the edge).
        .target(name: "TriplineCore", swiftSettings: layered),
        // Embedded geography tables (.incbin in geography.S), built by scripts/build-geography.py; docs/GEOGRAPHY.md.
        .target(
            name: "CTriplineGeographyData",
            exclude: ["data"],
            cSettings: [.headerSearchPath("data")]
        ),
        // Offline time zone, country, nearest place and base layer for a point (needs only TriplineCore).
        .target(name: "TriplineGeography", dependencies: ["CTriplineGeographyData", "TriplineCore"], swiftSettings: layered),
        // The one owner of the database: connection, statements, migrations and every table's typed rows.
        .target(name: "TriplineStore", dependencies: ["TriplineCore", "CSQLite"], swiftSettings: layered),
        // Archives to points, app events and rejects: format detection, readers, the two-thread importer.
        .target(name: "TriplineImport", dependencies: ["TriplineCore", "TriplineStore", "CZlib"], swiftSettings: layered),
        // `rebuild`: clean → stays → evidence → places/visits → trips/legs → paths → timeline → metrics → app trips.
        .target(name: "TriplinePasses", dependencies: ["TriplineCore", "TriplineStore", "TriplineGeography"], swiftSettings: layered),
        // Writers (GeoJSON, GPX, CSV), the SQL reports and the offline map.
        .target(
            name: "TriplineExport",
            dependencies: ["TriplineCore", "TriplineStore", "TriplineGeography"],
            exclude: ["Generated/README.md"],
            swiftSettings: layered
        ),
        // A seeded simulator of people's days with exact truth, and writers of real-looking archives.
        .target(name: "TriplineSimulator", dependencies: ["TriplineCore", "TriplineStore", "TriplineGeography"], swiftSettings: layered),
        // Scoring against simulated truth and labelled corpora (reads corpora through the real importer).
        .target(
            name: "TriplineEvaluation",
            dependencies: ["TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineSimulator"],
            swiftSettings: layered
        ),
        // The command line: one file per command over the stages.
        .target(
            name: "TriplineCLI",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport",
                "TriplineSimulator", "TriplineEvaluation", "TriplineGeography",
            ],
            swiftSettings: layered
        ),
        // The thin executable.
        .executableTarget(name: "tripline", dependencies: ["TriplineCLI"], swiftSettings: layered),
        // Benchmarks, run in release mode: `swift run -c release tripline-bench`.
        .executableTarget(
            name: "tripline-bench",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport",
                "TriplineSimulator", "TriplineGeography", "TriplineEvaluation",
            ],
            swiftSettings: layered
        ),
        // Tests, one target per layer: each depends on its layer (and those below it) and on TriplineTestSupport;
        // a test goes where the code it exercises lives, and anything that runs the CLI or the built binary is in
        // TriplineCLITests. docs/ARCHITECTURE.md lists what each holds.
        // Helpers more than one test target uses (fixtures, track builders, the built binary, client tools). Only
        // test targets depend on it; it is not a product.
        .target(
            name: "TriplineTestSupport",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplinePasses", "TriplineExport", "TriplineSimulator", "TriplineCLI",
            ],
            path: "Tests/TriplineTestSupport"
        ),
        .testTarget(name: "TriplineCoreTests", dependencies: ["TriplineCore", "TriplineTestSupport"]),
        .testTarget(name: "TriplineStoreTests", dependencies: ["TriplineCore", "TriplineStore", "TriplineTestSupport"]),
        // The simulator writes some of the archives the import tests read.
        .testTarget(
            name: "TriplineImportTests",
            dependencies: ["TriplineCore", "TriplineStore", "TriplineImport", "TriplineSimulator", "CZlib", "TriplineTestSupport"]
        ),
        .testTarget(
            name: "TriplinePassesTests",
            dependencies: ["TriplineCore", "TriplineStore", "TriplinePasses", "TriplineGeography", "TriplineSimulator", "TriplineTestSupport"]
        ),
        .testTarget(
            name: "TriplineExportTests",
            dependencies: ["TriplineCore", "TriplineStore", "TriplineExport", "TriplineGeography", "TriplineSimulator", "TriplineTestSupport"],
            // Golden files are read through #filePath, not built or bundled.
            exclude: ["Golden"]
        ),
        // The simulator and the scoring against its truth and against labelled corpora.
        .testTarget(
            name: "TriplineEvaluationTests",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineSimulator", "TriplineEvaluation",
                "TriplineGeography", "TriplineTestSupport",
            ]
        ),
        // Commands in-process, the whole pipeline, and the process-level tests that run the built binary (kills,
        // faults, races, permissions).
        .testTarget(
            name: "TriplineCLITests",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport", "TriplineSimulator",
                "TriplineEvaluation", "TriplineCLI", "TriplineTestSupport", "TriplineGeography",
            ]
        ),
        .testTarget(name: "TriplineGeographyTests", dependencies: ["TriplineGeography"]),
    ],
    swiftLanguageModes: [.v6]
)
