import ArgumentParser
import Foundation
import ImporterKit

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the built-in model in the model file format, or check a model file.",
        discussion: """
            A model file (YAML or JSON) declares entities, feed mappings and views; run and \
            check read feeds with one through --model FILE.

            Examples:
              importer model show > fireball.yaml
              importer model check fireball.yaml
            """,
        subcommands: [Show.self, Check.self, ModelSuggestCommand.self, ModelDiffCommand.self, ModelVersionsCommand.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a model (the built-in fireball model by default) as YAML or JSON.",
            discussion: """
                The built-in model is the documented example of the model file format.

                Examples:
                  importer model show > fireball.yaml
                  importer model show --model cneos.yaml --format json
                """
        )
        @Option(name: .long, help: ArgumentHelp("A model file to print instead of the built-in model.", valueName: "file"), completion: .file(extensions: ["yaml", "yml", "json"]))
        var model: String?
        @Option(name: .long, help: "yaml or json.") var format: Format = .yaml

        /// The model file formats.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case yaml, json
        }

        func run() throws {
            try runReportingErrors {
                let model = try ModelOptions.loadModel(path: model)
                let output = OutputSink()
                output.write(format == .json ? ModelFile.json(model) : ModelFile.yaml(model))
                try output.flush()
                return .success
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a model file; report every problem with its location.",
            discussion: """
                Exits 0 when the model is valid, 78 otherwise (66 when the file is missing). JSON: \
                {"file", "valid", "entities", "feeds", "views", "problems": ["file:line:column: …"]}.

                Examples:
                  importer model check SampleData/models/cneos-csv.yaml
                  importer model check my-model.yaml --format json
                """
        )
        @Argument(help: "The model file.", completion: .file(extensions: ["yaml", "yml", "json"])) var file: String
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors {
                guard format == .json else {
                    let model = try ModelFile.load(path: file, checks: FeedMappingProblems.problems)
                    print("\(file): valid: \(model.entities.count) entit\(model.entities.count == 1 ? "y" : "ies"), \(model.feeds.count) feed mapping(s), \(model.views.count) view(s)")
                    return .success
                }
                var model: Model?
                var problems: [String] = []
                do {
                    model = try ModelFile.load(path: file, checks: FeedMappingProblems.problems)
                } catch ModelError.problems(let list) {
                    problems = list
                }
                let output = OutputSink()
                JSONWriter.document(to: output) { json in
                    json.beginObject()
                    json.field("file", file)
                    json.field("valid", model != nil)
                    json.field("entities", strings: model?.entities.map(\.name) ?? [])
                    json.field("feeds", strings: model?.feeds.map(\.name) ?? [])
                    json.field("views", strings: model?.views.map(\.name) ?? [])
                    json.field("problems", strings: problems)
                    json.endObject()
                }
                try output.flush()
                return model == nil ? .storeUnusable : .success
            }
        }
    }
}
