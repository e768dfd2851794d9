import ImporterModel

/// Duplicates on PostgreSQL: the stage keeps each row's feed and record (`importer_origin`) and
/// position (`importer_at`), the apply chooses each key's occurrence in SQL (`StagedUpsert.chosenFirst`),
/// and once it found duplicates, they are read back from the stages and reported, in (key, feed)
/// order, as SQLite's upserter reports them in feed order.
extension PostgresImportTransaction {
    /// Rows read from the duplicates cursor at a time.
    static let duplicatesChunk = 2_000

    /// On a first load with records COPied straight into the table: a direct record whose key its
    /// own feed repeats, when that feed keeps first occurrences, is not updated.
    func keepDirectFirsts(_ upsert: StagedUpsert, _ run: EntityRun) throws {
        guard run.directRows > 0, !upsert.firstFeeds.isEmpty else { return }
        let firstID = try directFirstID(upsert)
        let directFeed = StagedDuplicates.directFeed(feedRuns: run.directOrigins.feedRuns, firstID: firstID)
        try store.connection.execute(StagedDuplicates.keepDirectFirsts(diff: upsert.diff, firstFeeds: upsert.firstFeeds, directFeed: directFeed))
    }

    /// The id of the first record COPied straight into the table (ids follow the COPY order).
    private func directFirstID(_ upsert: StagedUpsert) throws -> Int64 {
        try store.connection.integer("SELECT coalesce(min(\"id\"), 0) FROM \(upsert.schema.table)")
    }

    /// Logs the run's repeated records of the entity (when the apply found any) in
    /// `run.duplicateLog`, counting the rejected ones.
    func reportDuplicates(_ upsert: StagedUpsert, _ run: EntityRun) throws {
        guard run.duplicates > 0 else { return }
        let entity = upsert.entity
        let sql = StagedDuplicates(entity: entity, stages: run.parts.map(\.stage), diff: upsert.diff,
                                   direct: upsert.firstLoad && run.directRows > 0)
        let earlier = run.directRows > 0 ? try directFirsts(sql, upsert, run) : [:]
        let width = entity.uniqueKey.count
        let connection = store.connection
        try connection.execute(sql.declare)
        var key: [Value] = []
        var occurrences: [FeedRecord] = []
        func flush() throws {
            guard !occurrences.isEmpty else { return }
            for duplicate in DuplicateRecord.chain(entity: entity.name, key: key, earlier: earlier[key], occurrences: occurrences,
                                                   keys: { run.feeds[$0] ?? .last }) {
                if duplicate.resolution == .rejected { run.rejectedDuplicates += 1 }
                run.duplicateLog.append(duplicate)
            }
            occurrences.removeAll()
        }
        while true {
            let rows = try connection.rows("FETCH \(Self.duplicatesChunk) FROM \(StagedDuplicates.cursor)")
            for row in rows where row.count == width + 2 {
                let rowKey = Array(row[0..<width])
                if rowKey != key { try flush() }
                key = rowKey
                guard case .integer(let packed) = row[width], case .integer(let position) = row[width + 1] else { continue }
                var origin = FeedRecord(packed: packed)
                origin.unpackPosition(position)
                occurrences.append(origin)
            }
            if rows.count < Self.duplicatesChunk { break }
        }
        try flush()
        try connection.execute("CLOSE \(StagedDuplicates.cursor)")
    }

    /// On a first load: per key the direct COPY wrote and a staged row repeats, the direct
    /// record's place.
    private func directFirsts(_ sql: StagedDuplicates, _ upsert: StagedUpsert, _ run: EntityRun) throws -> [[Value]: FeedRecord] {
        let firstID = try directFirstID(upsert)
        let width = upsert.entity.uniqueKey.count
        var firsts: [[Value]: FeedRecord] = [:]
        for row in try store.connection.rows(sql.directMatches) where row.count == width + 1 {
            guard case .integer(let id) = row[width], id >= firstID, Int(id - firstID) < run.directOrigins.count else { continue }
            firsts[Array(row[0..<width])] = FeedRecord(packed: try run.directOrigins.origin(at: Int(id - firstID)))
        }
        return firsts
    }
}
