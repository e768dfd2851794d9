// swift-tools-version:6.1
import PackageDescription

/// One unit test target per module (as swift-nio has them), and the conformance suite that runs
/// every store behaviour on both backends through the store's handle; each may use any stage.
let unitTestTargets: [Target] = [
    "ImporterModelTests", "ImporterFeedsTests", "ImporterFetchTests", "ImporterStoreTests", "ImporterStoreSQLTests", "ImporterStoreSQLiteTests",
    "ImporterStorePostgresTests", "StoreConformanceTests", "ImporterHistoryTests", "ImporterViewsTests", "ImporterPipelineTests",
    "ImporterReportsTests", "ImporterMetricsTests", "ImporterDeliveryTests", "ImporterSupportTests", "ImporterKeyOrderTests",
].map { name in
    .testTarget(
        name: name,
        dependencies: ["ImporterKit", "ImporterModel", "ImporterFeeds", "ImporterFetch", "ImporterSupport", "ImporterKeyOrder", "ImporterStore", "ImporterStoreSQL",
                       "ImporterStoreSQLite", "ImporterStorePostgres", "ImporterHistory", "ImporterViews", "ImporterPipeline", "ImporterReports",
                       "ImporterMetrics", "ImporterDelivery", "CSQLite", "ImporterTestSupport", "PostgresTestSupport", "HTTPTestSupport",
                       .product(name: "PropertyBased", package: "swift-property-based"),
                       .product(name: "PostgresNIO", package: "postgres-nio"),
                       .product(name: "NIOSSL", package: "swift-nio-ssl")]
    )
}

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
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3" ..< "5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.26.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
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
        // glibc's mallopt, for the executable's allocator settings.
        .systemLibrary(name: "CMalloc"),
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
            dependencies: ["ImporterModel", "CLibXML2"]
        ),
        // Fetching feeds from URLs (async-http-client): conditional requests, retries within a
        // deadline, bodies kept whole before anything parses them.
        .target(
            name: "ImporterFetch",
            dependencies: ["ImporterModel", "ImporterSupport",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl"),
                           .product(name: "NIOHTTPCompression", package: "swift-nio-extras")]
        ),
        // The store as the stages see it: the Store handle, the StoreBackend protocol (no SQL) and the
        // values that cross it (tokens, history transactions and changes, consumers, view effects).
        .target(name: "ImporterKeyOrder", dependencies: ["ImporterModel", "ImporterSupport"]),
        .target(name: "ImporterStore", dependencies: ["ImporterModel", "ImporterSupport"]),
        // The SQL both backends share, written against a dialect: model expressions and derived
        // views (their tables, deltas from history and the applying of them).
        .target(name: "ImporterStoreSQL", dependencies: ["ImporterStore", "ImporterModel"]),
        // The SQLite backend: every SQLite statement, the C API, change capture, the writer lock.
        .target(name: "ImporterStoreSQLite", dependencies: ["ImporterStoreSQL", "ImporterStore", "ImporterKeyOrder", "ImporterModel", "ImporterSupport", "CSQLite"]),
        // The PostgreSQL backend: every PostgreSQL statement, COPY staging, the advisory writer lock.
        .target(
            name: "ImporterStorePostgres",
            dependencies: ["ImporterStoreSQL", "ImporterStore", "ImporterModel", "ImporterSupport", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        // History over the store: reading, consumers and their tokens, purge, status.
        .target(name: "ImporterHistory", dependencies: ["ImporterStore", "ImporterModel"]),
        // Derived views: replay from history, rebuild, verify.
        .target(name: "ImporterViews", dependencies: ["ImporterHistory", "ImporterStore", "ImporterModel"]),
        // An import run: feeds read and mapped, upserted in one store transaction, guards, views.
        .target(
            name: "ImporterPipeline",
            dependencies: ["ImporterFeeds", "ImporterFetch", "ImporterViews", "ImporterHistory", "ImporterStore", "ImporterKeyOrder", "ImporterModel",
                           "ImporterSupport", .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Reports of runs and history ranges in every format, and their output files.
        .target(
            name: "ImporterReports",
            dependencies: ["ImporterPipeline", "ImporterViews", "ImporterHistory", "ImporterStore", "ImporterModel", "ImporterSupport"]
        ),
        // Prometheus metrics of a run and of a store (swift-prometheus' text exposition), written as
        // node_exporter textfiles atomically.
        .target(
            name: "ImporterMetrics",
            dependencies: ["ImporterReports", "ImporterPipeline", "ImporterFetch", "ImporterHistory", "ImporterStore", "ImporterModel", "ImporterSupport",
                           .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        // Delivering consumers' changes at least once: to a command or a signed webhook, the token
        // moved by compare-and-set after each transaction is received; stable delivery ids.
        .target(
            name: "ImporterDelivery",
            dependencies: ["ImporterReports", "ImporterViews", "ImporterHistory", "ImporterFetch", "ImporterStore", "ImporterModel", "ImporterSupport",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOSSL", package: "swift-nio-ssl")]
        ),
        // The composition root: re-exports the stages with the SQLite backend; exit statuses, watch.
        .target(
            name: "ImporterKit",
            dependencies: [
                "ImporterSupport", "ImporterModel", "ImporterFeeds", "ImporterFetch", "ImporterStore", "ImporterStoreSQLite",
                "ImporterStorePostgres", "ImporterHistory", "ImporterViews", "ImporterPipeline", "ImporterReports", "ImporterDelivery",
            ]
        ),
        .executableTarget(
            name: "importer",
            dependencies: [
                "ImporterKit", "ImporterMetrics", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `make bench`: end-to-end figures beside a raw-SQLite baseline.
        .executableTarget(
            name: "importer-bench",
            dependencies: ["ImporterKit", "ImporterStoreSQLite", "CSQLite"]
        ),
        // A throwaway PostgreSQL cluster (initdb + pg_ctl in a temporary directory) shared by the tests.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        // A real HTTP(S) server on loopback, answering as each test says (feeds from URLs).
        .target(
            name: "HTTPTestSupport",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")],
            path: "Tests/HTTPTestSupport"
        ),
        // What the unit test targets share: temporary directories, sample paths, fireball feeds.
        .target(
            name: "ImporterTestSupport",
            dependencies: ["ImporterKit", "ImporterStoreSQLite"],
            path: "Tests/ImporterTestSupport"
        ),
    ] + unitTestTargets + [
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["ImporterKit", "ImporterTestSupport", "PostgresTestSupport", "HTTPTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
