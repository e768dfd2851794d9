import ImporterSupport

/// Why a guard refused a run, which then writes nothing: the fact, with the limits and remedies
/// as data (`Remedy`) for the front end to word.
public enum Refusal: Sendable, Equatable {
    /// A sync read no records from `source`, and would delete the `held` stored records of `entity`.
    case emptyFeed(source: String, entity: String, held: Int)
    /// A sync would delete `count` (`percent`%) of the `held` stored records of `entity`, more than
    /// `bound` allows (`limit`).
    case tooManyDeletes(entity: String, count: Int, held: Int, percent: Int, bound: DeleteBound, limit: Int)
    /// The run would set `entity.attribute` to null on `count` (`percent`%) of the `holding` records
    /// holding a value for it, more than `bound` allows (`limit`).
    case nullStorm(entity: String, attribute: String, count: Int, holding: Int, percent: Int, bound: DeleteBound, limit: Int)
    /// The run would change `entity.attribute` on `count` (`percent`%) of the `held` stored records,
    /// more than `bound` allows (`limit`); `examples` show changes as `old → new`.
    case massUpdate(entity: String, attribute: String, count: Int, held: Int, percent: Int, bound: DeleteBound, limit: Int, examples: [String])
    /// A sync would delete `parent` records that have `children` `child` records, which the
    /// relationship's `delete: deny` forbids.
    case deniedDelete(parent: String, relationship: String, child: String, children: Int)
    /// A sync rejected `count` `entity` records whose key could not be read: it cannot tell which
    /// stored records they stand for, and would delete them as records the feed no longer holds.
    case unkeyedRejects(entity: String, count: Int)

    /// The refusal, each limit and remedy in `words`.
    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .emptyFeed(let source, let entity, let held):
            "\(source) holds no records: with \(words(.syncMode)) it would delete the \(held) stored \(entity) records; "
                + "\(words(.allowEmptyFeed)) if the source is really empty"
        case .tooManyDeletes(let entity, let count, let held, let percent, let bound, let limit):
            "\(words(.syncMode)) would delete \(count) of the \(held) stored \(entity) records (\(percent)%), more than \(words(.deleteLimit(bound.description))) allows (\(limit)); "
                + "check the feed, or \(words(.raiseDeleteLimit))"
        case .nullStorm(let entity, let attribute, let count, let holding, let percent, let bound, let limit):
            "the run would set \(entity).\(attribute) to null on \(count) of the \(holding) records holding a value (\(percent)%), "
                + "more than \(words(.nulledLimit(bound.description))) allows (\(limit)); check the feed (a field the upstream dropped, a path that no longer matches), "
                + "or \(words(.raiseNulledLimit))"
        case .massUpdate(let entity, let attribute, let count, let held, let percent, let bound, let limit, let examples):
            "the run would change \(entity).\(attribute) on \(count) of the \(held) stored records (\(percent)%)"
                + (examples.isEmpty ? "" : ", e.g. \(examples.joined(separator: "; "))")
                + ", more than \(words(.updatedLimit(bound.description))) allows (\(limit)); check the feed (a unit or format the upstream changed), "
                + "or \(words(.raiseUpdatedLimit))"
        case .deniedDelete(let parent, let relationship, let child, let children):
            "\(words(.syncMode)) would delete \(parent) records that still have \(children) \(child) record(s), "
                + "which relationship '\(relationship)' forbids (delete: deny); check the feed, or delete the children first"
        case .unkeyedRejects(let entity, let count):
            "\(count) rejected \(entity) record(s) have no readable key: \(words(.syncMode)) cannot tell which stored records they stand for "
                + "and would delete them; fix the records (see the rejects), or run without \(words(.syncMode))"
        }
    }
}

extension Refusal: CustomStringConvertible {
    public var description: String { message(Remedy.plain) }
}
