import ImporterTestSupport
import Foundation
import Testing

/// `--output` writes where it is told without ever replacing what is not a regular file.
@Suite struct OutputFileTests {
    private func fileType(_ path: String) throws -> FileAttributeType? {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    }

    @Test func aDeviceStaysADevice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--report", "json", "--output", "/dev/null", sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try fileType("/dev/null") == .typeCharacterSpecial)
        #expect(run.stdout.isEmpty)
    }

    @Test func dashIsStandardOutput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--report", "json", "--output", "-", sample("fireball-2024.json")], directory: directory.url)
        #expect(run.status == 0)
        #expect((run.json as? [String: Any])?["totals"] != nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path("-")))
    }

    @Test func aSymlinksTargetIsReplacedAndTheLinkKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try FileManager.default.createDirectory(atPath: directory.path("reports"), withIntermediateDirectories: true)
        try "old".write(toFile: directory.path("reports/latest.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory.path("current.json"), withDestinationPath: "reports/latest.json")
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--output", directory.path("current.json"), sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try fileType(directory.path("current.json")) == .typeSymbolicLink)
        let written = try String(contentsOfFile: directory.path("reports/latest.json"), encoding: .utf8)
        #expect(written.hasPrefix(#"{"transaction":{"token""#))
        // No temporary file is left beside the target.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("reports")) == ["latest.json"])
    }

    @Test func aFIFOIsWrittenInto() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let fifo = directory.path("reports.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let pipe = Pipe()
        reader.standardOutput = pipe
        try reader.run()
        let run = try importer(["run", "--store", directory.path("s.sqlite"), "--report", "csv", "--output", fifo, sample("fireball-2024.json")])
        let received = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(received.hasPrefix("token,transaction,"), "\(received.prefix(80))")
        #expect(try fileType(fifo) == .typeUnknown || (try fileType(fifo)) != .typeRegular)
    }

    @Test func theFormatComesFromTheExtensionOrIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let run = try importer(["run", "--store", store, "--output", directory.path("run.html"), "--output", directory.path("run.md"), sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: directory.path("run.html"), encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try String(contentsOfFile: directory.path("run.md"), encoding: .utf8).hasPrefix("# importer run"))
        let unknown = try importer(["history", "--store", store, "--output", directory.path("history.bin")])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--output \(directory.path("history.bin")): give its --report FORMAT"))
    }
}
