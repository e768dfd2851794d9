import Dispatch

/// Runs the jobs of the tasks that prefer it on a dispatch queue of its own, never on Swift's
/// cooperative pool. `BlockingConnection.blocking` waits for such a task with the calling thread
/// blocked: when that thread is one of the pool's (a test's), and the pool's other threads are
/// blocked too, a task on the pool could never run, and the wait would never end.
final class DispatchTaskExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = DispatchTaskExecutor()

    private let queue = DispatchQueue(label: "importer.postgres.blocking")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
