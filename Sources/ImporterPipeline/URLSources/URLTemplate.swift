import Foundation
import ImporterFetch
import ImporterModel
import ImporterStore

/// The `{name}` placeholders of URL feeds, filled from the store (`url-values:`) before the run
/// fetches, and checked again inside its write transaction: the values a run fetched with are the
/// values of the data it writes into, so an incremental cursor cannot drift from the store.
struct URLTemplate {
    /// One placeholder as a run filled it.
    struct Filled: Equatable {
        var value: URLValue
        var entity: String
        /// What the store held when the URL was fetched (null: the `initial` text was used).
        var stored: Value
        /// The value sent, in the store's representation (the stored one moved by the look-back).
        var cursor: Value = .null
    }

    /// A placeholder as it stands in a parsed URL (braces percent-encoded).
    static func marker(_ name: String) -> String { "%7B\(name)%7D" }

    /// The template as it is written in a model file: a URL whose placeholders `FeedSelection` kept
    /// as percent-encoded braces.
    static func template(_ url: String) -> String {
        url.replacingOccurrences(of: "%7B", with: "{").replacingOccurrences(of: "%7D", with: "}")
    }

    /// `feeds` with their placeholders filled from `snapshot`, and what was filled.
    static func fill(_ feeds: [FeedInput], model: Model, from snapshot: StoreSnapshot) throws(ImportError) -> ([FeedInput], [Filled]) {
        var filled: [Filled] = []
        var result = feeds
        for index in result.indices {
            guard var request = result[index].request, let values = result[index].mapping.source?.values, !values.isEmpty else { continue }
            var text = request.url.absoluteString
            for value in values where text.contains(marker(value.name)) {
                let entityName = result[index].mapping.entity
                let stored = try current(value, entity: entityName, model: model) { entity, attribute throws(StoreError) in
                    try snapshot.records.extreme(value.extreme, of: attribute, in: entity)
                }
                let cursor = try lookBack(value, from: stored, entity: entityName, model: model)
                guard let replacement = value.text(of: cursor) ?? value.initial else {
                    throw .model(.invalid("feed mapping '\(result[index].mapping.name)': the store holds no \(value.attribute) yet for '{\(value.name)}', and it has no 'initial'"))
                }
                text = text.replacingOccurrences(of: marker(value.name), with: QueryParameters.encoded(replacement))
                filled.append(Filled(value: value, entity: entityName, stored: stored, cursor: cursor))
            }
            guard let url = URL(string: text) else {
                throw .model(.invalid("feed mapping '\(result[index].mapping.name)': the url with its values filled in is not a URL"))
            }
            result[index].source = result[index].source ?? template(RedactedURL.text(request.url))
            request.url = url
            result[index].request = request
        }
        return (result, filled)
    }

    /// `feed` with its placeholders filled with their `initial` values: what `check` fetches (it
    /// reads no store's values).
    static func initialValues(_ feed: FeedInput) throws(ImportError) -> FeedInput {
        guard var request = feed.request, let values = feed.mapping.source?.values, !values.isEmpty else { return feed }
        var text = request.url.absoluteString
        for value in values where text.contains(marker(value.name)) {
            guard let initial = value.initial else {
                throw .model(.invalid("feed mapping '\(feed.mapping.name)': '{\(value.name)}' has no 'initial' value to fetch the feed with"))
            }
            text = text.replacingOccurrences(of: marker(value.name), with: QueryParameters.encoded(initial))
        }
        guard let url = URL(string: text) else {
            throw .model(.invalid("feed mapping '\(feed.mapping.name)': the url with its values filled in is not a URL"))
        }
        var filled = feed
        filled.source = feed.source ?? template(RedactedURL.text(request.url))
        request.url = url
        filled.request = request
        return filled
    }

    /// Throws unless each filled value is still what the store holds, read in the run's
    /// transaction `tx`.
    static func check(_ filled: [Filled], model: Model, in tx: StoreWriteTransaction) throws(ImportError) {
        for item in filled {
            let now = try current(item.value, entity: item.entity, model: model) { entity, attribute throws(StoreError) in
                try tx.records.extreme(item.value.extreme, of: attribute, in: entity)
            }
            guard now.isSame(as: item.stored) else {
                throw .sourceMoved(name: item.value.name, fetched: item.stored.description, now: now.description)
            }
        }
    }

    /// The stored cursor moved by the value's look-back (`lag`), as the URL is to get it; never
    /// past `initial` (where the store's range starts), so what a store holds does not depend on
    /// how often it ran: a look-back from a first run's records would otherwise reach before it.
    private static func lookBack(_ value: URLValue, from stored: Value, entity name: String, model: Model) throws(ImportError) -> Value {
        guard !stored.isNull, let attribute = model.entity(named: name)?.attribute(named: value.attribute) else { return stored }
        var shifted = stored
        if let lag = value.lag {
            guard let moved = lag.shift(stored, type: attribute.type, forward: value.extreme == .min) else {
                throw .model(.invalid("url-values '\(value.name)': lag \(lag) cannot move \(value.attribute)'s stored value \(stored)"))
            }
            shifted = moved
        }
        guard let initial = value.initial, let start = Self.start(initial, type: attribute.type) else { return shifted }
        let beyond = value.extreme == .max ? Value.compare(shifted, start) < 0 : Value.compare(shifted, start) > 0
        return beyond ? start : shifted
    }

    /// `initial` as a stored value of `type`, or nil: a date bounds a date and time at its
    /// midnight; a date and time in ISO 8601 (`2024-01-01T06:30:00Z`, fractions) is read to the
    /// second, a date's part alone bounds a date.
    private static func start(_ initial: String, type: AttributeType) -> Value? {
        if let value = AttributeEvolution.value(of: initial, as: type) { return value }
        switch type {
        case .date: return AttributeEvolution.value(of: String(initial.prefix(10)), as: .date)
        case .datetime:
            let seconds = String(initial.replacingOccurrences(of: "T", with: " ").prefix(19))
            if let value = AttributeEvolution.value(of: seconds, as: .datetime) { return value }
            guard case .text(let day)? = AttributeEvolution.value(of: String(initial.prefix(10)), as: .date) else { return nil }
            return .text(day + " 00:00:00")
        default: return nil
        }
    }

    private static func current(_ value: URLValue, entity name: String, model: Model,
                                read: (EntityDescription, AttributeDescription) throws(StoreError) -> Value) throws(ImportError) -> Value {
        guard let entity = model.entity(named: name), let attribute = entity.attribute(named: value.attribute) else {
            throw .model(.invalid("url-values '\(value.name)': '\(value.attribute)' is not an attribute of \(name)"))
        }
        do {
            return try read(entity, attribute)
        } catch {
            throw .store(error)
        }
    }
}
