import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// The store's own tables (`StoreTables`, in SQLite's types), their version and migrations.
///
/// `PRAGMA application_id` marks the file as an importer store; `PRAGMA user_version` holds the
/// schema version, so a later importer can migrate a store and an older one refuses a newer store.
enum SQLiteStoreSchema {
    /// 'IMPR'.
    static let applicationID: Int64 = 0x494D_5052
    /// 2: transactions count the records re-keyed by key drift (`rekeyed`).
    /// 3: the change tables' own columns start with `importer_` (`ChangeColumns.current`), so that
    ///    no attribute name can collide with them.
    /// 4: `importer_source` keeps each URL feed's validators with the data (`SourceState`).
    static let version = 4

    /// The statements that bring a store of version `from`, holding `entities`, to the next version.
    static func migration(from version: Int64, entities: [EntityDescription]) -> [String] {
        switch version {
        case 1: [#"ALTER TABLE importer_transaction ADD COLUMN "rekeyed" INTEGER NOT NULL DEFAULT 0"#,
                 #"ALTER TABLE importer_transaction_entity ADD COLUMN "rekeyed" INTEGER NOT NULL DEFAULT 0"#]
        case 2: entities.flatMap { SQLiteEntitySchema(entity: $0, columns: .legacy).renameLegacyColumns }
        case 3: [StoreTables(dialect: SQLiteDialect()).sourceTable]
        default: []
        }
    }

    /// The names of the change tables' own columns in a store of schema `version`.
    static func changeColumns(version: Int) -> ChangeColumns {
        version >= 3 ? .current : .legacy
    }

    /// The statements that create a new store's tables.
    static var create: [String] { StoreTables(dialect: SQLiteDialect()).create }
}
