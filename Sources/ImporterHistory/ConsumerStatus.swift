import ImporterStore

/// A consumer and how far behind it is.
public struct ConsumerStatus: Sendable {
    public var consumer: Consumer
    public var token: String
    public var expired: Bool
    /// Transactions and changes not yet consumed (nil when expired).
    public var lag: (transactions: Int, changes: Int)?
}
