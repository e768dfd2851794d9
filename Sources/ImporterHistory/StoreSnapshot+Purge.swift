import Foundation
import ImporterModel
import ImporterStore

/// What a purge removed.
public struct PurgeResult: Sendable, Equatable {
    /// History of transactions up to this number is gone (as recorded in the store).
    public var purgedThrough: Int64
    public var transactions: Int
    public var changes: Int
    /// Consumers whose token is now older than the kept history.
    public var expiredConsumers: [String]
}

/// How far a purge may go.
public enum PurgeBound: Sendable, Equatable {
    /// Up to the oldest consumer token: nothing any consumer still needs.
    case consumers
    /// Transactions older than this many days, but never what a consumer still needs.
    case keepDays(Int)
    /// Transactions before this UTC date or datetime (`YYYY-MM-DD` or ISO-8601), consumers or not.
    case beforeDate(String)
    /// Transactions up to and including this one (what a consumer at that token has consumed).
    case throughTransaction(Int64)
}

/// Deletes history (Core Data's `deleteHistory(before:)`), recording the purged range so expired
/// tokens are exact, never guessed from gaps: where to purge through as the snapshot sees the store,
/// the purge itself in the caller's write transaction.
extension StoreSnapshot {
    /// The transaction number to purge through for `bound`. Throws when that would expire
    /// consumers and `force` is false, or when the bound needs consumers and there are none.
    public func purgeTarget(_ bound: PurgeBound, force: Bool) throws -> (through: Int64, expiring: [String]) {
        let consumers = try self.consumers.consumers()
        let oldestToken = consumers.map(\.tokenNumber).min()
        let head = try history.lastTransactionNumber()
        var through: Int64
        switch bound {
        case .consumers:
            guard let oldestToken else {
                throw HistoryError.noConsumers
            }
            through = oldestToken
        case .keepDays(let days):
            let cutoff = Timestamp.format(Date().addingTimeInterval(-Double(days) * 86400))
            through = try lastTransaction(before: cutoff)
            if let oldestToken { through = min(through, oldestToken) }
        case .beforeDate(let date):
            guard let cutoff = PurgeBound.normalized(date) else {
                throw HistoryError.nothingToPurge("'\(date)' is not a date (YYYY-MM-DD) or UTC datetime (YYYY-MM-DDThh:mm:ssZ)")
            }
            through = try lastTransaction(before: cutoff)
        case .throughTransaction(let number):
            through = number
        }
        through = min(through, head)
        let expiring = consumers.filter { $0.isExpired(purgedThrough: through) }.map(\.name).sorted()
        if !expiring.isEmpty && !force { throw HistoryError.purgeNeedsForce(consumers: expiring) }
        return (through, expiring)
    }
}

extension PurgeBound {
    /// A UTC date (`2026-11-01`) or datetime (`2026-11-01T06:30:00Z`, `2026-11-01 06:30:00`) in the
    /// form of history timestamps (`2026-11-01T06:30:00.000Z`), or nil.
    public static func normalized(_ text: String) -> String? {
        var text = text
        if text.hasSuffix("Z") { text.removeLast() }
        let date = String(text.prefix(10))
        var time = "00:00:00"
        var fraction = ".000"
        if text.count > 10 {
            let rest = text.dropFirst(10)
            guard rest.first == "T" || rest.first == " " else { return nil }
            time = String(rest.dropFirst().prefix(8))
            let tail = rest.dropFirst(9)
            if !tail.isEmpty {
                guard tail.count == 4, tail.first == ".", tail.dropFirst().allSatisfy(\.isNumber) else { return nil }
                fraction = String(tail)
            }
        }
        let candidate = date + " " + time
        guard let format = try? DateTimeFormat(pattern: DateTimeFormat.canonicalDateTime) else { return nil }
        var output: [UInt8] = []
        var bytes = Array(candidate.utf8)
        let valid = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { format.parse($0, count: buffer.count, includeTime: true, into: &output) } ?? false
        }
        return valid ? date + "T" + time + fraction + "Z" : nil
    }
}

extension StoreWriteTransaction {
    /// Deletes the history of transactions up to `through` (from `StoreSnapshot.purgeTarget`).
    public func purgeHistory(through: Int64, expiring: [String]) throws -> PurgeResult {
        let already = try history.purgedThrough()
        guard through > already else {
            return PurgeResult(purgedThrough: already, transactions: 0, changes: 0, expiredConsumers: [])
        }
        let (transactions, changes) = try history.purgeHistory(through: through)
        return PurgeResult(purgedThrough: through, transactions: transactions, changes: changes, expiredConsumers: expiring)
    }
}
