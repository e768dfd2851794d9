import ImporterModel

/// The statements that name the records of a PostgreSQL import whose key an earlier record of the
/// run had (`DuplicateRecord`), read from the stages once the set-based apply found duplicates:
/// the staged rows of every key staged more than once, or (first load) matching a record COPied
/// straight into the table, in (key, feed order).
struct StagedDuplicates {
    let entity: EntityDescription
    /// The stages of the feeds' parts (`PostgresImportTransaction.EntityRun.parts`).
    let stages: [String]
    /// The diff of the apply (`StagedUpsert.createDiff`), whose matched rows on a first load are
    /// keys the direct COPY wrote.
    let diff: String
    /// A first load that COPied records straight into the table: the diff's matched rows repeat them.
    let direct: Bool

    private var keys: [String] { entity.uniqueKey.map(PostgresEntitySchema.q) }
    static let cursor = "importer_duplicates"

    /// A cursor over the repeated keys' staged rows: the key values, `importer_origin`, `importer_at`.
    var declare: String {
        let keyList = keys.joined(separator: ", ")
        let rows = stages.map { "SELECT \(keyList), \"importer_ord\", \"importer_origin\", \"importer_at\" FROM \($0)" }.joined(separator: " UNION ALL ")
        var repeated = "SELECT \(keyList) FROM s GROUP BY \(keyList) HAVING count(*) > 1"
        if direct { repeated += " UNION SELECT \(keyList) FROM \(diff) WHERE \"importer_old_id\" IS NOT NULL" }
        let join = keys.map { "k.\($0) = s.\($0)" }.joined(separator: " AND ")
        let order = StagedUpsert.keyOrder(of: entity, "s.")
        return """
            DECLARE \(Self.cursor) NO SCROLL CURSOR FOR
            WITH s AS (\(rows)), k AS (\(repeated))
            SELECT \(keys.map { "s.\($0)" }.joined(separator: ", ")), s."importer_origin", s."importer_at"
            FROM s JOIN k ON \(join) ORDER BY \(order), s."importer_ord"
            """
    }

    /// On a first load: the keys the direct COPY wrote that staged rows repeat, with their ids.
    var directMatches: String {
        "SELECT \(keys.joined(separator: ", ")), \"importer_old_id\" FROM \(diff) WHERE \"importer_old_id\" IS NOT NULL"
    }

    /// On a first load: leaves unwritten the direct records whose key the same feed repeats, when
    /// that feed keeps first occurrences. `directFeed` gives a direct record's feed from its id.
    static func keepDirectFirsts(diff: String, firstFeeds: [Int], directFeed: String) -> String {
        let feed = "(\"importer_origin\" >> 40)"
        return """
            UPDATE \(diff) SET "importer_changed" = FALSE WHERE "importer_old_id" IS NOT NULL
              AND \(feed) IN (\(firstFeeds.map(String.init).joined(separator: ", "))) AND \(feed) = \(directFeed)
            """
    }

    /// The feed of a record COPied straight into the table, from its id (`"importer_old_id"`):
    /// `feedRuns` are each feed's stretch of direct records in id order from `firstID`
    /// (`DirectOrigins.feedRuns`).
    static func directFeed(feedRuns: [(feed: Int64, end: Int)], firstID: Int64) -> String {
        let cases = feedRuns.map { "WHEN \"importer_old_id\" < \(firstID + Int64($0.end)) THEN \($0.feed)" }
        return "CASE \(cases.joined(separator: " ")) ELSE -1 END"
    }
}
