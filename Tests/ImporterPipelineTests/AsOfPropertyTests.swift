import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
import PropertyBased
import Testing

/// Random sequences of imports, syncs (with drifting keys) and undos: the store read as of any
/// transaction equals the table as it was right after that transaction.
@Suite struct AsOfPropertyTests {
    /// One step: a feed (a subset of 12 slots, each with a small jitter of its date and an energy),
    /// imported with or without --sync; or an undo of the last transaction.
    enum Step: Sendable, CustomStringConvertible {
        case feed([Int], sync: Bool)
        case undo
        var description: String {
            switch self {
            case .feed(let rows, let sync): "\(sync ? "sync" : "import") \(rows)"
            case .undo: "undo"
            }
        }
    }

    static let step = zip(Gen.int(in: 0...9), Gen.int(in: 0...35).array(of: 0...8))
        .map { kind, codes -> Step in kind == 0 ? .undo : .feed(codes, sync: kind < 4) }

    /// Slot `code % 12`, jittered by `code / 12` seconds (0…2, within the 1 s tolerance or not),
    /// energy from the code.
    static func row(_ code: Int) -> String {
        let slot = code % 12
        let date = String(format: "2020-01-%02d 00:00:%02d", slot + 1, code / 12)
        return #"["\#(date)","\#(Double(code) / 4)","0.1",null,null,null,null,null,null]"#
    }

    @Test func everyPointReadsBackAsTheTableWas() async throws {
        await propertyCheck(count: 40, input: Self.step.array(of: 1...8)) { steps in
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let store = try Store(path: directory.path("s.sqlite"))
            let entity = FireballModel.entity
            var snapshots: [Int64: [[Value]]] = [:]
            func table() throws -> [[Value]] {
                var rows: [[Value]] = []
                try store.read { try $0.records.forEachRecord(of: entity) { _, values in rows.append(values) } }
                return rows
            }
            for step in steps {
                switch step {
                case .feed(let codes, let sync):
                    var seen = Set<Int>()
                    let rows = codes.filter { seen.insert($0 % 12).inserted }.map(Self.row)
                    let feed = try directory.write("f\(snapshots.count).json", fireballFeed(rows))
                    var options = ImportOptions(author: "t", context: "test", sync: sync)
                    options.maxDelete = .percent(100)
                    options.allowEmpty = true
                    _ = try ImportSession(store: store, model: FireballModel.model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
                case .undo:
                    let head = try store.lastTransactionNumber()
                    guard head > 0 else { continue }
                    _ = try? store.write { try HistoryUndo(storeID: store.storeID, entities: store.entities).run(head, in: $0) }
                }
                snapshots[try store.lastTransactionNumber()] = try table()
            }
            try store.read { (storeSnapshot: StoreSnapshot) throws in
                for (number, snapshot) in snapshots {
                    var rows: [[Value]] = []
                    try storeSnapshot.forEachRecord(of: entity, asOf: number) { rows.append($0) }
                    #expect(rows == snapshot, "as of \(number) after \(steps)")
                }
            }
            #expect(try store.read { snapshot in
                try ViewMaintainer(entities: store.entities).verify(try snapshot.view(named: "fireball_by_year"), in: snapshot)
            }.isEmpty)
        }
    }
}
