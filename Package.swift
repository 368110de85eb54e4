// swift-tools-version:6.0
import PackageDescription

// The targets are layers: each imports only those above it in this list, so the compiler keeps the structure.
//
//   CSQLite ─ TriplineCore ─ TriplineStore ─ TriplineImport ─ TriplinePasses ─ TriplineExport   (the product's stages)
//                                          └ TriplineSimulator ─ TriplineEvaluation           (never imported by a stage)
//   TriplineCLI (every command) ─ tripline (the thin executable), tripline-bench
//
// docs/ARCHITECTURE.md draws the same graph and says what lives where.
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
        // Records, time, geometry, byte-level text and number formatting, file helpers: no SQLite, no Foundation.
        .target(name: "TriplineCore"),
        // The one owner of the database: connection, statements, migrations and every table's typed rows.
        .target(name: "TriplineStore", dependencies: ["TriplineCore", "CSQLite"]),
        // Archives to points, app events and rejects: format detection, readers, the two-thread importer.
        .target(name: "TriplineImport", dependencies: ["TriplineCore", "TriplineStore"]),
        // `rebuild`: clean → stays → places/visits → trips/legs → metrics → app trips.
        .target(name: "TriplinePasses", dependencies: ["TriplineCore", "TriplineStore"]),
        // Writers (GeoJSON, GPX, CSV), the SQL reports and the offline map.
        .target(
            name: "TriplineExport",
            dependencies: ["TriplineCore", "TriplineStore"],
            exclude: ["Generated/README.md"]
        ),
        // A seeded simulator of people's days with exact truth, and writers of real-looking archives.
        .target(name: "TriplineSimulator", dependencies: ["TriplineCore", "TriplineStore"]),
        // Scoring against simulated truth and labelled corpora (reads corpora through the real importer).
        .target(
            name: "TriplineEvaluation",
            dependencies: ["TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineSimulator"]
        ),
        // The command line: one file per command over the stages.
        .target(
            name: "TriplineCLI",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport",
                "TriplineSimulator", "TriplineEvaluation",
            ]
        ),
        // The thin executable.
        .executableTarget(name: "tripline", dependencies: ["TriplineCLI"]),
        // Benchmarks, run in release mode: `swift run -c release tripline-bench`.
        .executableTarget(
            name: "tripline-bench",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport",
                "TriplineSimulator", "TriplineEvaluation", "CSQLite",
            ]
        ),
        .testTarget(
            name: "TriplineTests",
            dependencies: [
                "TriplineCore", "TriplineStore", "TriplineImport", "TriplinePasses", "TriplineExport",
                "TriplineSimulator", "TriplineEvaluation", "TriplineCLI", "CSQLite",
            ],
            // Golden files are read through #filePath, not built or bundled.
            exclude: ["Export/Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
