import Foundation
import ImporterModel

/// The guards of `--sync`: a snapshot that is not one (an empty answer, a truncated feed) must
/// never empty a store. A sync is refused when a feed holds no records while its entity holds some
/// (unless `--allow-empty`), or when it would delete more of an entity's records than
/// `--max-delete` allows. Child entities are guarded in every run, as their parents' arrays are
/// snapshots. Checked before the history transaction is written; the caller rolls the refused run
/// back.
final class SyncGuards {
    private let options: ImportOptions
    /// Records each entity held before the run (sync runs only).
    private var stored: [String: Int] = [:]
    private var emptyFeeds: [(source: String, entity: String)] = []
    /// Per windowed entity, the records of its window (`windowed`).
    private var windowHeld: [String: Int] = [:]
    /// Entities whose deletes are guarded in every run (children, and entities whose feeds marked
    /// records deleted), and how to count what they
    /// hold: asked only once such an entity deleted something (a run that deletes nothing does not
    /// count a large table).
    private var children: [String: EntityDescription]
    private let recordCount: (EntityDescription) throws -> Int

    /// `recordCount`: how many records an entity holds (asked before a sync, and after a run for
    /// `children` that deleted some).
    init(options: ImportOptions, entities: [EntityDescription], children: Set<String> = [], recordCount: @escaping (EntityDescription) throws -> Int) throws {
        self.options = options
        self.children = Dictionary(entities.filter { children.contains($0.name) }.map { ($0.name, $0) }) { first, _ in first }
        self.recordCount = recordCount
        for entity in entities where options.sync { stored[entity.name] = try recordCount(entity) }
    }

    /// A windowed sync of `entity`: its guards count the `held` records of the window (the run's
    /// inserts included, taken off when the deletes are weighed), not the whole entity's.
    func windowed(_ entity: String, held: Int) {
        windowHeld[entity] = held
    }

    /// `entity` deleted records its feeds marked deleted: its deletes are guarded in this run.
    func markedDeletes(of entity: EntityDescription) {
        children[entity.name] = entity
    }

    /// Notes a feed once read: `records` read from it, rejected ones included.
    func feedRead(source: String, entity: String, records: Int) {
        if options.sync, records == 0 { emptyFeeds.append((source, entity)) }
    }

    /// Why the run must not commit, given the records it deleted (and inserted) per entity (empty:
    /// it may).
    func refusals(deleted: [(entity: String, count: Int, inserted: Int)]) throws -> [Refusal] {
        var reasons: [Refusal] = []
        if options.sync, !options.allowEmpty {
            for feed in emptyFeeds {
                let held = windowHeld[feed.entity] ?? stored[feed.entity] ?? 0
                guard held > 0 else { continue }
                reasons.append(.emptyFeed(source: feed.source, entity: feed.entity, held: held))
            }
        }
        for (entity, count, inserted) in deleted where options.sync || (children[entity] != nil && count > 0) {
            let held = try windowHeld[entity].map { $0 - inserted } ?? stored[entity] ?? children[entity].map { try recordCount($0) + count - inserted } ?? 0
            let limit = options.maxDelete.limit(stored: held)
            guard count > limit else { continue }
            let percent = held > 0 ? Int((Double(count) * 100 / Double(held)).rounded()) : 100
            reasons.append(.tooManyDeletes(entity: entity, count: count, held: held, percent: percent, bound: options.maxDelete, limit: limit))
        }
        return reasons
    }
}
