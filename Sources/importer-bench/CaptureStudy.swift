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

    /// The plain upsert of the baseline and of every capture variant: an update only when a value
    /// differs (NULL-safe).
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
            let ordered = Generator.writeOrder(generated, batchSize: batchSize)
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
}
