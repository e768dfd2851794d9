import Foundation
import ImporterKit
import ImporterStoreSQLite
import Testing

/// The repository's root (for SampleData).
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

public func sample(_ name: String) -> String {
    repositoryRoot.appendingPathComponent("SampleData").appendingPathComponent(name).path
}

/// A fresh directory under the system temp directory, removed by `cleanup()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("importer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to a file in the directory and returns its path.
    public func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    public func cleanup() { try? FileManager.default.removeItem(at: url) }
}

/// A fireball API feed with the standard nine fields and the given rows (each a JSON array text).
public func fireballFeed(_ rows: [String], count: String? = nil, fields: String = #"["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"]"#, version: String = "1.2") -> String {
    let countText = count ?? "\"\(rows.count)\""
    return #"{"signature":{"source":"NASA/JPL Fireball Data API","version":"\#(version)"},"count":\#(countText),"fields":\#(fields),"data":[\#(rows.joined(separator: ",\n"))]}"#
}

/// Imports feeds into the store at `path` with the built-in model.
@discardableResult
public func importFeeds(_ feeds: [String], into path: String, sync: Bool = false, author: String = "test", batchSize: Int = 8192, maxRejects: Int = 0,
                 configure: (inout ImportOptions) -> Void = { _ in }) throws -> ImportResult {
    let store = try Store(path: path)
    var options = ImportOptions(author: author, context: "test", sync: sync)
    options.batchSize = batchSize
    options.maxRejects = maxRejects
    configure(&options)
    let session = ImportSession(store: store, model: FireballModel.model, options: options)
    return try session.run(feeds.map { FeedInput(path: $0, mapping: FireballModel.apiFeed) })
}

/// All rows of the fireball table as dictionaries keyed by column, ordered by date.
public func fireballRows(_ path: String) throws -> [[String: Value]] {
    let connection = try SQLiteConnection(path: path, create: false)
    let statement = try connection.prepare("SELECT * FROM fireball ORDER BY date")
    var rows: [[String: Value]] = []
    try statement.forEachRow { row in
        var values: [String: Value] = [:]
        for index in 0..<row.columnCount { values[row.columnName(index)] = row.value(at: index) }
        rows.append(values)
    }
    return rows
}

public func sha256(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

/// The `FeedError` that `body` throws; records an issue when it throws none or another error.
public func feedError(_ body: () throws -> Void) -> FeedError? {
    do {
        try body()
        Issue.record("expected a feed error")
        return nil
    } catch let error as FeedError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
