import ImporterFetch
import ImporterModel

/// URL answers whose end cannot be told from a cut: a close-delimited body (no `Content-Length`,
/// no chunked framing) ends wherever the connection closed. A JSON document or an XML one cut short
/// fails to parse, but NDJSON or CSV cut at a line boundary reads as a whole, shorter feed.
///
/// Invariant: such a body never drives a sync (whose deletes would follow the cut) unless the run
/// allows it; outside a sync it is read, with a warning.
enum UnframedBodies {
    /// The warnings to give about `feeds`; throws when they cannot drive the run's sync.
    static func check(_ feeds: [FeedInput], options: ImportOptions) throws(ImportError) -> [String] {
        var warnings: [String] = []
        for feed in feeds where feed.framing == .closeDelimited {
            guard let format = lineFormat(feed.mapping.format) else { continue }
            if options.sync && !options.allowUnframed { throw .unverifiableBody(url: feed.name, format: format) }
            warnings.append("\(feed.name): the answer had neither a Content-Length nor chunked framing: "
                + "had the connection closed early at a line boundary, the \(format) would have read as whole")
        }
        return warnings
    }

    /// The name of a format whose records end at line ends, or nil.
    private static func lineFormat(_ format: FeedFormat) -> String? {
        switch format {
        case .ndjson: "NDJSON"
        case .csv: "CSV"
        case .json, .nasaColumnar, .xml: nil
        }
    }
}
