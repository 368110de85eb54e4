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
        // The whole pipeline: store, import, passes, export, simulator and the CLI commands.
        .target(
            name: "Tripline",
            dependencies: ["CSQLite"]
        ),
        // Embedded geography tables (.incbin in geography.S), built by scripts/build-geography.py; docs/GEOGRAPHY.md.
        .target(
            name: "CTriplineGeographyData",
            exclude: ["data"],
            cSettings: [.headerSearchPath("data")]
        ),
        // Offline time zone, country, nearest place and base layer for a point (no other dependency).
        .target(name: "TriplineGeography", dependencies: ["CTriplineGeographyData"]),
        // The thin executable.
        .executableTarget(name: "tripline", dependencies: ["Tripline"]),
        // Benchmarks, run in release mode: `swift run -c release tripline-bench`.
        .executableTarget(name: "tripline-bench", dependencies: ["Tripline", "CSQLite", "TriplineGeography"]),
        .testTarget(
            name: "TriplineTests",
            dependencies: ["Tripline", "CSQLite"],
            // Golden files are read through #filePath, not built or bundled.
            exclude: ["Export/Golden"]
        ),
        .testTarget(name: "TriplineGeographyTests", dependencies: ["TriplineGeography"]),
    ],
    swiftLanguageModes: [.v6]
)
