/// What a message tells the user they can do, and the limits it names, as data: the library
/// states the fact and puts a `Remedy` where the remedy goes; the front end words it (the command
/// line names its flags and commands, `RemedialError.message(_:)`). `plain` is the library's own
/// wording, free of any front end's.
public enum Remedy: Sendable, Equatable {
    /// The caller chose not to wait for a lock.
    case didNotWait
    /// Waiting longer for a lock may succeed.
    case waitLonger
    /// No store exists where one was looked for: create one, or name another.
    case createOrNameStore
    /// A purge that would expire consumers can be forced.
    case forcePurge
    /// A store without consumers needs the purge bounded by age, or forced before a date or token.
    case boundPurge
    /// An undo that later transactions depend on can undo them too, newest first.
    case cascadeUndo
    /// Several mappings read a feed: name one, or each to read it with all of them.
    case chooseMappings
    /// No mapping reads a feed's format: name one of `candidates`, or how the feed is read.
    case chooseMappingOrFormat(candidates: [String])
    /// The limit of tolerated rejects, `limit`, was exceeded.
    case rejectLimit(Int)
    /// The run's mode that deletes stored records no feed holds.
    case syncMode
    /// A sync may be allowed to read an empty feed (and then delete every record).
    case allowEmptyFeed
    /// The most records a sync may delete, `bound` (a count or a percentage).
    case deleteLimit(String)
    /// The delete limit can be raised.
    case raiseDeleteLimit
    /// The most records a run may set one attribute to null on, `bound`.
    case nulledLimit(String)
    /// The null limit can be raised.
    case raiseNulledLimit
    /// The most records a run may change one attribute on, `bound`.
    case updatedLimit(String)
    /// The update limit can be raised.
    case raiseUpdatedLimit
    /// Temporary files (a feed sorted by key) can go to another directory.
    case temporaryDirectory
    /// A sync may be allowed to read answers whose end cannot be told from a cut.
    case allowUnframed
    /// A statement's parameter `name` was not given a value.
    case bindParameter(String)
    /// Positional parameters cannot be bound: name them, and bind the names.
    case nameParameters
    /// A value given for parameter `name`, which the statement does not have.
    case unusedParameter(String)

    /// A derived view whose token expired is rebuilt from the records.
    case rebuildView(String)
    /// An external consumer whose token expired is reset: to the beginning of the kept history, or to now.
    case resetConsumer(String)
    /// The consumers the store knows can be listed.
    case listConsumers

    /// The library's words, naming no front end's options.
    public static func plain(_ remedy: Remedy) -> String {
        switch remedy {
        case .didNotWait: "did not wait"
        case .waitLonger: "waiting longer may succeed"
        case .createOrNameStore: "create one, or name another store"
        case .forcePurge: "force the purge to purge anyway"
        case .boundPurge: "bound the purge by age, or force it before a date or token"
        case .cascadeUndo: "undo them too, newest first"
        case .chooseMappings: "name the mapping, or each mapping to read it with all of them in one transaction"
        case .chooseMappingOrFormat(let candidates): "name a mapping (one of: \(candidates.joined(separator: ", "))) or the feed's format"
        case .rejectLimit(let limit): "the limit of \(limit)"
        case .syncMode: "a sync"
        case .allowEmptyFeed: "allow empty feeds (and every delete)"
        case .deleteLimit(let bound): "the delete limit \(bound)"
        case .raiseDeleteLimit: "raise the delete limit"
        case .nulledLimit(let bound): "the null limit \(bound)"
        case .raiseNulledLimit: "raise the null limit"
        case .rebuildView(let name): "rebuild view \(name) (or replay, rebuilding expired views)"
        case .resetConsumer(let name): "reset consumer \(name) to the beginning (it will see the kept history again) or to now"
        case .listConsumers: "list the store's consumers"
        case .temporaryDirectory: "another directory for temporary files"
        case .updatedLimit(let bound): "an update limit of \(bound)"
        case .raiseUpdatedLimit: "raise the update limit"
        case .allowUnframed: "allow such answers"
        case .bindParameter(let name): "give a value for :\(name)"
        case .nameParameters: "name them (:name) and give their values"
        case .unusedParameter(let name): "a value for :\(name)"
        }
    }
}

/// An error whose message names what the user can do (`Remedy`) in the words of the front end
/// that prints it; `description` is the message in the library's own words (`Remedy.plain`).
public protocol RemedialError: Error, CustomStringConvertible {
    /// The message, each remedy in `words`.
    func message(_ words: (Remedy) -> String) -> String
}

extension RemedialError {
    public var description: String { message(Remedy.plain) }
}
