#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value shared by threads that hand work to each other: behind a lock, with a condition a
/// thread waits on until the value is as it needs (a monitor: POSIX's mutex and condition
/// variable). The hand-offs between a command's thread and the threads working for it (the feed
/// reader, the task bridge, the COPY queue) wait this way, each on the state it shares.
///
/// Every body that returns a value may have changed the state, so each wakes all waiting threads,
/// which check their condition again (few threads, a change per batch or request, never per
/// record). Safe unchecked: `state` is read and written only between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` of `mutex` (a waiting thread holds it again when `pthread_cond_wait`
/// returns), and the pointers are allocated in `init` and freed in `deinit` only.
public final class Monitor<State> {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    public init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are measured on the monotonic clock, which wall-clock changes do not move.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on the state under the lock, then wakes the waiting threads.
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }

    /// Runs `body` on the state under the lock until it returns a value, waiting for the next
    /// change between tries (a nil answer may have changed the state too, without waking anyone);
    /// then wakes the waiting threads.
    public func wait<Result>(until body: (inout State) -> Result?) -> Result {
        while true {
            // Without a deadline the loop only ends with a value: this loop is never taken twice.
            if let result = wait(deadline: nil, until: body) { return result }
        }
    }

    /// `wait(until:)`, giving up once `seconds` have passed: nil.
    public func wait<Result>(seconds: Double, until body: (inout State) -> Result?) -> Result? {
        wait(deadline: Self.deadline(after: seconds), until: body)
    }

    /// The loop of both waits: nil only once `deadline` (when there is one) has passed.
    private func wait<Result>(deadline: timespec?, until body: (inout State) -> Result?) -> Result? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let result = body(&state) {
                pthread_cond_broadcast(condition)
                return result
            }
            if var deadline {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return nil }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
    }

    /// The monotonic clock's time `seconds` from now.
    private static func deadline(after seconds: Double) -> timespec {
        let seconds = max(seconds, 0)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(seconds.truncatingRemainder(dividingBy: 1) * 1e9)
        return timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    }
}

/// Safe unchecked: every access to `state` holds the mutex (see the type's comment).
extension Monitor: @unchecked Sendable where State: Sendable {}
