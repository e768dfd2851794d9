import ImporterModel
import ImporterStore

/// Closing a child entity: its parents' arrays are snapshots of their children, and its parents'
/// deletes follow the relationship's delete rule.
extension ImportSession {
    /// The feeds, each followed by the feeds of its children (`Model.childFeeds`): the same
    /// document read again, so a feed with children must be a file (a URL's body is one).
    func withChildren(_ feeds: [FeedInput]) throws(ImportError) -> [FeedInput] {
        var all: [FeedInput] = []
        for var feed in feeds {
            feed.childLists = model.childListPaths(of: feed.mapping)
            all.append(feed)
            let children = model.childFeeds(of: feed.mapping)
            if !children.isEmpty, feed.path == "-" {
                throw .childrenFromStandardInput(feed: feed.mapping.name)
            }
            for mapping in children {
                var child = feed
                child.mapping = mapping
                all.append(child)
            }
        }
        return all
    }

    /// Deletes the children the run's parents no longer list (not those of parents whose array
    /// the feeds left out), then applies the delete rule to the children of the parents the run
    /// deleted (by `--sync`, or as children of their own parents).
    func closeChildren(_ child: EntityDescription, of parent: EntityDescription, _ relationship: Relationship,
                       plan: ImportPlan, ledger: inout ImportLedger) throws {
        let kept = ledger.keptParents[child.name] ?? []
        do {
            let snapshot = try ledger.phases.time("sync deletes") { try plan.transaction.deleteChildrenNotWritten(child, parent: parent, keeping: kept) }
            ledger.deleted[child.name, default: 0] += snapshot
            // A re-keyed parent's children that its list under the new key no longer holds stay
            // under its old key: orphans, deleted as a deleted parent's are (kept by nullify).
            let parentDeleted = (ledger.deleted[parent.name] ?? 0) > 0, parentRekeyed = (ledger.rekeyed[parent.name] ?? 0) > 0
            guard parentRekeyed || parentDeleted, relationship.deleteRule != .nullify else { return }
            let orphans = try ledger.phases.time("sync deletes") { try plan.transaction.deleteOrphans(child, parent: parent) }
            ledger.deleted[child.name, default: 0] += orphans
            if relationship.deleteRule == .deny, parentDeleted, orphans > 0 {
                ledger.refusals.append(.deniedDelete(parent: parent.name, relationship: relationship.name, child: child.name, children: orphans))
            }
        } catch {
            throw refusedWrite(error, what: "the deletes of \(child.name) (children their parents no longer list)")
        }
    }
}
