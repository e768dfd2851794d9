import ImporterTestSupport
import Foundation
import PostgresTestSupport

/// `StoreDigest` for a PostgreSQL store: every table of its schema, rows sorted, without the
/// columns that record when and where (`StoreDigest.volatileColumns`) nor the metadata's `…_at`
/// keys, read in one snapshot with psql.
enum PostgresStoreDigest {
    /// Columns whose values come from identity sequences, which a rolled-back transaction does not
    /// give back: a rerun after a kill numbers its new rows after the numbers the killed run took.
    static let sequenceColumns: Set<String> = ["id", "importer_record_id", "importer_change_id", "first_change_id", "last_change_id"]

    /// The digest; a `renumbered` column shows each value's rank among the table's values of that
    /// column (`dense_rank`), which keeps its order and which rows share it, not the number.
    static func of(_ url: String, in cluster: PostgresTestCluster, schema: String = "public",
                   ignoring ignored: Set<String> = StoreDigest.volatileColumns, renumbering renumbered: Set<String> = []) throws -> String {
        let database = PostgresTestCluster.database(of: url)
        let listing = try cluster.psql("""
            SELECT table_name || ':' || string_agg(column_name, ',' ORDER BY ordinal_position)
            FROM information_schema.columns WHERE table_schema = '\(schema)' GROUP BY table_name ORDER BY table_name
            """, database: database)
        var commands = ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
        for line in listing.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let columns = parts[1].split(separator: ",").map(String.init).filter { !ignored.contains($0) }
            let list = columns.map { renumbered.contains($0) ? "dense_rank() OVER (ORDER BY \"\($0)\")" : "\"\($0)\"" }.joined(separator: ", ")
            let order = columns.indices.map { String($0 + 1) }.joined(separator: ", ")
            let table = "\"\(schema)\".\"\(parts[0])\""
            let filter = parts[0] == "importer_metadata" ? #" WHERE "key" NOT LIKE '%\_at'"# : ""
            commands.append("SELECT '## \(parts[0])'")
            if !columns.isEmpty { commands.append("SELECT \(list) FROM \(table)\(filter) ORDER BY \(order)") }
        }
        return try cluster.psql(commands + ["COMMIT"], database: database)
    }
}
