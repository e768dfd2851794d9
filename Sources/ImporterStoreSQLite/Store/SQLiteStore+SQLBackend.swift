import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// The store's bookkeeping in SQLite is the shared SQL (`SQLBackend`) in SQLite's dialect; what
/// SQLite does its own way: entity tables by `SQLiteEntitySchema`, no `rekeyed` counts in stores of
/// schema 1, no `importer_source` before schema 4.
extension SQLiteStore: SQLBackend {
    package var executor: any SQLExecutor { SQLiteExecutor(connection) }
    package var dialect: any SQLDialect { SQLiteDialect() }
    package var storesRekeyedCounts: Bool { schemaVersion >= 2 }
    package var storesSourceStates: Bool { schemaVersion >= 4 }

    package func createStatements(for entity: EntityDescription) -> [String] { SQLiteEntitySchema(entity: entity).createStatements }

    package func tableExists(named name: String) throws -> Bool {
        try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type = 'table'", [.text(name)]) > 0
    }

    /// The shared counts, with SQLite's schema version (`user_version`) and file sizes.
    package func statusCounts() throws(StoreError) -> StoreCounts {
        try mapErrors {
            var counts = try commonStatusCounts()
            counts.schemaVersion = Int(try connection.integer("PRAGMA user_version"))
            func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0 }
            counts.bytes = size(path)
            counts.walBytes = size(path + "-wal")
            return counts
        }
    }

    /// Makes the store hold `entities` (creating or migrating their tables), inside a write
    /// transaction so that a failed import also undoes it.
    package func ensureEntities(_ entities: [EntityDescription]) throws {
        self.entities = try registerEntities(entities)
    }

    package func columnExists(_ column: String, in table: String) throws -> Bool {
        try connection.integer("SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2", [.text(table), .text(column)]) > 0
    }

    /// The delete guard is named after the table: made again under the new name.
    package func renameGuard(of entity: EntityDescription, to renamed: EntityDescription) throws {
        try connection.execute("DROP TRIGGER \(SQLiteEntitySchema(entity: entity).deleteGuardName)")
        try connection.execute(SQLiteEntitySchema(entity: renamed).createDeleteGuard)
    }

    /// SQLite cannot change a column's type: each column is replaced by a new one
    /// (`replaceRetypedColumn`); the key's, which carries the unique constraint, by a copy of the
    /// table (`SQLiteEntitySchema.rebuildStatements`) with its other columns as the table has them
    /// now (the migration's other steps may have added, removed or retyped some).
    package func rewriteRetyped(_ lookups: [RetypeLookup], in table: String, to type: AttributeType,
                                key: (entity: EntityDescription, attribute: String)?) throws {
        guard let (entity, name) = key, let lookup = lookups.first else {
            for lookup in lookups { try replaceRetypedColumn(lookup, in: table, to: type) }
            return
        }
        var retyped = entity
        retyped.attributes = try connection.rows("SELECT name, type, \"notnull\" FROM pragma_table_info(?1) ORDER BY cid", [.text(entity.tableName)])
            .compactMap { row -> AttributeDescription? in
                guard let column = row.first?.stringValue, column != "id", column != SQLiteEntitySchema.guardColumn else { return nil }
                let stored = AttributeType.allCases.first { $0.sqlType == row[1].stringValue } ?? .text
                return AttributeDescription(name: column, type: column == name ? type : stored, isOptional: row[2].integerValue == 0)
            }
        let indexes = try ownIndexes(of: entity.tableName)
        let schema = SQLiteEntitySchema(entity: retyped)
        for statement in schema.rebuildStatements(indexes: indexes, taking: (name, lookup.converted("e", quoted: SQLiteEntitySchema.q, join: "LEFT JOIN"))) { try connection.execute(statement) }
    }

    /// The `CREATE INDEX` text of `table`'s own indexes (not those of its constraints), to make
    /// them again on a copy of the table.
    private func ownIndexes(of table: String) throws -> [String] {
        try connection.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY name", [.text(table)])
            .compactMap { $0.first?.stringValue }
    }

    /// SQLite alters no constraint in place: the table is rebuilt with `entity`'s
    /// (`EntityTables.rebuildStatements`), whatever `steps` changed.
    package func replaceConstraints(of entity: EntityDescription, changing steps: [MigrationStep]) throws {
        let indexes = try ownIndexes(of: entity.tableName)
        for statement in SQLiteEntitySchema(entity: entity).rebuildStatements(indexes: indexes) { try connection.execute(statement) }
    }
}

extension SQLiteStore: StoreBackend {
    package func migrate(_ steps: [MigrationStep], to entities: [EntityDescription], metadata: TransactionMetadata) throws -> Int64 {
        transactionState.number = try lastTransactionNumber() + 1
        defer { transactionState.number = nil }
        return try applyMigration(steps, to: entities, metadata: metadata)
    }
}
