import CSQLite
import Foundation
import ImporterModel

/// Writes batches of one entity's records through one prepared
/// `INSERT … ON CONFLICT(key) DO UPDATE SET … WHERE <something changed>` statement, bound per record.
///
/// - Only the batch's columns (the attributes the feed supplies) are inserted or updated; other
///   attributes of existing records are left untouched.
/// - The `WHERE` clause compares NULL-safely (`IS NOT`): a record equal to the stored one writes
///   nothing and records no change. An update is recorded by `ChangeCapture` right after its step.
/// - Each batch is sorted by key before writing (B-tree inserts in key order measured faster, see
///   README); among equal keys in a batch the last occurrence wins.
/// - Every key written in the run is marked in the entity's `SeenKeys` (shared by the upserters of
///   all its feeds), which finds duplicates across batches and feeds; a duplicate is written
///   through the entity's `DuplicateMerger`.
final class BatchUpserter {
    private let capture: ChangeCapture
    private let upsert: Statement
    private let seen: SeenKeys
    private let duplicates: DuplicateMerger
    private var order: [Int] = []
    private var kept: [Int] = []

    init(connection: Connection, capture: ChangeCapture, entity: EntityDescription, columns: [Int], seen: SeenKeys, duplicates: DuplicateMerger) throws {
        self.capture = capture
        self.seen = seen
        self.duplicates = duplicates
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
        // Equal keys are adjacent after sorting: only the last occurrence is kept.
        kept.removeAll(keepingCapacity: true)
        for i in 0..<count {
            if sorted, i + 1 < count, batch.compareKeys(order[i], order[i + 1]) == 0 {
                seen.duplicates += 1
            } else {
                kept.append(order[i])
            }
        }
        try batch.arena.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress ?? emptyBytes
            var start = 0
            while start < kept.count {
                let end = min(start + SeenKeys.chunkSize, kept.count)
                let fresh = try seen.mark(batch, kept[start..<end], base)
                for (offset, record) in kept[start..<end].enumerated() {
                    if fresh & (1 << UInt64(offset)) != 0 {
                        try writeRecord(batch, record, base)
                    } else {
                        // The key was written earlier in this run: merge into one change.
                        seen.duplicates += 1
                        try duplicates.rewrite(keyValues: batch.keyPositions.map { batch.publicValue(record: record, position: $0) }) {
                            try writeRecord(batch, record, base)
                        }
                    }
                }
                start = end
            }
        }
    }

    @inline(__always)
    private func writeRecord(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>) throws {
        upsert.bind(batch, record, positions: nil, base, firstParameter: 1)
        _ = try upsert.step()
        upsert.reset()
        if capture.hasPending { try capture.flush() }
    }
}

extension Statement {
    /// Binds the record's values at `positions` (all columns when nil) as consecutive parameters.
    @inline(__always)
    func bind(_ batch: RecordBatch, _ record: Int, positions: [Int]?, _ base: UnsafePointer<UInt8>, firstParameter: Int32) {
        let width = positions?.count ?? batch.width
        for parameter in 0..<width {
            let position = positions?[parameter] ?? parameter
            let index = firstParameter + Int32(parameter)
            switch batch.value(record: record, position: position) {
            case .null: bindNull(index)
            case .integer(let v): bind(v, at: index)
            case .real(let v): bind(v, at: index)
            case .text(let start, let count): bindText(base + Int(start), count: Int(count), at: index)
            }
        }
    }
}
