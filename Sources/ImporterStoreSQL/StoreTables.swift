import ImporterModel

/// The store's own tables (everything named `importer_*` that is not per entity), declared once in
/// a dialect's types: metadata, registered entities and views, history transactions and their
/// per-entity counts, consumers, rejects, and the state of URL feeds. Each backend adds what is its
/// own (PostgreSQL's guard function) and keeps its schema version and migrations.
///
/// Invariant: SQLite keeps the text of each statement in the store; the text stays the one stores
/// were created with.
package struct StoreTables: Sendable {
    package let dialect: any SQLDialect

    package init(dialect: any SQLDialect) {
        self.dialect = dialect
    }

    private var text: String { dialect.columnType(.text) }
    private var integer: String { dialect.columnType(.integer) }

    /// `"name" type constraints`.
    private func column(_ name: String, _ type: String, _ constraints: String = "") -> String {
        dialect.quoted(name) + " " + type + (constraints.isEmpty ? "" : " " + constraints)
    }

    /// Required columns of one type.
    private func required(_ type: String, _ names: String...) -> [String] {
        names.map { column($0, type, "NOT NULL") }
    }

    /// A transaction's counts (`ChangeCounts`); `rekeyed` came with a later schema.
    private var counts: [String] {
        required(integer, "inserted", "updated", "deleted", "unchanged", "rejected", "duplicates") + [column("rekeyed", integer, "NOT NULL DEFAULT 0")]
    }

    /// The statements that create a new store's tables, in order.
    package var create: [String] {
        [
            dialect.createTable("importer_metadata", [column("key", text, "PRIMARY KEY"), column("value", dialect.metadataValueType)], withoutRowID: true),
            entityTable,
            transactionTable,
            transactionEntityTable,
            consumerTable,
            rejectTable,
            "CREATE INDEX importer_reject_run ON importer_reject (run)",
            dialect.createTable("importer_view", [column("name", text, "PRIMARY KEY")] + required(text, "entity", "definition", "registered_at")),
            sourceTable,
        ]
    }

    private var entityTable: String {
        let columns = [column("name", text, "PRIMARY KEY"), column("table_name", text, "NOT NULL UNIQUE")] + required(text, "definition", "registered_at")
        return dialect.createTable("importer_entity", columns + [dialect.registrationColumn].compactMap { $0 })
    }

    private var transactionTable: String {
        let head = [column("number", integer, "PRIMARY KEY"), column("token", text, "NOT NULL UNIQUE")] + required(text, "timestamp", "author", "context")
        return dialect.createTable("importer_transaction", head + required(integer, "process_id") + required(text, "host", "source") + counts)
    }

    private var transactionEntityTable: String {
        let range = [column("first_change_id", integer), column("last_change_id", integer)]
        return dialect.createTable("importer_transaction_entity", required(integer, "transaction_number") + required(text, "entity") + counts + range
                                   + [#"PRIMARY KEY ("transaction_number", "entity")"#], withoutRowID: true)
    }

    private var consumerTable: String {
        let head = [column("name", text, "PRIMARY KEY"), column("kind", text, #"NOT NULL CHECK ("kind" IN ('external', 'view'))"#)]
        return dialect.createTable("importer_consumer", head + required(integer, "token_number")
                                   + required(text, "entities", "attributes", "exclude_authors", "created_at") + [column("last_replay_at", text)])
    }

    private var rejectTable: String {
        let head = [column("id", dialect.generatedKey(neverReused: false))] + required(integer, "run") + [column("transaction_number", integer)]
        let location = [column("line", integer), column("column", integer), column("record", integer), column("path", text)]
        return dialect.createTable("importer_reject", head + required(text, "created_at", "source") + location + required(text, "entity")
                                   + [column("attribute", text)] + required(text, "reason") + [column("value", text)])
    }

    /// `importer_source`: one row per URL feed, its validators and what was last fetched (added to
    /// older stores by their migration, hence `IF NOT EXISTS`).
    package var sourceTable: String {
        let validators = [column("url", text, "PRIMARY KEY"), column("etag", text), column("last_modified", text), column("sha256", text)]
        return dialect.createTable("importer_source", validators + required(integer, "bytes", "status") + required(text, "fetched_at")
                                   + [column("transaction_number", integer)], ifNotExists: true)
    }
}
