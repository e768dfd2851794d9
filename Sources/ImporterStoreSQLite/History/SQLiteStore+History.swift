import CSQLite
import Foundation
import ImporterModel
import ImporterStore
import ImporterStoreSQL

/// Reading history in SQLite: the per-entity change streams merged in history order (listing,
/// purging, the transactions that touched records and consumers are `SQLBackend`'s).
extension SQLiteStore {
    package func commitMarker() throws(StoreError) -> Int64 {
        try mapErrors { try connection.dataVersion() }
    }

    /// Merges the per-entity change streams by transaction number (entity order breaks ties).
    package func forEachChange(after: Int64, through: Int64, filter: ChangeFilter, limit: Int?, _ body: (Change) throws -> Void) throws {
        var remaining = limit ?? .max
        guard remaining > 0 else { return }
        var skipped = Set<Int64>()
        if !filter.excludedAuthors.isEmpty {
            let statement = try connection.prepare("SELECT number, author FROM importer_transaction WHERE number > ?1 AND number <= ?2")
            try statement.forEachRow([.integer(after), .integer(through)]) { row in
                if !filter.includes(author: row.string(at: 1) ?? "") { skipped.insert(row.int64(at: 0)) }
            }
        }
        // A removed entity's past changes are history too.
        var cursors = try (entities + retiredEntities()).filter { filter.includes(entity: $0.name) }.map {
            try ChangeCursor(connection: connection, entity: try historyEntity($0), columns: changeColumns, changeIDs: try changeRange(of: $0.name, after: after, through: through))
        }
        while true {
            var best: Int?
            for index in cursors.indices {
                guard let number = cursors[index].currentTransaction else { continue }
                if let current = best, let bestNumber = cursors[current].currentTransaction, bestNumber <= number { continue }
                best = index
            }
            guard let index = best, let number = cursors[index].currentTransaction else { return }
            while cursors[index].currentTransaction == number {
                if !skipped.contains(number) {
                    let change = cursors[index].change()
                    if filter.includes(change) {
                        try body(change)
                        remaining -= 1
                        if remaining == 0 { return }
                    }
                }
                try cursors[index].advance()
            }
        }
    }
}
