/// What a command's metrics file says of its last run: when it ended and whether it succeeded,
/// when it last succeeded, its exit code and duration, and what the command observed (an import's
/// phases, records and fetches; the consumers' lags after it).
///
/// A run that failed keeps the last success it is given (`lastSuccess`, read back from the
/// previous file by `LastSuccess`); one that succeeded is its own last success.
public struct RunMetrics: Sendable {
    /// The `importer_job` label of every sample.
    public var job: String
    /// The label naming the job: not `job`, which the scrape owns.
    public static let jobLabel = "importer_job"
    /// When the run ended (Unix seconds).
    public var finishedAt: Double
    public var exitCode: Int32
    /// The command did what it was asked (it may still exit 1, as `run --exit-code` with no changes).
    public var succeeded: Bool
    /// When the job last succeeded before this run (Unix seconds), if ever.
    public var previousSuccess: Double?
    /// The run's wall-clock time.
    public var durationSeconds: Double
    /// What the command observed of its work (an import's phases, records and fetches).
    public var observed = RunObservation()
    /// The consumers' lags once the run ended (empty when the store could not be read).
    public var consumerLags: [ConsumerLag] = []

    public init(job: String, finishedAt: Double, exitCode: Int32, succeeded: Bool, previousSuccess: Double?, durationSeconds: Double) {
        self.job = job
        self.finishedAt = finishedAt
        self.exitCode = exitCode
        self.succeeded = succeeded
        self.previousSuccess = previousSuccess
        self.durationSeconds = durationSeconds
    }

    /// When the job last succeeded: this run if it did, else the previous success (0: never, so
    /// that `time() - importer_last_success_timestamp_seconds` alerts on a job that never succeeded).
    public var lastSuccess: Double {
        succeeded ? finishedAt : previousSuccess ?? 0
    }
}
