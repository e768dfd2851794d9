/// A value handed to a thread of its own (a feed to read, runs to merge or to write), which takes
/// it once and then holds the only copy, so that its arrays are mutated in place, not copied.
/// Safe unchecked: whoever creates it hands it to one thread, the only one to call `take`, and
/// touches neither it nor the value's storage until that thread is done (FeedReadAhead: the end
/// of the feed is posted, or the queue cancelled for good; RunSpiller: the run is written).
final class Handoff<Value>: @unchecked Sendable {
    private var value: Value?

    init(_ value: consuming Value) { self.value = value }

    func take() -> Value? {
        var taken: Value?
        swap(&taken, &value)
        return taken
    }
}
