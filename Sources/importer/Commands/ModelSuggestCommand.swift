import ArgumentParser
import Foundation
import ImporterKit

/// `importer model suggest`: a first model for sample feeds, to edit rather than write from scratch.
struct ModelSuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Print a model that imports sample feeds: records path, typed attributes, key, tombstone.",
        discussion: """
            Samples --sample records of each FEED (JSON documents such as GeoJSON, NDJSON, XML \
            with namespaces such as Atom, CSV; the format from the extension or --feed-format) for \
            names and the key, reads every feed to its end for the types, and prints one entity \
            and one feed mapping per array of records (a JSON document may hold several): an \
            attribute per field with a safe name and \
            an inferred type (integer, real, text, boolean, date, datetime from epoch seconds, \
            milliseconds or microseconds, ISO 8601, RFC 2822 or YYYY-MM-DD hh:mm:ss; numbers \
            written 1,5 or 1.234,5 or 1,234.5 with their format), a unique key \
            (an id-like field first, the only required attribute) and a tombstone. \
            The YAML shows each field's sample value as a comment and notes what to check first. \
            Several FEEDs of one shape (snapshots) are sampled together; the key must be unique \
            within each. With --model FILE (or --store, the model the store was last written \
            with), it prints that model changed for the feed instead: an optional attribute for \
            each field no mapping reads, a retype where the values need a wider type; then \
            `importer migrate --plan --model` shows what the store takes. Exits 65 when a feed \
            cannot be parsed or has no records, 66 when it cannot be read.

            Examples:
              importer model suggest all_day.geojson > quakes.yaml
              importer model check quakes.yaml && importer run --model quakes.yaml all_day.geojson
              importer model suggest feed.atom --feed-format xml --sample 200
              importer model suggest day1.csv day2.csv --format json
              importer model suggest --store quakes.sqlite today.geojson > quakes-v2.yaml
            """
    )

    @Argument(help: "Sample feeds of one shape.", completion: .file()) var feeds: [String]
    @Option(name: .long, help: "yaml (with comments) or json.") var format: ModelCommand.Show.Format = .yaml
    @Option(name: .customLong("feed-format"), help: ArgumentHelp("How to read the feeds: json, ndjson, xml or csv (default: from the extension).", valueName: "format"))
    var feedFormat: FeedFormat?
    @Option(name: .long, help: ArgumentHelp("Records of each feed sampled for names and the key.", valueName: "n")) var sample = ModelSuggester.defaultSampleSize
    @Option(name: .long, help: ArgumentHelp("Propose the change this model needs for the feeds, rather than a first model.", valueName: "file"), completion: .file())
    var model: String?
    @Option(name: .long, help: ArgumentHelp("Propose the change the model this store was last written with needs (when --model is not given).", valueName: "path"), completion: .file())
    var store: String?

    func validate() throws {
        guard !feeds.isEmpty else { throw ValidationError("Give at least one sample FEED.") }
        guard sample > 0 else { throw ValidationError("--sample must be at least 1.") }
        if feedFormat == .nasaColumnar { throw ValidationError("--feed-format nasa-columnar: the built-in model reads it; give json, ndjson, xml or csv.") }
        if feedFormat == nil {
            for feed in feeds where Self.format(of: feed) == nil {
                throw ValidationError("Cannot tell the format of \(feed) from its extension: give --feed-format json, ndjson, xml or csv.")
            }
        }
    }

    /// The model a change is proposed for: `--model`, else the store's latest version; nil for a
    /// first model.
    private func currentModel() throws -> Model? {
        if let model { return try ModelFile.load(path: model) }
        guard let store else { return nil }
        let opened = try Store.open(store, schema: nil, options: Store.Options(busyTimeoutMilliseconds: 5000, create: false, readOnly: true))
        let versions = try opened.read { (snapshot: StoreSnapshot) throws -> [StoredModel] in try snapshot.records.registeredModels() }
        guard let latest = versions.last else { throw ValidationError("\(store) keeps no model version yet: give --model") }
        return try ModelFile.parse(latest.text, name: "\(store) (model version \(versions.count))")
    }

    /// The format an extension suggests; `.geojson`, `.atom` and `.rss` too.
    static func format(of path: String) -> FeedFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".geojson") { return .json }
        if lower.hasSuffix(".atom") || lower.hasSuffix(".rss") { return .xml }
        return FeedFormat.guess(fromPath: path)
    }

    func run() throws {
        try runReportingErrors {
            var samples: [[FeedSample]] = []
            for feed in feeds {
                guard let format = feedFormat ?? Self.format(of: feed) else { return .usage }
                samples.append(try ModelSuggester.sample(path: feed, format: format, limit: sample))
            }
            var suggestion = try ModelSuggester.suggest(samples, paths: feeds)
            if let current = try currentModel() {
                let (changed, changes) = try ModelChangeSuggestion.propose(current, from: suggestion)
                suggestion = ModelSuggestion(model: changed, notes: changes.isEmpty ? ["The model maps every field of the feed with types its values fit: no change."]
                    : ["Proposed changes (check them, then: importer migrate --plan --model FILE):"] + changes, comments: [])
            }
            let output = OutputSink()
            if format == .json {
                for note in suggestion.notes.dropFirst(2) { FileHandle.standardError.write(Data("importer: note: \(note)\n".utf8)) }
                output.write(ModelFile.json(suggestion.model))
            } else {
                output.write(SuggestionYAML.render(suggestion))
            }
            try output.flush()
            return .success
        }
    }
}
