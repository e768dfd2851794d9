import ImporterModel
import ImporterStore

/// The records an import rejects, mapping's and repeated keys' alike: counted per entity, the
/// first 100 kept for the result, each written to the sink and stored with the run; one more
/// than `--max-rejects` allows ends the import (`ImportError.tooManyRejects`).
final class RunRejects {
    private(set) var counts: [String: Int] = [:]
    private(set) var first: [Reject] = []
    private let limit: Int
    private let sink: RejectSink?
    private let transaction: any ImportTransaction
    /// When the run started: the time each reject is stored with.
    private let startedAt = Timestamp.now()
    /// Set once the attempt is known to be rolled back and read again (`RejectedChildren`): rejects
    /// are still counted, not stored (the next attempt stores them), and the sink is told.
    var scouting = false {
        didSet { sink?.scouting = scouting }
    }

    init(limit: Int, sink: RejectSink?, transaction: any ImportTransaction) {
        self.limit = limit
        self.sink = sink
        self.transaction = transaction
    }

    func record(_ reject: Reject) throws {
        counts[reject.entity, default: 0] += 1
        let count = counts.values.reduce(0, +)
        if first.count < 100 { first.append(reject) }
        sink?.write(reject)
        if count > limit {
            throw ImportError.tooManyRejects(count: count, limit: limit, rejects: first)
        }
        if !scouting { try transaction.recordReject(reject, at: startedAt) }
    }
}
