import Foundation
import ImporterStore

/// Takes a consumer's delivery lock (`ConsumerLocking`), waiting for another delivery of it to end.
///
/// Invariant: `acquire` returns only holding the lock; the caller releases it with `release`.
public struct ConsumerLock {
    public let store: Store
    public let consumer: String
    /// How often a waiting delivery tries the lock again.
    public var pollMilliseconds = 100

    public init(store: Store, consumer: String) {
        self.store = store
        self.consumer = consumer
    }

    /// Takes the lock, trying again for up to `waitMilliseconds`; `DeliveryError.busy` after.
    public func acquire(waitMilliseconds: Int) throws -> ConsumerLock {
        let deadline = Date().addingTimeInterval(Double(waitMilliseconds) / 1000)
        while true {
            if try store.consumerLocks.tryLockConsumer(consumer) { return self }
            guard Date() < deadline else { throw DeliveryError.busy(consumer: consumer, waitedMilliseconds: waitMilliseconds) }
            usleep(useconds_t(pollMilliseconds * 1000))
        }
    }

    public func release() {
        store.consumerLocks.unlockConsumer(consumer)
    }
}
