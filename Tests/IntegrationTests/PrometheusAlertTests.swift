import ImporterTestSupport
import Foundation
import PostgresTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The staleness alert of Docs/OPERATIONS.md, as written there, evaluated by a real Prometheus
/// (default scrape settings but a 1 s interval) scraping a real node_exporter whose textfile
/// collector reads importer's `--metrics-file`: it fires while the job has never succeeded and
/// resolves once it has. (A textfile's own `job` label would have been renamed `exported_job` by the
/// scrape, and an alert on it never fired.) Both are Debian packages (`prometheus`,
/// `prometheus-node-exporter`); the test is skipped, visibly, where either is missing.
@Suite struct PrometheusAlertTests {
    static let prometheus = "/usr/bin/prometheus"
    static let nodeExporter = "/usr/bin/prometheus-node-exporter"
    static let installed = FileManager.default.isExecutableFile(atPath: prometheus) && FileManager.default.isExecutableFile(atPath: nodeExporter)

    /// The alert expression OPERATIONS.md documents (the backquoted text holding the metric).
    static func documentedAlert() throws -> String {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/OPERATIONS.md"), encoding: .utf8)
        let spans = text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return try #require(spans.first { $0.hasPrefix("time() - importer_last_success_timestamp_seconds{") })
    }

    static func start(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// The names of the alerts in state `firing` that Prometheus at `port` reports (nil while it
    /// does not answer).
    static func firing(port: Int) -> [String]? {
        guard let data = try? Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/api/v1/alerts")!),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let alerts = (document["data"] as? [String: Any])?["alerts"] as? [[String: Any]] else { return nil }
        return alerts.filter { $0["state"] as? String == "firing" }.compactMap { ($0["labels"] as? [String: Any])?["alertname"] as? String }
    }

    /// Polls until `condition` holds on what Prometheus reports, for at most `seconds`.
    static func waitFor(_ seconds: Double, port: Int, _ condition: ([String]) -> Bool) -> [String]? {
        let until = Date().addingTimeInterval(seconds)
        var last: [String]?
        while Date() < until {
            last = firing(port: port)
            if let last, condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.5)
        }
        return last
    }

    @Test(.enabled(if: installed, "needs Debian's prometheus and prometheus-node-exporter"))
    func theDocumentedStalenessAlertFiresUnderADefaultPrometheus() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let textfiles = directory.path("textfiles")
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        let store = directory.path("fireballs.sqlite")
        let metrics = textfiles + "/importer_fireballs.prom"
        // A job that has never succeeded: its last success is 0.
        let failed = try importer(["run", "--store", store, "--metrics-file", metrics, "--job", "fireballs", directory.path("missing.json")])
        try #require(failed.status == 66, "\(failed.stderr)")

        let alert = try Self.documentedAlert()
        #expect(alert.contains(#"importer_job="fireballs""#), "the documented alert names the job by importer_job: \(alert)")
        let exporterPort = try PostgresTestCluster.freePort()
        let exporter = try Self.start(Self.nodeExporter, ["--web.listen-address=127.0.0.1:\(exporterPort)", "--collector.disable-defaults",
                                                          "--collector.textfile", "--collector.textfile.directory=\(textfiles)"],
                                      log: directory.path("node_exporter.log"))
        defer { exporter.terminate(); exporter.waitUntilExit() }
        try """
            groups:
              - name: importer
                rules:
                  - alert: ImporterStale
                    expr: \(alert)
            """.write(toFile: directory.path("rules.yml"), atomically: true, encoding: .utf8)
        // Prometheus' defaults but the intervals (1 m would make the test wait minutes).
        try """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
            rule_files: [rules.yml]
            scrape_configs:
              - job_name: node
                static_configs: [{targets: ['127.0.0.1:\(exporterPort)']}]
            """.write(toFile: directory.path("prometheus.yml"), atomically: true, encoding: .utf8)
        let prometheusPort = try PostgresTestCluster.freePort()
        let server = try Self.start(Self.prometheus, ["--config.file=\(directory.path("prometheus.yml"))", "--storage.tsdb.path=\(directory.path("data"))",
                                                      "--web.listen-address=127.0.0.1:\(prometheusPort)"], log: directory.path("prometheus.log"))
        defer { server.terminate(); server.waitUntilExit() }

        let fired = Self.waitFor(40, port: prometheusPort) { $0.contains("ImporterStale") }
        #expect(fired?.contains("ImporterStale") == true,
                "never fired: \(String(describing: fired)); \((try? String(contentsOfFile: directory.path("prometheus.log"), encoding: .utf8))?.suffix(2000) ?? "")")

        let succeeded = try importer(["run", "--store", store, "--metrics-file", metrics, "--job", "fireballs", sample("fireball-2024.json")])
        try #require(succeeded.status == 0, "\(succeeded.stderr)")
        let resolved = Self.waitFor(40, port: prometheusPort) { !$0.contains("ImporterStale") }
        #expect(resolved?.contains("ImporterStale") == false, "still firing after a success: \(String(describing: resolved))")
    }
}
