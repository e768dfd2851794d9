import ImporterFetch
import ImporterSupport

/// Why a delivery stopped. In every case the consumer's token stays before the transaction that
/// was not received: nothing is skipped.
public enum DeliveryError: Error, Sendable, Equatable, RemedialError {
    /// Another delivery for the consumer holds its lock (after waiting `waitedMilliseconds`).
    case busy(consumer: String, waitedMilliseconds: Int)
    /// The receiver kept failing temporarily (exit 75, HTTP 408, 429, 5xx, connection errors,
    /// timeouts) until the deadline.
    case tryLater(DeliveryAttempt, attempts: Int, lastProblem: String, deadline: FetchDuration)
    /// The receiver refused the transaction for good (another non-zero exit, another 4xx).
    case refused(DeliveryAttempt, problem: String)
    /// The consumer is a derived view: views are replayed inside the store, not delivered.
    case notExternal(consumer: String)
    /// The webhook secret cannot be used (missing, empty, not `whsec_<base64>`).
    case secret(String)
    /// A transaction's changes could not be written out for the receiver.
    case payload(String)
    /// The receiver cannot be set up (a URL that is not http(s)).
    case receiver(String)
    /// A signal asked the delivery to stop; it stopped before this transaction.
    case stopped(DeliveryAttempt)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .busy(let consumer, let waited):
            "consumer '\(consumer)' is being delivered by another process (\(waited == 0 ? words(.didNotWait) : "waited \(waited / 1000) s; \(words(.waitLonger))"))"
        case .tryLater(let attempt, let attempts, let problem, let deadline):
            "\(attempt): still failing after \(attempts) attempt\(attempts == 1 ? "" : "s") within \(deadline) (last: \(problem)); the token stays before it, try again later"
        case .refused(let attempt, let problem):
            "\(attempt): the receiver refused it (\(problem)); the token stays before it"
        case .notExternal(let consumer):
            "'\(consumer)' is a derived view; views are replayed in the store, only external consumers are delivered"
        case .secret(let reason), .payload(let reason), .receiver(let reason):
            reason
        case .stopped(let attempt):
            "stopped before \(attempt); the token is past the last transaction received"
        }
    }
}

/// Which delivery failed: the consumer, the transaction, its token and the delivery id.
public struct DeliveryAttempt: Sendable, Equatable, CustomStringConvertible {
    public var consumer: String
    public var transaction: Int64
    public var token: String
    public var deliveryID: String

    public var description: String {
        "consumer '\(consumer)', transaction \(transaction) (token \(token), delivery \(deliveryID))"
    }
}

extension DeliveryError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .busy, .tryLater: .locked
        case .refused: .badInput
        case .notExternal: .usage
        case .secret: .storeUnusable
        case .payload: .ioError
        case .receiver: .usage
        case .stopped: .interrupted
        }
    }
}
