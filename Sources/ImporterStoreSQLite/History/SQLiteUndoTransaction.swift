import ImporterModel
import ImporterStoreSQL
import ImporterStore

/// The inverse of a transaction written into SQLite: deletes and restores go through the same
/// capture as an import (deletes set-based with their values, updates by the preupdate hook);
/// records put back keep their id, so their insert changes are recorded by id at the end.
final class SQLiteUndoTransaction: UndoTransaction {
    private let store: SQLiteStore
    private let history: HistoryWriter
    private let transaction: OpenTransaction
    private var reinserted: [String: [Int64]] = [:]

    init(store: SQLiteStore, entities: [EntityDescription]) throws {
        self.store = store
        history = HistoryWriter(store: store)
        transaction = try history.begin(entities)
    }

    deinit { store.transactionState.number = nil }

    var number: Int64 { transaction.number }

    func delete(_ entity: EntityDescription, ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        _ = try history.deleteRecords(entity, where: "\"id\" IN (\(ids.map(String.init).joined(separator: ", ")))", in: transaction)
    }

    func restore(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        guard !values.isEmpty else { return }
        let assignments = values.enumerated().map { "\(SQLIdentifier.quoted($0.element.0)) = ?\($0.offset + 2)" }.joined(separator: ", ")
        try store.connection.execute("UPDATE \(SQLIdentifier.quoted(entity.tableName)) SET \(assignments) WHERE \"id\" = ?1", [.integer(id)] + values.map(\.1))
        // Written at once, not held to the end: an undo's memory must not grow with its size.
        if store.capture.hasPending { try store.capture.flush() }
    }

    func reinsert(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        let table = SQLIdentifier.quoted(entity.tableName)
        let key = entity.uniqueKey.compactMap { name in values.first { $0.0 == name } }
        let match = key.enumerated().map { "\(SQLIdentifier.quoted($0.element.0)) IS ?\($0.offset + 1)" }.joined(separator: " AND ")
        if case .integer(let holder)? = try store.connection.scalar("SELECT \"id\" FROM \(table) WHERE \(match)", key.map(\.1)) {
            throw UndoError.keyTaken(entity: entity.name, key: key.map { $0.1.description }.joined(separator: ", "), recordID: holder)
        }
        let names = (["id"] + values.map(\.0)).map(SQLIdentifier.quoted).joined(separator: ", ")
        let parameters = (1...(values.count + 1)).map { "?\($0)" }.joined(separator: ", ")
        try store.connection.execute("INSERT INTO \(table) (\(names)) VALUES (\(parameters))", [.integer(id)] + values.map(\.1))
        reinserted[entity.name, default: []].append(id)
    }

    func orphans(_ child: EntityDescription, parent: EntityDescription) throws -> [Int64] {
        let sql = "SELECT e.\"id\" FROM \(SQLIdentifier.quoted(child.tableName)) AS e WHERE \(ChildrenSQL(child: child, parent: parent).orphaned) ORDER BY e.\"id\""
        return try store.connection.rows(sql, []).compactMap { $0.first?.integerValue }
    }

    func finish(metadata: TransactionMetadata, entities: [EntityDescription]) throws -> [(String, ChangeCounts)] {
        var counts: [(String, ChangeCounts, ClosedRange<Int64>?)] = []
        for entity in entities {
            var (entityCounts, ids) = try history.recordChanges(entity, in: transaction)
            if let put = reinserted[entity.name], !put.isEmpty {
                let schema = SQLiteEntitySchema(entity: entity)
                try store.connection.execute(schema.recordInserts(where: "\"id\" IN (\(put.map(String.init).joined(separator: ", ")))"), [.integer(number)])
                entityCounts.inserted += store.connection.changes
                let last = try SQLiteEntitySchema.lastAssignedID(schema.changeTableName, in: store.connection)
                let first = ids?.lowerBound ?? (transaction.lastChangeIDBefore[entity.name] ?? 0) + 1
                ids = first...last
            }
            counts.append((entity.name, entityCounts, ids))
        }
        _ = try history.finish(number, metadata: metadata, entities: counts)
        return counts.map { ($0.0, $0.1) }
    }
}

extension SQLiteStore {
    package func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction {
        try SQLiteUndoTransaction(store: self, entities: entities)
    }
}
