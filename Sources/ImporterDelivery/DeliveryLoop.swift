import Foundation
import ImporterFetch
import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// What a delivery did.
public struct DeliverySummary: Sendable, Equatable {
    /// Transactions the receiver received.
    public var delivered = 0
    /// Transactions passed over with nothing for the consumer (its filters left no change, or an
    /// excluded author wrote them).
    public var skipped = 0
    /// The consumer's token at the end (its transaction number).
    public var through: Int64 = 0

    public init() {}
}

/// Delivers a consumer's pending transactions, oldest first, one at a time, to a receiver: at
/// least once, never skipping one.
///
/// Invariants: the consumer's token moves past a transaction only after the receiver received it
/// (or when the consumer's filters leave nothing of it), by a compare-and-set committed in the
/// store; a temporary failure is retried (`RetrySchedule`: backoff with full jitter, `Retry-After`
/// as a floor) within the deadline of that transaction's first attempt; a failure stops at that
/// transaction, token unmoved. One delivery per consumer runs at a time (`ConsumerLock`). The
/// delivery id depends only on the store, the consumer and the transaction (`DeliveryID`).
public struct DeliveryLoop {
    public var store: Store
    public var consumer: String
    public var receiver: any Receiver
    public var format: DeliveryFormat = .json
    /// Retries of one transaction stop after this.
    public var deadline = FetchDuration(milliseconds: 90_000)
    /// How long to wait for another delivery of the consumer to end.
    public var lockWaitMilliseconds = 5000
    /// Transactions read per page of pending history.
    public var pageSize = 100
    /// Told of each transaction received, with the attempts it took.
    public var onDelivered: (DeliveryAttempt, Int) -> Void = { _, _ in }
    /// Raised by a signal: the delivery stops before its next transaction or attempt.
    public var cancellation: CancellationFlag?
    /// Sleeps between attempts (replaced by tests).
    public var sleep: (Double) -> Void = { usleep(useconds_t(min($0, 3600) * 1_000_000)) }

    public init(store: Store, consumer: String, receiver: any Receiver) {
        self.store = store
        self.consumer = consumer
        self.receiver = receiver
    }

    /// Delivers everything pending now; returns when nothing is, or throws where it stopped.
    public func run() throws -> DeliverySummary {
        _ = try store.read { (snapshot: StoreSnapshot) throws -> Consumer in try snapshot.consumer(named: consumer) }
        let lock = try ConsumerLock(store: store, consumer: consumer).acquire(waitMilliseconds: lockWaitMilliseconds)
        defer { lock.release() }
        var summary = DeliverySummary()
        while try deliverPage(&summary) {}
        return summary
    }

    /// One page of pending transactions; false when nothing was pending.
    private func deliverPage(_ summary: inout DeliverySummary) throws -> Bool {
        let (pending, transactions, end) = try store.read { (snapshot: StoreSnapshot) throws -> (Consumer, [HistoryTransaction], Int64) in
            let pending = try snapshot.consumer(named: consumer)
            guard pending.kind == .external else { throw DeliveryError.notExternal(consumer: consumer) }
            try snapshot.checkNotExpired(pending)
            let head = try snapshot.history.lastTransactionNumber()
            let page = try snapshot.transactions(after: pending.tokenNumber, through: head, limit: pageSize)
            return (pending, page, page.last?.number ?? head)
        }
        var token = pending.tokenNumber
        summary.through = token
        guard end > token else { return false }
        for transaction in transactions {
            guard pending.filter.includes(author: transaction.author) else { summary.skipped += 1; continue }
            let printed = store.token(transaction.number).description
            let attempt = DeliveryAttempt(consumer: consumer, transaction: transaction.number, token: printed,
                                          deliveryID: DeliveryID.make(storeID: store.storeID, consumer: consumer, token: printed))
            if cancellation?.raised != nil { throw DeliveryError.stopped(attempt) }
            let payload = try store.read { (snapshot: StoreSnapshot) throws -> DeliveryPayload in
                try DeliveryPayload.render(storeID: store.storeID, transaction: transaction, consumer: pending, deliveryID: attempt.deliveryID,
                                           format: format, in: snapshot)
            }
            guard payload.isDeliverable else { summary.skipped += 1; continue }
            let attempts = try deliverWithRetries(Delivery(attempt: attempt, store: store.path, payload: payload, format: format))
            try advance(from: token, to: transaction.number)
            token = transaction.number
            summary.delivered += 1
            summary.through = token
            onDelivered(attempt, attempts)
        }
        if end > token {
            try advance(from: token, to: end)
            summary.through = end
        }
        return true
    }

    /// Hands `delivery` to the receiver until it is received; the attempts it took.
    private func deliverWithRetries(_ delivery: Delivery) throws -> Int {
        let schedule = RetrySchedule(deadline: deadline.seconds)
        let started = Date()
        var attempts = 0
        while true {
            attempts += 1
            let remaining = max(deadline.seconds - Date().timeIntervalSince(started), 0.001)
            switch receiver.deliver(delivery, within: remaining) {
            case .delivered:
                return attempts
            case .permanent(let problem):
                throw DeliveryError.refused(delivery.attempt, problem: problem)
            case .temporary(let problem, let retryAfter):
                let elapsed = Date().timeIntervalSince(started)
                guard let wait = schedule.delay(afterAttempts: attempts, elapsed: elapsed, retryAfter: retryAfter) else {
                    throw DeliveryError.tryLater(delivery.attempt, attempts: attempts, lastProblem: problem, deadline: deadline)
                }
                sleep(wait)
                if cancellation?.raised != nil { throw DeliveryError.stopped(delivery.attempt) }
            }
        }
    }

    /// Moves the consumer's token by compare-and-set (`HistoryError.tokenMoved` when another
    /// process moved it: `history --ack` or `consumers reset` meanwhile).
    private func advance(from: Int64, to: Int64) throws {
        try store.write { transaction in
            guard try transaction.consumers.advanceConsumerToken(consumer, from: from, to: to, at: Timestamp.now()) else {
                throw HistoryError.tokenMoved(consumer: consumer)
            }
        }
    }
}
