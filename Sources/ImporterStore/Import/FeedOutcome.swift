import ImporterModel
import ImporterSupport

/// What writing a feed came to (`FeedWriter.finish`).
public struct FeedOutcome: Sendable {
    /// The repeated keys met while writing (a store that stages records finds them when applying).
    public var duplicates = DuplicateLog()
    /// Seconds spent writing (`upsert`) and putting the feed in key order (`sort`).
    public var phases = PhaseTimes()

    public init(duplicates: DuplicateLog = DuplicateLog(), phases: PhaseTimes = PhaseTimes()) {
        self.duplicates = duplicates
        self.phases = phases
    }
}
