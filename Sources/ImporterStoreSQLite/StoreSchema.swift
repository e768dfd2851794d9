import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// The store's own tables (everything named `importer_*` that is not per entity), and its version.
///
/// `PRAGMA application_id` marks the file as an importer store; `PRAGMA user_version` holds the
/// schema version, so a later importer can migrate a store and an older one refuses a newer store.
enum StoreSchema {
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
        case 2: entities.flatMap { EntitySchema(entity: $0, columns: .legacy).renameLegacyColumns }
        case 3: [sourceTable]
        default: []
        }
    }

    /// The names of the change tables' own columns in a store of schema `version`.
    static func changeColumns(version: Int) -> ChangeColumns {
        version >= 3 ? .current : .legacy
    }

    static let sourceTable = """
        CREATE TABLE IF NOT EXISTS importer_source (
          "url" TEXT PRIMARY KEY,
          "etag" TEXT,
          "last_modified" TEXT,
          "sha256" TEXT,
          "bytes" INTEGER NOT NULL,
          "status" INTEGER NOT NULL,
          "fetched_at" TEXT NOT NULL,
          "transaction_number" INTEGER
        ) STRICT
        """

    static let create: [String] = [
        """
        CREATE TABLE importer_metadata (
          "key" TEXT PRIMARY KEY,
          "value" ANY
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TABLE importer_entity (
          "name" TEXT PRIMARY KEY,
          "table_name" TEXT NOT NULL UNIQUE,
          "definition" TEXT NOT NULL,
          "registered_at" TEXT NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE importer_transaction (
          "number" INTEGER PRIMARY KEY,
          "token" TEXT NOT NULL UNIQUE,
          "timestamp" TEXT NOT NULL,
          "author" TEXT NOT NULL,
          "context" TEXT NOT NULL,
          "process_id" INTEGER NOT NULL,
          "host" TEXT NOT NULL,
          "source" TEXT NOT NULL,
          "inserted" INTEGER NOT NULL,
          "updated" INTEGER NOT NULL,
          "deleted" INTEGER NOT NULL,
          "unchanged" INTEGER NOT NULL,
          "rejected" INTEGER NOT NULL,
          "duplicates" INTEGER NOT NULL,
          "rekeyed" INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """,
        """
        CREATE TABLE importer_transaction_entity (
          "transaction_number" INTEGER NOT NULL,
          "entity" TEXT NOT NULL,
          "inserted" INTEGER NOT NULL,
          "updated" INTEGER NOT NULL,
          "deleted" INTEGER NOT NULL,
          "unchanged" INTEGER NOT NULL,
          "rejected" INTEGER NOT NULL,
          "duplicates" INTEGER NOT NULL,
          "rekeyed" INTEGER NOT NULL DEFAULT 0,
          "first_change_id" INTEGER,
          "last_change_id" INTEGER,
          PRIMARY KEY ("transaction_number", "entity")
        ) STRICT, WITHOUT ROWID
        """,
        """
        CREATE TABLE importer_consumer (
          "name" TEXT PRIMARY KEY,
          "kind" TEXT NOT NULL CHECK ("kind" IN ('external', 'view')),
          "token_number" INTEGER NOT NULL,
          "entities" TEXT NOT NULL,
          "attributes" TEXT NOT NULL,
          "exclude_authors" TEXT NOT NULL,
          "created_at" TEXT NOT NULL,
          "last_replay_at" TEXT
        ) STRICT
        """,
        """
        CREATE TABLE importer_reject (
          "id" INTEGER PRIMARY KEY,
          "run" INTEGER NOT NULL,
          "transaction_number" INTEGER,
          "created_at" TEXT NOT NULL,
          "source" TEXT NOT NULL,
          "line" INTEGER,
          "column" INTEGER,
          "record" INTEGER,
          "path" TEXT,
          "entity" TEXT NOT NULL,
          "attribute" TEXT,
          "reason" TEXT NOT NULL,
          "value" TEXT
        ) STRICT
        """,
        "CREATE INDEX importer_reject_run ON importer_reject (run)",
        """
        CREATE TABLE importer_view (
          "name" TEXT PRIMARY KEY,
          "entity" TEXT NOT NULL,
          "definition" TEXT NOT NULL,
          "registered_at" TEXT NOT NULL
        ) STRICT
        """,
        sourceTable,
    ]
}
