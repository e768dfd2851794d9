import ImporterModel

/// The repeated keys of a run, as the stores log them (`DuplicateLog`), turned into what the user
/// reads: a reject for each one a feed rejects (`duplicates: reject`), and warnings naming the
/// others, key and both places, the earliest `DuplicateLog.named` of them in feed order, then a
/// count of the rest, per entity.
final class DuplicateNotes {
    /// The feeds' source names, by index in the run.
    var sources: [String] = []
    /// Each entity's unique key attributes, to name a key's values.
    let keyNames: [String: [String]]
    /// Per entity, the repeats not rejected.
    private var logs: [String: DuplicateLog] = [:]
    /// Entities in the order their first repeat was met.
    private var entities: [String] = []

    init(keyNames: [String: [String]]) {
        self.keyNames = keyNames
    }

    /// Keeps what `log` says of the repeats not rejected, for the warnings; returns the rejects of
    /// the rejected ones, in feed order.
    func note(_ log: DuplicateLog) -> [Reject] {
        var log = log
        let rejected = log.takeRejected()
        if let entity = log.earliest.first?.entity {
            if logs[entity] == nil {
                entities.append(entity)
                logs[entity] = DuplicateLog()
            }
            logs[entity]?.append(contentsOf: log)
        }
        return rejected.map(reject)
    }

    /// The warnings, per entity: its earliest repeats named, then how many more.
    var warnings: [String] {
        entities.flatMap { entity -> [String] in
            guard let log = logs[entity] else { return [] }
            var lines = log.earliest.map(describe)
            let more = log.count - log.earliest.count
            if more > 0 { lines.append("\(entity): \(more) more repeated key\(more == 1 ? "" : "s") not named (the first \(log.earliest.count) are)") }
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
