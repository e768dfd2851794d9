import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterPipeline
import Testing

/// Reading ahead on a thread of its own changes nothing the writer sees: the same batches, rejects
/// and error, in the same order, as a synchronous read.
@Suite struct FeedReadAheadTests {
    /// 50 records, every 7th with an energy that is not a number (a reject), and the document cut
    /// off after them (a read error at the end).
    static func feed(in directory: TemporaryDirectory) throws -> FeedInput {
        let rows = (0..<50).map { i in
            "[\"2024-01-\(String(format: "%02d", i % 28 + 1)) 00:\(String(format: "%02d", i)):00\",\"\(i % 7 == 3 ? "x" : "\(i).5")\",\"0.1\",null,null,null,null,null,null]"
        }
        let text = #"{"signature":{"version":"1.2"},"count":"50","fields":["date","energy","impact-e","lat","lat-dir","lon","lon-dir","alt","vel"],"data":[\#(rows.joined(separator: ",\n"))"#
        let path = directory.path("feed.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return FeedInput(path: path, mapping: FireballModel.apiFeed)
    }

    static func events(readingAhead: Bool, _ input: FeedInput) throws -> [String] {
        let entity = try #require(FireballModel.model.entity(named: "Fireball"))
        let feed = try MappedFeed(input, entity: entity)
        var events: [String] = []
        do {
            if readingAhead {
                _ = try FeedReadAhead.read(feed, batchSize: 4, depth: 1) { events.append("reject \($0.location)") } onBatch: { batch, _ in
                    events.append("batch \(batch.count) from record \(batch.origins.first?.recordIndex ?? -1)")
                }
            } else {
                try feed.read(batchSize: 4) { events.append("reject \($0.location)") } onBatch: { batch in
                    events.append("batch \(batch.count) from record \(batch.origins.first?.recordIndex ?? -1)")
                }
            }
        } catch {
            events.append("error \(error)")
        }
        return events
    }

    @Test func eventsArriveInFeedOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let input = try Self.feed(in: directory)
        let synchronous = try Self.events(readingAhead: false, input)
        #expect(synchronous.filter { $0.hasPrefix("reject") }.count == 7)
        #expect(synchronous.last?.hasPrefix("error") == true)
        #expect(try Self.events(readingAhead: true, input) == synchronous)
    }

    @Test func aWriterErrorStopsTheReader() throws {
        struct WriteFailed: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let input = try Self.feed(in: directory)
        let entity = try #require(FireballModel.model.entity(named: "Fireball"))
        var batches = 0
        #expect(throws: WriteFailed.self) {
            _ = try FeedReadAhead.read(try MappedFeed(input, entity: entity), batchSize: 4, depth: 1) { _ in } onBatch: { _, _ in
                batches += 1
                if batches == 2 { throw WriteFailed() }
            }
        }
        #expect(batches == 2)
    }
}
