import Foundation
import ImporterHistory
import ImporterStore

/// Text pieces shared by the text outputs.
public enum TextFormatting {
    public static func counts(_ c: ChangeCounts) -> String {
        "\(c.inserted) inserted, \(c.updated) updated, \(c.deleted) deleted, \(c.unchanged) unchanged, "
            + "\(c.duplicates) duplicate\(c.duplicates == 1 ? "" : "s"), \(c.rejected) rejected"
            + (c.rekeyed > 0 ? " (\(c.rekeyed) of the updates re-keyed)" : "")
    }

    /// `View fireball_by_year: 1 group inserted, 2 updated, 0 deleted (built)`.
    public static func viewEffect(_ effect: ViewEffect) -> String {
        "View \(effect.view): \(effect.insertedGroups) group\(effect.insertedGroups == 1 ? "" : "s") inserted, \(effect.updatedGroups) updated, \(effect.deletedGroups) deleted"
            + (effect.rebuilt ? " (built)" : "")
    }

    /// `mailer [external] token … (transaction 3), lag 1 transaction(s), 2 change(s), last replay …, filters`.
    public static func consumerLine(_ status: ConsumerStatus, purgedThrough: Int64) -> String {
        let consumer = status.consumer
        var line = "\(consumer.name) [\(consumer.kind.rawValue)] token \(status.token) (transaction \(consumer.tokenNumber))"
        if let lag = status.lag {
            line += ", lag \(lag.transactions) transaction(s), \(lag.changes) change(s)"
        } else {
            line += ", EXPIRED (history through \(purgedThrough) purged)"
        }
        line += ", last replay \(consumer.lastReplayAt ?? "never")"
        if !consumer.entities.isEmpty { line += ", entities \(consumer.entities.joined(separator: ","))" }
        if !consumer.attributes.isEmpty { line += ", attributes \(consumer.attributes.joined(separator: ","))" }
        if !consumer.excludedAuthors.isEmpty { line += ", excluding authors \(consumer.excludedAuthors.joined(separator: ","))" }
        return line
    }

    /// `  + key  a=1 b=2`, `  ~ key  a: 1 → 2`, `  - key  (tombstone)`; a child's key from its own
    /// part on (`ownKeyFrom`: how many of its key's values are its parent's), when listed under it.
    public static func changeLine(_ change: Change, ownKeyFrom first: Int = 0) -> String {
        let key = change.key.dropFirst(first).map { $0.1.description }.joined(separator: ", ")
        switch change.type {
        case .insert:
            let values = change.listedValues(includingKey: false).map { "\($0.0)=\($0.1)" }
            return "  + \(change.entity) \(key)  \(values.joined(separator: " "))"
        case .update:
            if change.isRekey {
                // `~ Fireball 2023-04-11 14:52:09 → 2023-04-11 14:52:10 (re-keyed)  energy: 1.9 → 2`
                let others = change.changed.filter { attribute in !change.key.contains { $0.0 == attribute.attribute } }
                let head = "  ~ \(change.entity) \(change.previousKeyDescription) → \(change.keyDescription) (re-keyed)"
                return others.isEmpty ? head : head + "  " + others.map { "\($0.attribute): \($0.old) → \($0.new)" }.joined(separator: "; ")
            }
            let changes = change.changed.map { "\($0.attribute): \($0.old) → \($0.new)" }
            return "  ~ \(change.entity) \(key)  \(changes.joined(separator: "; "))"
        case .delete:
            let tombstone = change.listedValues(includingKey: false).map { "\($0.0)=\($0.1)" }
            return "  - \(change.entity) \(key)  (\(tombstone.joined(separator: " ")))"
        }
    }
}
