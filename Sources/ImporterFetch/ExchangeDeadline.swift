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
    /// so nothing it started outlives this call.
    package static func run<Value: Sendable>(within seconds: Double, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Outcome<Value>.self) { group in
            group.addTask { .done(try await operation()) }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(seconds, 0.001) * 1e9))
                return .passed
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), case .done(let value) = first else { throw Passed() }
            return value
        }
    }
}
