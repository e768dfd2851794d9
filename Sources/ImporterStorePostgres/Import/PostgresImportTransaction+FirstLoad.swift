import ImporterModel

extension PostgresImportTransaction {
    /// COPies a first load's batch (admitted by `DirectKeys`) straight into the entity table, in
    /// key order: the ids follow (batch, key), as SQLite gives them. Cheaper than staging the batch
    /// and inserting it from the stage (figures: Docs/PERFORMANCE.md, "Measurements behind the code"); the insert changes are
    /// recorded at the close, from the table.
    func copyDirect(_ batch: RecordBatch, of upsert: StagedUpsert, _ run: EntityRun) throws {
        if !run.triedDeferringKeys {
            run.triedDeferringKeys = true
            run.deferredKeys = try dropKeys(of: upsert.schema.table)
            run.directBinary = try hasCreatedTypes(upsert)
        }
        let order = Self.keyOrder(batch)
        try run.directOrigins.append(order.map { batch.feedRecord($0).packed })
        let rows = try Self.copyRows(batch, order, of: upsert.entity, columns: upsert.columns, binary: run.directBinary)
        run.directRows += batch.count
        try store.connection.copy(into: upsert.entity.tableName, columns: upsert.supplied, binary: rows.binary, data: rows.data)
    }
}

extension PostgresImportTransaction {
    /// Whether the entity table's columns that `upsert` supplies have the types the importer
    /// creates them with (`PostgresEntitySchema.sqlType`), which binary COPY rows must match
    /// exactly: a column a user altered (to `numeric`, say) is loaded from text, which the
    /// server converts as before. Staging tables are the importer's own, always as created.
    private func hasCreatedTypes(_ upsert: StagedUpsert) throws -> Bool {
        let rows = try store.connection.rows("""
            SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
            """, [.text(upsert.schema.table)])
        var types: [String: String] = [:]
        for row in rows { if row.count == 2, case .text(let name) = row[0], case .text(let type) = row[1] { types[name] = type } }
        return upsert.columns.allSatisfy { types[upsert.entity.attributes[$0].name] == PostgresEntitySchema.sqlType(upsert.entity.attributes[$0].type) }
    }
}

extension PostgresImportTransaction {
    static let keysSavepoint = "importer_deferred_keys"

    /// Adds the dropped keys back (each index built from the loaded rows).
    func restoreKeys(_ run: EntityRun) throws {
        guard let keys = run.deferredKeys else { return }
        run.deferredKeys = nil
        try store.connection.execute(keys.restore)
    }

    /// Records the run's inserts as change rows. After a first load's direct COPYs that outnumber
    /// the change rows kept before (the largest change id bounds them), the change table's primary
    /// key is built after the insert rather than maintained row by row (`DeferredKeys`).
    func recordInserts(of schema: PostgresEntitySchema, _ run: EntityRun) throws -> Int {
        let keys = run.directRows > 0 && run.lastChangeIDBefore < Int64(run.directRows) ? try dropKeys(of: schema.changeTable) : nil
        let inserted = try store.connection.affected(schema.recordInserts, [.integer(number), .integer(run.lastIDBefore)])
        if let keys { try store.connection.execute(keys.restore) }
        return inserted
    }

    /// Drops the unique keys of `table` (quoted) and returns them, or nil when it has none or
    /// cannot lose them (a foreign key references it, a view depends on them: the drop is tried
    /// under a savepoint), or when its lock is not had within `dropLockTimeout` (a reader's open
    /// transaction holds the table: the import keeps the keys rather than wait, and readers queued
    /// behind the drop wait that long at most), or when the role may not alter the table. Any other
    /// failure (a cancelled statement, a lost connection) is thrown.
    private func dropKeys(of table: String) throws -> DeferredKeys? {
        let connection = store.connection
        guard let keys = DeferredKeys(table: table, rows: try connection.rows(DeferredKeys.listConstraints, [.text(table)])) else { return nil }
        let previous = try connection.scalar("SELECT current_setting('lock_timeout')") ?? .text("0")
        try connection.execute("SAVEPOINT \(Self.keysSavepoint)")
        do {
            // Set within the savepoint, whose rollback puts the setting back; after the drop, put back by hand.
            try connection.rows("SELECT set_config('lock_timeout', $1, true)", [.text(Self.dropLockTimeout)])
            try connection.execute(keys.drop)
            try connection.rows("SELECT set_config('lock_timeout', $1, true)", [previous])
        } catch {
            try connection.execute("ROLLBACK TO SAVEPOINT \(Self.keysSavepoint)")
            try connection.execute("RELEASE SAVEPOINT \(Self.keysSavepoint)")
            guard let state = error.sqlState, Self.keptKeysStates.contains(state) else { throw error }
            return nil
        }
        try connection.execute("RELEASE SAVEPOINT \(Self.keysSavepoint)")
        try connection.execute(DeferredKeys.maintenanceWorkMem)
        return keys
    }

    /// The failures of the drop that keep the keys: lock not available (the timeout), dependent
    /// objects still exist (a view), insufficient privilege (not the table's owner).
    static let keptKeysStates: Set<String> = ["55P03", "2BP01", "42501"]

    /// How long a first load waits for a table's lock to drop its keys before keeping them.
    static let dropLockTimeout = "1s"
}

/// A first load's single statement (`StagedUpsert+FirstLoad`): when `StagedKeys` found the keys
/// distinct, the cheaper one for distinct keys is tried under a savepoint (the entity table's unique
/// key has the last word); when a key repeats, the savepoint and the id sequence are put back and
/// the deduplicating one runs, as it does at once when the keys may repeat. Returns the number of
/// records inserted.
extension PostgresImportTransaction {
    static let savepoint = "importer_unique_keys"

    func insertFirstLoad(_ upsert: StagedUpsert, distinctKeys: Bool) throws -> Int {
        let connection = store.connection
        guard distinctKeys, case .text(let sequence)? = try connection.scalar(upsert.idSequence, [.text(upsert.schema.table)]),
              let state = try connection.rows(StagedUpsert.sequenceState(sequence)).first, state.count == 2 else {
            return try connection.affected(upsert.insertFirstLoad)
        }
        try connection.execute("SAVEPOINT \(Self.savepoint)")
        let inserted: Int
        do {
            inserted = try insertUnique(upsert)
        } catch {
            guard error.sqlState == "23505" else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT \(Self.savepoint)")
            try connection.rows(StagedUpsert.restoreSequence, [.text(sequence), state[0], state[1]])
            return try connection.affected(upsert.insertFirstLoad)
        }
        return inserted
    }

    private func insertUnique(_ upsert: StagedUpsert) throws(PostgresFailure) -> Int {
        let inserted = try store.connection.affected(upsert.insertUniqueFirstLoad)
        try store.connection.execute("RELEASE SAVEPOINT \(Self.savepoint)")
        return inserted
    }
}
