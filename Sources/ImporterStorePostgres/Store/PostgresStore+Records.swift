import Foundation
import ImporterModel
import ImporterStore

/// Imports and the records of an entity.
extension PostgresStore {
    package func beginImport(_ entities: [EntityDescription]) throws -> any ImportTransaction {
        try PostgresImportTransaction(store: self, entities: entities)
    }
}

extension PostgresStore {
    /// Streams the records through a server-side cursor (inside the caller's transaction), a page
    /// at a time.
    package func forEachRecord(of entity: EntityDescription, _ body: (Int64, [Value]) throws -> Void) throws {
        let schema = PostgresEntitySchema(entity: entity)
        try connection.execute("DECLARE importer_records NO SCROLL CURSOR FOR SELECT \"id\", \(schema.names.joined(separator: ", ")) FROM \(schema.table) ORDER BY \(schema.keyColumns.joined(separator: ", "))")
        defer { try? connection.execute("CLOSE importer_records") }
        while true {
            let rows = try connection.rows("FETCH 2000 FROM importer_records")
            guard !rows.isEmpty else { return }
            for row in rows { try body(Self.int(row[0]), Array(row.dropFirst())) }
        }
    }
}
