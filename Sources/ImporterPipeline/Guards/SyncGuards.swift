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
    /// Entities whose deletes are guarded in every run (children).
    private let children: Set<String>

    /// `recordCount`: how many records an entity holds (asked for a sync, and for `children`).
    init(options: ImportOptions, entities: [EntityDescription], children: Set<String> = [], recordCount: (EntityDescription) throws -> Int) throws {
        self.options = options
        self.children = children
        for entity in entities where options.sync || children.contains(entity.name) { stored[entity.name] = try recordCount(entity) }
    }

    /// Notes a feed once read: `records` read from it, rejected ones included.
    func feedRead(source: String, entity: String, records: Int) {
        if options.sync, records == 0 { emptyFeeds.append((source, entity)) }
    }

    /// Why the run must not commit, given the records it deleted per entity (empty: it may).
    func refusals(deleted: [(entity: String, count: Int)]) -> [Refusal] {
        var reasons: [Refusal] = []
        if options.sync, !options.allowEmpty {
            for feed in emptyFeeds {
                let held = stored[feed.entity] ?? 0
                guard held > 0 else { continue }
                reasons.append(.emptyFeed(source: feed.source, entity: feed.entity, held: held))
            }
        }
        for (entity, count) in deleted where options.sync || children.contains(entity) {
            let held = stored[entity] ?? 0
            let limit = options.maxDelete.limit(stored: held)
            guard count > limit else { continue }
            let percent = held > 0 ? Int((Double(count) * 100 / Double(held)).rounded()) : 100
            reasons.append(.tooManyDeletes(entity: entity, count: count, held: held, percent: percent, bound: options.maxDelete, limit: limit))
        }
        return reasons
    }
}
