import ImporterTestSupport
import Foundation
import HTTPTestSupport
import Synchronization
import Testing

/// `SampleData/pipeline/Makefile` run by make as cron would, against a real HTTP server on
/// loopback standing in for the API: the first run imports and writes the report, an unchanged
/// answer (a 304) rebuilds nothing, a changed one rebuilds the report, and a refusing server fails
/// the job with the store untouched.
@Suite struct PipelineMakefileTests {
    final class Served: Sendable {
        let answer = Mutex<(status: Int, etag: String, body: String)>((200, "\"v1\"", ""))
    }

    private func make(_ arguments: [String], in directory: URL) throws -> Execution {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["make", "-s"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "IMPORTER_STORE")
        environment.removeValue(forKey: "MAKEFLAGS")
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Execution(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    private func modified(_ path: URL) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path.path)[.modificationDate] as? Date
    }

    @Test func thePipelineFetchesImportsAndReportsOnlyWhatChanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try FileManager.default.copyItem(atPath: sample("pipeline/Makefile"), toPath: directory.path("Makefile"))
        let served = Served()
        served.answer.withLock { $0.body = URLFeedCommandTests.feed(4) }
        let server = try TestHTTPServer { request in
            let answer = served.answer.withLock { $0 }
            if answer.status == 200, request.header("if-none-match") == answer.etag { return .init(status: 304) }
            return .init(status: answer.status, headers: [("Content-Type", "application/json"), ("ETag", answer.etag)], text: answer.body)
        }
        defer { server.stop() }
        let arguments = ["IMPORTER=\(importerBinary)", "FEED=http://127.0.0.1:\(server.port)/fireball.api", "DEADLINE=5s"]
        let report = directory.url.appendingPathComponent("report.html")

        let first = try make(arguments, in: directory.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let firstReport = try #require(try String(contentsOf: report, encoding: .utf8))
        #expect(firstReport.contains("2024-02-04"), "the report shows the imported records")
        let written = try modified(report)

        Thread.sleep(forTimeInterval: 1.1)
        let unchanged = try make(arguments, in: directory.url)
        #expect(unchanged.status == 0, "\(unchanged.stdout)\(unchanged.stderr)")
        #expect(server.requests.last?.header("if-none-match") == "\"v1\"", "a conditional request")
        #expect(try modified(report) == written, "not modified: the report is not rebuilt")

        served.answer.withLock { $0 = (200, "\"v2\"", URLFeedCommandTests.feed(5)) }
        let changed = try make(arguments, in: directory.url)
        #expect(changed.status == 0, "\(changed.stdout)\(changed.stderr)")
        #expect(try modified(report) != written, "a changed answer rebuilds the report")
        #expect(try String(contentsOf: report, encoding: .utf8).contains("2024-02-05"))

        let store = directory.path("fireballs.sqlite")
        let before = try importer(["history", "--store", store, "--format", "json"]).stdout
        served.answer.withLock { $0 = (404, "\"v3\"", "no such API") }
        let refused = try make(arguments, in: directory.url)
        #expect(refused.status != 0 && refused.stderr.contains("404"), "\(refused.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "json"]).stdout == before, "the store is untouched")
    }
}
