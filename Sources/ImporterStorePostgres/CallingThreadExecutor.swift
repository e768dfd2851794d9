import Dispatch
import Synchronization

/// The task executor of one `BlockingConnection.blocking` call: the jobs of its task run on the
/// thread that waits for the task, between its waits, so that the task needs no other thread
/// (neither one of Swift's cooperative pool, which the waiting thread may be part of, nor a
/// dispatch queue's) and an answer wakes the waiting thread directly, as a future's `wait()` did.
///
/// Invariant: used by one task (and the jobs it creates) and one waiting thread; `run` returns
/// once the task has stored its result, and no job of the task comes after that.
final class CallingThreadExecutor<Success: Sendable>: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var result: Result<Success, any Error>?
    }

    private let state = Mutex(State())
    /// Signalled once per job enqueued and once for the result.
    private let events = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        events.signal()
    }

    /// Starts `operation` on a task preferring this executor and runs the task's jobs on the
    /// calling thread until it ends; its result.
    func run(_ operation: @escaping @Sendable () async throws -> Success) throws -> Success {
        Task(executorPreference: self) {
            let result: Result<Success, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            self.state.withLock { $0.result = result }
            self.events.signal()
        }
        let executor = asUnownedTaskExecutor()
        while true {
            events.wait()
            let (job, result) = state.withLock { state -> (UnownedJob?, Result<Success, any Error>?) in
                state.jobs.isEmpty ? (nil, state.result) : (state.jobs.removeFirst(), nil)
            }
            if let job {
                job.runSynchronously(on: executor)
            } else if let result {
                return try result.get()
            }
        }
    }
}
