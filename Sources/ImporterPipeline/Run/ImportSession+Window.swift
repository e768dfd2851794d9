import ImporterModel
import ImporterStore

/// A windowed sync (`sync: {scope: date}` on a feed mapping): a feed that covers part of an entity
/// deletes only the stored records of the window it covers that it no longer holds. The window is,
/// first to last choice: the bounds on the command line (`--window-from`, `--window-to`); the
/// window a URL asked for (the `url-values` cursor on the scope attribute it sent: from it for a
/// `max` cursor, through it for a `min` one); the feed's own lowest to highest scope value.
extension ImportSession {
    /// The window `entity`'s sync covers, nil when none of its feeds is scoped or none could be
    /// set (an empty feed: nothing is deleted).
    func syncWindow(of entity: EntityDescription, feeds: [FeedInput], ledger: ImportLedger) throws(ImportError) -> SyncWindow? {
        guard let scope = feeds.first(where: { $0.mapping.entity == entity.name && $0.mapping.childRecords == nil })?.mapping.syncScope,
              let type = entity.attribute(named: scope)?.type else { return nil }
        if options.windowFrom != nil || options.windowTo != nil {
            func bound(_ text: String?, _ option: String) throws(ImportError) -> Value? {
                guard let text else { return nil }
                // A date bounds a date and time at its midnight.
                guard let value = AttributeEvolution.value(of: text, as: type)
                    ?? (type == .datetime ? AttributeEvolution.value(of: text + " 00:00:00", as: type) : nil) else {
                    throw .model(.invalid("\(option) '\(text)' does not read as the \(type.rawValue) of \(entity.name).\(scope)"))
                }
                return value
            }
            return SyncWindow(entity: entity.name, attribute: scope, from: try bound(options.windowFrom, "--window-from"),
                              to: try bound(options.windowTo, "--window-to"), origin: "--window-from/--window-to")
        }
        if let sent = ledger.requestedWindows.first(where: { $0.value.attribute == scope && $0.entity == entity.name }) {
            let origin = "the window the URL asked for: {\(sent.value.name)}"
            guard !sent.cursor.isNull else { return SyncWindow(entity: entity.name, attribute: scope, origin: origin + ", the store held no value") }
            return sent.value.extreme == .max ? SyncWindow(entity: entity.name, attribute: scope, from: sent.cursor, origin: origin)
                : SyncWindow(entity: entity.name, attribute: scope, to: sent.cursor, origin: origin)
        }
        guard let range = ledger.scopeRanges[entity.name] else { return nil }
        return SyncWindow(entity: entity.name, attribute: scope, from: range.low, to: range.high, origin: "the feed's own range")
    }
}

/// The lowest and highest value of a sync scope attribute among the records a run read.
struct ScopeRange: Sendable {
    var low: Value
    var high: Value

    /// Widens `range` (nil: none yet) over the scope values of `batch` at `position`.
    static func widen(_ range: inout ScopeRange?, over batch: RecordBatch, position: Int) {
        for record in 0..<batch.count {
            let value = batch.publicValue(record: record, position: position)
            guard !value.isNull else { continue }
            guard var current = range else {
                range = ScopeRange(low: value, high: value)
                continue
            }
            if Value.compare(value, current.low) < 0 { current.low = value }
            if Value.compare(current.high, value) < 0 { current.high = value }
            range = current
        }
    }
}
