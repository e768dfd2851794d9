import Foundation
import ImporterModel
import ImporterSupport

/// Sorts a feed's held batches into runs and writes them to a `SpillFile` on a thread of its own,
/// one run at a time, while the caller goes on holding the next: the spill of a run overlaps the
/// reading of the feed, where spilling on the caller's thread stopped the feed's reader each time
/// its queue filled (figures: Docs/PERFORMANCE.md).
///
/// - Ownership: `spill` hands a run's batches over; the spiller's thread owns them and the file
///   until the run is written, and the caller touches neither before the next `spill` or
///   `finish` returns (both wait for the run in progress first).
/// - Errors: a run's write error (a full disk) is thrown by the next `spill` or by `finish`.
///
/// Safe unchecked: its state is a `Monitor`; `file`, the one other thing its thread touches, is
/// touched by one thread at a time, as the ownership rule above says (`spill` and `finish` wait
/// for the run in progress before the caller may use it again).
final class RunSpiller: @unchecked Sendable {
    private struct State {
        var writing = false
        var runs: [SortedRun] = []
        var failure: SpillError?
    }

    /// Touched only by the thread writing a run, or by the caller while none is.
    let file: SpillFile
    private let state = Monitor(State())

    init(file: SpillFile) {
        self.file = file
    }

    /// Starts writing `batches` as a run once the previous run is written.
    func spill(_ batches: consuming [RecordBatch]) throws(SpillError) {
        try waitForRun()
        state.withLock { $0.writing = true }
        let thread = Thread { [self, batches] in
            do throws(SpillError) {
                let run = try SortedRun.write(batches, order: Self.order(batches), to: file)
                state.withLock {
                    $0.runs.append(run)
                    $0.writing = false
                }
            } catch {
                state.withLock {
                    $0.failure = error
                    $0.writing = false
                }
            }
        }
        thread.name = "importer run spiller"
        thread.start()
    }

    /// Every run, in the order spilled, once the last is written.
    func finish() throws(SpillError) -> [SortedRun] {
        try waitForRun()
        return state.withLock { $0.runs }
    }

    /// Waits until no run is being written; throws a run's failure.
    private func waitForRun() throws(SpillError) {
        let failure = state.wait { state -> SpillError?? in state.writing ? nil : .some(state.failure) }
        if let failure { throw failure }
    }

    /// The records of `batches` in key order, records of equal key in feed order: each a batch's
    /// index in the high 32 bits and a record's in the low.
    static func order(_ batches: [RecordBatch]) -> [UInt64] {
        let kind = KeyPrefix.kind(of: batches)
        var order: [(prefix: KeyPrefix, reference: UInt64)] = []
        order.reserveCapacity(batches.reduce(0) { $0 + $1.count })
        for (index, batch) in batches.enumerated() {
            batch.arena.withUnsafeBufferPointer { arena in
                for record in 0..<batch.count {
                    order.append((KeyPrefix(batch, record, kind: kind, arena: arena.baseAddress ?? emptyBytes), UInt64(index) << 32 | UInt64(record)))
                }
            }
        }
        batches.withUnsafeBufferPointer { batches in
            order.sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let order = RecordBatch.compareKeys(batches[Int(a.reference >> 32)], Int(a.reference & 0xFFFF_FFFF),
                                                    batches[Int(b.reference >> 32)], Int(b.reference & 0xFFFF_FFFF))
                return order != 0 ? order < 0 : a.reference < b.reference
            }
        }
        return order.map(\.reference)
    }
}
