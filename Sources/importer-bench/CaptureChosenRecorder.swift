import CSQLite
import Foundation
import ImporterKit

/// The capture variant that reproduces importer's design: guard column, preupdate-hook updates,
/// set-based inserts.
extension CaptureStudy {
    // MARK: - Variant: importer (chosen)

    /// What the guard functions read: the number of the open history transaction (as importer's
    /// `TransactionState`).
    final class GuardState {
        var number: Int64?
        init(number: Int64?) { self.number = number }
    }

    /// Registers `importer_transaction()` (the open transaction's number) and `importer_writer()`
    /// (1, deterministic, as a generated column requires) as importer's `registerTransactionFunction`
    /// does: both read a retained state object through their user data and fail without a number.
    static func registerGuardFunctions(on db: Database, number: Int64) throws {
        let transaction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
            guard let context, let data = sqlite3_user_data(context) else { return }
            if let number = Unmanaged<GuardState>.fromOpaque(data).takeUnretainedValue().number {
                sqlite3_result_int64(context, number)
            } else {
                sqlite3_result_error(context, "importer: tracked tables change only inside an importer transaction", -1)
            }
        }
        let writer: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
            guard let context, let data = sqlite3_user_data(context) else { return }
            if Unmanaged<GuardState>.fromOpaque(data).takeUnretainedValue().number != nil {
                sqlite3_result_int64(context, 1)
            } else {
                sqlite3_result_error(context, "importer: tracked tables change only inside an importer transaction", -1)
            }
        }
        let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
            guard let data else { return }
            Unmanaged<GuardState>.fromOpaque(data).release()
        }
        let state = GuardState(number: number)
        for (name, body, flags) in [("importer_transaction", transaction, SQLITE_UTF8 | SQLITE_INNOCUOUS),
                                    ("importer_writer", writer, SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC)] {
            let data = Unmanaged.passRetained(state).toOpaque()
            let code = sqlite3_create_function_v2(db.handle, name, 0, flags, data, body, nil, nil, destroy)
            guard code == SQLITE_OK else { throw BenchError.failed("\(name)(): \(db.message)") }
        }
    }

    /// The updates the preupdate hook saw since the last flush: rowid, old and new values of each
    /// attribute (as importer's `ChangeCapture`). The hook's context pointer (unretained: its
    /// `ChosenRecorder` owns it and removes the hook first).
    final class UpdateBuffer {
        struct Update {
            var rowid: Int64
            var old: [SQLValue]
            var new: [SQLValue]
        }

        /// The tracked table's name, NUL-terminated for `strcmp` in the hook.
        let table: [CChar]
        /// The table column of each attribute (column 0 is "id"; the guard column comes last).
        let columns: [Int32]
        var pending: [Update] = []
        /// Deletes of tracked rows (none expected: the study never deletes).
        var deletes = 0

        init(table: String, attributeCount: Int) {
            self.table = Array(table.utf8CString)
            columns = (0..<attributeCount).map { Int32($0 + 1) }
        }

        var hasPending: Bool { !pending.isEmpty }
    }

    /// `importer (chosen)`: the guard column and delete guard in the schema; a preupdate hook
    /// buffers updates (inserts are ignored), written after each upsert step that buffered one; at
    /// the end, update rows of records the load inserted are cleared and one `INSERT … SELECT`
    /// records every record above the sequence at the start as an insert, with its final values.
    final class ChosenRecorder {
        let db: Database
        let buffer: UpdateBuffer
        let update: Statement
        let clearInsertedUpdates: Statement
        let recordInserts: Statement
        let lastAssigned: Statement
        let names: [String]
        private(set) var lastIDBefore: Int64 = 0
        private(set) var lastChangeIDBefore: Int64 = 0

        init(db: Database) throws {
            self.db = db
            names = CaptureStudy.entity.attributes.map(\.name)
            buffer = UpdateBuffer(table: CaptureStudy.entity.tableName, attributeCount: names.count)
            let ddl = CaptureDDL(entity: CaptureStudy.entity)
            update = try db.prepare(ChangeSQL(entity: CaptureStudy.entity).update)
            clearInsertedUpdates = try db.prepare(ddl.clearInsertedUpdates)
            recordInserts = try db.prepare(ddl.recordInserts)
            lastAssigned = try db.prepare(CaptureDDL.lastAssignedID)
            let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?,
                                      UnsafePointer<CChar>?, sqlite3_int64, sqlite3_int64) -> Void = { context, db, op, schema, table, oldRowid, _ in
                guard op == SQLITE_UPDATE || op == SQLITE_DELETE, let context, let db, let schema, let table, strcmp(schema, "main") == 0 else { return }
                let buffer = Unmanaged<UpdateBuffer>.fromOpaque(context).takeUnretainedValue()
                // The hook also fires for the change table (the clearing DELETE): skip it.
                guard strcmp(table, buffer.table) == 0 else { return }
                guard op == SQLITE_UPDATE else { buffer.deletes += 1; return }
                var old: [SQLValue] = []
                var new: [SQLValue] = []
                old.reserveCapacity(buffer.columns.count)
                new.reserveCapacity(buffer.columns.count)
                for column in buffer.columns {
                    var value: OpaquePointer?
                    old.append(sqlite3_preupdate_old(db, column, &value) == SQLITE_OK ? SQLValue(value) : .null)
                    new.append(sqlite3_preupdate_new(db, column, &value) == SQLITE_OK ? SQLValue(value) : .null)
                }
                buffer.pending.append(UpdateBuffer.Update(rowid: oldRowid, old: old, new: new))
            }
            sqlite3_preupdate_hook(db.handle, hook, Unmanaged.passUnretained(buffer).toOpaque())
        }

        deinit { sqlite3_preupdate_hook(db.handle, nil, nil) }

        /// In the transaction, before the first upsert: the last record id and change id assigned.
        func begin() throws {
            lastIDBefore = try lastAssigned(CaptureStudy.entity.tableName)
            lastChangeIDBefore = try lastAssigned(CaptureDDL(entity: CaptureStudy.entity).changeTableName)
        }

        private func lastAssigned(_ table: String) throws -> Int64 {
            defer { sqlite3_reset(lastAssigned.handle) }
            SQLValue.text(table).bind(to: lastAssigned.handle, at: 1)
            guard sqlite3_step(lastAssigned.handle) == SQLITE_ROW else { throw BenchError.failed("last assigned id: \(db.message)") }
            return sqlite3_column_int64(lastAssigned.handle, 0)
        }

        /// Writes an update row for each buffered update that changed an attribute.
        @inline(__always)
        func flush(transaction: Int64) throws {
            defer { buffer.pending.removeAll(keepingCapacity: true) }
            let count = Int32(names.count)
            for pending in buffer.pending {
                var changed: [String] = []
                for index in names.indices {
                    let differs = !pending.old[index].isSame(as: pending.new[index])
                    if differs { changed.append(names[index]) }
                    pending.new[index].bind(to: update.handle, at: 4 + Int32(index))
                    (differs ? pending.old[index] : .null).bind(to: update.handle, at: 4 + count + Int32(index))
                }
                guard !changed.isEmpty else { continue }
                sqlite3_bind_int64(update.handle, 1, transaction)
                sqlite3_bind_int64(update.handle, 2, pending.rowid)
                SQLValue.text(changed.joined(separator: ",")).bind(to: update.handle, at: 3)
                try update.run()
            }
        }

        /// The end of the load: no untracked delete; update rows of records this load inserted
        /// dropped (their insert row carries the final values); then the inserts, set-based.
        func finish(transaction: Int64) throws {
            try flush(transaction: transaction)
            guard buffer.deletes == 0 else { throw BenchError.failed("\(buffer.deletes) untracked deletes") }
            sqlite3_bind_int64(clearInsertedUpdates.handle, 1, lastChangeIDBefore)
            sqlite3_bind_int64(clearInsertedUpdates.handle, 2, lastIDBefore)
            try clearInsertedUpdates.run()
            sqlite3_bind_int64(recordInserts.handle, 1, transaction)
            sqlite3_bind_int64(recordInserts.handle, 2, lastIDBefore)
            try recordInserts.run()
        }
    }

    /// The guard of the chosen design, on a connection without importer's functions: inserts,
    /// updates and deletes of the entity table must fail (no such or unknown function). Run in a
    /// transaction that is rolled back, in case one succeeds.
    static func guardCheck(_ path: String) throws -> Check {
        let db = try Database(path: path)
        try db.execute("BEGIN IMMEDIATE")
        defer { try? db.execute("ROLLBACK") }
        var accepted: [String] = []
        for (label, sql) in [("insert", "INSERT INTO fireball (date, energy, impact_energy) VALUES ('1900-01-01 00:00:00', 1, 1)"),
                             ("update", "UPDATE fireball SET energy = energy + 1 WHERE id = 1"),
                             ("delete", "DELETE FROM fireball WHERE id = 1")] {
            do {
                try db.execute(sql)
                accepted.append(label)
            } catch {
                // "no such function: importer_transaction", "unknown function: importer_writer()".
                let message = "\(error)"
                if !message.contains("no such function") && !message.contains("unknown function") { accepted.append("\(label) (\(error))") }
            }
        }
        return accepted.isEmpty
            ? Check(text: "guard refuses untracked writes", passed: true)
            : Check(text: "FAIL: guard let through \(accepted.joined(separator: ", "))", passed: false)
    }

    /// The change-row INSERTs the app-side, session and chosen variants prepare (same columns as the triggers').
    struct ChangeSQL {
        /// ?1 transaction, ?2 record id, ?3… the attribute values.
        let insert: String
        /// ?1 transaction, ?2 record id, ?3 changed, ?4… the new values, then the old values.
        let update: String
        /// ?1 transaction, ?2 record id, ?3 changed, ?4… the old values; new values read from the entity row.
        let updateFromTable: String

        init(entity: EntityDescription) {
            let ddl = CaptureDDL(entity: entity)
            let n = entity.attributes.count
            let columns = entity.attributes.map { SQLIdentifier.quoted($0.name) }
            let olds = entity.attributes.map { SQLIdentifier.quoted("old." + $0.name) }
            func parameters(from first: Int) -> [String] { (0..<n).map { "?\(first + $0)" } }
            let head = #"INSERT INTO \#(ddl.changeTable) ("transaction_number", "record_id", "type""#
            insert = "\(head), \(columns.joined(separator: ", "))) VALUES (?1, ?2, 'insert', \(parameters(from: 3).joined(separator: ", ")))"
            let updateColumns = "\(head), \"changed\", \((columns + olds).joined(separator: ", ")))"
            update = "\(updateColumns) VALUES (?1, ?2, 'update', ?3, \((parameters(from: 4) + parameters(from: 4 + n)).joined(separator: ", ")))"
            updateFromTable = "\(updateColumns) SELECT ?1, \"id\", 'update', ?3, \((columns + parameters(from: 4)).joined(separator: ", ")) "
                + "FROM \(ddl.table) WHERE \"id\" = ?2"
        }
    }

}
