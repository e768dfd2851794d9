import Foundation
import ImporterModel

/// The metric families of a run's textfile, every sample labelled with the job's name under
/// `importer_job`: never `job` (nor `instance`), which a scrape sets itself and renames a textfile's
/// own to `exported_job`, so that alerts written on `job` would never match (node_exporter's
/// textfile guidance).
extension RunMetrics {
    package var families: [MetricFamily] {
        let job = MetricFamily.Label(RunMetrics.jobLabel, job)
        var families = [
            MetricFamily(name: "importer_last_run_timestamp_seconds", help: "When the job's last run ended (Unix time).", samples: [.init([job], finishedAt)]),
            MetricFamily(name: "importer_last_success_timestamp_seconds", help: "When the job last succeeded (Unix time; 0: never).",
                         samples: [.init([job], lastSuccess)]),
            MetricFamily(name: "importer_last_run_exit_code", help: "The exit code of the job's last run (0: success).", samples: [.init([job], Double(exitCode))]),
            MetricFamily(name: "importer_last_run_duration_seconds", help: "The wall-clock time of the job's last run.", samples: [.init([job], durationSeconds)]),
        ]
        var phaseFamily = MetricFamily(name: "importer_last_run_phase_duration_seconds",
                                       help: "Where the last import spent its time, by phase (read overlaps upsert).")
        for phase in observed.phases { phaseFamily.add([job, .init("phase", phase.name.replacingOccurrences(of: " ", with: "_"))], phase.seconds) }
        families.append(phaseFamily)
        var records = MetricFamily(name: "importer_last_run_records", help: "Records of the last import by entity and outcome (as its JSON report counts them).")
        for entity in observed.entities {
            for outcome in RecordOutcome.allCases {
                records.add([job, .init("entity", entity.name), .init("outcome", outcome.rawValue)], Double(outcome.count(in: entity.counts)))
            }
        }
        families.append(records)
        if !observed.absences.isEmpty {
            var absent = MetricFamily(name: "importer_last_run_absent_field_records",
                                      help: "Records of the last import that left out a field their feed supplies, stored as null (by entity and attribute).")
            for item in observed.absences { absent.add([job, .init("entity", item.entity), .init("attribute", item.attribute)], Double(item.records)) }
            families.append(absent)
        }
        if !observed.syncWindows.isEmpty {
            var window = MetricFamily(name: "importer_last_run_sync_window_bound",
                                      help: "The bounds of the window the last windowed sync covered, by entity, scope attribute and bound (from, to); dates as Unix time.")
            for item in observed.syncWindows {
                for (bound, value) in [("from", item.from), ("to", item.to)] {
                    guard let number = value.flatMap(Self.metricValue) else { continue }
                    window.add([job, .init("entity", item.entity), .init("attribute", item.attribute), .init("bound", bound)], number)
                }
            }
            families.append(window)
        }
        families += fetchFamilies(job: job)
        if let delivered = observed.delivered {
            let labels = [job, MetricFamily.Label("consumer", delivered.consumer)]
            families.append(MetricFamily(name: "importer_last_run_delivered_transactions", help: "Transactions the last deliver's receiver took.",
                                         samples: [.init(labels, Double(delivered.transactions))]))
            families.append(MetricFamily(name: "importer_last_run_passed_over_transactions",
                                         help: "Transactions the last deliver passed over (nothing in them for the consumer).",
                                         samples: [.init(labels, Double(delivered.passedOver))]))
        }
        families += Self.lagFamilies(consumerLags, leading: [job])
        return families
    }

    /// A window bound as a sample's value: a number as it is, a stored date or date and time
    /// (`2024-05-21 10:00:00`, UTC) as Unix time.
    static func metricValue(_ value: Value) -> Double? {
        guard case .text(let text) = value else { return value.doubleValue }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = text.count > 10 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd"
        return formatter.date(from: String(text.prefix(19)))?.timeIntervalSince1970
    }

    /// The URL feeds the last import fetched: HTTP status, bytes, attempts, and whether unchanged.
    private func fetchFamilies(job: MetricFamily.Label) -> [MetricFamily] {
        var status = MetricFamily(name: "importer_last_run_source_http_status", help: "The HTTP status a URL feed answered in the last run.")
        var bytes = MetricFamily(name: "importer_last_run_source_bytes", help: "The bytes of a URL feed's body in the last run (0 when not modified).")
        var attempts = MetricFamily(name: "importer_last_run_source_attempts", help: "The requests a URL feed took in the last run (retries included).")
        var unchanged = MetricFamily(name: "importer_last_run_source_not_modified",
                                     help: "1 when the last run found the URL feed unchanged since its previous import (nothing was read), else 0.")
        for fetch in observed.fetched {
            let labels = [job, MetricFamily.Label("source", fetch.url)]
            status.add(labels, Double(fetch.status))
            bytes.add(labels, Double(fetch.bytes))
            attempts.add(labels, Double(fetch.attempts))
            unchanged.add(labels, observed.notModified ? 1 : 0)
        }
        return [status, bytes, attempts, unchanged]
    }

    /// The consumers' lag gauges, each sample's labels `leading` then `consumer`: an expired
    /// consumer has no lag samples (its lag cannot be told), only `importer_consumer_expired` 1.
    static func lagFamilies(_ lags: [ConsumerLag], leading: [MetricFamily.Label]) -> [MetricFamily] {
        var transactions = MetricFamily(name: "importer_consumer_lag_transactions", help: "History transactions a consumer (or view) has not consumed yet.")
        var seconds = MetricFamily(name: "importer_consumer_lag_seconds",
                                   help: "Age of the oldest history transaction a consumer (or view) has not consumed (0: none).")
        var expired = MetricFamily(name: "importer_consumer_expired", help: "1 when the consumer's token points into purged history, else 0.")
        for lag in lags {
            let labels = leading + [MetricFamily.Label("consumer", lag.consumer), MetricFamily.Label("kind", lag.kind.rawValue)]
            expired.add(labels, lag.expired ? 1 : 0)
            guard !lag.expired else { continue }
            transactions.add(labels, Double(lag.transactions))
            seconds.add(labels, lag.seconds)
        }
        return [transactions, seconds, expired]
    }
}
