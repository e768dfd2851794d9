import CSQLite
import Foundation
import ImporterKit

/// The reload baseline, the idea of the hand-written C reference: preload the stored rows into a
/// hash table (key → id and values), merge the feed's rows against it in memory, and write only
/// what differs (updates by id, inserts), then delete the stored rows the feed no longer holds, in
/// one transaction. No parsing, no history: what a reload costs plain SQLite on this machine, and
/// what it holds in memory (every stored row).
enum ReloadBaseline {
    private struct Stored {
        var id: Int64
        var values: [Double?]
    }

    /// Reloads `rows` (oldest first) into the first-load baseline store at `storePath`; returns the
    /// seconds from reading the stored rows to COMMIT, and the rows written.
    static func run(rows: [Generator.Row], storePath: String) throws -> (seconds: Double, written: Int) {
        var db: OpaquePointer?
        guard sqlite3_open(storePath, &db) == SQLITE_OK, let db else { throw BenchError.failed("cannot open \(storePath)") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError.failed(String(cString: sqlite3_errmsg(db))) }
        }
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw BenchError.failed(String(cString: sqlite3_errmsg(db)))
            }
            return statement
        }
        try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=OFF; PRAGMA cache_size=-32768")
        let select = try prepare("SELECT id, date, energy, impact_energy, latitude, longitude, altitude, velocity FROM fireball")
        let update = try prepare("""
            UPDATE fireball SET energy = ?2, impact_energy = ?3, latitude = ?4, longitude = ?5, altitude = ?6, velocity = ?7 WHERE id = ?1
            """)
        let insert = try prepare("""
            INSERT INTO fireball (date, energy, impact_energy, latitude, longitude, altitude, velocity) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """)
        let delete = try prepare("DELETE FROM fireball WHERE id = ?1")
        defer { [select, update, insert, delete].forEach { sqlite3_finalize($0) } }
        let clock = ContinuousClock()
        let began = clock.now
        try exec("BEGIN IMMEDIATE")
        var stored: [String: Stored] = [:]
        while sqlite3_step(select) == SQLITE_ROW {
            let key = String(cString: sqlite3_column_text(select, 1))
            let values: [Double?] = (2..<8).map { sqlite3_column_type(select, $0) == SQLITE_NULL ? nil : sqlite3_column_double(select, $0) }
            stored[key] = Stored(id: sqlite3_column_int64(select, 0), values: values)
        }
        var written = 0
        var seen = Set<Int64>()
        seen.reserveCapacity(stored.count)
        for row in rows.reversed() {
            let values = [row.energy, row.impact, row.latitude, row.longitude, row.altitude, row.velocity]
            if let old = stored[row.date] {
                seen.insert(old.id)
                guard old.values != values else { continue }
                sqlite3_bind_int64(update, 1, old.id)
                try step(update, values, from: 2, db)
            } else {
                sqlite3_bind_text(insert, 1, row.date, -1, importer_sqlite_transient())
                try step(insert, values, from: 2, db)
            }
            written += 1
        }
        for old in stored.values where !seen.contains(old.id) {
            sqlite3_bind_int64(delete, 1, old.id)
            try step(delete, [], from: 2, db)
            written += 1
        }
        try exec("COMMIT")
        return (PhaseSeconds.of(began.duration(to: clock.now)), written)
    }

    private static func step(_ statement: OpaquePointer, _ values: [Double?], from first: Int32, _ db: OpaquePointer) throws {
        for (offset, value) in values.enumerated() {
            if let value { sqlite3_bind_double(statement, first + Int32(offset), value) } else { sqlite3_bind_null(statement, first + Int32(offset)) }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError.failed(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }
}

enum PhaseSeconds {
    static func of(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
