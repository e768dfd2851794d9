import ArgumentParser
import Foundation
import ImporterKit

struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the built-in model in the model file format, or check a model file.",
        subcommands: [Show.self, Check.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a model (the built-in fireball model by default) as YAML or JSON.",
            discussion: "The documented example of the model file format. Example: importer model show > fireball.yaml"
        )
        @Option(name: .long, help: ArgumentHelp("A model file to print instead of the built-in model.", valueName: "file"))
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
            discussion: "Exits 0 when the model is valid, 78 otherwise. Example: importer model check my-model.yaml"
        )
        @Argument(help: "The model file.") var file: String

        func run() throws {
            try runReportingErrors {
                let model = try ModelFile.load(path: file)
                print("\(file): valid: \(model.entities.count) entit\(model.entities.count == 1 ? "y" : "ies"), \(model.feeds.count) feed(s), \(model.views.count) view(s)")
                return .success
            }
        }
    }
}
