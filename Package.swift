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
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The system libsqlite3, with the session extension and preupdate hook declarations enabled.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The system libxml2 (streaming XML reader), with its ICU support hidden from Swift.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // The stages, bottom up; each depends only on the ones below it (the compiler enforces the
        // data flow: see Docs/ARCHITECTURE.md).
        // Output plumbing shared by every stage: buffered sinks, the JSON writer, cancellation.
        .target(name: "ImporterSupport"),
        // What is imported: entities, attributes, values, expressions, feed mappings, views, model files.
        .target(
            name: "ImporterModel",
            dependencies: ["ImporterSupport", .product(name: "Yams", package: "Yams")]
        ),
        // Reading feeds (JSON, NDJSON, XML, CSV) into raw records, and mapping them to record batches.
        .target(
            name: "ImporterFeeds",
            dependencies: ["ImporterModel", "CLibXML2", .product(name: "CSV", package: "CSV.swift")]
        ),
        // The store (SQLite), history, views, the import pipeline and reports; re-exports the stages.
        .target(
            name: "ImporterKit",
            dependencies: [
                "ImporterSupport",
                "ImporterModel",
                "ImporterFeeds",
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
            dependencies: ["ImporterKit", "ImporterModel", "ImporterFeeds", "ImporterSupport", "CSQLite",
                           .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ImporterKit"]
        ),
    ]
)
