import ImporterModel

/// The set-based statements that apply one entity's staged feed rows to its table, all computed
/// from the staging table (`importer_stage_N`: the supplied attributes plus `importer_ord`, the
/// feed order, `importer_batch`, and where the row came from: `importer_origin`, its feed and
/// record as `FeedRecord.packed`, and `importer_at`, its line and column) in a few statements,
/// never one round trip per record.
///
/// On a first load (`firstLoad`: no stored record before the run) the batches go straight into
/// the entity table while no key repeats (`DirectKeys`, `copyDirect`); what is staged after that is
/// applied as below, against those records, or, when nothing went straight in, by one ordered
/// insert (`StagedUpsert+FirstLoad`). Otherwise:
/// - `createDiff`: the chosen occurrence of each key (`DISTINCT ON`, skipped when `StagedKeys` shows
///   that no key repeats: the last feed's, and within it its last or first, `chosenFirst`) with the batch of its first occurrence, fully joined on the key to the
///   stored records (by hash or merge, `joinBySets`), keeping only the rows that matter: the
///   changed ones (`importer_changed`: a supplied attribute differs; `importer_old_id` the stored
///   record), the new keys (`importer_old_id` NULL) and the stored records the feed does not
///   hold (`importer_ord` NULL: the sync deletes' candidates) — a few rows on a typical re-load,
///   not one per staged record; changes and new ids follow (first batch, key), the order SQLite
///   writes them in (it sorts each batch by key);
/// - `recordUpdates`: one update change row per changed stored record (found by id, `joinByKey`),
///   with the changed names in entity order and their old values;
/// - `applyUpdates`: the same records updated; unchanged rows are not written;
/// - `applyInserts`: the new keys inserted in feed order (their insert changes are recorded at the
///   end of the run from the rows left, like SQLite).
///
/// The stored records the feed did not write (`unseen(_:)`) are the diff's rows without a staged
/// row, less those key drift re-keyed (kept in `seen`). Ids only grow and nothing else deletes
/// stored records before the sync step, so these are exactly the stored records (ids up to the
/// largest before the run) that no staged key matched.
struct StagedUpsert {
    let entity: EntityDescription
    /// Indices of the supplied attributes.
    let columns: [Int]
    let stage: String
    let diff: String
    /// Holds the stored records re-keyed by key drift (`DriftRekey`): written, but not by a key.
    let seen: String
    /// No stored record before the run (the entity table's largest id was 0): the records in the
    /// table are the run's own (`copyDirect`), none a sync candidate, and none recorded as updated.
    let firstLoad: Bool
    /// The feeds whose `duplicates` choice keeps a key's first occurrence (first, reject).
    var firstFeeds: [Int] = []
    /// Whether the stage holds rows of more than one feed.
    var severalFeeds = false

    var schema: PostgresEntitySchema { PostgresEntitySchema(entity: entity) }
    private static let oldID = "\"importer_old_id\""
    var supplied: [String] { columns.map { entity.attributes[$0].name } }
    private var keys: [String] { entity.uniqueKey.map(PostgresEntitySchema.q) }
    /// The key columns of `alias` as an ORDER BY list; text in byte order (`COLLATE "C"`), as SQLite sorts it.
    func keyOrder(_ alias: String) -> String { Self.keyOrder(of: entity, alias) }

    static func keyOrder(of entity: EntityDescription, _ alias: String) -> String {
        entity.uniqueKey.map { name in
            let text = [.text, .date, .datetime].contains(entity.attribute(named: name)?.type)
            return "\(alias)\(PostgresEntitySchema.q(name))" + (text ? " COLLATE \"C\"" : "")
        }.joined(separator: ", ")
    }

    var createStage: String {
        let definitions = columns.map { "\(PostgresEntitySchema.q(entity.attributes[$0].name)) \(PostgresEntitySchema.sqlType(entity.attributes[$0].type))" }
        return """
            CREATE TEMP TABLE \(stage) ("importer_ord" bigint NOT NULL, "importer_batch" bigint NOT NULL, "importer_origin" bigint NOT NULL,
              "importer_at" bigint NOT NULL, \(definitions.joined(separator: ", "))) ON COMMIT DROP
            """
    }

    var createSeen: String { "CREATE TEMP TABLE \(seen) (\"id\" bigint PRIMARY KEY) ON COMMIT DROP" }

    var stageColumns: [String] { ["importer_ord", "importer_batch", "importer_origin", "importer_at"] + supplied }

    /// An ORDER BY list that puts the chosen occurrence of a key first among its staged rows
    /// (`alias` their table's, with its dot): the last feed's, and within that feed its last row, or
    /// its first when the feed keeps first occurrences (`firstFeeds`), as SQLite's upserter keeps them.
    func chosenFirst(_ alias: String) -> String {
        let feed = "(\(alias)\"importer_origin\" >> 40)"
        let ord = "\(alias)\"importer_ord\""
        let within = firstFeeds.isEmpty ? "\(ord) DESC"
            : "CASE WHEN \(feed) IN (\(firstFeeds.map(String.init).joined(separator: ", "))) THEN \(ord) ELSE -\(ord) END"
        return severalFeeds ? "\(feed) DESC, \(within)" : within
    }

    /// The chosen occurrence of each staged key (`chosenFirst`) with `importer_first`, the batch of
    /// its first; the window spans the whole partition in the DISTINCT ON order, so that one sort
    /// serves both.
    var lastOccurrences: String {
        let keyList = keys.map { "s.\($0)" }.joined(separator: ", ")
        return """
            SELECT DISTINCT ON (\(keyList)) s.*, min(s."importer_batch") OVER (PARTITION BY \(keyList) ORDER BY \(chosenFirst("s."))
              ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS "importer_first"
            FROM \(stage) s ORDER BY \(keyList), \(chosenFirst("s."))
            """
    }

    /// Around `createDiff`: the stage is never ANALYZEd (that would cost a read of it), so the
    /// planner takes the last occurrences for a few rows and would probe the key index once per
    /// staged record; without nested loops it joins by hash or merge. Reset right after.
    /// The join also gets `diffWorkMem`, the transaction's `work_mem` given back right after.
    static let joinBySets = ["SET LOCAL enable_nestloop = off", "SET LOCAL work_mem = '\(diffWorkMem)'"]
    static let resetJoins = ["RESET enable_nestloop", "RESET enable_hashjoin", "RESET enable_mergejoin",
                             "SET LOCAL work_mem = '\(PostgresImportTransaction.workMem)'"]
    /// A re-load's diff hashes the stored records, about 140 bytes each: 512 MB (hash tables get
    /// twice that on PostgreSQL 15) holds 5,000,000 in one batch, where 256 MB split them in two
    /// spilled to disk. Only for the diff: with 512 MB, a first load's sort of its 5,000,000 new
    /// records for their change rows took place in memory, slower than the external sort
    /// (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
    static let diffWorkMem = "512MB"
    /// Around `applyUpdates`: the changed records, usually a few of the feed's,
    /// are found by their primary key, not by hashing the whole entity table (which the planner
    /// prefers even for a diff of 5 % of the table, and is slower for it (figures: Docs/PERFORMANCE.md, "Measurements behind the code")). Reset right after.
    static let joinByKey = ["SET LOCAL enable_hashjoin = off", "SET LOCAL enable_mergejoin = off"]

    /// `distinctKeys`: no staged key repeats (`StagedKeys`), so every staged row is its key's last
    /// and first occurrence, and the stage is joined as it is, without the dedupe's sort. On a
    /// first load the stored records are the run's own (`copyDirect`), none a sync candidate: the
    /// join keeps the staged rows only, matched ones (duplicates) whether changed or not.
    func createDiff(distinctKeys: Bool) -> String {
        let join = keys.map { "e.\($0) = u.\($0)" }.joined(separator: " AND ")
        let source = distinctKeys ? "(SELECT s.*, s.\"importer_batch\" AS \"importer_first\" FROM \(stage) s)" : "(\(lastOccurrences))"
        return """
            CREATE TEMP TABLE \(diff) ON COMMIT DROP AS
            SELECT * FROM (
              SELECT u.*, e."id" AS \(Self.oldID), \(storedValues),
                (u."importer_ord" IS NOT NULL AND e."id" IS NOT NULL AND (\(anyDistinct))) AS "importer_changed"
              FROM \(source) u \(firstLoad ? "LEFT" : "FULL") JOIN \(schema.table) e ON \(join)
            ) d WHERE \(firstLoad ? "TRUE" : "d.\"importer_changed\" OR d.\(Self.oldID) IS NULL OR d.\"importer_ord\" IS NULL")
            """
    }

    /// The stored record's value of each attribute, in the diff as `importer_was_<index>`, so that
    /// `recordUpdates` reads the diff alone.
    private var storedValues: String {
        entity.attributes.indices.map { "e.\(PostgresEntitySchema.q(entity.attributes[$0].name)) AS \(Self.was($0))" }.joined(separator: ", ")
    }

    private static func was(_ index: Int) -> String { "\"importer_was_\(index)\"" }

    /// The number of stored records no staged key matched (at `createDiff`).
    var unmatchedCount: String { "SELECT count(*) FROM \(diff) WHERE \"importer_ord\" IS NULL" }

    /// The condition that the stored record `alias` was not written by the feed (for sync deletes
    /// and key drift: a semi-join on the diff's few unmatched rows, not an anti-join on the feed).
    func unseen(_ alias: String) -> String {
        let rekeyed = "NOT EXISTS (SELECT 1 FROM \(seen) s WHERE s.\"id\" = \(alias).\"id\")"
        return firstLoad ? rekeyed : "\(alias).\"id\" IN (SELECT \(Self.oldID) FROM \(diff) WHERE \"importer_ord\" IS NULL) AND " + rekeyed
    }

    private func distinct(_ name: String) -> String {
        "u.\(PostgresEntitySchema.q(name)) IS DISTINCT FROM e.\(PostgresEntitySchema.q(name))"
    }

    private var anyDistinct: String { supplied.map(distinct).joined(separator: " OR ") }

    /// `$1`: the transaction number. From the diff alone: it holds the stored values (`storedValues`).
    var recordUpdates: String {
        let attributes = Array(entity.attributes.enumerated())
        func distinct(_ index: Int) -> String { "u.\(PostgresEntitySchema.q(entity.attributes[index].name)) IS DISTINCT FROM u.\(Self.was(index))" }
        let changed = supplied.compactMap { name in
            entity.attributes.firstIndex { $0.name == name }.map { "CASE WHEN \(distinct($0)) THEN \(PostgresEntitySchema.literal(name)) END" }
        }
        let news = attributes.map { supplied.contains($0.element.name) ? "u.\(PostgresEntitySchema.q($0.element.name))" : "u.\(Self.was($0.offset))" }
        let olds = attributes.map { supplied.contains($0.element.name) ? "CASE WHEN \(distinct($0.offset)) THEN u.\(Self.was($0.offset)) END" : "NULL" }
        let columns = schema.names + entity.attributes.map { schema.old($0.name) }
        return """
            INSERT INTO \(schema.changeTable) (\(schema.changeHead), \(schema.changed), \(columns.joined(separator: ", ")))
            SELECT $1, u.\(Self.oldID), 'update', concat_ws(',', \(changed.joined(separator: ", "))), \((news + olds).joined(separator: ", "))
            FROM \(diff) u WHERE u."importer_changed" ORDER BY u."importer_first", \(keyOrder("u."))
            """
    }

    /// The changed records in id order, so that a feed out of key order still updates the table's
    /// pages in turn, not at random (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
    var applyUpdates: String {
        let assignments = supplied.map { "\(PostgresEntitySchema.q($0)) = u.\(PostgresEntitySchema.q($0))" }
        let columns = ([Self.oldID] + supplied.map(PostgresEntitySchema.q)).joined(separator: ", ")
        return """
            UPDATE \(schema.table) e SET \(assignments.joined(separator: ", "))
            FROM (SELECT \(columns) FROM \(diff) WHERE "importer_changed" ORDER BY \(Self.oldID)) u
            WHERE e."id" = u.\(Self.oldID)
            """
    }

    var applyInserts: String {
        let names = supplied.map(PostgresEntitySchema.q).joined(separator: ", ")
        return """
            INSERT INTO \(schema.table) (\(names))
            SELECT \(names) FROM \(diff) WHERE \(Self.oldID) IS NULL ORDER BY "importer_first", \(keyOrder(""))
            """
    }
}
