import Foundation

/// One transaction on its way to a receiver: who it is for, its id and token, and its changes.
public struct Delivery {
    public var attempt: DeliveryAttempt
    /// The store, as the receiver is told it (`IMPORTER_STORE`; never a password).
    public var store: String
    public var payload: DeliveryPayload
    public var format: DeliveryFormat
}

/// What one attempt to hand a transaction to its receiver came to.
public enum ReceiverOutcome: Sendable, Equatable {
    /// Received: the token may move past the transaction.
    case delivered
    /// Failed for now (exit 75, HTTP 408, 429, 5xx, a connection error, a timeout): try again,
    /// not before `retryAfter` seconds when the receiver said so.
    case temporary(String, retryAfter: Double?)
    /// Refused for good (another non-zero exit, another 4xx): stop at this transaction.
    case permanent(String)
}

/// Where deliveries go: a command (`CommandReceiver`) or a webhook (`WebhookReceiver`).
public protocol Receiver {
    /// One attempt, which may take at most `seconds` where the receiver can bound it.
    func deliver(_ delivery: Delivery, within seconds: Double) -> ReceiverOutcome
    /// Releases what the receiver holds (connections).
    func close()
}
