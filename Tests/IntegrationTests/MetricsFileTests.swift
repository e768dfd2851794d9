import ImporterTestSupport
import Foundation
import HTTPTestSupport
import PostgresTestSupport
import Synchronization
import Testing

/// `--metrics-file` and `status --format prometheus` of the built binary: the values match the
/// run's JSON report, a failing run writes its exit code and keeps the last success, and every file
/// passes `promtool check metrics` (Debian's `prometheus` package, which the tests need).
@Suite struct MetricsFileTests {
    /// A sample of the text exposition.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// The samples of exposition `text` (the label values these tests use hold no `"`, `,` or `}`).
    static func samples(_ text: String) -> [Sample] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { return nil }
            let series = line[..<space]
            guard let brace = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
            }
            return Sample(name: String(series[..<brace]), labels: labels, value: value)
        }
    }

    /// The value of the one sample of `name` whose labels include `labels`.
    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
        return matching.count == 1 ? matching[0].value : nil
    }

    static let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `promtool check metrics` over `text`: its complaints (empty when it accepts the text). The
    /// tests need promtool (`make test` installs Debian's prometheus package): missing, they fail.
    static func promtoolProblems(_ text: String) throws -> String? {
        let promtool = try #require(Self.promtool, "promtool is needed (Debian's prometheus package)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 && said.isEmpty ? "" : "promtool exit \(process.terminationStatus): \(said)"
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Each entity and outcome of the run's JSON report has its sample, with the same count.
    static func expectRecordsMatch(_ samples: [Sample], report: Execution, job: String) throws {
        let object = try #require(report.json as? [String: Any])
        let entities = try #require(object["entities"] as? [String: [String: Int]])
        #expect(!entities.isEmpty)
        var compared = 0
        for (entity, counts) in entities {
            for (outcome, count) in counts {
                #expect(value(samples, "importer_last_run_records", ["importer_job": job, "entity": entity, "outcome": outcome]) == Double(count), "\(entity) \(outcome)")
                compared += 1
            }
        }
        #expect(samples.filter { $0.name == "importer_last_run_records" }.count == compared)
    }

    @Test func aSuccessfulRunWritesWhatItsJSONReportSays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite"), metrics = directory.path("importer.prom")
        let before = Date().timeIntervalSince1970
        for (feed, sync) in [("fireball-2024.json", false), ("fireball-2026.json", true)] {
            let run = try importer(["run", "--store", store, "--format", "json", "--metrics-file", metrics, "--job", "nightly"] + (sync ? ["--sync"] : []) + [sample(feed)])
            #expect(run.status == 0, "\(run.stderr)")
            let text = try Self.read(metrics)
            #expect(try Self.promtoolProblems(text) ?? "" == "")
            let samples = Self.samples(text)
            try Self.expectRecordsMatch(samples, report: run, job: "nightly")
            let finished = try #require(Self.value(samples, "importer_last_run_timestamp_seconds", ["importer_job": "nightly"]))
            #expect(finished >= before && finished <= Date().timeIntervalSince1970)
            #expect(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "nightly"]) == finished)
            #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "nightly"]) == 0)
            #expect(Self.value(samples, "importer_last_run_phase_duration_seconds", ["importer_job": "nightly", "phase": "upsert"]) != nil)
            #expect(Self.value(samples, "importer_consumer_lag_transactions", ["importer_job": "nightly", "consumer": "fireball_by_year"]) == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("importer.prom") } == ["importer.prom"])
    }

    @Test func aFailingRunWritesItsExitCodeAndKeepsTheLastSuccess() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite"), metrics = directory.path("importer.prom")
        let first = try importer(["run", "--store", store, "--metrics-file", metrics, sample("fireball-2024.json")])
        #expect(first.status == 0, "\(first.stderr)")
        let succeeded = try #require(Self.value(Self.samples(try Self.read(metrics)), "importer_last_success_timestamp_seconds", ["importer_job": "run"]))
        let cases: [(arguments: [String], status: Int32)] = [
            ([sample("malformed/truncated.json")], 65),
            (["--deadline", "1s", "http://127.0.0.1:9/fireball.json"], 75),
        ]
        for (arguments, status) in cases {
            let failed = try importer(["run", "--store", store, "--metrics-file", metrics] + arguments)
            #expect(failed.status == status, "\(failed.stderr)")
            let text = try Self.read(metrics)
            #expect(try Self.promtoolProblems(text) ?? "" == "")
            let samples = Self.samples(text)
            #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "run"]) == Double(status))
            #expect(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "run"]) == succeeded)
            #expect(try #require(Self.value(samples, "importer_last_run_timestamp_seconds", ["importer_job": "run"])) > succeeded)
            #expect(!samples.contains { $0.name == "importer_last_run_records" }, "a failed run's counts were never final")
            #expect(Self.value(samples, "importer_consumer_lag_transactions", ["importer_job": "run", "consumer": "fireball_by_year"]) == 0)
        }
        let unwritable = try importer(["run", "--store", store, "--metrics-file", directory.path("no/such/dir.prom"), sample("fireball-2024.json")])
        #expect(unwritable.status == 74)
        #expect(unwritable.stderr.contains("cannot write the metrics file \(directory.path("no/such/dir.prom")): No such file or directory"), "\(unwritable.stderr)")
    }

    @Test func replayAndPurgeWriteTheirMetricsAndStatusPrintsTheStoresGauges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["consumers", "add", "mailer", "--store", store]).status == 0)
        #expect(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        for (command, job) in [(["replay"], "replay"), (["history", "purge"], "history_purge")] {
            let path = directory.path("\(job).prom")
            let run = try importer(command + ["--store", store, "--metrics-file", path])
            #expect(run.status == 0, "\(run.stderr)")
            let text = try Self.read(path)
            #expect(try Self.promtoolProblems(text) ?? "" == "")
            #expect(Self.value(Self.samples(text), "importer_last_run_exit_code", ["importer_job": job]) == 0)
            #expect(Self.value(Self.samples(text), "importer_consumer_lag_transactions", ["importer_job": job, "consumer": "mailer"]) == 1)
        }
        let status = try importer(["status", "--store", store, "--format", "prometheus"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try Self.promtoolProblems(status.stdout) ?? "" == "")
        let json = try #require(try importer(["status", "--store", store, "--format", "json"]).json as? [String: Any])
        let samples = Self.samples(status.stdout)
        let records = try #require((json["entities"] as? [String: [String: Any]])?["Fireball"]?["records"] as? Int)
        #expect(Self.value(samples, "importer_store_records", ["entity": "Fireball"]) == Double(records))
        let history = try #require(json["history"] as? [String: Any])
        #expect(Self.value(samples, "importer_store_history_transactions") == Double(try #require(history["transactions"] as? Int)))
        #expect(Self.value(samples, "importer_store_history_changes") == Double(try #require(history["changes"] as? Int)))
        #expect(Self.value(samples, "importer_store_history_purged_through_transaction") == Double(try #require(history["purged_through"] as? Int)))
        #expect(Self.value(samples, "importer_consumer_lag_transactions", ["consumer": "mailer"]) == 1)
        #expect(try #require(Self.value(samples, "importer_consumer_lag_seconds", ["consumer": "mailer"])) >= 0)
    }

    @Test func deliverWritesWhatItHandedOnAndTheConsumersLag() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite"), metrics = directory.path("deliver.prom")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["consumers", "add", "mailer", "--store", store]).status == 0)
        #expect(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        let refused = try importer(["deliver", "--store", store, "--consumer", "mailer", "--exec", "exit 3", "--metrics-file", metrics])
        #expect(refused.status == 65, "\(refused.stderr)")
        var samples = Self.samples(try Self.read(metrics))
        #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "deliver"]) == 65)
        #expect(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "deliver"]) == 0, "never succeeded")
        #expect(Self.value(samples, "importer_consumer_lag_transactions", ["importer_job": "deliver", "consumer": "mailer"]) == 1)

        let delivered = try importer(["deliver", "--store", store, "--consumer", "mailer", "--exec", "cat > /dev/null", "--metrics-file", metrics])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        let text = try Self.read(metrics)
        #expect(try Self.promtoolProblems(text) ?? "" == "")
        samples = Self.samples(text)
        #expect(Self.value(samples, "importer_last_run_delivered_transactions", ["importer_job": "deliver", "consumer": "mailer"]) == 1)
        #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "deliver"]) == 0)
        #expect(Self.value(samples, "importer_consumer_lag_transactions", ["importer_job": "deliver", "consumer": "mailer"]) == 0)
    }

    @Test func aPostgreSQLStoreHasTheSameMetrics() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let metrics = directory.path("importer.prom")
        let run = try importer(["run", "--store", url, "--format", "json", "--metrics-file", metrics, sample("fireball-2024.json")])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try Self.read(metrics)
        #expect(try Self.promtoolProblems(text) ?? "" == "")
        try Self.expectRecordsMatch(Self.samples(text), report: run, job: "run")
        #expect(Self.value(Self.samples(text), "importer_consumer_lag_transactions", ["importer_job": "run", "consumer": "fireball_by_year"]) == 0)
        let status = try importer(["status", "--store", url, "--format", "prometheus"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try Self.promtoolProblems(status.stdout) ?? "" == "")
        #expect(Self.value(Self.samples(status.stdout), "importer_store_records", ["entity": "Fireball"]) == 10)
        #expect(Self.value(Self.samples(status.stdout), "importer_store_history_transactions") == 1)
        let down = try importer(["run", "--store", "postgres://importer@127.0.0.1:1/fireballs", "--metrics-file", metrics, sample("fireball-2024.json")])
        #expect(down.status == 69, "\(down.stderr)")
        let samples = Self.samples(try Self.read(metrics))
        #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "run"]) == 69)
        #expect(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "run"]) == Self.value(Self.samples(text), "importer_last_success_timestamp_seconds", ["importer_job": "run"]))
    }

    /// A URL feed's answers (200, then 304 to its ETag, then 404), labelled by the redacted URL:
    /// no credential reaches the file; "not modified" is a success, the 404 (69) is not.
    @Test func aURLFeedsFetchResultsAreLabelledByTheRedactedSource() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let status = Mutex(200)
        let body = URLFeedCommandTests.feed(3)
        let server = try TestHTTPServer { request in
            let answer = status.withLock { $0 }
            if answer == 200, request.header("if-none-match") == "\"v1\"" { return .init(status: 304) }
            return .init(status: answer, headers: [("Content-Type", "application/json"), ("ETag", "\"v1\"")], text: answer == 200 ? body : "gone")
        }
        defer { server.stop() }
        let store = directory.path("s.sqlite"), metrics = directory.path("importer.prom")
        let url = "http://cron:hunter2@127.0.0.1:\(server.port)/fireball.api?api_key=s3cr3t"
        let source = ["importer_job": "fireballs", "source": "http://127.0.0.1:\(server.port)/fireball.api?api_key=REDACTED"]
        var successes: [Double] = []
        for (expected, exitCode, notModified) in [(200.0, Int32(0), 0.0), (304, 1, 1)] {
            let run = try importer(["run", "--store", store, "--exit-code", "--metrics-file", metrics, "--job", "fireballs", url])
            #expect(run.status == exitCode, "\(run.stderr)")
            let text = try Self.read(metrics)
            #expect(try Self.promtoolProblems(text) ?? "" == "")
            #expect(!text.contains("hunter2") && !text.contains("s3cr3t"), "no credential in the metrics file")
            let samples = Self.samples(text)
            #expect(Self.value(samples, "importer_last_run_source_http_status", source) == expected, "\(text)")
            #expect(Self.value(samples, "importer_last_run_source_not_modified", source) == notModified)
            #expect(Self.value(samples, "importer_last_run_source_attempts", source) == 1)
            #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "fireballs"]) == Double(exitCode))
            successes.append(try #require(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "fireballs"])))
        }
        #expect(successes[1] > successes[0], "a run that found nothing new succeeded")
        status.withLock { $0 = 404 }
        let refused = try importer(["run", "--store", store, "--refetch", "--metrics-file", metrics, "--job", "fireballs", url])
        #expect(refused.status == 69, "\(refused.stderr)")
        let samples = Self.samples(try Self.read(metrics))
        #expect(Self.value(samples, "importer_last_run_exit_code", ["importer_job": "fireballs"]) == 69)
        #expect(Self.value(samples, "importer_last_success_timestamp_seconds", ["importer_job": "fireballs"]) == successes[1])
    }

    /// `--job` labels the metrics file: alone, or empty, it is a usage error (64), and no file is written.
    @Test func jobWithoutAMetricsFileIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let alone = try importer(["run", "--store", store, "--job", "nightly", sample("fireball-2024.json")])
        #expect(alone.status == 64 && alone.stderr.contains("--job labels the metrics of --metrics-file"), "\(alone.stderr)")
        let empty = try importer(["replay", "--store", store, "--metrics-file", directory.path("m.prom"), "--job", ""])
        #expect(empty.status == 64 && empty.stderr.contains("--job must not be empty"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store) && !FileManager.default.fileExists(atPath: directory.path("m.prom")))
    }
}
