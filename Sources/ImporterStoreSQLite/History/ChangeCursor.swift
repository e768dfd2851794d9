import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// A cursor over one entity's change rows in a transaction range.
struct ChangeCursor {
    let statement: SQLiteStatement
    private(set) var currentTransaction: Int64?
    private let decoder: ChangeRowDecoder

    /// A cursor over the change rows with ids in `changeIDs` (none when nil).
    /// `columns`: the change table's own column names (the store's layout).
    init(connection: SQLiteConnection, entity: EntityDescription, columns: ChangeColumns, changeIDs: ClosedRange<Int64>?) throws {
        let schema = SQLiteEntitySchema(entity: entity, columns: columns)
        statement = try connection.prepare("""
            SELECT \(schema.changeRowColumns)
            FROM \(schema.changeTable) WHERE \(schema.changeID) BETWEEN ?1 AND ?2 ORDER BY \(schema.changeID)
            """)
        statement.bind(changeIDs?.lowerBound ?? 1, at: 1)
        statement.bind(changeIDs?.upperBound ?? 0, at: 2)
        decoder = ChangeRowDecoder(entity: entity)
        try advance()
    }

    mutating func advance() throws {
        currentTransaction = try statement.step() ? statement.int64(at: 0) : nil
    }

    func change() -> Change {
        decoder.change { statement.value(at: Int32($0)) }
    }
}
