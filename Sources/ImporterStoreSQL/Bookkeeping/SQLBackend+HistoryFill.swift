import ImporterModel
import ImporterStore

/// The values a migration fills, in history too: a record's change rows hold whole images (an
/// insert's, a delete's, an update's after-image), so a value the migration gives stored records
/// is also given to the images that lack it where history needs it. Otherwise `undo` of a delete
/// from before the migration would put back a record without a required value, and `history
/// --key` under a key the migration widened would not find the record's past.
extension SQLBackend {
    /// Gives `attribute`'s nulls in `entity`'s change rows `value`: every row's when the attribute
    /// is part of the entity's key (`entity` as the model defines it: the records' identity in
    /// history), only deletes' images otherwise (an insert's image stays what the feed said).
    func fillHistory(_ attribute: String, of entity: EntityDescription, with value: Value) throws {
        let tables = tables(of: entity), column = dialect.quoted(attribute)
        let rows = entity.uniqueKey.contains(attribute) ? "" : " AND \(tables.type) = 'delete'"
        try executor.execute("UPDATE \(tables.changeTable) SET \(column) = \(p(1)) WHERE \(column) IS NULL\(rows)", [value])
    }
}
