import Foundation
import ImporterModel
import ImporterStore

/// The store's own tables in its PostgreSQL schema (everything named `importer_*` that is not per
/// entity), the same layout as SQLite's (`StoreSchema` there) with PostgreSQL types, and the guard
/// function the entity tables' triggers call.
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
        case 2: [sourceTable]
        default: []
        }
    }

    /// The names of the change tables' own columns in a store of schema `version`.
    static func changeColumns(version: Int) -> ChangeColumns {
        version >= 2 ? .current : .legacy
    }

    /// Quotes an identifier (names are validated by the model; quotes are doubled anyway).
    static func q(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static let sourceTable = """
        CREATE TABLE IF NOT EXISTS importer_source (
          "url" text PRIMARY KEY, "etag" text, "last_modified" text, "sha256" text, "bytes" bigint NOT NULL,
          "status" bigint NOT NULL, "fetched_at" text NOT NULL, "transaction_number" bigint
        )
        """

    /// Run once, by the process that creates the store (under the creation advisory lock).
    static let create: [String] = [
        #"CREATE TABLE importer_metadata ("key" text PRIMARY KEY, "value" text)"#,
        """
        CREATE TABLE importer_entity (
          "name" text PRIMARY KEY, "table_name" text NOT NULL UNIQUE, "definition" text NOT NULL,
          "registered_at" text NOT NULL, "position" bigint GENERATED ALWAYS AS IDENTITY
        )
        """,
        """
        CREATE TABLE importer_transaction (
          "number" bigint PRIMARY KEY, "token" text NOT NULL UNIQUE, "timestamp" text NOT NULL,
          "author" text NOT NULL, "context" text NOT NULL, "process_id" bigint NOT NULL, "host" text NOT NULL,
          "source" text NOT NULL, "inserted" bigint NOT NULL, "updated" bigint NOT NULL, "deleted" bigint NOT NULL,
          "unchanged" bigint NOT NULL, "rejected" bigint NOT NULL, "duplicates" bigint NOT NULL,
          "rekeyed" bigint NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE importer_transaction_entity (
          "transaction_number" bigint NOT NULL, "entity" text NOT NULL, "inserted" bigint NOT NULL,
          "updated" bigint NOT NULL, "deleted" bigint NOT NULL, "unchanged" bigint NOT NULL, "rejected" bigint NOT NULL,
          "duplicates" bigint NOT NULL, "rekeyed" bigint NOT NULL DEFAULT 0, "first_change_id" bigint, "last_change_id" bigint,
          PRIMARY KEY ("transaction_number", "entity")
        )
        """,
        """
        CREATE TABLE importer_consumer (
          "name" text PRIMARY KEY, "kind" text NOT NULL CHECK ("kind" IN ('external', 'view')),
          "token_number" bigint NOT NULL, "entities" text NOT NULL, "attributes" text NOT NULL,
          "exclude_authors" text NOT NULL, "created_at" text NOT NULL, "last_replay_at" text
        )
        """,
        """
        CREATE TABLE importer_reject (
          "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "run" bigint NOT NULL, "transaction_number" bigint,
          "created_at" text NOT NULL, "source" text NOT NULL, "line" bigint, "column" bigint, "record" bigint,
          "path" text, "entity" text NOT NULL, "attribute" text, "reason" text NOT NULL, "value" text
        )
        """,
        #"CREATE INDEX importer_reject_run ON importer_reject ("run")"#,
        """
        CREATE TABLE importer_view (
          "name" text PRIMARY KEY, "entity" text NOT NULL, "definition" text NOT NULL, "registered_at" text NOT NULL
        )
        """,
        sourceTable,
        // The guard of the entity tables: a write outside an importer transaction (which sets
        // importer.transaction locally) is refused, never silently untracked.
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
