import ImporterModel
import ImporterStore

/// Key drift under `--sync` (see `KeyDrift`): pairs the stored records the run did not write with
/// the records it inserted whose drifting key lies within the tolerance, and turns each
/// unambiguous pair into one update of the stored record. The inserted row goes (it never reaches
/// history: inserts are recorded from the rows left at the end); the stored row takes its key and
/// the values the feeds supplied, which the change capture records as one update with the key
/// among its changed attributes. Both sides are sorted by key and swept once: near-linear.
struct DriftReconciler {
    let connection: SQLiteConnection
    let capture: ChangeCapture
    let entity: EntityDescription
    let drift: KeyDrift
    /// The stored records the run wrote (a re-keyed one is marked as written).
    let seen: SeenRecords
    /// A windowed sync's window: stored records outside it do not pair.
    var window: SyncWindow?

    typealias Candidate = KeyDriftPairing.Candidate

    /// Re-keys every unambiguous pair; returns how many. `supplied`: the attributes (indices) the
    /// run's feeds supplied. Records above `seen.lastIDBefore` are the run's inserts.
    func reconcile(supplied: [Int]) throws -> Int {
        let lastIDBefore = seen.lastIDBefore
        let table = SQLIdentifier.quoted(entity.tableName) + " AS e"
        let matchColumns = entity.uniqueKey.filter { $0 != drift.attribute } + drift.agree
        let select = "SELECT \"id\", \(SQLIdentifier.quoted(drift.attribute))" + matchColumns.map { ", " + SQLIdentifier.quoted($0) }.joined()
        // Nothing stored before the run, or nothing inserted by it: nothing can pair.
        guard lastIDBefore > 0 else { return 0 }
        let insertedCount = try connection.integer("SELECT count(*) FROM \(table) WHERE \"id\" > ?1", [.integer(lastIDBefore)])
        guard insertedCount > 0 else { return 0 }
        let unseen = "\"id\" <= ?1 AND \(seen.unseenCondition)" + (window.map { " AND " + $0.condition } ?? "")
        let inRun = "\"id\" > ?1"
        // Load the smaller side whole (few inserts: the usual reload), the other only around it.
        let gone: [Candidate]
        let inserted: [Candidate]
        if insertedCount <= Self.nearLimit {
            inserted = try candidates("\(select) FROM \(table) WHERE \(inRun)", [.integer(lastIDBefore)])
            gone = try candidates(near: inserted, select: select, condition: unseen, lastIDBefore: lastIDBefore)
        } else {
            gone = try candidates("\(select) FROM \(table) WHERE \(unseen)", [.integer(lastIDBefore)])
            guard !gone.isEmpty else { return 0 }
            inserted = try candidates(near: gone, select: select, condition: inRun, lastIDBefore: lastIDBefore)
        }
        guard !gone.isEmpty, !inserted.isEmpty else { return 0 }
        let pairs = KeyDriftPairing.pairs(gone, inserted, tolerance: drift.tolerance)
        let columns = supplied.map { entity.attributes[$0].name }
        for (stored, new) in pairs { try rekey(stored, to: new, columns: columns) }
        return pairs.count
    }

    private func candidates(_ sql: String, _ arguments: [Value]) throws -> [Candidate] {
        var result: [Candidate] = []
        try connection.prepare(sql).forEachRow(arguments) { row in
            if let candidate = Self.candidate(row) { result.append(candidate) }
        }
        return result.sorted { $0.position < $1.position }
    }

    /// A row `id, key attribute, match...` as a candidate (nil when the key has no position).
    private static func candidate(_ row: SQLiteStatement) -> Candidate? {
        guard let position = KeyDrift.position(of: row.value(at: 1)) else { return nil }
        return Candidate(id: row.int64(at: 0), position: position, match: (2..<row.columnCount).map { row.value(at: $0) })
    }

    /// Past this many records on one side, the other is read by one scan rather than one index
    /// range per record.
    static let nearLimit: Int64 = 50_000

    /// The records meeting `condition` that could pair with one of `others`: one index range around
    /// each when the drifting attribute leads the key's index and `others` are few (a scan with the
    /// unseen test costs time in proportion to the stored records (figures: Docs/PERFORMANCE.md, "Measurements behind the code")), else one scan.
    private func candidates(near others: [Candidate], select: String, condition: String, lastIDBefore: Int64) throws -> [Candidate] {
        let table = SQLIdentifier.quoted(entity.tableName) + " AS e"
        guard entity.uniqueKey.first == drift.attribute, others.count <= Self.nearLimit,
              let type = entity.attribute(named: drift.attribute)?.type else {
            return try candidates("\(select) FROM \(table) WHERE \(condition)", [.integer(lastIDBefore)])
        }
        let statement = try connection.prepare("\(select) FROM \(table) WHERE \(SQLIdentifier.quoted(drift.attribute)) BETWEEN ?2 AND ?3 AND \(condition)")
        var found: [Int64: Candidate] = [:]
        for other in others {
            guard let (low, high) = drift.storedRange(around: other.position, type: type) else { continue }
            try statement.forEachRow([.integer(lastIDBefore), low, high]) { row in
                if let candidate = Self.candidate(row) { found[candidate.id] = candidate }
            }
        }
        return found.values.sorted { $0.position < $1.position }
    }

    /// Moves `new`'s key and supplied values onto `stored`, and removes `new`.
    private func rekey(_ stored: Candidate, to new: Candidate, columns: [String]) throws {
        let table = SQLIdentifier.quoted(entity.tableName)
        let quoted = columns.map(SQLIdentifier.quoted)
        guard let values = try connection.rows("SELECT \(quoted.joined(separator: ", ")) FROM \(table) WHERE \"id\" = ?1", [.integer(new.id)]).first else { return }
        capture.expectingDeletes = true
        defer { capture.expectingDeletes = false }
        try connection.execute("DELETE FROM \(table) WHERE \"id\" = ?1", [.integer(new.id)])
        capture.expectingDeletes = false
        let assignments = quoted.enumerated().map { "\($0.element) = ?\($0.offset + 2)" }.joined(separator: ", ")
        try connection.execute("UPDATE \(table) SET \(assignments) WHERE \"id\" = ?1", [.integer(stored.id)] + values)
        _ = seen.mark(stored.id, origin: nil)
    }
}
