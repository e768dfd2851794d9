import Foundation
import ImporterModel
import ImporterStore

/// History in PostgreSQL: `importer_transaction`, `importer_transaction_entity` and the change
/// tables, read in history order (transaction number, then the store's entity order), change rows
/// fetched in keyset pages so memory stays bounded.
extension PostgresStore {
    static let changePage = 2000

    public func transactions(after: Int64, through: Int64, limit: Int?) throws(StoreError) -> [HistoryTransaction] {
        try mapErrors {
            let columns = #""number", "token", "timestamp", "author", "context", "process_id", "host", "source", "inserted", "updated", "deleted", "unchanged", "rejected", "duplicates", "rekeyed""#
            var sql = "SELECT \(columns) FROM importer_transaction WHERE \"number\" > $1 AND \"number\" <= $2 ORDER BY \"number\""
            if let limit { sql += " LIMIT \(limit)" }
            var result = try connection.rows(sql, [.integer(after), .integer(through)]).map { row in
                HistoryTransaction(
                    number: Self.int(row[0]), token: row[1].stringValue ?? "", timestamp: row[2].stringValue ?? "",
                    author: row[3].stringValue ?? "", context: row[4].stringValue ?? "", processID: Int(Self.int(row[5])),
                    host: row[6].stringValue ?? "", sources: (try? JSONDecoder().decode([String].self, from: Data((row[7].stringValue ?? "[]").utf8))) ?? [],
                    totals: Self.counts(row, from: 8), entities: [])
            }
            guard let first = result.first, let last = result.last else { return result }
            let byNumber = Dictionary(uniqueKeysWithValues: result.indices.map { (result[$0].number, $0) })
            for row in try connection.rows("""
                SELECT "transaction_number", "entity", "inserted", "updated", "deleted", "unchanged", "rejected", "duplicates", "rekeyed"
                FROM importer_transaction_entity WHERE "transaction_number" BETWEEN $1 AND $2 ORDER BY "transaction_number", "entity"
                """, [.integer(first.number), .integer(last.number)]) {
                if let index = byNumber[Self.int(row[0])] { result[index].entities.append((row[1].stringValue ?? "", Self.counts(row, from: 2))) }
            }
            return result
        }
    }

    static func int(_ value: Value) -> Int64 {
        if case .integer(let n) = value { return n }
        return 0
    }

    private static func counts(_ row: [Value], from first: Int) -> ChangeCounts {
        func count(_ offset: Int) -> Int { Int(int(row[first + offset])) }
        return ChangeCounts(inserted: count(0), updated: count(1), deleted: count(2), unchanged: count(3), rejected: count(4),
                            duplicates: count(5), rekeyed: count(6))
    }

    public func lastTransaction(before timestamp: String) throws(StoreError) -> Int64? {
        try mapErrors {
            guard case .integer(let n)? = try connection.scalar(#"SELECT max("number") FROM importer_transaction WHERE "timestamp" < $1"#, [.text(timestamp)]) else { return nil }
            return n
        }
    }

    public func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws {
        var remaining = limit ?? .max
        guard remaining > 0 else { return }
        let ranges = try connection.rows("""
            SELECT t."number", t."author", e."entity", e."first_change_id", e."last_change_id" FROM importer_transaction t
            JOIN importer_transaction_entity e ON e."transaction_number" = t."number"
            WHERE t."number" > $1 AND t."number" <= $2 AND e."first_change_id" IS NOT NULL ORDER BY t."number"
            """, [.integer(after), .integer(through)])
        let order = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($0.element.name, $0.offset) })
        let sorted = ranges.sorted { (Self.int($0[0]), order[$0[2].stringValue ?? ""] ?? 0) < (Self.int($1[0]), order[$1[2].stringValue ?? ""] ?? 0) }
        for row in sorted {
            guard filter.includes(author: row[1].stringValue ?? ""), let entity = entity(named: row[2].stringValue ?? ""),
                  filter.includes(entity: entity.name) else { continue }
            var next = Self.int(row[3])
            let last = Self.int(row[4])
            while next <= last {
                let changes = try changePage(entity, from: next, through: last)
                guard let final = changes.last else { break }
                for (_, change) in changes where filter.includes(change) {
                    try body(change)
                    remaining -= 1
                    if remaining == 0 { return }
                }
                next = final.0 + 1
            }
        }
    }

    /// Up to `changePage` change rows of `entity` with ids in `from...through`, decoded.
    private func changePage(_ entity: EntityDescription, from: Int64, through: Int64) throws -> [(Int64, Change)] {
        let schema = PostgresEntitySchema(entity: entity, columns: changeColumns)
        let olds = entity.attributes.map { schema.old($0.name) }
        let rows = try connection.rows("""
            SELECT \(schema.changeID), \(schema.changeHead), \(schema.changed), \((schema.names + olds).joined(separator: ", "))
            FROM \(schema.changeTable) WHERE \(schema.changeID) BETWEEN $1 AND $2 ORDER BY \(schema.changeID) LIMIT \(Self.changePage)
            """, [.integer(from), .integer(through)])
        return rows.map { (Self.int($0[0]), Self.change($0, of: entity)) }
    }

    /// A change row (change id, transaction number, record id, type, changed, values…, olds…).
    static func change(_ row: [Value], of entity: EntityDescription) -> Change {
        let attributes = entity.attributes
        let values = attributes.indices.map { (attributes[$0].name, row[5 + $0]) }
        let type = ChangeType(rawValue: row[3].stringValue ?? "") ?? .update
        var changed: [AttributeChange] = []
        if type == .update {
            let names = Set((row[4].stringValue ?? "").split(separator: ",").map(String.init))
            for (index, attribute) in attributes.enumerated() where names.contains(attribute.name) {
                changed.append(AttributeChange(attribute: attribute.name, old: row[5 + attributes.count + index], new: values[index].1))
            }
        }
        return Change(transactionNumber: int(row[1]), entity: entity.name, recordID: int(row[2]), type: type,
                      key: entity.keyIndices.map { values[$0] }, changed: changed, values: values,
                      tombstone: type == .delete ? entity.tombstoneIndices.map { values[$0] } : [])
    }
}

extension PostgresStore {
    /// Deletes the history of the transactions up to `through` (their change rows by id range) and
    /// records the purged boundary.
    public func purgeHistory(through: Int64) throws(StoreError) -> (transactions: Int, changes: Int) {
        try mapErrors {
            var changes = 0
            for entity in entities {
                guard case .integer(let last)? = try connection.scalar(
                    #"SELECT max("last_change_id") FROM importer_transaction_entity WHERE "entity" = $1 AND "transaction_number" <= $2"#,
                    [.text(entity.name), .integer(through)]) else { continue }
                let schema = PostgresEntitySchema(entity: entity, columns: changeColumns)
                changes += try connection.affected("DELETE FROM \(schema.changeTable) WHERE \(schema.changeID) <= $1", [.integer(last)])
            }
            try connection.affected(#"DELETE FROM importer_transaction_entity WHERE "transaction_number" <= $1"#, [.integer(through)])
            let transactions = try connection.affected(#"DELETE FROM importer_transaction WHERE "number" <= $1"#, [.integer(through)])
            try connection.affected("""
                INSERT INTO importer_metadata ("key", "value") VALUES ('purged_through', $1), ('purged_at', $2)
                ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"
                """, [.text(String(through)), .text(Timestamp.now())])
            return (transactions, changes)
        }
    }
}

extension PostgresStore {
    public func changeRange(of entity: String, after: Int64, through: Int64) throws -> ClosedRange<Int64>? {
        guard let row = try connection.rows("""
            SELECT min("first_change_id"), max("last_change_id") FROM importer_transaction_entity
            WHERE "entity" = $1 AND "transaction_number" > $2 AND "transaction_number" <= $3
            """, [.text(entity), .integer(after), .integer(through)]).first,
            case .integer(let low) = row[0], case .integer(let high) = row[1], low <= high else { return nil }
        return low...high
    }

    /// The largest id assigned (ids only grow), an upper bound of the record count.
    public func recordCountUpperBound(of entity: EntityDescription) throws -> Int64 {
        try connection.integer("SELECT coalesce(max(\"id\"), 0) FROM \(PostgresEntitySchema(entity: entity).table)")
    }
}
