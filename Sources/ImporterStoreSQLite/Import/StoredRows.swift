import CSQLite
import Foundation
import ImporterModel

/// Finds which records of a key-sorted batch are stored, and whether each stored one already holds
/// the batch's values, by reading the stored rows instead of writing every record.
///
/// One index range per batch (`key BETWEEN first AND last … ORDER BY key`) is merged with the batch:
/// feeds in key order (the API's newest-first order) have disjoint ranges, so a reload reads each
/// stored row once, sequentially. A range holding more than twice the batch (a shuffled feed) is cut
/// off and the rest of the batch is looked up key by key; after a cut-off the next batches go
/// straight to lookups, and a range is tried again every `rangeRetry` batches
/// (figures: Docs/PERFORMANCE.md, "Measurements behind the code").
///
/// Invariant: a record is reported `same` only when every supplied attribute provably equals the
/// stored value as SQLite compares them (`IS NOT` is false); any doubt reports it changed, and the
/// upsert's own `WHERE` then decides. The merge relies on `RecordBatch.compareKeys` ordering keys
/// as the unique index does; `BatchUpserter` checks each insert and repairs the rare key it missed.
final class StoredRows {
    private let range: SQLiteStatement
    private let lookup: SQLiteStatement
    private let keyWidth: Int
    /// Positions in the batch of the supplied attributes that are not part of the key.
    private let compared: [Int]
    /// Batches left to look up key by key before a range is tried again.
    private var lookupsOnly = 0
    static let rangeRetry = 16

    init(connection: SQLiteConnection, entity: EntityDescription, columns: [Int], keyPositions: [Int]) throws {
        let table = SQLIdentifier.quoted(entity.tableName)
        let (key, compared, selected) = Self.row(of: entity, columns: columns, keyPositions: keyPositions)
        keyWidth = key.count
        self.compared = compared
        let width = key.count
        let tuple = width == 1 ? key[0] : "(\(key.joined(separator: ", ")))"
        func parameters(from first: Int) -> String {
            let list = (0..<width).map { "?\(first + $0)" }.joined(separator: ", ")
            return width == 1 ? list : "(\(list))"
        }
        range = try connection.prepare("""
            SELECT \(selected) FROM \(table) WHERE \(tuple) >= \(parameters(from: 1)) AND \(tuple) <= \(parameters(from: width + 1))
            ORDER BY \(key.joined(separator: ", ")) LIMIT ?\(2 * width + 1)
            """)
        let match = key.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        lookup = try connection.prepare("SELECT \(selected) FROM \(table) WHERE \(match)")
    }

    /// The stored row as `compareKey` and `isSame` read it: the unique key's quoted columns, the
    /// positions in the batch of the supplied attributes that are not part of the key, and the
    /// select list (the id, the key, then those attributes).
    static func row(of entity: EntityDescription, columns: [Int], keyPositions: [Int]) -> (key: [String], compared: [Int], selected: String) {
        let key = entity.uniqueKey.map(SQLIdentifier.quoted)
        let keyIndices = Set(keyPositions)
        let compared = columns.indices.filter { !keyIndices.contains($0) }
        let values = compared.map { SQLIdentifier.quoted(entity.attributes[columns[$0]].name) }
        return (key, compared, (["\"id\""] + key + values).joined(separator: ", "))
    }

    /// Calls `found(index, id, same)` for each record `kept[index]` whose key is stored, in order;
    /// `kept` holds distinct keys in ascending key order.
    func match(_ batch: RecordBatch, _ kept: [Int], _ base: UnsafePointer<UInt8>, found: (Int, Int64, Bool) throws -> Void) throws {
        guard let first = kept.first, let last = kept.last else { return }
        if lookupsOnly > 0 {
            lookupsOnly -= 1
            return try lookUp(batch, kept, from: 0, base, found: found)
        }
        let limit = kept.count * 2 + 64
        range.bind(batch, first, positions: batch.keyPositions, base, firstParameter: 1)
        range.bind(batch, last, positions: batch.keyPositions, base, firstParameter: Int32(keyWidth + 1))
        range.bind(Int64(limit), at: Int32(2 * keyWidth + 1))
        var index = 0
        var read = 0
        do {
            defer { range.reset() }
            rows: while try range.step() {
                read += 1
                while index < kept.count {
                    let order = Self.compareKey(batch, kept[index], base, range.handle)
                    if order > 0 { continue rows }
                    if order == 0 { try found(index, range.int64(at: 0), Self.isSame(batch, kept[index], base, compared, range.handle)) }
                    index += 1
                }
                break
            }
        }
        guard read == limit else { return }
        lookupsOnly = Self.rangeRetry - 1
        try lookUp(batch, kept, from: index, base, found: found)
    }

    private func lookUp(_ batch: RecordBatch, _ kept: [Int], from start: Int, _ base: UnsafePointer<UInt8>, found: (Int, Int64, Bool) throws -> Void) throws {
        for position in start..<kept.count {
            if let (id, same) = try look(up: batch, kept[position], base) { try found(position, id, same) }
        }
    }

    /// The stored id of `record`'s key, and whether the stored row holds its values.
    func look(up batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>) throws -> (Int64, Bool)? {
        lookup.bind(batch, record, positions: batch.keyPositions, base, firstParameter: 1)
        defer { lookup.reset() }
        guard try lookup.step() else { return nil }
        return (lookup.int64(at: 0), Self.isSame(batch, record, base, compared, lookup.handle))
    }

    /// Orders `record`'s key against the current row of `statement` (its id, then the key's
    /// columns) as the unique index orders them: NULL < numbers < text (BINARY collation).
    @inline(__always)
    static func compareKey(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>, _ statement: OpaquePointer) -> Int {
        for (offset, position) in batch.keyPositions.enumerated() {
            let order = compare(batch.value(record: record, position: position), base, statement, Int32(1 + offset))
            if order != 0 { return order }
        }
        return 0
    }

    /// Whether the current row of `statement` (its id, the key's columns, then the `compared`
    /// attributes') holds `record`'s values.
    @inline(__always)
    static func isSame(_ batch: RecordBatch, _ record: Int, _ base: UnsafePointer<UInt8>, _ compared: [Int], _ statement: OpaquePointer) -> Bool {
        let first = 1 + batch.keyPositions.count
        for (offset, position) in compared.enumerated() {
            guard isSame(batch.value(record: record, position: position), base, statement, Int32(first + offset)) else { return false }
        }
        return true
    }

    /// Whether the stored value in `column` provably equals `value` (same storage class and value;
    /// an integer against a REAL column compares as the REAL it was stored as).
    @inline(__always)
    static func isSame(_ value: BatchValue, _ base: UnsafePointer<UInt8>, _ statement: OpaquePointer, _ column: Int32) -> Bool {
        switch (value, sqlite3_column_type(statement, column)) {
        case (.null, SQLITE_NULL): return true
        case (.integer(let v), SQLITE_INTEGER): return sqlite3_column_int64(statement, column) == v
        case (.real(let v), SQLITE_FLOAT): return sqlite3_column_double(statement, column) == v
        case (.integer(let v), SQLITE_FLOAT): return sqlite3_column_double(statement, column) == Double(v)
        case (.text(let start, let count), SQLITE_TEXT):
            guard let text = sqlite3_column_text(statement, column), sqlite3_column_bytes(statement, column) == count else { return false }
            return memcmp(text, base + Int(start), Int(count)) == 0
        default: return false
        }
    }

    /// `value` ordered against the stored value in `column`.
    @inline(__always)
    static func compare(_ value: BatchValue, _ base: UnsafePointer<UInt8>, _ statement: OpaquePointer, _ column: Int32) -> Int {
        let type = sqlite3_column_type(statement, column)
        switch value {
        case .null: return type == SQLITE_NULL ? 0 : -1
        case .text(let start, let count):
            guard type == SQLITE_TEXT || type == SQLITE_BLOB else { return 1 }
            let stored = Int(sqlite3_column_bytes(statement, column))
            let text = UnsafeRawPointer(sqlite3_column_text(statement, column)) ?? UnsafeRawPointer(emptyBytes)
            let order = memcmp(base + Int(start), text, min(Int(count), stored))
            return order != 0 ? Int(order) : Int(count) - stored
        case .integer, .real:
            switch type {
            case SQLITE_NULL: return 1
            case SQLITE_TEXT, SQLITE_BLOB: return -1
            case SQLITE_INTEGER:
                if case .integer(let v) = value {
                    let stored = sqlite3_column_int64(statement, column)
                    return v < stored ? -1 : (v > stored ? 1 : 0)
                }
                fallthrough
            default:
                let stored = sqlite3_column_double(statement, column)
                let number = value.number
                return number < stored ? -1 : (number > stored ? 1 : 0)
            }
        }
    }
}
