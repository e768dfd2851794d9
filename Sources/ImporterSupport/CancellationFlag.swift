import Synchronization

/// A request to stop, set from another thread (a signal handler's queue) and polled by long work
/// (an import checks it between batches). Holds the signal number that raised it, 0 while none.
public final class CancellationFlag: Sendable {
    private let signal = Atomic<Int32>(0)

    public init() {}

    /// Records the request; the first signal wins.
    public func raise(_ number: Int32) {
        _ = signal.compareExchange(expected: 0, desired: number, ordering: .relaxed)
    }

    /// The signal that asked to stop, or nil.
    public var raised: Int32? {
        let value = signal.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
}
