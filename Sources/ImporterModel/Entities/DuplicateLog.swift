/// The repeated keys a write met, as a value a store hands back (`FeedOutcome`): the earliest
/// `named` of those kept or merged, in feed order, with how many there were, and every rejected
/// one (each becomes one of the run's rejects, which are stored one by one anyway).
///
/// Invariant: `earliest` holds the `named` earliest by (feed, record index) of all appended ones
/// that were not rejected, whatever order they were appended or merged in.
public struct DuplicateLog: Sendable, Equatable {
    /// How many repeats are named one by one.
    public static let named = 10
    public private(set) var earliest: [DuplicateRecord] = []
    /// The repeats not rejected.
    public private(set) var count = 0
    public private(set) var rejected: [DuplicateRecord] = []

    public init() {}

    public var isEmpty: Bool { count == 0 && rejected.isEmpty }

    public mutating func append(_ duplicate: DuplicateRecord) {
        guard duplicate.resolution != .rejected else { return rejected.append(duplicate) }
        count += 1
        keep(duplicate)
    }

    /// Adds what `other` logged.
    public mutating func append(contentsOf other: DuplicateLog) {
        count += other.count
        for duplicate in other.earliest { keep(duplicate) }
        rejected += other.rejected
    }

    /// The rejected repeats, no longer kept here.
    public mutating func takeRejected() -> [DuplicateRecord] {
        defer { rejected = [] }
        return rejected
    }

    private mutating func keep(_ duplicate: DuplicateRecord) {
        let place = earliest.firstIndex { Self.precedes(duplicate, $0) } ?? earliest.endIndex
        guard place < Self.named else { return }
        earliest.insert(duplicate, at: place)
        if earliest.count > Self.named { earliest.removeLast() }
    }

    private static func precedes(_ a: DuplicateRecord, _ b: DuplicateRecord) -> Bool {
        (a.later.feed, a.later.recordIndex) < (b.later.feed, b.later.recordIndex)
    }
}
