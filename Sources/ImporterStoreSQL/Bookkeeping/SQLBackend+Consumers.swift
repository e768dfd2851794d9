import ImporterModel
import ImporterStore

/// The named consumers of history (`importer_consumer`): their tokens and filters. Acknowledging
/// is a compare-and-set on the token (one UPDATE … WHERE token = from), so concurrent readers never
/// lose or double one.
extension SQLBackend {
    private var consumerColumns: String { Consumer.storedColumnNames.map(dialect.quoted).joined(separator: ", ") }

    package func consumers() throws(StoreError) -> [Consumer] {
        try mapErrors {
            try executor.rows(#"SELECT \#(consumerColumns) FROM importer_consumer ORDER BY "kind", \#(dialect.bytewise(#""name""#))"#, [])
                .compactMap(Consumer.init(storedRow:))
        }
    }

    package func consumer(named name: String) throws(StoreError) -> Consumer? {
        try mapErrors {
            try executor.rows(#"SELECT \#(consumerColumns) FROM importer_consumer WHERE "name" = \#(p(1))"#, [.text(name)]).first.flatMap(Consumer.init(storedRow:))
        }
    }

    package func insertConsumer(_ consumer: Consumer) throws(StoreError) -> Bool {
        let values = consumer.storedRow.indices.map { p($0 + 1) }.joined(separator: ", ")
        return try mapErrors {
            try executor.affected(#"INSERT INTO importer_consumer (\#(consumerColumns)) VALUES (\#(values)) ON CONFLICT ("name") DO NOTHING"#,
                                  consumer.storedRow) == 1
        }
    }

    package func deleteConsumer(named name: String) throws(StoreError) -> Bool {
        try mapErrors { try executor.affected(#"DELETE FROM importer_consumer WHERE "name" = \#(p(1))"#, [.text(name)]) == 1 }
    }

    package func setConsumerToken(_ name: String, to number: Int64, replayedAt: String?) throws(StoreError) -> Bool {
        try mapErrors {
            try executor.affected(#"""
                UPDATE importer_consumer SET "token_number" = \#(p(2)), "last_replay_at" = coalesce(\#(p(3)), "last_replay_at") WHERE "name" = \#(p(1))
                """#, [.text(name), .integer(number), replayedAt.map(Value.text) ?? .null]) == 1
        }
    }

    package func advanceConsumerToken(_ name: String, from: Int64, to: Int64, at timestamp: String) throws(StoreError) -> Bool {
        try mapErrors {
            try executor.affected(#"""
                UPDATE importer_consumer SET "token_number" = \#(p(3)), "last_replay_at" = \#(p(4)) WHERE "name" = \#(p(1)) AND "token_number" = \#(p(2))
                """#, [.text(name), .integer(from), .integer(to), .text(timestamp)]) == 1
        }
    }
}
