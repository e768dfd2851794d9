/// The field of a feed's records that says a record was deleted upstream (`delete-marker:` on a
/// feed mapping): `{field: deleted, values: [true]}` marks a record whose `deleted` is one of the
/// values (compared as text, case-insensitively: `true`, `"TRUE"`, `1` as written); without
/// `values` (`{field: deleted_at}`), any value that is neither null nor empty marks it. A marked
/// record deletes the stored record of its key, with its tombstone; it is never upserted.
public struct DeleteMarker: Sendable, Equatable {
    public var field: String
    /// Lowercased; empty: any value marks the record.
    public var values: [String]

    public init(field: String, values: [String] = []) {
        self.field = field
        self.values = values.map { $0.lowercased() }
    }

    /// Whether a record whose marker field reads `text` (nil: absent or null) is marked deleted.
    public func marks(_ text: String?) -> Bool {
        guard let text, !text.isEmpty else { return false }
        return values.isEmpty || values.contains(text.lowercased())
    }
}
