import CSQLite
import Foundation
import ImporterKit

/// The capture study's checks (change rows per type, identical rows across variants) and its table.
extension CaptureStudy {
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

}
