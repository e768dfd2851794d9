/// What a feed mapping does with a record whose unique key an earlier record of the same feed
/// already had (`duplicates:` in a model file). Every such record is named, with both locations,
/// whatever the choice: in the run's warnings, or as a reject.
///
/// A key met again in another feed of the run is a merge, not a duplicate of the feed: the later
/// feed's values win for the attributes it supplies (feeds that each supply part of a record).
public enum DuplicateKeys: String, Sendable, Equatable, CaseIterable {
    /// The last occurrence's values are stored (the default, as an upsert would).
    case last
    /// The first occurrence's values are stored; later ones are dropped.
    case first
    /// The first occurrence is stored; each later one is rejected (and counts toward
    /// `--max-rejects`).
    case reject
}

/// A record of a feed, by the feed's place in the run and the record's index in the feed.
///
/// Stores keep the first occurrence of every key written in a run in this form (`packed`: 8
/// bytes), so a duplicate can name where its key was first met.
public struct FeedRecord: Sendable, Equatable {
    /// The feed's index among the run's feeds.
    public var feed: Int
    /// The record's 0-based index in the feed (rejected records counted).
    public var recordIndex: Int
    /// Its 1-based line and column, when kept (the later occurrence's always is).
    public var line: Int?
    public var column: Int?

    public init(feed: Int, recordIndex: Int, line: Int? = nil, column: Int? = nil) {
        self.feed = feed
        self.recordIndex = recordIndex
        self.line = line
        self.column = column
    }

    /// Feed and record index in one positive integer: the feed in the high 23 bits, the record
    /// index in the low 40 (a trillion records).
    public var packed: Int64 { Int64(feed & 0x7F_FFFF) << 40 | Int64(recordIndex & 0xFF_FFFF_FFFF) }

    public init(packed: Int64) {
        self.init(feed: Int(packed >> 40), recordIndex: Int(packed & 0xFF_FFFF_FFFF))
    }

    /// Line and column in one integer (line in the high 32 bits, column in the low 32).
    public var packedPosition: Int64 {
        Int64(bitPattern: UInt64(UInt32(truncatingIfNeeded: line ?? 0)) << 32 | UInt64(UInt32(truncatingIfNeeded: column ?? 0)))
    }

    /// Sets line and column from `packedPosition`'s form (0 stays unknown).
    public mutating func unpackPosition(_ value: Int64) {
        let line = Int(UInt64(bitPattern: value) >> 32), column = Int(UInt64(bitPattern: value) & 0xFFFF_FFFF)
        self.line = line > 0 ? line : nil
        self.column = column > 0 ? column : nil
    }
}

/// A record whose unique key an earlier record of the run already had, and what became of it.
public struct DuplicateRecord: Sendable, Equatable {
    public enum Resolution: String, Sendable {
        /// Same feed, `duplicates: last`: its values replaced the earlier ones.
        case lastKept = "last kept"
        /// Same feed, `duplicates: first`: dropped.
        case firstKept = "first kept"
        /// Same feed, `duplicates: reject`: dropped and rejected.
        case rejected
        /// Another feed: its supplied attributes were merged over the earlier record's.
        case merged
    }

    public var entity: String
    /// The unique key's values, in key order.
    public var key: [Value]
    /// Where the key was met before (within the feed: its first occurrence; for a merge: the
    /// earlier feed's); nil when the store could not tell.
    public var first: FeedRecord?
    public var later: FeedRecord
    public var resolution: Resolution

    public init(entity: String, key: [Value], first: FeedRecord?, later: FeedRecord, resolution: Resolution) {
        self.entity = entity
        self.key = key
        self.first = first
        self.later = later
        self.resolution = resolution
    }

    /// What happens to a record whose key `first` had already, for a batch of `feed` choosing `keys`.
    public static func resolution(first: FeedRecord?, laterFeed feed: Int, keys: DuplicateKeys) -> Resolution {
        guard first?.feed ?? feed == feed else { return .merged }
        switch keys {
        case .last: return .lastKept
        case .first: return .firstKept
        case .reject: return .rejected
        }
    }
}

extension DuplicateRecord {
    /// The repeats among the occurrences of one key, in feed order (`occurrences`), after the
    /// record `earlier` that first had it in the run (nil: the first occurrence is the first): each
    /// occurrence is a repeat of the key's first in its feed, and one in another feed starts over
    /// (a merge). `keys` gives each feed's choice.
    public static func chain(entity: String, key: [Value], earlier: FeedRecord?, occurrences: [FeedRecord],
                             keys: (Int) -> DuplicateKeys) -> [DuplicateRecord] {
        guard var first = earlier ?? occurrences.first else { return [] }
        var found: [DuplicateRecord] = []
        for later in occurrences.dropFirst(earlier == nil ? 1 : 0) {
            let resolution = Self.resolution(first: first, laterFeed: later.feed, keys: keys(later.feed))
            // A negative record index stands for an earlier record the store could not place.
            found.append(DuplicateRecord(entity: entity, key: key, first: first.recordIndex < 0 ? nil : first, later: later, resolution: resolution))
            if resolution == .merged { first = later }
        }
        return found
    }
}
