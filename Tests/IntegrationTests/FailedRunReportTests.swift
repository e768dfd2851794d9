import ImporterTestSupport
import Foundation
import Testing

/// `run --format json` prints one report document on standard output whatever the failure, with
/// the error in `errors` and the exit code, so a program reading it never gets nothing.
@Suite struct FailedRunReportTests {
    @Test func everyFailurePrintsOneDocumentWithItsError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let cases: [([String], Int32, String)] = [
            ([sample("malformed/truncated.json")], 65, "truncated.json"),
            ([sample("malformed/bad-number.json")], 65, "expected a number"),
            ([directory.path("missing.json")], 66, "missing.json"),
        ]
        for (feeds, code, message) in cases {
            let run = try importer(["run", "--store", store, "--format", "json"] + feeds)
            #expect(run.status == code, "\(run.stderr)")
            let document = try #require(run.json as? [String: Any], "stdout: \(run.stdout)")
            #expect(document["exit_code"] as? Int == Int(code))
            #expect((document["errors"] as? [String])?.first?.contains(message) == true, "\(document)")
            #expect(document["transaction"] is NSNull && (document["changes"] as? [Any])?.isEmpty == true)
            #expect(run.stdout.split(separator: "\n").count == 1, "one document")
        }
    }

    /// A first run that fails (a reject, a parse error) leaves no store file behind, so the next
    /// run starts afresh (a store of the failed run's model would refuse a corrected one); a failed
    /// run on an existing store leaves it as it was.
    @Test func aFailedFirstRunLeavesNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        for feed in ["malformed/truncated.json", "malformed/bad-number.json"] {
            let run = try importer(["run", "--store", store, sample(feed)])
            #expect(run.status == 65, "\(run.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path(""))
            #expect(left.isEmpty, "\(feed) left \(left)")
        }
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["run", "--store", store, sample("malformed/bad-number.json")]).status == 65)
        let history = try importer(["history", "--store", store, "--format", "json"])
        #expect(history.status == 0 && FileManager.default.fileExists(atPath: store), "\(history.stderr)")
    }
}
