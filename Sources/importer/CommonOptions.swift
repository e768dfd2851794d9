import ArgumentParser
import Foundation
import ImporterKit

/// `--store`, `--wait`/`--no-wait` and the logging options, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store's SQLite file (default: $IMPORTER_STORE, else importer.sqlite).", valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another process's lock before failing with exit code 75.", valueName: "seconds"))
    var wait: Double = 5

    @Flag(name: .customLong("no-wait"), help: "Fail at once (exit 75) when another process holds the lock.")
    var noWait = false

    @OptionGroup var logging: LoggingOptions

    var path: String { store ?? Store.defaultPath() }

    func validate() throws {
        guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds") }
    }

    func open(create: Bool) throws -> Store {
        let milliseconds = noWait ? 0 : Int(wait * 1000)
        return try Store(path: path, options: Store.Options(busyTimeoutMilliseconds: milliseconds, create: create, readOnly: false))
    }
}

extension ReportFormat: ExpressibleByArgument {}

/// The output of listing commands: for people, or for programs.
enum ListFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
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

/// Runs a command body, logging library errors on standard error and exiting with their
/// documented code.
func runReportingErrors(_ logging: LoggingOptions? = nil, _ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch let error as ReportTargetsError {
        throw ValidationError(error.description)
    } catch {
        let logger = (logging ?? (try? LoggingOptions.parse([])))?.makeLogger()
        if let logger { logger.error("\(error)") } else { FileHandle.standardError.write(Data("importer: error: \(error)\n".utf8)) }
        throw ExitCode(ExitStatus.forError(error).rawValue)
    }
    if status != .success { throw ExitCode(status.rawValue) }
}
