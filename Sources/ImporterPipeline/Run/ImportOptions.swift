import Foundation
import ImporterFetch
import ImporterModel

/// How an import runs.
public struct ImportOptions: Sendable {
    /// Who writes (Core Data's transaction author): `--author`.
    public var author: String
    /// From where (Core Data's context name): the command.
    public var context: String
    /// The feeds are full snapshots: stored records of their entities that no feed holds are deleted.
    public var sync = false
    /// A windowed sync's bounds given on the command line (`--window-from`, `--window-to`), read
    /// as the scope attribute's type; they override the window the feeds would set.
    public var windowFrom: String?
    public var windowTo: String?
    /// Records per upsert batch.
    public var batchSize = 8192
    /// Rejected records tolerated before the import fails.
    public var maxRejects = 0
    /// Create the model's views and replay every view after the import, in the same transaction.
    public var replayViews = true
    /// Apply the model's automatic migration steps (renames, optional attributes) first: `--migrate`.
    public var migrate = false
    /// The time the run's transaction is stamped with (`--timestamp`, `Timestamp` text): an archived
    /// snapshot's, for history backfilled in time order; nil for now.
    public var timestamp: String?
    /// Where the model came from (a migration's source).
    public var modelSource = "the built-in model"

    /// Do everything, then roll the store transaction back (the report is rendered before).
    public var dryRun = false
    /// Fetch URL feeds in full, ignoring the validators kept from their last import.
    public var refetch = false
    /// Sync guard: a feed with no records may delete stored records (`--allow-empty`).
    public var allowEmpty = false
    /// Sync guard: a URL answer in a record-per-line format (NDJSON, CSV) whose end cannot be told
    /// from a cut (close-delimited) may drive a sync (`--allow-unframed`).
    public var allowUnframed = false
    /// A CSV feed whose last row ends without a line break (a download cut inside its last field
    /// looks so) is refused instead of warned of (`--require-final-newline`).
    public var requireFinalLineBreak = false
    /// Sync guard: the most records of one entity a sync may delete (`--max-delete`).
    public var maxDelete = DeleteBound.percent(50)
    /// Null-storm guard: the most records of one entity on which a run may set one attribute from a
    /// value to null (`--max-nulled`), out of the records holding a value for it.
    public var maxNulled = DeleteBound.percent(50)
    /// Mass-update guard: the most records of one entity on which a run may change one non-key
    /// attribute, out of the records stored before it (`--max-updated`).
    public var maxUpdated = DeleteBound.percent(50)
    /// Where a feed out of key order is sorted (`--temp-dir`): nil, beside the store when it is
    /// a file, else the temporary directory.
    public var temporaryDirectory: String?
    /// Memory a feed out of key order may hold for sorting (`KeyOrderedBatches`): past half of
    /// it, runs of that half are spilled.
    public var sortRunBytes = 16 << 20
    /// Whether a feed out of key order loses the records the store holds unchanged before it is
    /// held (SQLite's `UnchangedFilter`, for stores the filter fits). Off, they are sorted with the
    /// rest and noted as they are merged (`UnchangedRowMatcher`), as for a larger store; both
    /// write the same, and the tests check it.
    public var filtersUnchangedBeforeSorting = true

    public static let defaultAuthor = "importer-run"

    public init(author: String = ImportOptions.defaultAuthor, context: String = "run", sync: Bool = false) {
        self.author = author
        self.context = context
        self.sync = sync
    }
}

/// One feed to import: where it is, and the mapping that reads it.
public struct FeedInput: Sendable {
    /// A file path, or `-` for standard input (for a feed fetched from a URL: its body, once
    /// downloaded).
    public var path: String
    public var mapping: FeedMapping
    /// Where the feed is fetched from, when it comes from a URL (`SourceFetching`).
    public var request: FetchRequest?

    public init(path: String, mapping: FeedMapping) {
        self.path = path
        self.mapping = mapping
    }

    /// A feed fetched from `request`'s URL before the run's transaction opens.
    public init(request: FetchRequest, mapping: FeedMapping) {
        self.init(path: "", mapping: mapping)
        var request = request
        request.format = request.format ?? mapping.format
        self.request = request
    }

    /// For a page of a paged source: the source's name (its first page's URL, redacted).
    public var source: String?
    /// How a URL feed's downloaded body was delimited (`BodyFraming`); nil for a file.
    public var framing: BodyFraming?
    /// The lists of children its mapping's children read (`Model.childListPaths`): not unmapped.
    public var childLists: [String] = []

    /// The name the feed goes by in reports, rejects and error locations: its path, or its URL
    /// redacted (a page's own URL).
    public var name: String { request.map { RedactedURL.text($0.url) } ?? path }

    /// The name of what the feed was read from, in history and in the store's source states: a
    /// paged source's pages share it.
    public var sourceName: String { source ?? name }
}

/// Progress of a running import, reported after each batch.
public struct ImportProgress: Sendable {
    public var source: String
    public var records: Int
    public var bytesRead: Int
    public var totalBytes: Int?
}

/// The most stored records of one entity that a `--sync` may delete: a count, or a percentage of
/// the records the entity held before the run (`--max-delete 500`, `--max-delete 50%`).
public enum DeleteBound: Sendable, Equatable, CustomStringConvertible {
    case count(Int)
    case percent(Double)

    /// Parses `N` or `P%` (0 ≤ P ≤ 100).
    public init?(parsing text: String) {
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value >= 0, value <= 100 else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(text), value >= 0 else { return nil }
            self = .count(value)
        }
    }

    /// The most records that may be deleted out of `stored`.
    public func limit(stored: Int) -> Int {
        switch self {
        case .count(let count): count
        case .percent(let percent): Int((Double(stored) * percent / 100).rounded(.down))
        }
    }

    public var description: String {
        switch self {
        case .count(let count): "\(count)"
        case .percent(let percent): percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        }
    }
}
