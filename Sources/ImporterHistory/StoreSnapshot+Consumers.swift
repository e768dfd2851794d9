import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// The consumers a store knows, kept in `importer_consumer`, read through the caller's snapshot
/// (GRDB style: the handle is the way in, and what reads together is one consistent state).
extension StoreSnapshot {
    public func allConsumers() throws -> [Consumer] {
        try consumers.consumers()
    }

    public func consumer(named name: String) throws -> Consumer {
        guard let consumer = try consumers.consumer(named: name) else { throw HistoryError.unknownConsumer(name) }
        return consumer
    }

    /// Throws `expiredToken` when the consumer needs history that was purged.
    public func checkNotExpired(_ consumer: Consumer) throws {
        try consumer.checkNotExpired(purgedThrough: try history.purgedThrough())
    }

    /// How far behind the head a consumer is: transactions (not by excluded authors) and the changes
    /// its filter selects.
    public func lag(of consumer: Consumer) throws -> (transactions: Int, changes: Int) {
        let transactions = try history.transactions(after: consumer.tokenNumber, through: .max, limit: nil)
            .count(where: { consumer.filter.includes(author: $0.author) })
        var changes = 0
        try forEachChange(after: consumer.tokenNumber, filter: consumer.filter) { _ in changes += 1 }
        return (transactions, changes)
    }

    /// Every consumer with its token (of the store `storeID`), whether it expired, and its lag.
    public func consumerStatuses(storeID: UUID) throws -> [ConsumerStatus] {
        let purged = try history.purgedThrough()
        return try allConsumers().map { consumer in
            let expired = consumer.isExpired(purgedThrough: purged)
            return ConsumerStatus(consumer: consumer, token: Token(storeID: storeID, transactionNumber: consumer.tokenNumber).description,
                                  expired: expired, lag: expired ? nil : try lag(of: consumer))
        }
    }
}

/// The consumers a store knows, changed in the caller's write transaction, so that a token moves
/// in the transaction that consumed the changes and both commit together.
extension StoreWriteTransaction {
    public func addConsumer(_ consumer: Consumer) throws {
        if let problem = Consumer.problem(withName: consumer.name) { throw HistoryError.invalidName(problem) }
        guard try consumers.insertConsumer(consumer) else { throw HistoryError.consumerExists(consumer.name) }
    }

    public func removeConsumer(named name: String) throws {
        guard try consumers.deleteConsumer(named: name) else { throw HistoryError.unknownConsumer(name) }
    }

    /// Moves the consumer's token (and stamps the replay time).
    public func setConsumerToken(_ name: String, to number: Int64, replayed: Bool = true) throws {
        guard try consumers.setConsumerToken(name, to: number, replayedAt: replayed ? Timestamp.now() : nil) else {
            throw HistoryError.unknownConsumer(name)
        }
    }

    /// Moves the consumer's token from `from` to `to` (after it received the changes), unless
    /// another reader moved it meanwhile.
    public func advanceConsumerToken(_ name: String, from: Int64, to: Int64) throws {
        guard try consumers.advanceConsumerToken(name, from: from, to: to, at: Timestamp.now()) else {
            throw HistoryError.tokenMoved(consumer: name)
        }
    }
}

extension Consumer {
    /// Throws `expiredToken` when the consumer needs history purged through `purged` (the
    /// store's `purgedThrough`, read once for several consumers).
    public func checkNotExpired(purgedThrough purged: Int64) throws {
        if isExpired(purgedThrough: purged) {
            throw HistoryError.expiredToken(consumer: name, kind: kind, token: tokenNumber, purgedThrough: purged)
        }
    }
}
