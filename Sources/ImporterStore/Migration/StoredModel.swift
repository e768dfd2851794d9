/// A version of the model a store was written with (`importer_model`): the model file's text as
/// `model show` writes it, its digest, and for a version `importer migrate` brought, the history
/// transaction that recorded the migration and its steps.
public struct StoredModel: Sendable, Equatable {
    public var version: Int64
    /// SHA-256 of `text`, in hex.
    public var digest: String
    public var text: String
    public var registeredAt: String
    public var transaction: Int64?
    public var steps: [String]

    public init(version: Int64 = 0, digest: String, text: String, registeredAt: String = "", transaction: Int64? = nil, steps: [String] = []) {
        self.version = version
        self.digest = digest
        self.text = text
        self.registeredAt = registeredAt
        self.transaction = transaction
        self.steps = steps
    }
}
