import Foundation
import ImporterModel
import ImporterStore

/// The inverse of a transaction written into PostgreSQL (`importer undo`), recorded as SQLite
/// records it: deletes set-based with every value (a delete change each), restores as updates of
/// what actually changed (changed names in entity order, old values), records put back with their
/// id and recorded as inserts when the undo finishes. A restore reads its record and writes it
/// back: one round trip each, bounded by the size of the transaction being undone.
final class PostgresUndoTransaction: UndoTransaction {
    private let store: PostgresStore
    let number: Int64
    /// The largest change id of each entity before the undo: its change rows are the ones above.
    private var lastChangeIDBefore: [String: Int64] = [:]
    private var reinserted: [String: [Int64]] = [:]

    init(store: PostgresStore, entities: [EntityDescription]) throws {
        self.store = store
        number = try store.lastTransactionNumber() + 1
        for entity in entities {
            lastChangeIDBefore[entity.name] = try store.connection.integer(
                "SELECT coalesce(max(\"change_id\"), 0) FROM \(PostgresEntitySchema(entity: entity).changeTable)")
        }
    }

    private static func idList(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ", ") }

    func delete(_ entity: EntityDescription, ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        let schema = PostgresEntitySchema(entity: entity)
        try store.connection.affected(schema.recordDeletes(where: "e.\"id\" IN (\(Self.idList(ids)))"), [.integer(number)])
        try store.connection.affected("DELETE FROM \(schema.table) WHERE \"id\" IN (\(Self.idList(ids)))")
    }

    func restore(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        let schema = PostgresEntitySchema(entity: entity)
        guard !values.isEmpty, let current = try store.connection.rows(
            "SELECT \(schema.names.joined(separator: ", ")) FROM \(schema.table) WHERE \"id\" = $1 FOR UPDATE", [.integer(id)]).first else { return }
        var after = current
        var old = [Value](repeating: .null, count: entity.attributes.count)
        var changed: [String] = []
        for (index, attribute) in entity.attributes.enumerated() {
            guard let value = values.first(where: { $0.0 == attribute.name })?.1, value != current[index] else { continue }
            after[index] = value
            old[index] = current[index]
            changed.append(attribute.name)
        }
        guard !changed.isEmpty else { return }
        let assignments = changed.enumerated().map { "\(PostgresEntitySchema.q($0.element)) = $\($0.offset + 2)" }
        try store.connection.affected("UPDATE \(schema.table) SET \(assignments.joined(separator: ", ")) WHERE \"id\" = $1",
                                      [.integer(id)] + changed.compactMap { name in values.first { $0.0 == name }?.1 })
        let columns = schema.names + entity.attributes.map { PostgresEntitySchema.old($0.name) }
        let placeholders = (0..<(columns.count + 3)).map { "$\($0 + 1)" }
        try store.connection.affected("""
            INSERT INTO \(schema.changeTable) ("transaction_number", "record_id", "type", "changed", \(columns.joined(separator: ", ")))
            VALUES ($1, $2, 'update', \(placeholders.dropFirst(2).joined(separator: ", ")))
            """, [.integer(number), .integer(id), .text(changed.joined(separator: ","))] + after + old)
    }

    func reinsert(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        let schema = PostgresEntitySchema(entity: entity)
        let key = entity.uniqueKey.compactMap { name in values.first { $0.0 == name } }
        let match = key.enumerated().map { "\(PostgresEntitySchema.q($0.element.0)) = $\($0.offset + 1)" }.joined(separator: " AND ")
        if case .integer(let holder)? = try store.connection.scalar("SELECT \"id\" FROM \(schema.table) WHERE \(match)", key.map(\.1)) {
            throw UndoError.keyTaken(entity: entity.name, key: key.map { $0.1.description }.joined(separator: ", "), recordID: holder)
        }
        let names = (["id"] + values.map(\.0)).map(PostgresEntitySchema.q).joined(separator: ", ")
        let placeholders = (1...(values.count + 1)).map { "$\($0)" }.joined(separator: ", ")
        try store.connection.affected("INSERT INTO \(schema.table) (\(names)) VALUES (\(placeholders))", [.integer(id)] + values.map(\.1))
        reinserted[entity.name, default: []].append(id)
    }

    func finish(metadata: TransactionMetadata, entities: [EntityDescription]) throws -> [(String, ChangeCounts)] {
        var counts: [(String, ChangeCounts, ClosedRange<Int64>?)] = []
        for entity in entities {
            let schema = PostgresEntitySchema(entity: entity)
            if let ids = reinserted[entity.name], !ids.isEmpty {
                try store.connection.affected("""
                    INSERT INTO \(schema.changeTable) ("transaction_number", "record_id", "type", \(schema.names.joined(separator: ", ")))
                    SELECT $1, "id", 'insert', \(schema.names.joined(separator: ", ")) FROM \(schema.table) WHERE "id" IN (\(Self.idList(ids))) ORDER BY "id"
                    """, [.integer(number)])
            }
            let before = lastChangeIDBefore[entity.name] ?? 0
            var entityCounts = ChangeCounts()
            var range: ClosedRange<Int64>?
            for row in try store.connection.rows("""
                SELECT "type", count(*), min("change_id"), max("change_id") FROM \(schema.changeTable) WHERE "change_id" > $1 GROUP BY "type"
                """, [.integer(before)]) {
                guard case .integer(let n) = row[1], case .integer(let low) = row[2], case .integer(let high) = row[3] else { continue }
                switch row[0] {
                case .text("insert"): entityCounts.inserted = Int(n)
                case .text("update"): entityCounts.updated = Int(n)
                default: entityCounts.deleted = Int(n)
                }
                range = min(range?.lowerBound ?? low, low)...max(range?.upperBound ?? high, high)
            }
            counts.append((entity.name, entityCounts, range))
        }
        _ = try PostgresHistoryWriter(store: store).finish(number, metadata: metadata, entities: counts)
        return counts.map { ($0.0, $0.1) }
    }
}

extension PostgresStore {
    public func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction {
        try PostgresUndoTransaction(store: self, entities: entities)
    }

    public func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws -> [Int64] {
        guard !recordIDs.isEmpty else { return [] }
        return try connection.rows("""
            SELECT DISTINCT "transaction_number" FROM \(PostgresEntitySchema(entity: entity).changeTable)
            WHERE "transaction_number" > $1 AND "record_id" = ANY($2::bigint[]) ORDER BY 1
            """, [.integer(number), .text("{" + recordIDs.map(String.init).joined(separator: ",") + "}")]).map { PostgresStore.int($0[0]) }
    }
}
