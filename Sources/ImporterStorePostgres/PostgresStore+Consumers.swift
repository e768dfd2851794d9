import Foundation
import ImporterModel
import ImporterStore

/// Consumers in PostgreSQL (`importer_consumer`): their tokens and filters, stored like SQLite's.
/// Acknowledgements are a compare-and-set on the token (one UPDATE … WHERE token = from), so
/// concurrent readers never lose or double one.
extension PostgresStore {
    private static let consumerColumns = Consumer.storedColumnNames.map { "\"\($0)\"" }.joined(separator: ", ")

    public func consumers() throws(StoreError) -> [Consumer] {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer ORDER BY \"kind\", \"name\"").compactMap(Consumer.init(storedRow:)) }
    }

    public func consumer(named name: String) throws(StoreError) -> Consumer? {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer WHERE \"name\" = $1", [.text(name)]).first.flatMap(Consumer.init(storedRow:)) }
    }

    public func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.affected("""
                INSERT INTO importer_consumer (\(Self.consumerColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT ("name") DO NOTHING
                """, consumer.storedRow) == 1
        }
    }

    public func deleteConsumer(named name: String) throws(StoreError) -> Bool {
        try mapErrors { try connection.affected(#"DELETE FROM importer_consumer WHERE "name" = $1"#, [.text(name)]) == 1 }
    }

    public func setConsumerToken(_ name: String, to number: Int64, replayedAt: String?) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.affected(#"UPDATE importer_consumer SET "token_number" = $2, "last_replay_at" = coalesce($3, "last_replay_at") WHERE "name" = $1"#,
                                    [.text(name), .integer(number), replayedAt.map(Value.text) ?? .null]) == 1
        }
    }

    public func advanceConsumerToken(_ name: String, from: Int64, to: Int64, at timestamp: String) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.affected(#"UPDATE importer_consumer SET "token_number" = $3, "last_replay_at" = $4 WHERE "name" = $1 AND "token_number" = $2"#,
                                    [.text(name), .integer(from), .integer(to), .text(timestamp)]) == 1
        }
    }
}
