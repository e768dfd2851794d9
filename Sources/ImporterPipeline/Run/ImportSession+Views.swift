import ImporterFetch
import ImporterModel
import ImporterStore
import ImporterViews

/// The end of an import's transaction: the fetched sources recorded, the views replayed.
extension ImportSession {
    /// Records what the store keeps of each fetched feed, in the import's transaction.
    func recordSources(_ fetched: [SourceFetch], transaction: Int64?, in tx: StoreWriteTransaction) throws {
        let now = Timestamp.now()
        for fetch in fetched {
            try tx.sources.recordSourceState(SourceState(
                url: fetch.url, etag: fetch.validators.etag, lastModified: fetch.validators.lastModified, sha256: fetch.validators.sha256,
                bytes: fetch.bytes, status: fetch.status, fetchedAt: now, transactionNumber: transaction))
        }
    }

    /// Builds the views this run created and replays the others through the new head; a view whose
    /// token expired is skipped with a warning (rebuilding it is the user's call). In the import's
    /// transaction `tx`.
    func replayViews(into result: inout ImportResult, created: [ViewDefinition], in tx: StoreWriteTransaction) throws {
        onPhase?(.views)
        let maintainer = ViewMaintainer(entities: store.entities)
        let views = try tx.snapshot.allViews()
        var warnings: [String] = []
        let replayed = try maintainer.replay(views.filter { view in !created.contains { $0.name == view.name } }, in: tx) { [logger] error in
            warnings.append("\(error)")
            logger.warning("\(error)")
        }
        let effects = replayed + (try maintainer.rebuild(created, in: tx))
        result.views = views.compactMap { view in effects.first { $0.view == view.name } }
        result.warnings += warnings
    }
}
