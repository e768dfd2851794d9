import CSQLite
import Foundation
import ImporterModel
import ImporterStore

/// Turns updates of entity tables on importer's connection into update change rows, through
/// SQLite's preupdate hook (which sees each row's old and new values without the statement
/// journal that per-row triggers force on every upsert).
///
/// The hook only records; it may not run SQL. `flush()` writes the recorded changes and must be
/// called after each statement that can update entity rows, inside the open history transaction.
/// Deletes are recorded set-based before they happen (`HistoryWriter`); a delete the capture was
/// not told to expect is counted as untracked and fails the import.
final class ChangeCapture {
    private struct Tracked {
        var name: [CChar]
        var schema: SQLiteEntitySchema
        /// The table column of each attribute, in entity order.
        var columns: [Int32]
        var insertUpdate: SQLiteStatement
    }

    private struct PendingUpdate {
        var table: Int
        var recordID: Int64
        var old: [Value]
        var new: [Value]
    }

    private let connection: SQLiteConnection
    private let transactionState: TransactionState
    private var tracked: [Tracked] = []
    private var pending: [PendingUpdate] = []
    /// Deletes are expected only while a recorded delete runs.
    var expectingDeletes = false
    private(set) var untrackedDeletes = 0

    init(connection: SQLiteConnection, transactionState: TransactionState) {
        self.connection = connection
        self.transactionState = transactionState
    }

    /// Starts receiving the connection's preupdate callbacks. The capture must outlive the hook:
    /// `uninstall()` before releasing it.
    func install() {
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, sqlite3_int64, sqlite3_int64) -> Void = {
            context, database, operation, schema, table, oldKey, _ in
            guard operation == SQLITE_UPDATE || operation == SQLITE_DELETE, let context, let database, let schema, let table,
                  strcmp(schema, "main") == 0 else { return }
            Unmanaged<ChangeCapture>.fromOpaque(context).takeUnretainedValue()
                .receive(database, operation, table, oldKey)
        }
        _ = sqlite3_preupdate_hook(connection.handle, hook, Unmanaged.passUnretained(self).toOpaque())
    }

    func uninstall() {
        _ = sqlite3_preupdate_hook(connection.handle, nil, nil)
    }

    /// Tracks `entity`'s table for the coming writes (its columns are looked up by name, so tables
    /// that gained columns later are read correctly).
    func track(_ entity: EntityDescription) throws {
        tracked.removeAll { $0.schema.entity.name == entity.name }
        var columnIndex: [String: Int32] = [:]
        try connection.prepare("SELECT name FROM pragma_table_xinfo(?1)").forEachRow([.text(entity.tableName)]) { row in
            columnIndex[row.string(at: 0) ?? ""] = Int32(columnIndex.count)
        }
        let columns = try entity.attributes.map { attribute in
            guard let index = columnIndex[attribute.name] else {
                throw StoreError.incompatibleModel(entity: entity.name, reason: "table \(entity.tableName) has no column \(attribute.name)")
            }
            return index
        }
        let schema = SQLiteEntitySchema(entity: entity)
        tracked.append(Tracked(name: Array(entity.tableName.utf8CString), schema: schema, columns: columns,
                               insertUpdate: try connection.prepare(schema.insertUpdate)))
    }

    private func receive(_ database: OpaquePointer, _ operation: Int32, _ table: UnsafePointer<CChar>, _ recordID: Int64) {
        guard let index = tracked.firstIndex(where: { strcmp($0.name, table) == 0 }) else { return }
        if operation == SQLITE_DELETE {
            if !expectingDeletes { untrackedDeletes += 1 }
            return
        }
        let columns = tracked[index].columns
        var old: [Value] = []
        var new: [Value] = []
        old.reserveCapacity(columns.count)
        new.reserveCapacity(columns.count)
        for column in columns {
            var value: OpaquePointer?
            sqlite3_preupdate_old(database, column, &value)
            old.append(Self.value(value))
            sqlite3_preupdate_new(database, column, &value)
            new.append(Self.value(value))
        }
        pending.append(PendingUpdate(table: index, recordID: recordID, old: old, new: new))
    }

    private static func value(_ value: OpaquePointer?) -> Value {
        guard let value else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return .null }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
        default: return .null
        }
    }

    var hasPending: Bool { !pending.isEmpty }

    /// Forgets recorded updates and counts (after a rolled-back import).
    func reset() {
        pending.removeAll()
        untrackedDeletes = 0
        expectingDeletes = false
    }

    /// Writes an update row for each recorded update that changed an attribute.
    func flush() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        guard let transaction = transactionState.number else {
            throw StoreError.invariant("an update happened outside a history transaction")
        }
        for update in pending {
            let table = tracked[update.table]
            guard let arguments = table.schema.updateArguments(transaction: transaction, recordID: update.recordID, old: update.old, new: update.new) else { continue }
            try table.insertUpdate.execute(arguments)
        }
    }
}
