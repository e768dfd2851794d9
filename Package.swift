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
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The system libsqlite3, with the session extension and preupdate hook declarations enabled.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The system libyajl (streaming JSON parser), for the benchmark's parser comparison only.
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"])]
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
            dependencies: ["ImporterKit", "CSQLite", "CYajl"]
        ),
        .testTarget(
            name: "ImporterKitTests",
            dependencies: ["ImporterKit", "CSQLite", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ImporterKit"]
        ),
    ]
)
