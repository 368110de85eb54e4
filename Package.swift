// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tripline",
    products: [
        .executable(name: "tripline", targets: ["tripline"]),
        .library(name: "Tripline", targets: ["Tripline"]),
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
        // The whole pipeline: store, import, passes, export, simulator and the CLI commands.
        .target(
            name: "Tripline",
            dependencies: ["CSQLite", "CZlib"]
        ),
        // The thin executable.
        .executableTarget(name: "tripline", dependencies: ["Tripline"]),
        // Benchmarks, run in release mode: `swift run -c release tripline-bench`.
        .executableTarget(name: "tripline-bench", dependencies: ["Tripline", "CSQLite"]),
        .testTarget(
            name: "TriplineTests",
            dependencies: ["Tripline", "CSQLite"],
            // Golden files are read through #filePath, not built or bundled.
            exclude: ["Export/Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
