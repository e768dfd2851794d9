import ImporterModel

/// One entity and its feed mapping as suggested, with what the notes say of them.
struct EntitySuggestion {
    var entity: EntityDescription
    var mapping: FeedMapping
    /// "Suggested by … from N record(s) of …", the first note when the entity is the only one.
    var header: String
    /// The key's doubts and the parts not mapped.
    var notes: [String]
    /// Per field of the mapping, in order: its sample value and how often it was missing.
    var comments: [String]
    var total: Int
    var recordNoun: String?

    mutating func rename(entity name: String, table: String, mapping mappingName: String) {
        entity.name = name
        entity.tableName = table
        mapping.name = mappingName
        mapping.entity = name
    }
}
