import CSQLite
import Foundation
import ImporterModel

/// Keeps one change per record per transaction when a key occurs again later in the same run.
///
/// The common path never comes here: duplicates inside one batch are dropped before writing. When a
/// key was already written by an earlier batch or feed of the run:
/// - if the run inserted the record, the new values are simply written: the run's insert rows are
///   recorded at its end, with the final values;
/// - otherwise the record's state before the run is recovered (from its update row, or from the
///   table when the earlier write was a no-op), the new values are written, and the update row is
///   rewritten from the state before the run to the state after it, listing only the attributes
///   that differ in the end, or removed if the record ends as it started.
final class DuplicateMerger {
    private let connection: SQLiteConnection
    private let entity: EntityDescription
    private let transaction: OpenTransaction
    private let schema: SQLiteEntitySchema
    private let selectRecord: SQLiteStatement
    private let selectChange: SQLiteStatement
    private let deleteChange: SQLiteStatement
    private let insertChange: SQLiteStatement

    init(connection: SQLiteConnection, entity: EntityDescription, transaction: OpenTransaction) throws {
        self.connection = connection
        self.entity = entity
        self.transaction = transaction
        let schema = SQLiteEntitySchema(entity: entity)
        self.schema = schema
        let names = entity.attributes.map { SQLiteEntitySchema.q($0.name) }
        let olds = entity.attributes.map { schema.old($0.name) }
        let keyMatch = entity.uniqueKey.enumerated().map { "\(SQLIdentifier.quoted($0.element)) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        selectRecord = try connection.prepare("SELECT \"id\", \(names.joined(separator: ", ")) FROM \(schema.table) WHERE \(keyMatch)")
        // `type <> 'insert'` lets SQLite use the partial index on the record id.
        let match = "\(schema.recordID) = ?2 AND \(schema.transactionNumber) = ?1 AND \(schema.type) <> 'insert'"
        selectChange = try connection.prepare("SELECT \(schema.type), \(schema.changed), \((names + olds).joined(separator: ", ")) FROM \(schema.changeTable) WHERE \(match)")
        deleteChange = try connection.prepare("DELETE FROM \(schema.changeTable) WHERE \(match)")
        insertChange = try connection.prepare(schema.insertUpdate)
    }

    /// Writes a record whose key was already written in this run (`write` performs the upsert).
    func rewrite(keyValues: [Value], write: () throws -> Void) throws {
        let number = transaction.number
        guard let (id, current) = try record(keyValues), id <= transaction.lastIDBefore[entity.name] ?? 0 else {
            return try write()
        }
        let attributeCount = entity.attributes.count
        // The record's state before the run.
        var before = current
        if let change = try selectChange.rows([.integer(number), .integer(id)]).first {
            before = Array(change[2..<(2 + attributeCount)])
            let changed = Set((change[1].stringValue ?? "").split(separator: ",").map(String.init))
            for (index, attribute) in entity.attributes.enumerated() where changed.contains(attribute.name) {
                before[index] = change[2 + attributeCount + index]
            }
        }
        try write()
        // Removes the earlier update row and the one the capture wrote for this write, if any.
        try deleteChange.execute([.integer(number), .integer(id)])
        guard let (_, after) = try record(keyValues),
              let arguments = schema.updateArguments(transaction: number, recordID: id, old: before, new: after) else { return }
        try insertChange.execute(arguments)
    }

    private func record(_ keyValues: [Value]) throws -> (Int64, [Value])? {
        guard let row = try selectRecord.rows(keyValues).first, case .integer(let id) = row[0] else { return nil }
        return (id, Array(row.dropFirst()))
    }
}
