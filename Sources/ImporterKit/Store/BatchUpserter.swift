import Foundation
import CSQLite

/// Writes batches of one entity's records through one prepared
/// `INSERT … ON CONFLICT(key) DO UPDATE SET … WHERE <something changed>` statement.
///
/// - Only the batch's columns (the attributes the feed supplies) are inserted or updated; other
///   attributes of existing records are left untouched.
/// - The `WHERE` clause compares NULL-safely (`IS NOT`): a record equal to the stored one writes
///   nothing, so its triggers do not fire and no change is recorded.
/// - Each batch is sorted by key before writing (B-tree inserts in key order measured faster, see
///   README); among equal keys in a batch the last occurrence wins.
/// - Every key written in the run is remembered in a temporary table, which finds duplicates across
///   batches and feeds, and gives sync mode the set of keys the feed holds.
let experimentNoSeen = ProcessInfo.processInfo.environment["EXP_NOSEEN"] != nil
final class BatchUpserter {
    let entity: EntityDescription
    let columns: [Int]
    let keyPositions: [Int]
    private let connection: Connection
    private let upsert: Statement
    private let markSeen: Statement
    private let duplicates: DuplicateMerger
    private var order: [Int] = []

    /// Records written (after in-batch de-duplication), and duplicates found.
    private(set) var written = 0
    private(set) var duplicateCount = 0

    init(connection: Connection, entity: EntityDescription, columns: [Int], keyPositions: [Int], transactionState: TransactionState) throws {
        self.connection = connection
        self.entity = entity
        self.columns = columns
        self.keyPositions = keyPositions
        let names = columns.map { SQLIdentifier.quoted(entity.attributes[$0].name) }
        let table = SQLIdentifier.quoted(entity.tableName)
        let key = entity.uniqueKey.map(SQLIdentifier.quoted)
        let updatable = names.filter { !key.contains($0) }
        var sql = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(names.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
        sql += " ON CONFLICT (\(key.joined(separator: ", "))) DO "
        if updatable.isEmpty {
            sql += "NOTHING"
        } else {
            sql += "UPDATE SET " + updatable.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            sql += " WHERE " + updatable.map { "\(table).\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        }
        upsert = try connection.prepare(sql)
        let seen = SeenKeys.tableName(entity)
        markSeen = try connection.prepare(
            "INSERT INTO temp.\(seen) (\(key.joined(separator: ", "))) VALUES (\(key.indices.map { "?\($0 + 1)" }.joined(separator: ", "))) ON CONFLICT DO NOTHING")
        duplicates = try DuplicateMerger(connection: connection, entity: entity, transactionState: transactionState)
    }

    /// Writes `batch`. `sorted` chooses key order (true) or feed order (false, for measurement).
    func write(_ batch: RecordBatch, sorted: Bool = true) throws {
        let count = batch.count
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: 0..<count)
        if sorted {
            order.sort { a, b in
                let c = batch.compareKeys(a, b)
                return c != 0 ? c < 0 : a < b
            }
        }
        try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? UnsafePointer(bitPattern: 1)!
            var i = 0
            while i < count {
                let record = order[i]
                // Equal keys are adjacent after sorting: only the last occurrence is written.
                if sorted, i + 1 < count, batch.compareKeys(record, order[i + 1]) == 0 {
                    duplicateCount += 1
                    i += 1
                    continue
                }
                i += 1
                var fresh = true
                if !experimentNoSeen {
                bind(markSeen, batch, record, positions: keyPositions, base)
                _ = try markSeen.step()
                markSeen.reset()
                fresh = connection.changes != 0
                }
                if !fresh {
                    // The key was written earlier in this run: merge into one change.
                    duplicateCount += 1
                    try duplicates.rewrite(keyValues: keyPositions.map { batch.publicValue(record: record, position: $0) }) {
                        try writeRecord(batch, record, base)
                    }
                } else {
                    try writeRecord(batch, record, base)
                    written += 1
                }
            }
        }
    }

    @inline(__always)
    private func writeRecord(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>) throws {
        bind(upsert, batch, record, positions: nil, base)
        _ = try upsert.step()
        upsert.reset()
    }

    /// Binds the record's values at `positions` (all columns when nil) as parameters 1, 2, ...
    @inline(__always)
    private func bind(_ statement: Statement, _ batch: RecordBatch, _ record: Int, positions: [Int]?, _ base: UnsafePointer<UInt8>) {
        let width = positions?.count ?? batch.width
        for parameter in 0..<width {
            let position = positions?[parameter] ?? parameter
            let index = Int32(parameter + 1)
            switch batch.value(record: record, position: position) {
            case .null: statement.bindNull(index)
            case .integer(let v): statement.bind(v, at: index)
            case .real(let v): statement.bind(v, at: index)
            case .text(let start, let count): statement.bindText(base + Int(start), count: Int(count), at: index)
            }
        }
    }
}

/// The temporary table of keys written in the current run, per entity.
enum SeenKeys {
    static func tableName(_ entity: EntityDescription) -> String {
        SQLIdentifier.quoted("importer_seen_" + entity.tableName)
    }

    /// Creates (or empties) the table for a new run.
    static func prepare(_ entity: EntityDescription, in connection: Connection) throws {
        let columns = entity.uniqueKey.compactMap { entity.attribute(named: $0) }
            .map { "\(SQLIdentifier.quoted($0.name)) \($0.type.sqlType) NOT NULL" }
        let key = entity.uniqueKey.map(SQLIdentifier.quoted).joined(separator: ", ")
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \(tableName(entity)) (\(columns.joined(separator: ", ")), PRIMARY KEY (\(key))) WITHOUT ROWID")
        try connection.execute("DELETE FROM temp.\(tableName(entity))")
    }

    static func count(_ entity: EntityDescription, in connection: Connection) throws -> Int {
        if case .integer(let n)? = try connection.scalar("SELECT count(*) FROM temp.\(tableName(entity))") { return Int(n) }
        return 0
    }

    /// Deletes the stored records whose key the run did not write (sync mode). The delete triggers
    /// record each one with its tombstone.
    static func deleteUnseen(_ entity: EntityDescription, in connection: Connection) throws -> Int {
        let table = SQLIdentifier.quoted(entity.tableName)
        let match = entity.uniqueKey.map(SQLIdentifier.quoted).map { "k.\($0) = \(table).\($0)" }.joined(separator: " AND ")
        try connection.execute("DELETE FROM \(table) WHERE NOT EXISTS (SELECT 1 FROM temp.\(tableName(entity)) AS k WHERE \(match))")
        return connection.changes
    }
}
