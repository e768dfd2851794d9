/// Runs async work from synchronous code (the commands are synchronous: Docs/DECISIONS.md): the
/// jobs of the task run on the thread that waits for the task, between its waits, so that the task
/// needs no other thread (neither one of Swift's cooperative pool, which the waiting thread may be
/// part of, nor a dispatch queue's) and an answer wakes the waiting thread directly.
///
/// Invariant: used by one task (and the jobs it creates) and one waiting thread; `run` returns
/// once the task has stored its result, and no job of the task comes after that, or once
/// `abandon(with:)` stored an error first: then the task is left suspended and its later jobs
/// never run.
public final class CallingThreadExecutor<Success: Sendable>: TaskExecutor {
    public init() {}

    private struct State {
        var jobs: [UnownedJob] = []
        var result: Result<Success, any Error>?
    }

    /// What the waiting thread does next: run a job, or return the result.
    private enum Next {
        case job(UnownedJob)
        case result(Result<Success, any Error>)
    }

    private let state = Monitor(State())

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
    }

    /// Makes `run` throw `error` without waiting for the task any more, unless the task has
    /// ended already; safe from any thread, at any time. For a task awaiting an answer that may
    /// never come (a request on a connection that has closed: `BlockingConnection`).
    public func abandon(with error: any Error) {
        store(.failure(error))
    }

    /// Stores the first result (the task's own or an abandon's) and wakes the waiting thread.
    private func store(_ result: Result<Success, any Error>) {
        state.withLock { state in
            if state.result == nil { state.result = result }
        }
    }

    /// Starts `operation` on a task preferring this executor and runs the task's jobs on the
    /// calling thread until it ends; its result.
    public func run(_ operation: @escaping @Sendable () async throws -> Success) throws -> Success {
        Task(executorPreference: self) {
            let result: Result<Success, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            self.store(result)
        }
        let executor = asUnownedTaskExecutor()
        while true {
            let next = state.wait { state -> Next? in
                if !state.jobs.isEmpty { return .job(state.jobs.removeFirst()) }
                return state.result.map(Next.result)
            }
            switch next {
            case .job(let job): job.runSynchronously(on: executor)
            case .result(let result): return try result.get()
            }
        }
    }
}
