import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// The store's bookkeeping in PostgreSQL is the shared SQL (`SQLBackend`) in PostgreSQL's dialect,
/// in the store's schema; what PostgreSQL does its own way: entity tables by
/// `PostgresEntitySchema`, no `importer_source` before schema 3.
extension PostgresStore: SQLBackend {
    package var executor: any SQLExecutor { PostgresExecutor(connection: connection) }
    package var dialect: any SQLDialect { PostgresDialect() }
    package var storesRekeyedCounts: Bool { true }
    package var storesSourceStates: Bool { schemaVersion >= 3 }

    package func createStatements(for entity: EntityDescription) -> [String] { PostgresEntitySchema(entity: entity).createStatements }

    package func tableExists(named name: String) throws -> Bool {
        try connection.integer("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND lower(tablename) = lower($1)", [.text(name)]) > 0
    }

    /// The shared counts, with the schema version and the size of the store's tables.
    package func statusCounts() throws(StoreError) -> StoreCounts {
        try mapErrors {
            var counts = try commonStatusCounts()
            counts.schemaVersion = Int(try storedSchemaVersion())
            counts.bytes = Int(try connection.integer("""
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')
                """))
            return counts
        }
    }

    package func migrate(_ steps: [MigrationStep], to entities: [EntityDescription], metadata: TransactionMetadata) throws -> Int64 {
        try applyMigration(steps, to: entities, metadata: metadata)
    }

    package func columnExists(_ column: String, in table: String) throws -> Bool {
        try connection.integer("""
            SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2
            """, [.text(table), .text(column)]) > 0
    }

    /// One `ALTER TABLE … ALTER COLUMN … TYPE … USING` for all of the columns: the table is
    /// written once, its indexes (the unique key's too) made again, NOT NULL kept. Each value takes
    /// the database's own cast where that gives every distinct value what the model's conversion
    /// gives (a lookup without a map: an id from integer to text, a code from text to integer);
    /// otherwise it is looked up in its map by a function (a transform expression may not hold a
    /// subquery), `STRICT`, so a null is never looked up, planned with its index: a scan of a few
    /// hundred values a row, the planner's choice for a small table, took 8.6 s at 1,000,000 rows
    /// where the index takes 3.3 s, the cast 1.8 s (Docs/PERFORMANCE.md, "Migrations").
    package func rewriteRetyped(_ lookups: [RetypeLookup], in table: String, to type: AttributeType,
                                key: (entity: EntityDescription, attribute: String)?) throws {
        let dialect = PostgresDialect(), q = dialect.quoted, newType = dialect.columnType(type)
        let functions = Dictionary(lookups.compactMap { lookup in lookup.map.map { ($0, (name: "pg_temp." + q($0 + "_value"), keyType: lookup.keyType)) } }) { first, _ in first }
        let alterations = lookups.map { lookup in
            "ALTER COLUMN \(lookup.column) TYPE \(newType) USING "
                + (lookup.map.flatMap { functions[$0] }.map { "\($0.name)(\(lookup.key("")))" } ?? lookup.key(""))
        }
        guard !functions.isEmpty else { return try connection.execute("ALTER TABLE \(table) " + alterations.joined(separator: ", ")) }
        let scans = try connection.rows("SELECT current_setting('enable_seqscan')").first?.first?.stringValue ?? "on"
        try connection.execute("SET LOCAL enable_seqscan = off")
        for (map, function) in functions {
            try connection.execute("""
                CREATE FUNCTION \(function.name)(\(function.keyType)) RETURNS \(newType) LANGUAGE sql STABLE STRICT
                AS 'SELECT \(q("new")) FROM \(q(map)) WHERE \(q("key")) = $1'
                """)
        }
        try connection.execute("ALTER TABLE \(table) " + alterations.joined(separator: ", "))
        for function in functions.values { try connection.execute("DROP FUNCTION \(function.name)(\(function.keyType))") }
        try connection.execute("SET LOCAL enable_seqscan = \(scans == "off" ? "off" : "on")")
    }

    /// The guard trigger is named alike on every table: it moves with its table.
    package func renameGuard(of entity: EntityDescription, to renamed: EntityDescription) throws {}

    /// A new key replaces the table's unique constraint; an attribute made required or optional
    /// gains or loses its NOT NULL, one added as required gains it.
    package func replaceConstraints(of entity: EntityDescription, changing steps: [MigrationStep]) throws {
        let table = PostgresEntitySchema(entity: entity).table, q = PostgresDialect().quoted
        for step in steps {
            switch step {
            case .changeKey(_, _, let key):
                let constraints = try connection.rows("""
                    SELECT c.conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                    WHERE n.nspname = current_schema() AND t.relname = $1 AND c.contype = 'u'
                    """, [.text(entity.tableName)]).compactMap { $0.first?.stringValue }
                for name in constraints { try connection.execute("ALTER TABLE \(table) DROP CONSTRAINT \(q(name))") }
                try connection.execute("ALTER TABLE \(table) ADD UNIQUE (\(key.map(q).joined(separator: ", ")))")
            case .changeOptionality(_, let attribute, let required, _):
                try connection.execute("ALTER TABLE \(table) ALTER COLUMN \(q(attribute)) \(required ? "SET" : "DROP") NOT NULL")
            case .addAttribute(_, let attribute, _) where !attribute.isOptional:
                try connection.execute("ALTER TABLE \(table) ALTER COLUMN \(q(attribute.name)) SET NOT NULL")
            default: continue
            }
        }
    }

    package func reloadEntities() throws(StoreError) {
        try mapErrors { entities = try registeredEntities() }
    }

    /// Makes the store hold `wanted` (creating or migrating their tables), inside a write
    /// transaction so that a failed import also undoes it.
    package func ensureEntities(_ wanted: [EntityDescription]) throws {
        entities = try registerEntities(wanted)
    }

    /// Rebuilds each view by one `INSERT … SELECT … GROUP BY`: the server aggregates, spilling to
    /// disk when it must.
    package func rebuildViews(_ views: [ViewDefinition]) throws(StoreError) {
        for view in views {
            let sql = try viewSQL(view)
            try mapErrors { for statement in sql.rebuild { try connection.execute(statement) } }
        }
    }
}

extension PostgresStore: StoreBackend {}
