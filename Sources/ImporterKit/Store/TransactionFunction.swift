import CSQLite

/// The number of the history transaction being written, if any; read by the tracking triggers
/// through the SQL function `importer_transaction()`.
final class TransactionState {
    var number: Int64?
}

/// Registers `importer_transaction()` on `connection`. It returns the open transaction's number and
/// fails when no import is open, so a tracked table cannot change without a history transaction.
func registerTransactionFunction(on connection: Connection, state: TransactionState) throws(SQLiteError) {
    let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
        guard let context, let data = sqlite3_user_data(context) else { return }
        let state = Unmanaged<TransactionState>.fromOpaque(data).takeUnretainedValue()
        if let number = state.number {
            sqlite3_result_int64(context, number)
        } else {
            sqlite3_result_error(context, "importer: tracked tables change only inside an importer transaction", -1)
        }
    }
    let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<TransactionState>.fromOpaque(data).release()
    }
    let data = Unmanaged.passRetained(state).toOpaque()
    let code = sqlite3_create_function_v2(connection.handle, "importer_transaction", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                          data, function, nil, nil, destroy)
    guard code == SQLITE_OK else { throw SQLiteError(connection: connection.handle, code: code) }
}
