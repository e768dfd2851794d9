import CSQLite
import Foundation
import ImporterKit

/// The baseline: the same rows upserted through the SQLite C API into the same table, with no
/// parsing and no history. Same pragmas, same batch size and in-batch key order as the importer,
/// text bound without copies: the fastest plain SQLite does on this machine.
enum Baseline {
    /// The plain upsert: feed values win, a row equal to the stored one writes nothing.
    static let upsertSQL = """
        INSERT INTO fireball (date, energy, impact_energy, latitude, longitude, altitude, velocity)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT (date) DO UPDATE SET energy = excluded.energy, impact_energy = excluded.impact_energy,
          latitude = excluded.latitude, longitude = excluded.longitude, altitude = excluded.altitude, velocity = excluded.velocity
        WHERE fireball.energy IS NOT excluded.energy OR fireball.impact_energy IS NOT excluded.impact_energy
          OR fireball.latitude IS NOT excluded.latitude OR fireball.longitude IS NOT excluded.longitude
          OR fireball.altitude IS NOT excluded.altitude OR fireball.velocity IS NOT excluded.velocity
        """

    static func run(rows: [Generator.Row], storePath: String, batchSize: Int = 8192) throws -> Double {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        var db: OpaquePointer?
        guard sqlite3_open(storePath, &db) == SQLITE_OK, let db else { throw BenchError.failed("cannot open \(storePath)") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError.failed(String(cString: sqlite3_errmsg(db))) }
        }
        try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=OFF; PRAGMA cache_size=-32768")
        // The entity table exactly as the importer creates it (without the history triggers).
        let schema = SQLiteEntitySchema(entity: FireballModel.entity)
        try exec(schema.createTableStatement)
        let sql = upsertSQL
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError.failed(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        let ordered = Generator.writeOrder(rows, batchSize: batchSize)
        let dates = ordered.map { Array($0.date.utf8) }
        func bind(_ value: Double?, _ index: Int32) {
            if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
        }
        let began = Date()
        try exec("BEGIN IMMEDIATE")
        for (index, row) in ordered.enumerated() {
            try dates[index].withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { throw BenchError.failed("empty key in row \(index)") }
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    _ = sqlite3_bind_text(statement, 1, $0, Int32(bytes.count), importer_sqlite_static())
                }
            }
            sqlite3_bind_double(statement, 2, row.energy)
            sqlite3_bind_double(statement, 3, row.impact)
            bind(row.latitude, 4)
            bind(row.longitude, 5)
            bind(row.altitude, 6)
            bind(row.velocity, 7)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.failed(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try exec("COMMIT")
        return Date().timeIntervalSince(began)
    }
}
