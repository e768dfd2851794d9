/// What a command's metrics file says of its last run: when it ended and whether it succeeded,
/// when it last succeeded, its exit code and duration, and what the command observed (an import's
/// phases, records and fetches; the consumers' lags after it).
///
/// A run that failed keeps the last success it is given (`lastSuccess`, read back from the
/// previous file by `LastSuccess`); one that succeeded is its own last success.
package struct RunMetrics: Sendable {
    /// The `importer_job` label of every sample.
    package var job: String
    /// The label naming the job: not `job`, which the scrape owns.
    package static let jobLabel = "importer_job"
    /// When the run ended (Unix seconds).
    package var finishedAt: Double
    package var exitCode: Int32
    /// The command did what it was asked (it may still exit 1, as `run --exit-code` with no changes).
    package var succeeded: Bool
    /// When the job last succeeded before this run (Unix seconds), if ever.
    package var previousSuccess: Double?
    /// The run's wall-clock time.
    package var durationSeconds: Double
    /// What the command observed of its work (an import's phases, records and fetches).
    package var observed = RunObservation()
    /// The consumers' lags once the run ended (empty when the store could not be read).
    package var consumerLags: [ConsumerLag] = []

    package init(job: String, finishedAt: Double, exitCode: Int32, succeeded: Bool, previousSuccess: Double?, durationSeconds: Double) {
        self.job = job
        self.finishedAt = finishedAt
        self.exitCode = exitCode
        self.succeeded = succeeded
        self.previousSuccess = previousSuccess
        self.durationSeconds = durationSeconds
    }

    /// When the job last succeeded: this run if it did, else the previous success (0: never, so
    /// that `time() - importer_last_success_timestamp_seconds` alerts on a job that never succeeded).
    package var lastSuccess: Double {
        succeeded ? finishedAt : previousSuccess ?? 0
    }
}
