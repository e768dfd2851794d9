import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore

/// How far behind the store's head a consumer (or a view) is: the transactions it has not consumed
/// (through its author filter), and the age of the oldest of them.
package struct ConsumerLag: Sendable, Equatable {
    package var consumer: String
    package var kind: Consumer.Kind
    /// Its token points into purged history: the lag cannot be told (and the gauges say so).
    package var expired: Bool
    package var transactions: Int
    /// Seconds from the commit of the oldest transaction it has not consumed to `now`; 0 when it
    /// has consumed everything.
    package var seconds: Double

    package init(consumer: String, kind: Consumer.Kind, expired: Bool, transactions: Int, seconds: Double) {
        self.consumer = consumer
        self.kind = kind
        self.expired = expired
        self.transactions = transactions
        self.seconds = seconds
    }

    /// The lag of every consumer, as of `now` (Unix seconds), as `snapshot` sees them.
    package static func read(in snapshot: StoreSnapshot, now: Double) throws -> [ConsumerLag] {
        let purged = try snapshot.history.purgedThrough()
        return try snapshot.allConsumers().map { consumer in
            let expired = consumer.isExpired(purgedThrough: purged)
            let pending = expired ? [] : try snapshot.transactions(after: consumer.tokenNumber).filter { consumer.filter.includes(author: $0.author) }
            let oldest = pending.first.flatMap { unixSeconds(of: $0.timestamp) }
            return ConsumerLag(consumer: consumer.name, kind: consumer.kind, expired: expired, transactions: pending.count,
                               seconds: oldest.map { max(0, now - $0) } ?? 0)
        }
    }

    /// Unix seconds of a history timestamp (`2026-11-22T17:21:19.123Z`).
    static func unixSeconds(of timestamp: String) -> Double? {
        DateTimeFormat.secondsSinceEpoch(storedUTC: timestamp.hasSuffix("Z") ? String(timestamp.dropLast()) : timestamp)
    }
}
