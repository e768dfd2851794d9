import ImporterHistory
import ImporterStore

extension ImportSession {
    /// A run stamped with an archived snapshot's time (`--timestamp`) comes after the store's last
    /// transaction, so history stays in time order and `export --as-of` reads each day's state.
    func checkTimestamp(in tx: StoreWriteTransaction) throws {
        guard let given = options.timestamp else { return }
        let head = try tx.snapshot.history.lastTransactionNumber()
        guard head > 0, let last = try tx.snapshot.transactions(after: head - 1, through: head).last, last.timestamp > given else { return }
        throw ImportError.timestampBeforeHistory(given: given, last: last.number, lastTimestamp: last.timestamp)
    }
}
