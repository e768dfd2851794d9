import Foundation
import ImporterModel
import ImporterStore
import ImporterSupport

/// Rejected records kept in the store, tagged with the run that met them. A run gets a number only
/// when it keeps rejects, so a run that changes nothing and rejects nothing writes nothing. Reads
/// and clears through the handle it is given.
public struct RejectStore {
    public typealias RunSummary = RejectRunSummary

    public init() {}

    /// The runs that kept rejects, oldest first.
    public func runs(in snapshot: StoreSnapshot) throws -> [RunSummary] { try snapshot.rejects.rejectRuns() }

    /// The rejects of a run (the latest when nil), in the order they were met. A run that kept no
    /// rejects (or does not exist) is `UnknownRun`.
    public func rejects(run: Int64?, in snapshot: StoreSnapshot) throws -> (run: Int64?, rejects: [Reject]) {
        let found = try snapshot.rejects.rejects(run: run)
        if let run, found.rejects.isEmpty { throw UnknownRun(run: run) }
        return found
    }

    /// A run number that kept no rejects.
    public struct UnknownRun: Error, Sendable, CustomStringConvertible {
        public var run: Int64
        public var description: String { "no rejects kept for run \(run) (see importer rejects list)" }
    }

    /// Deletes the rejects of one run, or all, in `tx`; returns how many.
    public func clear(run: Int64?, in tx: StoreWriteTransaction) throws -> Int { try tx.rejects.clearRejects(run: run) }
}

extension RejectStore.UnknownRun: ExitStatusError {
    public var exitStatus: ExitStatus { .noInput }
}
