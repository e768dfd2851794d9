import Dispatch
import Synchronization

/// Bounds a whole HTTP exchange (head, body, decompression, retries) by one deadline:
/// AsyncHTTPClient's own deadline ends with the response head, so a body that trickles or stalls
/// would otherwise hold a run for as long as the server likes.
package enum ExchangeDeadline {
    /// The deadline passed before `operation` ended; its task was cancelled.
    package struct Passed: Error {}

    private enum Outcome<Value: Sendable>: Sendable {
        case done(Value)
        case passed
    }

    /// `operation`'s result, or `Passed` once `seconds` have gone by. The operation's task is then
    /// cancelled (AsyncHTTPClient cancels the request and the body's stream with it) and awaited,
    /// so nothing it started outlives this call. Both run as child tasks, on the caller's task
    /// executor (`CallingThreadExecutor`).
    package static func run<Value: Sendable>(within seconds: Double, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Outcome<Value>.self) { group in
            group.addTask { .done(try await operation()) }
            group.addTask {
                await sleep(seconds)
                return .passed
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), case .done(let value) = first else { throw Passed() }
            return value
        }
    }

    /// Waits `seconds`, or until the task is cancelled. A dispatch timer wakes it, not
    /// `Task.sleep`: with `Task.sleep` cancelled in tasks on a task executor, the test process once
    /// crashed running a job on the global executor (a bad pointer), the likeliest culprit being a
    /// sleep's wake-up outliving its task. The timer here only ever touches the `Gate`, which it
    /// keeps alive itself.
    package static func sleep(_ seconds: Double) async {
        let gate = Gate()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                gate.arm(continuation)
                DispatchQueue.global().asyncAfter(deadline: .now() + max(seconds, 0)) { gate.open() }
            }
        } onCancel: {
            gate.open()
        }
    }

    /// A continuation resumed once: by the timer or by cancellation, whichever comes first.
    private final class Gate: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            var opened = false
        }

        private let state = Mutex(State())

        func arm(_ continuation: CheckedContinuation<Void, Never>) {
            let resume = state.withLock { state -> Bool in
                if state.opened { return true }
                state.continuation = continuation
                return false
            }
            if resume { continuation.resume() }
        }

        func open() {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.opened = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }
}
