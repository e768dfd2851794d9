import ImporterModel

/// Records rejected for one of their children. A record is one tree with its children (and
/// theirs): a bad child, at any depth, rejects its record, which then writes neither itself nor
/// any of its children, and a sync keeps what the store holds of it.
///
/// Children are read after their record (`ImportSession.withChildren`), so a bad child is met once
/// its record is written. The attempt that meets one reads on without storing rejects
/// (`RunRejects.scouting`) to learn every such record, is rolled back, and the run reads its feeds
/// again withholding them: the cost of a bad child is a second reading, paid only when there is one.
struct RejectedChildren: Sendable {
    /// Per feed of records (its index among the run's feeds): the record indices withheld this
    /// attempt, learnt from the one before.
    var withheld: [Int: Set<Int>] = [:]
    /// The records found to have a rejected child this attempt, not withheld: what the next
    /// attempt withholds.
    private(set) var found: [Int: Set<Int>] = [:]
    /// Withheld records whose own reject has been recorded this attempt (once per record).
    private var reported: [Int: Set<Int>] = [:]
    /// The feed of records the children being read belong to, and its entity.
    var recordFeed = 0
    var recordEntity = ""

    init(withholding withheld: [Int: Set<Int>]) {
        self.withheld = withheld
    }

    /// Only the first attempt learns: a later one keeps the stored children of a parent whose
    /// child it rejects (as a feed that cannot be read again would).
    var learns: Bool { withheld.isEmpty }

    /// The withheld records of the feed being read.
    var withheldRecords: Set<Int> { withheld[recordFeed] ?? [] }

    /// What follows `reject`, a child's of record `index`: whether the attempt must be read again
    /// (the record is not yet withheld), and the record's own reject, the first time one of its
    /// withheld children is rejected.
    mutating func childRejected(_ reject: Reject, record index: Int) -> (again: Bool, recordReject: Reject?) {
        if withheld[recordFeed]?.contains(index) == true {
            guard reported[recordFeed, default: []].insert(index).inserted else { return (false, nil) }
            let what = reject.attribute.map { "\(reject.entity).\($0)" } ?? reject.entity
            return (false, Reject(location: reject.location, entity: recordEntity, attribute: nil,
                                  reason: "rejected with its children: its \(what) was rejected (\(reject.reason))", rawValue: nil))
        }
        guard learns else { return (false, nil) }
        found[recordFeed, default: []].insert(index)
        return (true, nil)
    }
}
