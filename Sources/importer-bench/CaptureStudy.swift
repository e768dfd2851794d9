import CSQLite
import Foundation
import ImporterKit

/// `importer-bench --capture`: what recording persistent history costs on top of a plain upsert,
/// for five ways of capturing it, measured through the SQLite C API on the benchmark's rows.
///
/// Scenarios, on the rows `Generator` makes:
/// - **A, first load**: `rows()` into an empty store (all inserts);
/// - **B, re-load, 10 % changed**: `rows(changeFraction: 0.1)` onto the store A left
///   (≈10 % updates, ≈90 % upserts that change nothing).
///
/// Variants, each on its own store (`capture-<variant>.sqlite` under the directory), all with
/// `Baseline`'s pragmas, upsert statement (NULL-safe `WHERE … IS NOT excluded.…`), feed order and
/// in-batch key order, in one transaction per scenario. Every variant's DDL is the study's own
/// (`CaptureDDL`), not `EntitySchema`'s, which follows whatever design the importer has now:
/// 1. `none`: the entity table alone, no history (the baseline);
/// 2. `triggers`: the per-row trigger design importer had before dd03968 (AFTER INSERT, AFTER
///    UPDATE … WHEN <a value differs>, AFTER DELETE, and the BEFORE UPDATE OF "id" guard), writing
///    the change table of that design (WITHOUT ROWID, PRIMARY KEY (transaction_number,
///    record_id)); the triggers call an `importer_transaction()` defined here, returning a
///    constant (1 in A, 2 in B);
/// 3. `app-side rows`: the same change table without triggers; a preupdate hook notes the
///    operation, the rowid and (updates) the old values; after each upsert that changed a row,
///    Swift works out `changed` and inserts the change row;
/// 4. `session`: the same change table without triggers; an `sqlite3session` on the entity table,
///    whose changeset is turned into change rows before COMMIT;
/// 5. `importer (chosen)`: importer's current design: the guard column `importer_tracked`
///    (STORED, `importer_writer()`) and the `BEFORE DELETE` guard trigger
///    (`importer_transaction()`), both functions registered here as importer's are; no insert or
///    update triggers; the current change table (`change_id INTEGER PRIMARY KEY AUTOINCREMENT`, a
///    partial index on `record_id` for updates and deletes). Updates are buffered by a preupdate
///    hook (old and new values) and written after each upsert step; at the end of the load, the
///    update rows of records inserted by the load are cleared and one `INSERT … SELECT` records
///    every record above the AUTOINCREMENT sequence at the start as an insert.
///
/// Timed: from BEGIN IMMEDIATE to the end of COMMIT (with its WAL auto-checkpoint), including the
/// session's creation and changeset. Not timed: opening the connection, creating the schema,
/// preparing statements, registering the functions or hook, and the checks. Reported per scenario
/// and variant: seconds, rows/s, time relative to `none`, database + WAL size after COMMIT,
/// SQLite's heap high-water mark, the process's peak RSS, and a check of the rows written
/// (N inserts after A, one update per changed record after B; for the chosen variant also that a
/// connection without importer's functions cannot write). Finally the change rows of every
/// history variant are compared with the triggers' row for row, by column name, `change_id`
/// left out.
enum CaptureStudy {
    // MARK: - Study

    /// A way of capturing history.
    enum Variant: String, CaseIterable {
        case noHistory = "none"
        case triggers = "triggers"
        case appSide = "app-side rows"
        case session = "session"
        case chosen = "importer (chosen)"

        /// The store's file name stem: `capture-<stem>.sqlite`.
        var fileStem: String {
            switch self {
            case .noHistory: "none"
            case .triggers: "triggers"
            case .appSide: "app-side"
            case .session: "session"
            case .chosen: "chosen"
            }
        }

        /// The change table the variant writes (nil: no history).
        var changeTableLayout: CaptureDDL.ChangeTableLayout? {
            switch self {
            case .noHistory: nil
            case .triggers, .appSide, .session: .withoutRowID
            case .chosen: .changeID
            }
        }
    }

    enum Scenario: CaseIterable {
        case firstLoad
        case changedReload

        var title: String {
            switch self {
            case .firstLoad: "A: first load into an empty store (all inserts)"
            case .changedReload: "B: re-load with 10 % changed (updates + no-ops)"
            }
        }

        /// The history transaction number the scenario's change rows carry.
        var transactionNumber: Int64 {
            switch self {
            case .firstLoad: 1
            case .changedReload: 2
            }
        }
    }

    struct Measurement {
        var variant: Variant
        var scenario: Scenario
        var seconds: Double
        var storeBytes: Int64
        var sqlitePeakBytes: Int64
        var peakRSSKiB: Int
        /// Peak RSS above the RSS at the start of the load (the peak was reset then, if `peakReset`).
        var rssGrowthKiB: Int
        var peakReset: Bool
        var check: Check
    }

    struct Check {
        var text: String
        var passed: Bool

        /// Both checks: passed when both passed, texts joined.
        func and(_ other: Check) -> Check {
            Check(text: text + "; " + other.text, passed: passed && other.passed)
        }
    }

    /// What the session variant held in memory for one load.
    struct SessionStats {
        var sessionBytes: Int64
        var changesetBytes: Int
        var changes: Int
    }

    static let entity = FireballModel.entity

    /// The attributes a generated row fills, in entity order; the entity's later attributes stay NULL.
    static let rowAttributes = ["date", "energy", "impact_energy", "latitude", "longitude", "altitude", "velocity"]

    /// The `Baseline`'s upsert: an update only when a value differs (NULL-safe).
    static let upsertSQL = """
        INSERT INTO fireball (date, energy, impact_energy, latitude, longitude, altitude, velocity)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT (date) DO UPDATE SET energy = excluded.energy, impact_energy = excluded.impact_energy,
          latitude = excluded.latitude, longitude = excluded.longitude, altitude = excluded.altitude, velocity = excluded.velocity
        WHERE fireball.energy IS NOT excluded.energy OR fireball.impact_energy IS NOT excluded.impact_energy
          OR fireball.latitude IS NOT excluded.latitude OR fireball.longitude IS NOT excluded.longitude
          OR fireball.altitude IS NOT excluded.altitude OR fireball.velocity IS NOT excluded.velocity
        """

    static func run(records: Int, directory: String) throws {
        guard records > 0 else { throw BenchError.failed("--capture needs at least one record") }
        try checkModel()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        let generator = Generator(count: records)
        let rows = generator.rows()
        let changedRows = generator.rows(changeFraction: 0.1)
        let expectedUpdates = zip(rows, changedRows).filter { differs($0, $1) }.count
        let feeds: [Scenario: Feed] = [.firstLoad: Feed(rows), .changedReload: Feed(changedRows)]

        print("capture study: \(records) records, \(expectedUpdates) changed in the re-load; SQLite \(String(cString: sqlite3_libversion())); stores in \(directory)")
        let referenceSeconds = try Baseline.run(rows: rows, storePath: directory + "/capture-baseline-reference.sqlite")

        var measurements: [Measurement] = []
        var notes: [String] = []
        for variant in Variant.allCases {
            let path = storePath(directory, variant)
            removeStore(path)
            for scenario in Scenario.allCases {
                guard let feed = feeds[scenario] else { throw BenchError.failed("no rows for \(scenario)") }
                let db = try Database(path: path)
                if scenario == .firstLoad { try createSchema(for: variant, on: db) }
                let changesBefore = sqlite3_total_changes64(db.handle)
                let peakReset = resetPeakRSS()
                let rssBefore = peakRSSKiB()
                sqlite3_memory_highwater(1)
                let (seconds, session) = try load(feed, into: db, variant: variant, scenario: scenario)
                let sqlitePeak = sqlite3_memory_highwater(0)
                let rssAfter = peakRSSKiB()
                let storeBytes = fileSize(path) + fileSize(path + "-wal")
                let rowsChanged = sqlite3_total_changes64(db.handle) - changesBefore
                let expected = scenario == .firstLoad ? records : expectedUpdates
                var check = try verify(variant, scenario, on: db, rowsChanged: rowsChanged, records: records, expected: expected)
                if variant == .chosen { check = check.and(try guardCheck(path)) }
                measurements.append(Measurement(variant: variant, scenario: scenario, seconds: seconds, storeBytes: storeBytes,
                                                sqlitePeakBytes: sqlitePeak, peakRSSKiB: rssAfter, rssGrowthKiB: rssAfter - rssBefore,
                                                peakReset: peakReset, check: check))
                if let session {
                    notes.append("session, \(scenario == .firstLoad ? "A" : "B"): "
                        + String(format: "session object %.1f MB before sqlite3session_changeset, changeset %.1f MB",
                                 mb(session.sessionBytes), mb(Int64(session.changesetBytes)))
                        + " for \(session.changes) changes")
                }
            }
        }
        notes.append(contentsOf: CaptureDDL.summary)
        notes.append(contentsOf: try compareChangeRows(directory: directory))
        notes.append("reference: Baseline.run first load \(String(format: "%.2f s, %.0f rows/s", referenceSeconds, Double(records) / referenceSeconds))")
        printTable(measurements, records: records, notes: notes)
        let failed = measurements.filter { !$0.check.passed }
        guard failed.isEmpty else {
            throw BenchError.failed("capture check failed for " + failed.map { "\($0.variant.rawValue) \($0.scenario)" }.joined(separator: ", "))
        }
    }

    /// The study binds `Generator.Row` fields by position: the model must still start with them.
    static func checkModel() throws {
        let names = entity.attributes.map(\.name)
        guard entity.tableName == "fireball", entity.uniqueKey == ["date"], Array(names.prefix(rowAttributes.count)) == rowAttributes,
              entity.attributes.dropFirst(rowAttributes.count).allSatisfy(\.isOptional)
        else { throw BenchError.failed("the fireball model no longer matches the generated rows: \(names)") }
    }

    static func differs(_ a: Generator.Row, _ b: Generator.Row) -> Bool {
        a.date != b.date || a.energy != b.energy || a.impact != b.impact || a.latitude != b.latitude
            || a.longitude != b.longitude || a.altitude != b.altitude || a.velocity != b.velocity
    }

    static func storePath(_ directory: String, _ variant: Variant) -> String {
        directory + "/capture-\(variant.fileStem).sqlite"
    }

    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The variant's schema on an empty store (not timed): the study's own DDL (`CaptureDDL`).
    static func createSchema(for variant: Variant, on db: Database) throws {
        let ddl = CaptureDDL(entity: entity)
        let statements: [String]
        switch variant {
        case .noHistory:
            statements = [ddl.entityTable(guarded: false)]
        case .triggers:
            statements = [ddl.entityTable(guarded: false), ddl.changeTable(.withoutRowID)] + ddl.legacyTriggers
        case .appSide, .session:
            statements = [ddl.entityTable(guarded: false), ddl.changeTable(.withoutRowID)]
        case .chosen:
            // The guard column's function must exist when the table is created.
            try registerGuardFunctions(on: db, number: Scenario.firstLoad.transactionNumber)
            statements = [ddl.entityTable(guarded: true), ddl.changeTable(.changeID), ddl.changeIndex, ddl.deleteGuard]
        }
        for statement in statements { try db.execute(statement) }
    }

    // MARK: - The timed load

    /// Upserts the feed in one transaction, capturing history as the variant does; returns the
    /// seconds from BEGIN to the end of COMMIT.
    static func load(_ feed: Feed, into db: Database, variant: Variant, scenario: Scenario) throws -> (Double, SessionStats?) {
        let transaction = scenario.transactionNumber
        // Before preparing the upsert: the triggers are compiled into it and need the function.
        if variant == .triggers { try registerTransactionFunction(on: db, number: transaction) }
        // The chosen design's guard column calls importer_writer() on every insert and update.
        if variant == .chosen { try registerGuardFunctions(on: db, number: transaction) }
        let upsert = try db.prepare(upsertSQL)
        let appSide = variant == .appSide ? try AppSideRecorder(db: db) : nil
        let session = variant == .session ? try SessionRecorder(db: db) : nil
        let chosen = variant == .chosen ? try ChosenRecorder(db: db) : nil
        var sessionStats: SessionStats?

        let clock = ContinuousClock()
        let began = clock.now
        try db.execute("BEGIN IMMEDIATE")
        try session?.start()
        try chosen?.begin()
        try feed.keys.withUnsafeBufferPointer { keys in
            guard let base = keys.baseAddress else { throw BenchError.failed("no keys to bind") }
            for (index, row) in feed.rows.enumerated() {
                let key = base + feed.keyOffsets[index]
                let keyLength = Int32(feed.keyOffsets[index + 1] - feed.keyOffsets[index])
                bind(row, key: key, keyLength: keyLength, to: upsert.handle, from: 1)
                try upsert.run()
                try appSide?.afterUpsert(row, key: key, keyLength: keyLength, transaction: transaction)
                if let chosen, chosen.buffer.hasPending { try chosen.flush(transaction: transaction) }
            }
        }
        if let session { sessionStats = try session.writeChangeRows(transaction: transaction) }
        try chosen?.finish(transaction: transaction)
        try db.execute("COMMIT")
        let elapsed = began.duration(to: clock.now).components
        return (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, sessionStats)
    }

    /// Binds a row's values, in entity order, from parameter `first`; the key without a copy.
    @inline(__always)
    static func bind(_ row: Generator.Row, key: UnsafePointer<CChar>, keyLength: Int32, to statement: OpaquePointer, from first: Int32) {
        func bind(_ value: Double?, _ index: Int32) {
            if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        }
        sqlite3_bind_text(statement, first, key, keyLength, importer_sqlite_static())
        sqlite3_bind_double(statement, first + 1, row.energy)
        sqlite3_bind_double(statement, first + 2, row.impact)
        bind(row.latitude, first + 3)
        bind(row.longitude, first + 4)
        bind(row.altitude, first + 5)
        bind(row.velocity, first + 6)
    }

    /// A row's values for every attribute of the entity, in entity order.
    static func attributeValues(of row: Generator.Row) -> [SQLValue] {
        func real(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
        let filled: [SQLValue] = [.text(row.date), .real(row.energy), .real(row.impact), real(row.latitude),
                                  real(row.longitude), real(row.altitude), real(row.velocity)]
        return filled + Array(repeating: .null, count: entity.attributes.count - filled.count)
    }

    /// Rows in the order the importer writes them (newest first, each batch of 8192 sorted by key,
    /// as in `Baseline`), with every key's UTF-8 bytes in one buffer, bound without copies.
    struct Feed {
        let rows: [Generator.Row]
        let keys: [CChar]
        /// `keys[keyOffsets[i]..<keyOffsets[i + 1]]` is the key of `rows[i]`.
        let keyOffsets: [Int]

        init(_ generated: [Generator.Row], batchSize: Int = 8192) {
            let feedOrder = Array(generated.reversed())
            var ordered: [Generator.Row] = []
            ordered.reserveCapacity(feedOrder.count)
            var start = 0
            while start < feedOrder.count {
                let end = min(start + batchSize, feedOrder.count)
                ordered += feedOrder[start..<end].sorted { $0.date < $1.date }
                start = end
            }
            var keys: [CChar] = []
            var offsets = [0]
            offsets.reserveCapacity(ordered.count + 1)
            for row in ordered {
                keys.append(contentsOf: row.date.utf8.map { CChar(bitPattern: $0) })
                offsets.append(keys.count)
            }
            rows = ordered
            self.keys = keys
            keyOffsets = offsets
        }
    }

    // MARK: - Variant: triggers

    /// Defines `importer_transaction()` for the importer's triggers, returning `number`. The number
    /// travels as the function's user-data pointer, so the C callback captures nothing.
    static func registerTransactionFunction(on db: Database, number: Int64) throws {
        let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
            guard let context else { return }
            sqlite3_result_int64(context, Int64(Int(bitPattern: sqlite3_user_data(context))))
        }
        guard number > 0, let data = UnsafeMutableRawPointer(bitPattern: Int(number)) else {
            throw BenchError.failed("transaction numbers start at 1")
        }
        let code = sqlite3_create_function_v2(db.handle, "importer_transaction", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                              data, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw BenchError.failed("importer_transaction(): \(db.message)") }
    }

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

    // MARK: - Checks

    /// After A: N insert rows (history variants) or N rows changed (`none`); after B: one update
    /// row per changed record, nothing else, or that many rows changed.
    static func verify(_ variant: Variant, _ scenario: Scenario, on db: Database, rowsChanged: Int64, records: Int, expected: Int) throws -> Check {
        let kind = scenario == .firstLoad ? "insert" : "update"
        let stored = try db.integer("SELECT count(*) FROM fireball")
        guard stored == records else { return Check(text: "FAIL: \(stored) fireball rows, expected \(records)", passed: false) }
        guard variant != .noHistory else {
            let passed = rowsChanged == expected
            return Check(text: "\(passed ? "ok" : "FAIL"): \(rowsChanged) rows changed\(passed ? "" : ", expected \(expected)")", passed: passed)
        }
        let changeTable = CaptureDDL(entity: entity).changeTable
        var counts: [String: Int64] = [:]
        for row in try db.rows("SELECT type, count(*) FROM \(changeTable) WHERE transaction_number = ?1 GROUP BY type",
                               scenario.transactionNumber) {
            if case .text(let type) = row[0], case .integer(let count) = row[1] { counts[type] = count }
        }
        let passed = counts == [kind: Int64(expected)]
        let found = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return Check(text: passed ? "ok: \(expected) \(kind)" : "FAIL: \(found.isEmpty ? "no rows" : found), expected \(expected) \(kind)",
                     passed: passed)
    }

    /// Compares every history variant's change rows with the triggers' row for row: the columns
    /// both layouts have, by name (so column order and the chosen layout's `change_id` play no
    /// part), as sets both ways, and the row counts.
    static func compareChangeRows(directory: String) throws -> [String] {
        let reference = try Database(path: storePath(directory, .triggers))
        let ddl = CaptureDDL(entity: entity)
        let changeTable = ddl.changeTable
        let columns = ddl.comparedColumns.joined(separator: ", ")
        var lines: [String] = []
        for variant in Variant.allCases where variant != .triggers && variant.changeTableLayout != nil {
            let path = storePath(directory, variant).replacingOccurrences(of: "'", with: "''")
            try reference.execute("ATTACH DATABASE '\(path)' AS other")
            defer { try? reference.execute("DETACH DATABASE other") }
            let missing = try reference.integer("SELECT count(*) FROM (SELECT \(columns) FROM main.\(changeTable) EXCEPT SELECT \(columns) FROM other.\(changeTable))")
            let extra = try reference.integer("SELECT count(*) FROM (SELECT \(columns) FROM other.\(changeTable) EXCEPT SELECT \(columns) FROM main.\(changeTable))")
            let referenceRows = try reference.integer("SELECT count(*) FROM main.\(changeTable)")
            let rows = try reference.integer("SELECT count(*) FROM other.\(changeTable)")
            let same = missing == 0 && extra == 0 && rows == referenceRows
            lines.append("change rows of \(variant.rawValue) vs triggers: \(same ? "identical" : "DIFFER") (\(missing) missing, \(extra) extra; "
                + "\(rows) rows vs \(referenceRows))")
        }
        return ["compared by column name, change_id left out: " + ddl.comparedColumns.prefix(5).joined(separator: ", ") + ", …"] + lines
    }

    // MARK: - Report

    static func printTable(_ measurements: [Measurement], records: Int, notes: [String]) {
        let rule = String(repeating: "-", count: 124)
        print(rule)
        print(pad("variant", 22) + pad("seconds", 9) + pad("rows/s", 10) + pad("× none", 8) + pad("db+WAL MB", 11)
            + pad("SQLite peak MB", 16) + pad("peak RSS MB (+load)", 23) + "check")
        for scenario in Scenario.allCases {
            print(scenario.title)
            let rows = measurements.filter { $0.scenario == scenario }
            let none = rows.first { $0.variant == .noHistory }?.seconds
            for m in rows {
                let ratio = none.map { String(format: "%.2f", m.seconds / $0) } ?? "-"
                let rss = String(format: "%.0f (+%.0f)", Double(m.peakRSSKiB) / 1024, Double(m.rssGrowthKiB) / 1024) + (m.peakReset ? "" : "*")
                print(pad("  " + m.variant.rawValue, 22) + pad(String(format: "%.2f", m.seconds), 9)
                    + pad(String(format: "%.0f", Double(records) / m.seconds), 10) + pad(ratio, 8)
                    + pad(String(format: "%.1f", mb(m.storeBytes)), 11) + pad(String(format: "%.1f", mb(m.sqlitePeakBytes)), 16)
                    + pad(rss, 23) + m.check.text)
            }
        }
        print(rule)
        if measurements.contains(where: { !$0.peakReset }) {
            print("* peak RSS could not be reset (/proc/self/clear_refs): the figure is the process's peak so far")
        }
        notes.forEach { print($0) }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func mb(_ bytes: Int64) -> Double { Double(bytes) / 1e6 }

    static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Resets the process's peak RSS to its current RSS (Linux: `5` into `/proc/self/clear_refs`),
    /// so that `ru_maxrss` afterwards is the peak of what follows, not of generating the rows.
    static func resetPeakRSS() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// The process's peak resident set size (`getrusage`'s `ru_maxrss`, KiB on Linux).
    static func peakRSSKiB() -> Int {
        var usage = rusage()
        return getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 ? usage.ru_maxrss : 0
    }

    // MARK: - SQLite helpers

    /// A copied SQLite value.
    enum SQLValue: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])

        init(_ value: OpaquePointer?) {
            guard let value else { self = .null; return }
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
            case SQLITE_TEXT:
                let count = Int(sqlite3_value_bytes(value))
                self = .text(sqlite3_value_text(value).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
            case SQLITE_BLOB:
                let count = Int(sqlite3_value_bytes(value))
                self = .blob(sqlite3_value_blob(value).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
            default: self = .null
            }
        }

        /// SQL's `IS`: NULL-safe; numbers compare by value whatever their storage class; text by bytes.
        func isSame(as other: SQLValue) -> Bool {
            switch (self, other) {
            case (.null, .null): true
            case let (.integer(a), .integer(b)): a == b
            case let (.real(a), .real(b)): a == b
            case let (.integer(a), .real(b)), let (.real(b), .integer(a)): Double(a) == b
            case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
            case let (.blob(a), .blob(b)): a == b
            default: false
            }
        }

        func bind(to statement: OpaquePointer, at index: Int32) {
            switch self {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let value): sqlite3_bind_int64(statement, index, value)
            case .real(let value): sqlite3_bind_double(statement, index, value)
            case .text(let value): sqlite3_bind_text(statement, index, value, -1, importer_sqlite_transient())
            case .blob(let bytes):
                bytes.withUnsafeBytes { _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), importer_sqlite_transient()) }
            }
        }
    }

    /// A connection with the `Baseline`'s pragmas; closed when released.
    final class Database {
        let handle: OpaquePointer

        init(path: String) throws {
            var opened: OpaquePointer?
            let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
            guard code == SQLITE_OK, let opened else {
                let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
                sqlite3_close(opened)
                throw BenchError.failed("cannot open \(path): \(message)")
            }
            handle = opened
            try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=OFF; PRAGMA cache_size=-32768")
        }

        deinit { sqlite3_close_v2(handle) }

        var message: String { String(cString: sqlite3_errmsg(handle)) }

        func execute(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError.failed("\(message) (\(sql.prefix(60)))") }
        }

        func prepare(_ sql: String) throws -> Statement {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw BenchError.failed("\(message) (\(sql.prefix(60)))")
            }
            return Statement(handle: prepared)
        }

        /// All rows of a query, with integer parameters ?1, ?2, ….
        func rows(_ sql: String, _ parameters: Int64...) throws -> [[SQLValue]] {
            let statement = try prepare(sql)
            for (index, value) in parameters.enumerated() { sqlite3_bind_int64(statement.handle, Int32(index + 1), value) }
            var rows: [[SQLValue]] = []
            var code = sqlite3_step(statement.handle)
            while code == SQLITE_ROW {
                rows.append((0..<sqlite3_column_count(statement.handle)).map { SQLValue(sqlite3_column_value(statement.handle, $0)) })
                code = sqlite3_step(statement.handle)
            }
            guard code == SQLITE_DONE else { throw BenchError.failed("\(message) (\(sql.prefix(60)))") }
            return rows
        }

        func integer(_ sql: String) throws -> Int64 {
            guard case .integer(let value) = try rows(sql).first?.first else { throw BenchError.failed("no integer from \(sql.prefix(60))") }
            return value
        }
    }

    /// A prepared statement; finalized when released.
    final class Statement {
        let handle: OpaquePointer

        init(handle: OpaquePointer) { self.handle = handle }

        deinit { sqlite3_finalize(handle) }

        /// Steps a statement that returns no rows, then resets it for the next bindings.
        @inline(__always)
        func run() throws {
            guard sqlite3_step(handle) == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                sqlite3_reset(handle)
                throw BenchError.failed(message)
            }
            sqlite3_reset(handle)
        }
    }
}
