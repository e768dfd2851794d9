import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
@testable import ImporterStore
@testable import ImporterStoreSQLite
import PropertyBased
import Testing

/// Key drift: a re-timed record is one update of the stored record, when and only when the pairing
/// is unambiguous.
@Suite struct KeyDriftTests {
    private func row(_ date: String, energy: String = "1.0") -> String {
        #"["\#(date)","\#(energy)","0.1",null,null,null,null,null,null]"#
    }

    /// Imports `before`, then `after` with --sync; returns the second run's result and the store.
    private func sync(_ before: [String], _ after: [String], in directory: TemporaryDirectory,
                      model: Model = FireballModel.model) throws -> (ImportResult, Store) {
        let path = directory.path("s.sqlite")
        let store = try Store(path: path)
        func run(_ rows: [String], sync: Bool) throws -> ImportResult {
            let feed = try directory.write("feed-\(UUID().uuidString).json", fireballFeed(rows))
            var options = ImportOptions(author: "t", context: "test", sync: sync)
            options.maxDelete = .percent(100)
            return try ImportSession(store: store, model: model, options: options).run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
        }
        _ = try run(before, sync: false)
        return (try run(after, sync: true), store)
    }

    @Test func aKeyMovedWithinToleranceIsOneUpdateOfTheSameRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (result, store) = try sync([row("2023-04-11 14:52:09"), row("2024-01-01 00:00:00")],
                                       [row("2023-04-11 14:52:10", energy: "2.0"), row("2024-01-01 00:00:00")], in: directory)
        #expect(result.totals == ChangeCounts(updated: 1, unchanged: 1, rekeyed: 1))
        let changes = try store.read { try $0.changes(in: 2) }
        #expect(changes.count == 1)
        let change = try #require(changes.first)
        #expect(change.isRekey && change.recordID == 1)
        #expect(change.changed == [AttributeChange(attribute: "date", old: .text("2023-04-11 14:52:09"), new: .text("2023-04-11 14:52:10")),
                                   AttributeChange(attribute: "energy", old: .real(1.0), new: .real(2.0))])
        #expect(try fireballRows(directory.path("s.sqlite")).map { $0["id"] } == [.integer(1), .integer(2)])
        #expect(try store.read { snapshot in
            try ViewMaintainer(entities: store.entities).verify(try snapshot.view(named: "fireball_by_year"), in: snapshot)
        }.isEmpty)
    }

    @Test func beyondToleranceOrAmbiguousStaysADeleteAndAnInsert() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // 00:00:10 → 00:00:12 is beyond 1 s; 01:00:00 has two candidates (01:00:01 and 00:59:59).
        let (result, _) = try sync([row("2023-01-01 00:00:10"), row("2023-01-01 01:00:00")],
                                   [row("2023-01-01 00:00:12"), row("2023-01-01 01:00:01"), row("2023-01-01 00:59:59")], in: directory)
        #expect(result.totals == ChangeCounts(inserted: 3, deleted: 2))
    }

    @Test func anInsertedRecordWithTwoCandidatesIsNotPaired() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (result, _) = try sync([row("2023-01-01 00:00:00"), row("2023-01-01 00:00:02")], [row("2023-01-01 00:00:01")], in: directory)
        #expect(result.totals == ChangeCounts(inserted: 1, deleted: 2))
    }

    @Test func agreeOnAttributesMustBeEqual() throws {
        var model = FireballModel.model
        model.entities[0].drift = KeyDrift(attribute: "date", tolerance: 1, agree: ["energy"])
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (result, _) = try sync([row("2023-01-01 00:00:00", energy: "1.0"), row("2023-02-01 00:00:00", energy: "3.0")],
                                   [row("2023-01-01 00:00:01", energy: "1.5"), row("2023-02-01 00:00:01", energy: "3.0")],
                                   in: directory, model: model)
        #expect(result.totals == ChangeCounts(inserted: 1, updated: 1, deleted: 1, rekeyed: 1))
    }

    @Test func incrementalRunsReconcileOnlyWhenTheRuleSaysAlways() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        func incremental(_ on: KeyDrift.When) throws -> ChangeCounts {
            var model = FireballModel.model
            model.entities[0].drift = KeyDrift(attribute: "date", tolerance: 1, on: on)
            let path = directory.path("\(on).sqlite")
            let store = try Store(path: path)
            for rows in [[row("2023-04-11 14:52:09"), row("2024-01-01 00:00:00")], [row("2023-04-11 14:52:10")]] {
                let feed = try directory.write("feed-\(UUID().uuidString).json", fireballFeed(rows))
                let result = try ImportSession(store: store, model: model, options: ImportOptions(author: "t", context: "test"))
                    .run([FeedInput(path: feed, mapping: FireballModel.apiFeed)])
                if rows.count == 1 { return result.totals }
            }
            return ChangeCounts()
        }
        #expect(try incremental(.sync) == ChangeCounts(inserted: 1))
        #expect(try incremental(.always) == ChangeCounts(updated: 1, rekeyed: 1))
    }

    /// The sweep pairs exactly as the quadratic definition does.
    @Test func pairingMatchesTheDefinition() async {
        await propertyCheck(input: Gen.int(in: 0...40).array(of: 0...30), Gen.int(in: 0...40).array(of: 0...30)) { gonePositions, newPositions in
            let gone = gonePositions.enumerated().map { KeyDriftPairing.Candidate(id: Int64($0.offset), position: Double($0.element), match: []) }
                .sorted { $0.position < $1.position }
            let new = newPositions.enumerated().map { KeyDriftPairing.Candidate(id: Int64(100 + $0.offset), position: Double($0.element), match: []) }
                .sorted { $0.position < $1.position }
            let swept = KeyDriftPairing.pairs(gone, new, tolerance: 1).map { [$0.0.id, $0.1.id] }
            var expected: [[Int64]] = []
            for g in gone {
                let candidates = new.filter { abs($0.position - g.position) <= 1 }
                guard candidates.count == 1, let n = candidates.first, gone.filter({ abs($0.position - n.position) <= 1 }).count == 1 else { continue }
                expected.append([g.id, n.id])
            }
            #expect(swept == expected)
        }
    }

    /// A drifting attribute that does not lead the key (no index range): the stored records are
    /// scanned instead, with the same pairs.
    @Test func aDriftingSecondKeyAttributeIsReconciledByAScan() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try ModelFile.parse("""
            entities:
            - name: Reading
              key: [station, at]
              drift: {attribute: at, tolerance: 2}
              attributes:
              - {name: station, type: text, required: true}
              - {name: at, type: integer, required: true}
              - {name: value, type: real}
            feeds:
            - name: readings
              entity: Reading
              format: ndjson
              fields:
              - {attribute: station, field: station}
              - {attribute: at, field: at}
              - {attribute: value, field: value}
            """, name: "readings.yaml")
        let store = try Store(path: directory.path("s.sqlite"))
        func run(_ lines: [String], sync: Bool) throws -> ChangeCounts {
            let path = try directory.write("r-\(UUID().uuidString).ndjson", lines.joined(separator: "\n") + "\n")
            var options = ImportOptions(author: "t", context: "test", sync: sync)
            options.maxDelete = .percent(100)
            return try ImportSession(store: store, model: model, options: options).run([FeedInput(path: path, mapping: model.feeds[0])]).totals
        }
        _ = try run([#"{"station":"a","at":100,"value":1}"#, #"{"station":"b","at":100,"value":2}"#], sync: false)
        // a moves by 1 (paired); b's only candidate is a's new record, but it belongs to another station.
        let counts = try run([#"{"station":"a","at":101,"value":1}"#, #"{"station":"b","at":150,"value":2}"#], sync: true)
        #expect(counts == ChangeCounts(inserted: 1, updated: 1, deleted: 1, rekeyed: 1))
    }

    @Test func storedRangesBoundTheTolerance() {
        let drift = KeyDrift(attribute: "date", tolerance: 1)
        let position = DateTimeFormat.secondsSinceEpoch(storedUTC: "2023-04-11 14:52:09") ?? 0
        #expect(drift.storedRange(around: position, type: .datetime)?.0 == .text("2023-04-11 14:52:08"))
        #expect(drift.storedRange(around: position, type: .datetime)?.1 == .text("2023-04-11 14:52:10"))
        #expect(KeyDrift(attribute: "d", tolerance: 86400).storedRange(around: 0, type: .date)?.0 == .text("1969-12-31"))
        #expect(drift.storedRange(around: 10.5, type: .integer)?.0 == .integer(9))
        #expect(drift.storedRange(around: 10.5, type: .text) == nil)
        for seconds in [-86401, -1, 0, 1, 951_782_400, 1_700_000_000] {
            #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: DateTimeFormat.storedUTC(secondsSinceEpoch: seconds, dateOnly: false)) == Double(seconds))
        }
    }

    @Test func toleranceTextRoundTrips() {
        #expect(KeyDrift.tolerance(parsing: "1s") == 1)
        #expect(KeyDrift.tolerance(parsing: "2m") == 120)
        #expect(KeyDrift.tolerance(parsing: "1.5h") == 5400)
        #expect(KeyDrift.tolerance(parsing: "0.25") == 0.25)
        for bad in ["", "0s", "-1", "1w", "s"] { #expect(KeyDrift.tolerance(parsing: bad) == nil, "\(bad)") }
        #expect(KeyDrift(attribute: "date", tolerance: 120).toleranceText(for: .datetime) == "2m")
        #expect(KeyDrift(attribute: "date", tolerance: 1).toleranceText(for: .datetime) == "1s")
        #expect(KeyDrift(attribute: "n", tolerance: 0.5).toleranceText(for: .real) == "0.5")
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "1970-01-02 00:00:01") == 86401)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "1970-01-02") == 86400)
        #expect(DateTimeFormat.secondsSinceEpoch(storedUTC: "yesterday") == nil)
    }

    @Test func aDriftRuleMustNameAKeyAttributeOfATypeThatCanMove() throws {
        let yaml = try String(contentsOfFile: sample("models/fireball.yaml"), encoding: .utf8)
        let moved = yaml.replacingOccurrences(of: "  drift:\n    attribute: date\n    tolerance: \"1s\"\n", with: "  drift:\n    attribute: energy\n    tolerance: \"soon\"\n")
        #expect(moved != yaml)
        do {
            _ = try ModelFile.parse(moved, name: "m.yaml")
            Issue.record("expected a model problem")
        } catch {
            #expect("\(error)".contains("'soon' is not a tolerance"), "\(error)")
        }
        let notKey = yaml.replacingOccurrences(of: "    attribute: date\n    tolerance", with: "    attribute: energy\n    tolerance")
        #expect(throws: ModelError.self) { try ModelFile.parse(notKey, name: "m.yaml") }
        #expect(try ModelFile.parse(yaml, name: "m.yaml").entities[0].drift == KeyDrift(attribute: "date", tolerance: 1))
        let always = yaml.replacingOccurrences(of: "    tolerance: \"1s\"\n", with: "    tolerance: \"2m\"\n    on: always\n")
        #expect(try ModelFile.parse(always, name: "m.yaml").entities[0].drift == KeyDrift(attribute: "date", tolerance: 120, on: .always))
    }

    @Test func aSchemaOneStoreIsMigratedAndItsHistoryKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        try importFeeds([sample("fireball-2024.json")], into: path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("ALTER TABLE importer_transaction DROP COLUMN rekeyed; ALTER TABLE importer_transaction_entity DROP COLUMN rekeyed; PRAGMA user_version = 1")
        // Schema 1's change table had the legacy names of importer's own columns.
        for rename in ChangeColumns.legacyRenames(attributes: FireballModel.entity.attributes.map(\.name)) {
            try connection.execute(#"ALTER TABLE importer_change_fireball RENAME COLUMN "\#(rename.to)" TO "\#(rename.from)""#)
        }
        let readOnly = try Store(path: path, options: Store.Options(create: false, readOnly: true))
        #expect(try readOnly.read { try $0.transactions() }.map(\.totals.inserted) == [10])
        let store = try Store(path: path)
        #expect(try connection.integer("PRAGMA user_version") == 4)
        #expect(try store.read { try $0.transactions() }.map(\.totals.inserted) == [10])
        _ = try importFeeds([sample("fireball-2026.json")], into: path, sync: true)
        #expect(try store.read { try $0.transactions() }.map(\.totals.rekeyed) == [0, 1])
    }
}
