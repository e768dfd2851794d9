import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// The version of the store's own tables in its PostgreSQL schema (`StoreTables`, as SQLite's with
/// PostgreSQL types), their migrations, and the guard function the entity tables' triggers call.
///
/// `importer_metadata.schema_version` holds the version; an older importer refuses a newer store.
enum PostgresStoreSchema {
    /// 2: the change tables' own columns start with `importer_` (`ChangeColumns.current`), so that
    ///    no attribute name can collide with them.
    /// 3: `importer_source` keeps each URL feed's validators with the data (`SourceState`).
    static let version = 3

    /// The statements that bring a store of version `from`, holding `entities`, to the next version.
    static func migration(from version: Int64, entities: [EntityDescription]) -> [String] {
        switch version {
        case 1: entities.flatMap { PostgresEntitySchema(entity: $0, columns: .legacy).renameLegacyColumns }
        case 2: [StoreTables(dialect: PostgresDialect()).sourceTable]
        default: []
        }
    }

    /// The names of the change tables' own columns in a store of schema `version`.
    static func changeColumns(version: Int) -> ChangeColumns {
        version >= 2 ? .current : .legacy
    }

    /// Quotes an identifier (names are validated by the model; quotes are doubled anyway).
    static func q(_ name: String) -> String { PostgresDialect().quoted(name) }

    /// Run once, by the process that creates the store (under the creation advisory lock): the
    /// store's tables (`StoreTables` in PostgreSQL's types), then the guard of the entity tables: a
    /// write outside an importer transaction (which sets importer.transaction locally) is refused,
    /// never silently untracked.
    static let create: [String] = StoreTables(dialect: PostgresDialect()).create + [
        """
        CREATE FUNCTION importer_guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF coalesce(current_setting('importer.transaction', true), '') = '' THEN
            RAISE EXCEPTION 'importer: % on % is not tracked in history; write through importer', TG_OP, TG_TABLE_NAME
              USING ERRCODE = 'insufficient_privilege';
          END IF;
          RETURN NULL;
        END $$
        """,
    ]
}
