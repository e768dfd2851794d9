import Foundation

/// Who wrote a history transaction and from where (Core Data's author and context name).
public struct TransactionMetadata: Sendable, Equatable {
    public var author: String
    public var context: String
    public var processID: Int
    public var host: String
    public var sources: [String]
    /// When the transaction happened (`Timestamp` text): now, unless a run backfills an archived
    /// snapshot (`run --timestamp`).
    public var timestamp: String?

    public init(author: String, context: String, processID: Int = Int(ProcessInfo.processInfo.processIdentifier),
                host: String = ProcessInfo.processInfo.hostName, sources: [String]) {
        self.author = author
        self.context = context
        self.processID = processID
        self.host = host
        self.sources = sources
    }
}
