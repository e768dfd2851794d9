import ImporterFeeds

/// Which optional fields a feed has shown it supplies (see `MappedFeed`).
struct Presence {
    /// Slots not yet seen in any record, while deciding.
    private(set) var unseen: Set<Int>
    private(set) var isDeciding: Bool
    /// Slots settled as not supplied.
    private(set) var dropped: Set<Int> = []
    /// Per dropped slot, records that had it after the decision.
    private(set) var late: [Int: Int] = [:]

    init(waitingFor slots: [Int]) {
        unseen = Set(slots)
        isDeciding = !slots.isEmpty
    }

    var isSettled: Bool { unseen.isEmpty }

    @inline(__always)
    mutating func observe(_ record: RawRecord) {
        if isDeciding {
            guard !unseen.isEmpty else { return }
            for slot in unseen where record.slots[slot].kind != .absent { unseen.remove(slot) }
        } else if !dropped.isEmpty {
            for slot in dropped where record.slots[slot].kind != .absent { late[slot, default: 0] += 1 }
        }
    }

    /// Marks `slots` as seen: the feed supplies them.
    mutating func markSeen(_ slots: Set<Int>) {
        unseen.subtract(slots)
    }

    mutating func settle() {
        dropped = unseen
        isDeciding = false
    }
}
