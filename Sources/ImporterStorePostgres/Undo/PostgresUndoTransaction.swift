import Foundation
import ImporterModel
import ImporterStoreSQL
import ImporterStore

/// The inverse of a transaction written into PostgreSQL (`importer undo`), recorded as SQLite
/// records it: deletes set-based with every value (a delete change each), restores as updates of
/// what actually changed (changed names in entity order, old values), records put back with their
/// id and recorded as inserts when the undo finishes. Restores and put-backs are gathered (one kind
/// and one entity at a time, up to `chunk` records) and applied set-based (`UndoStage`), not with
/// round trips per record (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
final class PostgresUndoTransaction: UndoTransaction {
    private let store: PostgresStore
    let number: Int64
    /// The largest change id of each entity before the undo: its change rows are the ones above.
    private var lastChangeIDBefore: [String: Int64] = [:]
    /// Each entity's temporary tables are named after its place among the store's entities, and
    /// dropped when the undo finishes: a `--cascade` runs several undos in one store transaction.
    private let order: [String: Int]
    /// The entities that had records put back (their ids are in `putBack(_:)`).
    private var reinserted: Set<String> = []
    private var pending: Pending?
    static let chunk = 10_000

    /// Calls not applied yet: restores or put-backs of one entity, as COPY rows of an `UndoStage`.
    private struct Pending {
        enum Kind { case restore, reinsert }
        let kind: Kind
        let entity: EntityDescription
        var text = CopyText()
        var count = 0
    }

    init(store: PostgresStore, entities: [EntityDescription]) throws {
        self.store = store
        number = try store.lastTransactionNumber() + 1
        order = Dictionary(store.entities.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            let schema = PostgresEntitySchema(entity: entity)
            lastChangeIDBefore[entity.name] = try store.connection.integer(
                "SELECT coalesce(max(\(schema.changeID)), 0) FROM \(schema.changeTable)")
        }
    }

    private static func idList(_ ids: [Int64]) -> String { ids.map(String.init).joined(separator: ", ") }

    func delete(_ entity: EntityDescription, ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try flush()
        let schema = PostgresEntitySchema(entity: entity)
        try store.connection.affected(schema.recordDeletes(where: "e.\"id\" IN (\(Self.idList(ids)))"), [.integer(number)])
        try store.connection.affected("DELETE FROM \(schema.table) WHERE \"id\" IN (\(Self.idList(ids)))")
    }

    func orphans(_ child: EntityDescription, parent: EntityDescription) throws -> [Int64] {
        try flush()
        let sql = "SELECT e.\"id\" FROM \(PostgresEntitySchema(entity: child).table) AS e WHERE \(ChildrenSQL(child: child, parent: parent).orphaned) ORDER BY e.\"id\""
        return try store.connection.rows(sql).compactMap { $0.first?.integerValue }
    }

    func restore(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        guard !values.isEmpty else { return }
        try gather(.restore, entity, id: id, values: values)
    }

    func reinsert(_ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        try gather(.reinsert, entity, id: id, values: values)
    }

    private func gather(_ kind: Pending.Kind, _ entity: EntityDescription, id: Int64, values: [(String, Value)]) throws {
        if let pending, pending.kind != kind || pending.entity.name != entity.name { try flush() }
        var gathered = pending ?? Pending(kind: kind, entity: entity)
        pending = nil
        gathered.count += 1
        gathered.text.append(.integer(Int64(gathered.count)))
        gathered.text.append(.integer(id))
        for attribute in entity.attributes {
            let value = values.first { $0.0 == attribute.name }?.1
            gathered.text.append(value ?? .null, double: PostgresEntitySchema.sqlType(attribute.type) == "double precision")
            gathered.text.append(.integer(value == nil ? 0 : 1))
        }
        gathered.text.endRow()
        pending = gathered
        if gathered.count >= Self.chunk { try flush() }
    }

    /// Applies the gathered calls.
    private func flush() throws {
        guard let gathered = pending else { return }
        pending = nil
        let index = order[gathered.entity.name] ?? 0
        let stage = UndoStage(entity: gathered.entity, table: Self.stageTable(index))
        let connection = store.connection
        try connection.execute(stage.create)
        try connection.execute(stage.clear)
        try connection.copy(into: stage.table, columns: stage.columns, data: gathered.text.buffer)
        switch gathered.kind {
        case .restore:
            try connection.affected(stage.recordRestores, [.integer(number)])
            try connection.affected(stage.applyRestores)
        case .reinsert:
            if let taken = try connection.rows(stage.takenKey).first, case .integer(let holder)? = taken.last {
                throw UndoError.keyTaken(entity: gathered.entity.name, key: taken.dropLast().map(\.description).joined(separator: ", "), recordID: holder)
            }
            try connection.affected(stage.applyReinserts)
            try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \(Self.putBack(index)) (\"id\" bigint NOT NULL) ON COMMIT DROP")
            try connection.affected("INSERT INTO \(Self.putBack(index)) SELECT \"id\" FROM \(stage.table)")
            reinserted.insert(gathered.entity.name)
        }
    }

    /// The gathered calls for the entity at `index` (`UndoStage`).
    private static func stageTable(_ index: Int) -> String { "importer_undo_\(index)" }
    /// The ids of the records put back into the entity at `index`.
    private static func putBack(_ index: Int) -> String { "importer_undo_put_\(index)" }

    func finish(metadata: TransactionMetadata, entities: [EntityDescription]) throws -> [(String, ChangeCounts)] {
        try flush()
        var counts: [(String, ChangeCounts, ClosedRange<Int64>?)] = []
        for entity in entities {
            let schema = PostgresEntitySchema(entity: entity)
            if reinserted.contains(entity.name) {
                let putBack = "\"id\" IN (SELECT \"id\" FROM \(Self.putBack(order[entity.name] ?? 0)))"
                try store.connection.affected(schema.recordInserts(where: putBack), [.integer(number)])
            }
            let (entityCounts, range) = try store.changeCounts(of: entity, after: lastChangeIDBefore[entity.name] ?? 0)
            counts.append((entity.name, entityCounts, range))
        }
        for entity in entities {
            let index = order[entity.name] ?? 0
            try store.connection.execute("DROP TABLE IF EXISTS \(Self.stageTable(index)), \(Self.putBack(index))")
        }
        _ = try store.recordTransaction(number, metadata: metadata, entities: counts)
        return counts.map { ($0.0, $0.1) }
    }
}

extension PostgresStore {
    package func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction {
        try PostgresUndoTransaction(store: self, entities: entities)
    }
}
