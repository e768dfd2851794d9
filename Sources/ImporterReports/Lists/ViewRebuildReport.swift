import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport
import ImporterViews

/// `importer views rebuild`: what a rebuild built (records read, groups held) and how it differed
/// from the rows it replaced.
public struct ViewRebuildReport: ListReport {
    public var view: String
    public var entity: String
    public var records: Int
    public var groups: Int
    public var effect: ViewEffect
    /// The token of the transaction the view is now at.
    public var token: String

    public init(view: String, entity: String, records: Int, groups: Int, effect: ViewEffect, token: String) {
        self.view = view
        self.entity = entity
        self.records = records
        self.groups = groups
        self.effect = effect
        self.token = token
    }

    /// Rebuilds the view `name` over the store's `entities` in `tx` and reports it (tokens of the
    /// store `storeID`).
    public static func rebuild(_ name: String, storeID: UUID, entities: [EntityDescription], in tx: StoreWriteTransaction) throws -> ViewRebuildReport {
        let view = try tx.snapshot.view(named: name)
        let maintainer = ViewMaintainer(entities: entities)
        let effect = try maintainer.rebuild(view, in: tx)
        let records = try entities.first { $0.name == view.entity }.map { try tx.records.recordCount(of: $0) } ?? 0
        let groups = try maintainer.rows(view, in: tx.snapshot).rows.count
        return ViewRebuildReport(view: name, entity: view.entity, records: records, groups: groups, effect: effect,
                                 token: Token(storeID: storeID, transactionNumber: effect.throughTransaction).description)
    }

    public func renderText(to output: OutputSink) {
        output.write("Rebuilt \(view) from \(records) \(entity) record\(records == 1 ? "" : "s"): \(groups) group\(groups == 1 ? "" : "s") ")
        output.write("(\(effect.insertedGroups) inserted, \(effect.updatedGroups) updated, \(effect.deletedGroups) deleted against the rows it replaced), token at transaction \(effect.throughTransaction).\n")
    }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("view", view)
            json.field("entity", entity)
            json.field("records", records)
            json.field("groups", groups)
            json.field("inserted", effect.insertedGroups)
            json.field("updated", effect.updatedGroups)
            json.field("deleted", effect.deletedGroups)
            json.field("transaction", effect.throughTransaction)
            json.field("token", token)
            json.endObject()
        }
    }
}
