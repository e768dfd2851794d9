import Dispatch

/// Runs the jobs of the tasks that prefer it on a dispatch queue of its own, never on Swift's
/// cooperative pool: `CopyQueue`'s copying task, which outlives the call that starts it, and whose
/// caller then blocks waiting for it (`finish`). When that caller is one of the pool's threads (a
/// test's), and the pool's other threads are blocked too, a task on the pool could never run, and
/// the wait would never end. Only `let`s of Sendable types: Sendable as it is.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()

    private let queue = DispatchQueue(label: "importer.postgres.copy")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
