import ArgumentParser
import Foundation
import ImporterKit
import ImporterMetrics

/// `--metrics-file PATH` and `--job NAME`, shared by the commands a cron job runs (`run`, `replay`,
/// `history purge`): the command writes a node_exporter textfile of its run, on failure too.
struct MetricsOptions: ParsableArguments {
    @Option(name: .customLong("metrics-file"), help: ArgumentHelp("Write the run's Prometheus metrics to this node_exporter textfile (replaced atomically, also when the run fails: exit code, last success kept).", valueName: "file"), completion: .file(extensions: ["prom"]))
    var metricsFile: String?

    @Option(name: .long, help: ArgumentHelp("The job label of the metrics (default: the command, e.g. run).", valueName: "name"))
    var job: String?

    func validate() throws {
        if let job, job.isEmpty { throw ValidationError("--job must not be empty") }
        if job != nil && metricsFile == nil { throw ValidationError("--job labels the metrics of --metrics-file: give --metrics-file FILE too") }
        if let metricsFile, metricsFile.isEmpty { throw ValidationError("--metrics-file must not be empty") }
    }

    /// Where the run's metrics go (nil without `--metrics-file`): labelled `--job`, else `command`;
    /// the consumers' lags are read from the store `store` names once the run ended.
    func target(command: String, store: StoreOptions) -> MetricsTarget? {
        metricsFile.map { MetricsTarget(path: $0, job: job ?? command, store: store) }
    }
}

/// A command's metrics file, written once its exit code is known (`runReportingErrors`).
struct MetricsTarget {
    var path: String
    var job: String
    var store: StoreOptions

    /// Writes the file of a run that ended with `exitCode` after `durationSeconds`, having
    /// `observed` what it did; a failed run keeps the last success the file held.
    func write(exitCode: Int32, succeeded: Bool, durationSeconds: Double, observed: RunObservation) throws(MetricsFileError) {
        let now = Date().timeIntervalSince1970
        var metrics = RunMetrics(job: job, finishedAt: now, exitCode: exitCode, succeeded: succeeded,
                                 previousSuccess: succeeded ? nil : LastSuccess.read(path: path, job: job), durationSeconds: durationSeconds)
        metrics.observed = observed
        metrics.consumerLags = consumerLags(now: now)
        try Textfile.write(metrics.families, to: path)
    }

    /// The lags of the store's consumers now, or none when the store cannot be read (it does not
    /// exist, the server is down).
    private func consumerLags(now: Double) -> [ConsumerLag] {
        guard Store.isPostgres(store.path) || FileManager.default.fileExists(atPath: store.path) else { return [] }
        guard let opened = try? store.openForReading() else { return [] }
        return (try? opened.read { (snapshot: StoreSnapshot) throws -> [ConsumerLag] in try ConsumerLag.read(in: snapshot, now: now) }) ?? []
    }
}
