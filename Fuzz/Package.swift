// swift-tools-version:6.1
// libFuzzer targets for ImporterKit's input parsers (issue 9, item 6). Build and run with ./run.sh;
// see README.md. Not part of the main package: it depends on it by path.
import Foundation
import PackageDescription

// The package under test: the repository (`..`), or a copy named by IMPORTER_FUZZ_PACKAGE (a
// snapshot to fuzz while the working tree changes). A path dependency's identity is its
// directory's name (`main` in the usual checkout).
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let parentPath = Context.environment["IMPORTER_FUZZ_PACKAGE"] ?? ".."
let parentIdentity = URL(fileURLWithPath: parentPath, relativeTo: here).standardizedFileURL.lastPathComponent.lowercased()

let support: [Target.Dependency] = ["FuzzSupport", "CFuzzSupport", .product(name: "ImporterKit", package: parentIdentity)]
// The JSON targets feed the reader through a read(2) wrapper that can cut reads short
// (JSONRecordsReader has no buffer-size parameter): `--wrap=read` routes the library's calls to it.
let wrapRead: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--wrap=read"])]

let package = Package(
    name: "importer-fuzz",
    dependencies: [
        .package(path: parentPath),
    ],
    targets: [
        .target(name: "CFuzzSupport"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzSupport", .product(name: "ImporterKit", package: parentIdentity)]),
        .executableTarget(name: "fuzz-json", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-ndjson", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-nasa", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-xml", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-csv", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-model", dependencies: support, linkerSettings: wrapRead),
        .executableTarget(name: "fuzz-expression", dependencies: support, linkerSettings: wrapRead),
    ]
)
