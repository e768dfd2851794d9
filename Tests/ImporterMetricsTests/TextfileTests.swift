import ImporterTestSupport
import Foundation
import ImporterMetrics
@testable import ImporterKit
import Testing

/// The textfile writer: the file is replaced by a rename (a reader of the old one keeps reading it
/// whole), leaves no temporary file behind, and fails with exit 74 naming the file.
@Suite struct TextfileTests {
    static let family = [MetricFamily(name: "importer_x", help: "X.", samples: [.init([.init("job", "j")], 1)])]

    static func inode(_ path: String) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    @Test func replacesTheFileByARename() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("importer.prom")
        try Textfile.write(Self.family, to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == TextExposition.text(Self.family))
        let before = try Self.inode(path)
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? reader.close() }
        let replacement = [MetricFamily(name: "importer_y", help: "Y.", samples: [.init([.init("job", "j")], 2)])]
        try Textfile.write(replacement, to: path)
        #expect(try Self.inode(path) != before)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == TextExposition.text(replacement))
        #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == TextExposition.text(Self.family))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["importer.prom"])
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o044 == 0o044, "node_exporter must be able to read it")
    }

    @Test func aMissingDirectoryIsAnIOError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("no/such/dir/importer.prom")
        let error = #expect(throws: MetricsFileError.self) { try Textfile.write(Self.family, to: path) }
        #expect(error == .cannotWrite(path: path, reason: "No such file or directory"))
        #expect(error.map { ExitStatus.forError($0) } == .ioError)
    }

    @Test func aDeviceIsWrittenInto() throws {
        try Textfile.write(Self.family, to: "/dev/null")
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        #expect(type == .typeCharacterSpecial)
    }
}
