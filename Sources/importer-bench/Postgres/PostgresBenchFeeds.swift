import Foundation

/// The inputs of the PostgreSQL rows: the importer's JSON feeds (the bench's plain feed, and one
/// with `changeFraction` of the energies revised) and the same records as COPY text for the psql
/// reference, written streaming into the bench directory (absolute paths: psql's `\copy` reads them).
struct PostgresBenchFeeds {
    var json: String
    var changedJSON: String
    var copyText: String
    var changedCopyText: String
    var changeFraction: Double

    /// Writes the changed JSON feed and both COPY texts; `baseFeed` is the bench's plain feed, already written.
    static func write(_ generator: Generator, baseFeed: String, changeFraction: Double, directory: String) throws -> PostgresBenchFeeds {
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL.path
        let percent = Int((changeFraction * 100).rounded())
        let feeds = PostgresBenchFeeds(
            json: baseFeed,
            changedJSON: absolute + "/fireball-\(generator.count)-changed-\(percent)pct.json",
            copyText: absolute + "/fireball-\(generator.count).copy",
            changedCopyText: absolute + "/fireball-\(generator.count)-changed-\(percent)pct.copy",
            changeFraction: changeFraction)
        try generator.writeFeed(changeFraction: changeFraction, to: feeds.changedJSON)
        try CopyTextFeed.write(generator, changeFraction: 0, to: feeds.copyText)
        try CopyTextFeed.write(generator, changeFraction: changeFraction, to: feeds.changedCopyText)
        return feeds
    }

    /// Deletes the files written here (not the bench's plain feed).
    func remove() {
        for path in [changedJSON, copyText, changedCopyText] { try? FileManager.default.removeItem(atPath: path) }
    }
}
