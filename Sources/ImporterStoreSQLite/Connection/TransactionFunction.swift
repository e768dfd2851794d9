import CSQLite
import Foundation

/// The number of the history transaction being written, if any; read by the store's guards through
/// the SQL functions `importer_transaction()` and `importer_writer()`.
final class TransactionState {
    var number: Int64?
}

/// Registers the guard functions on `connection`:
/// - `importer_transaction()` returns the open history transaction's number;
/// - `importer_writer()` returns 1 (deterministic, as a generated column requires).
/// Both fail when no import is open, so a tracked table cannot change without a history
/// transaction; other programs do not define them at all.
func registerTransactionFunction(on connection: SQLiteConnection, state: TransactionState) throws(SQLiteError) {
    let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
        if let (context, number) = openTransaction(context) { sqlite3_result_int64(context, number) }
    }
    let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        guard let data else { return }
        Unmanaged<TransactionState>.fromOpaque(data).release()
    }
    let writer: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
        if let (context, _) = openTransaction(context) { sqlite3_result_int64(context, 1) }
    }
    for (name, body, flags) in [("importer_transaction", function, SQLITE_UTF8 | SQLITE_INNOCUOUS),
                                ("importer_writer", writer, SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC)] {
        let data = Unmanaged.passRetained(state).toOpaque()
        let code = sqlite3_create_function_v2(connection.handle, name, 0, flags, data, body, nil, nil, destroy)
        guard code == SQLITE_OK else { throw SQLiteError(connection: connection.handle, code: code) }
    }
}

/// The number of the transaction open on the function's connection; nil, with the function's
/// error set, when no import is open.
private func openTransaction(_ context: OpaquePointer?) -> (OpaquePointer, Int64)? {
    guard let context, let data = sqlite3_user_data(context) else { return nil }
    guard let number = Unmanaged<TransactionState>.fromOpaque(data).takeUnretainedValue().number else {
        sqlite3_result_error(context, "importer: tracked tables change only inside an importer transaction", -1)
        return nil
    }
    return (context, number)
}
