import Foundation
import ImporterModel
import ImporterStore

/// A backend whose bookkeeping is the SQL both backends share, written once over an executor and a
/// dialect (as sql-kit's `SQLDatabase`): the metadata, entity and view registration, consumers,
/// writing, listing and purging history, rejects and the status counts. A backend conforms by
/// saying how it creates an entity's tables and which schema it reads; it keeps only what truly
/// differs: change capture and the upsert path, COPY staging, the writer lock, paging change rows.
///
/// Invariant: every statement here runs inside the store transaction the caller holds; those that
/// write, inside a write transaction.
package protocol SQLBackend: StoreIdentity, StoreTransactions {
    /// Runs statements on the store's connection.
    var executor: any SQLExecutor { get }
    var dialect: any SQLDialect { get }
    /// The names of the change tables' own columns, as the store's schema version has them.
    var changeColumns: ChangeColumns { get }
    /// The statements that create `entity`'s tables and indexes.
    func createStatements(for entity: EntityDescription) -> [String]
    /// Whether a table named `name` (case-insensitively) exists in the store.
    func tableExists(named name: String) throws -> Bool
    /// Whether the transaction tables have the `rekeyed` column (stores of schema 1 do not).
    var storesRekeyedCounts: Bool { get }
    /// Whether the store has `importer_source` (stores of an older schema opened read-only do not).
    var storesSourceStates: Bool { get }
    /// Gives `entity`'s table the constraints `steps` change (its unique key, its NOT NULL
    /// columns), as `entity` declares them; the stored records already satisfy them.
    func replaceConstraints(of entity: EntityDescription, changing steps: [MigrationStep]) throws
    /// Gives each of `lookups`' columns of `table` the type `to`, each row's value replaced by the
    /// one its map holds for it (`RetypeLookup`), null where it holds none. `key`: the entity and
    /// its key attribute, when `table` is the entity's and the column that attribute's (its
    /// unique key and NOT NULL stay).
    func rewriteRetyped(_ lookups: [RetypeLookup], in table: String, to: AttributeType,
                        key: (entity: EntityDescription, attribute: String)?) throws
    /// Whether `table` has a column `column` (exactly so named).
    func columnExists(_ column: String, in table: String) throws -> Bool
    /// Gives the guard of `entity`'s table, renamed to `renamed`'s, the name it has in a new store.
    func renameGuard(of entity: EntityDescription, to renamed: EntityDescription) throws
}

extension SQLBackend {
    /// Runs `body`, translating the errors it throws into store errors (`storeError(from:)`).
    package func mapErrors<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw storeError(from: error) }
    }

    /// `$n` or `?n`: the placeholder of the `n`th parameter.
    func p(_ n: Int) -> String { dialect.parameter(n) }

    /// `entity`'s tables, with the store's change-table layout.
    package func tables(of entity: EntityDescription) -> EntityTables {
        EntityTables(entity: entity, dialect: dialect, columns: changeColumns)
    }

    /// The statements that add `attribute` (optional, new) to `entity`'s tables (a store being
    /// written has the current layout).
    func addColumnStatements(for attribute: AttributeDescription, of entity: EntityDescription) -> [String] {
        EntityTables(entity: entity, dialect: dialect).addColumn(attribute)
    }

    /// The column of `importer_entity` that orders entities as they were registered.
    var registrationOrder: String { dialect.registrationOrder }

    /// The value of a key of `importer_metadata`, or nil when it is not set.
    package func metadata(_ key: String) throws -> Value? {
        try executor.scalar(#"SELECT "value" FROM importer_metadata WHERE "key" = \#(p(1))"#, [.text(key)])
    }

    /// An integer of `importer_metadata` (0 when unset).
    package func metadataInteger(_ key: String) throws -> Int64 {
        try metadata(key)?.integerValue ?? 0
    }

    /// Sets keys of `importer_metadata`, adding those not set yet.
    package func setMetadata(_ pairs: [(key: String, value: Value)]) throws {
        guard !pairs.isEmpty else { return }
        let rows = pairs.indices.map { "(\(p(2 * $0 + 1)), \(p(2 * $0 + 2)))" }.joined(separator: ", ")
        try executor.execute("""
            INSERT INTO importer_metadata ("key", "value") VALUES \(rows)
            ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"
            """, pairs.flatMap { [.text($0.key), $0.value] })
    }

    package func lastTransactionNumber() throws(StoreError) -> Int64 {
        try mapErrors { try metadataInteger("last_transaction_number") }
    }

    package func purgedThrough() throws(StoreError) -> Int64 {
        try mapErrors { try metadataInteger("purged_through") }
    }
}
