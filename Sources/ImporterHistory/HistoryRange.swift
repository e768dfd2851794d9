import Foundation
import ImporterStore

/// The transactions a history read shows: `after < number <= through`, through `filter`.
public struct HistoryRange: Sendable, Equatable {
    public var after: Int64
    public var through: Int64
    public var filter: ChangeFilter

    public init(after: Int64, through: Int64, filter: ChangeFilter = .all) {
        self.after = after
        self.through = through
        self.filter = filter
    }

    /// Where a history read starts.
    public enum Start: Sendable, Equatable {
        /// The oldest kept history.
        case beginning
        /// After the transaction of this token.
        case afterToken(String)
        /// At or after this UTC timestamp (as history timestamps are written).
        case since(timestamp: String)
        /// The pending changes of this consumer: after its token, through its filters (an expired
        /// consumer is `HistoryError.expiredToken`).
        case consumer(String)
    }

    /// The range from `start` up to the newest transaction `snapshot` sees, or `through` (a token of
    /// the store `storeID`) when that is older, and at most `limit` transactions; never ending
    /// before it starts.
    public static func resolve(_ start: Start, storeID: UUID, in snapshot: StoreSnapshot, through: String? = nil,
                               limit: Int? = nil) throws -> HistoryRange {
        var first: Int64 = 0
        var filter = ChangeFilter.all
        switch start {
        case .beginning:
            break
        case .afterToken(let token):
            first = try Token(parsing: token, of: storeID).transactionNumber
        case .since(let timestamp):
            first = try snapshot.lastTransaction(before: timestamp)
        case .consumer(let name):
            let consumer = try snapshot.consumer(named: name)
            try snapshot.checkNotExpired(consumer)
            first = consumer.tokenNumber
            filter = consumer.filter
        }
        var end = try snapshot.history.lastTransactionNumber()
        if let through { end = min(end, try Token(parsing: through, of: storeID).transactionNumber) }
        if let limit { end = min(end, first + Int64(limit)) }
        return HistoryRange(after: first, through: max(first, end), filter: filter)
    }
}
