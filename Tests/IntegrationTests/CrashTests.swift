import ImporterTestSupport
import Foundation
import ImporterKit
import Testing

@Suite struct CrashTests {
    /// A large feed of `count` records, dates ascending from `offset` seconds after 2000-01-01;
    /// `shuffled`, in a scrambled key order instead, then `repeats` of them again with other values.
    static func largeFeed(count: Int, offset: Int, shuffled: Bool = false, repeats: Int = 0) -> String {
        var rows: [String] = []
        rows.reserveCapacity(count + repeats)
        let order = shuffled ? (0..<count).map { $0 * 7919 % count } + (0..<repeats).map { $0 * 13 % count } : Array(0..<count)
        for (n, i) in order.enumerated() {
            let t = offset + i * 37
            let date = String(format: "%04d-%02d-%02d %02d:%02d:%02d", 2000 + t / 31_104_000 % 20, 1 + t / 2_592_000 % 12, 1 + t / 86400 % 28,
                              t / 3600 % 24, t / 60 % 60, t % 60)
            rows.append("[\"\(date)\",\"\(Double((n < count ? i : n) % 97) / 4)\",\"0.\(i % 9 + 1)\",\"\(i % 80)\",\"\(i % 2 == 0 ? "N" : "S")\",\"\(i % 170)\",\"E\",null,\"\(i % 30)\"]")
        }
        return #"{"signature":{"version":"1.2"},"count":"\#(count + repeats)","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":[\#(rows.joined(separator: ",\n"))]}"#
    }

    /// A run killed with SIGKILL at any moment leaves the store as it was, or with the whole run.
    @Test(arguments: [0.05, 0.2, 0.4, 0.8, 1.5])
    func aKilledRunLeavesTheStoreConsistent(delay: Double) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        try importer(["run", "--store", store, sample("fireball-2024.json")])
        let feed = directory.path("large.json")
        try Data(Self.largeFeed(count: 60_000, offset: 0).utf8).write(to: URL(fileURLWithPath: feed))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["run", "--store", store, "--sync", "--max-delete", "100%", feed]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        let connection = try SQLiteConnection(path: store, create: false)
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        let rows = try connection.scalar("SELECT count(*) FROM fireball")
        let transactions = try connection.scalar("SELECT count(*) FROM importer_transaction")
        // Before the run: 10 records, 1 transaction. After it: 60,000 records, 2 transactions.
        #expect((rows == .integer(10) && transactions == .integer(1)) || (rows == .integer(60_000) && transactions == .integer(2)),
                "rows \(String(describing: rows)), transactions \(String(describing: transactions))")
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
        // The store still takes imports.
        #expect(try importer(["run", "--store", store, "--sync", "--max-delete", "100%", sample("fireball-2026.json")]).status == 0)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }
}
