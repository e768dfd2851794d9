import Foundation
import ImporterHistory
import ImporterModel
import ImporterPipeline
import ImporterStore
import ImporterSupport

/// Everything a report shows, read from the history tables: one run (its transaction, or none when
/// nothing changed) or a range of transactions (`history`, `report`, a consumer's pending changes).
///
/// Reports never use the in-memory state of a run (but for the counts of a run that changed
/// nothing), so a report of an old range is the same as the one printed at the time.
public struct ReportContent {
    /// What a report is of; its text, JSON and NDJSON forms follow the run or the history contract.
    public enum Kind: Sendable {
        case run
        case range
    }

    public var kind: Kind
    public var title: String
    /// The transactions shown, oldest first (authors excluded by the filter left out); a run's
    /// transaction, or none when it changed nothing.
    public var transactions: [HistoryTransaction]
    public var totals: ChangeCounts
    public var entities: [(String, ChangeCounts)]
    /// What a run did to each derived view.
    public var views: [ViewEffect]
    public var rejects: [Reject]
    public var warnings: [String]
    /// Why the run was refused (a sync guard); nothing was written.
    public var errors: [String]
    public var filter: ChangeFilter
    /// A dry run: nothing was written, so the transaction shown has no token (renderers say so
    /// and print none).
    public var dryRun = false
    /// A run whose feeds are all URLs that had not changed since their last import.
    public var notModified = false
    /// The windows a windowed sync covered (`sync: {scope: …}`).
    public var syncWindows: [SyncWindow] = []
    /// The last transaction a range report covers (nil for a run): views shown beside it are as
    /// of the store's head, which a report of an older range says.
    public var through: Int64?
    /// The parents of child records (the store's relationships): the text report lists a child's
    /// change under its parent's, the JSON forms name its parent.
    public var parents: ChildParents = .none

    /// The report of a finished import of `sources` (the feeds as given) into the store at
    /// `storePath`, read from `snapshot`; a dry run's is marked as such and its transaction has no
    /// token; refusals name their remedies in `words`.
    public init(run result: ImportResult, storePath: String, in snapshot: StoreSnapshot, sources: [String] = [], dryRun: Bool = false,
                words: (Remedy) -> String = Remedy.plain) throws(StoreError) {
        var transaction = try result.transactionNumber.flatMap { number throws(StoreError) in try snapshot.transaction(number) }
        if dryRun { transaction?.token = "" }
        kind = .run
        let place = Self.place(storePath: storePath, sources: transaction?.sources ?? sources)
        if dryRun {
            title = "importer run: dry run — nothing was written (\(place))"
        } else if let transaction {
            title = "importer run: transaction \(transaction.number) (\(place))"
        } else if result.notModified {
            title = "importer run: not modified, nothing was read (\(place))"
        } else {
            title = result.refusals.isEmpty ? "importer run: no changes (\(place))" : "importer run: refused, nothing was written (\(place))"
        }
        self.dryRun = dryRun
        notModified = result.notModified
        syncWindows = result.syncWindows
        transactions = transaction.map { [$0] } ?? []
        totals = transaction?.totals ?? result.totals
        entities = transaction?.entities ?? result.entities
        views = result.views
        rejects = result.rejects
        warnings = result.warnings
        errors = result.refusals.map { $0.message(words) }
        filter = .all
        parents = ChildParents(try snapshot.records.registeredRelationships())
    }

    /// The report of the transactions `after < number <= through`, through `filter`, of the store
    /// at `storePath`, read from `snapshot`.
    public init(storePath: String, after: Int64, through: Int64, filter: ChangeFilter = .all, title: String? = nil,
                in snapshot: StoreSnapshot) throws {
        kind = .range
        transactions = try snapshot.transactions(after: after, through: through).filter { filter.includes(author: $0.author) }
        var perEntity: [String: ChangeCounts] = [:]
        for transaction in transactions {
            for (name, counts) in transaction.entities where filter.includes(entity: name) {
                perEntity[name, default: ChangeCounts()] = perEntity[name, default: ChangeCounts()] + counts
            }
        }
        entities = perEntity.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        // The filter's entities only (a transaction's totals are the sum over all of its entities).
        totals = entities.reduce(ChangeCounts()) { $0 + $1.1 }
        views = []
        rejects = []
        warnings = []
        errors = []
        self.filter = filter
        self.through = through
        parents = ChildParents(try snapshot.records.registeredRelationships())
        let place = Self.place(storePath: storePath, sources: transactions.flatMap(\.sources))
        self.title = title.map { "\($0) (\(Self.place(storePath: storePath, sources: [])))" } ?? (transactions.isEmpty ? "importer history: no transactions (\(place))"
            : "importer history: transactions \(transactions.first?.number ?? 0)–\(transactions.last?.number ?? 0) (\(place))")
    }

    /// Marks the report as a dry run's: its title says nothing was written, and its transactions
    /// (rolled back) lose their tokens.
    public mutating func markDryRun(title: String) {
        dryRun = true
        self.title = title
        for index in transactions.indices { transactions[index].token = "" }
    }

    /// `fireballs.sqlite from fireball-2024.json, fireball-2026.json`: the store's file name and
    /// the feeds' (each once, standard input as `standard input`, at most three then how many more).
    static func place(storePath: String, sources: [String]) -> String {
        var names: [String] = []
        for source in sources {
            let name = source == "-" ? "standard input" : URL(fileURLWithPath: source).lastPathComponent
            if !names.contains(name) { names.append(name) }
        }
        let storeName = URL(fileURLWithPath: storePath).lastPathComponent
        guard !names.isEmpty else { return storeName }
        let shown = names.prefix(3).joined(separator: ", ")
        return "\(storeName) from \(shown)\(names.count > 3 ? " and \(names.count - 3) more" : "")"
    }

    /// The timeline of the records of `entity` whose key ever was `key` (its values joined with
    /// ", "): every kept transaction that changed them, re-keys included, with only their changes;
    /// and those of their children (`children`: the child entities whose key begins with
    /// `entity`'s), whose keys begin with `key`.
    public init(storePath: String, timelineOf key: String, entity: EntityDescription, children: [String] = [], in snapshot: StoreSnapshot) throws {
        let head = try snapshot.history.lastTransactionNumber()
        let after = try snapshot.history.purgedThrough()
        var records: [String: Set<Int64>] = [:]
        var numbers = Set<Int64>()
        var counts: [String: ChangeCounts] = [:]
        let names = [entity.name] + children
        try snapshot.forEachChange(after: after, through: head, filter: ChangeFilter(entities: names)) { change in
            let own = change.entity == entity.name
            if own ? change.keyDescription == key || (change.isRekey && change.previousKeyDescription == key) : change.keyDescription.hasPrefix(key + ", ") {
                records[change.entity, default: []].insert(change.recordID)
            }
        }
        let filter = ChangeFilter(entities: names, records: records.isEmpty ? [entity.name: []] : records)
        if !records.isEmpty {
            try snapshot.forEachChange(after: after, through: head, filter: filter) { change in
                numbers.insert(change.transactionNumber)
                switch change.type {
                case .insert: counts[change.entity, default: ChangeCounts()].inserted += 1
                case .update:
                    counts[change.entity, default: ChangeCounts()].updated += 1
                    if change.isRekey { counts[change.entity, default: ChangeCounts()].rekeyed += 1 }
                case .delete: counts[change.entity, default: ChangeCounts()].deleted += 1
                }
            }
        }
        try self.init(storePath: storePath, after: after, through: head, filter: filter, title: "importer history: \(entity.name) \(key)",
                      in: snapshot)
        transactions = transactions.filter { numbers.contains($0.number) }
        entities = names.filter { $0 == entity.name || counts[$0] != nil }.map { ($0, counts[$0] ?? ChangeCounts()) }
        totals = entities.reduce(ChangeCounts()) { $0 + $1.1 }
    }

    /// Streams the changes the report shows (the first `limit` of them), each with its transaction.
    public func forEachChange(in snapshot: StoreSnapshot, limit: Int? = nil, _ body: (Change, HistoryTransaction) throws -> Void) throws {
        try snapshot.forEachChange(in: transactions, filter: filter, limit: limit, body)
    }

    /// Streams the report's transactions with their changes: `begin` for each transaction (those
    /// without changes too), `change` for each of its changes, `end` after them.
    public func forEachTransaction(in snapshot: StoreSnapshot, begin: (HistoryTransaction) throws -> Void,
                                   change: (Change, HistoryTransaction) throws -> Void, end: (HistoryTransaction) throws -> Void) throws {
        var begun = 0
        // Begins (and ends the one before) each transaction up to the one numbered `number`.
        func advance(to number: Int64) throws {
            while begun < transactions.count, begun == 0 || transactions[begun - 1].number < number {
                if begun > 0 { try end(transactions[begun - 1]) }
                try begin(transactions[begun])
                begun += 1
            }
        }
        try forEachChange(in: snapshot) { item, transaction in
            try advance(to: transaction.number)
            try change(item, transaction)
        }
        try advance(to: .max)
        if begun > 0 { try end(transactions[begun - 1]) }
    }
}
