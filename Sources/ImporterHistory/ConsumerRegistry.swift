import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// The consumers a store knows, kept in `importer_consumer`. A service over the handle it is given
/// (GRDB style): reads take the caller's snapshot, changes its write transaction.
public struct ConsumerRegistry {
    public init() {}

    public func all(in snapshot: StoreSnapshot) throws -> [Consumer] {
        try snapshot.consumers.consumers()
    }

    public func consumer(named name: String, in snapshot: StoreSnapshot) throws -> Consumer {
        guard let consumer = try snapshot.consumers.consumer(named: name) else { throw HistoryError.unknownConsumer(name) }
        return consumer
    }

    public func add(_ consumer: Consumer, in tx: StoreWriteTransaction) throws {
        if let problem = Consumer.problem(withName: consumer.name) { throw HistoryError.invalidName(problem) }
        guard try tx.consumers.insertConsumer(consumer) else { throw HistoryError.consumerExists(consumer.name) }
    }

    public func remove(_ name: String, in tx: StoreWriteTransaction) throws {
        guard try tx.consumers.deleteConsumer(named: name) else { throw HistoryError.unknownConsumer(name) }
    }

    /// Moves the consumer's token (and stamps the replay time), in the write transaction that
    /// consumed the changes, so both commit together.
    public func setToken(_ name: String, to number: Int64, replayed: Bool = true, in tx: StoreWriteTransaction) throws {
        guard try tx.consumers.setConsumerToken(name, to: number, replayedAt: replayed ? Timestamp.now() : nil) else {
            throw HistoryError.unknownConsumer(name)
        }
    }

    /// Moves the consumer's token from `from` to `to` (after it received the changes), unless
    /// another reader moved it meanwhile.
    public func advanceToken(_ name: String, from: Int64, to: Int64, in tx: StoreWriteTransaction) throws {
        guard try tx.consumers.advanceConsumerToken(name, from: from, to: to, at: Timestamp.now()) else {
            throw HistoryError.tokenMoved(consumer: name)
        }
    }

    /// Throws `expiredToken` when the consumer needs history that was purged.
    public func checkNotExpired(_ consumer: Consumer, in snapshot: StoreSnapshot) throws {
        try checkNotExpired(consumer, purgedThrough: try snapshot.history.purgedThrough())
    }

    /// Throws `expiredToken` when the consumer needs history purged through `purged` (the
    /// store's `purgedThrough`, read once for several consumers).
    public func checkNotExpired(_ consumer: Consumer, purgedThrough purged: Int64) throws {
        if consumer.isExpired(purgedThrough: purged) {
            throw HistoryError.expiredToken(consumer: consumer.name, kind: consumer.kind, token: consumer.tokenNumber, purgedThrough: purged)
        }
    }

    /// How far behind the head a consumer is: transactions (not by excluded authors) and the changes
    /// its filter selects.
    public func lag(of consumer: Consumer, in snapshot: StoreSnapshot) throws -> (transactions: Int, changes: Int) {
        let reader = HistoryReader()
        let transactions = try reader.transactions(after: consumer.tokenNumber, in: snapshot).count(where: { consumer.filter.includes(author: $0.author) })
        var changes = 0
        try reader.forEachChange(after: consumer.tokenNumber, filter: consumer.filter, in: snapshot) { _ in changes += 1 }
        return (transactions, changes)
    }
}

/// A consumer and how far behind it is.
public struct ConsumerStatus: Sendable {
    public var consumer: Consumer
    public var token: String
    public var expired: Bool
    /// Transactions and changes not yet consumed (nil when expired).
    public var lag: (transactions: Int, changes: Int)?
}

extension ConsumerRegistry {
    /// Every consumer with its token (of the store `storeID`), whether it expired, and its lag.
    public func statuses(storeID: UUID, in snapshot: StoreSnapshot) throws -> [ConsumerStatus] {
        let purged = try snapshot.history.purgedThrough()
        return try all(in: snapshot).map { consumer in
            let expired = consumer.isExpired(purgedThrough: purged)
            return ConsumerStatus(consumer: consumer, token: Token(storeID: storeID, transactionNumber: consumer.tokenNumber).description,
                                  expired: expired, lag: expired ? nil : try lag(of: consumer, in: snapshot))
        }
    }
}

extension HistoryError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .expiredToken, .expiredPoint: .expiredToken
        case .unknownConsumer, .consumerExists, .invalidName, .purgeNeedsForce, .nothingToPurge, .noConsumers: .usage
        case .tokenMoved: .locked
        }
    }
}
