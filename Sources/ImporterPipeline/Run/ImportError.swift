import Foundation
import ImporterFeeds
import ImporterFetch
import ImporterModel
import ImporterStore
import ImporterSupport

/// Why an import failed. Nothing was committed.
public enum ImportError: Error, Sendable, RemedialError {
    /// A feed is not readable or not well-formed (a bad file).
    case feed(FeedError)
    /// More records were rejected than `maxRejects` allows; `rejects` holds the first ones.
    case tooManyRejects(count: Int, limit: Int, rejects: [Reject])
    /// A sync guard refused the run (an empty feed, or more deletes than `--max-delete`).
    case refused([Refusal])
    /// The run was interrupted by a signal (SIGINT, SIGTERM) and rolled back.
    case interrupted(signal: Int32)
    case model(ModelError)
    case store(StoreError)
    /// A feed's URL gave nothing to import (see `FetchError`); nothing was read.
    case fetch(FetchError)
    /// A URL value computed from the store (`url-values`) changed between the fetch and the
    /// run's transaction: another run imported meanwhile.
    case sourceMoved(name: String, fetched: String, now: String)
    /// `--sync` with a URL whose values come from the store: its answer holds only what is new.
    case syncOfIncrementalSource(feed: String)
    /// A feed mapping with children given standard input, which cannot be read twice.
    case childrenFromStandardInput(feed: String)
    /// `--timestamp` older than the store's last transaction: history stays in time order.
    case timestampBeforeHistory(given: String, last: Int64, lastTimestamp: String)
    /// `--sync` of a URL answer in a record-per-line format whose end cannot be told from a cut
    /// (close-delimited): its deletes would follow the cut.
    case unverifiableBody(url: String, format: String)
    /// A feed out of key order could not be sorted through temporary files in `directory` (a
    /// full disk, most often).
    case spill(directory: String, reason: String)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .feed(let error): return error.description
        case .tooManyRejects(let count, let limit, let rejects):
            var text = rejects.count == 1 && limit == 0
                ? "rejected record: \(rejects[0])"
                : "\(count) rejected record(s), more than \(words(.rejectLimit(limit))); first:\n" + rejects.prefix(10).map { "  \($0)" }.joined(separator: "\n")
            text += "\nnothing was imported"
            return text
        case .refused(let reasons):
            return reasons.map { $0.message(words) }.joined(separator: "\n") + "\nnothing was written"
        case .interrupted(let signal):
            return "interrupted by \(signal == 2 ? "SIGINT" : signal == 15 ? "SIGTERM" : "signal \(signal)"): the import was rolled back, nothing was written"
        case .model(let error): return error.message(words)
        case .store(let error): return error.message(words)
        case .fetch(let error): return error.description + "\nnothing was written"
        case .sourceMoved(let name, let fetched, let now):
            return "'{\(name)}' was \(fetched) when the feed was fetched and is \(now) now: another run imported meanwhile; nothing was written, run again"
        case .syncOfIncrementalSource(let feed):
            return "feed mapping '\(feed)' fetches only what is new since the store's last values (url-values), so it cannot sync: a sync would delete every record the answer leaves out; "
                + "declare the attribute whose range the answer covers (sync: {scope: date}) for a windowed sync"
        case .childrenFromStandardInput(let feed):
            return "feed mapping '\(feed)' reads children, so the document is read twice (once for its records, once for their children): "
                + "give it as a file or a URL, not standard input (save it first: importer run … feed.json)"
        case .timestampBeforeHistory(let given, let last, let lastTimestamp):
            return "--timestamp \(given) is before the store's last transaction (\(last), at \(lastTimestamp)): history stays in time order, "
                + "so snapshots are imported oldest first; nothing was written"
        case .unverifiableBody(let url, let format):
            return "\(url): the answer had neither a Content-Length nor chunked framing, so it ended wherever the connection closed, "
                + "and \(format) cut at a line boundary reads as whole: it cannot drive a sync, whose deletes would follow the cut; "
                + "nothing was written (\(words(.allowUnframed)))"
        case .spill(let directory, let reason):
            return "cannot write the run's temporary files in \(directory): \(reason); nothing was written "
                + "(free space there, or give \(words(.temporaryDirectory)))"
        }
    }
}

extension ImportError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .feed(let error): error.exitStatus
        case .tooManyRejects, .refused: .badInput
        case .interrupted(let signal): signal == 15 ? .terminated : .interrupted
        case .model(let error): error.exitStatus
        case .store(let error): error.exitStatus
        case .fetch(let error): error.exitStatus
        case .sourceMoved: .locked
        case .syncOfIncrementalSource, .childrenFromStandardInput: .usage
        case .unverifiableBody, .timestampBeforeHistory: .badInput
        case .spill: .ioError
        }
    }
}
