import ImporterModel

/// An attribute an import changed on records it updated: the input of the mass-update guard
/// (`--max-updated`), which refuses a run that changes one attribute on most stored records (an
/// upstream that switched units or formats: epoch milliseconds to seconds, say). Key attributes
/// are not counted: a key changes only when key drift re-keys a record.
public struct UpdatedAttribute: Sendable, Equatable {
    public var entity: String
    public var attribute: String
    /// Records on which the import changed the attribute's value.
    public var updated: Int
    /// A few of those changes (old value, new value), for the refusal's message: only fetched for
    /// attributes over the threshold the caller gave.
    public var examples: [Example]

    public struct Example: Sendable, Equatable {
        public var old: Value
        public var new: Value

        public init(old: Value, new: Value) {
            self.old = old
            self.new = new
        }
    }

    public init(entity: String, attribute: String, updated: Int, examples: [Example] = []) {
        self.entity = entity
        self.attribute = attribute
        self.updated = updated
        self.examples = examples
    }
}
