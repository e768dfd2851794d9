import Foundation
import ImporterModel
import ImporterStore

/// Rejected records kept in the store, tagged with the run that met them. A run gets a number only
/// when it keeps rejects, so a run that changes nothing and rejects nothing writes nothing.
public struct RejectStore {
    public typealias RunSummary = RejectRunSummary
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// The runs that kept rejects, oldest first.
    public func runs() throws -> [RunSummary] { try store.backend.rejectRuns() }

    /// The rejects of a run (the latest when nil), in the order they were met.
    public func rejects(run: Int64?) throws -> (run: Int64?, rejects: [Reject]) { try store.backend.rejects(run: run) }

    /// Deletes the rejects of one run, or all; returns how many. Call inside a write transaction.
    public func clear(run: Int64?) throws -> Int { try store.backend.clearRejects(run: run) }
}
