import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// Rejected records kept in the store, tagged with the run that met them. A run gets a number only
/// when it keeps rejects, so a run that changes nothing and rejects nothing writes nothing. Read
/// through the caller's snapshot, cleared in its write transaction.
extension StoreSnapshot {
    /// The runs that kept rejects, oldest first.
    public func rejectRuns() throws -> [RejectRunSummary] { try rejects.rejectRuns() }

    /// The rejects of a run (the latest when nil), in the order they were met. A run that kept no
    /// rejects (or does not exist) is `UnknownRejectRun`.
    public func rejects(ofRun run: Int64?) throws -> (run: Int64?, rejects: [Reject]) {
        let found = try rejects.rejects(run: run)
        if let run, found.rejects.isEmpty { throw UnknownRejectRun(run: run) }
        return found
    }
}

extension StoreWriteTransaction {
    /// Deletes the rejects of one run, or all; returns how many.
    public func clearRejects(run: Int64?) throws -> Int { try rejects.clearRejects(run: run) }
}
