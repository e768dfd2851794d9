import CSQLite
import Foundation
import ImporterKit

/// The capture variants that write change rows from Swift: application-side rows (preupdate hook),
/// the session extension, and importer's own design.
extension CaptureStudy {
    // MARK: - Variant: app-side rows

    /// What the preupdate hook saw during the last upsert step; the hook's context pointer
    /// (unretained: its `AppSideRecorder` owns it and removes the hook first).
    final class PreupdateCapture {
        /// The tracked table's name, NUL-terminated for `strcmp` in the hook.
        let table: [CChar]
        var op: Int32 = 0
        var rowid: Int64 = 0
        /// For updates, each attribute's value before the update (column `index + 1`; column 0 is "id").
        var old: [SQLValue]

        init(table: String, attributeCount: Int) {
            self.table = Array(table.utf8CString)
            old = Array(repeating: .null, count: attributeCount)
        }
    }

    /// `app-side rows`: a preupdate hook notes each write to the entity table; after each upsert
    /// that changed a row, Swift writes the change row with prepared INSERTs.
    final class AppSideRecorder {
        let db: Database
        let capture: PreupdateCapture
        let insert: Statement
        let update: Statement
        let names: [String]

        init(db: Database) throws {
            self.db = db
            names = CaptureStudy.entity.attributes.map(\.name)
            capture = PreupdateCapture(table: CaptureStudy.entity.tableName, attributeCount: names.count)
            let sql = ChangeSQL(entity: CaptureStudy.entity)
            insert = try db.prepare(sql.insert)
            update = try db.prepare(sql.update)
            let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?,
                                      UnsafePointer<CChar>?, sqlite3_int64, sqlite3_int64) -> Void = { context, db, op, _, table, _, newRowid in
                guard let context, let table else { return }
                let capture = Unmanaged<PreupdateCapture>.fromOpaque(context).takeUnretainedValue()
                // The hook also fires for the change rows (WITHOUT ROWID tables included): skip them.
                guard strcmp(table, capture.table) == 0 else { return }
                capture.op = op
                capture.rowid = newRowid
                guard op == SQLITE_UPDATE else { return }
                for index in capture.old.indices {
                    var value: OpaquePointer?
                    let code = sqlite3_preupdate_old(db, Int32(index + 1), &value)
                    capture.old[index] = code == SQLITE_OK ? SQLValue(value) : .null
                }
            }
            sqlite3_preupdate_hook(db.handle, hook, Unmanaged.passUnretained(capture).toOpaque())
        }

        deinit { sqlite3_preupdate_hook(db.handle, nil, nil) }

        /// After an upsert step: if it changed a row, writes that row's change row.
        @inline(__always)
        func afterUpsert(_ row: Generator.Row, key: UnsafePointer<CChar>, keyLength: Int32, transaction: Int64) throws {
            defer { capture.op = 0 }
            guard sqlite3_changes(db.handle) == 1 else { return }
            switch capture.op {
            case SQLITE_INSERT:
                sqlite3_bind_int64(insert.handle, 1, transaction)
                sqlite3_bind_int64(insert.handle, 2, capture.rowid)
                // Parameters of attributes a generated row lacks are never bound: they stay NULL.
                CaptureStudy.bind(row, key: key, keyLength: keyLength, to: insert.handle, from: 3)
                try insert.run()
            case SQLITE_UPDATE:
                let new = CaptureStudy.attributeValues(of: row)
                let count = Int32(names.count)
                var changed: [String] = []
                for index in names.indices {
                    let differs = !capture.old[index].isSame(as: new[index])
                    if differs { changed.append(names[index]) }
                    new[index].bind(to: update.handle, at: 4 + Int32(index))
                    (differs ? capture.old[index] : .null).bind(to: update.handle, at: 4 + count + Int32(index))
                }
                guard !changed.isEmpty else { return } // as the trigger's WHEN: no change row for an identical row
                sqlite3_bind_int64(update.handle, 1, transaction)
                sqlite3_bind_int64(update.handle, 2, capture.rowid)
                SQLValue.text(changed.joined(separator: ",")).bind(to: update.handle, at: 3)
                try update.run()
            default:
                throw BenchError.failed("a row changed but the preupdate hook saw no insert or update (op \(capture.op))")
            }
        }
    }

    // MARK: - Variant: session

    /// `session`: an `sqlite3session` records the entity table's changes; before COMMIT its
    /// changeset becomes change rows. An update's changeset entry holds only the changed columns, so
    /// its change row reads the values after the update back from the entity row.
    final class SessionRecorder {
        let db: Database
        let insert: Statement
        let update: Statement
        let names: [String]
        private var session: OpaquePointer?

        init(db: Database) throws {
            self.db = db
            names = CaptureStudy.entity.attributes.map(\.name)
            let sql = ChangeSQL(entity: CaptureStudy.entity)
            insert = try db.prepare(sql.insert)
            update = try db.prepare(sql.updateFromTable)
        }

        deinit { if let session { sqlite3session_delete(session) } }

        /// Creates the session and attaches it to the entity table.
        func start() throws {
            var created: OpaquePointer?
            guard sqlite3session_create(db.handle, "main", &created) == SQLITE_OK, let created else {
                throw BenchError.failed("sqlite3session_create: \(db.message)")
            }
            session = created
            let code = sqlite3session_attach(created, CaptureStudy.entity.tableName)
            guard code == SQLITE_OK else { throw BenchError.failed("sqlite3session_attach: \(String(cString: sqlite3_errstr(code)))") }
        }

        /// Takes the changeset, deletes the session (so it does not watch the change-row inserts),
        /// and writes one change row per change.
        func writeChangeRows(transaction: Int64) throws -> SessionStats {
            guard let session else { throw BenchError.failed("no session started") }
            let sessionBytes = sqlite3session_memory_used(session)
            var size: Int32 = 0
            var changeset: UnsafeMutableRawPointer?
            let code = sqlite3session_changeset(session, &size, &changeset)
            sqlite3session_delete(session)
            self.session = nil
            defer { sqlite3_free(changeset) }
            guard code == SQLITE_OK else { throw BenchError.failed("sqlite3session_changeset: \(String(cString: sqlite3_errstr(code)))") }
            var stats = SessionStats(sessionBytes: sessionBytes, changesetBytes: Int(size), changes: 0)
            guard size > 0, let changeset else { return stats }

            var started: OpaquePointer?
            guard sqlite3changeset_start(&started, size, changeset) == SQLITE_OK, let iterator = started else {
                throw BenchError.failed("sqlite3changeset_start failed")
            }
            var next = SQLITE_OK
            do {
                next = sqlite3changeset_next(iterator)
                while next == SQLITE_ROW {
                    try writeChangeRow(iterator, transaction: transaction)
                    stats.changes += 1
                    next = sqlite3changeset_next(iterator)
                }
            } catch {
                sqlite3changeset_finalize(iterator)
                throw error
            }
            let end = sqlite3changeset_finalize(iterator)
            guard next == SQLITE_DONE, end == SQLITE_OK else {
                throw BenchError.failed("reading the changeset: \(String(cString: sqlite3_errstr(next == SQLITE_DONE ? end : next)))")
            }
            return stats
        }

        private func writeChangeRow(_ iterator: OpaquePointer, transaction: Int64) throws {
            var table: UnsafePointer<CChar>?
            var columns: Int32 = 0
            var op: Int32 = 0
            var indirect: Int32 = 0
            guard sqlite3changeset_op(iterator, &table, &columns, &op, &indirect) == SQLITE_OK, Int(columns) == names.count + 1 else {
                throw BenchError.failed("unexpected changeset entry (\(columns) columns)")
            }
            var value: OpaquePointer?
            switch op {
            case SQLITE_INSERT:
                // Column 0 is "id"; every column of an insert has a new value.
                sqlite3_bind_int64(insert.handle, 1, transaction)
                for column in 0..<columns {
                    guard sqlite3changeset_new(iterator, column, &value) == SQLITE_OK else { throw BenchError.failed("sqlite3changeset_new failed") }
                    bindValue(value, to: insert.handle, at: column + 2)
                }
                try insert.run()
            case SQLITE_UPDATE:
                guard sqlite3changeset_old(iterator, 0, &value) == SQLITE_OK, let id = value else {
                    throw BenchError.failed("update without its primary key")
                }
                sqlite3_bind_int64(update.handle, 1, transaction)
                sqlite3_bind_int64(update.handle, 2, sqlite3_value_int64(id))
                // A changed column has a new value; its old value is the one before the update.
                var changed: [String] = []
                for column in 1..<columns {
                    var new: OpaquePointer?
                    var old: OpaquePointer?
                    guard sqlite3changeset_new(iterator, column, &new) == SQLITE_OK else { throw BenchError.failed("sqlite3changeset_new failed") }
                    if new != nil {
                        changed.append(names[Int(column) - 1])
                        guard sqlite3changeset_old(iterator, column, &old) == SQLITE_OK else { throw BenchError.failed("sqlite3changeset_old failed") }
                    }
                    bindValue(old, to: update.handle, at: 3 + column)
                }
                SQLValue.text(changed.joined(separator: ",")).bind(to: update.handle, at: 3)
                try update.run()
            default:
                throw BenchError.failed("unexpected changeset operation \(op)")
            }
        }

        private func bindValue(_ value: OpaquePointer?, to statement: OpaquePointer, at index: Int32) {
            if let value { sqlite3_bind_value(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        }
    }
}
