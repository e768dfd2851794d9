import Foundation
import ImporterModel
import ImporterStore

/// Consumers in PostgreSQL (`importer_consumer`): their tokens and filters, stored like SQLite's.
/// Acknowledgements are a compare-and-set on the token (one UPDATE … WHERE token = from), so
/// concurrent readers never lose or double one.
extension PostgresStore {
    private static let consumerColumns = #""name", "kind", "token_number", "entities", "attributes", "exclude_authors", "created_at", "last_replay_at""#

    public func consumers() throws(StoreError) -> [Consumer] {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer ORDER BY \"kind\", \"name\"").compactMap(Self.decodeConsumer) }
    }

    public func consumer(named name: String) throws(StoreError) -> Consumer? {
        try mapErrors { try connection.rows("SELECT \(Self.consumerColumns) FROM importer_consumer WHERE \"name\" = $1", [.text(name)]).first.flatMap(Self.decodeConsumer) }
    }

    private static func decodeConsumer(_ row: [Value]) -> Consumer? {
        func list(_ value: Value) -> [String] {
            (try? JSONDecoder().decode([String].self, from: Data((value.stringValue ?? "[]").utf8))) ?? []
        }
        guard case .integer(let token) = row[2] else { return nil }
        return Consumer(name: row[0].stringValue ?? "", kind: Consumer.Kind(rawValue: row[1].stringValue ?? "") ?? .external,
                        tokenNumber: token, entities: list(row[3]), attributes: list(row[4]), excludedAuthors: list(row[5]),
                        createdAt: row[6].stringValue ?? "", lastReplayAt: row[7].stringValue)
    }

    private static func encode(_ list: [String]) -> Value {
        .text(String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self))
    }

    public func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.affected("""
                INSERT INTO importer_consumer (\(Self.consumerColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT ("name") DO NOTHING
                """, [
                .text(consumer.name), .text(consumer.kind.rawValue), .integer(consumer.tokenNumber), Self.encode(consumer.entities),
                Self.encode(consumer.attributes), Self.encode(consumer.excludedAuthors), .text(consumer.createdAt),
                consumer.lastReplayAt.map(Value.text) ?? .null,
            ]) == 1
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
