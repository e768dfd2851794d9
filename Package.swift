// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "importer",
    products: [
        .executable(name: "importer", targets: ["importer"]),
        .library(name: "ImporterKit", targets: ["ImporterKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The system libsqlite3, with the session extension and preupdate hook declarations enabled.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "ImporterKit",
            dependencies: [
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "importer",
            dependencies: [
                "ImporterKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `make bench`: end-to-end figures beside a raw-SQLite baseline.
        .executableTarget(
            name: "importer-bench",
            dependencies: ["ImporterKit", "CSQLite"]
        ),
        .testTarget(
            name: "ImporterKitTests",
            dependencies: ["ImporterKit", "CSQLite"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ImporterKit"]
        ),
    ]
)
