import Foundation

/// Who wrote a history transaction and from where (Core Data's author and context name).
public struct TransactionMetadata: Sendable, Equatable {
    public var author: String
    public var context: String
    public var processID: Int
    public var host: String
    public var sources: [String]

    public init(author: String, context: String, processID: Int = Int(ProcessInfo.processInfo.processIdentifier),
                host: String = ProcessInfo.processInfo.hostName, sources: [String]) {
        self.author = author
        self.context = context
        self.processID = processID
        self.host = host
        self.sources = sources
    }
}

/// Opens and closes history transactions around writes to entity tables.
///
/// The change rows themselves are written by the tracking triggers (see `EntitySchema`); this type
/// allocates the transaction number the triggers stamp on them and, at the end, writes the
/// transaction row with its counts, or nothing when no record changed.
struct HistoryWriter {
    let store: Store

    /// Allocates the next transaction number and makes the triggers use it. Call inside the write
    /// transaction, after taking the write lock.
    func begin() throws -> Int64 {
        let number = try store.lastTransactionNumber() + 1
        store.transactionState.number = number
        return number
    }

    /// Inserted, updated and deleted counts of `entity` in transaction `number`, from its change rows.
    func changeCounts(_ entity: EntityDescription, in number: Int64) throws -> ChangeCounts {
        var counts = ChangeCounts()
        let schema = EntitySchema(entity: entity)
        try store.connection.prepare("SELECT \"type\", count(*) FROM \(schema.changeTable) WHERE \"transaction_number\" = ?1 GROUP BY \"type\"")
            .forEachRow([.integer(number)]) { row in
                let n = Int(row.int64(at: 1))
                switch row.string(at: 0) {
                case "insert": counts.inserted = n
                case "update": counts.updated = n
                case "delete": counts.deleted = n
                default: break
                }
            }
        return counts
    }

    /// Writes the transaction row when something changed; returns whether it did. Always stops the
    /// triggers from using the number.
    func finish(_ number: Int64, metadata: TransactionMetadata, entities: [(String, ChangeCounts)]) throws -> Bool {
        defer { store.transactionState.number = nil }
        let totals = entities.reduce(ChangeCounts()) { $0 + $1.1 }
        guard totals.changes > 0 else { return false }
        let sources = String(decoding: try JSONEncoder().encode(metadata.sources), as: UTF8.self)
        func counts(_ c: ChangeCounts) -> [Value] {
            [c.inserted, c.updated, c.deleted, c.unchanged, c.rejected, c.duplicates].map { .integer(Int64($0)) }
        }
        try store.connection.execute("""
            INSERT INTO importer_transaction (number, token, timestamp, author, context, process_id, host, source,
              inserted, updated, deleted, unchanged, rejected, duplicates)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(number), .text(store.token(number).description), .text(Timestamp.now()), .text(metadata.author),
                  .text(metadata.context), .integer(Int64(metadata.processID)), .text(metadata.host), .text(sources)] + counts(totals))
        let insertEntity = try store.connection.prepare("""
            INSERT INTO importer_transaction_entity (transaction_number, entity, inserted, updated, deleted, unchanged, rejected, duplicates)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (name, entityCounts) in entities {
            try insertEntity.execute([.integer(number), .text(name)] + counts(entityCounts))
        }
        try store.connection.execute("UPDATE importer_metadata SET value = ? WHERE key = 'last_transaction_number'", [.integer(number)])
        return true
    }
}
