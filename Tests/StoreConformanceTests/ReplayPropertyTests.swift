import ImporterTestSupport
import Foundation
@testable import ImporterKit
import PropertyBased
import Testing

/// Random histories: imports of overlapping snapshots (inserts, updates, deletes with sync, NULL
/// transitions, records moving between view groups, repeated keys), by two authors, with views
/// replayed (every aggregate) and external consumers reading in random chunks at random points;
/// on both backends.
@Suite struct ReplayPropertyTests {
    typealias Backend = BackendConformanceTests.Backend

    struct Record: Sendable, CustomStringConvertible {
        var key: Int
        var energy: Int
        var impact: Int
        var location: Int
        var altitude: Int

        /// Keys share years (view groups): 30 keys over 2020-2022.
        var date: String { String(format: "%04d-%02d-%02d 00:00:00", 2020 + key % 3, 1 + key % 12, 1 + key / 3 % 28) }
        var row: String {
            let energies = ["null", "\"1.5\"", "\"2.25\"", "\"3\"", "\"+4.5\""]
            let impacts = ["\"0.1\"", "\"0.2\"", "\"0.2\"", "\"0.7\""]
            let locations = ["null,null,null,null", "\"10.5\",\"N\",\"20\",\"E\"", "\"10.5\",\"N\",\"20\",\"W\"", "\"3\",\"S\",\"20\",\"E\"", "\"3\",\"S\",\"8.25\",\"W\""]
            let altitudes = ["null", "\"30\"", "\"55.5\""]
            return "[\"\(date)\",\(energies[energy]),\(impacts[impact]),\(locations[location]),\(altitudes[altitude]),null]"
        }
        var description: String { row }
    }

    struct Step: Sendable, CustomStringConvertible {
        var records: [Record]
        var sync: Bool
        var authorB: Bool
        /// Replay the views after this import: by the import itself (which rebuilds views when the
        /// delta is large), or incrementally whatever its size.
        var replayViews: Bool
        /// For each external consumer: nil = do not read now, else read at most this many transactions.
        var reads: [Int?]
        var description: String { "\(sync ? "sync " : "")by \(authorB ? "B" : "A") \(records) replay=\(replayViews) reads=\(reads)" }
    }

    static let record = zip(Gen.int(in: 0...29), Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 0...4), Gen.int(in: 0...2))
        .map { Record(key: $0, energy: $1, impact: $2, location: $3, altitude: $4) }
    static let read = Gen.int(in: 0...3).map { $0 == 0 ? nil : $0 }
    static let step = zip(record.array(of: 0...14), Gen.bool, Gen.bool, Gen.bool, read.array(of: 3))
        .map { Step(records: $0, sync: $1, authorB: $2, replayViews: $3, reads: $4) }

    /// The built-in views and the test's with every aggregate over multi-column and NULL groups
    /// (SQLite replays them from one scan, PostgreSQL from one `GROUPING SETS` statement).
    static let model = ViewTestModel.model

    static let consumers = [
        Consumer(name: "everything", kind: .external, tokenNumber: 0),
        Consumer(name: "energy", kind: .external, tokenNumber: 0, attributes: ["energy"]),
        Consumer(name: "not-b", kind: .external, tokenNumber: 0, entities: ["Fireball"], excludedAuthors: ["B"]),
    ]

    @Test(arguments: Backend.allCases)
    func viewsEqualTheirRecomputationAndConsumersSeeEachSelectedChangeOnce(backend: Backend) async throws {
        // A PostgreSQL case creates a database: fewer cases keep the suite's time in bounds.
        await propertyCheck(count: backend == .sqlite ? 60 : 25, input: Self.step.array(of: 1...7)) { steps in
            try check(steps, on: backend)
        }
    }

    private func check(_ steps: [Step], on backend: Backend) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try backend.open(in: directory)
        try store.write { (tx: StoreWriteTransaction) throws in
            for consumer in Self.consumers { try tx.addConsumer(consumer) }
        }
        var received: [String: [Change]] = [:]
        for (index, step) in steps.enumerated() {
            let feed = try directory.write("feed\(index).json", fireballFeed(step.records.map(\.row)))
            var options = ImportOptions(author: step.authorB ? "B" : "A", context: "test", sync: step.sync)
            options.maxUpdated = .percent(100)  // most records revised on purpose
            options.replayViews = index == 0 || (step.replayViews && index % 2 == 0)
            options.batchSize = 4
            _ = try ImportSession(store: store, model: Self.model, options: options)
                .run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
            if step.replayViews && index % 2 == 1 {
                var incremental = ViewMaintainer(entities: store.entities)
                incremental.rebuildFactor = 0
                try store.write { (tx: StoreWriteTransaction) throws in _ = try incremental.replay(try tx.snapshot.allViews(), in: tx) }
            }
            for (consumer, limit) in zip(Self.consumers, step.reads) {
                if let limit { received[consumer.name, default: []] += try read(consumer.name, limit: limit, store) }
            }
        }
        // Finish: views to the head (incrementally), consumers to the end.
        var incremental = ViewMaintainer(entities: store.entities)
        incremental.rebuildFactor = 0
        try store.write { (tx: StoreWriteTransaction) throws in _ = try incremental.replay(try tx.snapshot.allViews(), in: tx) }
        for consumer in Self.consumers {
            while true {
                let chunk = try read(consumer.name, limit: 2, store)
                received[consumer.name, default: []] += chunk
                let token = try store.read { try $0.consumer(named: consumer.name) }.tokenNumber
                if token == (try store.lastTransactionNumber()) { break }
            }
        }

        for view in try store.read({ try $0.allViews() }) {
            let differences = try store.read { try ViewMaintainer(entities: store.entities).verify(view, in: $0) }
            #expect(differences.isEmpty, "\(differences)")
        }

        // Every change, unfiltered, and the authors of the transactions.
        var all: [Change] = []
        try store.read { (snapshot: StoreSnapshot) throws in try snapshot.forEachChange() { all.append($0) } }
        let authors = Dictionary(uniqueKeysWithValues: try store.read { try $0.transactions() }.map { ($0.number, $0.author) })
        for consumer in Self.consumers {
            // An oracle independent of ChangeFilter.
            let expected = all.filter { change in
                (consumer.entities.isEmpty || consumer.entities.contains(change.entity))
                    && !consumer.excludedAuthors.contains(authors[change.transactionNumber] ?? "")
                    && (change.type != .update || consumer.attributes.isEmpty || change.changed.contains { consumer.attributes.contains($0.attribute) })
            }
            let got = received[consumer.name] ?? []
            #expect(got.map(\.identity) == expected.map(\.identity), "consumer \(consumer.name)")
        }

        // History is complete and exact: replaying every change reproduces the table.
        var records: [Int64: [String: Value]] = [:]
        for change in all {
            switch change.type {
            case .insert:
                #expect(records[change.recordID] == nil)
                records[change.recordID] = Dictionary(uniqueKeysWithValues: change.values)
            case .update:
                for attributeChange in change.changed {
                    #expect(records[change.recordID]?[attributeChange.attribute] == attributeChange.old, "update of \(change.keyDescription)")
                }
                records[change.recordID] = Dictionary(uniqueKeysWithValues: change.values)
            case .delete:
                #expect(records[change.recordID] == Dictionary(uniqueKeysWithValues: change.values), "delete of \(change.keyDescription)")
                records[change.recordID] = nil
            }
        }
        let entity = try #require(store.entity(named: "Fireball"))
        var table: [Int64: [String: Value]] = [:]
        try store.read { (snapshot: StoreSnapshot) throws in
            try snapshot.records.forEachRecord(of: entity) { id, values in
                table[id] = Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), values))
            }
        }
        #expect(records.count == table.count)
        for (id, stored) in table { #expect(records[id] == stored, "record \(id)") }
    }

    /// Reads a consumer's pending changes (at most `limit` transactions) and acknowledges them.
    private func read(_ name: String, limit: Int, _ store: Store) throws -> [Change] {
        let consumer = try store.read { try $0.consumer(named: name) }
        let through = min(try store.lastTransactionNumber(), consumer.tokenNumber + Int64(limit))
        var changes: [Change] = []
        try store.read { (snapshot: StoreSnapshot) throws in
            try snapshot.forEachChange(after: consumer.tokenNumber, through: through, filter: consumer.filter) { changes.append($0) }
        }
        if through > consumer.tokenNumber {
            try store.write { (tx: StoreWriteTransaction) throws in
                try tx.advanceConsumerToken(name, from: consumer.tokenNumber, to: through)
            }
        }
        return changes
    }
}

extension Change {
    /// What identifies a change in history.
    var identity: String { "\(transactionNumber)/\(entity)/\(recordID)/\(type.rawValue)" }
}
