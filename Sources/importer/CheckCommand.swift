import ArgumentParser
import Foundation
import ImporterKit

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read and map feeds without writing anything: what would be imported, and every reject.",
        discussion: """
            Exits 0 when every feed reads and at most --max-rejects records are rejected, 65 \
            otherwise (as `run` would), 66 when a feed is missing.

            Example: importer check --model SampleData/models/fireball-xml-elements.yaml SampleData/xml/fireball-2024-elements.xml
            """
    )

    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var logging: LoggingOptions

    @Option(name: .customLong("max-rejects"), help: ArgumentHelp("Rejected records tolerated before the check fails.", valueName: "count"))
    var maxRejects = 0

    @Option(name: .long, help: "Output format: text or json.")
    var format: ListFormat = .text

    @Argument(help: ArgumentHelp("Feed files; - reads standard input.", valueName: "feed"))
    var feeds: [String]

    func validate() throws {
        guard !feeds.isEmpty else { throw ValidationError("give at least one feed") }
    }

    func run() throws {
        try runReportingErrors(logging) {
            let model = try modelOptions.loadModel()
            let checker = FeedChecker(model: model)
            let output = OutputSink()
            var json = JSONWriter(output: output)
            if format != .text { json.beginObject(); json.key("feeds"); json.beginArray() }
            var rejected = 0
            for input in try modelOptions.inputs(feeds, model: model) {
                if format != .text { json.beginObject(); json.key("rejects"); json.beginArray() }
                let check = try checker.check(input) { reject in
                    if format == .text { output.write("rejected: \(reject)\n") } else { json.writeReject(reject) }
                }
                rejected += check.rejected
                if format == .text {
                    output.write("\(check.source): \(check.records) record(s) of \(check.entity) (\(check.feed), \(check.format.rawValue)): \(check.mapped) would be imported, \(check.rejected) rejected\n")
                    output.write("  supplies: \(check.supplied.joined(separator: ", "))\n")
                } else {
                    json.endArray()
                    json.field("source", check.source)
                    json.field("feed", check.feed)
                    json.field("format", check.format.rawValue)
                    json.field("entity", check.entity)
                    json.field("records", check.records)
                    json.field("mapped", check.mapped)
                    json.field("rejected", check.rejected)
                    json.field("supplies", strings: check.supplied)
                    json.endObject()
                }
            }
            if format != .text {
                json.endArray()
                json.field("rejected", rejected)
                json.endObject()
                output.write("\n")
            }
            try output.flush()
            return rejected > maxRejects ? .badInput : .success
        }
    }
}
