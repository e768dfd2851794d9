import ImporterModel

/// The repeated keys of a run (`DuplicateRecord`), turned into what the user reads: a reject for
/// each one a feed rejects (`duplicates: reject`), and warnings naming the others, key and both
/// places, the earliest `named` of them in feed order, then a count of the rest, per entity.
final class DuplicateNotes {
    /// How many repeats are named one by one, per entity.
    static let named = 10
    /// The feeds' source names, by index in the run.
    var sources: [String] = []
    /// Each entity's unique key attributes, to name a key's values.
    let keyNames: [String: [String]]
    private var earliest: [String: [DuplicateRecord]] = [:]
    private var counts: [String: Int] = [:]
    /// Entities in the order their first repeat was met.
    private var entities: [String] = []

    init(keyNames: [String: [String]]) {
        self.keyNames = keyNames
    }

    /// Keeps `duplicate` (not a rejected one) for the warnings.
    func note(_ duplicate: DuplicateRecord) {
        let entity = duplicate.entity
        if counts[entity] == nil { entities.append(entity) }
        counts[entity, default: 0] += 1
        var kept = earliest[entity] ?? []
        let place = kept.firstIndex { Self.precedes(duplicate, $0) } ?? kept.endIndex
        guard place < Self.named else { return }
        kept.insert(duplicate, at: place)
        if kept.count > Self.named { kept.removeLast() }
        earliest[entity] = kept
    }

    private static func precedes(_ a: DuplicateRecord, _ b: DuplicateRecord) -> Bool {
        (a.later.feed, a.later.recordIndex) < (b.later.feed, b.later.recordIndex)
    }

    /// The warnings, per entity: its earliest repeats named, then how many more.
    var warnings: [String] {
        entities.flatMap { entity -> [String] in
            let named = earliest[entity] ?? []
            var lines = named.map(describe)
            let more = (counts[entity] ?? 0) - named.count
            if more > 0 { lines.append("\(entity): \(more) more repeated key\(more == 1 ? "" : "s") not named (the first \(named.count) are)") }
            return lines
        }
    }

    /// The reject a feed choosing `duplicates: reject` gets for `duplicate`.
    func reject(_ duplicate: DuplicateRecord) -> Reject {
        Reject(location: location(duplicate.later), entity: duplicate.entity, attribute: nil,
               reason: "duplicate key \(keyText(duplicate)): \(earlier(duplicate)) has it (duplicates: reject keeps the first)", rawValue: nil)
    }

    private func describe(_ duplicate: DuplicateRecord) -> String {
        let outcome = switch duplicate.resolution {
        case .lastKept: "its values replace the earlier record's (duplicates: last)"
        case .firstKept: "dropped, the earlier record kept (duplicates: first)"
        case .rejected: "rejected (duplicates: reject)"
        case .merged: "its attributes merged over the earlier feed's record"
        }
        return "\(location(duplicate.later)): \(duplicate.entity) key \(keyText(duplicate)) repeats \(earlier(duplicate)); \(outcome)"
    }

    private func location(_ record: FeedRecord) -> SourceLocation {
        SourceLocation(source: source(record.feed), line: record.line ?? 0, column: record.column ?? 0, recordIndex: record.recordIndex)
    }

    private func earlier(_ duplicate: DuplicateRecord) -> String {
        guard let first = duplicate.first else { return "a record written earlier in the run" }
        // By record index only: stores keep a key's first place in 8 bytes, without its line.
        let place = "record \(first.recordIndex)"
        return first.feed == duplicate.later.feed ? "\(place) of the same feed" : "\(place) of \(source(first.feed))"
    }

    private func source(_ feed: Int) -> String {
        sources.indices.contains(feed) ? sources[feed] : "feed \(feed + 1)"
    }

    /// The key as `name=value` pairs (text quoted).
    private func keyText(_ duplicate: DuplicateRecord) -> String {
        let names = keyNames[duplicate.entity] ?? []
        return duplicate.key.enumerated().map { index, value -> String in
            let text = if case .text(let text) = value { "'\(text)'" } else { value.description }
            return names.indices.contains(index) ? "\(names[index])=\(text)" : text
        }.joined(separator: ", ")
    }
}
