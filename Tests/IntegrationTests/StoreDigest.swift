import ImporterTestSupport
import Foundation
import ImporterKit

/// A digest of everything a store holds that two runs of the same operation must agree on: every
/// table's rows, but the columns that record when and where (timestamps, process id, host).
enum StoreDigest {
    static let volatileColumns: Set<String> = ["timestamp", "process_id", "host", "created_at", "last_replay_at", "registered_at"]
    /// Tables a later schema added, left out while empty: a store holding the same data as one of
    /// an older schema digests the same (schema 4 added `importer_source`, for URL feeds).
    static let laterTables: Set<String> = ["importer_source"]
    /// Tables the portable digests leave out: the model versions a store records (issue 45) hold
    /// the model file's text, which the recordings predate.
    static let modelTables: Set<String> = ["importer_model"]

    /// The digest without what differs between two stores holding the same data: tokens and the
    /// store id (both carry the store's random id), and `rekeyed` (schema 2; always 0 without key
    /// drift, absent from stores of schema 1 such as the golden store's recording).
    static func portable(_ path: String) throws -> String {
        try of(path, ignoring: volatileColumns.union(["token", "rekeyed"]), ignoringMetadata: ["store_id"])
    }

    /// The portable digest without record ids (`id`, `importer_record_id`, `record_id` before schema
    /// 3): what importers that assign ids
    /// differently must still agree on.
    static func withoutRecordIDs(_ path: String) throws -> String {
        try of(path, ignoring: volatileColumns.union(["token", "rekeyed", "id", "record_id", "importer_record_id"]), ignoringMetadata: ["store_id"])
    }

    /// `withoutRecordIDs`, without change ids either (`importer_change_id` and each transaction's
    /// range of them): what runs that write the same records in another order must agree on.
    static func withoutIDs(_ path: String) throws -> String {
        try of(path, ignoring: volatileColumns.union(["token", "rekeyed", "id", "record_id", "importer_record_id", "importer_change_id",
                                                      "first_change_id", "last_change_id"]), ignoringMetadata: ["store_id"])
    }

    static func of(_ path: String) throws -> String {
        try of(path, ignoring: volatileColumns, ignoringMetadata: [])
    }

    static func of(_ path: String, ignoring volatileColumns: Set<String>, ignoringMetadata: Set<String>) throws -> String {
        let connection = try SQLiteConnection(path: path, create: false)
        var text = ""
        let tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for case .text(let table)? in tables.map(\.first) where !(ignoringMetadata.contains("store_id") && modelTables.contains(table)) {
            let columns = try connection.rows("SELECT name FROM pragma_table_info(?1)", [.text(table)]).compactMap { row -> String? in
                guard case .text(let name)? = row.first, !volatileColumns.contains(name) else { return nil }
                return name
            }
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            let rows = try connection.rows("SELECT \(list) FROM \"\(table)\" ORDER BY \(list)")
            if rows.isEmpty, laterTables.contains(table) { continue }
            text += "## \(table)\n"
            for row in rows {
                if table == "importer_metadata", case .text(let key)? = row.first, key.hasSuffix("_at") || ignoringMetadata.contains(key) { continue }
                text += row.map { "\($0)" }.joined(separator: "|") + "\n"
            }
        }
        return text
    }
}
