import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Reading history in PostgreSQL: change rows in history order (transaction number, then the
/// store's entity order), fetched in keyset pages so memory stays bounded (listing, purging and
/// consumers are `SQLBackend`'s).
extension PostgresStore {
    static let changePage = 2000

    static func int(_ value: Value) -> Int64 { value.integerValue ?? 0 }

    package func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws {
        var remaining = limit ?? .max
        guard remaining > 0 else { return }
        let ranges = try connection.rows("""
            SELECT t."number", t."author", e."entity", e."first_change_id", e."last_change_id" FROM importer_transaction t
            JOIN importer_transaction_entity e ON e."transaction_number" = t."number"
            WHERE t."number" > $1 AND t."number" <= $2 AND e."first_change_id" IS NOT NULL ORDER BY t."number"
            """, [.integer(after), .integer(through)])
        var order = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($0.element.name, $0.offset) })
        // Each entity as its change rows are read (retired attributes included), looked up once.
        var reading: [String: EntityDescription] = [:]
        // A removed entity's past changes are history too, after the others' in a transaction (as on SQLite).
        let retired = try retiredEntities()
        for (index, entity) in retired.enumerated() where order[entity.name] == nil { order[entity.name] = entities.count + index }
        let sorted = ranges.sorted { (Self.int($0[0]), order[$0[2].stringValue ?? ""] ?? 0) < (Self.int($1[0]), order[$1[2].stringValue ?? ""] ?? 0) }
        for row in sorted {
            let name = row[2].stringValue ?? ""
            guard filter.includes(author: row[1].stringValue ?? ""), let entity = entity(named: name) ?? retired.first(where: { $0.name == name }),
                  filter.includes(entity: entity.name) else { continue }
            if reading[entity.name] == nil { reading[entity.name] = try historyEntity(entity) }
            let read = reading[entity.name] ?? entity
            var next = Self.int(row[3])
            let last = Self.int(row[4])
            while next <= last {
                let changes = try changePage(read, from: next, through: last)
                guard let final = changes.last else { break }
                for (_, change) in changes where filter.includes(change) {
                    try body(change)
                    remaining -= 1
                    if remaining == 0 { return }
                }
                next = final.0 + 1
            }
        }
    }

    /// Up to `changePage` change rows of `entity` with ids in `from...through`, decoded.
    private func changePage(_ entity: EntityDescription, from: Int64, through: Int64) throws -> [(Int64, Change)] {
        let schema = PostgresEntitySchema(entity: entity, columns: changeColumns)
        let decoder = ChangeRowDecoder(entity: entity)
        let rows = try connection.rows("""
            SELECT \(schema.changeID), \(schema.changeRowColumns)
            FROM \(schema.changeTable) WHERE \(schema.changeID) BETWEEN $1 AND $2 ORDER BY \(schema.changeID) LIMIT \(Self.changePage)
            """, [.integer(from), .integer(through)])
        return rows.map { row in (Self.int(row[0]), decoder.change { row[1 + $0] }) }
    }
}

extension PostgresStore {
    /// The largest id assigned (ids only grow), an upper bound of the record count.
    package func recordCountUpperBound(of entity: EntityDescription) throws(StoreError) -> Int64 {
        try mapErrors { try connection.integer("SELECT coalesce(max(\"id\"), 0) FROM \(PostgresEntitySchema(entity: entity).table)") }
    }
}
