import NIOCore

/// Runs the jobs of the tasks that prefer it on one event loop's thread, never on Swift's
/// cooperative pool: `CopyQueue`'s copying task, which outlives the call that starts it, and whose
/// caller then blocks waiting for it (`finish`); a task on the pool could never run when the
/// pool's threads are all blocked so (tests run in parallel).
///
/// On the connection's own loop, a job sees the connection as the loop left it between two
/// events: a closed connection's channel is inactive by then (postgres-nio closes it in the event
/// that ends the session), so a COPY call made in the same job after checking `isClosed` cannot
/// meet a connection closed meanwhile, which traps in postgres-nio 1.33 (`CopyQueue`). Only `let`s
/// of Sendable types: Sendable as it is.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
