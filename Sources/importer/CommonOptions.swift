import ArgumentParser
import Foundation
import ImporterKit

/// `--store`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store's SQLite file (default: $IMPORTER_STORE, else importer.sqlite).", valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another run's lock before failing with exit code 75.", valueName: "seconds"))
    var wait: Double = 5

    var path: String { store ?? Store.defaultPath() }

    func open(create: Bool) throws -> Store {
        var options = Store.Options(busyTimeoutMilliseconds: Int(wait * 1000), create: create, readOnly: false)
        options.create = create
        return try Store(path: path, options: options)
    }
}

extension ReportFormat: ExpressibleByArgument {}
extension FeedFormat: ExpressibleByArgument {}

/// `--model`, `--feed` and `--feed-format`: which model reads the feeds, and how.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A model file (YAML or JSON; see `importer model show`). Default: the built-in fireball model.", valueName: "file"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The model's feed mapping to read the feeds with (default: the only one, or the one for the file's format).", valueName: "name"))
    var feed: String?

    @Option(name: .customLong("feed-format"), help: ArgumentHelp("The feeds' format: nasa-columnar, json, ndjson, xml or csv (default: the mapping's).", valueName: "format"))
    var feedFormat: FeedFormat?

    func loadModel() throws -> Model {
        try model.map { try ModelFile.load(path: $0) } ?? FireballModel.model
    }

    func inputs(_ paths: [String], model: Model) throws -> [FeedInput] {
        let selection = FeedSelection(model: model, feedName: feed, format: feedFormat)
        return try paths.map { try selection.input(for: $0) }
    }
}

/// Runs a command body, printing library errors on stderr and exiting with their documented code.
func runReportingErrors(_ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        FileHandle.standardError.write(Data("importer: error: \(error)\n".utf8))
        throw ExitCode(ExitStatus.forError(error).rawValue)
    }
    if status != .success { throw ExitCode(status.rawValue) }
}
