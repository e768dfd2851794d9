import ImporterTestSupport
import ImporterMetrics
@testable import ImporterKit
import Testing

/// A run's textfile families: timestamps, the kept last success, exit code, phases, records by
/// entity and outcome, fetches, consumer lags.
@Suite struct RunMetricsTests {
    /// The value of the one sample of `name` whose labels include `labels`.
    static func value(_ metrics: RunMetrics, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        let family = metrics.families.first { $0.name == name }
        let matching = family?.samples.filter { sample in labels.allSatisfy { label in sample.labels.contains { $0.name == label.key && $0.value == label.value } } }
        return matching?.count == 1 ? matching?.first?.value : nil
    }

    @Test func aSuccessIsItsOwnLastSuccess() {
        let metrics = RunMetrics(job: "nightly", finishedAt: 2000, exitCode: 0, succeeded: true, previousSuccess: 1000, durationSeconds: 4.5)
        #expect(Self.value(metrics, "importer_last_run_timestamp_seconds", ["importer_job": "nightly"]) == 2000)
        #expect(Self.value(metrics, "importer_last_success_timestamp_seconds", ["importer_job": "nightly"]) == 2000)
        #expect(Self.value(metrics, "importer_last_run_exit_code") == 0)
        #expect(Self.value(metrics, "importer_last_run_duration_seconds") == 4.5)
    }

    @Test func aFailureKeepsThePreviousSuccess() {
        let failed = RunMetrics(job: "nightly", finishedAt: 2000, exitCode: 65, succeeded: false, previousSuccess: 1000, durationSeconds: 0.1)
        #expect(Self.value(failed, "importer_last_success_timestamp_seconds") == 1000)
        #expect(Self.value(failed, "importer_last_run_timestamp_seconds") == 2000)
        #expect(Self.value(failed, "importer_last_run_exit_code") == 65)
        let never = RunMetrics(job: "nightly", finishedAt: 2000, exitCode: 75, succeeded: false, previousSuccess: nil, durationSeconds: 0.1)
        #expect(Self.value(never, "importer_last_success_timestamp_seconds") == 0)
    }

    @Test func recordsEveryOutcomeOfEveryEntity() {
        var metrics = RunMetrics(job: "j", finishedAt: 1, exitCode: 0, succeeded: true, previousSuccess: nil, durationSeconds: 1)
        metrics.observed.entities = [("Fireball", ChangeCounts(inserted: 3, updated: 3, deleted: 2, unchanged: 5, rejected: 1, duplicates: 0, rekeyed: 1)),
                                     ("Person", ChangeCounts(inserted: 7))]
        metrics.observed.phases = [("read wait", 0.25), ("upsert", 1.5)]
        let expected: [String: Int] = ["inserted": 3, "updated": 3, "deleted": 2, "unchanged": 5, "rejected": 1, "duplicates": 0, "rekeyed": 1]
        for (outcome, count) in expected {
            #expect(Self.value(metrics, "importer_last_run_records", ["entity": "Fireball", "outcome": outcome]) == Double(count))
        }
        #expect(Self.value(metrics, "importer_last_run_records", ["entity": "Person", "outcome": "inserted"]) == 7)
        #expect(metrics.families.first { $0.name == "importer_last_run_records" }?.samples.count == 14)
        #expect(Self.value(metrics, "importer_last_run_phase_duration_seconds", ["phase": "read_wait"]) == 0.25)
    }

    @Test func fetchesAreLabelledByTheirRedactedSource() {
        var metrics = RunMetrics(job: "j", finishedAt: 1, exitCode: 0, succeeded: true, previousSuccess: nil, durationSeconds: 1)
        metrics.observed.fetched = [SourceFetch(url: "https://api.example/feed?key=REDACTED", status: 304, validators: SourceValidators(etag: "\"x\""), bytes: 0, attempts: 2)]
        metrics.observed.notModified = true
        let labels = ["source": "https://api.example/feed?key=REDACTED"]
        #expect(Self.value(metrics, "importer_last_run_source_http_status", labels) == 304)
        #expect(Self.value(metrics, "importer_last_run_source_attempts", labels) == 2)
        #expect(Self.value(metrics, "importer_last_run_source_not_modified", labels) == 1)
    }

    @Test func anExpiredConsumerHasNoLag() {
        var metrics = RunMetrics(job: "j", finishedAt: 1, exitCode: 0, succeeded: true, previousSuccess: nil, durationSeconds: 1)
        metrics.consumerLags = [ConsumerLag(consumer: "mailer", kind: .external, expired: false, transactions: 2, seconds: 30),
                                ConsumerLag(consumer: "late", kind: .external, expired: true, transactions: 0, seconds: 0)]
        #expect(Self.value(metrics, "importer_consumer_lag_transactions", ["consumer": "mailer"]) == 2)
        #expect(Self.value(metrics, "importer_consumer_lag_seconds", ["consumer": "mailer"]) == 30)
        #expect(Self.value(metrics, "importer_consumer_lag_seconds", ["consumer": "late"]) == nil)
        #expect(Self.value(metrics, "importer_consumer_expired", ["consumer": "late"]) == 1)
        #expect(Self.value(metrics, "importer_consumer_expired", ["consumer": "mailer"]) == 0)
    }

    @Test func everyNameFollowsPrometheusConventions() {
        var metrics = RunMetrics(job: "j", finishedAt: 1, exitCode: 0, succeeded: true, previousSuccess: nil, durationSeconds: 1)
        metrics.observed.entities = [("Fireball", ChangeCounts())]
        for family in metrics.families {
            #expect(family.name.hasPrefix("importer_"))
            #expect(!family.name.hasSuffix("_total"), "\(family.name) is a gauge")
            #expect(family.name.allSatisfy { $0.isLowercase || $0 == "_" }, "\(family.name)")
            #expect(family.samples.allSatisfy { $0.labels.first?.name == "importer_job" })
        }
    }
}
