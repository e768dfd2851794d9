import ImporterStore
import ImporterSupport

/// Why a consumer cannot read history.
public enum HistoryError: Error, Sendable, Equatable, RemedialError {
    /// The consumer's token points into purged history: the changes it needs are gone.
    case expiredToken(consumer: String, kind: Consumer.Kind, token: Int64, purgedThrough: Int64)
    /// A point in history (`--as-of`) before the purged range: what changed since is gone.
    case expiredPoint(number: Int64, purgedThrough: Int64)
    case unknownConsumer(String)
    case consumerExists(String)
    case invalidName(String)
    /// Purging would remove history that consumers still need (unless forced).
    case purgeNeedsForce(consumers: [String])
    case nothingToPurge(String)
    /// A purge bounded by what consumers consumed, in a store without consumers.
    case noConsumers
    /// Another reader acknowledged for the consumer while this one was reading.
    case tokenMoved(consumer: String)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .expiredPoint(let number, let purgedThrough):
            return "expired token: the store cannot be read as of transaction \(number), history through transaction \(purgedThrough) was purged"
        case .expiredToken(let consumer, let kind, let token, let purgedThrough):
            let recovery = words(kind == .view ? .rebuildView(consumer) : .resetConsumer(consumer))
            return "expired token: consumer '\(consumer)' has consumed history through transaction \(token), but transactions through \(purgedThrough) were purged; \(recovery)"
        case .unknownConsumer(let name):
            return "no consumer named '\(name)' (\(words(.listConsumers)))"
        case .consumerExists(let name):
            return "a consumer named '\(name)' already exists"
        case .invalidName(let problem):
            return problem
        case .purgeNeedsForce(let consumers):
            return "purging this history would expire consumer(s) \(consumers.joined(separator: ", ")); \(words(.forcePurge))"
        case .nothingToPurge(let reason):
            return reason
        case .noConsumers:
            return "the store has no consumers, so nothing tells which history is consumed: \(words(.boundPurge))"
        case .tokenMoved(let consumer):
            return "the token of consumer '\(consumer)' moved while its changes were read (another reader acknowledged); nothing was acknowledged"
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
