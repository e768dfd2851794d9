import ImporterModel
import ImporterStore

/// A consumer's delivery lock on a PostgreSQL store: a session-level advisory lock keyed by the
/// store's schema and the consumer (the two-key form, a key space apart from the writer lock's
/// one-key locks), so that it holds across the transactions of the delivery and the server
/// releases it when the session ends, however the process ended.
extension PostgresStore: ConsumerLocking {
    private var consumerLockKeys: [Value] { [.text("importer-deliver:" + location.schema)] }

    package func tryLockConsumer(_ name: String) throws(StoreError) -> Bool {
        try mapErrors {
            try connection.integer("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))::int", consumerLockKeys + [.text(name)]) == 1
        }
    }

    package func unlockConsumer(_ name: String) {
        _ = try? connection.rows("SELECT pg_advisory_unlock(hashtext($1), hashtext($2))", consumerLockKeys + [.text(name)])
    }
}
